"""Conventional grid scheduling of seed 004 §3: local, job sharing, multi-site, adaptive multi-site.

The grid is the environment's sites (``Node.site``); every node is identical, so a job
of volume V runs for T = V / p on any machine. All four strategies are EASY (docs/design.md
"EASY"): event by event, completions before arrivals, queue heads start while they
can, the blocked head gets a reservation, and later jobs start now when that does not
touch the reservation. They differ in the queues and in where a job may start:

* ``Local``: one queue per site holding the jobs submitted there; each site runs EASY
  on its own machine only (§3, "Local job processing").
* ``Job sharing``: one grid queue; a job starts on the machine it fits now that keeps
  the fewest idle nodes (the paper's BestFit); the blocked head is reserved on the
  machine where it can start first (§3, "Job sharing").
* ``Multi-site``: as job sharing, but a job that fits no single machine now starts at
  once over several when their idle nodes together suffice, the sites taken in
  descending order of idle nodes, its runtime stretched to (1 + overhead)·T (§3.1).
* ``Adaptive multi-site``: a job goes multi-site only when that completes sooner than
  its earliest single-machine start + T, estimated from the requested ends (Fig. 4).

Decisions where the paper is silent (docs/design.md, "Design decisions"): nodes are taken lowest
index first on each machine; ties between machines go to the earlier site; the
reservation of a blocked head is its earliest start, single-machine or (when allowed)
multi-site, the single machine winning a tie; a multi-site start that would touch the
head's reservation waits like any other backfill; a job wider than every machine
fails on arrival unless multi-site execution may run it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.engine.errors import ParameterError, show
from workbench.engine.flow.events import EventPolicy, WaitingQueue, run_events
from workbench.engine.model import EPS, Environment, Job, Window
from workbench.engine.references import paper
from workbench.engine.simulate import FlowRun, Recorder

MODES = ("local", "share", "multi", "adaptive")


@dataclass(frozen=True)
class Grid:
    """The machines of an environment: each site's node positions (lowest first) and size."""

    sites: tuple[str, ...]
    hosts: tuple[np.ndarray, ...]
    site_of: np.ndarray  # node position -> site index
    performance: float
    price: float

    @property
    def sizes(self) -> list[int]:
        return [h.size for h in self.hosts]


def grid_of(env: Environment) -> Grid:
    """The grid of ``env``, or a one-line error naming what stops a grid strategy running on it.

    An environment without sites is one machine. Every node must be identical (seed 004's
    machines), there must be no local tasks, and the horizon must be unbounded.
    """
    if not env.nodes:
        raise ParameterError("nodes", "a grid strategy needs at least one node")
    first = env.nodes[0]
    for node in env.nodes:
        if node.performance != first.performance or node.price != first.price:
            raise ParameterError(
                "nodes",
                f"grid strategies need identical nodes ({paper('004')}); node {show(node.id)} has performance "
                f"{node.performance:g} and price {node.price:g}, node {show(first.id)} {first.performance:g} "
                f"and {first.price:g}",
            )
    if env.local_tasks:
        raise ParameterError(
            "local_tasks", f"grid strategies do not model owners' local tasks; remove the {len(env.local_tasks)} there"
        )
    if env.time.horizon is not None:
        raise ParameterError("time.horizon", "grid strategies run until every job has run; set the horizon to null")
    sites = env.site_ids
    if not sites:
        return Grid(("",), (np.arange(len(env.nodes)),), np.zeros(len(env.nodes), dtype=np.int64), first.performance,
                    first.price)  # fmt: skip
    unsited = [node.id for node in env.nodes if not node.site]
    if unsited:
        raise ParameterError("nodes", f"node {show(unsited[0])} belongs to no site while others do; give it a site")
    index = {site: k for k, site in enumerate(sites)}
    site_of = np.array([index[node.site] for node in env.nodes], dtype=np.int64)
    hosts = tuple(np.flatnonzero(site_of == k) for k in range(len(sites)))
    empty = [sites[k] for k, h in enumerate(hosts) if h.size == 0]
    if empty:
        raise ParameterError("sites", f"site {show(empty[0])} has no nodes")
    return Grid(tuple(sites), hosts, site_of, first.performance, first.price)


