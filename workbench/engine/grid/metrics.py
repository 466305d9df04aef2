"""The measures of seed 004 §3.3 for a grid schedule: AWRT, AWWT, slowdown, multi-site shares, per-site use.

Every weight is the job's own work n·p, p its actual runtime on one machine (without a
multi-site overhead), so every strategy weighs a job alike (docs/design.md, "Design decisions").
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from workbench.engine.metrics import BOUNDED_SLOWDOWN_THRESHOLD, own_work
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule

BOUND = BOUNDED_SLOWDOWN_THRESHOLD  # runtimes under 10 s count as 10 s (docs/metrics.md, grid_bounded_slowdown)


@dataclass(frozen=True)
class GridMetrics:
    jobs: int
    placed: int
    awrt: float  # Σ n·p·(C − r) / Σ n·p (docs/metrics.md: awrt)
    awwt: float  # Σ n·p·(S − r) / Σ n·p: the average weighted wait (awwt)
    bounded_slowdown: float  # mean of max(1, (C − r) / max(p, BOUND)) (grid_bounded_slowdown)
    multi_site_jobs: int
    multi_site_share: float  # of the placed jobs
    multi_site_work_share: float  # of the placed work n·p
    utilisation: dict[str, float]  # site -> busy node time / (nodes × the run's span)
    makespan: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def grid_metrics(env: Environment, schedule: Schedule) -> GridMetrics:
    site_of = {n.id: n.site for n in env.nodes}
    sites = env.site_ids or ("",)
    size = {s: sum(1 for n in env.nodes if n.site == s) for s in sites}
    windows = schedule.windows
    count = len(windows)
    start = np.fromiter((w.start for w in windows), float, count)
    end = np.fromiter((schedule.actual_end(env, w) for w in windows), float, count)
    arrival = np.fromiter((env.job(w.job).arrival for w in windows), float, count)
    width = np.fromiter((len(w.nodes) for w in windows), float, count)
    stretch = np.fromiter((1.0 + w.overhead for w in windows), float, count)
    run = (end - start) / stretch  # the job's own runtime, without the overhead
    weight = width * run
    multi = np.fromiter((len({site_of[n] for n in w.nodes}) > 1 for w in windows), bool, count)
    total = float(weight.sum())
    t0 = float(min(env.time.start, arrival.min())) if count else env.time.start
    span = float(end.max() - t0) if count else 0.0
    busy = dict.fromkeys(sites, 0.0)
    for w, s, e in zip(windows, start, end, strict=True):
        for node in w.nodes:
            busy[site_of[node] or ""] += float(e - s)
    return GridMetrics(
        jobs=len(env.jobs),
        placed=count,
        awrt=float((weight * (end - arrival)).sum() / total) if total > 0 else math.nan,
        awwt=float((weight * (start - arrival)).sum() / total) if total > 0 else math.nan,
        bounded_slowdown=float(np.mean(np.maximum(1.0, (end - arrival) / np.maximum(run, BOUND))))
        if count
        else math.nan,
        multi_site_jobs=int(multi.sum()),
        multi_site_share=float(multi.mean()) if count else 0.0,
        multi_site_work_share=float(weight[multi].sum() / total) if total > 0 else 0.0,
        utilisation={s: busy[s] / (size[s] * span) if size[s] and span > 0 else 0.0 for s in sites},
        makespan=span,
    )


def backlog(env: Environment, schedule: Schedule, points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """The backlog over time (seed 004 §3.2): the work n·p of jobs that have arrived and not started.

    Returns (times, work) sampled at ``points`` instants over the run.
    """
    windows = schedule.windows
    if not windows:
        return np.zeros(0), np.zeros(0)
    arrival = np.array([env.job(w.job).arrival for w in windows])
    start = np.array([w.start for w in windows])
    work = np.array([own_work(env, schedule, w) for w in windows])
    end = max(schedule.actual_end(env, w) for w in windows)
    times = np.linspace(float(arrival.min()), float(end), points)
    # arrived by t and not started by t: a difference of two cumulative sums over sorted events
    by_arrival, by_start = np.argsort(arrival), np.argsort(start)
    came = np.concatenate(([0.0], np.cumsum(work[by_arrival])))[np.searchsorted(arrival[by_arrival], times, "right")]
    went = np.concatenate(([0.0], np.cumsum(work[by_start])))[np.searchsorted(start[by_start], times, "right")]
    return times, came - went
