"""A ``Profile``'s rows in compiled code: the gaps of some rows, FirstFit's earliest window on them,
the row edits of a move, and the certificate test of freed gaps (``unverify``)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

EPS = 1e-9
WIDE_RANGE = 0.5  # ``unverify``: a search range this much of the way to the job's start is dropped
UNITS_CAP = 2**43  # search.UNITS_CAP: a cost this dear never fits a budget
FINISH_SLACK = 1e-6  # relative: far beyond the EPS within which two finish-time values tie


@njit(cache=True, nogil=True)
def _row_gaps(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    count: np.ndarray,
    istart: float,
    iend: float,
    cols: np.ndarray,
    earliest: float,
    before: float,
    shortest: float,
    without: int,
    gn: np.ndarray,
    ges: np.ndarray,
    gend: np.ndarray,
    gstart: np.ndarray,
    m: int = 0,
) -> int:
    """The gaps of ``cols``' rows as ``Profile.gaps(earliest, before, without)`` gives them, cut to
    those that could hold a window of length ``shortest`` starting in [earliest, before), written
    to (node ``gn``, clipped start ``ges`` = max(start, earliest), end ``gend``, start ``gstart``)
    from ``m`` on; the new count. (One loop over the rows: a call per row, with its arrays, would
    cost more than reading most rows.)"""
    for c in cols:
        # Skip the intervals that start by ``earliest`` (the rows are sorted): the gaps before them
        # end too soon. A search restricted to a late range (``replan_pass``) reads only that range.
        lo = 0
        hi = count[c]
        while lo < hi:
            mid = (lo + hi) // 2
            if bs[c, mid] > earliest:
                hi = mid
            else:
                lo = mid + 1
        gs = istart
        for k in range(lo - 1, -1, -1):
            if without < 0 or owner[c, k] != without:
                gs = max(be[c, k], istart)
                break
        for k in range(lo, count[c] + 1):
            if k < count[c]:
                if without >= 0 and owner[c, k] == without:
                    continue  # given back: the gap before it runs on to the next interval
                ge = min(bs[c, k], iend)
            else:
                ge = iend
            if gs >= before:
                break  # every later gap starts later still
            if ge - gs > EPS and ge > earliest:
                es = max(gs, earliest)
                if es < before and ge - es >= shortest - EPS:
                    gn[m] = c
                    ges[m] = es
                    gend[m] = ge
                    gstart[m] = gs
                    m += 1
            if k < count[c]:
                gs = max(be[c, k], istart)
    return m


@njit(cache=True, nogil=True)
def list_gaps(
    bs: np.ndarray,
    be: np.ndarray,
    count: np.ndarray,
    istart: float,
    iend: float,
    theta: float,
    gls: np.ndarray,
    gle: np.ndarray,
    gcount: np.ndarray,
    x: int,
) -> None:
    """Row x's gaps [max(be[k-1], istart), min(bs[k], iend)) of length >= ``theta`` - EPS, in
    order, into (``gls``, ``gle``)[x] (``gcount``[x] of them): what ``_row_gaps`` reads of the row,
    no owner's intervals given back, for every search whose shortest window is ``theta`` or longer."""
    m = 0
    gs = istart
    c = count[x]
    for k in range(c + 1):
        ge = min(bs[x, k], iend) if k < c else iend
        if ge - gs >= theta - EPS:
            gls[x, m] = gs
            gle[x, m] = ge
            m += 1
        if k < c:
            gs = max(be[x, k], istart)
    gcount[x] = m


@njit(cache=True, nogil=True)
def _listed_gaps(
    gls: np.ndarray,
    gle: np.ndarray,
    gcount: np.ndarray,
    earliest: float,
    before: float,
    shortest: float,
    gn: np.ndarray,
    ges: np.ndarray,
    gend: np.ndarray,
    gstart: np.ndarray,
    m: int,
    c: int,
    until: float,
) -> int:
    """``_row_gaps`` for row c, read from its listed gaps (``list_gaps``) that start before
    ``until``, written from ``m`` on; the new count. The list holds every gap a search of a window
    this long can use, and a gap's end bounds its start, so the first that ends after
    ``earliest`` is found by binary search."""
    lo = 0
    hi = 0 if gcount[c] == 0 or gle[c, 0] > earliest else gcount[c]  # (most often the first: no search)
    while lo < hi:
        mid = (lo + hi) // 2
        if gle[c, mid] > earliest:
            hi = mid
        else:
            lo = mid + 1
    for i in range(lo, gcount[c]):
        gs = gls[c, i]
        if gs >= before or gs >= until:
            break
        ge = gle[c, i]
        if ge - gs > EPS:  # (``_gap_if_fits``, written out: a call with the arrays costs more than it)
            es = max(gs, earliest)
            if es < before and ge - es >= shortest - EPS:
                gn[m] = c
                ges[m] = es
                gend[m] = ge
                gstart[m] = gs
                m += 1
    return m


