"""Cost and budget units: the one statement of docs/design.md "Cost units", for numpy and for the
compiled kernels alike.

A window's cost on a node is ceil(c_i × T / res − 1e-9) units and a budget C holds
floor(C / res + 1e-9), both capped so that a saturated cost never fits any budget. ``cost_units``
is jitable: the kernels compile it in on scalars, Python calls it on arrays, and both read these
lines.
"""

from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable

UNITS_CAP = 2**43  # a cost this dear never fits a budget (budgets are capped one below)
ROUNDING = 1e-9  # a product within this of a whole unit is that unit


@register_jitable
def cost_units(price, length, res):  # type: ignore[no-untyped-def]
    """ceil(price × length / res − 1e-9), at most ``UNITS_CAP``: a float, or an array of floats
    (callers that keep integers convert)."""
    return np.minimum(np.ceil(price * length / res - ROUNDING), UNITS_CAP)


def budget_units(budget: float, res: float) -> int | None:
    """floor(budget / res + 1e-9), at most ``UNITS_CAP`` - 1; None for an infinite budget."""
    if math.isinf(budget):
        return None
    return min(math.floor(budget / res + ROUNDING), UNITS_CAP - 1)


def budget_units_of(budget: np.ndarray, res: float) -> np.ndarray:
    """``budget_units`` of every budget at once; -1 for an infinite one."""
    finite = np.minimum(np.floor(budget / res + ROUNDING), UNITS_CAP - 1)
    return np.where(np.isinf(budget), -1, finite).astype(np.int64)
