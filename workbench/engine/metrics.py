"""Per-job and per-flow measures of a schedule, each with one stated definition (docs/metrics.md).

``DEFINITIONS`` is the one list of what every measure means: its formula and its source. The
exports and the lab's study databases name the definitions they used from it, so a number can be
compared with another tool's (Batsim, evalys) or a paper's knowing what it is.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from workbench.engine.errors import ParameterError, show
from workbench.engine.jobarrays import job_array
from workbench.engine.model import Environment, Window
from workbench.engine.schedule import Schedule, WindowArrays
from workbench.engine.slots import SlotTable

# The bounded slowdown's threshold τ: runs shorter than this count as this long (Feitelson et al.'s
# usual 10 s; model time units are read as seconds). ``flow_metrics(..., threshold=τ)`` takes another.
BOUNDED_SLOWDOWN_THRESHOLD = 10.0
# Names the set of definitions below; bump it when a definition changes, so that results recorded
# under the old one are never mixed with new ones (the lab's database compares it).
DEFINITIONS_VERSION = "workbench-metrics/2"


@dataclass(frozen=True)
class Definition:
    """What one measure means: ``name`` is its key in FlowMetrics, the exports and the studies."""

    name: str
    title: str
    formula: str
    source: str

    def text(self) -> str:
        """The definition on one line, as exports and databases record it."""
        return f"{self.title}: {self.formula} [{self.source}] ({DEFINITIONS_VERSION})"


# Per job j: r_j arrival, S_j start, C_j actual finish (S_j + actual_fraction·T_j), T_j the reserved
# length, n_j its nodes, run_j = C_j − S_j. Flow sums run over the placed jobs J; t0 is time.start,
# t_end the horizon (or max C_j when it is unbounded), N the number of nodes.
DEFINITIONS: tuple[Definition, ...] = (
    Definition("jobs", "jobs", "#jobs of the environment", "workbench"),
    Definition("placed", "jobs placed", "#J, the jobs given a window", "workbench"),
    Definition("failed", "failed jobs (Y)", "jobs given no window", "seed 000 §6 (Y)"),
    Definition("mean_start", "mean start", "Σ S_j / #J", "seed 001 §4.2"),
    Definition("mean_finish", "mean finish", "Σ C_j / #J", "seed 001 §4.2 (Tables 2-3)"),
    Definition("mean_wait", "mean wait", "Σ (S_j − r_j) / #J", "Feitelson & Rudolph 1998; Batsim waiting_time"),
    Definition(
        "mean_response",
        "mean response time",
        "Σ (C_j − r_j) / #J",
        "Feitelson & Rudolph 1998 (response, turnaround); Batsim turnaround_time",
    ),
    Definition("mean_slowdown", "mean slowdown", "Σ (C_j − r_j) / run_j / #J", "Feitelson et al. 1997; Batsim stretch"),
    Definition(
        "mean_bounded_slowdown",
        "mean bounded slowdown",
        "Σ max(1, (C_j − r_j) / max(run_j, τ)) / #J, τ = slowdown_threshold (10 s unless set)",
        "Feitelson, Rudolph, Schwiegelshohn, Sevcik & Wong 1997",
    ),
    Definition("slowdown_threshold", "bounded slowdown threshold τ", "τ in time units (10 by default)", "ibid."),
    Definition("makespan", "makespan", "max C_j − t0", "Batsim makespan (from t0, the environment's start)"),
    Definition(
        "total_cost",
        "total cost",
        "Σ_j Σ_{i∈W_j} c_i·T_ij (reserved lengths, not actual)",
        "the window cost of docs/design.md, Window",
    ),
    Definition("total_cpu_time", "total CPU time", "Σ_j Σ_{i∈W_j} T_ij", "seed 000 §6.3 (CPU time n·T)"),
    Definition(
        "utilisation",
        "utilisation over the machine's capacity",
        "Σ n_j·run_j / (N·(t_end − t0))",
        "Batsim and evalys (busy resource-time over resources × time)",
    ),
    Definition(
        "slot_utilisation",
        "utilisation over the free slot time",
        "Σ n_j·run_j / Σ (free slot time the local tasks leave in [t0, t_end])",
        "seed 000 Table 2's U, over every node: the share of the free slot time jobs use",
    ),
    Definition(
        "awrt",
        "average weighted response time",
        "Σ n_j·p_j·(C_j − r_j) / Σ n_j·p_j, p_j = run_j without a multi-site overhead",
        "seed 004 §3.3",
    ),
    Definition(
        "mean_alternatives", "alternatives per job (N_A)", "alternatives found / jobs (CSS family)", "seed 000 §6"
    ),
    Definition("owners_profit", "owner's profit per node (P)", "Σ_{j: i∈W_j} c_i·T_ij", "seed 000 Table 2"),
    Definition("node_busy", "reserved time per node (L_c)", "Σ_{j: i∈W_j} T_ij", "seed 000 Table 2"),
    Definition(
        "node_utilisation",
        "utilisation per node (U)",
        "time node i really ran jobs in [t0, t_end] (to each job's actual end) / free time node i offered there",
        "seed 000 Table 2's U, counted as used rather than reserved",
    ),
    Definition("multi_site_jobs", "multi-site jobs", "windows on nodes of more than one site", "seed 004 Table 3"),
    Definition("awwt", "average weighted wait", "Σ n_j·p_j·(S_j − r_j) / Σ n_j·p_j (weights as AWRT)", "seed 004 §3.3"),
    Definition(
        "grid_bounded_slowdown",
        "mean bounded slowdown of a grid",
        "Σ max(1, (C_j − r_j) / max(p_j, τ)) / #J, p_j without a multi-site overhead",
        "Feitelson et al. 1997, with seed 004's own runtime p_j",
    ),
)
_BY_NAME = {d.name: d for d in DEFINITIONS}


def definition(name: str) -> Definition:
    """The definition named ``name`` (KeyError when there is none)."""
    return _BY_NAME[name]


def flow_definitions() -> dict[str, str]:
    """Every flow measure's definition, by its key in ``FlowMetrics.as_dict()`` (what exports record)."""
    return {name: _BY_NAME[name].text() for name in FlowMetrics.__dataclass_fields__}


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
    slowdown: float  # (wait + actual runtime) / actual runtime = response / run
    response: float  # actual finish - arrival
    bounded_slowdown: float  # max(1, response / max(actual runtime, threshold))