@njit(cache=True, nogil=True)
def _gap_if_fits(
    gs: float,
    ge: float,
    c: int,
    earliest: float,
    before: float,
    shortest: float,
    gn: np.ndarray,
    ges: np.ndarray,
    gend: np.ndarray,
    gstart: np.ndarray,
    m: int,
) -> int:
    """Write the gap [gs, ge) of row c at ``m`` if a window of length ``shortest`` starting in
    [earliest, before) fits in it (``_row_gaps``' test); the new count."""
    if ge - gs > EPS and ge > earliest:
        es = max(gs, earliest)
        if es < before and ge - es >= shortest - EPS:
            gn[m] = c
            ges[m] = es
            gend[m] = ge
            gstart[m] = gs
            m += 1
    return m


@njit(cache=True, nogil=True)
def _own_row_gaps(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    count: np.ndarray,
    istart: float,
    iend: float,
    lists: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    c: int,
    earliest: float,
    before: float,
    shortest: float,
    without: int,
    at: float,
    gaps: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    m: int,
) -> int:
    """``_row_gaps`` for row c, which holds ``without``'s interval from ``at``: when that is not before
    ``before``, the listed gaps before the gap that ends at it, then that gap run on past the
    interval to the next one (the interval given back); else the row itself."""
    gls, gle, gcount, _ = lists
    gn, ges, gend, gstart = gaps
    p = count[c]  # the interval, when it is from ``before`` on
    if at >= before:
        p = _count_below(bs[c], count[c], at, False)  # the first interval from ``at``
        while p < count[c] and owner[c, p] != without:
            p += 1
    if p == count[c]:  # before ``before``, or not on this row after all: read the row as it is
        return _row_gaps(
            bs, be, owner, count, istart, iend, np.array([c]), earliest, before, shortest, without, gn, ges, gend,
            gstart, m,
        )  # fmt: skip
    a = max(be[c, p - 1], istart) if p > 0 else istart
    b = min(bs[c, p + 1], iend) if p + 1 < count[c] else iend
    m = _listed_gaps(gls, gle, gcount, earliest, before, shortest, gn, ges, gend, gstart, m, c, a)
    if a < before:
        m = _gap_if_fits(a, b, c, earliest, before, shortest, gn, ges, gend, gstart, m)
    return m


