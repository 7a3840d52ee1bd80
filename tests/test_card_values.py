"""Card values and re-pricing (issue 26): the forks never put the mover out, every card is
measured or marked, intervals are clustered by deal, a re-price moves a card's surplus by
the re-price, and ``reprice --verify`` closes the loop on fresh deals.

The small tests probe only the blue tasks of 2-player runs (a colour is its own reference)
so that each stays well under a minute on one core; the full-size versions are marked
``heavy`` (``make test-heavy``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bonfire_sim.analysis.cards import kernel as FK
from bonfire_sim.analysis.cards.price import (
    Reprice,
    overrides_toml,
    reprice,
    secant_step,
    verification_line,
)
from bonfire_sim.analysis.cards.probes import TASK_IDS, ProbeSettings, _game_inputs, probe_values
from bonfire_sim.analysis.cards.survey import card_values
from bonfire_sim.analysis.cards.table import RESPONSE_RATIO, card_table, printed_points
from bonfire_sim.analysis.intervals import Z95, clustered_mean
from bonfire_sim.analysis.runs import as_runs
from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.pipelines.experiment import load_experiment
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.setup import setup_game
from bonfire_sim.rules.state import blank_state
from bonfire_sim.sim.loop import choose
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

BLUE = tuple(f"B{i}" for i in range(1, 23))
BLUE_TAKE = ProbeSettings(kinds=("take",), tasks=BLUE)  # the receipt forks the price rests on
BLUE_LIGHT = ProbeSettings(kinds=("light", "forced"), tasks=BLUE)  # the lit value's forks
BLUE_FORKS = {"lit": BLUE_LIGHT, "receipt": BLUE_TAKE}


# ---- 1. the skip artefact -------------------------------------------------------------
def test_the_never_light_branch_ignites_the_dead_task_rather_than_drop_out():
    """Where igniting task t is the mover's only main option, the ban of branch B gives
    way (the task is dead, so the ignite scores 0): no rules' skip, the mover plays on."""
    cfg = RunConfig(games=240, players=2, seed=3, seat_rotation=True)
    g = _game_inputs(cfg, np.arange(240))
    p = T.build_params()
    moves = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    out = np.zeros_like(moves)
    found = 0
    for gi in range(240):
        s = blank_state(L.NP)
        s[L.G_RNG], s[L.G_RNG_STRAT] = g["rng_game"][gi], g["rng_strat"][gi]
        setup_game(s, p, 2)
        while s[L.G_OVER] == 0:
            n = legal_moves(s, p, moves)
            seat = int(s[L.G_CUR])
            pb = L.PLAYER0 + seat * L.PSIZE
            items = [FK._move_item(s, moves[j], pb) for j in range(n)]
            main_opts = [j for j in range(n) if FK._is_main(moves[j])]
            lit = {int(it) for k, it in items if k == FK.KIND_LIGHT}
            if s[L.G_PHASE] == L.PH_MAIN and len(lit) == 1 and all(
                    items[j][0] == FK.KIND_LIGHT for j in main_opts):
                t = lit.pop()
                assert not FK._light_choice(s, moves, n, pb, t)  # never sampled for a fork
                m, banned, gave_way = FK._banned_moves(s, moves, n, pb, t, out)
                assert banned and gave_way and m == n
                assert L.M_SKIP not in out[:m, 0]
                found += 1
            i = choose(s, p, moves, n, g["sid"][gi][seat], g["wts"][gi][seat])
            apply_move(s, p, moves[i])
    assert found >= 5


def test_light_forks_sampled_only_with_another_main_option_and_the_ban_keeps_playing():
    t = probe_values(RunConfig(games=40, players=2, seed=4, seat_rotation=True),
                     ProbeSettings(kinds=("light",)))
    assert len(t) > 100
    # Branch A ignites; where the ban held, B ends with the task unlit; where it gave
    # way, B ignited the dead task (so B's lit flag may be 1) instead of skipping.
    assert (t["has_a"] == 1).all()
    assert (t.loc[t["kept_b"], "has_b"] == 0).all()
    assert (~t["kept_b"]).any()


def test_forced_forks_measure_tasks_the_players_do_not_take():
    """Forced light forks ride on take decisions: they exist for tasks whose natural light
    forks are few, and every task the rules offered got some lit fork."""
    t = probe_values(RunConfig(games=60, players=2, seed=5, seat_rotation=True),
                     ProbeSettings(kinds=("light", "forced", "take")))
    take = t[t["kind"] == "take"]
    # receipt forks record the turns from receipt to ignition where the task was lit
    lit = take[take["has_a"] == 1]
    assert len(lit) and (lit["lit_turns_a"] >= 0).all()
    assert take.loc[take["has_a"] == 0, "lit_turns_a"].isna().all()
    t = t[t["kind"] != "take"]
    nat = t[t["kind"] == "light"].groupby("item").size()
    forced = t[t["kind"] == "forced"].groupby("item").size()
    assert len(forced) > len(nat)  # more tasks reach a lit fork with forced probes
    assert set(nat.index) - set(forced.index) == set() or len(forced) >= 40
    assert (t.loc[t["kind"] == "forced", "has_a"] == 1).all()


# ---- 2. every card measured or marked ---------------------------------------------------
def _synthetic(values: dict[str, tuple[float, int]], deals: int = 200, sd: float = 2.0,
               seed: int = 0, lit: float = 1.0, players: int = 2,
               exact: bool = False) -> pd.DataFrame:
    """Take-fork rows: per task (mean receipt value, forks), spread over ``deals`` deals,
    lit in a share ``lit`` of the receipts (the slope), 2 pp of win share per point
    (``exact``: each sample's mean is exactly its given mean)."""
    rng = np.random.default_rng(seed)
    rows = []
    for task, (mean, n) in values.items():
        d = rng.normal(mean, sd, n)
        if exact:
            d += mean - d.mean()
        rows.append(pd.DataFrame({"kind": "take", "players": players, "item": task,
                                  "score_a": d, "score_b": 0.0, "win_a": 0.02 * d,
                                  "win_b": 0.0, "has_a": (rng.random(n) < lit) * 1.0,
                                  "has_b": 0.0, "lit_turns_a": 6.0,
                                  "cluster": rng.integers(0, deals, n).astype(str)}))
    return pd.concat(rows, ignore_index=True)


def test_a_card_on_too_few_deals_is_never_flagged_and_one_off_with_confidence_is():
    printed = printed_points(RunConfig(games=2, players=2))
    vals = {t: (printed[t] + 1.0, 400) for t in BLUE}
    vals["B1"] = (printed["B1"] + 30.0, 4)  # far off, but four forks (four deals)
    vals["B2"] = (printed["B2"] + 6.0, 400)  # far off and well measured
    vals["B4"] = (printed["B4"] + 6.0, 12)  # far off on 12 forks: too wide to be measured
    del vals["B3"]  # no fork at all
    tab = card_table(_synthetic(vals), {2: printed}, measure="receipt")
    row = tab[(tab["kind"] == "task")].set_index("card")
    assert row.loc["B1", "status"] == "not measured" and row.loc["B1", "flag"] == ""
    assert row.loc["B1", "n"] == 4 and row.loc["B1", "forks_needed"] > 4
    assert row.loc["B3", "status"] == "not measured" and row.loc["B3", "n"] == 0
    assert row.loc["B3", "flag"] == ""
    assert row.loc["B2", "status"] == "measured" and row.loc["B2", "flag"] == "strong"
    # not measured (its interval is wider than the margin), yet wholly beyond it: a
    # no-change verdict needs the precision, a flag only needs the interval's side
    b4 = row.loc["B4"]
    assert b4["status"] == "not measured" and b4["deals"] >= 10, b4
    assert b4["s_lo"] > 1.0 and b4["flag"] == "strong", b4
    flagged = tab[tab["flag"] != ""]
    assert (flagged["deals"] >= 10).all() and (flagged["n"] > 0).all()
    # Precision is stated as the forks each row needs: a measured row needs no more.
    measured = row[row["status"] == "measured"]
    assert (measured["forks_needed"] <= measured["n"]).all()


def test_the_receipt_value_is_the_default_and_the_lit_value_moves_one_a_point():
    # The same forks read two ways: by default a task's value is its take forks' (the
    # receipt value); measure="lit" reads the light/forced forks (slope 1, fair = printed
    # - surplus).
    printed = printed_points(RunConfig(games=2, players=2))
    take = _synthetic({t: (0.0, 300) for t in BLUE}, seed=7, lit=0.3)
    light = _synthetic({t: (float(printed[t]) + (3.0 if t == "B4" else 0.0), 300)
                        for t in BLUE}, seed=8).assign(kind="light", has_a=1.0)
    forks = pd.concat([take, light], ignore_index=True)
    lit = card_table(forks, {2: printed}, measure="lit").set_index("card")
    rec = card_table(forks, {2: printed}).set_index("card")
    assert rec.equals(card_table(forks, {2: printed}, measure="receipt").set_index("card"))
    assert (lit.loc[list(BLUE), "slope"] == 1.0).all()
    assert lit.loc["B4", "value"] == pytest.approx(light.loc[light["item"] == "B4",
                                                             "score_a"].mean())
    assert lit.loc["B4", "fair"] == pytest.approx(lit.loc["B4", "printed"]
                                                  - lit.loc["B4", "surplus"])
    assert lit.loc["B4", "flag"] == "strong" and rec.loc["B4", "flag"] == ""
    # the receipt figures beside the lit value come from the take forks
    assert lit.loc["B4", "lit_share"] == pytest.approx(rec.loc["B4", "lit_share"])
    assert rec.loc["B4", "value"] == pytest.approx(take.loc[take["item"] == "B4",
                                                            "score_a"].mean())
    with pytest.raises(ConfigError, match="receipt, lit"):
        card_table(forks, {2: printed}, measure="worth")


def test_the_cli_offers_exactly_the_card_measures():
    from bonfire_sim.analysis.cards.table import DEFAULT_MEASURE, MEASURES
    from bonfire_sim.cli.options import CARD_MEASURES

    assert CARD_MEASURES == MEASURES and CARD_MEASURES[0] == DEFAULT_MEASURE
    bad = CliRunner().invoke(main, ["values", "--measure", "worth"])
    assert bad.exit_code == 2 and "worth" in bad.output


