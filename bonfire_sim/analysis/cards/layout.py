"""The fork kernel's named layouts, as ``rules/layout.py`` names the game state.

Three small vectors cross the kernel's boundary:

* the **slots** (``NSLOT``): one reservoir per (kind, item) a game may fork: the take
  forks of the 66 tasks, their light forks, the 33 gnomes, then the forced light forks
  of the tasks (which ride on the take slots' decisions);
* the **fork row** (``NOUT`` float64 per slot and game; NaN where nothing was forked):
  which decision was forked (``R_KIND`` .. ``R_CANDIDATES``) and, per branch A (the item)
  and B (the best other move), the mover's final figures.  Branch fields come in pairs,
  A then B, so ``row[R_SCORE + side]`` is branch ``side``'s score (``SIDE_A`` = 0,
  ``SIDE_B`` = 1);
* a **branch result** (``NBRANCH`` float64): what one play-out ended with, copied into
  the fork row by ``kernel._store``.

``OUT_COLS`` names the fork row's columns in order (the probe table's column names).
"""

from __future__ import annotations

from bonfire_sim.rules import layout as L

KIND_TAKE, KIND_LIGHT, KIND_GNOME, KIND_FORCED = 0, 1, 2, 3
KIND_NAMES = ("take", "light", "gnome", "forced")
NTASK = L.NT  # 66
NSLOT = 3 * NTASK + L.NGNOME
FORCED0 = 2 * NTASK + L.NGNOME  # first forced slot; take slots 0.., light NTASK.., gnomes 2*NTASK..
SIDE_A, SIDE_B = 0, 1

_o = 0


def _f(n: int = 1) -> int:
    global _o
    at = _o
    _o += n
    return at


# ---- fork row (per slot and game) -------------------------------------------------------
R_KIND = _f()  # KIND_*
R_ITEM = _f()  # task index 0..65 or gnome index 0..32
R_SEAT = _f()  # the mover's seat
R_TURN = _f()  # G_TURN at the forked decision
R_DECISION = _f()  # G_DECISIONS at the forked decision
R_CANDIDATES = _f()  # eligible decisions the forked one was drawn from
R_SCORE = _f(2)  # mover's final score, A then B
R_WIN = _f(2)  # mover's share of the win (1/k of k tied winners), A then B
R_HAS = _f(2)  # 1.0 if the mover ended with the item lit (task) / owned (gnome)
R_KEPT_B = _f()  # light forks: 0.0 where B's ban on igniting had to give way
R_OUT = _f(2)  # 1.0 if the mover ended the game out (the rules' skip), A then B
R_LIT_TURNS = _f(2)  # turns from receiving the task to igniting it; NaN if not lit
NOUT = _o
OUT_COLS = ("kind", "item", "seat", "turn", "decision", "candidates",
            "score_a", "score_b", "win_a", "win_b", "has_a", "has_b", "kept_b",
            "out_a", "out_b", "lit_turns_a", "lit_turns_b")
assert len(OUT_COLS) == NOUT

# ---- branch result (one play-out) -------------------------------------------------------
_o = 0
B_SCORE = _f()
B_WIN = _f()
B_HAS = _f()
B_OUT = _f()
B_LIT_TURNS = _f()
NBRANCH = _o
