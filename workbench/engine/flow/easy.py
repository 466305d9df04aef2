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

import bisect
import heapq
import math
from typing import Any

import numpy as np

from workbench.engine import kernels
from workbench.engine.criteria import StartTime
from workbench.engine.diagnose import explain_failure
from workbench.engine.flow.cycles import capable
from workbench.engine.flow.events import WaitingQueue, arrivals_in_order, step_label
from workbench.engine.model import EPS, Environment, Job, Window
from workbench.engine.search import SearchSpec, budget_units, cost_units, find_window, sorted_unique
from workbench.engine.search.firstfit import Best, first_affordable, first_fit
from workbench.engine.simulate import FlowRun, Recorder
from workbench.engine.slots import SlotTable

FIRST_FIT = SearchSpec(StartTime())


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
    t0, horizon = env.time.start, env.time.end
    base = SlotTable.from_environment(env)
    arrivals = arrivals_in_order(env)
    queue = WaitingQueue(env)
    running: dict[str, Window] = {}
    ends: list[tuple[float, int, str]] = []  # (actual end, order, job)
    # Wake-ups: a local task's end can let a waiting job start, and so can the
    # moment the head's reservation begins, with no arrival or completion then.
    wakeups = sorted({task.end for task in env.local_tasks if t0 < task.end < horizon})
    nxt = 0
    yield rec.snap(t0, f"start: {len(env.jobs)} jobs, {len(env.nodes)} nodes")
    while nxt < len(arrivals) or ends or (wakeups and len(queue)):
        now = min(
            ends[0][0] if ends else math.inf,
            max(arrivals[nxt].arrival, t0) if nxt < len(arrivals) else math.inf,
            wakeups[0] if wakeups and len(queue) else math.inf,
        )
        while wakeups and wakeups[0] <= now + EPS:
            wakeups.pop(0)
        rec.report(nxt + len(rec.windows) - len(running), 2 * len(arrivals))
        done = []
        while ends and ends[0][0] <= now + EPS:
            _, _, job_id = heapq.heappop(ends)
            running.pop(job_id)
            done.append(job_id)
        came = []
        while nxt < len(arrivals) and max(arrivals[nxt].arrival, t0) <= now + EPS:
            job = arrivals[nxt]
            nxt += 1
            if not capable(env, job) or find_window(base, job, FIRST_FIT, max(job.arrival, t0)) is None:
                rec.fail(job.id, explain_failure(base, job, max(job.arrival, t0)))
                continue
            queue.add(job)
            came.append(job.id)
        started, reserved_at = _general_pass(rec, base, queue, running, ends, now, horizon)
        if reserved_at is not None and reserved_at > now + EPS:
            bisect.insort(wakeups, reserved_at)
        rec.queue = queue.ids()
        yield rec.snap(now, step_label(now, done, came, started))
    for job in queue.jobs:
        table = SlotTable.from_environment(env, rec.windows.values())
        rec.fail(job.id, explain_failure(table, job, max(job.arrival, t0)))
    rec.queue = ()
    yield rec.snap(max(rec.actual.values(), default=t0), f"end: {len(rec.windows)} placed")


def _general_pass(
    rec: Recorder,
    base: SlotTable,
    queue: WaitingQueue,
    running: dict[str, Window],
    ends: list[tuple[float, int, str]],
    now: float,
    horizon: float,
) -> tuple[list[str], float | None]:
    """One scheduling pass at ``now``: the jobs started, and the head's reservation start."""
    if not len(queue) or now >= horizon - EPS:
        return [], None
    # Running jobs hold their nodes until their requested end: the prediction.
    table = base.with_interval(now, horizon).reserve(running.values())
    started: list[str] = []

    def start(at: int, window: Window) -> None:
        nonlocal table
        job = queue.remove_at(at)
        rec.place(window)
        running[job.id] = window
        heapq.heappush(ends, (rec.actual[job.id], len(rec.windows), job.id))
        table = table.reserve([window])
        started.append(job.id)

    while len(queue):
        window = _starts_now(table, queue.jobs[0], now)
        if window is None:
            break
        start(0, window)
    rec.hold = None
    if not len(queue):
        return started, None
    head = queue.jobs[0]
    found = find_window(table, head, FIRST_FIT, max(head.arrival, now))
    shadow = table.reserve([found.window]) if found is not None else table
    if found is not None:
        rec.note_reservation(head.id, found.window.start)
        w = found.window
        rec.hold = (head.id, w.start, w.length, w.nodes)
    at = 1
    while at < len(queue):
        rec.check_stop()
        window = _starts_now(shadow, queue.jobs[at], now)
        if window is None:
            at += 1
            continue
        shadow = shadow.reserve([window])
        start(at, window)
    return started, found.window.start if found is not None else None


