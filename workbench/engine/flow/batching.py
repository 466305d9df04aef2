"""Batch formation for cyclic scheduling (seed 003 §1; docs/design.md "Batch formation").

Dq, the "compatibility" of a job with the resource domain in this cycle, is the
sum of four terms (seed 003 eqs. 1-4):

    Dq1 = Kq/Cq · (Q/Q0 − Cq)        price/quality: Q = S/(n·t·p), Q0 = mean c/p of the nodes
    Dq2 = Kn/Cn · (Cn − n/n0)        width: n0 = nodes of performance >= p
    Dq3 = Kl/Cl · (Cl − t·p/l_s)     length: l_s = mean slot length in unit-performance time
    Dq4 = Kv/Cv · (Cv − t·p·n/V_s)   volume: V_s = total slot time in unit-performance time

Here t·p is the job's volume V (its reservation time at performance p), so
t·p·n = n·V. The paper writes the normaliser as a lower-case c; we read it as
the threshold C of the same term. With a cost limit, Dq4 compares budgets with
the total slot cost instead. Jobs with the *smallest positive* Dq (the most
"problematic" that can still be scheduled) are preferred, and a batch is
ordered by ascending Dq.

* ``Random(size)``: ``size`` jobs drawn at random (seeded per cycle), kept in queue order.
* ``KnapsackT``/``KnapsackC``: a 0-1 knapsack with value 1/Dq (jobs with Dq <= 0 never
  enter), weight n·V or the budget, and capacity limit_coefficient × V_s or × total slot cost.
* ``MDqT``/``MDqC``: greedy, one job at a time, with Dq4 recomputed over the jobs
  already in the batch (eq. 5), while some job has a positive Dq. With ``mdq_limit``
  "hard" (the default) a job must also fit within the knapsack's limit
  (limit_coefficient × V_s or × total slot cost). With "soft", the paper's own
  reading (§1.3: "the limit is not strict ... the administrators' coefficient is
  C_v"), there is no such cap: C_v is set to limit_coefficient, so Dq4 turns negative
  once the batch passes that share of the domain, yet a job whose other terms are
  high enough still enters.

An infinite budget counts as the job's market cost n·V·Q0, and Q/Q0 is capped at
``q_cap`` so that a job without a budget limit still gets a finite Dq.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.engine.errors import ParameterError
from workbench.engine.model import EPS, Environment, Job
from workbench.engine.slots import SlotTable

DQ_DEFAULTS: dict[str, float] = {
    "k_q": 1.0,
    "k_n": 1.0,
    "k_l": 1.0,
    "k_v": 1.0,
    "c_q": 1.0,
    "c_n": 1.0,
    "c_l": 1.0,
    "c_v": 0.5,
    "q_cap": 10.0,
}
METHODS = ("all", "random", "knapsack_t", "knapsack_c", "mdq_t", "mdq_c")
MDQ_LIMITS = ("hard", "soft")


class BatchFormer:
    name = "all"

    def form(self, queue: list[Job], table: SlotTable, env: Environment, cycle: int) -> list[Job]:
        raise NotImplementedError


class AllJobs(BatchFormer):
    """The whole queue is the batch."""

    def form(self, queue: list[Job], table: SlotTable, env: Environment, cycle: int) -> list[Job]:
        return list(queue)


@dataclass
class RandomBatch(BatchFormer):
    size: int
    seed: int = 0
    name = "random"

    def form(self, queue: list[Job], table: SlotTable, env: Environment, cycle: int) -> list[Job]:
        if len(queue) <= self.size:
            return list(queue)
        rng = np.random.default_rng([self.seed, cycle])
        chosen = set(rng.choice(len(queue), size=self.size, replace=False).tolist())
        return [job for i, job in enumerate(queue) if i in chosen]


@dataclass(frozen=True)
class Domain:
    """What Dq needs to know of the resource domain in one cycle."""

    q0: float  # mean c/p of the nodes
    perf: np.ndarray
    mean_slot: float  # l_s: mean slot length, in unit-performance time
    volume: float  # V_s: total slot time, in unit-performance time
    cost: float  # total cost of all slots

    @classmethod
    def of(cls, table: SlotTable) -> Domain:
        ends = table.end
        if not np.isfinite(ends).all():
            # An unbounded horizon: measure the open slots up to the last known boundary.
            known = np.concatenate([table.start, ends[np.isfinite(ends)]])
            ends = np.minimum(ends, max(float(known.max(initial=table.istart)), table.istart + 1.0))
        lengths = np.maximum(ends - table.start, 0.0)
        unit = lengths * table.perf[table.node]
        return cls(
            q0=float(np.mean(table.price / table.perf)),
            perf=table.perf,
            mean_slot=float(unit.mean()) if unit.size else 0.0,
            volume=float(unit.sum()),
            cost=float((lengths * table.price[table.node]).sum()),
        )


@dataclass
class DqBatch(BatchFormer):
    """KnapsackT/C and MDqT/C: batches by the Dq coefficient of seed 003."""

    method: str
    limit_coefficient: float = 0.5
    k_q: float = 1.0
    k_n: float = 1.0
    k_l: float = 1.0
    k_v: float = 1.0
    c_q: float = 1.0
    c_n: float = 1.0
    c_l: float = 1.0
    c_v: float = 0.5
    q_cap: float = 10.0
    resolution: int = 2000  # knapsack capacity units
    mdq_limit: str = "hard"

    def __post_init__(self) -> None:
        for key in ("c_q", "c_n", "c_l", "c_v"):
            if getattr(self, key) <= 0:
                raise ParameterError(key, "must be > 0 (it divides its Dq term)")
        if not 0 < self.limit_coefficient <= 1:
            raise ParameterError("limit_coefficient", "must be in (0, 1]")
        if self.mdq_limit not in MDQ_LIMITS:
            raise ParameterError("mdq_limit", f"expected one of {', '.join(MDQ_LIMITS)}, got {self.mdq_limit!r}")
        if self.soft:
            self.c_v = self.limit_coefficient  # the administrators' coefficient of the soft limit
        self.name = self.method

    @property
    def soft(self) -> bool:
        """MDq with the paper's soft limit (no cap; C_v is the limit coefficient)."""
        return self.method.startswith("mdq") and self.mdq_limit == "soft"

    @property
    def by_cost(self) -> bool:
        return self.method.endswith("_c")

    def budget(self, job: Job, dom: Domain) -> float:
        return job.node_count * job.volume * dom.q0 if math.isinf(job.budget) else job.budget

    def weight(self, job: Job, dom: Domain) -> float:
        return self.budget(job, dom) if self.by_cost else job.node_count * job.volume

    def capacity(self, dom: Domain) -> float:
        return dom.cost if self.by_cost else dom.volume

    def dq(self, job: Job, dom: Domain, already: float = 0.0) -> float:
        """Dq of seed 003 eqs. 1-4; ``already`` is the weight of the batch so far (eq. 5)."""
        n0 = int((dom.perf >= job.min_performance - EPS).sum())
        if n0 == 0 or dom.volume <= 0 or dom.q0 <= 0:
            return -math.inf
        q = self.budget(job, dom) / (job.node_count * job.volume)
        dq1 = self.k_q / self.c_q * (min(q / dom.q0, self.q_cap) - self.c_q)
        dq2 = self.k_n / self.c_n * (self.c_n - job.node_count / n0)
        dq3 = self.k_l / self.c_l * (self.c_l - job.volume / max(dom.mean_slot, EPS))
        capacity = self.capacity(dom)
        dq4 = self.k_v / self.c_v * (self.c_v - (self.weight(job, dom) + already) / max(capacity, EPS))
        return dq1 + dq2 + dq3 + dq4

    def form(self, queue: list[Job], table: SlotTable, env: Environment, cycle: int) -> list[Job]:
        dom = Domain.of(table)
        if self.method.startswith("knapsack"):
            return self._knapsack(queue, dom)
        return self._greedy(queue, dom)

    def _knapsack(self, queue: list[Job], dom: Domain) -> list[Job]:
        dqs = [self.dq(job, dom) for job in queue]
        items = [i for i, d in enumerate(dqs) if d > 0]
        capacity = self.limit_coefficient * self.capacity(dom)
        if not items or capacity <= 0:
            return []
        unit = capacity / self.resolution
        weights = [math.ceil(self.weight(queue[i], dom) / unit - 1e-9) for i in items]
        values = [1.0 / dqs[i] for i in items]
        chosen = knapsack_01(values, weights, self.resolution)
        picked = [items[j] for j in chosen]
        return [queue[i] for i in sorted(picked, key=lambda i: (dqs[i], i))]

    def _greedy(self, queue: list[Job], dom: Domain) -> list[Job]:
        left = list(range(len(queue)))
        batch: list[int] = []
        already = 0.0
        # The same limit as the knapsack's, or none (the soft limit lives in Dq4 itself).
        limit = math.inf if self.soft else self.limit_coefficient * self.capacity(dom)
        while left:
            scored = [(self.dq(queue[i], dom, already), i) for i in left]
            positive = [(d, i) for d, i in scored if d > 0 and already + self.weight(queue[i], dom) <= limit + EPS]
            if not positive:
                break
            _, best = min(positive)
            batch.append(best)
            left.remove(best)
            already += self.weight(queue[best], dom)
        return [queue[i] for i in batch]


