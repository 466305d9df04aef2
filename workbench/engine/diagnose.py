"""Why a job got no window: a sentence a person can act on."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.criteria import Cost
from workbench.engine.model import EPS, Job
from workbench.engine.numbers import number
from workbench.engine.search import SearchSpec, find_window
from workbench.engine.slots import SlotTable


def _num(value: float) -> str:
    return number(float(value))


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
            return f"no window within budget {_num(job.budget)}; the cheapest costs {_num(cheapest.window.cost)}"
    where = f"between {_num(earliest)} and {_num(table.iend)}"
    closest = closest_level(table, job, earliest)
    if closest is None:  # never free together, or too large a table to say more cheaply
        return f"no window for {job.node_count} nodes of performance ≥ {_num(job.min_performance)} fits {where}"
    P, T, longest, at = closest
    if longest >= T - EPS:  # long enough together, so something else (the interval's end) stands in the way
        return f"no window for {job.node_count} nodes of performance ≥ {_num(job.min_performance)} fits {where}"
    return (
        f"a window on nodes of performance ≥ {_num(P)} (one of them exactly {_num(P)}) needs {_num(T)} time units "
        f"(V / {_num(P)}), but {job.node_count} such nodes are free together for at most {_num(longest)} "
        f"(from {_num(at)}) {where}"
    )


DETAIL_CELLS = 2_000_000  # (times x nodes) beyond which a failure gets the short reason


def closest_level(table: SlotTable, job: Job, earliest: float) -> tuple[float, float, float, float] | None:
    """The level that comes closest to holding a window, from the search's own candidate space.

    For each performance level P >= p (T = V / P, docs/design.md "Window length"), the longest time
    n nodes of performance >= P, one of them exactly P, are free together from a slot start;
    returns (P, T, that time, where it starts) for the level whose time is the largest share of
    its T, or None when n such nodes are never free at once (or the table is too large to say).
    """
    n, perf = job.node_count, table.perf
    starts = np.maximum(table.start, earliest)
    usable = table.end - starts > EPS
    times = np.unique(starts[usable])
    if times.size == 0 or times.size * perf.size > DETAIL_CELLS:
        return None
    # run[k, x]: how long node x stays free from times[k] (0 where it is busy then).
    node, s, e = table.node[usable], starts[usable], table.end[usable]
    lo = np.searchsorted(times, s - EPS, "left")
    hi = np.searchsorted(times, e - EPS, "left")
    counts = hi - lo
    which = np.repeat(np.arange(counts.size), counts)
    rows = lo[which] + np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    run = np.zeros((times.size, perf.size))
    run[rows, node[which]] = e[which] - times[rows]
    best: tuple[float, float, float, float] | None = None
    for P in np.unique(perf[perf >= job.min_performance - EPS]):
        eligible = perf >= P
        if int(eligible.sum()) < n:
            continue
        ranked = -np.sort(-run[:, eligible], axis=1)  # each row, longest first
        nth = ranked[:, n - 1]
        exact = run[:, perf == P].max(axis=1)
        # The best subset holding a node of exactly P: the n longest if one of them is such a node,
        # else the n - 1 longest others and the longest such node.
        others = ranked[:, n - 2] if n >= 2 else np.full(times.size, np.inf)
        together = np.where(exact >= nth, nth, np.minimum(exact, others))
        k = int(np.argmax(together))
        T = job.volume / float(P)
        if together[k] <= EPS:
            continue
        if best is None or together[k] / T > best[2] / best[1]:
            best = (float(P), T, float(together[k]), float(times[k]))
    return best
