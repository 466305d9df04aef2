"""Numbers as people read them: the one formatter of every number the workbench writes for a person.

Plain digits (no scientific notation, no SI prefix, no thousands separators), at most four
decimals with trailing zeros dropped, "∞" for an infinite budget. The engine's sentences
(Why here?, failure reasons, step labels) and every GUI panel, axis and exported figure use
it (``workbench.gui.numbers`` adds the GUI's time units), so a time reads the same everywhere.
"""

from __future__ import annotations

import math

DECIMALS = 4


def number(value: float | int, decimals: int = DECIMALS) -> str:
    """A number for display: 29820, 1285250, 38.2143, 0.6199, ∞ (never an exponent)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    decimals = max(0, decimals)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def signed(value: float) -> str:
    """A difference: +12.5, -3, or "same" within 1e-9."""
    if abs(value) <= 1e-9:
        return "same"
    text = number(value)
    return text if text.startswith("-") else f"+{text}"


def full(value: float | int) -> str:
    """A number for editing: every digit it has (the shortest text that reads back the same)."""
    if isinstance(value, float):
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    return str(value)
