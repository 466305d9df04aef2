"""A study's results summarised per cell: (strategy, factor values, measure) -> mean ± 95 % CI."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.lab.database import Row

# Student's t, 97.5 % quantile, for 1..30 degrees of freedom (beyond: the normal 1.96).
T975 = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13,
        2.12, 2.11, 2.10, 2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04]  # fmt: skip

Factors = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Cell:
    mean: float
    half_width: float  # of the 95 % confidence interval (NaN with one value: there is none)
    n: int


Table = Mapping[tuple[str, Factors, str], Cell]


def summarise(values: list[float]) -> Cell:
    a = np.array([v for v in values if math.isfinite(v)], dtype=float)
    if a.size == 0:
        return Cell(math.nan, math.nan, 0)
    if a.size == 1:
        return Cell(float(a[0]), math.nan, 1)
    t = T975[a.size - 2] if a.size - 1 <= len(T975) else 1.96
    return Cell(float(a.mean()), float(t * a.std(ddof=1) / math.sqrt(a.size)), int(a.size))


def factors_key(factors: Mapping[str, Any]) -> Factors:
    return tuple(sorted(factors.items()))


def cells(rows: list[Row]) -> dict[tuple[str, Factors, str], Cell]:
    """(strategy, factors, measure) -> summary over the seeds."""
    values: dict[tuple[str, Factors, str], list[float]] = defaultdict(list)
    for r in rows:
        if r.status != "ok":
            continue
        for measure, value in r.measures.items():
            values[(r.strategy, factors_key(r.factors), measure)].append(value)
    return {k: summarise(v) for k, v in values.items()}


def matches(where: Mapping[str, Any], factors: Factors) -> bool:
    got = dict(factors)
    return all(got.get(k) == v for k, v in where.items())


def number(x: float) -> str:
    if not math.isfinite(x):
        return "—"
    return f"{x:.3g}" if abs(x) < 10 else f"{x:,.1f}"


def with_interval(cell: Cell) -> str:
    """"mean ± half-width (n)", or "mean (1)" for a single run: no interval without repetitions."""
    spread = f" ± {number(cell.half_width)}" if cell.n > 1 else ""
    return f"{number(cell.mean)}{spread} ({cell.n})"
