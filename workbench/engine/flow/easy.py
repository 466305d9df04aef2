"""EASY backfilling (seed 004 §3, Lifka; docs/design.md "EASY").

Event-driven over the whole horizon (cycle lengths do not apply). At each event
time, every completion is applied before the arrivals at that time; then

1. queue heads start while a window starting now exists;
2. the blocked head gets a reservation: its earliest window (FirstFit), with the
   running jobs predicted to end at start + requested length;
3. every later job, in queue order, starts now if it has a window starting now
   that does not intersect that reservation (in nodes and time).

Running jobs release their nodes at their actual end. The general path goes
through the window search, so it works on heterogeneous nodes with local tasks
and budgets. When every node is identical (same performance and price), there
are no local tasks and the horizon is unbounded, a host-level fast path gives the
same schedule: free hosts are taken lowest index first, as Batsim's batsched does.

A job that can never run (too wide, too slow, over budget on an empty system)
fails when it arrives. A head that has no window before a bounded horizon under
the prediction gets no reservation (later jobs may still start), and is retried
at every event; whatever is still queued when the events run out fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from workbench.engine import kernels
from workbench.engine.diagnose import explain_failure
from workbench.engine.flow.cycles import capable, capable_jobs
from workbench.engine.flow.events import (
    EventPolicy,
    run_events,
)
from workbench.engine.flow.listing import fail_still_waiting, list_scheduling, window_now
from workbench.engine.jobarrays import job_array
from workbench.engine.kernels.types import EasyArrivals, EasyJobs, EasyNodes, EasyRun
from workbench.engine.model import EPS, Environment, Job, Window
from workbench.engine.schedule import WindowArrays
from workbench.engine.search import budget_units, budget_units_of, cost_units, sorted_unique
from workbench.engine.search.firstfit import Best, first_affordable, first_fit
from workbench.engine.simulate import FlowRun, Recorder, collection_paused
from workbench.engine.slots import SlotTable

Plain = tuple[np.ndarray, ...]  # a named tuple of ``kernels.types`` as the kernels take it


def identical_hosts(env: Environment) -> bool:
    """Can the host-level fast path run this environment?"""
    perf = {n.performance for n in env.nodes}
    price = {n.price for n in env.nodes}
    return len(perf) == 1 and len(price) == 1 and not env.local_tasks and env.time.horizon is None


def easy(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
    if params.get("fast_path", True) and identical_hosts(env):
        yield from (_easy_hosts(env, rec) if rec.history else _easy_hosts_compiled(env, rec))
    elif params.get("fast_path", True) and not env.local_tasks:
        yield from (_easy_nodes(env, rec) if rec.history else _easy_nodes_compiled(env, rec))
    else:
        yield from _easy_general(env, rec)


def _easy_general(env: Environment, rec: Recorder) -> FlowRun:
    yield from list_scheduling(env, rec)


def _easy_hosts(env: Environment, rec: Recorder) -> FlowRun:
    opening = f"start: {len(env.jobs)} jobs, {len(env.nodes)} identical nodes"
    yield from run_events(env, rec, _Hosts(env, rec), opening)


class _Hosts(EventPolicy):
    """Host-level EASY on identical nodes: the same schedule as the general path, faster.

    Free hosts are counted, not summed: ``open_free`` outside the head's reservation,
    ``held_free`` inside it (usable only by jobs that end before it begins).
    """

    def __init__(self, env: Environment, rec: Recorder) -> None:
        super().__init__(env)
        self.env, self.rec = env, rec
        self.hosts = len(env.nodes)
        self.perf, self.price = env.nodes[0].performance, env.nodes[0].price
        self.ids = [n.id for n in env.nodes]
        self.free = np.ones(self.hosts, dtype=bool)
        self.n_free = self.hosts
        self.predicted = np.full(self.hosts, -math.inf)  # requested end of the job on each busy host
        self.length = {job.id: job.volume / self.perf for job in env.jobs}
        self.runs = _runs_on_hosts(_job_facts(env), self.hosts, self.perf, self.price).tolist()
        self.price_sum: dict[int, float] = {}  # n -> the price of n hosts, summed as the general path sums it

    def admit(self, job: Job, earliest: float) -> str | None:
        if not self.runs[self.env.job_index[job.id]]:
            return explain_failure(SlotTable.from_environment(self.env), job, earliest)
        self.queue.add(job)
        return None

    def release(self, job_id: str, chosen: Any) -> None:
        self.free[chosen] = True
        self.n_free += chosen.size
        self.predicted[chosen] = -math.inf

    def start(self, at: int, chosen: np.ndarray, now: float) -> str:
        job = self.queue.remove_at(at)
        T = self.length[job.id]
        n = job.node_count
        if n not in self.price_sum:
            self.price_sum[n] = float(np.full(n, self.price).sum())
        self.rec.place(Window(job.id, now, T, tuple([self.ids[h] for h in chosen]), T * self.price_sum[n]))
        self.free[chosen] = False
        self.n_free -= n
        self.predicted[chosen] = now + T
        self.completions.add(self.rec.actual[job.id], job.id, chosen)
        return job.id

    def schedule(self, now: float) -> list[str]:
        rec, free = self.rec, self.free
        started = []
        jobs = self.queue.jobs
        while jobs and jobs[0].node_count <= self.n_free:
            started.append(self.start(0, np.flatnonzero(free)[: jobs[0].node_count], now))
        rec.hold = None
        if jobs and self.n_free:
            head = jobs[0]
            available = np.where(free, now, self.predicted)
            shadow = float(np.partition(available, head.node_count - 1)[head.node_count - 1])
            reserved = np.zeros(self.hosts, dtype=bool)
            reserved[np.flatnonzero(available <= shadow + EPS)[: head.node_count]] = True
            if rec.history:
                held_nodes = tuple(self.env.nodes[int(i)].id for i in np.flatnonzero(reserved))
                rec.hold = (head.id, shadow, self.length[head.id], held_nodes)
            held_free = int(np.count_nonzero(free & reserved))
            open_free = self.n_free - held_free
            at = 1
            while at < len(jobs) and self.n_free:
                job = jobs[at]
                n = job.node_count
                short = now + self.length[job.id] <= shadow + EPS
                if n > open_free + (held_free if short else 0):
                    at += 1
                    continue
                chosen = np.flatnonzero(free & ~reserved if not short else free)[:n]
                held = int(np.count_nonzero(reserved[chosen]))
                started.append(self.start(at, chosen, now))
                held_free -= held
                open_free -= n - held
        return started


FACTS = ("node_count", "min_performance", "volume", "budget", "actual_fraction", "arrival", "priority")


def _job_facts(env: Environment) -> np.ndarray:
    """Every job's ``FACTS``, one contiguous row per fact."""
    return np.array([job_array(env, fact) for fact in FACTS], dtype=np.float64)