def test_a_task_the_rules_leave_out_at_a_count_has_no_row_there():
    # "3 offerings on 1 island" (Y2) leaves the deck in 1-2 player games: no play could
    # measure it there, so it is neither measured nor "not measured" at 2 players
    printed = {n: printed_points(RunConfig(games=2, players=n)) for n in (2, 3)}
    tab = card_table(_synthetic({"B1": (3.0, 40)}), printed, measure="receipt")
    tasks = tab[tab["kind"] == "task"]
    assert set(tasks.loc[tasks["players"] == 3, "card"]) == set(TASK_IDS)
    assert set(tasks.loc[tasks["players"] == 2, "card"]) == set(TASK_IDS) - {"Y2"}
    assert len(tab[tab["kind"] == "gnome"]) == 2 * 33


def test_no_card_of_a_real_run_is_flagged_without_forks(tmp_path):
    r = run(RunConfig(games=200, players=2, seed=9, seat_rotation=True), tmp_path / "r")
    tab = card_values(r, probes=BLUE_TAKE, measure="receipt")
    flagged = tab[tab["flag"] != ""]
    assert (flagged["n"] > 0).all() and (flagged["deals"] >= 10).all()
    blue = tab[tab["card"].isin(BLUE)]
    assert blue["n"].sum() > 1000
    assert set(tab.loc[tab["n"] == 0, "status"]) <= {"not measured"}


# ---- 3. clustered intervals -----------------------------------------------------------
def test_clustered_interval_is_wider_when_deals_are_correlated_and_covers():
    rng = np.random.default_rng(1)
    deals, rot = 150, 4
    cover_c = cover_n = 0
    ratio = []
    reps = 400
    for _ in range(reps):
        x = (rng.normal(0, 1.0, deals)[:, None] + rng.normal(0, 1.0, (deals, rot))).ravel()
        cl = np.repeat(np.arange(deals), rot)
        m, se, n, k = clustered_mean(x, cl)
        naive = x.std(ddof=1) / np.sqrt(n)
        assert k == deals and n == deals * rot
        ratio.append(se / naive)
        cover_c += abs(m) <= Z95 * se
        cover_n += abs(m) <= Z95 * naive
    assert np.median(ratio) > 1.3  # design effect sqrt(1 + (4-1) * 0.5) = 1.58
    assert 0.92 <= cover_c / reps <= 0.98
    assert cover_n / reps < 0.88


def test_clustered_equals_plain_with_one_observation_per_cluster():
    x = np.random.default_rng(2).normal(size=300)
    m, se, n, k = clustered_mean(x, np.arange(300))
    assert se == pytest.approx(x.std(ddof=1) / np.sqrt(300))


# ---- 6. gnomes on a readable scale --------------------------------------------------------
def test_gnome_values_are_points_against_the_average_gnome():
    rng = np.random.default_rng(3)
    gn = [f"S{i}" for i in range(1, 6)]
    rows = [pd.DataFrame({"kind": "gnome", "players": 3, "item": g, "score_a": rng.normal(
        -2.0 + i, 2.0, 300), "score_b": 0.0, "win_a": 0.0, "win_b": 0.0, "has_a": 1.0,
        "has_b": 0.0, "cluster": rng.integers(0, 100, 300).astype(str)})
        for i, g in enumerate(gn)]
    tab = card_table(pd.concat(rows), {3: printed_points(RunConfig(games=3, players=3))})
    g = tab[(tab["kind"] == "gnome") & tab["card"].isin(gn)].set_index("card")
    # The average of the OTHER gnomes: S5 (mean +2) against -2, -1, 0, +1.
    assert g.loc["S1", "reference"] == pytest.approx(g["value"].drop("S1").mean())
    assert g.loc["S5", "surplus"] == pytest.approx(2.5, abs=0.5)
    assert g["proposed"].isna().all() and g["printed"].isna().all()
    assert (g["s_lo"] < g["surplus"]).all() and (g["surplus"] < g["s_hi"]).all()


# ---- 4. a re-price moves the surplus by the re-price -------------------------------------
@pytest.mark.parametrize("measure", ["lit", "receipt"])
def test_planted_points_move_their_surplus_by_the_planted_amount_small(tmp_path, measure):
    base = RunConfig(games=1800, players=2, seed=21, seat_rotation=True)
    plant = {"B1": 6, "B12": 0}  # +4 and -3
    a = card_values(run(base, tmp_path / "a"), probes=BLUE_FORKS[measure],
                    measure=measure).set_index("card")
    pl = RunConfig(games=1800, players=2, seed=21, seat_rotation=True,
                   overrides={"task_points": plant})
    b = card_values(run(pl, tmp_path / "b"), probes=BLUE_FORKS[measure],
                    measure=measure).set_index("card")
    for task, k in (("B1", 4), ("B12", -3)):
        moved = b.loc[task, "surplus"] - a.loc[task, "surplus"]
        se = np.hypot(a.loc[task, "half"], b.loc[task, "half"]) / Z95
        if measure == "lit":
            # Both branches play independently of the points: the lit value moves by k
            # (the identical deals share most decisions; the rest is noise of size se).
            assert b.loc[task, "slope"] == 1.0
            assert abs(moved - k) <= max(1.0, Z95 * se), (task, moved, se)
        # A printed point is scored where the receipt is lit: the surplus moves by about
        # slope x k (the players also re-optimise around the new price: noise of size se).
        assert abs(moved - k * b.loc[task, "slope"]) <= max(1.0, 2 * Z95 * se), (task, moved)
        assert np.sign(moved) == np.sign(k)
        # The lit value's first step is exact (slope 1).  The receipt value's is the first
        # step of a secant loop, divided by RESPONSE_RATIO x the fixed-play slope, which
        # itself rises with the print (B1 0.31 at 2, 0.66 at 6 on these deals, while the
        # pair answers 0.93 a point): from the two ends it landed on 0 and 2 about a
        # re-optimised zero of 0.75 (both on the floor of 0 with the old divisor).
        room = 1 if measure == "lit" else 2
        assert abs(b.loc[task, "proposed"] - a.loc[task, "proposed"]) <= room
    untouched = [t for t in BLUE if t not in plant]
    assert (b.loc[untouched, "flag"] == a.loc[untouched, "flag"]).mean() >= 0.9


# ---- 5. reprice closes the loop -------------------------------------------------------------
# Where each measure prices B1 in two-player games of these players: the lit value at its
# print of 2; the receipt value lower, its surplus zero at about 0.75 printed points once the
# players re-optimise (measured on the 1,800 games of seed 21 from the two ends of
# test_planted_points_move_their_surplus_by_the_planted_amount_small).
# The loop must bring the planted 8 back to within a point of its measure's price.
B1_PRICE_BAND = {"lit": (1, 4), "receipt": (0, 2)}


@pytest.mark.parametrize("measure", ["lit", "receipt"])
def test_reprice_brings_a_planted_misprice_back_on_fresh_deals(tmp_path, measure):
    cfg = RunConfig(games=1800, players=2, seed=7, seat_rotation=True,
                    overrides={"task_points": {"B1": 8}})
    r = run(cfg, tmp_path / "r")
    res = reprice(r, probe_games=BLUE_FORKS[measure], verify=True, verify_games=900,
                  focus_games=3600, max_games=1350, rounds=2, measure=measure)
    lo, hi = B1_PRICE_BAND[measure]
    assert lo <= res.proposal.get("B1", 8) <= hi  # printed 2 in the game; 8 was planted
    v = res.verified.set_index("card")
    assert abs(v.loc["B1", "surplus"]) <= 1.0
    assert v.loc["B1", "s_lo"] <= v.loc["B1", "surplus"] <= v.loc["B1", "s_hi"]
    # "within" only for a measured row whose whole interval lies inside the margin
    w = res.verified
    assert ((w["verdict"] == "within") == ((w["status"] == "measured") & (w["s_lo"] >= -1)
                                           & (w["s_hi"] <= 1))).all()
    # The check round's deals are new: neither the runs' nor any iteration round's.
    seeds = [x.seed for x in res.rounds]
    assert res.check.seed not in (7, *seeds) and 7 not in seeds
    assert res.check.prices == res.printed | res.proposal and res.printed["B1"] == 8
    assert v["within"].mean() >= 0.5
    # The re-priced cards got their extra forks: more than any untouched blue task.
    t = res.check.table.set_index("card")
    assert t.loc["B1", "n"] > t.loc[[c for c in BLUE if c not in res.proposal], "n"].max()
    # The experiment file plays the proposal.
    path = tmp_path / "p.toml"
    path.write_text(overrides_toml(res, as_runs(r), 1.0))
    config, _ = load_experiment(path)
    assert dict(config.overrides["task_points"]) == {"B1": 8} | res.proposal
    assert config.players == 2 and config.seed not in (7, *seeds, res.check.seed)


def test_secant_step_zeroes_the_line_through_the_latest_prices():
    # One price: slope 1 (a re-price by k moves the surplus by k) or the measured slope.
    assert secant_step([(5.0, 3.0)]) == (2.0, 1.0)
    assert secant_step([(5.0, 3.0)], first=0.5) == (-1.0, 0.5)
    assert secant_step([(5.0, 3.0)], first=0.2) == (-1.0, 0.5)  # held at 0.5 as well
    # Printed 5 -> +3, printed 2 -> -1.5: slope 1.5, zero at 3.
    nxt, slope = secant_step([(5.0, 3.0), (2.0, -1.5)])
    assert slope == pytest.approx(1.5) and nxt == pytest.approx(3.0)
    # A noisy pair cannot send the card far: the slope is clipped to [0.5, 2].
    assert secant_step([(5.0, 3.0), (4.0, 2.99)])[1] == 0.5
    assert secant_step([(5.0, 3.0), (4.0, -9.0)])[1] == 2.0
    # Repeated prices: the latest distinct earlier price gives the slope.
    assert secant_step([(6.0, 2.0), (4.0, 0.5), (4.0, 1.0)])[1] == pytest.approx(0.5)


def test_the_first_step_divides_by_the_re_optimised_response_not_the_fixed_play_slope():
    """Issue 36: a receipt surplus answers a printed point about twice as steeply as the
    fixed-play slope says once the players re-optimise (21 price curves, median 2.24), so
    a first step divided by the fixed-play slope overshoots: R20 at 4 players (fixed
    0.5-0.6, re-optimised 1.2 a point, fair at 3.7), planted at 2, went 2 -> 7.  On that
    synthetic line the first step now lands within a point of the zero, from the
    estimate's table and for a card first flagged on a round's deals alike.  (With
    RESPONSE_RATIO 1, the old divisor, both land on 6: 2.3 points past.)"""
    from bonfire_sim.analysis.cards.price import next_prices

    fixed, response, zero, planted = 0.5, 1.2, 3.7, 2
    surplus = response * (planted - zero)  # -2.04 on the re-optimised line
    printed = printed_points(RunConfig(games=2, players=2)) | {"B7": planted}
    vals = {t: (0.0, 400) for t in BLUE} | {"B7": (surplus, 2000)}
    tab = card_table(_synthetic(vals, seed=8, lit=fixed, exact=True), {2: printed},
                     measure="receipt")
    b7 = tab.set_index("card").loc["B7"]
    assert b7["slope"] == pytest.approx(fixed, abs=0.03) and b7["flag"] != ""
    assert abs(b7["proposed"] - zero) <= 1, b7[["surplus", "slope", "fair", "proposed"]]
    # the loop's own step for a card flagged on a round's deals: the same divisor
    row = pd.DataFrame({"card": ["B7"], "kind": ["task"], "surplus": [surplus],
                        "half": [0.3], "slope": [fixed], "flag": ["strong"],
                        "flag_counts": [""]})
    step, _ = next_prices(row, {"B7": planted}, {}, {}, 1.0, "receipt")
    assert abs(step["B7"] - zero) <= 1, step
    # the lit value's slope is exactly one: its step is unchanged
    assert next_prices(row.assign(slope=1.0), {"B7": planted}, {}, {}, 1.0, "lit")[0] == {
        "B7": 4}


