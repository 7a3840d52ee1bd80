"""docs/data-dictionary.md is generated from the table schemas and must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from bonfire_sim.sim.frames import SCHEMAS

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("data_dictionary",
                                                  ROOT / "scripts" / "data_dictionary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_data_dictionary_matches_the_schemas():
    text = (ROOT / "docs" / "data-dictionary.md").read_text(encoding="utf-8")
    assert text == _script().render(), "run: python scripts/data_dictionary.py"


def test_every_column_of_every_table_has_a_description():
    for name, schema in SCHEMAS.items():
        for f in schema:
            assert (f.metadata or {}).get(b"description"), f"{name}.{f.name}"
