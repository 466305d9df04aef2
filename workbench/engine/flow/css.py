"""The cyclic scheduling scheme, CSS (seed 000 §2.3, eqs. 1-9; docs/design.md "CSS").

First, alternatives: passes over the batch in queue order; in each pass every
job gets at most one new window by its own criterion (AEP) on the slots still
free, and those slots are held, so alternatives never intersect. Passes stop
when one adds nothing, or at ``max_alternatives`` per job. Windows are square
(docs/design.md) or, with ``shape="rough"``, rough-edged as in seed 000 §3 (each part
V / p_i long on its own node; ``engine/rough.py``).

Second, the combination: one alternative per job, chosen by the backward
recursion of eq. 2 for the VO's criterion:

=============  ==================================  =====================  =========
vo_criterion   objective                           constraint             equation
=============  ==================================  =====================  =========
``cpu_time``   min Σ n·T (total CPU time)          Σ cost ≤ b*            (7)
``cost``       min Σ cost                          Σ n·T ≤ t*             (8)
``profit``     max Σ cost (owners' profit)         Σ n·T ≤ t*             (6)
``idle``       max Σ n·T (least idleness)          Σ n·T ≤ t*             (9)
=============  ==================================  =====================  =========

CPU time is n·T for a square window and the sum of the parts for a rough one.
t* (or b*) is the sum over the jobs of the ceiling of the mean of their
alternatives' expenses (eq. 5). Expenses are discretised like window costs:
units = ceil(g / resolution - 1e-9), limit = floor(g* / resolution + 1e-9); the
DP is exact for that discretisation. A job with no alternative fails this cycle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.engine import criteria as cr
from workbench.engine import words
from workbench.engine.errors import ParameterError, check_dp_size
from workbench.engine.flow.cycles import Placer, PlaceRun
from workbench.engine.model import Job, Window
from workbench.engine.references import paper
from workbench.engine.rough import SHAPES, search_rough
from workbench.engine.search import SearchSpec, find_window
from workbench.engine.selectors import SearchSelector
from workbench.engine.simulate import Recorder
from workbench.engine.slots import SlotTable

VO_CRITERIA = ("cpu_time", "cost", "profit", "idle")
# For start, finish, runtime and cost the best subset of S_W is its n cheapest slots,
# which is what the lite choice takes; only proc_time (z = -V/p_i) needs the exact DP.
EXACT_AEP = frozenset({"proc_time"})

# AEP: each job's own criterion (seed 000 §6.1).
AEP = {
    "start": cr.StartTime,
    "finish": cr.FinishTime,
    "runtime": cr.RunTime,
    "cost": cr.Cost,
    "proc_time": cr.ProcTime,
}


@dataclass(frozen=True)
class CssSpec:
    """How CSS finds and combines alternatives: the VO's criterion, the most alternatives per job,
    the cost resolution and the windows' shape (checked when made)."""

    vo_criterion: str = "cpu_time"
    max_alternatives: int = 20
    resolution: float = 1.0
    shape: str = "square"
    by: SearchSelector | None = None  # the search that finds the alternatives; None: each job's own criterion

    def __post_init__(self) -> None:
        if self.vo_criterion not in VO_CRITERIA:
            raise ParameterError("vo_criterion", f"expected one of {', '.join(VO_CRITERIA)}, got {self.vo_criterion!r}")
        if self.max_alternatives < 1:
            raise ParameterError("max_alternatives", "must be at least 1 (an unbounded horizon offers endless ones)")
        if self.shape not in SHAPES:
            raise ParameterError("shape", f"expected one of {', '.join(SHAPES)}, got {self.shape!r}")
        if self.by is not None and self.shape == "rough":
            raise ParameterError("alternatives_by", "a selector finds square windows; with shape=rough use own")

    def find(self, table: SlotTable, job: Job, earliest: float) -> Window | None:
        """One window of ``job`` by its own criterion (AEP) in this spec's shape, or by ``by``'s search."""
        if self.by is not None:
            found = self.by.select(table, job, earliest)
        elif self.shape == "rough":
            found = search_rough(table, job, job.criterion, earliest, self.resolution)
        else:
            search = SearchSpec(AEP[job.criterion](), exact=job.criterion in EXACT_AEP, resolution=self.resolution)
            found = find_window(table, job, search, earliest)
        return None if found is None else found.window


