"""Re-fit a weight row on stored expert-iteration positions, with the issue-35 weights.

Each weight named by ``--new`` is first set alone by a line search over ``--grid`` on the
training deals (the held-out fifth untouched), then CMA-ES fits the whole row
(``studies.expert.fit_row``).  ``--freeze-new`` clamps the new weights at 0 instead: the
control fit that tells what the new weights add.  Prints the held-out figures and writes
the row as a weights file (``expert@FILE`` plays it).

    python scripts/expert_refit.py runs/expert/positions-5.npz runs/expert/positions-6.npz \\
        --start expert --generations 30 --seed 35 --out runs/expert-features/start.toml
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from bonfire_sim.strategies.weights import WEIGHT_NAMES
from bonfire_sim.studies import expert as X
from bonfire_sim.studies.tune import BOUNDS

NEW = ("spec_turns", "spec_guard", "elder_many", "guard_lit")


def main(argv: list[str] | None = None) -> int:
    """Run the line search and the fit; write the row."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("positions", nargs="+", type=Path, help="positions-N.npz files")
    ap.add_argument("--start", default="expert", help="start row: style or style@file")
    ap.add_argument("--new", default=",".join(NEW), help="weights to line-search first")
    ap.add_argument("--grid", default="0.25,0.5,1,2,4", help="line-search values")
    ap.add_argument("--generations", type=int, default=30)
    ap.add_argument("--sigma", type=float, default=0.15)
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--freeze-new", action="store_true", help="control: new weights stay 0")
    ap.add_argument("--out", type=Path, required=True, help="weights file to write")
    a = ap.parse_args(argv)
    for f in a.positions:
        if not f.is_file():
            print(f"Error: no positions file {f}; give runs/<out>/positions-N.npz files "
                  "written by `bonfire-sim expert`", file=sys.stderr)
            return 2
    new = [k for k in a.new.split(",") if k]
    unknown = [k for k in new if k not in WEIGHT_NAMES]
    if unknown:
        print(f"Error: unknown weight(s) {', '.join(unknown)}; see strategies/weights.py",
              file=sys.stderr)
        return 2
    pos = X.Positions.concat([X.Positions.load(f) for f in a.positions])
    row = np.array(X.start_row(a.start)[:len(WEIGHT_NAMES)], np.float64)
    train = pos.subset(~X.holdout_mask(pos))
    print(f"{len(pos)} positions; start row's training regret {X.regret(train, row)[0]:.4f}")
    if a.freeze_new:
        for k in NEW:
            BOUNDS[k] = (0.0, 0.0)  # Space clips the coordinate to the start value 0
    else:
        for k in new:
            i = WEIGHT_NAMES.index(k)
            best = (X.regret(train, row)[0], row[i])
            for v in (float(x) for x in a.grid.split(",")):
                trial = row.copy()
                trial[i] = v
                f = X.regret(train, trial)[0]
                print(f"  {k} = {v:g}: training regret {f:.4f}")
                if f < best[0]:
                    best = (f, v)
            row[i] = best[1]
    res = X.fit_row(pos, row, a.generations, a.sigma, a.seed)
    fig = res.figures
    print(f"held-out regret {fig['start_regret_heldout']:.4f} -> {fig['fit_regret_heldout']:.4f}"
          f", agreement {fig['start_agree_heldout']:.4f} -> {fig['fit_agree_heldout']:.4f}")
    print("  " + ", ".join(f"{k} = {res.row[WEIGHT_NAMES.index(k)]:.3f}" for k in NEW))
    cmd = "python scripts/expert_refit.py " + " ".join(sys.argv[1:] if argv is None else argv)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(X.weights_text(res.row, [
        f"re-fit with the issue-35 weights: {cmd}",
        f"held-out regret {fig['start_regret_heldout']:.4f} -> {fig['fit_regret_heldout']:.4f}"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
