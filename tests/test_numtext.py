"""The one number format (``infra.numtext.number``): never "-0.0", in every text that
reads it (the report's tables, the answers' intervals, the populations' marks)."""

import math

import pandas as pd

from bonfire_sim.analysis.populations import _text
from bonfire_sim.infra.numtext import MISSING, number
from bonfire_sim.report.html import table_block


def test_a_negative_that_rounds_to_zero_reads_as_zero_in_any_format():
    assert number(-0.04) == "+0.0"
    assert number(-0.04, ".1f") == "0.0"
    assert number(-0.004, ".0%") == "0%"
    assert number(-0.04, "+.2f") == "-0.04"  # a visible digit keeps its sign
    assert number(-1.96) == "-2.0"
    assert number(math.nan) == number(None) == number("x") == MISSING


def test_report_tables_never_show_minus_zero():
    block = table_block(pd.DataFrame({"v": [-0.04, -0.4, 0.04]}), {"v": ("v", "+.1f")})
    assert [r["cells"][0] for r in block["rows"]] == ["+0.0", "-0.4", "+0.0"]


def test_population_marks_never_show_minus_zero():
    row = pd.Series({"value": -0.04, "lo": -0.9, "hi": 0.9, "flag": ""})
    assert _text(row, "points") == "0.0 (-0.9 to 0.9)"