def _runs_on_hosts(facts: np.ndarray, hosts: int, perf: float, price: float) -> np.ndarray:
    """Which jobs (``_job_facts``) can run on an empty machine of ``hosts`` identical hosts (width,
    speed, budget)?"""
    width, least, volume, budget = facts[:4]
    units = budget_units_of(budget, 1.0)
    over = ~np.isinf(budget) & (cost_units(np.full(width.size, price), volume / perf, 1.0) * width > units)
    return (width <= hosts) & (least <= perf + EPS) & ~over


def _easy_hosts_compiled(env: Environment, rec: Recorder) -> FlowRun:
    """``_easy_hosts`` in compiled code (``kernels.easy_hosts``) for runs that keep no history."""
    perf, price = env.nodes[0].performance, env.nodes[0].price
    facts = _job_facts(env)
    runs = _runs_on_hosts(facts, len(env.nodes), perf, price)
    length, position = facts[2] / perf, np.arange(len(env.nodes))
    yield from _around(env, rec, lambda: _compiled_run(env, rec, facts, runs, length, position, kernels.easy_hosts))


def _easy_nodes_compiled(env: Environment, rec: Recorder) -> FlowRun:
    """``_easy_nodes`` in compiled code (``kernels.easy_nodes``) for runs that keep no history."""
    t0, horizon = env.time.start, env.time.end
    perf = np.array([n.performance for n in env.nodes])
    price = np.array([n.price for n in env.nodes])
    col = np.lexsort((np.arange(perf.size), price))  # columns: nodes in (price, position) order
    rank = np.empty_like(col)
    rank[col] = np.arange(col.size)
    levels_all = np.unique(perf)[::-1]
    base = SlotTable.from_environment(env)
    m = len(env.jobs)
    facts = _job_facts(env)
    width, least, volume, budget = facts[:4]
    # Each job's levels are the fastest ones it may use: a prefix of levels_all, with their lengths.
    at_least = least - EPS
    mine = levels_all.size - np.searchsorted(levels_all[::-1], at_least, side="left")
    used = np.zeros(m, dtype=np.int64)
    np.cumsum(mine[:-1], out=used[1:])
    prefix = levels_all[np.arange(int(mine.sum())) - np.repeat(used, mine)]
    # The nodes each distinct minimum performance admits, listed once in order of first use.
    distinct, first, which = np.unique(least, return_index=True, return_inverse=True)
    listed = np.argsort(first, kind="stable")
    eligible = [np.flatnonzero(perf >= at_least[first[d]]) for d in listed]
    sizes = np.array([e.size for e in eligible], dtype=np.int64)
    at = np.zeros(distinct.size, dtype=np.int64)
    at[listed] = np.cumsum(sizes) - sizes
    size = np.zeros(distinct.size, dtype=np.int64)
    size[listed] = sizes
    units = budget_units_of(budget, 1.0)
    shapes = (used, mine.astype(np.int64), units, at[which], size[which])  # level offset and count, budget, eligible
    # Not even on an empty system? With no budget or horizon, enough capable nodes suffice.
    runs = capable_jobs(env, width, least)
    plain = np.isinf(budget) & math.isinf(horizon)
    for i in np.flatnonzero(~plain).tolist():
        job = env.jobs[i]
        runs[i] = first_fit(base, job, max(job.arrival, t0)) is not None
    nodes = EasyNodes(
        perf[col],
        price[col],
        col.astype(np.int64),
        rank.astype(np.int64),
        prefix,
        np.repeat(volume, mine) / prefix,
        np.concatenate(eligible) if eligible else np.empty(0, dtype=np.int64),
        *shapes,
    )
    reserved_at = np.full(m, np.nan)

    plain = tuple(nodes)  # (the kernels take plain tuples)

    def kernel(arrivals: Plain, jobs: Plain, run: Plain, chunk: int) -> bool:
        return bool(kernels.easy_nodes(arrivals, jobs, run, plain, float(t0), float(horizon), reserved_at, chunk))

    yield from _around(env, rec, lambda: _compiled_run(env, rec, facts, runs, np.zeros(m), col, kernel))
    for i in np.flatnonzero(~np.isnan(reserved_at)).tolist():
        rec.note_reservation(env.jobs[i].id, float(reserved_at[i]))


