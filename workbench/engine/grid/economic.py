"""The economic grid scheduler of seed 004 §4: offers, machine and user utility, co-allocation.

Every site is a domain with one machine. A job is booked when it arrives (the paper's
instant feedback on the start time): each machine able to run it makes offers from
its planned schedule, each offer carries the utility UV = UF(MV, o) of the job's user
with MV = MF(o) the machine's value (its price, the job's cost in UF2–UF5), and the
offer of highest utility is booked. A job wider than every machine is co-allocated
over several (§4.4).

The offer search is the paper's, done with arrays (decisions where it is silent are in
the README, "Design decisions"):

* **Idle intervals** (Fig. 11): the planned schedule of each node, cut at the current
  time, gives its idle intervals; an interval is usable when it holds the runtime T.
  A start s is feasible when at least n usable intervals contain [s, s + T]; the
  feasible starts are found with one sorted sweep over the interval ends, the
  sweep of Fig. 11 (an interval starting at or before s counts +1, one ending too
  soon for s −1). Each machine offers its first ``starts`` feasible starts (the
  paper's "number of steps" of the fine selection; with UF1 only the first can win).
* **Offers at a start** (Figs. 13–15): the nodes free over [s, s + T] differ only in
  the idle time they leave before and after the job; MV is linear in that sum at a
  fixed s, so the best combination the bucket method can form is the n nodes with
  the least (or, when MV falls as it grows, the most) of it. That combination is
  computed directly; :func:`bucket_offers` is the paper's enumeration, kept for the
  Fig. 12 example and to check the direct choice against.
* **Machine value** (Fig. 16, §4.5): before and after are the idle node-time on the
  chosen nodes from now (or the end of their previous job) to s and from s + T to
  their next job (or the end of the machine's schedule); parallel is the idle
  node-time of the machine's other nodes during [s, s + T]; parallel_rel = parallel
  / (n·T). MF1–MF6 combine them as the paper lists.
* **User utility** (§4.5): StartTime is the wait s − arrival (a constant shift of the
  paper's absolute time, which changes no choice); JobCost is MV.
* **Ties**: the higher utility, then the earlier start, the lower MV, the job's own
  site, the earlier site; on a machine, nodes by the least idle time, then lowest index.
  Under UF1 the user's utility ignores MV, so the MF only breaks ties, and the paper
  names no rule for them. With MF1 the lowest MV is the *worst* fit whenever the machine
  has more idle node-time beside the job than the job uses. ``ties=fit`` decides them by
  the least idle node-time left (before + after + parallel, MF2's absolute value) and,
  under UF1, offers the nodes that fit best (least before + after), whatever the MF.
* **Co-allocation** (§4.4): only when no machine has n nodes. Starts are tried in
  time order; the first at which the machines together have n nodes free for the
  stretched runtime (1 + overhead)·T wins, the machines taken in descending order of
  free nodes, as in multi-site scheduling.

The plan holds the requested runtimes. A job that ends early frees the rest of its
booking for jobs that arrive later; booked jobs keep their start (the promise made at
submission) and are never moved.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.engine import words
from workbench.engine.errors import ParameterError, show
from workbench.engine.flow.events import arrivals_in_order
from workbench.engine.grid.sim import GridRules, grid_of
from workbench.engine.model import EPS, Environment, Job, Window
from workbench.engine.simulate import FlowRun, Recorder

# name -> (weight of before, weight of after, weight of parallel, times (1 - parallel_rel)?)
MACHINE_FUNCTIONS: dict[str, tuple[float, float, float, bool]] = {
    "MF1": (1.0, 1.0, 1.0, True),
    "MF2": (1.0, 1.0, 1.0, False),
    "MF3": (1.0, 1.0, 0.0, True),
    "MF4": (0.0, 0.0, 1.0, True),
    "MF5": (0.0, 1.0, 1.0, True),
    "MF6": (1.0, 0.0, 1.0, True),
}
# name -> (weight of StartTime, weight of JobCost); UV = -(a·StartTime + b·JobCost)
USER_FUNCTIONS: dict[str, tuple[float, float]] = {
    "UF1": (1.0, 0.0),
    "UF2": (0.0, 1.0),
    "UF3": (1.0, 1.0),
    "UF4": (1.0, 2.0),
    "UF5": (2.0, 1.0),
}


def machine_function(name: str) -> tuple[float, float, float, bool]:
    try:
        return MACHINE_FUNCTIONS[name]
    except KeyError:
        raise ParameterError(
            "machine_function", f"expected one of {', '.join(MACHINE_FUNCTIONS)}, got {show(name)}"
        ) from None


def user_function(name: str) -> tuple[float, float]:
    try:
        return USER_FUNCTIONS[name]
    except KeyError:
        raise ParameterError(
            "user_function", f"expected one of {', '.join(USER_FUNCTIONS)}, got {show(name)}"
        ) from None


def machine_value(mf: str, n: int, T: float, before: float, after: float, parallel: float) -> float:
    """MV = MF(o) of §4.5 for a job of ``n`` nodes and runtime ``T`` with these idle times."""
    return _value(machine_function(mf), n, T, before, after, parallel)


def utility(uf: str, wait: float, cost: float) -> float:
    """UV = UF(MV, o) of §4.5: StartTime is the wait, JobCost the machine value."""
    return _utility(user_function(uf), wait, cost)


def _value(
    mf: tuple[float, float, float, bool], n: int, T: float, before: float, after: float, parallel: float
) -> float:
    wb, wa, wp, factored = mf
    value = n * T + wb * before + wa * after + wp * parallel
    return value * (1.0 - parallel / (n * T)) if factored else value


def _utility(uf: tuple[float, float], wait: float, cost: float) -> float:
    a, b = uf
    return -(a * wait + b * cost)


# ---------------------------------------------------------------- the bucket method (Figs. 12-15)


@dataclass(frozen=True)
class BucketOffer:
    """Nodes free together from ``start`` to ``end`` (the latest start and earliest end of theirs)."""

    nodes: tuple[int, ...]
    start: float
    end: float


def bucket_offers(
    intervals: list[tuple[int, float, float]], n: int, runtime: float, limit: int | None = None
) -> list[BucketOffer]:
    """The paper's offers from idle intervals ``(node, start, end)`` for ``n`` nodes and ``runtime``.

    Intervals shorter than the runtime are dropped. Buckets hold the intervals of one start
    and one end, in time order, nodes lowest first. A bucket that alone has n nodes makes an
    offer of its first n and keeps n − 1 of them; the buckets that cannot are poured into
    one new bucket; then every n-combination of what is left, in order, is an offer when
    its nodes share the runtime (latest start + runtime ≤ earliest end). ``limit`` stops
    the search once that many offers are found ("while not enough offers found").
    """
    usable = sorted((s, e, node) for node, s, e in intervals if e - s >= runtime - EPS)
    buckets = [
        [(node, s, e) for s, e, node in group] for _, group in itertools.groupby(usable, key=lambda x: (x[0], x[1]))
    ]
    offers: list[BucketOffer] = []
    seen: set[tuple[tuple[int, ...], float, float]] = set()

    def add(members: tuple[tuple[int, float, float], ...]) -> bool:
        nodes = tuple(sorted(m[0] for m in members))
        start, end = max(m[1] for m in members), min(m[2] for m in members)
        if len(set(nodes)) < n or start + runtime > end + EPS or (nodes, start, end) in seen:
            return False
        seen.add((nodes, start, end))
        offers.append(BucketOffer(nodes, start, end))
        return limit is not None and len(offers) >= limit

    kept: list[tuple[int, float, float]] = []
    poured: list[tuple[int, float, float]] = []
    for bucket in buckets:
        if len(bucket) >= n:
            if add(tuple(bucket[:n])):
                return offers
            kept.extend(bucket[: n - 1])
        else:
            poured.extend(bucket)
    for members in itertools.combinations(kept + poured, n):
        if add(members):
            return offers
    return offers


# ---------------------------------------------------------------- the planned schedule of one machine


class _Machine:
    """One machine's bookings, (node, start, end) rows, and the idle intervals they leave."""

    def __init__(self, hosts: np.ndarray) -> None:
        self.hosts = hosts
        self.k = hosts.size
        self.node = np.zeros(0, dtype=np.int64)  # local node index
        self.start = np.zeros(0)
        self.end = np.zeros(0)  # planned (requested) end
        self.actual = np.zeros(0)  # where the job really ends; used only once that has passed
        self.pending = math.inf  # the earliest actual end among the rows: a prune is due from then
        self.gaps: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.horizon = -math.inf  # the end of the planned schedule

    def book(self, local: np.ndarray, start: float, end: float, actual: float) -> None:
        self.node = np.concatenate([self.node, local])
        self.start = np.concatenate([self.start, np.full(local.size, start)])
        self.end = np.concatenate([self.end, np.full(local.size, end)])
        self.actual = np.concatenate([self.actual, np.full(local.size, actual)])
        self.pending = min(self.pending, actual)
        self.horizon = max(self.horizon, end)
        self.gaps = None

    def idle(self, now: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The idle intervals (node, from, to) at ``now``: jobs that have ended are gone."""
        if now >= self.pending - EPS:
            keep = self.actual > now + EPS
            self.node, self.start, self.end, self.actual = (
                self.node[keep], self.start[keep], self.end[keep], self.actual[keep]
            )  # fmt: skip
            self.pending = float(self.actual.min()) if self.actual.size else math.inf
            self.horizon = float(self.end.max()) if self.end.size else -math.inf
            self.gaps = None
        if self.gaps is None:
            order = np.lexsort((self.start, self.node))
            node, start, end = self.node[order], self.start[order], self.end[order]
            first = np.ones(node.size, dtype=bool)
            first[1:] = node[1:] != node[:-1]
            last = np.ones(node.size, dtype=bool)
            last[:-1] = first[1:]
            before_from = np.where(first, -math.inf, np.roll(end, 1))  # the gap before each booking
            empty = np.setdiff1d(np.arange(self.k), node)
            self.gaps = (
                np.concatenate([node, node[last], empty]),
                np.concatenate([before_from, end[last], np.full(empty.size, -math.inf)]),
                np.concatenate([start, np.full(int(last.sum()) + empty.size, math.inf)]),
            )
        return self.gaps

    def busy_within(self, s: np.ndarray, T: float) -> np.ndarray:
        """Booked node-time inside [s, s + T] for each start in ``s``."""
        if self.node.size == 0:
            return np.zeros(s.size)
        lo = np.maximum(self.start[None, :], s[:, None])
        hi = np.minimum(self.end[None, :], s[:, None] + T)
        return np.clip(hi - lo, 0.0, None).sum(axis=1)


@dataclass
class _Offer:
    utility: float
    start: float
    value: float
    idle: float  # before + after + parallel: the idle node-time the offer leaves beside the job
    own: bool
    site: int
    nodes: np.ndarray  # global node positions, sorted


def _usable(m: _Machine, now: float, T: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Idle intervals that hold T: node, earliest start a, latest start b, interval end."""
    node, lo, hi = m.idle(now)
    a = np.maximum(lo, now)
    ok = hi - a >= T - EPS
    return node[ok], a[ok], hi[ok] - T, hi[ok]


def _counts(a: np.ndarray, b: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """How many intervals (earliest start a, latest start b) hold the job from each start: the
    sweep of Fig. 11, +1 where an interval opens, -1 once it is too late for it."""
    return np.searchsorted(np.sort(a), starts + EPS, "right") - np.searchsorted(np.sort(b), starts - EPS, "left")


def _feasible(a: np.ndarray, b: np.ndarray, n: int, limit: int) -> np.ndarray:
    """The first ``limit`` starts where at least n intervals hold the job."""
    starts = np.unique(a)
    return starts[_counts(a, b, starts) >= n][:limit]


def _idle_at(
    m: _Machine, usable: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], s: float, T: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nodes idle over [s, s + T], with the idle time each leaves before and after the job."""
    node, a, b, hi = usable
    here = (a <= s + EPS) & (b >= s - EPS)
    after = np.minimum(hi[here], max(m.horizon, s + T)) - (s + T)
    return node[here], s - a[here], after


class EconomicRun(GridRules):
    def __init__(self, env: Environment, params: dict[str, Any], rec: Recorder) -> None:
        self.env, self.rec = env, rec
        self.grid = grid = grid_of(env)
        self.mf = machine_function(str(params.get("machine_function", "MF1")))
        self.uf = user_function(str(params.get("user_function", "UF1")))
        self.overhead = float(params.get("overhead", 0.0))  # the registry checks it is ≥ 0
        # With UF1 a later start never wins, so each machine need offer only its first.
        self.starts = 1 if self.uf[1] == 0.0 else int(params.get("starts", 4))
        self.fit = str(params.get("ties", "value")) == "fit"
        self.machines = [_Machine(h) for h in grid.hosts]
        self.sizes = grid.sizes
        self.ids = [n.id for n in env.nodes]

    def cannot_run(self, job: Job) -> str | None:
        n, T = job.node_count, self.runtime(job)
        slow = self.too_slow(job)
        if slow is not None:
            return slow
        if n > sum(self.sizes):
            return f"asks for {n} nodes, more than all machines together have ({sum(self.sizes)})"
        length = T if n <= max(self.sizes) else (1.0 + self.overhead) * T
        if self.cost(n, length) > job.budget + EPS:
            return f"costs at least {self.cost(n, length):g} on any machine, over its budget {job.budget:g}"
        return None

    def _pick(self, node: np.ndarray, before: np.ndarray, after: np.ndarray, n: int, falling: bool) -> np.ndarray:
        """Positions of the n nodes leaving the least weighted idle time (the most when MV falls as
        it grows), ties to the lowest node. With fit ties under UF1, whose utility cannot tell node
        choices apart, the least idle time before and after whatever the MF weighs (best fit)."""
        if self.fit and self.uf[1] == 0.0:
            return np.lexsort((node, before + after))[:n]
        wb, wa, _, _ = self.mf
        x = wb * before + wa * after
        return np.lexsort((node, -x if falling else x))[:n]

    def offers(self, job: Job, site: int, now: float) -> list[_Offer]:
        """This machine's best offer at each of its first feasible starts."""
        m = self.machines[site]
        n, T = job.node_count, self.runtime(job)
        usable = _usable(m, now, T)
        starts = _feasible(usable[1], usable[2], n, self.starts)
        if starts.size == 0:
            return []
        parallel = m.k * T - m.busy_within(starts, T) - n * T
        own = self.grid.sites[site] == job.site
        out = []
        for s, par in zip(starts.tolist(), parallel.tolist(), strict=True):
            node, before, after = _idle_at(m, usable, s, T)
            # MV falls as the idle time grows when its factor 1 - parallel_rel is negative
            chosen = self._pick(node, before, after, n, falling=self.mf[3] and par > n * T)
            b, a = float(before[chosen].sum()), float(after[chosen].sum())
            value = _value(self.mf, n, T, b, a, par)
            nodes = np.sort(m.hosts[node[chosen]])
            out.append(_Offer(_utility(self.uf, s - job.arrival, value), s, value, b + a + par, own, site, nodes))
        return out

    def co_allocate(self, job: Job, now: float) -> tuple[float, list[tuple[int, np.ndarray]]]:
        """The first start at which the machines together hold the job, and its nodes (§4.4)."""
        n, T = job.node_count, (1.0 + self.overhead) * self.runtime(job)
        usable = [_usable(m, now, T) for m in self.machines]
        starts = np.unique(np.concatenate([u[1] for u in usable]))
        counts = np.array([_counts(a, b, starts) for _, a, b, _ in usable])
        s_at = int(np.flatnonzero(counts.sum(axis=0) >= n)[0])
        s = float(starts[s_at])
        order = sorted(range(len(self.machines)), key=lambda k: (-counts[k, s_at], k))
        parts: list[tuple[int, np.ndarray]] = []
        need = n
        for k in order:
            if need == 0 or counts[k, s_at] == 0:
                break
            node, before, after = _idle_at(self.machines[k], usable[k], s, T)
            chosen = self._pick(node, before, after, min(need, node.size), falling=False)
            parts.append((k, node[chosen]))
            need -= chosen.size
        return s, parts

    def book(self, job: Job, now: float) -> str:
        n, T = job.node_count, self.runtime(job)
        fits = [k for k, size in enumerate(self.sizes) if size >= n]
        if fits:
            offers = [o for k in fits for o in self.offers(job, k, now)]
            best = max(offers, key=lambda o: (o.utility, -o.start, -(o.idle if self.fit else o.value), o.own, -o.site))
            parts = [(best.site, best.nodes)]
            start, length, overhead = best.start, T, 0.0
            where = f"on {self.grid.sites[best.site] or 'the machine'} (MV {best.value:.4g}, UV {best.utility:.4g})"
        else:
            start, local_parts = self.co_allocate(job, now)
            parts = [(k, self.machines[k].hosts[local]) for k, local in local_parts]
            length, overhead = (1.0 + self.overhead) * T, self.overhead
            where = "co-allocated over " + ", ".join(self.grid.sites[k] for k, _ in parts)
        nodes = np.sort(np.concatenate([p for _, p in parts]))
        window = Window(
            job.id, start, length, tuple(self.ids[i] for i in nodes), self.cost(n, length), overhead=overhead
        )
        self.rec.place(window)
        actual = self.rec.actual[job.id]
        for k, p in parts:
            m = self.machines[k]
            local = np.searchsorted(m.hosts, np.sort(p))
            m.book(local, start, start + length, actual)
        return f"job {job.id} booked from t={words.number(start)} {where}"


def economic_flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
    """The flow of the registry's ``Economic``: every job booked on arrival."""
    run = EconomicRun(env, params, rec)
    t0 = env.time.start
    arrivals = arrivals_in_order(env)
    yield rec.snap(t0, f"start: {len(env.jobs)} jobs, {len(env.nodes)} nodes on {len(run.grid.sites)} machine(s)")
    ends: list[tuple[float, str]] = []
    for i, job in enumerate(arrivals):
        now = max(job.arrival, t0)
        rec.report(i, len(arrivals))
        done = []
        while ends and ends[0][0] <= now + EPS:
            done.append(heapq.heappop(ends)[1])
        reason = run.cannot_run(job)
        if reason is not None:
            rec.fail(job.id, reason)
            label = f"job {job.id} arrived; {reason}"
        else:
            label = run.book(job, now)
            heapq.heappush(ends, (rec.actual[job.id], job.id))
        if rec.history:
            finished = f"{words.jobs(done)} finished; " if done else ""
            yield rec.snap(now, f"t={words.number(now)}: {finished}{label}")
        else:
            yield rec.snap(now, "")
    rec.report(len(arrivals), len(arrivals))
    yield rec.snap(max(rec.actual.values(), default=t0), f"end: {len(rec.windows)} placed")
