"""The one number format of every text the package writes (report, errata sheet, notes).

A value that rounds to zero reads as zero ("+0.0", "0.0", "0%"), never "-0.0": a
designer reads "-0.0" as a measured sign where there is none (the demo's R3 read "-0.0"
after its re-print; the example report's card and robustness tables did too).  Lowest
layer (``infra``), so the analysis' notes and the report's tables share it.
"""

from __future__ import annotations

import math
from typing import Any

MISSING = "–"  # what a table cell or note shows for no finite number


def number(v: Any, fmt: str = "+.1f") -> str:
    """``v`` formatted by ``fmt``, or ``MISSING`` where it is no finite number; a negative
    that rounds to zero is written as zero in the same format."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return MISSING
    if not math.isfinite(x):
        return MISSING
    text = format(x, fmt)
    # a negative that rounds to zero: no digit but 0 (whatever the format's %, commas)
    return format(0.0, fmt) if text.startswith("-") and not set(text) & set("123456789") \
        else text
