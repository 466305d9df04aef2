"""Random environments reproducing the papers' set-ups (the same seed gives the same file).

Presets:

* ``vo24``: seed 000 §5. 24 nodes, performance U[2, 10], prices from performance
  with a normally distributed discount/extra charge (clipped to ±60 %), 20 jobs of
  n in [1, 5] and V in [75, 600], one scheduling interval of 600. The paper gives no
  V: its range is set so that Table 1's CSS runtime (50.3) is met at the css
  study's medium load; start, finish, cost and Table 3 are then checks. Budgets
  range from "market price - 60 %" to "market price + 60 %", so the poorest users
  depend on discounted nodes; ``budget_scale`` multiplies them (the css study's
  load levels). Each job asks for nodes of performance p ~ U[perf_min, job_perf_max]
  (6 by default; the paper names no such requirement, and 0 drops it: every node
  serves every job), drawn in the main stream and, unlike backfill32's, not capped:
  the css calibration was made on these draws, and a job may ask for more than its
  n fastest nodes offer (it then fails with that reason).
* ``backfill32``: seed 001 §4.2. 32 nodes, performance U[2, 16], a queue of
  ``jobs`` jobs accumulated at time 0 with n in [1, 8] and V in [60, 1200],
  unbounded horizon and no budget limits (the paper sets none). Every node
  serves every job unless ``job_perf_max`` > 0: then each job asks for nodes of
  performance p ~ U[perf_min, job_perf_max] (the request's p of seed 001 §2.1,
  which §4.2 does not draw), at most its n-th fastest node's so that it can
  run, from a random stream of its own (the rest of the environment is the
  same as without).
* ``aep100``: seed 000 §5 (Figs. 5-6). 100 nodes, performance U[2, 10], prices
  from performance with a normal charge, interval 600, an initial load of 10-50 %
  on every node, one job of n = 5 parts, V = 300 (150 units of time on the
  slowest nodes, p = 2) and a budget of 1500.
* ``window100``: seed 002 §4.1. 100 nodes, performance U[2, 10], interval 1200,
  initial load up to 30 % per node, one job n = 7, p = 1, V = 800, C = 644, and an
  attribute q in [0, 10] on every node.

The initial load is drawn per node: a hypergeometric number of local tasks
sharing a utilisation drawn uniformly up to ``max_load`` (seed 002 §4.1
"distributed hyper-geometrically ... up to 30 % utilisation"). The paper does not
say whether the hypergeometric draw is the number of tasks or how the load is
spread; ``tasks_per_node`` (window100, aep100) sets the other reading: that many
tasks on every node at the same utilisation (1: one block of busy time per node,
which leaves the long gaps the paper's L values suggest). 0, the default, is the
hypergeometric count.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.engine.errors import ParameterError, show
from workbench.engine.io.limits import MAX_ITEMS, MAX_NODE_COUNT, MAX_NODES
from workbench.engine.model import (
    JOB_CRITERIA,
    Environment,
    Job,
    LocalTask,
    Node,
    StrategyRef,
    TimeSettings,
)


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    defaults: dict[str, Any]


PRESETS: dict[str, Preset] = {
    "vo24": Preset(
        "vo24",
        (
            "the cyclic scheme's set-up (Toporkov et al., metascheduling and co-allocation "
            "strategies, §5): 24 nodes of performance 2-10 priced by performance, 20 jobs, one "
            "interval of 600"
        ),
        {
            "nodes": 24,
            "jobs": 20,
            "interval": 600.0,
            "perf_min": 2.0,
            "perf_max": 10.0,
            "max_load": 0.3,
            "price_scale": 1.0,
            "price_sigma": 0.2,
            "budget_spread": 0.6,
            "budget_scale": 1.0,
            "n_max": 5,
            "volume_min": 75.0,
            "volume_max": 600.0,
            "cycles": 1,
            "job_perf_max": 6.0,
        },
    ),
    "backfill32": Preset(
        "backfill32",
        (
            "the backfilling set-up (Toporkov & Yemelyanov, heuristic rules for coordinated "
            "allocation, §4.2): 32 nodes of performance 2-16, a queue of jobs of 1-8 nodes and volume "
            "60-1200"
        ),
        {
            "nodes": 32,
            "jobs": 50,
            "perf_min": 2.0,
            "perf_max": 16.0,
            "max_load": 0.1,
            "load_span": 1000.0,
            "price_scale": 1.0,
            "price_sigma": 0.2,
            "n_max": 8,
            "volume_min": 60.0,
            "volume_max": 1200.0,
            "job_perf_max": 0.0,
        },
    ),
    "aep100": Preset(
        "aep100",
        (
            "the AEP set-up (Toporkov et al., metascheduling and co-allocation strategies, §5): 100 "
            "nodes of performance 2-10 loaded 10-50 %, an interval of 600, one job of 5 nodes, volume "
            "300, budget 1500"
        ),
        {
            "nodes": 100,
            "interval": 600.0,
            "perf_min": 2.0,
            "perf_max": 10.0,
            "min_load": 0.1,
            "max_load": 0.5,
            "price_scale": 1.0,
            "price_sigma": 0.2,
            "node_count": 5,
            "volume": 300.0,
            "budget": 1500.0,
            "tasks_per_node": 0,
        },
    ),
    "window100": Preset(
        "window100",
        (
            "the window search set-up (Toporkov & Yemelyanov, dependable and coordinated allocation, "
            "§4.1): 100 nodes of performance 2-10 loaded up to 30 %, an interval of 1200, one job of "
            "7 nodes, volume 800, budget 644"
        ),
        {
            "nodes": 100,
            "interval": 1200.0,
            "perf_min": 2.0,
            "perf_max": 10.0,
            "max_load": 0.3,
            "price_scale": 0.1,
            "price_sigma": 0.2,
            "node_count": 7,
            "volume": 800.0,
            "budget": 644.0,
            "tasks_per_node": 0,
        },
    ),
}


# What each preset parameter means, in the words the Generate dialog shows: (label, explanation).
PARAMETER_WORDS: dict[str, tuple[str, str]] = {
    "nodes": ("nodes", "how many computing nodes"),
    "jobs": ("jobs", "how many jobs"),
    "interval": ("interval length", "the length of the scheduling interval (time units)"),
    "perf_min": ("slowest node", "node performance is drawn uniformly between this and the fastest"),
    "perf_max": ("fastest node", "node performance is drawn uniformly between the slowest and this"),
    "min_load": ("least local load", "each node's owners keep at least this share of the interval busy"),
    "max_load": ("most local load", "each node's owners keep at most this share of the interval busy"),
    "load_span": ("local load span", "the time over which the owners' local tasks are spread"),
    "price_scale": ("price per performance", "a node's price is about this times its performance"),
    "price_sigma": ("price spread", "the spread of a node's discount or extra charge (a normal draw, ±60 % at most)"),
    "budget_spread": ("budget spread", "budgets range from the market price minus to plus this share"),
    "budget_scale": ("budget factor", "every budget is multiplied by this"),
    "n_max": ("widest job", "each job asks for 1 to this many nodes"),
    "volume_min": ("least volume", "a job's volume (work) is drawn between this and the most"),
    "volume_max": ("most volume", "a job's volume (work) is drawn between the least and this"),
    "cycles": ("cycles", "how many scheduling intervals the jobs arrive over"),
    "job_perf_max": (
        "most performance a job asks for",
        "each job asks for nodes at least as fast as a draw between the slowest node and this; 0: no such request",
    ),
    "node_count": ("job's nodes", "how many nodes the one job asks for"),
    "volume": ("job's volume", "the one job's volume (work)"),
    "budget": ("job's budget", "the most the one job may cost"),
    "tasks_per_node": (
        "local tasks per node",
        "that many local tasks on every node; 0: a hypergeometric number, as the paper reads",
    ),
}


def generate(preset: str, seed: int, **overrides: Any) -> Environment:
    """A random environment of the named preset; ``overrides`` change its parameters."""
    if preset not in PRESETS:
        raise ParameterError("preset", f"unknown preset {show(preset)}; expected one of {', '.join(PRESETS)}")
    spec = PRESETS[preset]
    params = dict(spec.defaults)
    for key, value in overrides.items():
        if key not in params:
            raise ParameterError(str(key), f"not a parameter of preset {preset}; expected one of {', '.join(params)}")
        params[key] = _coerce(key, value, type(params[key]))
    _check_params(params)
    rng = np.random.default_rng(seed)
    if preset == "vo24":
        return _vo24(rng, seed, params)
    if preset == "backfill32":
        return _backfill32(rng, seed, params)
    if preset == "aep100":
        return _one_job(rng, seed, params, "aep100", "Seed 000 §5 set-up: one 5-part job over 100 nodes, 10-50 % load.")
    return _one_job(
        rng, seed, params, "window100", "Seed 002 §4.1 set-up: one 7-node window search over 100 loaded nodes."
    )


def _coerce(key: str, value: Any, kind: type) -> Any:
    """An override as its preset type: a finite number (a whole one for counts)."""
    try:
        out = kind(float(value)) if kind is float else kind(value)
        if kind is float and not math.isfinite(out):
            raise ValueError(value)
    except (TypeError, ValueError, OverflowError):
        expected = "a whole number" if kind is int else "a finite number"
        raise ParameterError(key, f"expected {expected}, got {show(value)}") from None
    return out


# The most each count may be: what an environment file may hold (docs/formats.md, "Environment file").
COUNT_LIMITS = {
    "tasks_per_node": 100,
    "nodes": MAX_NODES,
    "jobs": MAX_ITEMS,
    "n_max": MAX_NODE_COUNT,
    "node_count": MAX_NODE_COUNT,
    "cycles": 1000,
}


def _check_params(params: dict[str, Any]) -> None:
    for key, most in COUNT_LIMITS.items():
        least = 0 if key == "tasks_per_node" else 1  # 0: the hypergeometric count
        if key in params and not least <= params[key] <= most:
            raise ParameterError(key, f"must be from {least} to {most:,}, got {show(params[key])}")
    for key in ("interval", "volume", "volume_min", "budget", "budget_scale", "perf_min", "load_span"):
        if key in params and params[key] <= 0:
            raise ParameterError(key, "must be positive")
    if not 0 <= params.get("max_load", 0) < 1:
        raise ParameterError("max_load", "must be in [0, 1)")
    if not 0 <= params.get("min_load", 0) <= params.get("max_load", 0):
        raise ParameterError("min_load", "must be in [0, max_load]")
    if params.get("perf_max", 1) < params.get("perf_min", 0):
        raise ParameterError("perf_max", "must be at least perf_min")
    if 0 < params.get("job_perf_max", 0) < params.get("perf_min", 0) or params.get("job_perf_max", 0) < 0:
        raise ParameterError("job_perf_max", "must be 0 (no requirement) or at least perf_min")


def _nodes(rng: np.random.Generator, params: dict[str, Any], decimals: int) -> list[Node]:
    count = params["nodes"]
    perf = np.round(rng.uniform(params["perf_min"], params["perf_max"], count), decimals)
    perf = np.maximum(perf, 10.0**-decimals)
    charge = np.clip(rng.normal(0.0, params["price_sigma"], count), -0.6, 0.6)
    price = np.round(params["price_scale"] * perf * (1.0 + charge), 3)
    q = np.round(rng.uniform(0.0, 10.0, count), 2)
    width = len(str(count))
    return [
        Node(
            id=f"n{i + 1}",
            name=f"node {i + 1:0{width}d}",
            performance=float(perf[i]),
            price=float(price[i]),
            attributes=(("q", float(q[i])),),
        )
        for i in range(count)
    ]


def _local_tasks(
    rng: np.random.Generator,
    nodes: list[Node],
    span: float,
    max_load: float,
    min_load: float = 0.0,
    per_node: int = 0,
) -> list[LocalTask]:
    """Hypergeometric task counts (or ``per_node`` tasks on every node); each node's utilisation
    ~ U[min_load, max_load] of ``span``."""
    tasks: list[LocalTask] = []
    tid = 1
    for node in nodes:
        count = per_node if per_node > 0 else int(rng.hypergeometric(ngood=6, nbad=6, nsample=6))
        load = rng.uniform(min_load, max_load)
        if min_load > 0:
            count = max(count, 1)  # a load from 10 % up needs at least one task
        if count == 0 or load <= 0:
            continue
        busy = load * span
        lengths = rng.dirichlet(np.ones(count)) * busy
        gaps = rng.dirichlet(np.ones(count + 1)) * (span - busy)
        t = 0.0
        for length, gap in zip(lengths, gaps[:count], strict=True):
            t += gap
            start, end = math.floor(t), math.floor(t + length)
            if end > start:
                tasks.append(LocalTask(id=f"t{tid}", node=node.id, start=float(start), end=float(end)))
                tid += 1
            t += length
    return tasks


def _vo24(rng: np.random.Generator, seed: int, params: dict[str, Any]) -> Environment:
    nodes = _nodes(rng, params, decimals=1)
    interval = params["interval"]
    tasks = _local_tasks(rng, nodes, interval, params["max_load"])
    jobs = []
    spread = params["budget_spread"]
    scale = params["price_scale"]
    req_max = params["job_perf_max"] or params["perf_min"]  # 0: no requirement (every node serves)
    for i in range(params["jobs"]):
        n = int(rng.integers(1, params["n_max"] + 1))
        volume = float(np.round(rng.uniform(params["volume_min"], params["volume_max"])))
        # One part costs about price_scale * V on a node of the window's slowest
        # performance, and more on faster ones (all parts last V / P_min): a window's
        # market cost is about 1.4 * n * price_scale * V on these nodes.
        market = 1.4 * n * scale * volume
        budget = float(np.round(params["budget_scale"] * market * (1.0 + rng.uniform(-spread, spread))))
        jobs.append(
            Job(
                id=f"j{i + 1}",
                name=f"job {i + 1}",
                node_count=n,
                # One draw either way, so that the rest of the environment stays the same.
                min_performance=float(np.round(rng.uniform(params["perf_min"], req_max), 1)),
                volume=volume,
                budget=budget,
                criterion=str(rng.choice(JOB_CRITERIA)),
            )
        )
    # A flow over several cycles (seed 003): each later cycle draws its own local load, after the
    # jobs, so that the first cycle (and a one-cycle environment) is the same whatever ``cycles`` is.
    cycles = params["cycles"]
    for k in range(1, cycles):
        more = _local_tasks(rng, nodes, interval, params["max_load"])
        shift = k * interval
        tasks += [
            dataclasses.replace(t, id=f"t{len(tasks) + i + 1}", start=t.start + shift, end=t.end + shift)
            for i, t in enumerate(more)
        ]
    about = "one VO scheduling cycle" if cycles == 1 else f"a flow over {cycles} VO scheduling cycles"
    return Environment(
        nodes=tuple(nodes),
        local_tasks=tuple(tasks),
        jobs=tuple(jobs),
        time=TimeSettings(start=0.0, cycle_length=interval, horizon=cycles * interval),
        name=f"vo24 (seed {seed})",
        description=f"Seed 000 §5 set-up: {about} of {interval:g} units on {len(nodes)} priced nodes.",
        strategy=StrategyRef("CoP"),
    )


def _backfill32(rng: np.random.Generator, seed: int, params: dict[str, Any]) -> Environment:
    nodes = _nodes(rng, params, decimals=2)
    tasks = _local_tasks(rng, nodes, params["load_span"], params["max_load"])
    jobs = [
        Job(
            id=f"j{i + 1}",
            name=f"job {i + 1}",
            node_count=int(rng.integers(1, params["n_max"] + 1)),
            min_performance=params["perf_min"],
            volume=float(np.round(rng.uniform(params["volume_min"], params["volume_max"]))),
            budget=math.inf,
            criterion="finish",
        )
        for i in range(params["jobs"])
    ]
    if params["job_perf_max"] > 0:
        jobs = _with_performance_requirements(jobs, nodes, params["perf_min"], params["job_perf_max"], seed)
    return Environment(
        nodes=tuple(nodes),
        local_tasks=tuple(tasks),
        jobs=tuple(jobs),
        time=TimeSettings(start=0.0, cycle_length=None, horizon=None),
        name=f"backfill32 (seed {seed})",
        description="Seed 001 §4.2 set-up: a queue accumulated at time 0 on 32 heterogeneous nodes.",
        strategy=StrategyRef("CoP"),
    )


def _with_performance_requirements(jobs: list[Job], nodes: list[Node], low: float, high: float, seed: int) -> list[Job]:
    """Each job's p ~ U[low, high], at most the performance of its n-th fastest node (so it can run)."""
    rng = np.random.default_rng([seed, 3])  # a stream of its own: the other draws stay as they were
    fastest = np.sort([n.performance for n in nodes])[::-1]
    wanted = np.round(rng.uniform(low, high, len(jobs)), 2)
    return [
        dataclasses.replace(job, min_performance=float(min(p, fastest[min(job.node_count, len(nodes)) - 1])))
        for job, p in zip(jobs, wanted, strict=True)
    ]