def _starts_now(table: SlotTable, job: Job, now: float) -> Window | None:
    """The FirstFit window of ``job`` if it starts at ``now``."""
    free_now = (table.start <= now + EPS) & (table.end > now + EPS)
    capable_now = table.perf[table.node[free_now]] >= job.min_performance - EPS
    if int(capable_now.sum()) < job.node_count:
        return None
    found = first_fit(table, job, max(job.arrival, now), before=now + 2 * EPS)  # nothing later matters
    if found is None or found.window.start > now + EPS:
        return None
    return found.window


def _easy_hosts(env: Environment, rec: Recorder) -> FlowRun:
    """Host-level EASY on identical nodes: the same schedule as the general path, faster.

    Free hosts are counted, not summed: ``open_free`` outside the head's reservation,
    ``held_free`` inside it (usable only by jobs that end before it begins).
    """
    t0 = env.time.start
    hosts = len(env.nodes)
    perf, price = env.nodes[0].performance, env.nodes[0].price
    ids = [n.id for n in env.nodes]
    free = np.ones(hosts, dtype=bool)
    n_free = hosts
    predicted = np.full(hosts, -math.inf)  # requested end of the job on each busy host
    arrivals = arrivals_in_order(env)
    length = {job.id: job.volume / perf for job in env.jobs}
    price_sum: dict[int, float] = {}  # n -> the price of n hosts, summed as the general path sums it
    queue = WaitingQueue(env)
    ends: list[tuple[float, int, str, np.ndarray]] = []
    nxt = 0
    order = 0
    history = rec.history
    yield rec.snap(t0, f"start: {len(env.jobs)} jobs, {hosts} identical nodes")

    def start(at: int, chosen: np.ndarray, now: float) -> str:
        nonlocal order, n_free
        job = queue.remove_at(at)
        T = length[job.id]
        n = job.node_count
        if n not in price_sum:
            price_sum[n] = float(np.full(n, price).sum())
        rec.place(Window(job.id, now, T, tuple([ids[h] for h in chosen]), T * price_sum[n]))
        free[chosen] = False
        n_free -= n
        predicted[chosen] = now + T
        order += 1
        heapq.heappush(ends, (rec.actual[job.id], order, job.id, chosen))
        return job.id

    while nxt < len(arrivals) or ends:
        now = min(ends[0][0] if ends else math.inf, max(arrivals[nxt].arrival, t0) if nxt < len(arrivals) else math.inf)
        rec.report(nxt + len(rec.windows) - len(ends), 2 * len(arrivals))  # arrivals + completions
        done = []
        while ends and ends[0][0] <= now + EPS:
            _, _, job_id, chosen = heapq.heappop(ends)
            free[chosen] = True
            n_free += chosen.size
            predicted[chosen] = -math.inf
            done.append(job_id)
        came = []
        while nxt < len(arrivals) and max(arrivals[nxt].arrival, t0) <= now + EPS:
            job = arrivals[nxt]
            nxt += 1
            if not _runs_on_hosts(job, hosts, perf, price):
                rec.fail(job.id, explain_failure(SlotTable.from_environment(env), job, max(job.arrival, t0)))
                continue
            queue.add(job)
            came.append(job.id)
        started = []
        jobs = queue.jobs
        while jobs and jobs[0].node_count <= n_free:
            started.append(start(0, np.flatnonzero(free)[: jobs[0].node_count], now))
        rec.hold = None
        if jobs and n_free:
            head = jobs[0]
            available = np.where(free, now, predicted)
            shadow = float(np.partition(available, head.node_count - 1)[head.node_count - 1])
            reserved = np.zeros(hosts, dtype=bool)
            reserved[np.flatnonzero(available <= shadow + EPS)[: head.node_count]] = True
            if history:
                held_nodes = tuple(env.nodes[int(i)].id for i in np.flatnonzero(reserved))
                rec.hold = (head.id, shadow, length[head.id], held_nodes)
            held_free = int(np.count_nonzero(free & reserved))
            open_free = n_free - held_free
            at = 1
            while at < len(jobs) and n_free:
                job = jobs[at]
                n = job.node_count
                short = now + length[job.id] <= shadow + EPS
                if n > open_free + (held_free if short else 0):
                    at += 1
                    continue
                chosen = np.flatnonzero(free & ~reserved if not short else free)[:n]
                held = int(np.count_nonzero(reserved[chosen]))
                started.append(start(at, chosen, now))
                held_free -= held
                open_free -= n - held
        if history:
            rec.queue = queue.ids()
            yield rec.snap(now, step_label(now, done, came, started))
        else:
            yield rec.snap(now, "")
    rec.queue = ()
    yield rec.snap(max(rec.actual.values(), default=t0), f"end: {len(rec.windows)} placed")