def _around(env: Environment, rec: Recorder, run: Callable[[], None]) -> FlowRun:
    """A compiled run (``run``) between a snapshot at the start and one at the end, with Python's
    cycle collector held off: it makes a window per job, and not one cycle."""
    t0 = env.time.start
    yield rec.snap(t0, f"start: {len(env.jobs)} jobs, {len(env.nodes)} nodes")
    with collection_paused():
        run()
    yield rec.snap(rec.last_end(t0), f"end: {rec.placed_count()} placed")


def _compiled_run(
    env: Environment,
    rec: Recorder,
    facts: np.ndarray,
    runs: np.ndarray,
    length: np.ndarray,
    position: np.ndarray,
    kernel: Any,
    chunk: int = 20_000,
) -> None:
    """Run an EASY kernel of ``engine/kernels`` to the end and record its windows: the same schedule
    as the stepped path; progress and cancel every ``chunk`` events (``_around`` adds a snapshot
    at the start and the end).

    ``facts``: ``_job_facts``; ``runs``: which jobs can run at all (the others fail, as on
    arrival); ``length``: each job's window length (the node kernel sets it when the job starts);
    ``position``: the node of each of the kernel's columns."""
    t0 = env.time.start
    m, n_nodes = len(env.jobs), len(env.nodes)
    table: SlotTable | None = None
    for i in np.flatnonzero(~runs).tolist():
        job = env.jobs[i]
        table = table or SlotTable.from_environment(env)
        rec.fail(job.id, explain_failure(table, job, max(job.arrival, t0)))
    width, (share, key_arrival, priority) = facts[0].astype(np.int64), facts[4:]
    order = np.lexsort((priority, key_arrival))  # arrivals_in_order's: stable, so queue order at ties
    order = order[runs[order]]
    offset = np.zeros(m, dtype=np.int64)
    np.cumsum(width[:-1], out=offset[1:])
    start, actual_end = np.full(m, np.nan), np.full(m, np.nan)
    placed = np.zeros(int(width.sum()), dtype=np.int64)
    state = np.zeros(6, dtype=np.int64)
    state[kernels.NFREE] = n_nodes
    heap = (np.empty(n_nodes + 1), np.empty(n_nodes + 1, dtype=np.int64), np.empty(n_nodes + 1, dtype=np.int64))
    jobs = EasyJobs(width, np.ascontiguousarray(length, dtype=np.float64), share, offset)
    queue = np.empty(m, dtype=np.int64)
    free, until = np.ones(n_nodes, dtype=bool), np.full(n_nodes, -math.inf)
    run = EasyRun(start, actual_end, placed, free, until, *heap, queue, state)
    arrivals = EasyArrivals(order, np.maximum(key_arrival, t0), priority, key_arrival)
    plain = tuple(arrivals), tuple(jobs), tuple(run)  # (the kernels take plain tuples)
    while not kernel(*plain, chunk):
        rec.check_stop()
        started = int(state[kernels.SEQ])  # one sequence number per start
        rec.report(int(state[kernels.NXT]) + started - int(state[kernels.HEAP]), 2 * order.size)
    arrays = _arrays(env, start, length, actual_end, width, offset, placed, position)
    rec.place_columns(arrays, [j.id for j in env.jobs], [n.id for n in env.nodes])
    left = queue[: int(state[kernels.QLEN])]
    if left.size:
        rec.materialise()
        table = SlotTable.from_environment(env, rec.windows.values())
        for i in left.tolist():
            rec.fail(env.jobs[i].id, explain_failure(table, env.jobs[i], max(env.jobs[i].arrival, t0)))
    rec.queue = ()