def test_the_check_verifies_a_card_the_loop_moved_and_brought_back_to_its_start(
        tmp_path, monkeypatch):
    """Issue 36: R20 at 4 players went 2 -> 7 -> 4 -> 2 and the check, which listed only
    cards whose price changed, never verified it.  A scripted loop (a synthetic card table
    per price: B7 reads -2.4 at its planted 2, +2.4 at 4, -0.2 at 2 again) moves B7
    2 -> 4 -> 2 (4 - 2.4 / its first response 1.2); the check must verify it and say it
    is back at its start value."""
    from bonfire_sim.analysis.cards import price as P

    r = run(RunConfig(games=8, players=2, seed=5, seat_rotation=True,
                      overrides={"task_points": {"B7": 2}}), tmp_path / "r")
    printed = printed_points(as_runs(r)[0].config)
    reads = iter([-2.4])  # the estimate; fresh rounds read by price below

    def forks(price: int, first: bool = False) -> pd.DataFrame:
        s = next(reads) if first else {4: 2.4}.get(price, -0.2)
        vals = {t: (0.0, 400) for t in BLUE} | {"B7": (s, 2000)}
        return _synthetic(vals, seed=9, lit=0.6, exact=True)

    played: list[dict[str, int]] = []

    def fresh(groups, prices, seed, games, focus, *a, **k):
        played.append(dict(prices))
        f = forks(prices["B7"])
        return card_table(f, {2: prices}, 1.0, 0.05, measure="receipt"), f

    monkeypatch.setattr(P, "_forks", lambda *a, **k: forks(printed["B7"], first=True))
    monkeypatch.setattr(P, "fresh_table", fresh)
    res = reprice(r, verify=True, rounds=3, top_ups=0, measure="receipt")  # scripted reads
    assert [p["B7"] for p in played[:2]] == [4, 2]  # moved, then back at the plant
    assert res.proposal == {}  # ends where it began ...
    v = res.verified.set_index("card")
    assert "B7" in v.index and bool(v.loc["B7", "back"])  # ... and is checked there
    assert v.loc["B7", "verdict"] == "within" and v.loc["B7", "original"] == 2


def _scripted_b7_loop(tmp_path, monkeypatch, noise: dict[int, float] | None = None,
                      ) -> tuple[Any, list[int]]:
    """A run with B7 planted at 2 and a price loop whose every fresh look reads B7's
    surplus as 0.5 x (printed - 3) (fair at 3), plus ``noise[k]`` on the k-th look; the
    estimate reads -3.0.  Returns the run and the prints the looks played, in order."""
    from bonfire_sim.analysis.cards import price as P

    r = run(RunConfig(games=8, players=2, seed=5, seat_rotation=True,
                      overrides={"task_points": {"B7": 2}}), tmp_path / "r")

    def forks(surplus: float) -> pd.DataFrame:
        vals = {t: (0.0, 400) for t in BLUE} | {"B7": (surplus, 2000)}
        return _synthetic(vals, seed=9, lit=0.25, exact=True)

    played: list[int] = []

    def fresh(groups, prices, seed, games, focus, *a, **k):
        played.append(prices["B7"])
        f = forks(0.5 * (prices["B7"] - 3) + (noise or {}).get(len(played), 0.0))
        return card_table(f, {2: prices}, 1.0, 0.05, measure="receipt"), f

    monkeypatch.setattr(P, "_forks", lambda *a, **k: forks(-3.0))
    monkeypatch.setattr(P, "fresh_table", fresh)
    return r, played


def test_the_loops_line_starts_on_its_own_deals_not_on_the_estimates_tier(
        tmp_path, monkeypatch):
    """Issue 36 bar 1: the estimate measures a card against its tier at the runs' prices,
    before the proposal re-prices the tier; on the planted loop (seeds 99x0) Y13 read
    -0.8 at 4 in the estimate and +1.5 at 4 on round 2's deals, after six other yellow
    cards went from 6-7 to 1.  A scripted loop: on the loop's deals B7's surplus is
    0.5 x (printed - 3) (fair at 3), the first response 2 x its fixed-play slope 0.25 =
    0.5 exactly; the estimate read -3.0 at its planted 2 (the tier before it moved,
    where the loop's line reads -0.5), so the estimate proposes 8.  Round 1 reads +2.5 at
    8 and steps to the zero, 3, which the check plays.  With the estimate's pair in the
    line (the old rule) the first secant slope is (2.5 + 3.0) / 6 = 0.92 and the step
    stops at 5, read +1.0 at the check: the margin."""
    r, played = _scripted_b7_loop(tmp_path, monkeypatch)
    assert printed_points(as_runs(r)[0].config)["B7"] == 2  # the plant
    res = reprice(r, verify=True, rounds=1, top_ups=0, measure="receipt")
    assert res.estimate.set_index("card").loc["B7", "proposed"] == 8
    assert played[:2] == [8, 3], played  # round 1 at the estimate's 8, the check at 3
    assert res.proposal == {"B7": 3}
    v = res.verified.set_index("card").loc["B7"]
    assert v["verdict"] == "within" and v["surplus"] == pytest.approx(0.0, abs=1e-9)


def test_the_check_plays_a_print_some_round_played_when_one_is_not_shown_off(
        tmp_path, monkeypatch):
    """Issue 36 bar 1: the loop's last move rests on one round's rows and was never played
    before the check (Y13 on the planted loop: 5 -> 2, 2, then 2 -> 1 on round 3, checked
    off at 2 players, where fresh deals read it within at every count at 2).  A scripted
    loop: B7's surplus is 0.5 x (printed - 3) (fair at 3); the estimate proposes 8, round
    1 reads +2.5 there and steps to 3; round 2 reads 3 noisy, -1.05 (its interval not
    wholly beyond the margin), and its secant steps on to 4, a print no round played.
    The check plays 3, the played print no count shows off (the old rule played 4)."""
    r, played = _scripted_b7_loop(tmp_path, monkeypatch, noise={2: -1.05})
    notes: list[str] = []
    res = reprice(r, verify=True, rounds=2, top_ups=0, measure="receipt", note=notes.append)
    assert [x.prices["B7"] for x in res.rounds] == [8, 3]
    row = res.rounds[1].table.set_index("card").loc["B7"]
    assert row["surplus"] == pytest.approx(-1.05) and row["s_hi"] > -1.0
    assert played[2] == 3, played  # the check, at the print round 2 played
    assert res.proposal == {"B7": 3} and any("B7: 4 (not played) -> 3" in n for n in notes)
    v = res.verified.set_index("card").loc["B7"]
    assert v["verdict"] == "within" and v["surplus"] == pytest.approx(0.0, abs=1e-9)


def test_last_played_keeps_a_played_print_and_skips_prints_shown_off():
    """``steps.last_played``: a played print stays; an unplayed one falls back to the
    played print whose worst pooled count is nearest zero, among those no count's pooled
    row shows off (beyond +-margin) and no round flagged; none such: the loop's print."""
    from bonfire_sim.analysis.cards.steps import last_played

    h = [(5.0, {2: (2.2, 0.4), 3: (1.9, 0.5)}),   # 5: shown off at 2 and 3 players
         (2.0, {2: (-0.7, 0.5), 3: (0.3, 0.5)}),
         (2.0, {2: (-1.3, 0.5), 3: (0.1, 0.5)}),  # 2 pooled: 2p -1.0 +- 0.35, not off
         (3.0, {2: (0.4, 0.5), 3: (0.9, 0.5)})]
    assert last_played(h, 3, {5, 2, 3}, 1.0) == 3      # played: kept
    assert last_played(h, 1, {5, 2, 3}, 1.0) == 3      # worst |s|: 0.9 at 3, 1.0 at 2
    assert last_played(h, 1, {5, 2}, 1.0) == 2         # 3 not played (its rows ignored)
    assert last_played(h, 1, {5, 2}, 1.0, flagged={2}) == 1  # a flagged print is off
    assert last_played(h[:1], 4, {5}, 1.0) == 4        # every played print shown off


def test_reprices_check_forks_an_unresolved_row_again_and_rests_its_verdict_on_all(
        monkeypatch):
    """Issue 36: ``reprice --verify``'s check takes the errata sheet's step
    (``cards.top_up_check``): B7 reads +0.3 (-0.6 to +1.2) on the check's 30 forks, so
    it alone is forked again at that count, on the games its gap to the margin asks
    (``intervals.games_needed`` for 0.8 of 0.7 on the check's 400 games: about 630 more,
    rounded up to a sixteenth of the focus games times a power of two: 800),
    and its verdict (within) rests on the check's forks and the top-up's; B8, resolved
    at once, is not played again."""
    from bonfire_sim.analysis.cards import price as P

    calls: list[tuple[int, int, tuple[str, ...] | None, tuple[int, ...]]] = []

    def fresh(groups, prices, seed, games, focus, focus_games, margin, alpha, tasks,
              *a, **k):
        calls.append((seed, games, tasks, tuple(groups)))
        vals = ({t: (0.0, 400) for t in BLUE} | {"B7": (0.3, 30)} if len(calls) == 1
                else {"B7": (0.3, 200)})
        f = _synthetic(vals, sd=3.0, seed=seed, lit=0.6, exact=True)
        f["cluster"] = f"{seed}|" + f["cluster"]  # new deals: clusters of their own
        return card_table(f, {2: prices}, 1.0, 0.05, measure="receipt"), f

    monkeypatch.setattr(P, "fresh_table", fresh)
    printed = printed_points(RunConfig(games=2, players=2))
    prices = printed | {"B7": printed["B7"] + 1, "B8": printed["B8"] + 1}
    notes: list[str] = []
    rnd, v = P._check({2: []}, prices, printed, 70, 100, 400, 1.0, 0.05, None, 1, True,
                      notes.append, "receipt")
    (seed, x, tasks, counts), = calls[1:]  # B7 alone, on the games it asks
    assert (seed, tasks, counts) == (71, ("B7",), (2,)) and x == 800, calls
    v = v.set_index("card")
    assert v.loc["B7", "n"] == 230 and v.loc["B7", "verdict"] == "within"
    assert v.loc["B8", "verdict"] == "within" and len(calls) == 2
    assert any("(seed 71)" in s and f"B7 at 2p {x:,} more games" in s for s in notes), notes


