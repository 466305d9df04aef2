"""The cycle driver (docs/design.md "Cycles"): queue, batch, placement, return to the queue.

Cycle k covers [start + k·L, start + (k+1)·L], cut at the horizon; with no
cycle length there is one cycle over the whole horizon. In each cycle the
queue is the jobs that have arrived before the cycle ends and are not yet
placed (a window never starts before its job's arrival), batch formation picks
the batch, a *placer* puts it inside the cycle interval, and what it could not
place goes back to the queue. Windows never leave their cycle, so jobs of one
cycle are done before the next begins.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator

import numpy as np

from workbench.engine.diagnose import explain_failure
from workbench.engine.flow.batching import AllJobs, BatchFormer
from workbench.engine.model import EPS, Environment, Job, in_queue_order
from workbench.engine.search import FIRST_FIT, find_window
from workbench.engine.simulate import FlowRun, Recorder, Snapshot
from workbench.engine.slots import SlotTable

PlaceRun = Generator[Snapshot | None, None, None]
Placer = Callable[[Recorder, list[Job], SlotTable, float, float], PlaceRun]

DEFAULT_MAX_CYCLES = 200


def capable(env: Environment, job: Job) -> bool:
    """Enough nodes of the job's performance exist at all."""
    perf = env.performance_descending
    if job.node_count <= 0:
        return True
    return job.node_count <= len(perf) and perf[job.node_count - 1] >= job.min_performance - EPS


def capable_jobs(env: Environment, width: np.ndarray, least: np.ndarray) -> np.ndarray:
    """``capable`` for every job at once: jobs of ``width`` nodes of performance ``least`` or more."""
    fast = np.array(env.performance_descending)
    nth = fast[np.clip(width.astype(np.int64), 1, max(fast.size, 1)) - 1] if fast.size else np.zeros(width.size)
    return (width <= 0) | ((width <= fast.size) & (nth >= least - EPS))


def run_cycles(
    env: Environment,
    rec: Recorder,
    place: Placer,
    batching: BatchFormer | None = None,
    max_cycles: int = DEFAULT_MAX_CYCLES,
) -> FlowRun:
    """Yield a snapshot at the start, then whatever the placer yields in each cycle."""
    batching = batching or AllJobs()
    t = env.time
    single = t.cycle_length is None
    length = t.cycle_length if t.cycle_length is not None else math.inf
    pending = list(env.queue())
    for job in [j for j in pending if not capable(env, j)]:
        pending.remove(job)
        rec.fail(job.id, explain_failure(SlotTable.from_environment(env), job, max(job.arrival, t.start)))
    waiting: list[Job] = []
    last_task_end = max((task.end for task in env.local_tasks), default=t.start)
    first_end = t.end if single else t.start + length
    rec.queue = tuple(j.id for j in pending if j.arrival < first_end - EPS)
    yield rec.snap(t.start, f"start: {len(env.jobs)} jobs, {len(env.nodes)} nodes")
    k = 0
    cs = ce = t.start
    while True:
        cs = t.start if single else t.start + k * length
        if cs >= t.end - EPS:
            break
        ce = t.end if single else min(cs + length, t.end)
        arrived = pending if single else [j for j in pending if j.arrival < ce - EPS]
        pending = [] if single else [j for j in pending if j.arrival >= ce - EPS]
        waiting = in_queue_order(env, waiting + arrived)
        if not waiting:
            if not pending:
                break
            # Nothing to do until the next arrival: jump to the cycle it arrives in.
            first = min(j.arrival for j in pending)
            k = max(k + 1, math.floor((first - t.start) / length + EPS))
            continue
        table = SlotTable.from_environment(env, istart=cs, iend=ce)
        batch = batching.form(waiting, table, env, k)
        rec.cycle = None if single else k
        rec.queue = tuple(j.id for j in waiting)
        rec.batch = tuple(j.id for j in batch)
        placed_before = len(rec.windows)
        yield from place(rec, batch, table, cs, ce)
        placed_now = len(rec.windows) - placed_before
        if not single:  # the placer reports within a single cycle; across cycles, jobs decided
            rec.report(len(rec.windows) + len(rec.failed), len(env.jobs))
        waiting = [j for j in waiting if j.id not in rec.windows]
        rec.queue = tuple(j.id for j in waiting)
        rec.batch = ()
        k += 1
        if single or k >= max_cycles:
            break
        if t.horizon is None and not pending and placed_now == 0 and cs >= last_task_end:
            break  # nothing left will ever change: the same empty cycle would repeat forever
    end = t.end if math.isfinite(t.end) else ce
    for job in waiting + pending:
        rec.fail(job.id, _left_out_reason(env, rec, job, k >= max_cycles and not single, max_cycles))
    rec.queue = ()
    placed = len(rec.windows)
    yield rec.snap(end, f"end: {placed} placed, {len(env.jobs) - placed} failed")


def _left_out_reason(env: Environment, rec: Recorder, job: Job, out_of_cycles: bool, max_cycles: int) -> str:
    """Why a job is still waiting when the run ends."""
    t = env.time
    earliest = max(job.arrival, t.start)
    table = SlotTable.from_environment(env, rec.windows.values(), istart=earliest, iend=t.end)
    if find_window(table, job, FIRST_FIT, earliest) is None:
        return explain_failure(table, job, earliest)
    if out_of_cycles:
        return f"still waiting after {max_cycles} cycles (the max_cycles limit)"
    shortest = job.volume / max(n.performance for n in env.nodes)
    if t.cycle_length is not None and shortest > t.cycle_length + EPS:
        return f"needs at least {shortest:.4g} time units; a cycle is only {t.cycle_length:g} long"
    inside = _window_inside_a_cycle(env, rec, job, earliest)
    if inside is not None:
        return (
            f"the strategy took no window, though one fits inside a cycle (FirstFit's, from {inside:.6g}): "
            "its own choice rule turned them down"
        )
    return "no window inside any cycle before the horizon (the slots it could use lie across cycle boundaries)"


CYCLES_LOOKED_AT = 1000  # beyond, a left-out job gets the general reason


def _window_inside_a_cycle(env: Environment, rec: Recorder, job: Job, earliest: float) -> float | None:
    """The start of FirstFit's window for ``job`` inside the first cycle that holds one, or None."""
    t = env.time
    if t.cycle_length is None or not math.isfinite(t.end):
        return None
    first = max(0, int((earliest - t.start) // t.cycle_length))
    last = min(math.ceil((t.end - t.start) / t.cycle_length), first + CYCLES_LOOKED_AT)
    for k in range(first, last):
        cs = t.start + k * t.cycle_length
        ce = min(cs + t.cycle_length, t.end)
        lo = max(cs, earliest)
        table = SlotTable.from_environment(env, rec.windows.values(), istart=lo, iend=ce)
        found = find_window(table, job, FIRST_FIT, lo)
        if found is not None:
            return found.window.start
    return None
