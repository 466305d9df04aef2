"""Domain exceptions. Each one carries where the mistake is, for a person to fix it."""

from __future__ import annotations

import math


class WorkbenchError(Exception):
    """Base of every error the workbench reports to a user as one line."""


class ValidationError(WorkbenchError):
    """An environment (file or edit) is malformed or inconsistent.

    ``path`` is the JSON path of the mistake, e.g. ``$.jobs[2].budget``.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class ParameterError(WorkbenchError):
    """A strategy name or parameter is unknown or out of range."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


class Cancelled(WorkbenchError):
    """A long run was stopped by its ``should_stop`` callback."""


# Cells of a DP table (float64) beyond which a run refuses to allocate it: 128 MiB.
DP_CELL_LIMIT = 1 << 24


class DPTooLarge(ParameterError):
    """A dynamic programme would need more memory than the cap; a coarser resolution fixes it."""


def check_dp_size(cells_per_unit: int, units: int, resolution: float, what: str, shape: str) -> None:
    """Raise ``DPTooLarge`` when a table of ``cells_per_unit * (units + 1)`` cells is over the cap.

    ``units`` scales as 1 / resolution, so the message names the coarsest resolution
    whose table fits (rounded up to two significant digits).
    """
    cells = cells_per_unit * (units + 1)
    if cells <= DP_CELL_LIMIT:
        return
    fits = max(DP_CELL_LIMIT // cells_per_unit - 1, 1)
    coarser = _round_up(resolution * units / fits)
    raise DPTooLarge(
        "resolution",
        f"{what} at resolution {resolution:g} needs a table of {_size(cells * 8)} ({shape} × {units + 1} units); "
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
