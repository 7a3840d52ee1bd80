"""What a card is worth, and the printed value that makes it fair: one room, two entries.

``cards.measure(source, ...) -> pandas.DataFrame``
    Every task's and gnome's value per player count, to ± ``margin`` points (or marked
    ``not measured``), forks spent where the intervals need them (``survey``).  ``source``
    is a list of run directories (one per player count) or ``{players: RunConfig}`` (new
    games).  One row per card and count; the columns (``table.COLUMNS`` plus ``who`` and
    ``games``):

    ==================  ===================================================================
    card, kind, group   task id / gnome id; ``task`` / ``gnome``; colour (tier) / ``gnome``
    players             player count (never pooled with another)
    printed             the task's printed points in these games (NaN for gnomes)
    value, lo, hi       tasks: the ``measure`` (default ``receipt``: receive it vs the
                        best other move at a decision where the mover could; ``lit``:
                        ignite it at a moment its owner could vs never); gnomes: recruit
                        it vs the best other move; final points of the mover, 95%
                        clustered by deal
    n, deals            forks and deals it rests on
    win, win_lo, win_hi the same in win share; ``win_points`` = win / ``win_rate`` (the
                        count's win share per point), i.e. in win-equivalent points
    lit_share           share of receipts lit by the end; ``rounds_to_light``: rounds from
                        receipt to ignition where lit (both from take forks, so under
                        the receipt measure only); ``slope``: surplus per printed point
                        (1 under the lit measure)
    lit_value, lit_lo,  igniting it at a moment its owner could vs never (``light`` and
    lit_hi, lit_n,      ``forced`` forks): why the card is worth what it is
    n_forced
    reference           mean value of the other cards of its group at this count
    surplus, s_lo,      value - reference with its 95% interval and half-width: what the
    s_hi, half          card gives beyond a typical card of its tier
    win_surplus,        the surplus in win-equivalent points
    w_lo, w_hi
    status              ``measured`` (half <= margin, >= 10 deals) / ``not measured``;
                        ``forks_needed`` for the margin
    q_value, flag       per count and kind, BH: ``strong`` / ``weak`` (rows on 10+ deals)
    detect              detection floor: the |surplus| a lone row needs to be flagged
    pooled, pooled_half the surplus pooled over the counts where they agree, and
    flag_counts         its flag (the test across counts)
    fair, proposed      printed - surplus / slope and its whole number (tasks)
    price_note          "no price fixes this card: change its condition" (slope < 0.1),
                        "change the condition" (fair below the lowest print, 1: proposed
                        at 1) or a proposal below its colour's lowest printing, with the
                        evidence
    who, games          who played; games the card was forked on
    ==================  ===================================================================

``cards.reprice(runs, ...) -> price.Reprice``
    The closed loop: one printed value per task for all counts, re-measured on fresh deals
    after the players re-optimise (secant steps), then checked on new deals.  Its
    ``estimate`` (per task: ``printed``, ``fair`` with its fair printed window
    ``fair_lo`` .. ``fair_hi``, ``holds`` (the window holds the print), ``proposed``
    (the window's whole value nearest the print), ``slope``, ``flagged``, ``no_price``,
    ``below_floor`` (held at its colour's lowest printing), ``note``, per count
    ``surplus_N``, ``half_N``, ``own_N``, ``status_N``, ``slope_N``, ``resid_N`` at the
    first proposal), ``proposal`` (task -> printed value,
    changed cards) and ``verified`` (per re-priced card and count: ``surplus``,
    ``s_lo``, ``s_hi``, ``status``, ``verdict`` = ``within`` / ``off`` / ``unresolved``;
    in printed points: ``response`` (surplus per printed point over the loop's prices),
    the fair printed window ``fair_lo`` .. ``fair_hi`` and ``price_verdict``) are tidy.

The closed loop's steps, for the errata sheet's own loop: ``card_table`` (card values of
a fork table), ``task_kinds`` (the forks a measure reads), ``printed_points``,
``population`` (who played, in words), ``combine`` (one printed value per card over the
counts), ``pooled`` (a card's surplus over the counts), ``next_prices`` (one round's
secant steps), ``top_up_check`` (the check's more forks for the rows it cannot resolve,
``check_topup``), ``verdict`` (a check row within / off / unresolved), ``toml_value``;
and for its estimate ``top_up_runs`` / ``forked_games`` (the survey's top-ups of finished
runs' forks to ``TARGET_SHARE`` x the margin, as ``reprice`` estimates).

The modules: ``layout`` (the fork kernel's named result layout), ``kernel`` (the compiled
forks), ``probes`` (fork tables of a configuration, cached), ``table`` (card values from
forks), ``survey`` (the whole table to a margin), ``price`` (the closed loop),
``check_topup`` (the check's more forks for the rows it cannot resolve), ``views``
(``task_values`` / ``gnome_values`` of finished runs for the report, ``check`` and sweeps).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from bonfire_sim.analysis.cards.check_topup import CHECK_SEEDS, CHECK_TOP_UPS, TopUp, top_up_check
from bonfire_sim.analysis.cards.price import (
    Reprice,
    combine,
    next_prices,
    pooled,
    pooled_half,
    toml_value,
)
from bonfire_sim.analysis.cards.price import reprice as _reprice
from bonfire_sim.analysis.cards.probes import ProbeSettings, probe_values
from bonfire_sim.analysis.cards.survey import MAX_GAMES as SURVEY_MAX_GAMES
from bonfire_sim.analysis.cards.survey import ROUNDS as SURVEY_ROUNDS
from bonfire_sim.analysis.cards.survey import (
    TARGET_SHARE,
    card_values,
    forked_games,
    survey_cards,
    top_up_runs,
)
from bonfire_sim.analysis.cards.table import (
    DEFAULT_MEASURE,
    DETAIL_KINDS,
    MEASURES,
    MIN_SLOPE,
    RESPONSE_RATIO,
    card_table,
    fair_print,
    flags_across_counts,
    population,
    price_divisor,
    printed_points,
    task_kinds,
)
from bonfire_sim.analysis.cards.views import gnome_values, task_values
from bonfire_sim.analysis.cards.window import MIN_PRICE, verdict
from bonfire_sim.analysis.runs import RunLike
from bonfire_sim.sim.runconfig import RunConfig

__all__ = ["CHECK_SEEDS", "CHECK_TOP_UPS", "DEFAULT_MEASURE", "DETAIL_KINDS", "MEASURES",
           "MIN_PRICE",
           "MIN_SLOPE", "RESPONSE_RATIO", "SURVEY_MAX_GAMES", "SURVEY_ROUNDS", "TARGET_SHARE",
           "ProbeSettings", "Reprice", "TopUp", "card_table",
           "card_values", "combine", "forked_games", "top_up_runs",
           "fair_print", "flags_across_counts", "gnome_values",
           "measure", "next_prices", "pooled", "pooled_half", "population", "price_divisor",
           "printed_points", "probe_values", "reprice", "task_kinds", "task_values",
           "toml_value", "top_up_check", "verdict"]


def measure(source: Sequence[RunLike] | Mapping[int, RunConfig], *, margin: float = 1.0,
            jobs: int = 1, quiet: bool = True,
            note: Callable[[str], None] | None = None, **options: Any) -> pd.DataFrame:
    """Every card's value per player count to ± ``margin`` (the columns above);
    ``options`` go to ``survey.survey_cards`` (``games``, ``max_games``, ``rounds``,
    ``seed``, ``target``, ``checkpoint``, ``measure``)."""
    return survey_cards(source, margin=margin, jobs=jobs, quiet=quiet, note=note,
                        **options).table


def reprice(runs: RunLike | Sequence[RunLike], *, margin: float = 1.0, verify: bool = True,
            jobs: int = 1, quiet: bool = True,
            note: Callable[[str], None] | None = None, **options: Any) -> Reprice:
    """The closed-loop price of every flagged task (see ``price.reprice`` for
    ``options``: ``verify_games``, ``focus_games``, ``rounds``, ``seed``, ``measure``
    ...)."""
    return _reprice(runs, margin=margin, verify=verify, jobs=jobs, quiet=quiet, note=note,
                    **options)
