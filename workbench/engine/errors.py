"""Domain exceptions. Each one carries where the mistake is, for a person to fix it."""

from __future__ import annotations

import math

SHOWN = 80  # characters of an offending value an error message shows


def show(value: object, limit: int = SHOWN) -> str:
    """``value`` for an error message: one line, escaped (repr), at most ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int = 4 * SHOWN) -> str:
    """``text`` with control characters and lone surrogates escaped, cut at ``limit`` characters."""
    if not text.isprintable() or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        text = "".join(c if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


LAYOUT = chr(9) + chr(10) + chr(13)  # tab, line feed, carriage return


def text_problem(value: str, limit: int, free: bool = False) -> str | None:
    """What is wrong with a string from outside, or None: it must be valid Unicode, at most
    ``limit`` characters, and hold no control characters (``free`` text, a name or a
    description, may hold line breaks and tabs)."""
    if len(value) > limit:
        return f"{len(value):,} characters; the limit is {limit:,}"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return f"not valid Unicode (a lone surrogate): {show(value)}"
    layout = LAYOUT if free else ""
    if any((ord(c) < 32 or ord(c) == 127) and c not in layout for c in value):
        return f"control characters are not allowed: {show(value)}"
    return None


class WorkbenchError(Exception):
    """Base of every error the workbench reports to a user as one line."""

    def __init__(self, message: str = "") -> None:
        super().__init__(one_line(message, 8 * SHOWN))


class ValidationError(WorkbenchError):
    """An environment (file or edit) is malformed or inconsistent.

    ``path`` is the JSON path of the mistake, e.g. ``$.jobs[2].budget``.
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = one_line(path)
        self.message = one_line(message)
        super().__init__(f"{self.path}: {self.message}")


class ParameterError(WorkbenchError):
    """A strategy name or parameter is unknown or out of range."""

    def __init__(self, name: str, message: str) -> None:
        self.name = one_line(name, SHOWN)
        self.message = one_line(message)
        super().__init__(f"{self.name}: {self.message}")


class Cancelled(WorkbenchError):
    """A long run was stopped by its ``should_stop`` callback."""


# Cells of a DP table (float64) beyond which a run refuses to allocate it: 128 MiB.
DP_CELL_LIMIT = 1 << 24


class DPTooLarge(ParameterError):
    """A dynamic programme would need more memory than the cap; a coarser resolution fixes it."""


def check_dp_size(
    cells_per_unit: int, units: int, resolution: float, what: str, shape: str, at_least: bool = False
) -> None:
    """Raise ``DPTooLarge`` when a table of ``cells_per_unit * (units + 1)`` cells is over the cap.

    ``units`` scales as 1 / resolution, so the message names the coarsest resolution
    whose table fits (rounded up to two significant digits). With ``at_least``, ``units`` is a
    lower bound (the table is known to be too large before it is known whole): so is that resolution.
    """
    cells = cells_per_unit * (units + 1)
    if cells <= DP_CELL_LIMIT:
        return
    fits = max(DP_CELL_LIMIT // cells_per_unit - 1, 1)
    coarser = _round_up(resolution * units / fits)
    raise DPTooLarge(
        "resolution",
        f"{what} at resolution {resolution:g} needs a table of {'at least ' if at_least else ''}{_size(cells * 8)} "
        f"({shape} × {units + 1} units); "
        f"the limit is {_size(DP_CELL_LIMIT * 8)}: use resolution ≥ {coarser:.2g}",
    )


def _round_up(value: float) -> float:
    scale = 10.0 ** (math.floor(math.log10(value)) - 1)
    return math.ceil(value / scale * (1 - 1e-12)) * scale


def _size(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024:
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} TiB"