def _runs_on_hosts(job: Job, hosts: int, perf: float, price: float) -> bool:
    """Can the job run on an empty machine of ``hosts`` identical hosts (width, speed, budget)?"""
    units = budget_units(job.budget, 1.0)
    over = units is not None and int(cost_units(np.array([price]), job.volume / perf, 1.0)[0]) * job.node_count > units
    return job.node_count <= hosts and job.min_performance <= perf + EPS and not over


def _easy_hosts_compiled(env: Environment, rec: Recorder) -> FlowRun:
    """``_easy_hosts`` in compiled code (``kernels.easy_hosts``) for runs that keep no history."""
    perf, price = env.nodes[0].performance, env.nodes[0].price
    runs = [_runs_on_hosts(job, len(env.nodes), perf, price) for job in env.jobs]
    length = np.array([j.volume / perf for j in env.jobs])
    yield from _compiled_run(env, rec, runs, length, np.arange(len(env.nodes)), kernels.easy_hosts)


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
    shapes = tuple(np.zeros(m, dtype=np.int64) for _ in range(5))  # level offset and count, budget, eligible
    levels: list[np.ndarray] = []
    lengths: list[np.ndarray] = []
    eligible: dict[float, tuple[int, np.ndarray]] = {}
    runs = []
    used = 0
    for i, job in enumerate(env.jobs):
        mine = levels_all[levels_all >= job.min_performance - EPS]
        if job.min_performance not in eligible:
            at = sum(e.size for _, e in eligible.values())
            eligible[job.min_performance] = (at, np.flatnonzero(perf >= job.min_performance - EPS))
        units = budget_units(job.budget, 1.0)
        shapes[0][i], shapes[1][i], shapes[2][i] = used, mine.size, -1 if units is None else units
        shapes[3][i], shapes[4][i] = eligible[job.min_performance][0], eligible[job.min_performance][1].size
        levels.append(mine)
        lengths.append(job.volume / mine)
        used += mine.size
        # Not even on an empty system? With no budget or horizon, enough capable nodes suffice.
        plain = math.isinf(job.budget) and math.isinf(horizon)
        runs.append(capable(env, job) if plain else first_fit(base, job, max(job.arrival, t0)) is not None)
    nodes = (
        perf[col],
        price[col],
        col,
        rank,
        np.concatenate(levels) if levels else np.empty(0),
        np.concatenate(lengths) if lengths else np.empty(0),
        np.concatenate([e for _, e in eligible.values()]) if eligible else np.empty(0, dtype=np.int64),
    )
    reserved_at = np.full(m, np.nan)

    def kernel(
        order: np.ndarray,
        arrival: np.ndarray,
        priority: np.ndarray,
        key_arrival: np.ndarray,
        jobs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        run: tuple[np.ndarray, ...],
        chunk: int,
    ) -> bool:
        return bool(
            kernels.easy_nodes(
                order, arrival, priority, key_arrival, jobs, run, shapes, nodes, t0, horizon, reserved_at, chunk
            )
        )

    yield from _compiled_run(env, rec, runs, np.zeros(m), col, kernel)
    for i in np.flatnonzero(~np.isnan(reserved_at)).tolist():
        rec.note_reservation(env.jobs[i].id, float(reserved_at[i]))


