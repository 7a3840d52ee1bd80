"""The game viewer: one self-contained HTML page that draws a game after every decision.

``game_frames(record, params)`` replays the decisions of a traced game (the ``move``
events ``replay --json`` writes, payment choices included) on a fresh deal with the
engine's own ``apply_move`` and reads the board after each one (``view_state.board``), so
the picture is the rules engine's state, not a re-implementation of it.  The replay must
end in the record's own final scores, or the view refuses to be written.

``write_view(record, params, out)`` stores the frames as the board keys that changed
since the previous frame (a 4-player game is a few hundred KiB) inside the page, with its
own CSS, JavaScript and SVG: no network.  ``view_game`` loads a run's game or plays a
seeded one; ``write_views`` writes the example games of a report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import numpy as np

from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import fileio
from bonfire_sim.report import view_state
from bonfire_sim.sim.narrate import move_clause, tom_clause
from bonfire_sim.sim.record import GameRecord

TEMPLATES = Path(__file__).resolve().parent / "templates"
SEAT_COLOURS = ("#d9534f", "#3b7dd8", "#3f9d4a", "#e0a800")  # seat 0..3 (Tom: grey)


@dataclass(frozen=True)
class ViewGame:
    """A traced game and what is needed to replay it: its parameter vector and a title."""

    record: GameRecord
    params: np.ndarray
    title: str
    variants: dict[str, str]


# ---- loading ----------------------------------------------------------------------------
def view_game(*, run_dir: str | Path | None = None, game_id: int | None = None,
              seed: int = 0, players: int = 4, strategies: str | Sequence[str] | None = None,
              variants: Mapping[str, str] | None = None) -> ViewGame:
    """Game ``game_id`` of the run in ``run_dir``, or a game played from ``seed``."""
    from bonfire_sim.rules import tables as T
    from bonfire_sim.sim.play import play

    if (run_dir is None) != (game_id is None):
        raise ConfigError("--run and --game go together: give both to view a run's game")
    if run_dir is not None and game_id is not None:
        from bonfire_sim.sim.rungame import game_spec

        spec = game_spec(run_dir, game_id)
        record = play(spec.seed, spec.players, spec.strategies, spec.overrides,
                      variants=spec.variants)
        params = T.build_params(spec.overrides or None, spec.variants)
        return ViewGame(record, params, f"game {game_id} of {Path(run_dir).name}",
                        dict(spec.variants))
    record = play(seed, players, strategies, variants=variants)
    try:
        params = T.build_params(None, dict(variants or {}))
    except (KeyError, ValueError) as error:
        raise ConfigError(f"bad variant: {error}") from None
    return ViewGame(record, params, f"seed {seed}", dict(variants or {}))


# ---- frames -----------------------------------------------------------------------------
def _who(record: GameRecord, seat: int) -> str:
    if record.solo and seat == 1:
        return "Tom"
    return f"Seat {seat} ({record.strategies[seat]})"


def _line(record: GameRecord, ev: Mapping[str, Any]) -> str:
    """One narration line for an event (the sentences of ``narrate``)."""
    kind, who = ev["kind"], _who(record, ev["seat"])
    if kind == "move":
        text = move_clause(ev) or "ends the turn"
        if ev.get("points"):
            text += f" [{ev['points']:+d} points]"
        return f"{who}: {text}"
    if kind == "tom":
        return f"Tom {tom_clause(ev)}"
    if kind == "countdown":
        return (f"The High Council holds {ev['council_novices']} novices: the countdown "
                "begins.")
    if kind == "out":
        return f"{who} can do nothing and is out for the rest of the game."
    if kind == "auto_pass":
        return f"{who} passes (countdown) [{ev['points']:+d} points]."
    if kind == "end":
        won = [_who(record, k) for k, w in enumerate(record.won) if w]
        who = (" and ".join(won) + f" win{'s' if len(won) == 1 else ''} with "
               f"{record.scores[record.won.index(True)]} points") if won else \
            "no winner (a solo tie wins for nobody)"
        return f"Game over ({ev['reason']}): {who}."
    return ""


def game_frames(record: GameRecord, params: np.ndarray) -> list[dict[str, Any]]:
    """The board after setup and after every decision, each with the lines that tell it.

    Frame k > 0 follows the k-th ``move`` event; it carries that move's seat, round and
    turn and the narration of the move and of what happened before the next decision
    (Tom's turns, the countdown, seats dropping out, the end).
    """
    from bonfire_sim.rules.moves import apply_move
    from bonfire_sim.rules.setup import new_game

    p = params
    s = new_game(record.seed, record.players, p)
    frames: list[dict[str, Any]] = [
        {"board": view_state.board(s, p), "seat": -1, "round": 1, "turn": 0,
         "lines": ["Setup: the islands, displays and cities are dealt."]}]
    for ev in record.events:
        if ev["kind"] != "move":
            line = _line(record, ev)
            if line:
                frames[-1]["lines"].append(line)
            continue
        for row in [ev["move"], *ev.get("payment", [])]:
            apply_move(s, p, np.asarray(row, dtype=np.int64))
        frames.append({"board": view_state.board(s, p), "seat": ev["seat"],
                       "round": ev["round"], "turn": ev["turn"], "kind": ev["move"][0],
                       "lines": [_line(record, ev)]})
    final = [frames[-1]["board"][f"s{k}.total"] for k in range(len(record.scores))]
    if final != list(record.scores):
        raise RuntimeError(f"the viewer's replay ends with scores {final}, the game's table "
                           f"says {list(record.scores)}: the trace and the engine disagree")
    return frames


def deltas(boards: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each board as the keys that differ from the previous one (the first one whole)."""
    out: list[dict[str, Any]] = []
    prev: Mapping[str, Any] = {}
    for b in boards:
        out.append({k: v for k, v in b.items() if prev.get(k) != v})
        prev = b
    return out


def view_data(game: ViewGame) -> dict[str, Any]:
    """Everything the page needs, JSON-able: static names, frame deltas, lines, result."""
    record = game.record
    frames = game_frames(record, game.params)
    nseats = len(record.scores)
    return {
        "title": game.title,
        "seed": record.seed,
        "players": record.players,
        "solo": record.solo,
        "names": [_who(record, k) for k in range(nseats)],
        "colours": [("#7d6b91" if record.solo and k == 1 else SEAT_COLOURS[k])
                    for k in range(nseats)],
        "variants": game.variants,
        "result": record.result(),
        "table": record.table(),
        "static": view_state.static(game.params),
        "frames": deltas(f["board"] for f in frames),
        "meta": [[f["seat"], f["round"], f["turn"]] for f in frames],
        "lines": [f["lines"] for f in frames],
    }


# ---- the page ---------------------------------------------------------------------------
def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: every '<' escaped, so no text in it can
    close the element or open a comment."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def render_view(game: ViewGame) -> str:
    """The viewer page for ``game`` as one HTML string."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    data = view_data(game)
    head = ", ".join(data["names"])
    return env.get_template("view.html.j2").render(
        title=f"Bonfire: {game.title}", subtitle=head, data=_script_json(data))


def write_view(game: ViewGame, out: str | Path) -> Path:
    """Write the viewer page of ``game`` to ``out`` (atomically)."""
    return fileio.write_text(out, render_view(game))


def write_views(run_dir: str | Path, game_ids: Iterable[int], folder: str | Path
                ) -> dict[int, Path]:
    """View pages ``<folder>/<run name>-game-<id>.html`` for a run's games; {id: path}."""
    out: dict[int, Path] = {}
    for gid in sorted(set(int(g) for g in game_ids)):
        path = Path(folder) / view_file_name(run_dir, gid)
        out[gid] = write_view(view_game(run_dir=run_dir, game_id=gid), path)
    return out


def view_file_name(run_dir: str | Path, game_id: int) -> str:
    """File name of a run's game view (unique per run directory name and game)."""
    return f"{Path(run_dir).name}-game-{int(game_id)}.html"
