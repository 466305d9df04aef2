"""BSF, batch-slice-filling (seed 000 §4; docs/design.md "BSF").

In each cycle a high-priority sub-batch is chosen by a rule (``order``: the
first jobs; ``cost``: the largest budgets; ``size``: the largest n·V), of size
``n_high`` or ``high_fraction`` of the batch. It is scheduled with batch-slicer
on the known slots, and keeps its plan. The rest is backfilled with a selector
on the slots left, and reacts to early completions (of any job in the cycle).
With no high-priority job BSF is backfilling; with all of them it is batch-slicer.
"""

from __future__ import annotations

import math

from workbench.engine.errors import ParameterError
from workbench.engine.flow.backfill import backfill_placer
from workbench.engine.flow.css import CssSpec, slice_and_place
from workbench.engine.flow.cycles import Placer, PlaceRun
from workbench.engine.model import Job
from workbench.engine.selectors import Selector
from workbench.engine.simulate import Recorder
from workbench.engine.slots import SlotTable

RULES = ("order", "cost", "size", "performance")


def high_priority(jobs: list[Job], rule: str, count: int) -> list[Job]:
    """The ``count`` high-priority jobs by ``rule``, in the order the slicer takes them."""
    if rule == "order":
        ranked = list(jobs)
    elif rule == "cost":
        ranked = sorted(jobs, key=lambda j: -j.budget)  # stable: queue order breaks ties
    elif rule == "performance":
        # Seed 000 §4: "the most critical in terms of required resource (by performance)".
        ranked = sorted(jobs, key=lambda j: -j.min_performance)
    else:
        ranked = sorted(jobs, key=lambda j: -(j.node_count * j.volume))
    return ranked[:count]


def check_bsf_params(rule: str, n_high: int, high_fraction: float, slices: int, jobs: int) -> None:
    if rule not in RULES:
        raise ParameterError("rule", f"expected one of {', '.join(RULES)}, got {rule!r}")
    if n_high < -1:
        raise ParameterError("n_high", "must be -1 (use high_fraction) or a count >= 0")
    if n_high > jobs:
        raise ParameterError("n_high", f"is {n_high}, larger than the batch ({jobs} jobs)")
    if not 0.0 <= high_fraction <= 1.0:
        raise ParameterError("high_fraction", f"must be in [0, 1], got {high_fraction:g}")
    if slices < 1:
        raise ParameterError("slices", f"must be at least 1, got {slices}")


def bsf_placer(
    selector: Selector,
    rule: str,
    n_high: int,
    high_fraction: float,
    slices: int,
    spec: CssSpec,
    dynamic: bool = True,
    replan: str = "search",
) -> Placer:
    def place(rec: Recorder, jobs: list[Job], table: SlotTable, cs: float, ce: float) -> PlaceRun:
        count = n_high if n_high >= 0 else math.floor(high_fraction * len(jobs) + 0.5)
        high = high_priority(jobs, rule, min(count, len(jobs)))
        high_ids = {j.id for j in high}
        sliced = slice_and_place(rec, high, table, cs, spec, slices)
        rest = [j for j in jobs if j.id not in high_ids]
        for job in high:
            rec.groups.setdefault(job.id, "high-priority slice")
        for job in rest:
            rec.groups[job.id] = "backfilled"
        where = f"cycle {rec.cycle}: " if rec.cycle is not None else ""
        yield rec.snap(cs, f"{where}BSF sliced {len(sliced)} of {len(high)} high-priority jobs")
        yield from backfill_placer(selector, dynamic, sliced, replan)(rec, rest, table, cs, ce)

    return place
