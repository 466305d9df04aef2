"""FirstFit's window on a profile's rows (``firstfit.first_fit`` on ``Profile.gaps``), and the exact
search's window under the finish time: one sweep over the gaps by start serves every level."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.gaps import gaps_in_lists, row_gaps
from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.sums import beats, by_start, pairwise_sum
from workbench.engine.kernels.types import Found, Lists, Nodes, Rows, Scratch, Shape
from workbench.engine.model import EPS
from workbench.engine.units import cost_units

FINISH_SLACK = 1e-6  # relative: far beyond the EPS within which two finish-time values tie


@compiled
def earliest_in_rows(
    rows: Rows, nodes: Nodes, shape: Shape, earliest: float, before: float, without: int, gaps: Scratch, finish: bool
) -> Found:
    """FirstFit's window on the profile rows (``firstfit.first_fit`` on ``Profile.gaps``, ``without``'s
    intervals given back) starting in [earliest, before); with ``finish``, the exact search's window
    under the finish-time criterion (BFfinish, BFshort). Level -1 when there is none.

    Every slot of a window scores the same under a window-wide criterion, so at each level the
    earliest affordable start wins, on the cheapest n nodes (FirstFit's choice). FirstFit's value
    -t makes the earliest start at any level the window (``first_start``); the finish time
    -(t + T) weighs each level's earliest window by its length (``best_finish``). ``gaps`` holds
    the gaps read.
    """
    short = shortest(nodes.perf, shape)
    if short == math.inf:
        return Found(-1, 0.0, np.empty(0, dtype=np.int64))
    size = row_gaps(rows, shape.cols, earliest, before, short, without, gaps, 0)
    return window_on(gaps, size, nodes, shape, before, finish, short)


@compiled
def earliest_in_lists(
    rows: Rows,
    lists: Lists,
    listed: bool,
    own: np.ndarray,
    nodes: Nodes,
    shape: Shape,
    earliest: float,
    before: float,
    without: int,
    at: float,
    gaps: Scratch,
    short: float,
    finish: bool,
) -> Found:
    """``earliest_in_rows``, the gaps read by ``gaps_in_lists`` (from the rows' lists when ``listed``;
    ``own``: the rows ``without``'s window holds from ``at``); ``short``: the job's ``shortest``,
    worked out once."""
    size = gaps_in_lists(rows, lists, listed, own, shape.cols, earliest, before, short, without, at, gaps)
    return window_on(gaps, size, nodes, shape, before, finish, short)


@compiled
def shortest(perf: np.ndarray, shape: Shape) -> float:
    """The shortest window any level can have: the length of the fastest level with n nodes at least
    that fast (inf for none). A faster level has fewer than n nodes, so no gap that only it could
    use can be part of a window."""
    k = fastest_level(perf, shape.cols, shape.levels, shape.n)
    return shape.lengths[k] if k >= 0 else math.inf


@compiled
def fastest_level(perf: np.ndarray, cols: np.ndarray, levels: np.ndarray, n: int) -> int:
    """The index of the fastest level with n of the nodes ``cols`` at least that fast (-1 for none)."""
    if levels.size == 1:
        return 0 if cols.size >= n else -1
    at_level = np.zeros(levels.size + 1, dtype=np.int64)  # (a node slower than every level: the last)
    for x in cols:
        at_level[level_of(levels, perf[x])] += 1
    fast = 0
    for k in range(levels.size):
        fast += at_level[k]
        if fast >= n:
            return k
    return -1


@compiled
def window_on(
    gaps: Scratch, size: int, nodes: Nodes, shape: Shape, before: float, finish: bool, short: float
) -> Found:
    """FirstFit's window on the first ``size`` gaps read, or the finish time's; no window is shorter
    than ``short`` (``shortest``)."""
    if size < shape.n:
        return Found(-1, 0.0, np.empty(0, dtype=np.int64))
    gn, ges, gend = gaps.node[:size], gaps.start[:size], gaps.end[:size]
    if finish:
        return best_finish(gn, ges, gend, nodes, shape, before, short)
    k, t, chosen, _, _ = first_start(gn, ges, gend, nodes, shape, before, short, False)
    return Found(k, t, chosen)


@compiled
def first_start(
    gn: np.ndarray, ges: np.ndarray, gend: np.ndarray, nodes: Nodes, shape: Shape, before: float, short: float,
    every: bool,
) -> tuple[int, float, np.ndarray, np.ndarray, np.ndarray]:
    """FirstFit's window on the gaps (node ``gn``, start ``ges``, end ``gend``): the earliest start
    t < ``before`` at which some level has an affordable window; at that t, the shortest window,
    then the cheapest, then the fastest level (``search._Best``'s order when the value -t ties).
    Returns (level index, t, its n nodes, and with ``every`` each level's first start and nodes).
    ``short``: no level's window is shorter (``shortest``).

    One sweep over the gaps by start serves every level at once. Only a gap's start can be a
    first start (a window at t also fits from its members' latest start), and a gap holds
    level k at t when its node is that fast and gend - T_k + EPS >= t: from its start on, the
    levels it holds only shrink. So at each start, the gaps that hold the shortest window still
    are few (one per node at most; on a saturated flow most often none or one), and only when n
    of them do are their levels counted: level k has a window when n gaps hold it, one of them on
    a node of exactly its performance.

    With ``every``, the sweep goes on past the first start and keeps each level's first
    affordable start (inf for none) and nodes, until no level's window could still finish as
    early as the earliest-finishing one found (the finish-time search, ``best_finish``).
    """
    perf, price = nodes.perf, nodes.price
    cols, levels, lengths, n, budget, resolution = shape
    none = np.empty(0, dtype=np.int64)
    size = gn.size
    L = levels.size
    first_t = np.full(L if every else 0, math.inf)
    first_nodes = np.empty((L if every else 0, n), dtype=np.int64)
    finish = math.inf  # with ``every``: the earliest finish found
    order = by_start(ges)
    act = np.empty(size, dtype=np.int64)  # the gaps that hold the short window at t
    na = 0
    kp = none  # each node's level index (levels[kp] == perf), set at the first count
    kr = none  # each active gap: the slowest level index it holds at t
    held = none  # held[k]: how many active gaps hold level k (as a difference array)
    exact = np.empty(0, dtype=np.bool_)  # a gap on a node of exactly level k's performance holds it
    p = 0
    while p < size:
        t = ges[order[p]]
        if t >= before or t + short > finish + FINISH_SLACK * (1.0 + abs(finish)):
            break
        while p < size and ges[order[p]] <= t:
            act[na] = order[p]
            na += 1
            p += 1
        keep = 0
        for i in range(na):
            g = act[i]
            if gend[g] - short + EPS >= t:
                act[keep] = g
                keep += 1
        na = keep
        if na < n:
            continue
        if kp.size == 0:
            kp = np.empty(perf.size, dtype=np.int64)
            for x in cols:
                kp[x] = level_of(levels, perf[x])
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
            chosen = cheapest(act[:na], gn, kp, kr, nodes, levels[k], k, n, length, resolution, every)
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


@compiled
def level_of(levels: np.ndarray, p: float) -> int:
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


@compiled
def cheapest(
    act: np.ndarray,
    gn: np.ndarray,
    kp: np.ndarray,
    kr: np.ndarray,
    nodes: Nodes,
    P: float,
    k: int,
    n: int,
    length: float,
    resolution: float,
    exact: bool,
) -> np.ndarray:
    """``pick`` on the active gaps that hold level k, cheapest first: the n cheapest nodes; if none has
    performance exactly P, the dearest gives way to the cheapest that has. Cheapest is by (price,
    position) for FirstFit's Lite choice; for the exact search (``exact``: every slot of a window
    scores the same under the finish time) it is the knapsack's order, (cost units of ``length``,
    position): two nodes whose prices differ may cost the same whole units."""
    m = 0
    chosen = np.empty(act.size, dtype=np.int64)
    keys = np.empty(act.size, dtype=np.int64)
    for g in act:
        x = gn[g]
        if kp[x] <= k <= kr[g]:
            chosen[m] = x
            keys[m] = nodes.rank[x]
            m += 1
    chosen = chosen[:m]
    if exact:  # by position, then (stably) by units
        chosen = np.sort(chosen)
        for i in range(m):
            keys[i] = int(cost_units(nodes.price[chosen[i]], length, resolution))
        return pick(chosen[np.argsort(keys[:m], kind="mergesort")], nodes.perf, P, n)
    return pick(chosen[np.argsort(keys[:m])], nodes.perf, P, n)


@compiled
def pick(by_rank: np.ndarray, perf: np.ndarray, P: float, n: int) -> np.ndarray:
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


@compiled
def best_finish(
    gn: np.ndarray, ges: np.ndarray, gend: np.ndarray, nodes: Nodes, shape: Shape, before: float, short: float
) -> Found:
    """The exact search's window under the finish time -(t + T) on the gaps: each level's earliest
    affordable window (FirstFit's at that level, all found in one sweep by ``_first_start``), the
    levels weighed in order by their finish: a level whose start is not before the incumbent's
    finish less its own length (within 2 EPS) is not a candidate, then the value within EPS, then
    earlier t, shorter T, lower cost."""
    _, _, _, first_t, first_nodes = first_start(gn, ges, gend, nodes, shape, before, short, True)
    levels, lengths, n = shape.levels, shape.lengths, shape.n
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
        value = pairwise_sum(np.full(n, -(t + length)))  # as numpy sums the n slots' z
        cost = length * _price_sum(nodes.price, first_nodes[k])
        if best_k < 0 or beats(value, (t, length, cost, k), best_value, (best_t, best_length, best_cost, best_k)):
            best_k, best_t, best_value, best_length, best_cost = k, t, value, length, cost
    if best_k < 0:
        return Found(-1, 0.0, np.empty(0, dtype=np.int64))
    return Found(best_k, best_t, first_nodes[best_k].copy())


@compiled
def _units(price: np.ndarray, chosen: np.ndarray, length: float, resolution: float) -> int:
    """The cost in budget units of ``length`` on the nodes ``chosen``."""
    units = 0
    for c in chosen:
        units += int(cost_units(price[c], length, resolution))
    return units


@compiled
def _price_sum(price: np.ndarray, chosen: np.ndarray) -> float:
    """The nodes' prices summed in position order (as ``first_fit_in`` sums them)."""
    total = 0.0
    for c in np.sort(chosen):
        total += price[c]
    return total
