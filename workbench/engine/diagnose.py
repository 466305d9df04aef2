"""Why a job got no window: a sentence a person can act on."""

from __future__ import annotations

import math

from workbench.engine.criteria import Cost
from workbench.engine.model import EPS, Job
from workbench.engine.search import SearchSpec, find_window
from workbench.engine.slots import SlotTable


def _num(value: float) -> str:
    return f"{value:g}" if math.isfinite(value) else "∞"


def explain_failure(table: SlotTable, job: Job, earliest: float, resolution: float = 1.0) -> str:
    """The first reason, in this order: too few capable nodes, the budget, no common free time."""
    capable = int((table.perf >= job.min_performance - EPS).sum())
    if capable < job.node_count:
        return (
            f"needs {job.node_count} nodes of performance ≥ {_num(job.min_performance)}; the environment has {capable}"
        )
    if math.isfinite(job.budget):
        unlimited = Job(**{**job.__dict__, "budget": math.inf})
        cheapest = find_window(table, unlimited, SearchSpec(Cost(), exact=True, resolution=resolution), earliest)
        if cheapest is not None:
            return f"no window within budget {_num(job.budget)}; the cheapest costs {cheapest.window.cost:.6g}"
    top = float(table.perf.max())
    shortest = job.volume / top
    where = f"between {_num(earliest)} and {_num(table.iend)}"
    return (
        f"no {job.node_count} nodes of performance ≥ {_num(job.min_performance)} are free together "
        f"for {shortest:.4g} time units or more {where}"
    )