def _compiled_run(
    env: Environment,
    rec: Recorder,
    runs: list[bool],
    length: np.ndarray,
    position: np.ndarray,
    kernel: Any,
    chunk: int = 20_000,
) -> FlowRun:
    """Run an EASY kernel of ``engine/kernels`` to the end: the same schedule as the stepped path,
    with a snapshot at the start and the end only; progress and cancel every ``chunk`` events.

    ``runs``: which jobs can run at all (the others fail, as on arrival); ``length``: each job's
    window length (the node kernel sets it when the job starts); ``position``: the node of each
    of the kernel's columns."""
    t0 = env.time.start
    m, n_nodes = len(env.jobs), len(env.nodes)
    yield rec.snap(t0, f"start: {m} jobs, {n_nodes} nodes")
    table: SlotTable | None = None
    for i in np.flatnonzero(~np.array(runs, dtype=bool)).tolist():
        job = env.jobs[i]
        table = table or SlotTable.from_environment(env)
        rec.fail(job.id, explain_failure(table, job, max(job.arrival, t0)))
    width = np.array([j.node_count for j in env.jobs], dtype=np.int64)
    order = np.array([env.job_index[j.id] for j in arrivals_in_order(env)], dtype=np.int64)
    order = order[np.array(runs, dtype=bool)[order]] if m else order
    offset = np.zeros(m, dtype=np.int64)
    np.cumsum(width[:-1], out=offset[1:])
    start, actual_end = np.full(m, np.nan), np.full(m, np.nan)
    placed = np.zeros(int(width.sum()), dtype=np.int64)
    state = np.zeros(6, dtype=np.int64)
    state[kernels.NFREE] = n_nodes
    heap = (np.empty(n_nodes + 1), np.empty(n_nodes + 1, dtype=np.int64), np.empty(n_nodes + 1, dtype=np.int64))
    jobs = (width, length, np.array([j.actual_fraction for j in env.jobs], dtype=np.float64), offset)
    queue = np.empty(m, dtype=np.int64)
    run = (start, actual_end, placed, np.ones(n_nodes, dtype=bool), np.full(n_nodes, -math.inf), *heap, queue, state)
    arrival = np.maximum([j.arrival for j in env.jobs], t0).astype(np.float64) if m else np.empty(0)
    priority = np.array([j.priority for j in env.jobs], dtype=np.float64)
    key_arrival = np.array([j.arrival for j in env.jobs], dtype=np.float64)
    while not kernel(order, arrival, priority, key_arrival, jobs, run, chunk):
        rec.check_stop()
        started = int(np.count_nonzero(~np.isnan(start)))
        rec.report(int(state[kernels.NXT]) + started - int(state[kernels.HEAP]), 2 * order.size)
    ids = [n.id for n in env.nodes]
    price = np.array([n.price for n in env.nodes])
    identical = bool((price == price[0]).all()) if price.size else True
    sums: dict[int, float] = {}  # identical prices: the sum of n of them, as numpy sums n prices
    # Every job's nodes by position, sorted within the job, in one pass.
    pos = position[placed][np.lexsort((position[placed], np.repeat(np.arange(m), width)))]
    listed = pos.tolist()
    for i in np.flatnonzero(~np.isnan(start)).tolist():
        job = env.jobs[i]
        n = job.node_count
        a = int(offset[i])
        if identical:
            if n not in sums:
                sums[n] = float(price[pos[a : a + n]].sum())
            total = sums[n]
        else:
            total = float(price[pos[a : a + n]].sum())
        T = float(length[i])
        window = Window(job.id, float(start[i]), T, tuple([ids[p] for p in listed[a : a + n]]), T * total)
        rec.place(window, actual_end=float(actual_end[i]))  # the kernel's start + share * length
    left = queue[: int(state[kernels.QLEN])]
    if left.size:
        table = SlotTable.from_environment(env, rec.windows.values())
        for i in left.tolist():
            rec.fail(env.jobs[i].id, explain_failure(table, env.jobs[i], max(env.jobs[i].arrival, t0)))
    rec.queue = ()
    yield rec.snap(max(rec.actual.values(), default=t0), f"end: {len(rec.windows)} placed")