def knapsack_01(values: list[float], weights: list[int], capacity: int) -> list[int]:
    """Exact 0-1 knapsack by dynamic programming over integer weights; indices chosen."""
    m = len(values)
    best = np.zeros((m + 1, capacity + 1))
    for i in range(m):
        best[i + 1] = best[i]
        w = weights[i]
        if w <= capacity:
            np.maximum(best[i + 1, w:], best[i, : capacity + 1 - w] + values[i], out=best[i + 1, w:])
    chosen = []
    c = capacity
    for i in range(m, 0, -1):
        if best[i, c] != best[i - 1, c]:
            chosen.append(i - 1)
            c -= weights[i - 1]
    return sorted(chosen)


def make_batch_former(params: dict[str, object]) -> BatchFormer:
    """The batch former named by ``params['batching']`` with its parameters."""
    method = str(params.get("batching", "all"))
    if method == "all":
        return AllJobs()
    if method == "random":
        size = int(params.get("batch_size", 10))  # type: ignore[call-overload]
        if size < 1:
            raise ParameterError("batch_size", "must be at least 1")
        return RandomBatch(size, int(params.get("seed", 0)))  # type: ignore[call-overload]
    if method not in METHODS:
        raise ParameterError("batching", f"expected one of {', '.join(METHODS)}, got {method!r}")
    constants = {key: float(params.get(key, default)) for key, default in DQ_DEFAULTS.items()}  # type: ignore[arg-type]
    limit = float(params.get("limit_coefficient", 0.5))  # type: ignore[arg-type]
    return DqBatch(
        method,
        limit,
        k_q=constants["k_q"],
        k_n=constants["k_n"],
        k_l=constants["k_l"],
        k_v=constants["k_v"],
        c_q=constants["c_q"],
        c_n=constants["c_n"],
        c_l=constants["c_l"],
        c_v=constants["c_v"],
        q_cap=constants["q_cap"],
        mdq_limit=str(params.get("mdq_limit", "hard")),
    )
