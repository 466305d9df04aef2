"""Numbers as people read them, the same in every panel.

No scientific notation below 10^15, at most four decimals with trailing zeros dropped,
"∞" for an infinite budget. Editing shows the full value instead, so that leaving a
cell unchanged changes nothing.
"""

from __future__ import annotations

import math

DECIMALS = 4


def number(value: float | int, decimals: int = DECIMALS) -> str:
    """A number for display: 29820, 1285250, 38.2143, 0.6199, ∞."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if abs(value) >= 1e15:
        return f"{value:.6g}"
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def full(value: float | int) -> str:
    """A number for editing: every digit it has (the shortest text that reads back the same)."""
    if isinstance(value, float):
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    return str(value)
