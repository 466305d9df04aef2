"""Per-job and per-flow measures of a schedule (docs/design.md; seed 004 §3 for AWRT)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass

import numpy as np

from workbench.engine.model import Environment, Window
from workbench.engine.schedule import Schedule
from workbench.engine.slots import SlotTable


@dataclass(frozen=True)
class JobMetrics:
    job: str
    start: float
    finish: float  # planned: start + length
    actual_finish: float  # start + actual_fraction * length
    wait: float  # start - arrival
    runtime: float  # reserved length T
    cost: float
    cpu_time: float  # the sum of the parts' lengths (n * T for a square window)
    slowdown: float  # (wait + actual runtime) / actual runtime


@dataclass(frozen=True)
class FlowMetrics:
    jobs: int
    placed: int
    failed: int  # Y: jobs that got no window
    mean_start: float
    mean_finish: float
    makespan: float  # last actual finish - time.start
    total_cost: float
    total_cpu_time: float
    utilisation: float  # reserved job time / free slot time offered over [start, end]
    # seed 004: sum(n*p*(C - r)) / sum(n*p), C the actual finish, p the job's actual runtime on one
    # machine (a multi-site window's overhead is not weighed in, so every strategy weighs a job alike)
    awrt: float
    mean_alternatives: float  # N_A: alternatives found per job (CSS family; NaN otherwise)
    owners_profit: dict[str, float]  # node id -> income from job windows (P of seed 000 Table 2)
    node_busy: dict[str, float]  # node id -> time reserved by job windows (L_c of seed 000 Table 2)
    node_utilisation: dict[str, float]  # node id -> node_busy / the free time the node offered (U)
    multi_site_jobs: int  # windows whose nodes span more than one site (seed 004 Table 3); 0 without sites

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def job_metrics(env: Environment, schedule: Schedule) -> list[JobMetrics]:
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
            )
        )
    return out


def flow_metrics(env: Environment, schedule: Schedule) -> FlowMetrics:
    per_job = job_metrics(env, schedule)
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
    prices = {node.id: node.price for node in env.nodes}
    for w in schedule.windows:
        for node_id, length in zip(w.nodes, w.part_lengths, strict=True):
            profit[node_id] += prices[node_id] * length
            busy[node_id] += length
    node_share = {
        node.id: busy[node.id] / float(offered_on[i]) if offered_on[i] > 0 else 0.0 for i, node in enumerate(env.nodes)
    }
    return FlowMetrics(
        jobs=len(env.jobs),
        placed=len(schedule.windows),
        failed=len(schedule.unscheduled),
        mean_start=float(starts.mean()) if per_job else math.nan,
        mean_finish=float(finishes.mean()) if per_job else math.nan,
        makespan=float(finishes.max() - t0) if per_job else 0.0,
        total_cost=float(sum(m.cost for m in per_job)),
        total_cpu_time=float(sum(m.cpu_time for m in per_job)),
        utilisation=used / offered if offered > 0 else 0.0,
        awrt=float((weights * (finishes - arrivals)).sum() / weights.sum()) if weights.sum() > 0 else math.nan,
        mean_alternatives=(float(np.mean(list(schedule.alternatives.values()))) if schedule.alternatives else math.nan),
        owners_profit=profit,
        node_busy=busy,
        node_utilisation=node_share,
        multi_site_jobs=multi_site_count(env, schedule.windows),
    )


def own_work(env: Environment, schedule: Schedule, window: Window) -> float:
    """n·p of the window's job, p its actual runtime without a multi-site overhead (seed 004's AWRT weight)."""
    return len(window.nodes) * (schedule.actual_end(env, window) - window.start) / (1.0 + window.overhead)


def multi_site_count(env: Environment, windows: Iterable[Window]) -> int:
    """How many windows run on nodes of more than one site."""
    if not env.site_ids:
        return 0
    site = {node.id: node.site for node in env.nodes}
    return sum(1 for w in windows if len({site[n] for n in w.nodes}) > 1)
