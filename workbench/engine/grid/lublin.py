"""The Lublin–Feitelson (2003) workload model of rigid parallel jobs, from its published parameters.

U. Lublin, D. G. Feitelson, "The workload on parallel supercomputers: modeling the
characteristics of rigid jobs", JPDC 63(11), 2003. The model has two job classes,
interactive and batch, each with

* size: serial with probability ``serial``; otherwise log2(size) is drawn from a
  two-stage uniform on [u_low, u_med] (probability ``u_prob``) or [u_med, u_hi], and
  with probability ``pow2`` (of all jobs) it is rounded to a whole power of two;
* runtime: log(runtime) is hyper-gamma, gamma(a1, b1) with probability
  p = pa·size + pb (clipped to [0, 1]) and gamma(a2, b2) otherwise, redrawn above 12
  (about two days);
* arrivals: log(inter-arrival seconds) is gamma(aarr·arar, barr) at the rush hours
  (redrawn above 13), and a daily cycle stretches it: the day has 48 half-hour
  buckets whose weights follow the gamma(anum, bnum) density over the hours
  11..35 taken cyclically, and an inter-arrival time is spent as "points" bucket by
  bucket.

The next job is of the class whose next arrival comes first. The parameters below
are the published ones for a 128-node machine (u_hi = 7); for a machine of M nodes
u_hi becomes log2 M and u_med and u_low keep their distance below it, the
published way of scaling the model. The runtime and arrival parts do not depend
on M. This module is written from the model's description; it ships no data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.engine.errors import ParameterError
from workbench.engine.model import Environment, Job, Node, StrategyRef, TimeSettings

BUCKETS = 48
BUCKET_SECONDS = 24 * 3600 / BUCKETS
DAY_START = 11  # the day's buckets are hours 11..35 of the gamma density, moved cyclically
TOO_LONG_RUN = 12.0  # log(runtime) above this is redrawn
TOO_LONG_GAP = 13.0  # log(inter-arrival) above this is redrawn
REFERENCE_HI = 7.0  # the published parameters are for 2**7 = 128 nodes


@dataclass(frozen=True)
class JobClass:
    """The published parameters of one class of jobs (interactive or batch)."""

    serial: float
    pow2: float
    u_low: float
    u_med: float
    u_hi: float
    u_prob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float

    def for_machine(self, nodes: int) -> JobClass:
        """The class scaled to a machine of ``nodes`` nodes (u_hi = log2 nodes, the gaps kept)."""
        shift = math.log2(nodes) - REFERENCE_HI
        return JobClass(
            **{
                **self.__dict__,
                "u_hi": self.u_hi + shift,
                "u_med": self.u_med + shift,
                "u_low": min(self.u_low, self.u_med + shift),
            }
        )


INTERACTIVE = JobClass(
    serial=0.1541, pow2=0.625, u_low=1.0, u_med=3.0, u_hi=5.5, u_prob=0.705,
    a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
    aarr=6.5510, barr=0.6621, anum=8.9186, bnum=3.6680, arar=0.9797,
)  # fmt: skip
BATCH = JobClass(
    serial=0.2927, pow2=0.6686, u_low=1.2, u_med=5.0, u_hi=7.0, u_prob=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    aarr=6.0415, barr=0.8531, anum=6.1271, bnum=5.2740, arar=1.0519,
)  # fmt: skip
CLASSES = (INTERACTIVE, BATCH)
# The "whole sample" parameters: one class for all jobs (the model's typeless variant).
TYPELESS = JobClass(
    serial=0.244, pow2=0.576, u_low=0.8, u_med=4.5, u_hi=7.0, u_prob=0.86,
    a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
    aarr=10.2303, barr=0.4871, anum=8.1737, bnum=3.9631, arar=1.0225,
)  # fmt: skip


@dataclass(frozen=True)
class Workload:
    """A generated trace: arrival (s), size (nodes), runtime (s) and class (0 interactive, 1 batch)."""

    arrival: np.ndarray
    size: np.ndarray
    runtime: np.ndarray
    kind: np.ndarray


def _gamma_cdf(x: np.ndarray, shape: float, scale: float) -> np.ndarray:
    """The regularised lower incomplete gamma P(shape, x/scale), by its series (x here is small)."""
    z = np.asarray(x, dtype=float) / scale
    term = np.full_like(z, 1.0 / shape)
    total = term.copy()
    for k in range(1, 500):
        term = term * z / (shape + k)
        total += term
        if np.all(term < total * 1e-14):
            break
    return total * np.exp(-z + shape * np.log(z) - math.lgamma(shape))


def bucket_weights(cls: JobClass) -> np.ndarray:
    """The daily cycle: each half-hour bucket's share of arrivals, normalised to mean 1."""
    i = np.arange(DAY_START, BUCKETS + DAY_START, dtype=float)
    w = _gamma_cdf(i + 0.5, cls.anum, cls.bnum) - _gamma_cdf(i - 0.5, cls.anum, cls.bnum)
    weights = np.empty(BUCKETS)
    weights[(np.arange(DAY_START, BUCKETS + DAY_START) - 1) % BUCKETS] = w
    return weights / weights.mean()


def _draw_below(rng: np.random.Generator, shape: float, scale: float, size: int, limit: float) -> np.ndarray:
    """``size`` gamma(shape, scale) draws, each redrawn while above ``limit``."""
    out = rng.gamma(shape, scale, size)
    bad = out > limit
    while bad.any():
        out[bad] = rng.gamma(shape, scale, int(bad.sum()))
        bad = out > limit
    return out