@njit(cache=True, nogil=True)
def gaps_in_lists(
    rows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    lists: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    listed: bool,
    own: np.ndarray,
    istart: float,
    iend: float,
    cols: np.ndarray,
    earliest: float,
    before: float,
    shortest: float,
    without: int,
    at: float,
    gaps: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> int:
    """``_row_gaps``, read from the rows' gap lists when ``listed`` (``list_gaps``, of a threshold
    no longer than ``shortest``; else from the rows themselves); on the rows ``without``'s window
    holds from ``at`` (``own``) its interval is given back (``_own_row_gaps``). ``lists``: (starts,
    ends, count per row, (the threshold, ...)); a row whose count is -1 is listed first."""
    bs, be, owner, count = rows
    gn, ges, gend, gstart = gaps
    if not listed:
        return _row_gaps(
            bs, be, owner, count, istart, iend, cols, earliest, before, shortest, without, gn, ges, gend, gstart
        )
    gls, gle, gcount, theta = lists
    size = 0
    for c in cols:
        if gcount[c] < 0:
            list_gaps(bs, be, count, istart, iend, theta[0], gls, gle, gcount, c)
        mine = False
        for x in own:
            mine |= x == c
        if mine:
            size = _own_row_gaps(
                bs, be, owner, count, istart, iend, lists, c, earliest, before, shortest, without, at, gaps, size
            )
        else:
            size = _listed_gaps(gls, gle, gcount, earliest, before, shortest, gn, ges, gend, gstart, size, c, math.inf)
    return size


@njit(cache=True, nogil=True)
def earliest_in_lists(
    rows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    lists: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    listed: bool,
    own: np.ndarray,
    istart: float,
    iend: float,
    perf: np.ndarray,
    price: np.ndarray,
    rank: np.ndarray,
    cols: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray,
    n: int,
    budget: int,
    resolution: float,
    earliest: float,
    before: float,
    without: int,
    at: float,
    scratch_i: np.ndarray,
    scratch_f: np.ndarray,
    shortest: float,
    finish: bool = False,
) -> tuple[int, float, np.ndarray]:
    """``earliest_in_rows``, the gaps read by ``gaps_in_lists`` (from the rows' lists when
    ``listed``; ``own``: the rows ``without``'s window holds from ``at``); ``shortest``: the job's
    ``_shortest``, worked out once."""
    third = scratch_f.size // 3
    gn, ges, gend, graw = scratch_i, scratch_f[:third], scratch_f[third : 2 * third], scratch_f[2 * third :]
    size = gaps_in_lists(
        rows, lists, listed, own, istart, iend, cols, earliest, before, shortest, without, at, (gn, ges, gend, graw)
    )
    gaps = (gn[:size], ges[:size], gend[:size])
    return _window_on(gaps, perf, price, rank, cols, levels, lengths, n, budget, resolution, before, finish, shortest)


@njit(cache=True, nogil=True)
def _block_sum(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise sum of a[lo:lo + n] for n <= 128: eight running sums, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r = a[lo : lo + 8].copy()
    i = 8
    stop = n - n % 8
    while i < stop:
        for q in range(8):
            r[q] += a[lo + i + q]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def _pairwise_sum(a: np.ndarray) -> float:
    """numpy's sum of ``a`` (``np.add.reduce``'s pairwise order, bit for bit): the search compares
    window values that were summed so, within EPS of each other. Halves (cut at a multiple of 8)
    until blocks of 128, without recursion (a stack of (start, size, halves added yet))."""
    if a.size <= 128:
        return _block_sum(a, 0, a.size)
    task_lo = np.empty(128, dtype=np.int64)
    task_n = np.empty(128, dtype=np.int64)
    task_join = np.zeros(128, dtype=np.bool_)
    sums = np.empty(128)
    tasks = 1
    kept = 0
    task_lo[0], task_n[0] = 0, a.size
    while tasks:
        tasks -= 1
        lo, n, join = task_lo[tasks], task_n[tasks], task_join[tasks]
        if join:
            kept -= 1
            sums[kept - 1] = sums[kept - 1] + sums[kept]
        elif n <= 128:
            sums[kept] = _block_sum(a, lo, n)
            kept += 1
        else:
            half = n // 2
            half -= half % 8
            task_lo[tasks], task_n[tasks], task_join[tasks] = lo, n, True
            task_lo[tasks + 1], task_n[tasks + 1], task_join[tasks + 1] = lo + half, n - half, False
            task_lo[tasks + 2], task_n[tasks + 2], task_join[tasks + 2] = lo, half, False
            tasks += 3
    return sums[0]


Key = tuple[float, float, float, int]


@njit(cache=True, nogil=True)
def _beats(value: float, key: Key, best: float, best_key: Key) -> bool:
    """``search._Best.beaten_by``: the value within EPS, then (start, length, cost, level) in that
    order: the earlier t, the shorter T, the lower cost, the faster level."""
    if value > best + EPS:
        return True
    if value < best - EPS:
        return False
    return key < best_key


@njit(cache=True, nogil=True)
def earliest_in_rows(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    count: np.ndarray,
    istart: float,
    iend: float,
    perf: np.ndarray,
    price: np.ndarray,
    rank: np.ndarray,
    cols: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray,
    n: int,
    budget: int,
    resolution: float,
    earliest: float,
    before: float,
    without: int,
    scratch_i: np.ndarray,
    scratch_f: np.ndarray,
    finish: bool = False,
) -> tuple[int, float, np.ndarray]:
    """FirstFit's window on the profile rows (``firstfit.first_fit`` on ``Profile.gaps``); with
    ``finish``, the exact search's window under the finish-time criterion (BFfinish, BFshort).

    ``cols``: the nodes of performance >= the job's minimum; ``rank``: each node's place in
    (price, position) order; ``levels`` highest first with their window ``lengths``;
    ``budget`` in cost units, -1 for none. Returns (level index, start, the n chosen node
    positions), level index -1 when no window starts before ``before``.

    Every slot of a window scores the same under a window-wide criterion, so at each level the
    earliest affordable start wins, on the cheapest n nodes (FirstFit's choice). FirstFit's value
    -t makes the earliest start at any level the window (``_first_start``); the finish time
    -(t + T) weighs each level's earliest window by its length (``_best_finish``).
    ``scratch_i`` and ``scratch_f`` (one int and three floats per row entry and row, at least) hold
    the gaps.
    """
    shortest = _shortest(perf, cols, levels, lengths, n)
    if shortest == math.inf:
        return -1, 0.0, np.empty(0, dtype=np.int64)
    third = scratch_f.size // 3
    gn, ges, gend, graw = scratch_i, scratch_f[:third], scratch_f[third : 2 * third], scratch_f[2 * third :]
    size = _row_gaps(bs, be, owner, count, istart, iend, cols, earliest, before, shortest, without, gn, ges, gend, graw)
    gaps = (gn[:size], ges[:size], gend[:size])
    return _window_on(gaps, perf, price, rank, cols, levels, lengths, n, budget, resolution, before, finish, shortest)


@njit(cache=True, nogil=True)
def _shortest(perf: np.ndarray, cols: np.ndarray, levels: np.ndarray, lengths: np.ndarray, n: int) -> float:
    """The shortest window any level can have: the length of the fastest level with n nodes at least
    that fast (inf for none). A faster level has fewer than n nodes, so no gap that only it could
    use can be part of a window."""
    k = fastest_level(perf, cols, levels, n)
    return lengths[k] if k >= 0 else math.inf


@njit(cache=True, nogil=True)
def fastest_level(perf: np.ndarray, cols: np.ndarray, levels: np.ndarray, n: int) -> int:
    """The index of the fastest level with n of the nodes ``cols`` at least that fast (-1 for none)."""
    if levels.size == 1:
        return 0 if cols.size >= n else -1
    at_level = np.zeros(levels.size + 1, dtype=np.int64)  # (a node slower than every level: the last)
    for x in cols:
        at_level[_level_of(levels, perf[x])] += 1
    fast = 0
    for k in range(levels.size):
        fast += at_level[k]
        if fast >= n:
            return k
    return -1


@njit(cache=True, nogil=True)
def _window_on(
    gaps: tuple[np.ndarray, np.ndarray, np.ndarray],
    perf: np.ndarray,
    price: np.ndarray,
    rank: np.ndarray,
    cols: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray,
    n: int,
    budget: int,
    resolution: float,
    before: float,
    finish: bool,
    shortest: float,
) -> tuple[int, float, np.ndarray]:
    """FirstFit's window on the gaps read (node, clipped start, end), or the finish time's; no window
    is shorter than ``shortest`` (``_shortest``)."""
    if gaps[0].size < n:
        return -1, 0.0, np.empty(0, dtype=np.int64)
    if finish:
        return _best_finish(*gaps, perf, price, rank, cols, levels, lengths, n, budget, resolution, before, shortest)
    k, t, chosen, _, _ = _first_start(
        *gaps, perf, price, rank, cols, levels, lengths, n, budget, resolution, before, shortest
    )
    return k, t, chosen


@njit(cache=True, nogil=True)
def _first_start(
    gn: np.ndarray,
    ges: np.ndarray,
    gend: np.ndarray,
    perf: np.ndarray,
    price: np.ndarray,
    rank: np.ndarray,
    cols: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray,
    n: int,
    budget: int,
    resolution: float,
    before: float,
    shortest: float,
    every: bool = False,
) -> tuple[int, float, np.ndarray, np.ndarray, np.ndarray]:
    """FirstFit's window on the gaps (node ``gn``, start ``ges``, end ``gend``): the earliest start
    t < ``before`` at which some level has an affordable window; at that t, the shortest window,
    then the cheapest, then the fastest level (``search._Best``'s order when the value -t ties).
    Returns (level index, t, its n nodes, and with ``every`` each level's first start and nodes).
    ``shortest``: no level's window is shorter (``_shortest``).

    One sweep over the gaps by start serves every level at once. Only a gap's start can be a
    first start (a window at t also fits from its members' latest start), and a gap holds
    level k at t when its node is that fast and gend - T_k + EPS >= t: from its start on, the
    levels it holds only shrink. So at each start, the gaps that hold the shortest window still
    are few (one per node at most; on a saturated flow most often none or one), and only when n
    of them do are their levels counted: level k has a window when n gaps hold it, one of them on
    a node of exactly its performance.

    With ``every``, the sweep goes on past the first start and keeps each level's first
    affordable start (inf for none) and nodes, until no level's window could still finish as
    early as the earliest-finishing one found (the finish-time search, ``_best_finish``).
    """
    none = np.empty(0, dtype=np.int64)
    size = gn.size
    L = levels.size
    first_t = np.full(L if every else 0, math.inf)
    first_nodes = np.empty((L if every else 0, n), dtype=np.int64)
    finish = math.inf  # with ``every``: the earliest finish found
    order = _by_start(ges)
    act = np.empty(size, dtype=np.int64)  # the gaps that hold the shortest window at t
    na = 0
    kp = none  # each node's level index (levels[kp] == perf), set at the first count
    kr = none  # each active gap: the slowest level index it holds at t
    held = none  # held[k]: how many active gaps hold level k (as a difference array)
    exact = np.empty(0, dtype=np.bool_)  # a gap on a node of exactly level k's performance holds it
    p = 0
    while p < size:
        t = ges[order[p]]
        if t >= before or t + shortest > finish + FINISH_SLACK * (1.0 + abs(finish)):
            break
        while p < size and ges[order[p]] <= t:
            act[na] = order[p]
            na += 1
            p += 1
        keep = 0
        for i in range(na):
            g = act[i]
            if gend[g] - shortest + EPS >= t:
                act[keep] = g
                keep += 1
        na = keep
        if na < n:
            continue
        if kp.size == 0:
            kp = np.empty(perf.size, dtype=np.int64)
            for x in cols:
                kp[x] = _level_of(levels, perf[x])
            kr = np.empty(size, dtype=np.int64)
            held = np.zeros(L + 1, dtype=np.int64)
            exact = np.zeros(L, dtype=np.bool_)
        klo = L
        khi = -1
        for i in range(na):
            g = act[i]
            x = gn[g]
            lo = 0
            hi = L
            while lo < hi:  # lengths ascend: the levels whose window fits from t are a prefix
                mid = (lo + hi) // 2
                if gend[g] - lengths[mid] + EPS < t:
                    hi = mid
                else:
                    lo = mid + 1
            kr[g] = lo - 1
            if lo - 1 >= kp[x]:
                held[kp[x]] += 1
                held[lo] -= 1
                exact[kp[x]] = True
                klo = min(klo, kp[x])
                khi = max(khi, lo - 1)
        best_k = -1
        best_length = 0.0
        best_cost = 0.0
        best_chosen = none
        run = 0
        for k in range(klo, khi + 1):
            run += held[k]
            if run < n or not exact[k] or (every and first_t[k] < math.inf):
                continue
            length = lengths[k]
            chosen = _cheapest(act[:na], gn, kp, kr, perf, rank, levels[k], k, n)
            if budget >= 0 and _units(price, chosen, length, resolution) > budget:
                continue  # the cheapest choice is over budget
            if every:
                first_t[k] = t
                first_nodes[k] = chosen
                finish = min(finish, t + length)
                continue
            cost = length * _price_sum(price, chosen)
            if best_k < 0 or (length, cost, k) < (best_length, best_cost, best_k):
                best_k, best_length, best_cost, best_chosen = k, length, cost, chosen
        held[klo : khi + 2] = 0
        exact[klo : khi + 1] = False
        if best_k >= 0:
            return best_k, t, best_chosen, first_t, first_nodes
    return -1, 0.0, none, first_t, first_nodes


@njit(cache=True, nogil=True)
def _level_of(levels: np.ndarray, p: float) -> int:
    """The index of the first level (highest first) no faster than ``p``."""
    lo = 0
    hi = levels.size
    while lo < hi:
        mid = (lo + hi) // 2
        if levels[mid] > p:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _by_start(keys: np.ndarray) -> np.ndarray:
    """The positions of ``keys`` in ascending order (ties in position order): a counting sort into
    size/2 + 1 buckets by value, each kept in order by insertion. The gaps come row by row, each
    row in order, and the first of every row is often at the same clipped start: numba's
    quicksort is slow on that, and one pass of buckets suits it."""
    size = keys.size
    order = np.empty(size, dtype=np.int64)
    lo = math.inf
    hi = -math.inf
    for g in range(size):
        lo = min(lo, keys[g])
        hi = max(hi, keys[g])
    if not hi > lo:  # one value (or none)
        for g in range(size):
            order[g] = g
        return order
    B = size // 2 + 1
    scale = (B - 1) / (hi - lo)
    start = np.zeros(B + 1, dtype=np.int64)
    bucket = np.empty(size, dtype=np.int64)
    for g in range(size):
        b = min(int((keys[g] - lo) * scale), B - 1)
        bucket[g] = b
        start[b + 1] += 1
    for b in range(B):
        start[b + 1] += start[b]
    base = start.copy()
    for g in range(size):
        b = bucket[g]
        at = start[b]
        start[b] = at + 1
        while at > base[b] and keys[order[at - 1]] > keys[g]:
            order[at] = order[at - 1]
            at -= 1
        order[at] = g
    return order


@njit(cache=True, nogil=True)
def _cheapest(
    act: np.ndarray,
    gn: np.ndarray,
    kp: np.ndarray,
    kr: np.ndarray,
    perf: np.ndarray,
    rank: np.ndarray,
    P: float,
    k: int,
    n: int,
) -> np.ndarray:
    """``_pick`` on the active gaps that hold level k, cheapest first: the n cheapest nodes; if none has
    performance exactly P, the dearest gives way to the cheapest that has."""
    m = 0
    nodes = np.empty(act.size, dtype=np.int64)
    keys = np.empty(act.size, dtype=np.int64)
    for g in act:
        x = gn[g]
        if kp[x] <= k <= kr[g]:
            nodes[m] = x
            keys[m] = rank[x]
            m += 1
    by_rank = nodes[:m][np.argsort(keys[:m])]
    return _pick(by_rank, perf, P, n)


@njit(cache=True, nogil=True)
def _pick(by_rank: np.ndarray, perf: np.ndarray, P: float, n: int) -> np.ndarray:
    """The first n of ``by_rank`` (nodes cheapest first); if none of them has performance exactly
    P, the last of them gives way to the first of the rest that has (``firstfit._lite_choice``)."""
    chosen = np.empty(n, dtype=np.int64)
    m = 0
    exact = False
    first_exact = -1
    for x in by_rank:
        if m < n:
            chosen[m] = x
            m += 1
            if perf[x] == P:
                exact = True
        elif exact:
            break
        if perf[x] == P and first_exact < 0:
            first_exact = x
            if m >= n:
                break
    if not exact:
        chosen[n - 1] = first_exact
    return chosen


@njit(cache=True, nogil=True)
def _units(price: np.ndarray, chosen: np.ndarray, length: float, resolution: float) -> int:
    """The cost in budget units of ``length`` on the nodes ``chosen``."""
    units = 0
    for c in chosen:
        units += min(math.ceil(price[c] * length / resolution - 1e-9), UNITS_CAP)
    return units


@njit(cache=True, nogil=True)
def _price_sum(price: np.ndarray, chosen: np.ndarray) -> float:
    """The nodes' prices summed in position order (as ``first_fit_in`` sums them)."""
    total = 0.0
    for c in np.sort(chosen):
        total += price[c]
    return total


@njit(cache=True, nogil=True)
def _best_finish(
    gn: np.ndarray,
    ges: np.ndarray,
    gend: np.ndarray,
    perf: np.ndarray,
    price: np.ndarray,
    rank: np.ndarray,
    cols: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray,
    n: int,
    budget: int,
    resolution: float,
    before: float,
    shortest: float,
) -> tuple[int, float, np.ndarray]:
    """The exact search's window under the finish time -(t + T) on the gaps: each level's earliest
    affordable window (FirstFit's at that level, all found in one sweep by ``_first_start``), the
    levels weighed in order by their finish: a level whose start is not before the incumbent's
    finish less its own length (within 2 EPS) is not a candidate, then the value within EPS, then
    earlier t, shorter T, lower cost."""
    _, _, _, first_t, first_nodes = _first_start(
        gn, ges, gend, perf, price, rank, cols, levels, lengths, n, budget, resolution, before, shortest, True
    )
    best_k = -1
    best_t = math.inf
    best_value = 0.0
    best_length = 0.0
    best_cost = 0.0
    for k in range(levels.size):
        t = first_t[k]
        length = lengths[k]
        if t == math.inf or (best_k >= 0 and t >= best_t + best_length - length + 2 * EPS):
            continue
        value = _pairwise_sum(np.full(n, -(t + length)))  # as numpy sums the n slots' z
        cost = length * _price_sum(price, first_nodes[k])
        if best_k < 0 or _beats(value, (t, length, cost, k), best_value, (best_t, best_length, best_cost, best_k)):
            best_k, best_t, best_value, best_length, best_cost = k, t, value, length, cost
    if best_k < 0:
        return -1, 0.0, np.empty(0, dtype=np.int64)
    return best_k, best_t, first_nodes[best_k].copy()


@njit(cache=True, nogil=True)
def insert_rows(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    count: np.ndarray,
    xs: np.ndarray,
    start: float,
    ends: np.ndarray,
    who: int,
) -> None:
    """Put [start, ends[i]) into row xs[i] in its sorted place (after any that start at ``start``).
    The caller makes sure every row has a spare column."""
    for i in range(xs.size):
        x = xs[i]
        c = count[x]
        at = 0
        while at < c and bs[x, at] <= start:
            at += 1
        for k in range(c, at, -1):
            bs[x, k] = bs[x, k - 1]
            be[x, k] = be[x, k - 1]
            owner[x, k] = owner[x, k - 1]
        bs[x, at] = start
        be[x, at] = ends[i]
        owner[x, at] = who
        count[x] = c + 1


@njit(cache=True, nogil=True)
def delete_rows(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    count: np.ndarray,
    xs: np.ndarray,
    start: float,
    ends: np.ndarray,
) -> int:
    """Take [start, ends[i]) out of row xs[i] (the first that matches within EPS); -1 when done,
    else the position in ``xs`` of the first row that does not hold its interval (nothing changed)."""
    found = np.empty(xs.size, dtype=np.int64)
    for i in range(xs.size):
        x = xs[i]
        found[i] = -1
        for k in range(count[x]):
            if abs(bs[x, k] - start) <= EPS and abs(be[x, k] - ends[i]) <= EPS:
                found[i] = k
                break
        if found[i] < 0:
            return i
    for i in range(xs.size):
        x = xs[i]
        c = count[x]
        for k in range(found[i], c - 1):
            bs[x, k] = bs[x, k + 1]
            be[x, k] = be[x, k + 1]
            owner[x, k] = owner[x, k + 1]
        bs[x, c - 1] = math.inf
        be[x, c - 1] = math.inf
        owner[x, c - 1] = -1
        count[x] = c - 1
    return -1


@njit(cache=True, nogil=True)
def unverify(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    count: np.ndarray,
    istart: float,
    iend: float,
    perf: np.ndarray,
    fx: np.ndarray,
    fa: np.ndarray,
    fb: np.ndarray,
    jobs: np.ndarray,
    active: np.ndarray,
    verified: np.ndarray,
    arrival: np.ndarray,
    volume: np.ndarray,
    min_perf: np.ndarray,
    top: np.ndarray,
    start: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    factor: float,
    now: float,
    mover: int,
) -> int:
    """Clear the certificate of every active, verified job in ``jobs`` that a freed gap
    [fa, fb) on node fx could help (``backfill._Replanner._unverify``); how many were cleared.

    A new feasible window must overlap a freed gap and fit in it merged with its free
    neighbours: start s >= max(A, e_j), s < min(S_j, b), s + T <= B, with T >= V_j / p_x, and
    T >= V_j / ``top``_j too: no window runs faster than the n-th fastest node the job may use
    (0: fewer than n, no window at all). A job whose own interval bounds the gap may also use that part.

    Each job whose certificate is cleared also keeps where such a start can be: [``lower``,
    ``upper``) spans the ranges [max(A, e_j), min(S_j, b)) of every freed gap that could help it
    since it was last verified; its re-check searches only there (``replan_pass``). A job not
    verified for another reason spans everything, (-inf, inf), and keeps it; so does one whose
    span reaches ``WIDE_RANGE`` of the way to its start (keeping it would cost more than it saves).
    """
    F = fx.size
    A = np.empty(F)
    B = np.empty(F)
    lo_owner = np.empty(F, dtype=np.int64)
    hi_owner = np.empty(F, dtype=np.int64)
    A2 = np.empty(F)
    B2 = np.empty(F)
    for f in range(F):  # Profile.gaps_around
        x = fx[f]
        c = count[x]
        # The last busy interval that ends by fa, and the first that starts from fb (rows are sorted
        # by start, and so by end).
        left = _count_below(be[x], c, fa[f] + EPS, True) - 1
        right = _count_below(bs[x], c, fb[f] - EPS, False)
        A[f] = max(be[x, left], istart) if left >= 0 else istart
        lo_owner[f] = owner[x, left] if left >= 0 else -1
        A2[f] = max(be[x, left - 1], istart) if left >= 1 else istart
        B[f] = min(bs[x, right], iend) if right < c else iend
        hi_owner[f] = owner[x, right] if right < c else -1
        B2[f] = min(bs[x, right + 1], iend) if right + 1 < c else iend
    # What any job a gap helps must meet (its own interval may widen the gap: A2, B2): a part that
    # fits some gap's room on its node, a start after some gap's, a node fast enough.
    room = 0.0
    after = math.inf
    fastest = 0.0
    for f in range(F):
        a = max(min(A[f], A2[f]), now)
        room = max(room, (max(B[f], B2[f]) + EPS - a) * perf[fx[f]])
        after = min(after, a)
        fastest = max(fastest, perf[fx[f]])
    room = room * (1 + 1e-9) + EPS  # rounding
    cleared = 0
    for j in jobs:
        if j == mover or not active[j]:
            continue
        if not verified[j] and lower[j] == -math.inf and upper[j] == math.inf:
            continue  # to be searched everywhere already
        if volume[j] * factor > room or start[j] + EPS <= after or min_perf[j] > fastest + EPS or top[j] <= 0:
            continue  # no freed gap can help it
        for f in range(F):
            px = perf[fx[f]]
            if min_perf[j] > px + EPS:
                continue
            px = min(px, top[j])
            lo = A2[f] if lo_owner[f] == j else A[f]
            hi = B2[f] if hi_owner[f] == j else B[f]
            s0 = max(lo, max(arrival[j], now))
            if s0 >= min(start[j], fb[f]) + EPS:
                continue
            if s0 + volume[j] / px * factor <= hi + EPS:
                if verified[j]:
                    verified[j] = False
                    cleared += 1
                    lower[j] = s0
                    upper[j] = min(start[j], fb[f])
                else:
                    lower[j] = min(lower[j], s0)
                    upper[j] = max(upper[j], min(start[j], fb[f]))
                if upper[j] - lower[j] >= WIDE_RANGE * (start[j] - max(arrival[j], now)):
                    lower[j], upper[j] = -math.inf, math.inf  # most of the way anyway: stop keeping it
                    break
    return cleared


@njit(cache=True, nogil=True)
def _count_below(row: np.ndarray, c: int, v: float, inclusive: bool) -> int:
    """How many of the first c entries of the ascending ``row`` are below v (or equal, ``inclusive``)."""
    lo = 0
    hi = c
    while lo < hi:
        mid = (lo + hi) // 2
        if row[mid] < v or (inclusive and row[mid] == v):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _holding_gap(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    count: np.ndarray,
    istart: float,
    iend: float,
    x: int,
    t: float,
    end: float,
    without: int,
) -> tuple[float, float]:
    """(start, end) of the gap of row x that holds [t, end], ``without``'s interval given back."""
    gs = istart
    for k in range(count[x] + 1):
        if k < count[x] and without >= 0 and owner[x, k] == without:
            continue
        ge = min(bs[x, k], iend) if k < count[x] else iend
        if gs <= t + EPS and ge >= end - EPS:
            return gs, ge
        if k < count[x]:
            gs = max(be[x, k], istart)
    raise ValueError("a window's part is not in a free gap")