def _arrays(
    env: Environment,
    start: np.ndarray,
    length: np.ndarray,
    actual_end: np.ndarray,
    width: np.ndarray,
    offset: np.ndarray,
    placed: np.ndarray,
    position: np.ndarray,
) -> WindowArrays:
    """The run's windows as columns in the schedule's order (start, then job position), each one's
    nodes by position, so that the measures and the writers need not read them back window by
    window. ``placed``: each started job's kernel columns at its ``offset``; ``position``: each
    column's node."""
    done = np.flatnonzero(~np.isnan(start))
    ordered = done[np.argsort(start[done], kind="stable")]  # ties by position (``done`` ascends)
    n = width[ordered]
    parts = int(n.sum())
    part_node, part_length = np.empty(parts, np.int64), np.empty(parts)
    # Each part's window goes into the kernel's host list, whose memory is in use already (on a
    # million jobs, 240 MB that need not be touched afresh).
    part_window = placed[:parts] if placed.size >= parts else np.empty(parts, np.int64)
    kernels.window_parts(ordered, offset, width, placed, position, part_node)
    kernels.window_rows(n, length[ordered], part_window, part_length)  # (after: it may write over ``placed``)
    # Each window's cost: its length times its nodes' prices summed as numpy sums n prices.
    price = np.array([node.price for node in env.nodes])
    widths = np.unique(n).tolist()
    if np.all(price == price[0]):  # identical prices: one sum for each width
        per_width = np.zeros(max(widths, default=0) + 1)
        for k in widths:
            per_width[k] = np.full(k, price[0]).sum()
        total = per_width[n]
    else:
        total = np.zeros(ordered.size)
        first = np.zeros(ordered.size, dtype=np.int64)
        np.cumsum(n[:-1], out=first[1:])
        for k in widths:  # the windows of each width at once
            of_k = np.flatnonzero(n == k)
            total[of_k] = price[part_node[first[of_k, None] + np.arange(k)]].sum(axis=1)
    return WindowArrays(
        ordered,
        start[ordered],
        length[ordered],
        length[ordered] * total,
        actual_end[ordered],
        np.zeros(0),  # the arrivals are the environment's (``metrics.window_arrays``)
        n,
        np.zeros(ordered.size),
        part_node,
        part_window,
        part_length,
    )