@dataclass(frozen=True)
class FlowMetrics:
    jobs: int
    placed: int
    failed: int  # Y: jobs that got no window
    mean_start: float
    mean_finish: float
    mean_wait: float
    mean_response: float
    mean_slowdown: float
    mean_bounded_slowdown: float
    slowdown_threshold: float  # τ of the bounded slowdown
    makespan: float  # last actual finish - time.start
    total_cost: float
    total_cpu_time: float
    utilisation: float  # busy job node-time / the machine's capacity N × (end - start)
    slot_utilisation: float  # busy job node-time / free slot time offered over [start, end]
    # seed 004: sum(n*p*(C - r)) / sum(n*p), C the actual finish, p the job's actual runtime on one
    # machine (a multi-site window's overhead is not weighed in, so every strategy weighs a job alike)
    awrt: float
    mean_alternatives: float  # N_A: alternatives found per job (CSS family; NaN otherwise)
    owners_profit: dict[str, float]  # node id -> income from job windows (P of seed 000 Table 2)
    node_busy: dict[str, float]  # node id -> time reserved by job windows (L_c of seed 000 Table 2)
    node_utilisation: dict[str, float]  # node id -> time really used / the free time the node offered (U)
    multi_site_jobs: int  # windows whose nodes span more than one site (seed 004 Table 3); 0 without sites

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def window_arrays(env: Environment, schedule: Schedule) -> WindowArrays:
    """``schedule``'s windows as ``WindowArrays``: the run's own when it made them (a compiled run
    has them as arrays already), else read from the windows once."""
    if schedule.arrays is not None and schedule.arrays.start.size == len(schedule.windows):
        a = schedule.arrays
        return dataclasses.replace(a, arrival=job_array(env, "arrival")[a.job_row])
    windows = schedule.windows
    m = len(windows)
    index, node_index = env.job_index, env.node_index
    rows = np.fromiter((index[w.job] for w in windows), dtype=np.int64, count=m)
    start = np.fromiter((w.start for w in windows), dtype=np.float64, count=m)
    length = np.fromiter((w.length for w in windows), dtype=np.float64, count=m)
    fraction, arrival = job_array(env, "actual_fraction"), job_array(env, "arrival")
    actual = start + fraction[rows] * length if m else np.zeros(0)
    given = schedule.actual_ends
    if given:
        for k, w in enumerate(windows):
            end = given.get(w.job)
            if end is not None:
                actual[k] = end
    width = np.fromiter((len(w.nodes) for w in windows), dtype=np.int64, count=m)
    parts = int(width.sum())
    part_node = np.fromiter((node_index[n] for w in windows for n in w.nodes), dtype=np.int64, count=parts)
    part_window = np.repeat(np.arange(m), width)
    part_length = np.repeat(length, width)
    rough = [k for k, w in enumerate(windows) if w.lengths]
    if rough:
        offset = np.concatenate(([0], np.cumsum(width)[:-1]))
        for k in rough:
            part_length[offset[k] : offset[k] + width[k]] = windows[k].lengths
    return WindowArrays(
        rows,
        start,
        length,
        np.fromiter((w.cost for w in windows), dtype=np.float64, count=m),
        actual,
        arrival[rows],
        width,
        np.fromiter((w.overhead for w in windows), dtype=np.float64, count=m),
        part_node,
        part_window,
        part_length,
    )


