"""Numbers as people read them, the same in every panel, axis and exported figure.

``number`` (from ``workbench.engine.numbers``, so that the engine's sentences read the same):
plain digits (no scientific notation, no SI prefix, no thousands separators), at most four
decimals with trailing zeros dropped, "∞" for an infinite budget. Editing shows the full
value instead (``full``), so that leaving a cell unchanged changes nothing.

Times follow View ▸ Time unit, which offers the units the document's time can be read in
(``units_for``): ``time`` gives a time in the chosen unit with the unit's short name; axes, whose
label names the unit, take ``tick_strings``.
"""

from __future__ import annotations

import math

from workbench.engine.numbers import DECIMALS as DECIMALS
from workbench.engine.numbers import full as full
from workbench.engine.numbers import number as number

TICK_DECIMALS = 9  # a deep zoom (a second, in hours) needs more than DECIMALS to tell ticks apart


def tick_strings(values: list[float], spacing: float) -> list[str]:
    """The labels of axis ticks ``spacing`` apart: as many decimals as the spacing needs (DECIMALS
    suffice down to 0.0001 apart), so that neighbouring ticks never read the same and never carry an
    exponent."""
    places = max(0, math.ceil(-math.log10(spacing) - 1e-9)) if spacing > 0 and math.isfinite(spacing) else 0
    return [number(float(v), min(places, TICK_DECIMALS)) for v in values]


# View ▸ Time unit: (label, units of the document's time per displayed unit, short name). A document
# says what its time is (``env.time.unit``): abstract model units, shown as they are, or seconds (a
# trace, a workload model), shown in seconds, minutes, hours or days.
TIME_UNITS = {
    "model": ("model units", 1.0, ""),
    "seconds": ("seconds", 1.0, "s"),
    "minutes": ("minutes", 60.0, "min"),
    "hours": ("hours", 3600.0, "h"),
    "days": ("days", 86400.0, "d"),
}


def units_for(base: str) -> tuple[str, ...]:
    """The display units a document whose time is in ``base`` ("model" or "seconds") can be read in."""
    return ("seconds", "minutes", "hours", "days") if base == "seconds" else ("model",)


def default_unit(base: str, span: float = 0.0) -> str:
    """The unit a document opens in: model units as they are; seconds in the largest unit of which
    the run spans at least two (a year of a trace in days, not 30,000,000 s)."""
    if base != "seconds":
        return "model"
    for unit in ("days", "hours", "minutes"):
        if span >= 2 * TIME_UNITS[unit][1]:
            return unit
    return "seconds"


def time_label(unit: str) -> str:
    """An axis label naming the unit."""
    return f"time ({TIME_UNITS[unit][0]})"


def unit_menu_text(unit: str) -> str:
    return TIME_UNITS[unit][0].capitalize()


def in_unit(t: float, unit: str) -> float:
    return t / TIME_UNITS[unit][1]


def unit_suffix(unit: str) -> str:
    """The short name of a unit for a column header, e.g. " (h)"; nothing for model units."""
    short = TIME_UNITS[unit][2]
    return f" ({short})" if short else ""


def time(t: float, unit: str = "model") -> str:
    """A time (or a duration) in ``unit`` with the unit's short name: 12.5 h; model units bare."""
    text = number(in_unit(t, unit) if isinstance(t, int | float) and not isinstance(t, bool) else t)
    short = TIME_UNITS[unit][2]
    return f"{text} {short}" if short and text not in ("—", "") else text


def duration_ms(ms: float) -> str:
    """How long a run took: 33.3 ms, 79.6 s, 2 min 5 s (never "79553.1 ms")."""
    if ms < 1000:
        return f"{ms:.1f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(round(ms / 1000), 60)
    return f"{minutes} min {seconds} s"


MEAN_DIGITS = 6  # significant digits of a mean: its last decimals of a 15,209,985 s mean are noise


def mean_time(t: float, unit: str = "model") -> str:
    """A mean time in ``unit``: ``time``'s form, to MEAN_DIGITS significant digits (15209985 s, not
    15209985.4307; 129.086, not 129.0861), never more than DECIMALS decimals."""
    value = in_unit(t, unit)
    if not isinstance(value, float) or not math.isfinite(value) or value == 0:
        return time(t, unit)
    places = min(DECIMALS, max(0, MEAN_DIGITS - 1 - math.floor(math.log10(abs(value)))))
    short = TIME_UNITS[unit][2]
    return number(value, places) + (f" {short}" if short else "")


def step_label(label: str, t: float, unit: str) -> str:
    """A simulation step's label ("t=7200: j3 arrived; …", written by the engine in model units) with its
    leading time in ``unit``."""
    head, sep, rest = label.partition(": ")
    if unit == "model" or not sep or not head.startswith("t="):
        return label
    return f"t={time(t, unit)}: {rest}"