def test_a_card_nobody_lights_gets_no_price_but_the_advice_to_change_its_condition():
    printed = printed_points(RunConfig(games=2, players=2))
    vals = {t: (0.0, 400) for t in BLUE if t != "B1"}
    tab = card_table(pd.concat([_synthetic(vals, seed=4),
                                _synthetic({"B1": (-4.0, 400)}, seed=5, lit=0.03)]),
                     {2: printed}, measure="receipt")
    row = tab.set_index("card").loc["B1"]
    assert row["slope"] < 0.1 and np.isnan(row["fair"]) and np.isnan(row["proposed"])
    assert row["price_note"].startswith("no price fixes this card: change its condition")
    ok = tab.set_index("card").loc["B5"]
    assert ok["price_note"] == "" and ok["fair"] == pytest.approx(
        ok["printed"] - ok["surplus"] / np.clip(RESPONSE_RATIO["receipt"] * ok["slope"],
                                                0.5, 2.0))


def test_a_price_note_names_the_lit_share_only_where_the_measure_has_one():
    from bonfire_sim.analysis.cards.table import MIN_DEALS, _prices

    def notes(lit_share: float, measure: str) -> list[str]:
        rows = pd.DataFrame({"card": ["R3", "Y16"], "kind": "task", "deals": MIN_DEALS,
                             "group": ["red", "yellow"], "printed": [5, 6],
                             "slope": [1.0, 0.02], "surplus": [5.4, -3.0], "s_lo": [4.6, -4.0],
                             "s_hi": [6.2, -2.0], "lit_share": lit_share})
        return list(_prices(rows, measure)["price_note"])

    low, flat = notes(0.41, "receipt")
    assert low.startswith("below its colour's lowest printing (4)") and "lit in 41% of" in low
    assert flat.startswith("no price fixes this card") and "lit in 41% of receipts; a" in flat
    # the lit value measures no lit share: its notes leave it out rather than print "nan%"
    for note in notes(float("nan"), "lit"):
        assert note and "nan" not in note and "lit in" not in note, note


def test_a_consistent_deviation_across_counts_is_flagged_when_no_count_shows_it():
    printed = printed_points(RunConfig(games=2, players=2))
    frames = []
    for n in (2, 3, 4):
        vals = {t: (0.0, 100) for t in BLUE}
        vals["B7"] = (1.6, 100)  # off by 1.6 at every count: too little for one count
        frames.append(_synthetic(vals, players=n, seed=n, sd=3.0, exact=True))
    tab = card_table(pd.concat(frames, ignore_index=True), {n: printed for n in (2, 3, 4)},
                     measure="receipt")
    b7 = tab[tab["card"] == "B7"]
    assert (b7["flag"] == "").all() and (b7["flag_counts"] == "strong").all()
    assert (b7["detect"] > b7["surplus"]).all()  # the stated floor says why no count flags it alone
    others = tab[(tab["kind"] == "task") & (tab["card"] != "B7")]
    assert (others["flag_counts"] == "").mean() >= 0.95


def test_a_check_row_is_within_only_when_measured_and_its_whole_interval_is_inside():
    from bonfire_sim.analysis.cards.price import verdict

    rows = pd.DataFrame({"status": ["measured", "measured", "not measured", "measured"],
                         "s_lo": [-0.8, -0.2, -0.1, 1.2], "s_hi": [0.9, 1.4, 0.1, 2.0]})
    assert list(verdict(rows, 1.0)) == ["within", "unresolved", "unresolved", "off"]


def test_a_check_row_is_priced_within_only_when_its_fair_printed_window_is_inside():
    # Issue 36: under the receipt value a printed point moves the surplus by well under
    # one (R15 0.34, Y20 0.14 at 3 players), so a surplus within +-1 left R15 "within"
    # at 8-9 where the game prints 5.  The window in printed points says how far the
    # check can place the price.
    from bonfire_sim.analysis.cards.price import price_window, verdict

    rows = pd.DataFrame({"card": ["B1", "R15", "Y20"], "printed": [3, 8, 12],
                         "status": ["measured"] * 3, "s_lo": [-0.4, -0.4, -0.1],
                         "s_hi": [0.5, 0.5, 0.2]})
    assert list(verdict(rows, 1.0)) == ["within"] * 3
    w = price_window(rows, {"B1": 1.0, "R15": 0.33, "Y20": 0.14}, 1.0)
    assert list(w["price_verdict"]) == ["within", "unresolved", "unresolved"]
    r15 = w.set_index("card").loc["R15"]
    assert r15["fair_lo"] == pytest.approx(8 - 0.5 / 0.33)
    assert r15["fair_hi"] == pytest.approx(8 + 0.4 / 0.33)
    # a slope of one (the lit value) keeps the surplus verdict
    assert list(price_window(rows, {}, 1.0)["price_verdict"]) == list(verdict(rows, 1.0))


def test_a_flagged_card_moves_only_when_its_fair_window_excludes_its_price_and_no_further():
    """Issue 36 bar 3: on two seeds of the heavy test-retest a card near the detection
    floor was flagged on one only and moved there by its whole surplus / slope (R11
    4 -> 8, B21 3 -> 7: flat cards, two printed points per surplus point).  A flagged
    card now moves only when its fair printed window (the pooled surplus interval over
    the slope) excludes its price, and only to the window's whole value nearest it.
    The old rule fails each of the three cases below: it moves A (flagged at 2 players,
    its pooled window holds 4) to 5 and B to 9, the window's centre."""
    from bonfire_sim.analysis.cards.price import next_prices
    from bonfire_sim.analysis.cards.window import into_window

    assert into_window(4, 3.2, 6.8) is None  # the window holds the price: it stays
    assert into_window(4, 5.4, 7.9) == 6 and into_window(4, 0.2, 2.5) == 2  # nearest inside
    assert into_window(4, 5.2, 5.7) == 5 and into_window(4, 4.2, 4.4) is None  # no whole inside
    assert into_window(4, math.nan, 5.0) is None
    # never below the lowest print (window.MIN_PRICE): a window wholly below 1 moves a
    # card to 1 (it moved one printed 1 to 0), and one printed 1 stays
    assert into_window(4, -3.0, -0.5) == 1 and into_window(1, -3.0, -0.5) is None
    # A: -2.2 +-0.8 at 2 players (flagged), +1.6 +-0.8 at 3: pooled -0.3 +-0.57, which
    # a slope of 0.2 (divisor 0.5) reads as 4.0 .. 6.7 printed points around the print 4
    # -- it holds the print.  B: -2.5 +-0.9 at both counts: pooled 3.2 .. 6.8 points off.
    rows = pd.DataFrame({"card": ["A", "A", "B", "B"], "kind": "task",
                         "players": [2, 3, 2, 3], "surplus": [-2.2, 1.6, -2.5, -2.5],
                         "half": [0.8, 0.8, 0.9, 0.9], "slope": 0.2,
                         "flag": ["weak", "", "weak", "weak"], "flag_counts": ""})
    step, _ = next_prices(rows, {"A": 4, "B": 4}, {}, {}, 1.0, "receipt")
    assert step == {"B": 8}  # 4 + (2.5 - 0.9 / sqrt 2) / 0.5 = 7.3: the nearest whole, 8


def test_no_price_is_proposed_below_one_and_a_card_fair_below_it_says_change_the_condition():
    """Issue 36: the loop proposed 0 (R1, R7, R8, Y8 in the example report) where the
    errata sheet prints 1 ("a task printed at 0 points is no proposal").  One floor,
    ``window.MIN_PRICE``: the card table's own proposal, the estimate's one value for
    all counts and the loop's secant step never name less, and a card whose fair value
    lies below it says "change the condition" with its surplus at the floor.  The old
    rule proposes 0 in all three and says nothing (Y8's row: "below its colour's lowest
    printing")."""
    from bonfire_sim.analysis.cards.price import combine, next_prices
    from bonfire_sim.analysis.cards.table import MIN_DEALS, _prices
    from bonfire_sim.analysis.cards.window import MIN_PRICE

    assert MIN_PRICE == 1
    rows = pd.DataFrame({"card": ["Y8", "R3"], "kind": "task", "deals": MIN_DEALS,
                         "group": ["yellow", "red"], "printed": [7, 5], "slope": [0.5, 0.5],
                         "surplus": [7.7, 3.6], "s_lo": [6.8, 3.0], "s_hi": [8.6, 4.2],
                         "lit_share": 0.9})
    t = _prices(rows, "receipt").set_index("card")  # divisor 2 x 0.5 = 1 a point
    y8 = t.loc["Y8"]  # fair 7 - 7.7 = -0.7: 1, and at 1 the surplus stays 7.7 - 6 = +1.7
    assert y8["proposed"] == MIN_PRICE and y8["price_note"].startswith("change the condition")
    assert "at 1 its surplus is +1.7 (+0.8 to +2.6)" in y8["price_note"], y8["price_note"]
    assert t.loc["R3", "proposed"] == 1 and not t.loc["R3", "price_note"].startswith(
        "change")  # fair 1.4: 1 is its own whole value, no advice
    # the estimate's one value for all counts: Y8's window -1.3 .. -0.1 lies below 1
    est = combine(t.reset_index().assign(players=2, half=0.6, flag="strong",
                                         flag_counts="", status="measured"),
                  {"Y8": 7, "R3": 5}, 1.0, "receipt").set_index("card")
    assert est.loc["Y8", "proposed"] == MIN_PRICE
    assert est.loc["Y8", "note"].startswith("change the condition")
    assert not est.loc["R3", "note"].startswith("change the condition")
    # the loop's secant step: Y8 at 1 still +2.0 over a response of 1 aims at -1
    row = pd.DataFrame({"card": ["Y8"], "kind": "task", "surplus": [2.0], "half": [0.3],
                        "slope": [0.5], "flag": ["strong"], "flag_counts": [""]})
    hist = {"Y8": [(3.0, 4.0)]}
    step, _ = next_prices(row, {"Y8": 1}, hist, {"Y8": 1.0}, 1.0, "receipt")
    assert step == {} and hist["Y8"][-1] == (1.0, 2.0)  # stays at the floor, not 0