def _easy_nodes(env: Environment, rec: Recorder) -> FlowRun:
    yield from run_events(env, rec, _Nodes(env, rec), f"start: {len(env.jobs)} jobs, {len(env.nodes)} nodes")


class _Nodes(EventPolicy):
    """EASY on nodes of any performance and price, without local tasks: the general path's schedule.

    Every node then has one free gap at any moment: from now (when free) or from its
    running job's requested end, to the horizon. A window starting now at level P
    (T = V / P) takes the free nodes of performance >= P that stay free for T (outside
    the head's reservation, or ending before it begins): the n cheapest by (price,
    position), one of them of performance exactly P, within the budget; the highest
    level that has one wins (the shortest T), as in ``first_fit``. Without local tasks
    the wake-ups of the general path never start anything, so there are none here.
    """

    def __init__(self, env: Environment, rec: Recorder) -> None:
        super().__init__(env)
        self.env, self.rec = env, rec
        self.t0, self.horizon = env.time.start, env.time.end
        n_nodes = len(env.nodes)
        self.perf = np.array([n.performance for n in env.nodes])
        self.price = np.array([n.price for n in env.nodes])
        self.ids = tuple(n.id for n in env.nodes)
        self.col = np.lexsort((np.arange(n_nodes), self.price))  # columns: nodes in (price, position) order
        self.col_of = np.empty_like(self.col)
        self.col_of[self.col] = np.arange(n_nodes)
        self.perf_c, self.price_c = self.perf[self.col], self.price[self.col]
        self.levels_all = np.unique(self.perf)[::-1]
        self.base = SlotTable.from_environment(env)
        self.free = np.ones(n_nodes, dtype=bool)  # by column
        self.until = np.full(n_nodes, -math.inf)  # requested end of the running job, by column
        self.everywhere = np.full(n_nodes, self.horizon)
        self.plans: dict[str, tuple[np.ndarray, np.ndarray, int | None]] = {}

    def plan_of(self, job: Job) -> tuple[np.ndarray, np.ndarray, int | None]:
        """The job's levels (highest first), their lengths T, and its budget in cost units."""
        plan = self.plans.get(job.id)
        if plan is None:
            levels = self.levels_all[self.levels_all >= job.min_performance - EPS]
            plan = self.plans[job.id] = (levels, job.volume / levels, budget_units(job.budget, 1.0))
        return plan

    def window_now(self, job: Job, now: float, limit: np.ndarray) -> tuple[float, np.ndarray] | None:
        """(T, columns) of the FirstFit window starting now; ``limit``: until when each column is free."""
        levels, lengths, bu = self.plan_of(job)
        free = np.flatnonzero(self.free)  # columns: cheapest first
        hit = window_now(self.perf_c[free], self.price_c[free], limit[free] - now, levels, lengths, job.node_count, bu)
        return None if hit is None else (hit[0], free[hit[1]])

    def start(self, at: int, T: float, chosen: np.ndarray, now: float) -> str:
        job = self.queue.remove_at(at)
        positions = np.sort(self.col[chosen])
        window = Window(job.id, now, T, tuple(self.ids[p] for p in positions), T * float(self.price[positions].sum()))
        self.rec.place(window)
        self.free[chosen] = False
        self.until[chosen] = now + T
        self.completions.add(self.rec.actual[job.id], job.id, chosen)
        return job.id

    def reservation(self, job: Job, now: float) -> Window | None:
        """The head's earliest window, running jobs ending at their requested end (``first_fit``'s
        choice, where each node has the one gap [begin, horizon))."""
        levels, lengths, bu = self.plan_of(job)
        n = job.node_count
        begin = np.where(self.free, now, self.until)
        best: Best | None = None
        for P, T in zip(levels, lengths, strict=True):
            cols = np.flatnonzero((self.perf_c >= P) & (self.horizon - begin >= T - EPS))
            if cols.size < n:
                continue
            b = begin[cols]
            exact = self.perf_c[cols] == P
            sb = np.sort(b)
            times = sorted_unique(sb)
            count = np.searchsorted(sb, times, "right")
            exact_count = np.searchsorted(np.sort(b[exact]), times, "right")
            times = times[(count >= n) & (exact_count >= 1)]
            if best is not None:
                times = times[times < best[1] + EPS]  # a later level wins only by starting earlier
            forever = np.full(b.size, math.inf)  # one gap per node, to the horizon
            best = first_affordable(times, self.col[cols], b, forever, exact, self.price, n, float(T), bu, 1.0, best)
        if best is None:
            return None
        _, t, T, _, positions = best
        positions = np.sort(positions)
        return Window(job.id, t, T, tuple(self.ids[p] for p in positions), T * float(self.price[positions].sum()))

    def admit(self, job: Job, earliest: float) -> str | None:
        # Not even on an empty system? With no budget or horizon, enough capable nodes suffice.
        plain = math.isinf(job.budget) and math.isinf(self.horizon)
        runs = capable(self.env, job) if plain else first_fit(self.base, job, earliest) is not None
        if not runs:
            return explain_failure(self.base, job, earliest)
        self.queue.add(job)
        return None

    def release(self, job_id: str, chosen: Any) -> None:
        self.free[chosen] = True
        self.until[chosen] = -math.inf

    def schedule(self, now: float) -> list[str]:
        rec, horizon = self.rec, self.horizon
        started = []
        jobs = self.queue.jobs
        while jobs and now < horizon - EPS:
            hit = self.window_now(jobs[0], now, self.everywhere)
            if hit is None:
                break
            started.append(self.start(0, *hit, now))
        rec.hold = None
        if jobs and now < horizon - EPS and self.free.any():
            held = self.reservation(jobs[0], now)
            limit = self.everywhere
            if held is not None:
                rec.note_reservation(jobs[0].id, held.start)
                rec.hold = (jobs[0].id, held.start, held.length, held.nodes)
                limit = self.everywhere.copy()
                limit[self.col_of[[self.base.index[node] for node in held.nodes]]] = held.start
            at = 1
            n_free = int(self.free.sum())
            while at < len(jobs) and n_free:
                rec.check_stop()
                if jobs[at].node_count > n_free:
                    at += 1
                    continue
                hit = self.window_now(jobs[at], now, limit)
                if hit is None:
                    at += 1
                    continue
                started.append(self.start(at, *hit, now))
                n_free -= len(rec.windows[started[-1]].nodes)
        return started

    def finish(self) -> None:
        fail_still_waiting(self.env, self.rec, self.queue)
