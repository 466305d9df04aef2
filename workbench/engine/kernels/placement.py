"""PAST's and CoP's exact search with no budget on a profile's rows (``search.placement``), with
numpy's pairwise summation so that the values are the general search's to the bit."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.earliest import level_of, shortest
from workbench.engine.kernels.gaps import gaps_in_lists
from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.sums import beats, by_start, pairwise_sum
from workbench.engine.kernels.types import Lists, Nodes, Placed, Rows, Scratch, Shape
from workbench.engine.model import EPS
from workbench.engine.units import cost_units

PLACE_NONE, PLACE_COP, PLACE_PAST, PLACE_FINISH = 0, 1, 2, 3  # PLACE_FINISH: ``earliest_in_rows`` with ``finish``
# The gap criteria of seeds 001 and 002, scored from each slot's L_left and L_right alone; none has a
# bound that falls with t, so their search reads every candidate (MinLSum, MinLMinSum, DEP, COORD).
PLACE_LSUM, PLACE_LMIN, PLACE_DEP, PLACE_COORD = 4, 5, 6, 7


@compiled
def _placement_z(kind: int, k: np.ndarray, t: float, T: float, p: float, gs: float, ge: float) -> float:
    """z of one slot [gs, ge) for the window [t, t + T) on a node of performance p, as
    ``criteria.CoordinatedPlacement.z`` (kind PLACE_COP) or ``criteria.Past.z`` compute it, operation
    for operation. ``k``: alpha1, alpha2, delta1, delta2, eps1, eps2, eps3."""
    left = t - gs
    right = ge - (t + T)
    if right == math.inf:
        right = 0.0
    if kind >= PLACE_LSUM:  # ``criteria.GapSum``, ``NearestGap``, ``Dependable`` and ``Coordinated``
        if kind == PLACE_LSUM:
            return -(left + right)
        if kind == PLACE_LMIN:
            return -min(left, right)
        if kind == PLACE_DEP:
            return min(left, right)
        return -max(left, right)
    base = -(t + T) - k[0] * p
    if kind == PLACE_COP:
        snug = int(right < k[4] * T) + int(left < k[4] * T)
        awkward = int(right > k[5] * T and right < k[6] * T) + int(left > k[5] * T and left < k[6] * T)
        roomy = int(right > T) + int(left > T)
        return base + k[2] * float(snug - awkward) + k[3] * float(roomy)
    z = base + k[2] * (1.0 if abs(right) <= 1e-9 else 0.0) + k[2] * (1.0 if abs(left) <= 1e-9 else 0.0)
    return z - k[1] * right


@compiled
def _placement_bound(kind: int, k: np.ndarray, n: int, t: float, T: float, P: float, max_perf: float) -> float:
    """n times the criterion's per-slot upper bound at (t, T, P) (``slot_bound``); inf where it has
    none that falls with t (the gap criteria)."""
    if kind >= PLACE_LSUM:
        return math.inf
    perf_term = -k[0] * P if k[0] >= 0 else -k[0] * max_perf
    if kind == PLACE_COP:
        per_side = abs(k[2]) + max(k[3], 0.0)
        return n * ((-(t + T) + perf_term) + 2 * per_side)
    if k[1] < 0:
        return math.inf  # a reward for long gaps has no useful bound
    return n * ((-(t + T) + perf_term) + 2 * max(k[2], 0.0))


@compiled
def placement_in_rows(
    rows: Rows,
    nodes: Nodes,
    shape: Shape,
    kind: int,
    consts: np.ndarray,
    earliest: float,
    first: float,
    without: int,
    gaps: Scratch,
    lists: Lists,
    listed: bool,
    own: np.ndarray,
    at: float,
) -> Placed:
    """The exact search (``search.search_profile``) with CoP's or PAST's criterion and no budget,
    on the profile rows: the window of the largest sum of z over n slots of its S_W.

    Candidates (t, P): t a start of a usable slot (clipped to ``earliest``), at least n members,
    one of them starting at t and one of performance exactly P; its n best members by (larger z,
    fewer cost units, lower position), the last giving way to the best of level P when none is.
    ``first`` is the earliest candidate's start (FirstFit's): the sweep starts there, reads the
    rows only as far as the criterion's bound lets a later time beat the incumbent, and widens.
    ``nodes``, ``shape`` and ``gaps`` as for ``earliest_in_rows``; ``lists``, ``listed``, ``own``
    and ``at``: the compiled pass's gap lists, whether to read them, the rows the job holds and its
    start (``gaps_in_lists``; a search outside the pass passes ``listed`` False).
    Returns (level index, start, the n chosen node positions sorted, value); level -1 if none.
    """
    perf, price, rank = nodes
    cols, levels, lengths, n, _, resolution = shape
    none = np.empty(0, dtype=np.int64)
    L = levels.size
    max_perf = perf.max()
    short = shortest(perf, shape)
    if short == math.inf:
        return Placed(-1, 0.0, none, 0.0)
    lvl = np.full(perf.size, L, dtype=np.int64)
    for x in cols:
        lvl[x] = level_of(levels, perf[x])
    gn, ges, gend, graw = gaps
    holder = np.full(perf.size, -1, dtype=np.int64)
    act = np.empty(cols.size, dtype=np.int64)  # the nodes whose gap holds the shortest window at t
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
        size = gaps_in_lists(rows, lists, listed, own, cols, earliest, reach, short, without, at, gaps)
        order = by_start(ges[:size])  # stable, as a mergesort
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
            na = holding(cols, holder, gend, t, short, act)
            if na < n:
                continue  # no level has n members here (the bound is checked where one may)
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
                for x in act[:na]:
                    g = holder[x]
                    if lvl[x] > k or (gend[g] - t) + EPS < T:
                        continue
                    started |= ges[g] == t
                    exact |= lvl[x] == k
                    mz[m] = -_placement_z(kind, consts, t, T, perf[x], graw[g], gend[g])
                    mu[m] = int(cost_units(price[x], T, resolution))
                    mx[m] = x
                    m += 1
                if m < n or not started or not exact:
                    continue
                value, cost, chosen = choose_n(mz, mu, mx, m, n, k, lvl, rank, price, T, picked)
                if best_k < 0 or beats(value, (t, T, cost, k), best_v, (best_t, best_T, best_c, best_k)):
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
    return Placed(best_k, best_t, best_nodes, best_v)


@compiled
def choose_n(
    mz: np.ndarray,
    mu: np.ndarray,
    mx: np.ndarray,
    m: int,
    n: int,
    k: int,
    lvl: np.ndarray,
    rank: np.ndarray,
    price: np.ndarray,
    T: float,
    picked: np.ndarray,
) -> tuple[float, float, np.ndarray]:
    """The exact choice with no budget among a candidate's ``m`` members (``mz``: minus their z,
    ``mu``: their cost units, ``mx``: their nodes, all in position order): the n best by (larger z,
    fewer units, lower position), the last giving way to the best of level ``k`` when none is. Returns
    the value and cost as numpy sums them, and the chosen members' indices."""
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
    value = pairwise_sum(picked)
    for q in range(n):
        picked[q] = price[mx[chosen[q]]]
    return value, T * pairwise_sum(picked), chosen


@compiled
def holding(cols: np.ndarray, holder: np.ndarray, gend: np.ndarray, t: float, short: float, act: np.ndarray) -> int:
    """Into ``act``, in position order (as the members come), the nodes of ``cols`` whose gap
    holding t (``holder``: the gap of each node, -1 none) holds the shortest window from t; how many."""
    na = 0
    for x in cols:
        g = holder[x]
        if g >= 0 and (gend[g] - t) + EPS >= short:
            act[na] = x
            na += 1
    return na
