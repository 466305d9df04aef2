"""Host-level and node-level EASY for runs that keep no history (``flow.easy``): one event step,
one start routine, the blocked head's reservation by ``earliest_in_rows``."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.earliest import earliest_in_rows
from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.types import EasyArrivals, EasyJobs, EasyNodes, EasyRun, Nodes, Rows, Scratch, Shape
from workbench.engine.model import EPS
from workbench.engine.units import cost_units

# -- EASY ----------------------------------------------------------------------------------

# Slots of the EASY kernels' integer state: the next arrival, the completions heap's size, the
# queue's length, the start sequence, the free node count, the number of events run.
NXT, HEAP, QLEN, SEQ, NFREE, EVENTS = range(6)


@compiled
def _heap_push(time: np.ndarray, seq: np.ndarray, job: np.ndarray, size: int, t: float, s: int, j: int) -> None:
    """Push (t, s, j) on the heap ordered by (time, seq) held in the first ``size`` entries."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if time[parent] < t or (time[parent] == t and seq[parent] < s):
            break
        time[i], seq[i], job[i] = time[parent], seq[parent], job[parent]
        i = parent
    time[i], seq[i], job[i] = t, s, j


@compiled
def _heap_pop(time: np.ndarray, seq: np.ndarray, job: np.ndarray, size: int) -> int:
    """Take the smallest (time, seq) off a heap of ``size`` entries; its job."""
    top = job[0]
    size -= 1
    t, s, j = time[size], seq[size], job[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and (time[c + 1] < time[c] or (time[c + 1] == time[c] and seq[c + 1] < seq[c])):
            c += 1
        if t < time[c] or (t == time[c] and s < seq[c]):
            break
        time[i], seq[i], job[i] = time[c], seq[c], job[c]
        i = c
    time[i], seq[i], job[i] = t, s, j
    return top


@compiled
def _easy_event(arrivals: EasyArrivals, jobs: EasyJobs, run: EasyRun) -> float:
    """The next event of an EASY run (``flow.easy``): its time. Every completion by then gives its
    nodes back, then every arrival by then joins the queue in queue order (priority, arrival,
    position)."""
    order, arrival, key_priority, key_arrival = arrivals
    width, _length, _share, offset = jobs
    _start, _actual_end, hosts, free, predicted, heap_time, heap_seq, heap_job, queue, state = run
    now = math.inf
    if state[HEAP] > 0:
        now = heap_time[0]
    if state[NXT] < order.size:
        now = min(now, arrival[order[state[NXT]]])
    state[EVENTS] += 1
    while state[HEAP] > 0 and heap_time[0] <= now + EPS:
        j = _heap_pop(heap_time, heap_seq, heap_job, state[HEAP])
        state[HEAP] -= 1
        for k in range(offset[j], offset[j] + width[j]):
            free[hosts[k]] = True
            predicted[hosts[k]] = -math.inf
        state[NFREE] += width[j]
    while state[NXT] < order.size and arrival[order[state[NXT]]] <= now + EPS:
        j = order[state[NXT]]
        state[NXT] += 1
        at = state[QLEN]  # bisect right on (priority, arrival, position)
        while at > 0:
            q = queue[at - 1]
            if key_priority[q] < key_priority[j] or (
                key_priority[q] == key_priority[j]
                and (key_arrival[q] < key_arrival[j] or (key_arrival[q] == key_arrival[j] and q < j))
            ):
                break
            queue[at] = q
            at -= 1
        queue[at] = j
        state[QLEN] += 1
    return now


@compiled
def _easy_start(at: int, now: float, chosen: np.ndarray, jobs: EasyJobs, run: EasyRun) -> None:
    """Start the job at queue place ``at`` now on the nodes ``chosen`` for ``length`` of it."""
    width, length, share, offset = jobs
    start, actual_end, hosts, free, predicted, heap_time, heap_seq, heap_job, queue, state = run
    j = queue[at]
    for k in range(at, state[QLEN] - 1):
        queue[k] = queue[k + 1]
    state[QLEN] -= 1
    for q in range(width[j]):
        h = chosen[q]
        hosts[offset[j] + q] = h
        free[h] = False
        predicted[h] = now + length[j]
    state[NFREE] -= width[j]
    start[j] = now
    actual_end[j] = now + share[j] * length[j]
    state[SEQ] += 1
    _heap_push(heap_time, heap_seq, heap_job, state[HEAP], actual_end[j], state[SEQ], j)
    state[HEAP] += 1


@compiled
def _kth_smallest(values: np.ndarray, size: int, k: int) -> float:
    """The k-th smallest (from 0) of ``values[:size]``, which it reorders (Hoare's selection)."""
    lo, hi = 0, size - 1
    while lo < hi:
        pivot = values[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                values[i], values[j] = values[j], values[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return values[k]


@compiled
def _lowest_free(free: np.ndarray, reserved: np.ndarray, avoid_reserved: bool, need: int) -> np.ndarray:
    """The ``need`` lowest free hosts (outside the reservation when ``avoid_reserved``)."""
    chosen = np.empty(need, dtype=np.int64)
    m = 0
    for h in range(free.size):
        if m == need:
            break
        if free[h] and not (avoid_reserved and reserved[h]):
            chosen[m] = h
            m += 1
    return chosen


@compiled
def easy_hosts(arrivals: EasyArrivals, jobs: EasyJobs, run: EasyRun, max_events: int) -> bool:
    """Host-level EASY on identical hosts (``flow.easy._easy_hosts``, event for event), for at most
    ``max_events`` events from the state it is given; True when every event has run.

    A job j that starts gets ``run.start[j]``, ``run.actual_end[j]`` = start + ``share`` ×
    ``length``, and its hosts, lowest index first, in ``hosts[offset[j]:offset[j] + width[j]]``;
    ``run.until`` holds each busy host's predicted end.
    """
    order = arrivals.order
    width, length, _share, _offset = jobs
    _start, _actual_end, _hosts, free, predicted, _ht, _hs, _hj, queue, state = run
    n_hosts = free.size
    available = np.empty(n_hosts)
    reserved = np.zeros(n_hosts, dtype=np.bool_)
    for _ in range(max_events):
        if state[NXT] >= order.size and state[HEAP] == 0:
            return True
        now = _easy_event(arrivals, jobs, run)
        while state[QLEN] > 0 and width[queue[0]] <= state[NFREE]:
            _easy_start(0, now, _lowest_free(free, reserved, False, width[queue[0]]), jobs, run)
        if state[QLEN] <= 1 or state[NFREE] == 0:
            continue  # no job behind the blocked head, or no host for one
        fits = False
        for at in range(1, state[QLEN]):
            if width[queue[at]] <= state[NFREE]:
                fits = True
                break
        if not fits:
            continue  # no job behind the head fits the free hosts, reservation or not
        n = width[queue[0]]
        busy = 0
        for h in range(n_hosts):
            if not free[h]:
                available[busy] = predicted[h]
                busy += 1
        # Free hosts are available now, before any busy one: the shadow is the (n - free)-th
        # earliest predicted end of a busy host.
        shadow = _kth_smallest(available, busy, n - state[NFREE] - 1)
        held_free = 0
        taken = 0
        for h in range(n_hosts):
            reserved[h] = False
            if taken < n and (free[h] or predicted[h] <= shadow + EPS):
                reserved[h] = True
                taken += 1
                if free[h]:
                    held_free += 1
        open_free = state[NFREE] - held_free
        at = 1
        while at < state[QLEN] and state[NFREE] > 0:
            j = queue[at]
            need = width[j]
            short = now + length[j] <= shadow + EPS
            if need > open_free + (held_free if short else 0):
                at += 1
                continue
            chosen = _lowest_free(free, reserved, not short, need)
            held = 0
            for h in chosen:
                if reserved[h]:
                    held += 1
            _easy_start(at, now, chosen, jobs, run)
            held_free -= held
            open_free -= need - held
    return state[NXT] >= order.size and state[HEAP] == 0


@compiled
def _window_now(
    free: np.ndarray,
    perf: np.ndarray,
    price: np.ndarray,
    limit: np.ndarray,
    now: float,
    levels: np.ndarray,
    lengths: np.ndarray,
    n: int,
    budget: int,
) -> tuple[int, np.ndarray]:
    """``flow.easy._easy_nodes``'s window_now on columns in (price, position) order: the first level
    whose n cheapest free columns that stay free for its length (``limit``: until when each may
    be used) include one of exactly that performance (or take the cheapest that is, in place of
    the dearest) within the budget. (level index, the columns), or (-1, none)."""
    chosen = np.empty(n, dtype=np.int64)
    for k in range(levels.size):
        level, length = levels[k], lengths[k]
        m = 0
        exact = False
        first_exact = -1
        for c in range(free.size):
            if not free[c] or perf[c] < level or limit[c] - now < length - EPS:
                continue
            if m < n:
                chosen[m] = c
                m += 1
                exact = exact or perf[c] == level
            if perf[c] == level and first_exact < 0:
                first_exact = c
            if m == n and (exact or first_exact >= 0):
                break
        if m < n or first_exact < 0:
            continue
        if not exact:
            chosen[n - 1] = first_exact
        if budget >= 0:
            units = 0
            for q in range(n):
                units += int(cost_units(price[chosen[q]], length, 1.0))
            if units > budget:
                continue
        return k, chosen
    return -1, chosen


@compiled
def easy_nodes(
    arrivals: EasyArrivals,
    jobs: EasyJobs,
    run: EasyRun,
    nodes: EasyNodes,
    t0: float,
    horizon: float,
    reserved_at: np.ndarray,
    max_events: int,
) -> bool:
    """EASY on nodes of any performance and price without local tasks (``flow.easy._easy_nodes``,
    event for event), as ``easy_hosts`` runs; the nodes are columns in (price, position) order.

    A job that starts gets its level's length in ``jobs.length``; a head
    that gets a reservation has its first start in ``reserved_at``. The head's earliest window
    is ``earliest_in_rows`` on rows that hold each busy node until its requested end.
    """
    width, length, _share, _offset = jobs
    _start, _actual_end, _hosts, free, until, _ht, _hs, _hj, queue, state = run
    perf_c, price_c, position, rank, levels, lengths, eligible, lvl_off, lvl_cnt, budget, col_off, col_cnt = nodes
    n_nodes = free.size
    everywhere = np.full(n_nodes, horizon)
    limit = np.full(n_nodes, horizon)
    perf_p = np.empty(n_nodes)  # by position, for the rows of the reservation search
    price_p = np.empty(n_nodes)
    column = np.empty(n_nodes, dtype=np.int64)
    for c in range(n_nodes):
        perf_p[position[c]] = perf_c[c]
        price_p[position[c]] = price_c[c]
        column[position[c]] = c
    bs = np.full((n_nodes, 2), math.inf)
    be = np.full((n_nodes, 2), math.inf)
    owner = np.full((n_nodes, 2), -1, dtype=np.int64)
    count = np.zeros(n_nodes, dtype=np.int64)
    rows = Rows(bs, be, owner, count, t0, horizon)
    by_position = Nodes(perf_p, price_p, rank)
    room = 3 * n_nodes  # a row's gaps: at most its intervals and one
    gaps = Scratch(np.empty(room, dtype=np.int64), np.empty(room), np.empty(room), np.empty(room))
    order = arrivals.order
    for _ in range(max_events):
        if state[NXT] >= order.size and state[HEAP] == 0:
            return True
        now = _easy_event(arrivals, jobs, run)
        while state[QLEN] > 0 and now < horizon - EPS:
            j = queue[0]
            a, m = lvl_off[j], lvl_cnt[j]
            k, chosen = _window_now(
                free, perf_c, price_c, everywhere, now, levels[a : a + m], lengths[a : a + m], width[j], budget[j]
            )
            if k < 0:
                break
            length[j] = lengths[a + k]
            _easy_start(0, now, chosen, jobs, run)
        if state[QLEN] == 0 or now >= horizon - EPS or state[NFREE] == 0:
            continue
        head = queue[0]
        for p in range(n_nodes):  # each busy node held until its running job's requested end
            c = column[p]
            count[p] = 0 if free[c] else 1
            bs[p, 0] = t0
            be[p, 0] = until[c]
        a, m = lvl_off[head], lvl_cnt[head]
        shape = Shape(
            eligible[col_off[head] : col_off[head] + col_cnt[head]], levels[a : a + m], lengths[a : a + m],
            width[head], budget[head], 1.0,
        )  # fmt: skip
        k, t, held = earliest_in_rows(rows, by_position, shape, now, math.inf, -1, gaps, False)
        limit[:] = horizon
        if k >= 0:
            if np.isnan(reserved_at[head]):
                reserved_at[head] = t
            for p in held:
                limit[column[p]] = t
        at = 1
        n_free = state[NFREE]
        while at < state[QLEN] and n_free > 0:
            j = queue[at]
            if width[j] > n_free:
                at += 1
                continue
            a, m = lvl_off[j], lvl_cnt[j]
            k, chosen = _window_now(
                free, perf_c, price_c, limit, now, levels[a : a + m], lengths[a : a + m], width[j], budget[j]
            )
            if k < 0:
                at += 1
                continue
            length[j] = lengths[a + k]
            _easy_start(at, now, chosen, jobs, run)
            n_free -= width[j]
    return state[NXT] >= order.size and state[HEAP] == 0