def test_the_loop_plays_the_print_fair_at_every_count_where_it_beats_the_rounding():
    """Issue 36 bar 1: the loop steers by the pooled surplus (a secant step to its zero,
    rounded), which can leave one count at the margin while the neighbouring whole print
    puts every count inside.  R6 on the planted loop (seeds 99x0) read +0.1 / +0.4 /
    +1.0 at 2 / 3 / 4 players at 4: with a response of 0.3 a point, 3 predicts -0.2 /
    +0.1 / +0.7.  ``steps.minimax_print`` takes that print; a gain under ``GAIN`` (the
    noise between two prints fair alike) keeps the rounding.  The old rounding plays 4
    in case A (its pooled target, 3.6, rounds there) and 2 in case C."""
    from bonfire_sim.analysis.cards.price import next_prices
    from bonfire_sim.analysis.cards.steps import GAIN, count_responses, minimax_print, worst

    resp = {2: 0.3, 3: 0.3, 4: 0.3}
    a = {2: 0.1, 3: 0.4, 4: 1.0}
    assert minimax_print(3.6, 4, a, resp) == (4, 3)  # worst 1.0 at 4, 0.7 at 3
    assert worst(4, a, resp, 3) == pytest.approx(0.7)
    # B: the same rows one response of 1.0 a point: 3 reads -0.9 / -0.6 / 0.0, no better
    assert minimax_print(3.6, 4, a, {n: 1.0 for n in a}) == (4, 4)
    # a gain under GAIN keeps the secant's print (B20 at 4: +0.4 / +0.7 / +0.5 at 1.0
    # a point reads -0.6 / -0.3 / -0.5 at 3: 0.1 better)
    b20 = {2: 0.4, 3: 0.7, 4: 0.5}
    assert worst(4, b20, {n: 1.0 for n in b20}, 4) - worst(
        4, b20, {n: 1.0 for n in b20}, 3) < GAIN
    assert minimax_print(3.6, 4, b20, {n: 1.0 for n in b20}) == (4, 4)
    # C (Y13-like): the counts respond differently; their own slopes, pinned down by two
    # prices two points apart, say the 2-player row moves 0.8 a point, the 4-player one 0.1
    hist = [(3.0, {2: (0.7, 0.2), 4: (0.7, 0.2)}), (1.0, {2: (-0.9, 0.2), 4: (0.5, 0.2)})]
    own = count_responses(hist, 0.5)
    assert own[2] == pytest.approx(0.8) and own[4] == pytest.approx(0.1)
    assert count_responses(hist[:1], 0.5) == {2: 0.5, 4: 0.5}  # one price: pooled
    assert count_responses([(h[0], {n: (s, 2.0) for n, (s, _) in h[1].items()})
                            for h in hist], 0.5) == {2: 0.5, 4: 0.5}  # too wide: pooled
    # at 1: -0.9 / +0.5; the pooled target 1.3 rounds to 1; at 2: -0.1 / +0.6, better
    assert minimax_print(1.3, 1, {2: -0.9, 4: 0.5}, own) == (1, 2)
    # never below the floor: a target of 0.2 is played at 1 at least
    assert min(minimax_print(0.2, 1, {2: 0.1, 4: 0.2}, {2: 1.0, 4: 1.0})) >= 1
    # through next_prices, with the per-count history: case C's card, at 1 after 3, its
    # pooled surplus -0.2 (secant slope 0.45, held at 0.5: target 1.4, rounded 1) moves
    # to 2, and the round says so (the secant's print and the one played)
    tab = pd.DataFrame({"card": "Y13", "kind": "task", "players": [2, 4],
                        "surplus": [-0.9, 0.5], "half": 0.2, "slope": 0.5,
                        "flag": "", "flag_counts": ""})
    history = {"Y13": [(3.0, 0.7)]}
    counts = {"Y13": [hist[0]]}
    chosen: dict = {}
    step, _ = next_prices(tab, {"Y13": 1}, history, {"Y13": 0.5}, 1.0, "receipt", counts,
                          chosen)
    assert history["Y13"][-1] == (1.0, pytest.approx(-0.2))
    assert step == {"Y13": 2} and chosen == {"Y13": (1, 2)}, (step, chosen)
    assert len(counts["Y13"]) == 2  # this round's rows joined the card's count history
    # rows too wide to resolve that gain (95% half-widths 0.5 > the gain 0.3): the
    # rounding stays (the loops of 2026-11-29: the check reversed 5 of 8 such moves)
    history, counts = {"Y13": [(3.0, 0.7)]}, {"Y13": [hist[0]]}
    assert next_prices(tab.assign(half=0.5), {"Y13": 1}, history, {"Y13": 0.5}, 1.0,
                       "receipt", counts)[0] == {}
    assert minimax_print(1.3, 1, {2: -0.9, 4: 0.5}, own, noise=0.5) == (1, 1)
    # without the count history (the errata sheet's loop) the pooled response, 0.45 for
    # both counts, predicts -0.45 / +0.95 at 2: no better, the rounding stays
    history = {"Y13": [(3.0, 0.7)]}
    assert next_prices(tab, {"Y13": 1}, history, {"Y13": 0.5}, 1.0, "receipt")[0] == {}


def test_the_estimates_proposal_is_the_nearest_whole_value_of_its_window():
    """``combine`` (the estimate's one value for all counts) with the same gate: C
    flagged at 2 players, its pooled window holding its print, stays and says so; D
    moves to the near end of its window (printed 3, surplus -3 +-1.2 at slope 1: fair
    4.8 .. 7.2 -> 5, where the old rule took the centre, 6); R1 would fall below its
    colour's lowest printing (red: 4) on a row not measured and is held there, R2 falls
    below it on measured rows and shows the evidence.  The old rule moves C to 6 (its
    pooled fair 5.5: window 4.9 .. 6.1), D to 6 and R1 to 2."""
    from bonfire_sim.analysis.cards.price import combine

    def row(card, n, printed, surplus, half, flag="weak", status="measured", note=""):
        return {"card": card, "kind": "task", "players": n, "surplus": surplus,
                "half": half, "slope": 1.0, "fair": printed - surplus,
                "proposed": float(max(round(printed - surplus), 0)), "flag": flag,
                "flag_counts": "", "price_note": note, "status": status}

    printed = {"C": 5, "D": 3, "R1": 5, "R2": 5}
    t = pd.DataFrame([row("C", 2, 5, -2.6, 0.8), row("C", 3, 5, 1.6, 0.8, flag=""),
                      row("D", 2, 3, -3.0, 1.2), row("R1", 2, 5, 3.5, 1.6,
                                                     status="not measured"),
                      row("R2", 2, 5, 3.5, 0.6, note="below its colour's lowest printing")])
    # the rows' fair is the lit value's (printed - surplus): their window, the same
    est = combine(t, printed, 1.0, "lit").set_index("card")
    assert bool(est.loc["C", "holds"]) and est.loc["C", "proposed"] == 5
    assert est.loc["C", "note"].startswith("flagged, window holds the print")
    assert est.loc["D", "fair_lo"] == pytest.approx(4.8) and est.loc["D", "proposed"] == 5
    r1 = est.loc["R1"]  # fair -0.1 .. 3.1: the window's nearest whole value, 3, held at 4
    assert r1["proposed"] == 4 and bool(r1["below_floor"]) and "not measured" in r1["note"]
    r2 = est.loc["R2"]  # fair 0.9 .. 2.1 on a measured row: 2, with the evidence shown
    assert r2["proposed"] == 2 and not r2["below_floor"]
    assert r2["note"].startswith("below its colour's lowest printing")


def test_a_count_without_a_price_does_not_speak_for_a_card_the_pooled_slope_prices():
    """B21 (plants-gate loop, 2026-11-29): one count's slope 0.08 wrote "no price fixes
    this card" while the pooled slope, 0.10, re-priced it 3 -> 10 under that note.  The
    one value for all counts speaks for the card: a count's "no price" note goes where
    the pooled slope prices it, and stays where the pooled slope does not."""
    from bonfire_sim.analysis.cards.price import combine

    flat = "no price fixes this card: change its condition (lit in 2% of receipts)"

    def row(card, n, slope, note=""):
        return {"card": card, "kind": "task", "players": n, "surplus": -2.0, "half": 0.5,
                "slope": slope, "fair": 3 + 2.0 / max(slope, 0.5),
                "proposed": 6.0, "flag": "weak", "flag_counts": "", "price_note": note,
                "status": "measured"}

    t = pd.DataFrame([row("B21", 2, 0.08, flat), row("B21", 3, 0.12), row("B21", 4, 0.12),
                      row("B22", 2, 0.05, flat), row("B22", 3, 0.06, flat)])
    est = combine(t, {"B21": 3, "B22": 3}, 1.0, "receipt").set_index("card")
    assert not est.loc["B21", "no_price"] and est.loc["B21", "proposed"] != 3
    assert not est.loc["B21", "note"].startswith("no price")
    assert bool(est.loc["B22", "no_price"]) and est.loc["B22", "note"] == flat


def test_the_response_is_the_loops_own_slope_held_above_the_no_price_floor():
    from bonfire_sim.analysis.cards.steps import response, responses

    # the loop's pairs (printed, pooled surplus) on a line of slope 0.3
    assert response([(3.0, -1.5), (7.0, -0.3), (9.0, 0.3)]) == pytest.approx(0.3)
    assert response([(5.0, -1.0)], first=0.25) == pytest.approx(0.25)  # one price: fixed play
    assert response([(5.0, -1.0), (6.0, -1.0)]) == pytest.approx(0.1)  # flat: the floor
    assert response([(5.0, -3.0), (6.0, 2.0)]) == pytest.approx(2.0)  # held at 2
    # every card the loop steered, also one first flagged on a round's deals (R2 joined
    # the 3-player loop in round 1 and read 1.00 a point when only the first proposal's
    # cards were looked up)
    hist = {"R15": [(3.0, -1.5), (7.0, -0.3)], "R2": [(4.0, 2.0), (0.0, -0.4)]}
    got = responses(hist, {"R2": 0.66}, "receipt")
    assert got == pytest.approx({"R15": 0.3, "R2": 0.6})
    assert responses(hist, {}, "lit") == {"R15": 1.0, "R2": 1.0}


def test_the_win_currency_converts_at_the_counts_exchange_rate():
    printed = printed_points(RunConfig(games=2, players=2))
    tab = card_table(_synthetic({t: (float(i % 5), 300) for i, t in enumerate(BLUE)}),
                     {2: printed}, measure="receipt").set_index("card")
    assert tab.loc["B1", "win_rate"] == pytest.approx(0.02)
    assert tab.loc["B4", "win_points"] == pytest.approx(tab.loc["B4", "value"])