def find_alternatives(
    rec: Recorder | None,
    jobs: Sequence[Job],
    table: SlotTable,
    cs: float,
    spec: CssSpec,
    first_pass: Callable[[list[Job]], None] | None = None,
) -> dict[str, list[Window]]:
    """Non-intersecting alternatives per job, by passes in queue order; ``first_pass`` is told which
    jobs have one once the first pass is over (those, at least, take part in the combination)."""
    alternatives: dict[str, list[Window]] = {job.id: [] for job in jobs}
    active = list(jobs)
    work = table
    while active:
        added = False
        for job in list(active):
            if rec is not None:
                rec.check_stop()
            if len(alternatives[job.id]) >= spec.max_alternatives:
                active.remove(job)
                continue
            window = spec.find(work, job, max(job.arrival, cs))
            if window is None:
                active.remove(job)  # slots only shrink: it will find none later either
                continue
            alternatives[job.id].append(window)
            work = work.reserve([window])
            added = True
        if first_pass is not None:
            first_pass([job for job in jobs if alternatives[job.id]])
            first_pass = None
        if not added:
            break
    return alternatives


def least_expenses(jobs: Sequence[Job], what: str, table: SlotTable) -> list[float]:
    """No window of each job expends less of ``what`` ("cpu" or "cost"): n parts of V at the fastest
    node's speed, on the n cheapest nodes (a hair under, for rounding)."""
    if table.perf.size == 0:
        return [0.0] * len(jobs)
    fastest = float(table.perf.max())
    cheapest = np.concatenate(([0.0], np.cumsum(np.sort(table.price))))  # the n cheapest prices, summed
    least = []
    for job in jobs:
        n = job.node_count
        if n < 1 or n > table.perf.size:
            least.append(0.0)
            continue
        part = job.volume / fastest
        least.append((n if what == "cpu" else float(cheapest[n])) * part * (1 - 1e-9))
    return least


def check_combination_size(jobs: Sequence[Job], what: str, table: SlotTable, resolution: float) -> None:
    """``DPTooLarge`` when the combination of these jobs' alternatives needs too large a table
    whatever alternatives they find: its units are at least their least expenses' (eq. 5's limit,
    the mean of each job's alternatives rounded up, and the sum of the dearest, are no less)."""
    least = least_expenses(jobs, what, table)
    limit = sum(math.ceil(x - 1e-9) for x in least)
    units = min(math.floor(limit / resolution + 1e-9), sum(math.ceil(x / resolution - 1e-9) for x in least))
    check_dp_size(len(jobs) + 1, units, resolution, "the combination", f"{len(jobs)} jobs", at_least=True)


@dataclass(frozen=True)
class Problem:
    """One VO problem: what is optimised, in which direction, and what is limited."""

    value: str  # "cpu" or "cost"
    maximise: bool
    expense: str  # "cpu" or "cost"


PROBLEMS = {
    "cpu_time": Problem("cpu", False, "cost"),
    "cost": Problem("cost", False, "cpu"),
    "profit": Problem("cost", True, "cpu"),
    "idle": Problem("cpu", True, "cpu"),
}


def measure(window: Window, what: str) -> float:
    return window.cpu_time if what == "cpu" else window.cost


def eq5_limit(expenses: Sequence[Sequence[float]]) -> float:
    """Seed 000 eq. 5: the sum over jobs of the ceiling of the mean expense of their alternatives."""
    return float(sum(math.ceil(sum(g) / len(g) - 1e-9) for g in expenses if g))


def choose_combination(
    values: Sequence[Sequence[float]],
    expenses: Sequence[Sequence[float]],
    limit: float,
    maximise: bool,
    resolution: float = 1.0,
) -> list[int] | None:
    """One alternative per job by the backward recursion of seed 000 eqs. 2-4.

    f_i(g) = extr_j { value_ij + f_{i+1}(g - units_ij) },  f_{n+1} = 0, over g in
    [0, limit units]. Returns the chosen index per job (ties: the earlier
    alternative), or None when no combination fits the limit.
    """
    m = len(values)
    cap = math.floor(limit / resolution + 1e-9)
    if cap < 0:
        return None
    sign = 1.0 if maximise else -1.0
    units = [[math.ceil(g / resolution - 1e-9) for g in row] for row in expenses]
    # A limit beyond the dearest combination binds nothing: the table stops there.
    cap = min(cap, sum(max(row, default=0) for row in units))
    check_dp_size(m + 1, cap, resolution, "the combination", f"{m} jobs")
    F = np.full((m + 1, cap + 1), -np.inf)
    F[m] = 0.0
    for i in range(m - 1, -1, -1):
        row = F[i]
        for j, u in enumerate(units[i]):
            if u > cap:
                continue
            cand = sign * values[i][j] + F[i + 1, : cap + 1 - u]
            np.maximum(row[u:], cand, out=row[u:])
    if not np.isfinite(F[0, cap]):
        return None
    chosen = []
    g = cap
    for i in range(m):
        target = F[i, g]
        for j, u in enumerate(units[i]):
            if u <= g and sign * values[i][j] + F[i + 1, g - u] == target:
                chosen.append(j)
                g -= u
                break
        else:  # pragma: no cover - the forward pass guarantees a choice
            raise AssertionError("combination backtracking lost its path")
    return chosen