def _arrivals(rng: np.random.Generator, cls: JobClass, count: int) -> np.ndarray:
    """The first ``count`` arrival times of one class, starting at midnight."""
    weights = bucket_weights(cls)
    gaps = np.exp(_draw_below(rng, cls.aarr * cls.arar, cls.barr, count, TOO_LONG_GAP)) / BUCKET_SECONDS
    times = np.empty(count)
    now, points, remainder, bucket = 0.0, 0.0, 0.0, 0
    for k in range(count):
        times[k] = now
        points += gaps[k]
        step = 0.0
        while points > weights[bucket]:
            points -= weights[bucket]
            bucket = (bucket + 1) % BUCKETS
            step += 1.0
        fraction = points / weights[bucket]
        now += (step + fraction - remainder) * BUCKET_SECONDS
        remainder = fraction
    return times


def _sizes(rng: np.random.Generator, cls: JobClass, count: int, nodes: int) -> np.ndarray:
    u = rng.random(count)
    first = rng.random(count) <= cls.u_prob
    lo = np.where(first, cls.u_low, cls.u_med)
    hi = np.where(first, cls.u_med, cls.u_hi)
    par = lo + rng.random(count) * (hi - lo)
    par = np.where(u <= cls.serial + cls.pow2, np.floor(par + 0.5), par)
    size = np.floor(2.0**par + 0.5)
    size = np.where(u <= cls.serial, 1.0, size)
    return np.clip(size, 1, nodes).astype(np.int64)


def _runtimes(rng: np.random.Generator, cls: JobClass, size: np.ndarray) -> np.ndarray:
    p = np.clip(cls.pa * size + cls.pb, 0.0, 1.0)
    first = rng.random(size.size) <= p
    log_run = np.where(
        first,
        _draw_below(rng, cls.a1, cls.b1, size.size, TOO_LONG_RUN),
        _draw_below(rng, cls.a2, cls.b2, size.size, TOO_LONG_RUN),
    )
    return np.maximum(np.floor(np.exp(log_run)), 1.0)


def generate_workload(jobs: int, nodes: int, seed: int, typed: bool = True) -> Workload:
    """``jobs`` jobs of the model for a machine of ``nodes`` nodes, reproducibly from ``seed``.

    ``typed``: interactive and batch classes (the model's default); otherwise every job
    is drawn from the whole-sample parameters and counts as interactive (class 0).
    """
    if not 1 <= jobs <= 10_000_000:
        raise ParameterError("--jobs", f"expected 1 to 10,000,000 jobs, got {jobs}")
    if not 2 <= nodes <= 1_000_000:
        raise ParameterError("--nodes", f"expected 2 to 1,000,000 nodes, got {nodes}")
    rng = np.random.default_rng(seed)
    classes = [cls.for_machine(nodes) for cls in (CLASSES if typed else (TYPELESS,))]
    # Each class's stream is drawn long enough for the merge: the next job is the class
    # whose next arrival comes first, so neither stream can supply more than ``jobs``.
    streams = [_arrivals(rng, cls, jobs) for cls in classes]
    arrival = np.concatenate(streams)
    kind = np.repeat(np.arange(len(classes)), jobs)
    order = np.lexsort((-kind, arrival))[:jobs]  # ties: batch first, as the model compares strictly
    arrival, kind = arrival[order], kind[order]
    size = np.empty(jobs, dtype=np.int64)
    runtime = np.empty(jobs)
    for k, cls in enumerate(classes):
        mask = kind == k
        size[mask] = _sizes(rng, cls, int(mask.sum()), nodes)
        runtime[mask] = _runtimes(rng, cls, size[mask])
    return Workload(np.floor(arrival), size, runtime, kind)


def workload_environment(work: Workload, nodes: int, seed: int) -> Environment:
    """The workload as an environment on ``nodes`` identical nodes (exact runtime estimates)."""
    width = len(str(nodes))
    env_nodes = tuple(Node(f"n{i + 1}", f"node {i + 1:0{width}d}", 1.0, 1.0) for i in range(nodes))
    jobs = tuple(
        Job(
            id=str(i + 1),
            name=f"job {i + 1}",
            node_count=int(n),
            min_performance=1.0,
            volume=float(r),
            arrival=float(a),
            user="interactive" if k == 0 else "batch",
        )
        for i, (a, n, r, k) in enumerate(zip(work.arrival, work.size, work.runtime, work.kind, strict=True))
    )
    return Environment(
        nodes=env_nodes,
        jobs=jobs,
        time=TimeSettings(start=0.0, cycle_length=None, horizon=None, unit="seconds"),
        name=f"Lublin–Feitelson model, {len(jobs)} jobs",
        description=(
            f"{len(jobs)} jobs of the Lublin–Feitelson (2003) model for {nodes} nodes, seed {seed}; "
            "runtimes are exact (no user estimates); 'user' holds the job class."
        ),
        strategy=StrategyRef("EASY"),
    )


def summary(work: Workload) -> dict[str, float]:
    """The statistics the model's parameters fix, to compare a sample against ``expected``."""
    parallel = work.size > 1
    return {
        "serial_share": float(np.mean(~parallel)),
        "pow2_share_of_parallel": float(np.mean((work.size[parallel] & (work.size[parallel] - 1)) == 0)),
        "mean_log_runtime": float(np.mean(np.log(work.runtime))),
        "batch_share": float(np.mean(work.kind == 1)),
        "mean_interarrival": float(np.mean(np.diff(work.arrival))) if work.arrival.size > 1 else math.nan,
    }