def test_the_price_loops_estimate_is_the_survey_to_its_target_half_width(tmp_path):
    """``reprice`` estimates from the survey ``values`` makes: every row still wider
    than TARGET_SHARE x margin gets fresh deals until it is that narrow or at its cap, so
    its detection floor is at most about twice the margin (a 2-point change at one count
    is flagged).  The old top-up forked only rows already beyond the margin, and only to
    the margin: rows between 0.6 and 1 x margin stayed as they were.  Blue tasks, 2
    players, a margin of 2.5 points, so that the target is reached in a few hundred games
    (the default margin needs thousands)."""
    from bonfire_sim.analysis.cards.survey import TARGET_SHARE, games_cap

    r = run(RunConfig(games=300, players=2, seed=31, seat_rotation=True), tmp_path / "r")
    margin, cap = 2.5, 700  # four-player games: 1,400 two-player games per card at most
    res = reprice(r, probe_games=BLUE_TAKE, margin=margin, max_games=cap, measure="receipt")
    t = res.table[res.table["card"].isin(BLUE)].set_index("card")
    target = TARGET_SHARE * margin
    # the top-ups play fresh deals: the seeds after the run's, before the rounds'
    assert res.batches and {b.seed for b in res.batches} <= set(range(32, 36))
    capped = t["games"] >= games_cap(cap, 2)
    assert ((t["half"] <= target + 1e-9) | capped).all()
    assert (t["half"] <= target + 1e-9).mean() >= 0.8  # most rows reach it under the cap
    assert (t.loc[~capped, "detect"] <= 2 * margin).all()
    assert t["games"].max() <= games_cap(cap, 2) and (t["games"] > 300).all()


@pytest.mark.heavy  # two 4-player runs and their surveys: minutes on 2 cores
def test_a_planted_two_point_change_at_one_count_is_flagged_at_the_default_budget_heavy(
        tmp_path):
    """Issue 36: "a planted 2-point change at one count is detected at the default
    budget".  B20 printed 5 instead of 3 at 4 players (its receipt value answers about
    1.2 a printed point there, docs/findings/2026-11-29-receipt-price.md, so 2 printed
    points move it by about 2.4), blue tasks of 1,200 seat-rotated games of the default
    population, the estimate of ``reprice`` at its default survey budget: flagged, while
    the same deals at the game's print flag nothing on B20; every blue row not at its cap
    reaches a detection floor of at most 2 points.  With the former top-up (only rows
    beyond the margin, to the margin) the floor stayed near 2.6-3.5 and B20 +2 went
    unseen (docs/findings/2026-11-29-plants-one-loop.md).  The plant is also re-priced
    to within a point of 3: the fair window's gate must not keep a real plant."""
    from bonfire_sim.analysis.cards.survey import MAX_GAMES, games_cap

    flagged, proposed = {}, {}
    for label, points in (("print", 3), ("plant", 5)):
        ov = {} if points == 3 else {"task_points": {"B20": points}}
        r = run(RunConfig(games=1200, players=4, seed=9960, seat_rotation=True,
                          overrides=ov), tmp_path / label, jobs=2)
        res = reprice(r, probe_games=BLUE_TAKE, jobs=2, measure="receipt")
        t = res.table[res.table["card"].isin(BLUE)].set_index("card")
        assert (t.loc[t["games"] < games_cap(MAX_GAMES, 4), "detect"] <= 2.0).all()
        flagged[label] = bool(t.loc["B20", "flag"] != "" or t.loc["B20", "flag_counts"] != "")
        proposed[label] = res.proposal.get("B20", points)
    assert flagged == {"print": False, "plant": True}
    # the fair window's gate does not keep the plant at 5: it is re-priced back to the
    # game's 3 within a point (the window's nearest whole value)
    assert proposed["print"] == 3 and abs(proposed["plant"] - 3) <= 1, proposed


def test_test_retest_small(tmp_path):
    """Two independent seeds (blue tasks, 2 players): the printed values the tool proposes
    agree within 1 point for 90% of the cards, and no card is flagged without forks."""
    final = []
    for seed in (61, 62):
        r = run(RunConfig(games=1200, players=2, seed=seed, seat_rotation=True),
                tmp_path / str(seed))
        # CI size: no top-up
        res = reprice(r, probe_games=BLUE_TAKE, top_ups=0, measure="receipt")
        final.append(pd.Series(res.printed | res.proposal)[list(BLUE)])
        f = card_values(r, probes=BLUE_TAKE, measure="receipt").query("flag != ''")
        assert (f["n"] > 0).all() and (f["status"] == "measured").all()
    assert ((final[0] - final[1]).abs() <= 1).mean() >= 0.9


def test_reprice_refuses_runs_that_play_different_games(tmp_path):
    a = run(RunConfig(games=8, players=2, seed=1, seat_rotation=True), tmp_path / "a")
    b = run(RunConfig(games=8, players=2, seed=2, seat_rotation=True,
                      overrides={"task_points": {"B1": 3}}), tmp_path / "b")
    with pytest.raises(DataError, match="differ"):
        reprice([a, b], probe_games=BLUE_TAKE)
    c = run(RunConfig(games=9, players=3, seed=2, seat_rotation=True,
                      overrides={"task_points": {"B1": 3}}), tmp_path / "c")
    with pytest.raises(DataError, match="one printed value"):
        reprice([a, c], probe_games=BLUE_TAKE)


def test_reprice_refuses_a_verification_seed_of_the_estimating_runs(tmp_path):
    r = run(RunConfig(games=8, players=2, seed=5, seat_rotation=True), tmp_path / "r")
    with pytest.raises(DataError, match="disjoint"):
        reprice(r, probe_games=BLUE_TAKE, verify=True, seed=4, rounds=2)


def test_reprice_cli_writes_an_experiment_file_and_refuses_bad_input(tmp_path):
    run(RunConfig(games=16, players=2, seed=1, seat_rotation=True), tmp_path / "r")
    out = tmp_path / "p.toml"
    res = CliRunner().invoke(main, ["reprice", str(tmp_path / "r"), "--out", str(out),
                                    "--probe-games", "16", "--quiet"])
    assert res.exit_code == 0, res.output
    assert "not measured" in res.output and out.is_file()
    config, _ = load_experiment(out)
    assert config.players == 2
    bad = CliRunner().invoke(main, ["reprice", str(tmp_path / "nope"), "--out", str(out)])
    assert bad.exit_code == 2 and bad.output.startswith("Error:")
    bad = CliRunner().invoke(main, ["reprice", str(tmp_path / "r"), "--out", str(out),
                                    "--margin", "nan"])
    assert bad.exit_code == 2 and "Error:" in bad.output


def test_reprice_prints_each_counts_residual_at_the_value_it_shows(tmp_path, monkeypatch):
    # The loop moved B1 from its first proposal (0) to 1: the residual printed beside 1
    # is the surplus moved by the slope for 2 -> 1 (+1.9 - 0.5 = +1.4: printed lower, the
    # card gives less), not the first proposal's (+0.9).
    import bonfire_sim.analysis.cards.price as P

    run(RunConfig(games=8, players=2, seed=1, seat_rotation=True), tmp_path / "r")
    est = pd.DataFrame([{"card": "B1", "printed": 2, "fair": 0.0, "proposed": 0,
                         "slope": 0.5, "flagged": True, "no_price": False, "note": "",
                         "holds": False, "fair_lo": -0.5, "fair_hi": 0.5,
                         "surplus_2": 1.9, "half_2": 0.5, "own_2": 0.0,
                         "status_2": "measured", "slope_2": 0.5, "resid_2": 0.9}])
    fake = Reprice(printed={"B1": 2}, proposal={"B1": 1}, estimate=est)
    monkeypatch.setattr(P, "reprice", lambda *a, **k: fake)
    res = CliRunner().invoke(main, ["reprice", str(tmp_path / "r"), "--out",
                                    str(tmp_path / "p.toml"), "--quiet"])
    assert res.exit_code == 0, res.output
    row = next(ln.split() for ln in res.output.splitlines() if ln.split()[:1] == ["B1"])
    assert row == ["B1", "2", "1", "-0.5..0.5", "0.50", "+1.9", "+1.4"]
    # and the estimate's own residual (at the first proposal: its fair window, 0 +- 0.5
    # surplus points / 0.5 a point, the lit value's divisor, holds 1 at most) moves the
    # same way
    from bonfire_sim.analysis.cards.price import combine

    t = pd.DataFrame([{"card": "B1", "kind": "task", "players": 2, "fair": 0.0,
                       "proposed": 0.0, "slope": 0.5, "half": 0.5, "flag": "strong",
                       "flag_counts": "", "price_note": "", "surplus": 1.9,
                       "status": "measured"}])
    first = combine(t, {"B1": 2}, 1.0, "lit").loc[0]
    assert first["proposed"] == 1 and first["resid_2"] == pytest.approx(1.9 - 0.5)


# ---- full size (make test-heavy) ------------------------------------------------------
# 4-player seat-rotated games of `tuned` in every seat (the recommended player; the
# players are the runs' own, so another population is one argument away).
HEAVY_GAMES = 1200
HEAVY_VERIFY, HEAVY_FOCUS = 600, 4800  # fresh games per round: all tasks / re-priced ones
TUNED = ("tuned",)


@pytest.mark.heavy
# Not run by `make test-heavy` (run=False): an expected failure that runs asserts nothing
# to CI (neither its failure nor a pass fails the build) and cost minutes of its budget;
# run it by hand with `pytest -m heavy --runxfail -k NAME` when its reason may be gone.
@pytest.mark.xfail(strict=False, run=False, reason=(
    "open, measured 2026-11-27 21:29 UTC on the players after issue 39's joker fix "
    "(d9e1a31): on the check's new deals B1 -0.96, R3 -0.12, Y22 +0.88 but Y14 (re-priced "
    "7 -> 6) +1.03 (+0.26..+1.79), 3 of 4 within +-1 by the point estimate, under the 90% "
    "bar; the loop stopped one point short on Y14.  Issue 36's verification (a row within "
    "only when its interval is) replaces this bar; restore the assertion with it"))
