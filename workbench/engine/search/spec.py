"""What a window search is asked and what it answers: the spec (criterion, lite or exact, cost
resolution, length factor, time quantum), the window found with its value, and cost units.

Costs and budgets are compared in whole units (docs/design.md: cost units = ceil(c_i T / res),
budget units = floor(C / res)), so the knapsack of the exact choice is over integers and
sums of prices never flip a comparison by rounding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from workbench.engine import units
from workbench.engine.criteria import Criterion, StartTime
from workbench.engine.model import Window
from workbench.engine.slots import Distances, SlotTable, window_distances


@dataclass(frozen=True)
class SearchSpec:
    """How to choose a window: the criterion, lite or exact, and the cost resolution."""

    criterion: Criterion
    exact: bool = False
    length_factor: float = 1.0  # BFshort reserves 0.99 * T
    resolution: float = 1.0
    quantum: float = 0.0  # > 0: window lengths rounded up to whole quanta of time


# FirstFit's search: the earliest window, lite (the feasibility test of the flows and EASY's choice).
FIRST_FIT = SearchSpec(StartTime())


@dataclass(frozen=True)
class Found:
    """A window with the criterion value it was chosen by, and the slots it was chosen from."""

    window: Window
    value: float
    table: SlotTable | None = field(default=None, compare=False, repr=False)

    def distances(self) -> Distances | None:
        """L_left and L_right of each part as the search saw them (None without the table)."""
        return None if self.table is None else window_distances(self.table, self.window)


# Cost and budget units saturate at UNITS_CAP: integers are exact up to 2^53, and sums of up to
# 2^10 * 100,000 of them still fit in int64. A window this dear counts as unaffordable.


def cost_units(price: np.ndarray, length: np.ndarray | float, res: float) -> np.ndarray:
    """docs/design.md: cost units = ceil(c_i * T / res - 1e-9) (``units.cost_units``), as int64."""
    return np.asarray(units.cost_units(np.asarray(price), length, res)).astype(np.int64)