def _slowdowns(a: WindowArrays, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """wait, response, slowdown and bounded slowdown of every window (docs/metrics.md)."""
    run = a.actual - a.start
    wait = a.start - a.arrival
    response = wait + run
    with np.errstate(divide="ignore", invalid="ignore"):
        slowdown = np.where(run > 0, response / np.where(run > 0, run, 1.0), math.inf)
        bound = np.maximum(run, threshold)
        bounded = np.where(bound > 0, np.maximum(1.0, response / np.where(bound > 0, bound, 1.0)), math.inf)
    return wait, response, slowdown, bounded


class JobRows(Sequence[JobMetrics]):
    """Each placed job's measures (``job_metrics``), worked out as columns at once and made into a
    ``JobMetrics`` only when a row is read: a table of 200,000 rows reads the few it shows."""

    def __init__(self, jobs: list[str], columns: tuple[np.ndarray, ...]) -> None:
        self._jobs, self._columns = jobs, columns

    def __len__(self) -> int:
        return len(self._jobs)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return JobMetrics(self._jobs[index], *(float(c[index]) for c in self._columns))


def job_rows(
    env: Environment,
    schedule: Schedule,
    threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
    arrays: WindowArrays | None = None,
) -> JobRows:
    """Each placed job's measures, in window order, as ``JobRows``; ``arrays``: ``window_arrays``
    when the caller has it (the flow's measures read the same)."""
    check_threshold(threshold)
    a = window_arrays(env, schedule) if arrays is None else arrays
    wait, response, slowdown, bounded = _slowdowns(a, threshold)
    jobs = env.jobs
    ids = [jobs[j].id for j in a.job_row.tolist()]
    columns = (a.start, a.start + a.length, a.actual, wait, a.length, a.cost, a.cpu_time, slowdown, response, bounded)
    return JobRows(ids, columns)


def job_metrics(
    env: Environment, schedule: Schedule, threshold: float = BOUNDED_SLOWDOWN_THRESHOLD
) -> list[JobMetrics]:
    """Each placed job's measures (docs/metrics.md); ``threshold`` is the bounded slowdown's τ."""
    rows = job_rows(env, schedule, threshold)
    return [rows[k] for k in range(len(rows))]


def flow_metrics(
    env: Environment,
    schedule: Schedule,
    threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
    arrays: WindowArrays | None = None,
) -> FlowMetrics:
    """The flow's measures, each as ``DEFINITIONS`` states it; ``threshold`` is the bounded slowdown's τ.
    They are array code over the windows' columns (``arrays``: ``window_arrays`` when the caller has
    it, as ``job_rows`` reads the same)."""
    check_threshold(threshold)
    a = window_arrays(env, schedule) if arrays is None else arrays
    placed = a.start.size
    n_nodes = len(env.nodes)
    t0 = env.time.start
    end = env.time.horizon if env.time.horizon is not None else (float(a.actual.max()) if placed else t0)
    offered = 0.0
    offered_on: np.ndarray = np.zeros(n_nodes)
    if end > t0:
        table = SlotTable.from_environment(env, istart=t0, iend=end)
        offered_on = np.bincount(table.node, weights=table.end - table.start, minlength=n_nodes)
        offered = float(offered_on.sum())
    run = a.actual - a.start
    used = float((a.width * run).sum())
    price = np.array([node.price for node in env.nodes], dtype=np.float64)
    part_start = a.start[a.part_window]
    # A job that ends early gives the rest of its reservation back: the node may run the next job in
    # it, so the reserved lengths (L_c) can sum past the time the node offered; U counts time used.
    really_used = np.minimum(np.minimum(part_start + a.part_length, a.actual[a.part_window]), end)
    really_used = np.maximum(0.0, really_used - np.maximum(part_start, t0))
    profit = np.bincount(a.part_node, weights=price[a.part_node] * a.part_length, minlength=n_nodes)
    busy = np.bincount(a.part_node, weights=a.part_length, minlength=n_nodes)
    really = np.bincount(a.part_node, weights=really_used, minlength=n_nodes)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(offered_on > 0, really / np.where(offered_on > 0, offered_on, 1.0), 0.0)
    ids = [node.id for node in env.nodes]
    wait, response, slowdown, bounded = _slowdowns(a, threshold)
    weights = a.width * run / (1.0 + a.overhead)
    weight = float(weights.sum())

    def mean(values: np.ndarray) -> float:
        return float(values.mean()) if placed else math.nan

    return FlowMetrics(
        jobs=len(env.jobs),
        placed=placed,
        failed=len(schedule.unscheduled),
        mean_start=mean(a.start),
        mean_finish=mean(a.actual),
        mean_wait=mean(wait),
        mean_response=mean(response),
        mean_slowdown=mean(slowdown),
        mean_bounded_slowdown=mean(bounded),
        slowdown_threshold=threshold,
        makespan=float(a.actual.max() - t0) if placed else 0.0,
        total_cost=float(a.cost.sum()),
        total_cpu_time=float(a.part_length.sum()),
        utilisation=used / (n_nodes * (end - t0)) if end > t0 else 0.0,
        slot_utilisation=used / offered if offered > 0 else 0.0,
        awrt=float((weights * (a.actual - a.arrival)).sum() / weight) if weight > 0 else math.nan,
        mean_alternatives=(float(np.mean(list(schedule.alternatives.values()))) if schedule.alternatives else math.nan),
        owners_profit=dict(zip(ids, profit.tolist(), strict=True)),
        node_busy=dict(zip(ids, busy.tolist(), strict=True)),
        node_utilisation=dict(zip(ids, share.tolist(), strict=True)),
        multi_site_jobs=multi_site_count(env, schedule.windows, a),
    )


def check_threshold(threshold: float) -> None:
    """The bounded slowdown's τ must be a finite number ≥ 0 (ParameterError otherwise)."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 <= threshold < math.inf:
        raise ParameterError("slowdown_threshold", f"expected a finite number ≥ 0, got {show(threshold)}")


def _mean(values: Iterable[float]) -> float:
    array = np.fromiter(values, float)
    return float(array.mean()) if array.size else math.nan


def own_work(env: Environment, schedule: Schedule, window: Window) -> float:
    """n·p of the window's job, p its actual runtime without a multi-site overhead (seed 004's AWRT weight)."""
    return len(window.nodes) * (schedule.actual_end(env, window) - window.start) / (1.0 + window.overhead)


def multi_site_count(env: Environment, windows: Iterable[Window], arrays: WindowArrays | None = None) -> int:
    """How many windows run on nodes of more than one site."""
    if not env.site_ids:
        return 0
    if arrays is None:
        site = {node.id: node.site for node in env.nodes}
        return sum(1 for w in windows if len({site[n] for n in w.nodes}) > 1)
    code = {s: i for i, s in enumerate(dict.fromkeys(node.site for node in env.nodes))}
    part_site = np.array([code[node.site] for node in env.nodes], dtype=np.int64)[arrays.part_node]
    if not part_site.size:
        return 0
    first = part_site[np.concatenate(([0], np.cumsum(arrays.width)[:-1]))][arrays.part_window]
    return int(np.unique(arrays.part_window[part_site != first]).size)