def test_closed_loop_on_a_four_player_run_heavy(tmp_path):
    # Planted misprices (B1 prints 2, R3 5, Y14 7; played at 8, 9 and 3) guarantee the
    # loop has cards to re-price, so the check never passes by having nothing to verify.
    # Measured (2026-11-26, load 15): the top-up flags B1, R3, Y14 and Y22; round 1 moves
    # R3 3 -> 2 and Y14 5 -> 6, round 2 is a fixed point, and on the check's new deals all
    # 4 lie within +-1 (B1 -0.47, R3 -0.67, Y14 +0.67, Y22 +0.10); reprice 184 s at load
    # 2-3 (estimate forks cached), 995 s at load 15.
    plant = {"B1": 8, "R3": 9, "Y14": 3}
    r = run(RunConfig(games=HEAVY_GAMES, players=4, seed=31, seat_rotation=True,
                      strategies=TUNED, overrides={"task_points": plant}),
            tmp_path / "r", jobs=2)
    res = reprice(r, verify=True, verify_games=HEAVY_VERIFY, focus_games=HEAVY_FOCUS,
                  rounds=3, jobs=2)
    v = res.verified
    print(v.to_string())
    print(f"closed loop: {v['within'].mean():.0%} of {len(v)} re-priced cards within the "
          f"margin on new deals (issue 26's bar: 90%)")
    assert set(plant) <= set(v["card"])
    game = printed_points(RunConfig(games=4, players=4))
    for card, k in plant.items():  # each planted card moves back toward the game's print
        assert abs(res.proposal[card] - game[card]) < abs(k - game[card])
    assert (v["status"] == "measured").all()
    assert ((v["s_lo"] <= v["surplus"]) & (v["surplus"] <= v["s_hi"])).all()
    assert v["within"].mean() >= 0.9
    assert res.check.seed not in (31, *[x.seed for x in res.rounds])


# 13-16 minutes on the shared 2-core machine (its forks not cached): a study, outside
# make test-heavy's budget; run it with `pytest -m study -k test_retest_on_two -s
# tests/test_card_values.py`.  Measured 2026-11-29 11:26 UTC: 60 of 66 (91%); 21:05 UTC on
# main 4a49dce: 62 of 66 (94%); the rows' own whole values agree for 98% of 55 tasks.
@pytest.mark.study
def test_test_retest_on_two_seeds_heavy(tmp_path):
    """Issue 36 bar 3: the printed values the tool proposes (a re-price where a card is
    flagged and its fair printed window excludes its print, to the window's whole value
    nearest it; else the printed value) agree within 1 point for 90% of the tasks on two
    independent seeds; no card is flagged without forks (10+ deals); no task is proposed
    below its colour's lowest printing without the evidence.  Each estimate's survey
    top-ups play seeds of its own (4100.., 4200..): at their default (one above the
    run's) the run on 41 topped up on seeds 42-43 and the run on 42 on 43-44, so the two
    estimates shared the deals of seeds 42 and 43.  Measured (docs/findings/
    2026-11-29-plants-one-loop.md): 60 of 66 (91%) with the window, and 60 of 66 with the
    former whole step too; the six misses are cards flagged on one seed only (B2, B3,
    B18, R10, R21, Y10).  On the shared seeds: 59 of 66 (89%) before the window, 60 with
    it.  The rows' own whole values are printed for the note."""
    from bonfire_sim.analysis.cards.table import MIN_SLOPE, tier_floor

    tabs, final, ests = [], [], []
    for seed in (41, 42):
        r = run(RunConfig(games=HEAVY_GAMES, players=4, seed=seed, seat_rotation=True,
                          strategies=TUNED), tmp_path / str(seed), jobs=2)
        # with its survey top-ups, on fresh seeds of its own: the proposal's table
        res = reprice(r, jobs=2, measure="receipt", seed=100 * seed)
        tabs.append(res.table.set_index(["card", "kind"]))
        ests.append(res.estimate.set_index("card"))
        final.append(pd.Series(res.printed | res.proposal))
        print(f"seed {seed}: re-priced {res.proposal}")
    a, b = tabs
    both = a["proposed"].notna() & b["proposed"].notna()
    own = (a.loc[both, "proposed"] - b.loc[both, "proposed"]).abs() <= 1
    measured = (a["status"] == "measured") & (b["status"] == "measured")
    print(f"own whole values agree within 1 point for {own.mean():.0%} of {both.sum()} "
          f"tasks, {own[measured[both]].mean():.0%} of the "
          f"{int((measured & both).sum())} measured in both")
    agree = (final[0] - final[1]).abs() <= 1
    print(f"proposed printed values agree within 1 point for {agree.mean():.0%} of "
          f"{len(agree)} tasks")
    assert agree.mean() >= 0.9
    for t in tabs:
        f = t[t["flag"] != ""]
        assert (f["n"] > 0).all() and (f["deals"] >= 10).all()
    # never below the colour's lowest printing without the evidence: the row measured,
    # its fair window excluding the print (the gate), a slope that prices it; the hardest
    # tasks (Y15-Y17, lit in 0-1% of receipts) get "no price fixes this card" instead
    game = printed_points(RunConfig(games=4, players=4))
    for est, prop in zip(ests, final, strict=True):
        moved = {c for c in prop.index if prop[c] != game[c]}
        for card in moved:
            if prop[card] < tier_floor(card):
                e = est.loc[card]
                assert e["status_4"] == "measured" and not e["holds"], e
                # the evidence: "below its colour's lowest printing (2) ...: fair 0.8 (...)"
                # or, where even the lowest print 1 is too much, "change the condition: its
                # fair print (0.3) lies below the lowest print 1; at 1 its surplus is ..."
                assert e["slope"] >= MIN_SLOPE and e["note"].startswith(
                    ("below", "change the condition: its fair print")), e
        hard = set(est.index[est["no_price"]])
        assert {"Y15", "Y16", "Y17"} <= hard and not hard & moved


@pytest.mark.heavy
def test_planted_reprice_invariance_heavy(tmp_path):
    """Issue 26's invariance bar on the default population: +4 on R3 and -3 on Y14,
    played on identical deals (one seed), move each one's surplus (the default, lit
    value: slope 1) by the planted amount within 1 point, leave its proposed printed
    value within 1 point, and flag none of the untouched cards.  As ``reprice`` does,
    the whole table comes from 1,200 games and the two planted cards' own forks from
    4,800 (2026-11-27, lit value: R3 moved +3.81, Y14 -3.10, proposals 1 / 1 and 6 / 6,
    no untouched card flagged).  Pinned to the lit value, whose slope is one by
    construction: the receipt value (the default since 2026-11-29) moved Y14 -2.45 where
    slope x k said -1.30 (2026-11-28) and, with the fair-window gate, proposed R3 2 / 5
    for the +4 plant (make test-heavy, 2026-11-29 12:40 UTC): its plants are the B20 test
    above and the loops' plants."""
    from bonfire_sim.analysis.cards.price import fresh_table, group_runs

    base = run(RunConfig(games=8, players=4, seed=51, seat_rotation=True), tmp_path / "b")
    groups = group_runs(as_runs(base))
    printed = printed_points(RunConfig(games=4, players=4))
    plant = {"R3": printed["R3"] + 4, "Y14": printed["Y14"] - 3}
    a, b = (fresh_table(groups, prices, seed=5100, games=HEAVY_GAMES, focus=tuple(plant),
                        focus_games=4 * HEAVY_GAMES, margin=1.0, alpha=0.05, jobs=2,
                       measure="lit")[0]
            .query("kind == 'task'").set_index("card")
            for prices in (printed, {**printed, **plant}))
    for task, k in (("R3", 4), ("Y14", -3)):
        moved = b.loc[task, "surplus"] - a.loc[task, "surplus"]
        print(task, f"moved {moved:+.2f} for {k:+d}, proposed {a.loc[task, 'proposed']} / "
              f"{b.loc[task, 'proposed']}, status {a.loc[task, 'status']} / "
              f"{b.loc[task, 'status']}")
        assert a.loc[task, "status"] == b.loc[task, "status"] == "measured"
        # a printed point is scored where the receipt ends lit: about slope x k
        assert abs(moved - k * b.loc[task, "slope"]) <= 1.0
        assert abs(b.loc[task, "proposed"] - a.loc[task, "proposed"]) <= 1
    untouched = [t for t in a.index if t not in plant]
    newly = b.loc[untouched][(b.loc[untouched, "flag"] != "")
                             & (a.loc[untouched, "flag"] == "")]
    print("untouched cards flagged only with the plant:", list(newly.index))
    assert newly.empty


def test_gnome_values_carry_the_relative_scale(tmp_path):
    from bonfire_sim.analysis import gnome_values

    r = run(RunConfig(games=120, players=2, seed=12, seat_rotation=True), tmp_path / "r")
    gv = gnome_values(r, probes=ProbeSettings(kinds=("gnome",), gnomes=("S1", "S2", "E1")))
    g = gv[gv["n"] > 1].set_index("gnome")
    assert len(g) == 3
    for name in g.index:
        others = g["value"].drop(name).mean()
        assert g.loc[name, "relative"] == pytest.approx(g.loc[name, "value"] - others)
        assert g.loc[name, "rel_lo"] < g.loc[name, "relative"] < g.loc[name, "rel_hi"]


def test_bench_forks_prints_forks_per_second_for_both_fork_sets():
    res = CliRunner().invoke(main, ["bench", "forks", "--games", "12", "--jobs", "1",
                                    "--quiet"])
    assert res.exit_code == 0, res.output
    rows = [ln.split() for ln in res.output.splitlines() if ln.strip().startswith(
        ("take,light,gnome", "light,gnome,forced"))]
    assert len(rows) == 3  # the default kinds, then the lit and the receipt card tables
    for row in rows:
        forks, seconds, per_s = (float(x.replace(",", "")) for x in row[1:4])
        assert forks > 100 and seconds > 0
        # seconds are shown to 0.1 (the true time lies within 0.05 of it) and forks/s to
        # 1: per_s must be forks over a time the shown seconds round to, whatever the
        # machine's speed (a fixed relative tolerance failed when a row took 0.45 s)
        assert forks / (seconds + 0.05) - 0.5 <= per_s <= forks / (seconds - 0.05) + 0.5


@pytest.mark.heavy
# Not run by `make test-heavy` (run=False): three closed loops of the receipt value take
# tens of minutes and fail as measured below; run it by hand with
# `pytest -m heavy --runxfail -k held_out_plants tests/test_card_values.py` when the
# receipt value changes.
@pytest.mark.xfail(strict=False, run=False, reason=(
    "issue 36, open: the receipt value's loop on the same plants, one count at a time "
    "(cards-room, 2026-11-27, 1,200 games each, seeds 9402/9203/9404, verify 600 / focus "
    "2,400, 3 rounds), brought B20 back at 2, 3 and 4 players but drove R15 3 -> 8-9 and "
    "never flagged Y20 at 12; 7-9 of 18-21 check rows within "
    "(docs/findings/2026-11-27-task-worth.md).  Price curves (2026-11-29): R15 reads -0.6 to "
    "-1.3 at its print of 5 and crosses zero at 7-9, Y20 moves 0.07-0.16 a printed point, so "
    "the receipt value itself does not price them at the game's print "
    "(docs/findings/2026-11-29-receipt-price.md)"))