@dataclass
class _Hold:
    """The blocked head's reservation: from ``shadow``, the ``reserved`` nodes are its."""

    shadow: float
    reserved: np.ndarray  # bool per node
    held_free: list[int]  # per site: free nodes that are reserved


class GridRules:
    """What every grid strategy computes the same way: a job's runtime, its cost, whether it is too slow."""

    grid: Grid

    def runtime(self, job: Job) -> float:
        return job.volume / self.grid.performance

    def cost(self, n: int, length: float) -> float:
        return n * length * self.grid.price

    def too_slow(self, job: Job) -> str | None:
        if job.min_performance > self.grid.performance + EPS:
            return (
                f"asks for nodes of performance ≥ {job.min_performance:g}; every node here has "
                f"{self.grid.performance:g}"
            )
        return None


class GridRun(GridRules, EventPolicy):
    """The shared state and rules of the four conventional grid strategies, and their policy in
    the event loop (``flow.events.run_events``): Local keeps one queue per machine, the others
    one grid queue."""

    def __init__(self, env: Environment, params: dict[str, Any], rec: Recorder, mode: str) -> None:
        EventPolicy.__init__(self, env)
        self.env, self.rec, self.mode = env, rec, mode
        self.grid = grid = grid_of(env)
        self.overhead = float(params.get("overhead", 0.0))
        self.stretch = 1.0 + self.overhead
        self.ids = [n.id for n in env.nodes]
        self.free = np.ones(len(env.nodes), dtype=bool)
        self.predicted = np.full(len(env.nodes), -math.inf)  # requested end of the job on each busy node
        self.free_n = grid.sizes  # per site
        self.sizes = grid.sizes
        self.widest = max(self.sizes)
        self.multi_allowed = mode in ("multi", "adaptive")
        self.everywhere = list(range(len(grid.sites)))
        self.site_index = {site: k for k, site in enumerate(grid.sites)}
        if mode == "local":
            self.queues = [([k], WaitingQueue(env)) for k in self.everywhere]
        else:
            self.queues = [(self.everywhere, self.queue)]

    # ---------------------------------------------------------------- rules

    def cannot_run(self, job: Job, sites: list[int]) -> str | None:
        """Why ``job`` can never run on these machines of an empty grid, or None."""
        n, T = job.node_count, self.runtime(job)
        slow = self.too_slow(job)
        if slow is not None:
            return slow
        widest = max(self.sizes[s] for s in sites)
        total = sum(self.sizes[s] for s in sites)
        single = n <= widest and self.cost(n, T) <= job.budget + EPS
        multi = (
            self.multi_allowed and len(sites) > 1 and n <= total and self.cost(n, self.stretch * T) <= job.budget + EPS
        )
        if single or multi:
            return None
        if n > widest and not (self.multi_allowed and n <= total):
            where = f"its site {show(self.grid.sites[sites[0]])}" if self.mode == "local" else "every machine"
            hint = "; split it with a workload modification (1–3)" if self.mode != "multi" else ""
            return f"asks for {n} nodes, more than {where} has ({widest}){hint}"
        return f"costs at least {self.cost(n, T):g} on any machine, over its budget {job.budget:g}"

    def usable(self, s: int, short: bool, hold: _Hold | None) -> int:
        """Free nodes of site ``s`` a job may take now (reserved ones only if it ends before the shadow)."""
        if hold is None or short:
            return self.free_n[s]
        return self.free_n[s] - hold.held_free[s]

    def single_choice(self, job: Job, sites: list[int], now: float, hold: _Hold | None) -> int | None:
        """BestFit: the machine where the job starts now and leaves the fewest idle nodes."""
        n, T = job.node_count, self.runtime(job)
        if self.cost(n, T) > job.budget + EPS:
            return None
        short = hold is not None and now + T <= hold.shadow + EPS
        best, best_left = None, math.inf
        for s in sites:
            if self.sizes[s] >= n and self.usable(s, short, hold) >= n:
                left = self.free_n[s] - n
                if left < best_left:
                    best, best_left = s, left
        return best

    def multi_choice(self, job: Job, sites: list[int], now: float, hold: _Hold | None) -> list[tuple[int, int]] | None:
        """[(site, nodes)] of a multi-site start now, sites by descending idle nodes, or None."""
        n, T = job.node_count, self.stretch * self.runtime(job)
        if self.cost(n, T) > job.budget + EPS:
            return None
        short = hold is not None and now + T <= hold.shadow + EPS
        usable = [(self.usable(s, short, hold), s) for s in sites]
        if sum(u for u, _ in usable) < n:
            return None
        usable.sort(key=lambda us: (-us[0], us[1]))
        parts, need = [], n
        for u, s in usable:
            if need == 0 or u == 0:
                break
            take = min(u, need)
            parts.append((s, take))
            need -= take
        return parts if len(parts) > 1 else None

    def earliest_single(self, job: Job, sites: list[int], now: float) -> tuple[float, int] | None:
        """(start, site) of the job's earliest single-machine start, running jobs ending as requested."""
        n = job.node_count
        best: tuple[float, int] | None = None
        for s in sites:
            if self.sizes[s] < n:
                continue
            hosts = self.grid.hosts[s]
            avail = np.where(self.free[hosts], now, self.predicted[hosts])
            t = float(np.partition(avail, n - 1)[n - 1])
            if best is None or t < best[0] - EPS:
                best = (t, s)
        return best

    def earliest_multi(self, job: Job, sites: list[int], now: float) -> float:
        hosts = np.concatenate([self.grid.hosts[s] for s in sites])
        if hosts.size < job.node_count:
            return math.inf
        avail = np.where(self.free[hosts], now, self.predicted[hosts])
        return float(np.partition(avail, job.node_count - 1)[job.node_count - 1])

    def goes_multi(self, job: Job, sites: list[int], now: float) -> bool:
        """Adaptive multi-site (Fig. 4): start multi-site now only if that completes sooner."""
        if self.mode != "adaptive":
            return True
        single = self.earliest_single(job, sites, now)
        T = self.runtime(job)
        return single is None or now + self.stretch * T < single[0] + T - EPS

    # ---------------------------------------------------------------- actions

    def take(self, s: int, count: int, hold: _Hold | None, short: bool) -> np.ndarray:
        hosts = self.grid.hosts[s]
        ok = self.free[hosts]
        if hold is not None and not short:
            ok &= ~hold.reserved[hosts]
        return hosts[np.flatnonzero(ok)[:count]]

    def start(self, job: Job, parts: list[tuple[int, int]], now: float, hold: _Hold | None) -> None:
        multi = len(parts) > 1
        T = self.runtime(job) * (self.stretch if multi else 1.0)
        short = hold is not None and now + T <= hold.shadow + EPS
        chosen = np.sort(np.concatenate([self.take(s, k, hold, short) for s, k in parts]))
        assert chosen.size == job.node_count
        self.free[chosen] = False
        self.predicted[chosen] = now + T
        for s, k in parts:
            self.free_n[s] -= k
        if hold is not None:
            for node in chosen[hold.reserved[chosen]]:
                hold.held_free[int(self.grid.site_of[node])] -= 1
        window = Window(
            job.id, now, T, tuple(self.ids[i] for i in chosen), self.cost(job.node_count, T),
            overhead=self.overhead if multi else 0.0,
        )  # fmt: skip
        self.rec.place(window)
        self.completions.add(self.rec.actual[job.id], job.id, chosen)

    def try_start(self, job: Job, sites: list[int], now: float, hold: _Hold | None) -> bool:
        s = self.single_choice(job, sites, now, hold)
        if s is not None:
            self.start(job, [(s, job.node_count)], now, hold)
            return True
        if self.multi_allowed and len(sites) > 1:
            parts = self.multi_choice(job, sites, now, hold)
            if parts is not None and self.goes_multi(job, sites, now):
                self.start(job, parts, now, hold)
                return True
        return False

    def reserve(self, job: Job, sites: list[int], now: float) -> _Hold | None:
        """The blocked head's reservation: its earliest start under the requested ends."""
        n, T = job.node_count, self.runtime(job)
        single = self.earliest_single(job, sites, now) if self.cost(n, T) <= job.budget + EPS else None
        t_single = single[0] if single is not None else math.inf
        multi_ok = self.multi_allowed and len(sites) > 1 and self.cost(n, self.stretch * T) <= job.budget + EPS
        t_multi = self.earliest_multi(job, sites, now) if multi_ok else math.inf
        if self.mode == "adaptive":
            use_multi = t_multi + self.stretch * T < t_single + T - EPS
        else:
            use_multi = t_multi < t_single - EPS
        shadow = t_multi if use_multi else t_single
        if math.isinf(shadow):
            return None
        reserved = np.zeros(len(self.free), dtype=bool)
        chosen_sites = sites if use_multi else [single[1]] if single is not None else []
        hosts = np.concatenate([self.grid.hosts[s] for s in chosen_sites])
        avail = np.where(self.free[hosts], now, self.predicted[hosts])
        ready = hosts[avail <= shadow + EPS]
        if use_multi:  # sites in descending order of nodes ready by then, as a multi-site start takes them
            counts = np.bincount(self.grid.site_of[ready], minlength=len(self.sizes))
            order = sorted(chosen_sites, key=lambda s: (-counts[s], s))
            ready = np.concatenate([ready[self.grid.site_of[ready] == s] for s in order])
        reserved[ready[:n]] = True
        held = np.bincount(self.grid.site_of[reserved & self.free], minlength=len(self.sizes)).tolist()
        self.rec.note_reservation(job.id, shadow)
        if self.rec.history:
            length = T * (self.stretch if use_multi else 1.0)
            self.rec.hold = (job.id, shadow, length, tuple(self.ids[i] for i in np.flatnonzero(reserved)))
        return _Hold(shadow, reserved, held)

    def easy_step(self, queue: WaitingQueue, sites: list[int], now: float, started: list[str]) -> None:
        """One EASY pass over ``queue`` on the machines ``sites``."""
        jobs = queue.jobs
        while jobs and self.try_start(jobs[0], sites, now, None):
            started.append(queue.remove_at(0).id)
        if not jobs or not any(self.free_n[s] for s in sites):
            return
        hold = self.reserve(jobs[0], sites, now)
        at = 1
        idle = sum(self.free_n[s] for s in sites)
        while at < len(jobs) and idle:
            job = jobs[at]
            if job.node_count > idle or not self.try_start(job, sites, now, hold):
                at += 1
                continue
            started.append(queue.remove_at(at).id)
            idle -= job.node_count

    # ---------------------------------------------------------------- events

    def admit(self, job: Job, earliest: float) -> str | None:
        if self.mode == "local":
            k = self.site_index.get(job.site) if job.site or len(self.grid.sites) > 1 else 0
            if k is None:
                return "has no submitting site; Local runs each job on its own site's machine"
            sites, queue = self.queues[k]
        else:
            sites, queue = self.queues[0]
        reason = self.cannot_run(job, sites)
        if reason is None:
            queue.add(job)
        return reason

    def release(self, job_id: str, chosen: Any) -> None:
        self.free[chosen] = True
        self.predicted[chosen] = -math.inf
        for s in self.grid.site_of[chosen]:
            self.free_n[int(s)] += 1

    def schedule(self, now: float) -> list[str]:
        started: list[str] = []
        self.rec.hold = None
        for sites, queue in self.queues:
            self.easy_step(queue, sites, now, started)
        return started

    def queued(self) -> tuple[str, ...]:
        return tuple(j for _, q in self.queues for j in q.ids())


def grid_flow(mode: str) -> Any:
    """The flow of one conventional grid strategy (registry entries Local … Adaptive multi-site)."""

    def flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
        yield from _run(env, params, rec, mode)

    return flow


def _run(env: Environment, params: dict[str, Any], rec: Recorder, mode: str) -> FlowRun:
    run = GridRun(env, params, rec, mode)
    opening = f"start: {len(env.jobs)} jobs, {len(env.nodes)} nodes on {len(run.grid.sites)} machine(s)"
    yield from run_events(env, rec, run, opening)
