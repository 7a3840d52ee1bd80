"""Measure the noise of the expert labels (docs/findings/2026-11-29-label-noise.md).

    python scripts/label_noise.py --positions 400 --jobs 2 --out runs/label-noise

Records the first ``--deals2`` two-player and ``--deals4`` four-player deals of round 1 of
``bonfire-sim expert --seed 1`` (``tuned`` as the policy, 8 samples, width 5: the
positions the shipped ``expert`` row was first fitted to), draws ``--positions`` of them
(seeded), and labels their candidates four more times with independent rollout seeds:
twice at 8 samples, twice at ``--big`` samples.  Prints ``studies.label_noise``'s figures
for each pair and for the 8-sample labels against the big ones, and writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bonfire_sim.infra import fileio
from bonfire_sim.studies.expert import ExpertConfig, Positions, record_positions, start_row
from bonfire_sim.studies.label_noise import noise_figures, relabel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals2", type=int, default=10)
    ap.add_argument("--deals4", type=int, default=4)
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--small", type=int, default=8)
    ap.add_argument("--big", type=int, default=48)
    ap.add_argument("--seed", type=int, default=1, help="seed of the recorded deals")
    ap.add_argument("--draw-seed", type=int, default=7, help="seed of the positions drawn")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("runs/label-noise"))
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    w = start_row("tuned")
    rec = a.out / "positions.npz"
    t0 = time.time()
    if rec.is_file():
        pos = Positions.load(rec)
    else:
        cfg = ExpertConfig(deals2=a.deals2, deals4=a.deals4, samples=8, width=5, seed=a.seed)
        pos = record_positions(w, cfg, 0, jobs=a.jobs)
        pos.save(rec)
    print(f"{len(pos)} positions recorded ({time.time() - t0:.0f}s)", flush=True)
    rng = np.random.default_rng(a.draw_seed)
    pick = np.sort(rng.choice(len(pos), size=min(a.positions, len(pos)), replace=False))
    sub = pos.subset(np.isin(np.arange(len(pos)), pick))
    labels = {}
    for name, samples, salt in (("a_small", a.small, 1001), ("b_small", a.small, 1002),
                                ("a_big", a.big, 2001), ("b_big", a.big, 2002)):
        t1 = time.time()
        labels[name] = relabel(sub, w, samples, salt, jobs=a.jobs)
        print(f"{name}: {samples} samples, {time.time() - t1:.0f}s", flush=True)
    with fileio.atomic_file(a.out / "labels.npz") as f:  # the one safe writer
        np.savez_compressed(f, **labels)
    big = 0.5 * (labels["a_big"] + labels["b_big"])  # the best reference: both pooled
    pairs = {
        f"{a.small} vs {a.small}": (labels["a_small"], labels["b_small"]),
        f"{a.big} vs {a.big}": (labels["a_big"], labels["b_big"]),
        f"{a.small} vs {2 * a.big} pooled": (labels["a_small"], big),
        f"stored {a.small} vs {2 * a.big} pooled": (
            np.where(np.isnan(labels["a_small"]), np.nan, sub.q), big),
    }
    doc = {"positions_recorded": len(pos), "positions": len(sub),
           "positions_2p": int((sub.players == 2).sum()), "args": vars(a) | {"out": str(a.out)}}
    for label, (x, y) in pairs.items():
        for players in (0, 2, 4):  # 0: all positions
            m = sub.players == players if players else np.ones(len(sub), bool)
            if not m.any():
                continue
            figs = noise_figures(x[m], y[m])
            key = label + (f", {players} players" if players else "")
            doc[key] = figs
            print(key + ": " + ", ".join(f"{k} {v:.3f}" for k, v in figs.items()), flush=True)
    fileio.write_text(a.out / "figures.json", json.dumps(doc, indent=1))
    print(f"total {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