def test_held_out_plants_come_back_at_every_count_heavy(tmp_path):
    """Issue 36: +3, -2 and +4 on B20, R15 and Y20 (tasks no other card-value test uses)
    at 2, 3 and 4 players are each re-priced to within 1 point of the game's print by
    the closed loop, one printed value for all counts, and every verified row of them is
    measured with its whole interval inside +-1 (``scripts``: /tmp plants run in the
    note)."""
    plant = {"B20": 6, "R15": 3, "Y20": 12}
    game = printed_points(RunConfig(games=4, players=4))
    runs = [run(RunConfig(games=1200 - 1200 % n, players=n, seed=9100 + n, seat_rotation=True,
                          overrides={"task_points": plant}), tmp_path / f"p{n}", jobs=2)
            for n in (2, 3, 4)]
    res = reprice(runs, verify=True, verify_games=600, focus_games=2400, rounds=3, jobs=2,
                  measure="receipt")
    final = res.printed | res.proposal
    assert all(abs(final[c] - game[c]) <= 1 for c in plant), {c: final[c] for c in plant}
    v = res.verified[res.verified["card"].isin(list(plant))]
    assert len(v) == 3 * len(plant) and (v["verdict"] == "within").all(), v


# Bar 1's plants (docs/findings/2026-11-29-plants-return.md): cards the unplanted receipt
# loop leaves at their print on the same seeds (the loop from the game's own print moves
# the tiers, so a card fair at today's print need not stay there), steep enough (0.6+
# surplus a printed point re-optimised), named by no card-value test.  No such yellow
# task exists at 3 players: Y13's "original" is the unplanted loop's own price (0 on seed
# 9830), planted +4 relative to it.  Per count: (plant, original); the same plants at 2
# and 4 players do not all come back (the page's table), so only 3 players is a test.
PLANTS = {3: ({"B20": 6, "R6": 2, "Y13": 4}, {"B20": 3, "R6": 4, "Y13": 0})}


def _plants_come_back(tmp_path, players: int) -> None:
    """The receipt loop at one count (1,200 seat-rotated games of the default population,
    seed 98<n>0; verify 600 / focus 2,400, 3 rounds) brings each plant within a point of
    its original value, checks it (every card the loop steered is checked) and its check
    row is measured and inside +-1."""
    plant, original = PLANTS[players]
    r = run(RunConfig(games=1200, players=players, seed=9800 + 10 * players,
                      seat_rotation=True, overrides={"task_points": plant}),
            tmp_path / f"p{players}", jobs=2)
    res = reprice([r], verify=True, verify_games=600, focus_games=2400, rounds=3, jobs=2,
                  measure="receipt")
    final = res.printed | res.proposal
    assert all(abs(final[c] - original[c]) <= 1 for c in plant), {c: final[c] for c in plant}
    assert res.verified is not None
    v = res.verified[res.verified["card"].isin(list(plant))]
    assert sorted(v["card"]) == sorted(plant), v
    assert (v["verdict"] == "within").all(), v


@pytest.mark.study  # 14 min: outside make test-heavy, whose CI budget it would break
@pytest.mark.xfail(strict=True, reason=(
    "since reprice estimates from the survey (rows to 0.6 x margin) the 3-player loop alone "
    "ends on B20 4, R6 3 but leaves Y13 at 4 (the old estimate's loop flagged it on round "
    "1's deals; on seed 9850 it never did): the one loop over 2, 3 and 4 players flags Y13 "
    "by its 2-player row and brings it to 0 "
    "(docs/findings/2026-11-29-plants-one-loop.md)"))
def test_plants_the_receipt_value_prices_at_their_print_come_back_at_three_players_heavy(
        tmp_path):
    _plants_come_back(tmp_path, 3)


RED = tuple(f"R{i}" for i in range(1, 23))


def _difficulty_rows(amount: int | None, games: int = 600, seed: int = 9310) -> pd.Series:
    """R2's row of the receipt card table at 3 players, with R2 asking for ``amount``
    gnomes (None: the game's 3): the red tasks' take forks (the tier's reference) and
    R2's light and forced forks (its lit value beside it)."""
    ov = {} if amount is None else {"task_amount": {"R2": amount}}
    cfg = RunConfig(games=games, players=3, seed=seed, seat_rotation=True, overrides=ov)
    forks = pd.concat([probe_values(cfg, ProbeSettings(kinds=("take",), tasks=RED)),
                       probe_values(cfg, ProbeSettings(kinds=("light", "forced"),
                                                       tasks=("R2",)))], ignore_index=True)
    t = card_table(forks.assign(cluster=forks["deal"].astype(str)), {3: printed_points(cfg)},
                   measure="receipt")
    return t[t["kind"] == "task"].set_index("card").loc["R2"]


@pytest.mark.slow
def test_a_harder_condition_lowers_the_receipt_value_not_the_lit_value_and_raises_the_price():
    """Issue 36's planted difficulty, small: R2 '3 gnomes' made '5 gnomes' on the same
    600 three-player deals.  The receipt value falls with confidence (measured: -0.3
    (-1.9 to +1.3) -> -5.7 (-7.5 to -3.9); lit in 86% -> 37% of receipts); the lit value,
    forked where the owner can already ignite it, does not fall (7.9 -> 10.0); the price
    step prints the hard card higher than today and than the easy one (1 -> 11), or says
    no price fixes it.  With the game's own condition in place of the plant the first
    assertion fails (the same deals, the same value)."""
    easy, hard = _difficulty_rows(None), _difficulty_rows(5)
    assert hard["hi"] < easy["lo"], (easy[["value", "lo", "hi"]], hard[["value", "lo", "hi"]])
    assert hard["lit_share"] < easy["lit_share"]
    assert hard["lit_hi"] >= easy["lit_lo"], (easy["lit_value"], hard["lit_value"])
    no_price = str(hard["price_note"]).startswith("no price fixes")
    assert no_price or (hard["proposed"] > max(hard["printed"], easy["proposed"])), (
        easy["proposed"], hard["proposed"], hard["price_note"])


@pytest.mark.heavy
def test_a_planted_difficulty_lowers_the_value_and_raises_the_price_heavy(tmp_path):
    """R2 '3 gnomes' made '5 gnomes' (``task_amount``: Y4's condition on a red card) on
    the same deals, 1,200 three-player games: its receipt value falls by a measured
    amount, its lit value does not fall, and the closed loop on the hard game prints it
    higher than today and than the easy condition's price, or says no price fixes it.
    (R7 '3 -> 5 portals' was tried first: the receipt value prices the easy R7 at 0 and
    the hard one at 0 too, so its price could not move up; R2 at 3 gnomes is lit in 90%
    of receipts, at 5 in 44%.)"""
    red = tuple(f"R{i}" for i in range(1, 23))
    settings = ProbeSettings(kinds=("take",), tasks=red)
    tabs = {}
    for name, ov in (("base", {}), ("hard", {"task_amount": {"R2": 5}})):
        r = run(RunConfig(games=1200, players=3, seed=9300, seat_rotation=True,
                          overrides=ov), tmp_path / name, jobs=2)
        t = card_values(r, probes=ProbeSettings(kinds=("take", "light", "forced"), tasks=red),
                        jobs=2, measure="receipt")
        tabs[name] = t[t["kind"] == "task"].set_index("card")
    a, b = tabs["base"].loc["R2"], tabs["hard"].loc["R2"]
    print(pd.DataFrame([a, b], index=["base", "hard"])[
        ["value", "lo", "hi", "surplus", "s_lo", "s_hi", "lit_share", "slope", "lit_value",
         "lit_lo", "lit_hi", "proposed"]].to_string())
    assert b["hi"] < a["lo"], (a[["value", "lo", "hi"]], b[["value", "lo", "hi"]])
    assert b["lit_hi"] >= a["lit_lo"]  # the lit value does not see the harder condition
    res = reprice(tmp_path / "hard", probe_games=settings, verify=True, verify_games=600,
                  focus_games=2400, rounds=2, jobs=2, measure="receipt", note=print)
    e = res.estimate.set_index("card").loc["R2"]
    final = (res.printed | res.proposal)["R2"]
    print("R2: printed", res.printed["R2"], "-> loop", final, "; easy proposal",
          a["proposed"], "; no price", e["no_price"])
    if res.verified is not None:
        print(res.verified.to_string())
    # higher than today's print and than the price the easy condition gets, or no price
    assert (final > res.printed["R2"] and final > a["proposed"]) or e["no_price"]


def test_a_verify_that_re_prices_nothing_does_not_say_it_was_not_asked_for():
    # reprice --verify with no card beyond the margin plays no round: its file said
    # "# not verified (no --verify)", which contradicts the command that wrote it.
    empty = pd.DataFrame()
    asked = Reprice(printed={"B1": 3}, proposal={}, estimate=empty, verify=True)
    assert verification_line(asked) == (
        "# --verify: no card to re-price, so nothing was played to verify")
    assert "no --verify" in verification_line(Reprice({"B1": 3}, {}, empty))


def test_tables_of_one_count_each_get_the_test_across_counts_when_put_together():
    # the errata sheet measures each count on its own runs: its one-count tables cannot
    # run the across-count test, so a card off at every count on few forks each (a
    # planted -2: R15 read -2.3, -2.4, -2.5 on 61-148 forks) was flagged nowhere
    from bonfire_sim.analysis.cards import flags_across_counts

    tabs = []
    for n in (2, 3, 4):
        printed = printed_points(RunConfig(games=2, players=n))
        vals = {t: (float(printed[t]), 400) for t in BLUE}
        vals["B4"] = (printed["B4"] - 3.0, 50)
        t = card_table(_synthetic(vals, sd=8.0, seed=n, players=n, exact=True), {n: printed},
                       measure="receipt")
        tabs.append(t[t["kind"] == "task"])
    alone = pd.concat(tabs, ignore_index=True)
    b4 = alone[alone["card"] == "B4"]
    assert (b4["flag"] == "").all() and (b4["flag_counts"] == "").all(), b4
    together = flags_across_counts(alone)
    b4 = together[together["card"] == "B4"]
    assert (b4["flag_counts"] == "weak").all(), b4[["players", "surplus", "half", "pooled"]]
    assert list(together.columns) == list(alone.columns)
    # each count's own flags are unchanged by the joint test
    assert together["flag"].tolist() == alone["flag"].tolist()