def _one_job(rng: np.random.Generator, seed: int, params: dict[str, Any], name: str, about: str) -> Environment:
    """One job over many loaded nodes: the single-window experiments (window100, aep100)."""
    nodes = _nodes(rng, params, decimals=2)
    interval = params["interval"]
    tasks = _local_tasks(
        rng, nodes, interval, params["max_load"], params.get("min_load", 0.0), params["tasks_per_node"]
    )
    job = Job(
        id="j1",
        name="job 1",
        node_count=params["node_count"],
        min_performance=1.0,
        volume=params["volume"],
        budget=params["budget"],
        criterion="finish",
    )
    return Environment(
        nodes=tuple(nodes),
        local_tasks=tuple(tasks),
        jobs=(job,),
        time=TimeSettings(start=0.0, cycle_length=interval, horizon=interval),
        name=f"{name} (seed {seed})",
        description=about,
        strategy=StrategyRef("MaxQ" if name == "window100" else "MinCost"),
    )


def swf_rows(seed: int, jobs: int, nodes: int, load: float = 0.9) -> list[tuple[int, float, float, int, float]]:
    """A synthetic SWF workload: (job, submit, run time, processors, requested time) rows.

    Widths are powers of two up to ``nodes`` (small ones more likely), requested
    times log-uniform between 1 minute and 10 hours, actual run times U[0.1, 1]
    of the request (one job in twenty overruns and is cut at its request), and
    Poisson arrivals at the rate that offers ``load`` of the machine's capacity.
    """
    rng = np.random.default_rng(seed)
    top = max(0, int(math.log2(nodes)))
    exponents = rng.geometric(0.45, size=jobs) - 1
    widths = np.minimum(2 ** np.minimum(exponents, top), nodes).astype(int)
    requested = np.round(np.exp(rng.uniform(math.log(60), math.log(36000), size=jobs)))
    run = np.round(requested * rng.uniform(0.1, 1.0, size=jobs))
    over = rng.random(jobs) < 0.05
    run[over] = np.round(requested[over] * 1.2)
    run = np.maximum(run, 1)
    mean_work = float((widths * run).mean())
    gaps = rng.exponential(mean_work / (nodes * load), size=jobs)
    submit = np.round(np.cumsum(gaps) - gaps[0])
    return [(i + 1, float(submit[i]), float(run[i]), int(widths[i]), float(requested[i])) for i in range(jobs)]
