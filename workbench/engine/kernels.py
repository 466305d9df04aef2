"""The engine's compiled loops: a ``Profile``'s rows (the earliest window, the row edits of a
move, the certificate test) and host-level EASY.

Dynamic conservative backfilling on a saturated flow asks hundreds of thousands of
small questions ("does job j have a window before its reservation?") and makes a
hundred thousand small edits (a job moves: its intervals leave one place in each
row and enter another). Each question reads a few dozen gaps; in numpy every one
still costs some twenty array calls, so the calls, not the work, set the time
(measured on the first 5,000 KTH jobs compressed 3×: 685,000 checks at 285 µs,
`workbench bench --only saturation`). These loops do the same work in compiled code.
EASY on identical hosts is one loop over events; in Python it cannot be twice as fast
as a careful Python EASY (``lab/baseline.py``) that records nothing.

numba compiles them on first use and caches the machine code beside this file
(``cache=True``), so only the first run on a machine pays for the compilation.
Each kernel is held by a test to code that does not use it: ``earliest_in_rows`` to
``firstfit.first_fit`` on ``Profile.gaps``; the row edits to a full rebuild of the slot
table (``test_profile_gaps_are_the_full_tables_slots_in_range``); ``unverify`` and the
rest of dynamic backfilling to ``tests/engine/reference_backfill.py``; ``easy_hosts``
to the stepped EASY and the textbook ones.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

EPS = 1e-9
UNITS_CAP = 2**43  # search.UNITS_CAP: a cost this dear never fits a budget


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
) -> int:
    """The gaps of ``cols``' rows as ``Profile.gaps(earliest, before, without)`` gives them, cut to
    those that could hold a window of length ``shortest`` starting in [earliest, before), written
    to (node ``gn``, clipped start ``ges`` = max(start, earliest), end ``gend``, start ``gstart``);
    how many."""
    m = 0
    for c in cols:
        gs = istart
        for k in range(count[c] + 1):
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
) -> tuple[int, float, np.ndarray]:
    """FirstFit's window on the profile rows (``firstfit.first_fit`` on ``Profile.gaps``).

    ``cols``: the nodes of performance >= the job's minimum; ``rank``: each node's place in
    (price, position) order; ``levels`` highest first with their window ``lengths``;
    ``budget`` in cost units, -1 for none. Returns (level index, start, the n chosen node
    positions), level index -1 when no window starts before ``before``. ``scratch_i`` and
    ``scratch_f`` (one int and three floats per row entry and row, at least) hold the gaps.
    """
    none = np.empty(0, dtype=np.int64)
    third = scratch_f.size // 3
    gn, ges, gend, graw = scratch_i, scratch_f[:third], scratch_f[third : 2 * third], scratch_f[2 * third :]
    size = _row_gaps(
        bs, be, owner, count, istart, iend, cols, earliest, before, lengths[0], without, gn, ges, gend, graw
    )
    if size < n:
        return -1, 0.0, none
    gn, ges, gend = gn[:size], ges[:size], gend[:size]
    by_rank = none  # lite takes members in (price, position) order: sorted when first needed
    es_min = ges.min()
    best_k = -1
    best_t = math.inf
    best_value = 0.0
    best_length = 0.0
    best_cost = 0.0
    best_chosen = none
    member = np.empty(size, dtype=np.bool_)
    last = np.empty(size)
    # Each node's longest gap: a level whose window fits in fewer than n nodes' longest gaps, or in
    # none of its own performance, has no candidate (on many levels most have none).
    longest = np.zeros(perf.size)
    for g in range(size):
        longest[gn[g]] = max(longest[gn[g]], gend[g] - ges[g])
    for k in range(levels.size):
        if best_k >= 0 and best_t < es_min - EPS:
            break  # no later level can start earlier than the incumbent
        level = levels[k]
        length = lengths[k]
        fit = 0
        fit_exact = 0
        for x in cols:
            if perf[x] >= level and longest[x] >= length - EPS:
                fit += 1
                if perf[x] == level:
                    fit_exact += 1
        if fit < n or fit_exact == 0:
            continue
        members = 0
        exacts = 0
        for g in range(size):
            p = perf[gn[g]]
            member[g] = p >= level and gend[g] - ges[g] >= length - EPS
            last[g] = gend[g] - length + EPS
            if member[g]:
                members += 1
                if p == level:
                    exacts += 1
        if members < n or exacts == 0:
            continue
        a = np.empty(members)
        b = np.empty(members)
        ax = np.empty(exacts)
        bx = np.empty(exacts)
        i = 0
        j = 0
        for g in range(size):
            if member[g]:
                a[i] = ges[g]
                b[i] = last[g]
                i += 1
                if perf[gn[g]] == level:
                    ax[j] = ges[g]
                    bx[j] = last[g]
                    j += 1
        a.sort()
        b.sort()
        ax.sort()
        bx.sort()
        cut = best_t + EPS if best_k >= 0 else before
        ia = 0
        ib = 0
        jx = 0
        jb = 0
        prev = -math.inf
        for i in range(members):
            t = a[i]
            if t == prev:
                continue
            prev = t
            if t >= cut:
                break
            while ia < members and a[ia] <= t:
                ia += 1
            while ib < members and b[ib] < t:
                ib += 1
            while jx < exacts and ax[jx] <= t:
                jx += 1
            while jb < exacts and bx[jb] < t:
                jb += 1
            if ia - ib < n or jx - jb < 1:
                continue
            if by_rank.size == 0:
                by_rank = np.argsort(rank[gn], kind="mergesort")
            chosen = _lite(gn, ges, last, member, perf, by_rank, level, n, t)
            if budget >= 0:
                units = 0
                for c in chosen:
                    units += min(math.ceil(price[c] * length / resolution - 1e-9), UNITS_CAP)
                if units > budget:
                    continue  # the cheapest choice is over budget: the next time
            value = 0.0
            for _ in range(n):
                value += -t
            ordered = np.sort(chosen)
            total = 0.0
            for c in ordered:
                total += price[c]
            cost = length * total
            # FirstFit's order: the value within EPS, then earlier t, shorter T, lower cost.
            if best_k < 0 or value > best_value + EPS:
                better = True
            elif value < best_value - EPS:
                better = False
            elif t != best_t:
                better = t < best_t
            elif length != best_length:
                better = length < best_length
            else:
                better = cost < best_cost
            if better:
                best_k, best_t, best_value, best_length, best_cost, best_chosen = k, t, value, length, cost, chosen
            break  # the first affordable time decides this level
    return best_k, best_t, best_chosen


@njit(cache=True, nogil=True)
def _lite(
    gn: np.ndarray,
    ges: np.ndarray,
    last: np.ndarray,
    member: np.ndarray,
    perf: np.ndarray,
    by_rank: np.ndarray,
    P: float,
    n: int,
    t: float,
) -> np.ndarray:
    """The n cheapest members that hold t; if none has performance exactly P, the dearest of
    them gives way to the cheapest that has (``firstfit._lite_choice``)."""
    chosen = np.empty(n, dtype=np.int64)
    m = 0
    exact = False
    first_exact = -1
    for g in by_rank:
        if not member[g] or ges[g] > t or last[g] < t:
            continue
        if m < n:
            chosen[m] = gn[g]
            m += 1
            if perf[gn[g]] == P:
                exact = True
        elif exact:
            break
        if perf[gn[g]] == P and first_exact < 0:
            first_exact = gn[g]
            if m >= n:
                break
    if not exact:
        chosen[n - 1] = first_exact
    return chosen


PLACE_NONE, PLACE_COP, PLACE_PAST = 0, 1, 2


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


@njit(cache=True, nogil=True)
def _placement_z(kind: int, k: np.ndarray, t: float, T: float, p: float, gs: float, ge: float) -> float:
    """z of one slot [gs, ge) for the window [t, t + T) on a node of performance p, as
    ``criteria.CoordinatedPlacement.z`` (kind PLACE_COP) or ``criteria.Past.z`` compute it, operation
    for operation. ``k``: alpha1, alpha2, delta1, delta2, eps1, eps2, eps3."""
    base = -(t + T) - k[0] * p
    left = t - gs
    right = ge - (t + T)
    if right == math.inf:
        right = 0.0
    if kind == PLACE_COP:
        snug = int(right < k[4] * T) + int(left < k[4] * T)
        awkward = int(right > k[5] * T and right < k[6] * T) + int(left > k[5] * T and left < k[6] * T)
        roomy = int(right > T) + int(left > T)
        return base + k[2] * float(snug - awkward) + k[3] * float(roomy)
    z = base + k[2] * (1.0 if abs(right) <= 1e-9 else 0.0) + k[2] * (1.0 if abs(left) <= 1e-9 else 0.0)
    return z - k[1] * right


@njit(cache=True, nogil=True)
def _placement_bound(kind: int, k: np.ndarray, n: int, t: float, T: float, P: float, max_perf: float) -> float:
    """n times the criterion's per-slot upper bound at (t, T, P) (``slot_bound``)."""
    perf_term = -k[0] * P if k[0] >= 0 else -k[0] * max_perf
    if kind == PLACE_COP:
        per_side = abs(k[2]) + max(k[3], 0.0)
        return n * ((-(t + T) + perf_term) + 2 * per_side)
    if k[1] < 0:
        return math.inf  # a reward for long gaps has no useful bound
    return n * ((-(t + T) + perf_term) + 2 * max(k[2], 0.0))


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
def placement_in_rows(
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
    kind: int,
    consts: np.ndarray,
    resolution: float,
    earliest: float,
    first: float,
    without: int,
    scratch_i: np.ndarray,
    scratch_f: np.ndarray,
) -> tuple[int, float, np.ndarray, float]:
    """The exact search (``search.search_profile``) with CoP's or PAST's criterion and no budget,
    on the profile rows: the window of the largest sum of z over n slots of its S_W.

    Candidates (t, P): t a start of a usable slot (clipped to ``earliest``), at least n members,
    one of them starting at t and one of performance exactly P; its n best members by (larger z,
    fewer cost units, lower position), the last giving way to the best of level P when none is.
    ``first`` is the earliest candidate's start (FirstFit's): the sweep starts there, reads the
    rows only as far as the criterion's bound lets a later time beat the incumbent, and widens.
    ``cols``, ``rank``, ``levels``, ``lengths`` and the scratch as for ``earliest_in_rows``.
    Returns (level index, start, the n chosen node positions sorted, value); level -1 if none.
    """
    none = np.empty(0, dtype=np.int64)
    L = levels.size
    max_perf = perf.max()
    lvl = np.full(perf.size, L, dtype=np.int64)
    for x in cols:
        k = 0
        while levels[k] > perf[x]:
            k += 1
        lvl[x] = k
    units = np.empty((L, perf.size), dtype=np.int64)
    for k in range(L):
        for x in cols:
            units[k, x] = min(math.ceil(price[x] * lengths[k] / resolution - 1e-9), UNITS_CAP)
    third = scratch_f.size // 3
    gn, ges, gend, graw = scratch_i, scratch_f[:third], scratch_f[third : 2 * third], scratch_f[2 * third :]
    holder = np.full(perf.size, -1, dtype=np.int64)
    mz = np.empty(cols.size)
    mu = np.empty(cols.size, dtype=np.int64)
    mx = np.empty(cols.size, dtype=np.int64)
    picked = np.empty(n)
    best_k = -1
    best_t = best_v = best_T = best_c = 0.0
    best_nodes = none
    done_to = -math.inf  # candidate times below it are settled
    reach = first + EPS * (1.0 + abs(first))
    unbounded = _placement_bound(kind, consts, n, first, lengths[0], levels[0], max_perf) == math.inf
    if unbounded:
        reach = math.inf
    while True:
        size = _row_gaps(
            bs, be, owner, count, istart, iend, cols, earliest, reach, lengths[0], without, gn, ges, gend, graw
        )
        order = np.argsort(ges[:size], kind="mergesort")
        holder[:] = -1
        stop = False
        i = 0
        while i < size and not stop:
            t = ges[order[i]]
            while i < size and ges[order[i]] == t:
                g = order[i]
                holder[gn[g]] = g  # a node's gaps are disjoint: the latest to start holds t
                i += 1
            if t < first - EPS or t < done_to:
                continue
            if best_k >= 0:
                top = -math.inf
                for k in range(L):
                    top = max(top, _placement_bound(kind, consts, n, t, lengths[k], levels[k], max_perf))
                if top <= best_v + EPS:
                    stop = True
                    break
            for k in range(L):
                T = lengths[k]
                if best_k >= 0 and _placement_bound(kind, consts, n, t, T, levels[k], max_perf) < best_v - EPS:
                    continue
                m = 0
                started = False
                exact = False
                for x in cols:
                    g = holder[x]
                    if g < 0 or lvl[x] > k or (gend[g] - t) + EPS < T:
                        continue
                    started |= ges[g] == t
                    exact |= lvl[x] == k
                    mz[m] = -_placement_z(kind, consts, t, T, perf[x], graw[g], gend[g])
                    mu[m] = units[k, x]
                    mx[m] = x
                    m += 1
                if m < n or not started or not exact:
                    continue
                # (larger z, fewer units, lower position): members come by position; two stable sorts.
                by_units = np.argsort(mu[:m], kind="mergesort")
                ranked = by_units[np.argsort(mz[:m][by_units], kind="mergesort")]
                top_n = ranked[:n]
                swap = -1
                if not (lvl[mx[top_n]] == k).any():
                    for q in ranked[n:]:
                        if lvl[mx[q]] == k:
                            swap = q
                            break
                # numpy sums the choice in column (price, position) order, the level's item in
                # the place of the member it replaced.
                chosen = top_n[np.argsort(rank[mx[top_n]], kind="mergesort")]
                if swap >= 0:
                    for q in range(n):
                        if chosen[q] == top_n[n - 1]:
                            chosen[q] = swap
                for q in range(n):
                    picked[q] = -mz[chosen[q]]
                value = _pairwise_sum(picked)
                for q in range(n):
                    picked[q] = price[mx[chosen[q]]]
                cost = T * _pairwise_sum(picked)
                if best_k < 0 or _beats(value, (t, T, cost, k), best_v, (best_t, best_T, best_c, best_k)):
                    best_k, best_t, best_v, best_T, best_c = k, t, value, T, cost
                    best_nodes = np.sort(mx[chosen])
        if stop or reach == math.inf:
            break
        done_to = reach
        if best_k < 0:
            reach = math.inf
            continue
        # The first time from which no level's bound reaches the incumbent: every candidate is
        # read once the rows are read that far.
        beyond = -math.inf
        for k in range(L):
            slack = (best_v + EPS) / n
            beyond = max(beyond, _placement_bound(kind, consts, 1, 0.0, lengths[k], levels[k], max_perf) - slack)
        beyond += EPS * (1.0 + abs(beyond)) + 1e-6
        if beyond <= reach:
            break
        reach = beyond
    return best_k, best_t, best_nodes, best_v


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
    start: np.ndarray,
    factor: float,
    now: float,
    mover: int,
) -> int:
    """Clear the certificate of every active, verified job in ``jobs`` that a freed gap
    [fa, fb) on node fx could help (``backfill._Replanner._unverify``); how many were cleared.

    A new feasible window must overlap a freed gap and fit in it merged with its free
    neighbours: start s >= max(A, e_j), s < min(S_j, b), s + T <= B, with T >= V_j / p_x. A
    job whose own interval bounds the gap may also use that part.
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
        left = -1  # the last busy interval that ends by fa (rows are sorted)
        right = 0  # the first that starts from fb
        for k in range(c):
            if be[x, k] <= fa[f] + EPS:
                left += 1
            if bs[x, k] < fb[f] - EPS:
                right += 1
        A[f] = max(be[x, left], istart) if left >= 0 else istart
        lo_owner[f] = owner[x, left] if left >= 0 else -1
        A2[f] = max(be[x, left - 1], istart) if left >= 1 else istart
        B[f] = min(bs[x, right], iend) if right < c else iend
        hi_owner[f] = owner[x, right] if right < c else -1
        B2[f] = min(bs[x, right + 1], iend) if right + 1 < c else iend
    cleared = 0
    for j in jobs:
        if j == mover or not active[j] or not verified[j]:
            continue
        for f in range(F):
            px = perf[fx[f]]
            if min_perf[j] > px + EPS:
                continue
            lo = A2[f] if lo_owner[f] == j else A[f]
            hi = B2[f] if hi_owner[f] == j else B[f]
            s0 = max(lo, max(arrival[j], now))
            if s0 >= min(start[j], fb[f]) + EPS:
                continue
            if s0 + volume[j] / px * factor <= hi + EPS:
                verified[j] = False
                cleared += 1
                break
    return cleared


# -- EASY ----------------------------------------------------------------------------------

# Slots of the EASY kernels' integer state: the next arrival, the completions heap's size, the
# queue's length, the start sequence, the free node count, the number of events run.
NXT, HEAP, QLEN, SEQ, NFREE, EVENTS = range(6)


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _easy_event(
    order: np.ndarray,
    arrival: np.ndarray,
    key_priority: np.ndarray,
    key_arrival: np.ndarray,
    jobs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    run: tuple[np.ndarray, ...],
) -> float:
    """The next event of an EASY run (``flow.easy``): its time. Every completion by then gives its
    nodes back, then every arrival by then joins the queue in queue order (priority, arrival,
    position). ``order``: the jobs that can run, by (arrival, priority, position)."""
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


@njit(cache=True, nogil=True)
def _easy_start(
    at: int,
    now: float,
    chosen: np.ndarray,
    jobs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    run: tuple[np.ndarray, ...],
) -> None:
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def easy_hosts(
    order: np.ndarray,
    arrival: np.ndarray,
    key_priority: np.ndarray,
    key_arrival: np.ndarray,
    jobs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    run: tuple[np.ndarray, ...],
    max_events: int,
) -> bool:
    """Host-level EASY on identical hosts (``flow.easy._easy_hosts``, event for event), for at most
    ``max_events`` events from the state it is given; True when every event has run.

    ``jobs`` is (width, length, share, offset), ``run`` (start, actual_end, hosts, free,
    predicted, heap_time, heap_seq, heap_job, queue, state): the results and the state between
    calls. A job j that starts gets ``start[j]``, ``actual_end[j]`` = start + ``share`` ×
    ``length``, and its hosts, lowest index first, in ``hosts[offset[j]:offset[j] + width[j]]``.
    """
    width, length, _share, _offset = jobs
    _start, _actual_end, _hosts, free, predicted, _ht, _hs, _hj, queue, state = run
    n_hosts = free.size
    available = np.empty(n_hosts)
    reserved = np.zeros(n_hosts, dtype=np.bool_)
    for _ in range(max_events):
        if state[NXT] >= order.size and state[HEAP] == 0:
            return True
        now = _easy_event(order, arrival, key_priority, key_arrival, jobs, run)
        while state[QLEN] > 0 and width[queue[0]] <= state[NFREE]:
            _easy_start(0, now, _lowest_free(free, reserved, False, width[queue[0]]), jobs, run)
        if state[QLEN] == 0 or state[NFREE] == 0:
            continue
        n = width[queue[0]]
        for h in range(n_hosts):
            available[h] = now if free[h] else predicted[h]
        shadow = np.partition(available, n - 1)[n - 1]
        held_free = 0
        taken = 0
        for h in range(n_hosts):
            reserved[h] = False
            if taken < n and available[h] <= shadow + EPS:
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


@njit(cache=True, nogil=True)
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
                units += min(math.ceil(price[chosen[q]] * length / 1.0 - 1e-9), UNITS_CAP)
            if units > budget:
                continue
        return k, chosen
    return -1, chosen


@njit(cache=True, nogil=True)
def easy_nodes(
    order: np.ndarray,
    arrival: np.ndarray,
    key_priority: np.ndarray,
    key_arrival: np.ndarray,
    jobs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    run: tuple[np.ndarray, ...],
    shapes: tuple[np.ndarray, ...],
    nodes: tuple[np.ndarray, ...],
    t0: float,
    horizon: float,
    reserved_at: np.ndarray,
    max_events: int,
) -> bool:
    """EASY on nodes of any performance and price without local tasks (``flow.easy._easy_nodes``,
    event for event), as ``easy_hosts`` runs; the nodes are columns in (price, position) order.

    ``shapes``: per job (level offset, level count, budget units or -1) into ``nodes``'s levels
    and lengths; ``nodes``: (perf, price by column, each column's position, each position's rank
    in that order, the levels, the lengths, the eligible positions' offset and count per job,
    the eligible positions). A job that starts gets its level's length in ``length``; a head
    that gets a reservation has its first start in ``reserved_at``. The head's earliest window
    is ``earliest_in_rows`` on rows that hold each busy node until its requested end.
    """
    width, length, _share, _offset = jobs
    _start, _actual_end, _hosts, free, until, _ht, _hs, _hj, queue, state = run
    lvl_off, lvl_cnt, budget, col_off, col_cnt = shapes
    perf_c, price_c, position, rank, levels, lengths, eligible = nodes
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
    scratch_i = np.empty(3 * n_nodes, dtype=np.int64)
    scratch_f = np.empty(9 * n_nodes)
    for _ in range(max_events):
        if state[NXT] >= order.size and state[HEAP] == 0:
            return True
        now = _easy_event(order, arrival, key_priority, key_arrival, jobs, run)
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
        k, t, held = earliest_in_rows(
            bs,
            be,
            owner,
            count,
            t0,
            horizon,
            perf_p,
            price_p,
            rank,
            eligible[col_off[head] : col_off[head] + col_cnt[head]],
            levels[a : a + m],
            lengths[a : a + m],
            width[head],
            budget[head],
            1.0,
            now,
            math.inf,
            -1,
            scratch_i,
            scratch_f,
        )
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


# -- a pass of dynamic backfilling -----------------------------------------------------

# What ``replan_pass`` stopped at: the end of the queue, a job whose earlier feasible window the
# selector must judge (Python searches it), a row with no spare column for a move, or the job
# that Python checks itself (the one "Why here?" watches).
PASS_DONE, PASS_SELECTOR, PASS_WIDEN, PASS_PYTHON = 0, 1, 2, 3


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


@njit(cache=True, nogil=True)
def replan_pass(
    rows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    nodes: tuple[np.ndarray, np.ndarray, np.ndarray],
    shapes: tuple[np.ndarray, ...],
    queue: tuple[np.ndarray, ...],
    moves: tuple[np.ndarray, ...],
    scratch: tuple[np.ndarray, np.ndarray],
    istart: float,
    iend: float,
    factor: float,
    resolution: float,
    now: float,
    cursor: int,
    move: np.ndarray,
    place: np.ndarray,
    consts: np.ndarray,
    explain: bool,
    stop_at: int,
) -> tuple[int, int, int, int, int, int, int, int, float, np.ndarray]:
    """``backfill._Replanner._pass`` from the job after ``cursor``: every active job whose
    certificate is cleared is searched again (FirstFit, its own intervals given back, before its
    reservation); one with no earlier window gets its certificate. A job j that has one moves there
    at once when ``move[j]`` (FirstFit's window is the selector's), as ``_move`` does, and the move
    is written to ``moves``. A job whose selector is PAST's or CoP's exact search with no budget
    (``place[j]``, their constants ``consts``) gets that search here (``placement_in_rows``), and
    moves if its window starts earlier, as ``_choose`` decides; for any other, the pass stops at
    it for the selector.

    ``rows``: the profile's (bs, be, owner, count); ``nodes``: (perf, price, rank);
    ``shapes``: per job (n, budget units or -1, column offset, column count, the columns,
    level offset, level count, the levels, length offset, the lengths, node offset, the nodes
    of its window, its part length); ``queue``: (live, active, verified, arrival, volume,
    min_perf, start); ``moves``: (job, level, start, the nodes of each move in turn, and with
    ``explain`` each part's L_left and L_right, as ``slots.window_distances`` measures them on
    the gaps the search saw). The pass stops before job ``stop_at`` (-1: none).

    Returns (what it stopped at, moves written, nodes written, checks, certificates cleared,
    PAST and CoP searches, the job, its level index, its start, its nodes).
    """
    bs, be, owner, count = rows
    perf, price, rank = nodes
    n_of, budget, col_off, col_cnt, cols, lvl_off, lvl_cnt, levels, len_off, lengths, jn_off, jnodes, jlen = shapes
    live, active, verified, arrival, volume, min_perf, start = queue
    mv_job, mv_level, mv_start, mv_nodes, mv_left, mv_right = moves
    scratch_i, scratch_f = scratch
    none = np.empty(0, dtype=np.int64)
    written = 0
    nodes_written = 0
    checks = 0
    cleared = 0
    placed = 0
    width = bs.shape[1]
    for idx in range(live.size):
        j = live[idx]
        if j <= cursor or not active[j] or verified[j]:
            continue
        if j == stop_at:
            return PASS_PYTHON, written, nodes_written, checks, cleared, placed, j, -1, 0.0, none
        checks += 1
        n = n_of[j]
        earliest = max(arrival[j], now)
        before = start[j]
        if col_cnt[j] < n:
            verified[j] = True
            continue
        my_levels = levels[lvl_off[j] : lvl_off[j] + lvl_cnt[j]]
        my_lengths = lengths[len_off[j] : len_off[j] + lvl_cnt[j]]
        k, t, chosen = earliest_in_rows(
            bs,
            be,
            owner,
            count,
            istart,
            iend,
            perf,
            price,
            rank,
            cols[col_off[j] : col_off[j] + col_cnt[j]],
            my_levels,
            my_lengths,
            n,
            budget[j],
            resolution,
            earliest,
            before,
            j,
            scratch_i,
            scratch_f,
        )
        if k < 0 or t >= before - EPS:
            verified[j] = True  # no feasible window starts earlier
            continue
        # FirstFit's window is the earliest there is: a move there is checked for good.
        settled = True
        if not move[j]:
            if place[j] == PLACE_NONE:
                return PASS_SELECTOR, written, nodes_written, checks, cleared, placed, j, k, t, chosen
            first = t
            placed += 1
            k, t, chosen, _ = placement_in_rows(
                bs,
                be,
                owner,
                count,
                istart,
                iend,
                perf,
                price,
                rank,
                cols[col_off[j] : col_off[j] + col_cnt[j]],
                my_levels,
                my_lengths,
                n,
                place[j],
                consts,
                resolution,
                earliest,
                first,
                j,
                scratch_i,
                scratch_f,
            )
            if k < 0 or t >= before - EPS:
                verified[j] = False  # an earlier window exists but the criterion prefers this one
                continue
            settled = t <= first + EPS
        new = np.sort(chosen)
        for x in new:
            if count[x] + 1 >= width:
                return PASS_WIDEN, written, nodes_written, checks - 1, cleared, placed - (not move[j]), j, k, t, none
        length = my_lengths[k]
        if explain:
            for q in range(n):
                gs, ge = _holding_gap(bs, be, owner, count, istart, iend, new[q], t, t + length, j)
                mv_left[nodes_written + q] = t - gs
                mv_right[nodes_written + q] = 0.0 if ge == math.inf else ge - (t + length)
        if before < math.inf:  # give back the old window; test its gaps before the new one takes any
            old = jnodes[jn_off[j] : jn_off[j] + n].copy()
            ends = np.full(n, before + jlen[j])
            if delete_rows(bs, be, owner, count, old, before, ends) >= 0:
                raise ValueError("a moved window is not in the profile")
            cleared += unverify(
                bs,
                be,
                owner,
                count,
                istart,
                iend,
                perf,
                old,
                np.full(n, before),
                ends,
                live,
                active,
                verified,
                arrival,
                volume,
                min_perf,
                start,
                factor,
                now,
                j,
            )
        insert_rows(bs, be, owner, count, new, t, np.full(n, t + length), j)
        jnodes[jn_off[j] : jn_off[j] + n] = new
        jlen[j] = length
        start[j] = t
        active[j] = t > earliest + EPS
        verified[j] = settled
        mv_job[written] = j
        mv_level[written] = k
        mv_start[written] = t
        mv_nodes[nodes_written : nodes_written + n] = new
        written += 1
        nodes_written += n
    return PASS_DONE, written, nodes_written, checks, cleared, placed, -1, -1, 0.0, none