def css_plan(
    rec: Recorder | None, jobs: Sequence[Job], table: SlotTable, cs: float, spec: CssSpec
) -> tuple[dict[str, Window], dict[str, int]]:
    """CSS on one (sub-)batch: the chosen window per job, and the number of alternatives per job."""
    problem = PROBLEMS[spec.vo_criterion]

    def early(found: list[Job]) -> None:  # before the other passes: a saturated batch took 23 s to fail
        check_combination_size(found, problem.expense, table, spec.resolution)

    alternatives = find_alternatives(rec, jobs, table, cs, spec, early)
    counts = {job_id: len(alts) for job_id, alts in alternatives.items()}
    with_alts = [job for job in jobs if alternatives[job.id]]
    if not with_alts:
        return {}, counts
    values = [[measure(w, problem.value) for w in alternatives[j.id]] for j in with_alts]
    expenses = [[measure(w, problem.expense) for w in alternatives[j.id]] for j in with_alts]
    limit = eq5_limit(expenses)
    chosen = choose_combination(values, expenses, limit, problem.maximise, spec.resolution)
    if chosen is None:
        # The discretisation can make eq. 5 too tight; the cheapest alternatives always fit it.
        chosen = [int(np.argmin(row)) for row in expenses]
    plan = {job.id: alternatives[job.id][j] for job, j in zip(with_alts, chosen, strict=True)}
    watch = rec.watch if rec is not None else None
    if watch is not None and alternatives.get(watch.job):
        watch.alternatives = list(alternatives[watch.job])
        watch.alternative_values = [measure(w, problem.value) for w in watch.alternatives]
        goal = "maximise" if problem.maximise else "minimise"
        what = {"cpu": "CPU time (n × length)", "cost": "cost"}
        watch.combination = (
            f"{goal} the total {what[problem.value]} with the total {what[problem.expense]} "
            f"at most {words.number(limit)} (the mean expense of each job's alternatives, rounded up and summed: "
            f"{paper('000')}, eq. 5); the value column is this job's {what[problem.value]}"
        )
    return plan, counts


def slices_of(jobs: Sequence[Job], k: int) -> list[list[Job]]:
    """Split ``jobs`` in order into k nearly equal sub-batches (the first ones one longer)."""
    # More slices than jobs leave empty ones, which are dropped: never split finer than one job each.
    parts = np.array_split(np.arange(len(jobs)), max(1, min(k, len(jobs))))
    return [[jobs[i] for i in part] for part in parts if part.size]


def slicer_placer(spec: CssSpec, slices: int) -> Placer:
    """Batch-slicer(k): CSS on k sub-batches in turn (k = 1 is plain CSS). Plans never move."""

    def place(rec: Recorder, jobs: list[Job], table: SlotTable, cs: float, ce: float) -> PlaceRun:
        placed = slice_and_place(rec, jobs, table, cs, spec, slices)
        where = f"cycle {rec.cycle}: " if rec.cycle is not None else ""
        name = "CSS" if slices == 1 else f"batch-slicer({slices})"
        found = sum(rec.alternatives.get(j.id, 0) for j in jobs)
        yield rec.snap(cs, f"{where}{name}: {found} alternatives for {len(jobs)} jobs; placed {len(placed)}")

    return place


def slice_and_place(
    rec: Recorder, jobs: Sequence[Job], table: SlotTable, cs: float, spec: CssSpec, slices: int
) -> list[Window]:
    placed: list[Window] = []
    current = table
    parts = slices_of(jobs, slices)
    for k, part in enumerate(parts):
        if len(parts) > 1:
            for job in part:
                rec.groups[job.id] = f"slice {k + 1} of {len(parts)}"
        plan, counts = css_plan(rec, part, current, cs, spec)
        for job_id, count in counts.items():
            rec.count_alternatives(job_id, count)
        for job in part:
            if job.id in plan:
                rec.place(plan[job.id])
                placed.append(plan[job.id])
        current = current.reserve(plan.values())
    return placed