def _easy_nodes(env: Environment, rec: Recorder) -> FlowRun:
    """EASY on nodes of any performance and price, without local tasks: the general path's schedule.

    Every node then has one free gap at any moment: from now (when free) or from its
    running job's requested end, to the horizon. A window starting now at level P
    (T = V / P) takes the free nodes of performance >= P that stay free for T (outside
    the head's reservation, or ending before it begins): the n cheapest by (price,
    position), one of them of performance exactly P, within the budget; the highest
    level that has one wins (the shortest T), as in ``first_fit``. Without local tasks
    the wake-ups of the general path never start anything, so there are none here.
    """
    t0, horizon = env.time.start, env.time.end
    n_nodes = len(env.nodes)
    perf = np.array([n.performance for n in env.nodes])
    price = np.array([n.price for n in env.nodes])
    ids = tuple(n.id for n in env.nodes)
    col = np.lexsort((np.arange(n_nodes), price))  # columns: nodes in (price, position) order
    col_of = np.empty_like(col)
    col_of[col] = np.arange(n_nodes)
    perf_c, price_c = perf[col], price[col]
    levels_all = np.unique(perf)[::-1]
    base = SlotTable.from_environment(env)
    free = np.ones(n_nodes, dtype=bool)  # by column
    until = np.full(n_nodes, -math.inf)  # requested end of the running job, by column
    everywhere = np.full(n_nodes, horizon)
    arrivals = arrivals_in_order(env)
    queue = WaitingQueue(env)
    ends: list[tuple[float, int, str, np.ndarray]] = []
    plans: dict[str, tuple[np.ndarray, np.ndarray, int | None]] = {}

    def plan_of(job: Job) -> tuple[np.ndarray, np.ndarray, int | None]:
        """The job's levels (highest first), their lengths T, and its budget in cost units."""
        plan = plans.get(job.id)
        if plan is None:
            levels = levels_all[levels_all >= job.min_performance - EPS]
            plan = plans[job.id] = (levels, job.volume / levels, budget_units(job.budget, 1.0))
        return plan

    def window_now(job: Job, now: float, limit: np.ndarray) -> tuple[float, np.ndarray] | None:
        """(T, columns) of the FirstFit window starting now; ``limit``: until when each column is free."""
        levels, lengths, bu = plan_of(job)
        n = job.node_count
        room = limit - now
        for P, T in zip(levels, lengths, strict=True):
            idx = np.flatnonzero(free & (perf_c >= P) & (room >= T - EPS))
            if idx.size < n:
                continue
            exact = perf_c[idx] == P
            if not exact.any():
                continue
            chosen = idx[:n].copy()
            if not exact[:n].any():
                chosen[-1] = idx[np.argmax(exact)]
            if bu is not None and int(cost_units(price_c[chosen], T, 1.0).sum()) > bu:
                continue
            return float(T), chosen
        return None

    def start(at: int, T: float, chosen: np.ndarray, now: float) -> str:
        job = queue.remove_at(at)
        positions = np.sort(col[chosen])
        rec.place(Window(job.id, now, T, tuple(ids[p] for p in positions), T * float(price[positions].sum())))
        free[chosen] = False
        until[chosen] = now + T
        heapq.heappush(ends, (rec.actual[job.id], len(rec.windows), job.id, chosen))
        return job.id

    def reservation(job: Job, now: float) -> Window | None:
        """The head's earliest window, running jobs ending at their requested end (``first_fit``'s
        choice, where each node has the one gap [begin, horizon))."""
        levels, lengths, bu = plan_of(job)
        n = job.node_count
        begin = np.where(free, now, until)
        best: Best | None = None
        for P, T in zip(levels, lengths, strict=True):
            cols = np.flatnonzero((perf_c >= P) & (horizon - begin >= T - EPS))
            if cols.size < n:
                continue
            b = begin[cols]
            exact = perf_c[cols] == P
            sb = np.sort(b)
            times = sorted_unique(sb)
            count = np.searchsorted(sb, times, "right")
            exact_count = np.searchsorted(np.sort(b[exact]), times, "right")
            times = times[(count >= n) & (exact_count >= 1)]
            if best is not None:
                times = times[times < best[1] + EPS]  # a later level wins only by starting earlier
            forever = np.full(b.size, math.inf)  # one gap per node, to the horizon
            best = first_affordable(times, col[cols], b, forever, exact, price, n, float(T), bu, 1.0, best)
        if best is None:
            return None
        _, t, T, _, positions = best
        positions = np.sort(positions)
        return Window(job.id, t, T, tuple(ids[p] for p in positions), T * float(price[positions].sum()))

    nxt = 0
    yield rec.snap(t0, f"start: {len(env.jobs)} jobs, {n_nodes} nodes")
    while nxt < len(arrivals) or ends:
        now = min(ends[0][0] if ends else math.inf, max(arrivals[nxt].arrival, t0) if nxt < len(arrivals) else math.inf)
        rec.report(nxt + len(rec.windows) - len(ends), 2 * len(arrivals))  # arrivals + completions
        done = []
        while ends and ends[0][0] <= now + EPS:
            _, _, job_id, chosen = heapq.heappop(ends)
            free[chosen] = True
            until[chosen] = -math.inf
            done.append(job_id)
        came = []
        while nxt < len(arrivals) and max(arrivals[nxt].arrival, t0) <= now + EPS:
            job = arrivals[nxt]
            nxt += 1
            earliest = max(job.arrival, t0)
            # Not even on an empty system? With no budget or horizon, enough capable nodes suffice.
            plain = math.isinf(job.budget) and math.isinf(horizon)
            runs = capable(env, job) if plain else first_fit(base, job, earliest) is not None
            if not runs:
                rec.fail(job.id, explain_failure(base, job, earliest))
                continue
            queue.add(job)
            came.append(job.id)
        started = []
        jobs = queue.jobs
        while jobs and now < horizon - EPS:
            hit = window_now(jobs[0], now, everywhere)
            if hit is None:
                break
            started.append(start(0, *hit, now))
        rec.hold = None
        if jobs and now < horizon - EPS and free.any():
            held = reservation(jobs[0], now)
            limit = everywhere
            if held is not None:
                rec.note_reservation(jobs[0].id, held.start)
                rec.hold = (jobs[0].id, held.start, held.length, held.nodes)
                limit = everywhere.copy()
                limit[col_of[[base.index[node] for node in held.nodes]]] = held.start
            at = 1
            n_free = int(free.sum())
            while at < len(jobs) and n_free:
                rec.check_stop()
                if jobs[at].node_count > n_free:
                    at += 1
                    continue
                hit = window_now(jobs[at], now, limit)
                if hit is None:
                    at += 1
                    continue
                started.append(start(at, *hit, now))
                n_free -= len(rec.windows[started[-1]].nodes)
        if rec.history:
            rec.queue = queue.ids()
            yield rec.snap(now, step_label(now, done, came, started))
        else:
            yield rec.snap(now, "")
    for job in queue.jobs:
        table = SlotTable.from_environment(env, rec.windows.values())
        rec.fail(job.id, explain_failure(table, job, max(job.arrival, t0)))
    rec.queue = ()
    yield rec.snap(max(rec.actual.values(), default=t0), f"end: {len(rec.windows)} placed")
