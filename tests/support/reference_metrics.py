"""The measures as plain Python, one window at a time: the reference the array code in
``engine/metrics.py`` is held to (tests/engine/test_columnar.py). This is the code the array
measures replaced, kept as it was."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from workbench.engine.metrics import (
    BOUNDED_SLOWDOWN_THRESHOLD,
    FlowMetrics,
    JobMetrics,
    check_threshold,
    multi_site_count,
    own_work,
)
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.engine.slots import SlotTable


def job_metrics(
    env: Environment, schedule: Schedule, threshold: float = BOUNDED_SLOWDOWN_THRESHOLD
) -> list[JobMetrics]:
    """Each placed job's measures (docs/metrics.md); ``threshold`` is the bounded slowdown's τ."""
    check_threshold(threshold)
    out = []
    for w in schedule.windows:
        job = env.job(w.job)
        actual = schedule.actual_end(env, w)
        run = actual - w.start
        wait = w.start - job.arrival
        out.append(
            JobMetrics(
                job=w.job,
                start=w.start,
                finish=w.end,
                actual_finish=actual,
                wait=wait,
                runtime=w.length,
                cost=w.cost,
                cpu_time=w.cpu_time,
                slowdown=(wait + run) / run if run > 0 else math.inf,
                response=wait + run,
                bounded_slowdown=max(1.0, (wait + run) / max(run, threshold)) if max(run, threshold) > 0 else math.inf,
            )
        )
    return out


def flow_metrics(
    env: Environment,
    schedule: Schedule,
    threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
    per_job: list[JobMetrics] | None = None,
) -> FlowMetrics:
    """The flow's measures, each as ``DEFINITIONS`` states it; ``threshold`` is the bounded slowdown's τ;
    ``per_job``: ``job_metrics(env, schedule, threshold)`` when the caller has it already."""
    if per_job is None:
        per_job = job_metrics(env, schedule, threshold)
    starts = np.array([m.start for m in per_job])
    finishes = np.array([m.actual_finish for m in per_job])
    weights = np.array([own_work(env, schedule, w) for w in schedule.windows])
    arrivals = np.array([env.job(m.job).arrival for m in per_job])
    t0 = env.time.start
    end = env.time.horizon if env.time.horizon is not None else (finishes.max() if per_job else t0)
    offered = 0.0
    offered_on: np.ndarray = np.zeros(len(env.nodes))
    if end > t0:
        table = SlotTable.from_environment(env, istart=t0, iend=end)
        offered_on = np.bincount(table.node, weights=table.end - table.start, minlength=len(env.nodes))
        offered = float(offered_on.sum())
    used = sum(len(w.nodes) * (schedule.actual_end(env, w) - w.start) for w in schedule.windows)
    profit: dict[str, float] = {node.id: 0.0 for node in env.nodes}
    busy: dict[str, float] = {node.id: 0.0 for node in env.nodes}
    really: dict[str, float] = {node.id: 0.0 for node in env.nodes}  # time used, in [t0, end]
    prices = {node.id: node.price for node in env.nodes}
    for w in schedule.windows:
        actual = schedule.actual_end(env, w)
        for node_id, length in zip(w.nodes, w.part_lengths, strict=True):
            profit[node_id] += prices[node_id] * length
            busy[node_id] += length
            # A job that ends early gives the rest of its reservation back: the node may run the next
            # job in it, so the reserved lengths (L_c) can sum past the time the node offered.
            really[node_id] += max(0.0, min(w.start + length, actual, end) - max(w.start, t0))
    node_share = {
        node.id: really[node.id] / float(offered_on[i]) if offered_on[i] > 0 else 0.0
        for i, node in enumerate(env.nodes)
    }
    return FlowMetrics(
        jobs=len(env.jobs),
        placed=len(schedule.windows),
        failed=len(schedule.unscheduled),
        mean_start=float(starts.mean()) if per_job else math.nan,
        mean_finish=float(finishes.mean()) if per_job else math.nan,
        mean_wait=_mean(m.wait for m in per_job),
        mean_response=_mean(m.response for m in per_job),
        mean_slowdown=_mean(m.slowdown for m in per_job),
        mean_bounded_slowdown=_mean(m.bounded_slowdown for m in per_job),
        slowdown_threshold=threshold,
        makespan=float(finishes.max() - t0) if per_job else 0.0,
        total_cost=float(sum(m.cost for m in per_job)),
        total_cpu_time=float(sum(m.cpu_time for m in per_job)),
        utilisation=used / (len(env.nodes) * (end - t0)) if end > t0 else 0.0,
        slot_utilisation=used / offered if offered > 0 else 0.0,
        awrt=float((weights * (finishes - arrivals)).sum() / weights.sum()) if weights.sum() > 0 else math.nan,
        mean_alternatives=(float(np.mean(list(schedule.alternatives.values()))) if schedule.alternatives else math.nan),
        owners_profit=profit,
        node_busy=busy,
        node_utilisation=node_share,
        multi_site_jobs=multi_site_count(env, schedule.windows),
    )


def _mean(values: Iterable[float]) -> float:
    array = np.fromiter(values, float)
    return float(array.mean()) if array.size else math.nan


