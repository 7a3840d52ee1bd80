"""Copy the shipped weight rows of the tuned styles into the top-level ``strategies/``
folder, where users keep their own players.

``bonfire_sim/strategies/rows/<style>.toml`` stays the source (the installed package
reads it); ``strategies/weights/<style>.toml`` is an editable copy with a header that says
how to play it.  ``--check`` exits 1 when a copy is missing or stale (``tests/
test_user_strategies.py`` runs the same comparison).

    python scripts/sync_strategies.py          # rewrite the copies
    python scripts/sync_strategies.py --check  # are they in sync?
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "bonfire_sim" / "strategies" / "rows"
COPIES = ROOT / "strategies" / "weights"


def header(style: str) -> str:
    """The lines put above a copied row: where it comes from and how to play an edit."""
    return (f"# An editable copy of bonfire_sim/strategies/rows/{style}.toml (made by\n"
            f"# scripts/sync_strategies.py; edit the copy, not the package's row).  Play it:\n"
            f"#   bonfire-sim run --players 2 --strategies "
            f"{style}@strategies/weights/{style}.toml,steady\n"
            f"# A weight left out keeps {style}'s value; the names: docs/reference/weights.md.\n"
            f"#\n")


def expected() -> dict[Path, str]:
    """{copy path: its text} for every shipped row."""
    return {COPIES / src.name: header(src.stem) + src.read_text(encoding="utf-8")
            for src in sorted(SOURCE.glob("*.toml"))}


def stale() -> list[Path]:
    """Copies that are missing, differ from their source, or have no source any more."""
    want = expected()
    out = [p for p, text in want.items()
           if not p.is_file() or p.read_text(encoding="utf-8") != text]
    out += [p for p in sorted(COPIES.glob("*.toml")) if p not in want]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only report stale copies")
    args = ap.parse_args()
    if args.check:
        bad = stale()
        for p in bad:
            print(f"stale: {p.relative_to(ROOT)}")
        return 1 if bad else 0
    COPIES.mkdir(parents=True, exist_ok=True)
    for path, text in expected().items():
        path.write_text(text, encoding="utf-8")
    for path in stale():  # copies whose source was removed
        path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
