"""Any per-slot criterion's exact search with no budget on a profile's rows, in two compiled halves
around one numpy call of the criterion (``search.members.members_in``).

A criterion plug-in is Python: compiled code cannot score a slot with it. But a criterion whose
value of a slot depends on that slot alone (every built-in one, and a plug-in declared
``per_slot``) can score every member of every candidate in one call. So ``members_in_rows`` lists
the candidates (t, P) and their members, exactly as ``placement.placement_in_rows`` visits them;
the criterion scores the members, all at once; and ``choose_members`` takes each candidate's n
best as ``placement_in_rows`` does (``placement.choose_n``), and the best window of all.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.earliest import level_of, shortest
from workbench.engine.kernels.gaps import row_gaps
from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.placement import choose_n, holding
from workbench.engine.kernels.sums import beats, by_start
from workbench.engine.kernels.types import Nodes, Placed, Rows, Scratch, Shape
from workbench.engine.model import EPS
from workbench.engine.units import cost_units


@compiled
def _grown(a: np.ndarray, size: int) -> np.ndarray:
    """``a`` (float64) with room for at least ``size`` entries (doubled), its entries kept. (One
    function per dtype: every kernel compiles one signature.)"""
    if size <= a.size:
        return a
    out = np.empty(max(size, 2 * a.size))
    out[: a.size] = a
    return out


@compiled
def _grown_int(a: np.ndarray, size: int) -> np.ndarray:
    """``_grown`` for int64 arrays."""
    if size <= a.size:
        return a
    out = np.empty(max(size, 2 * a.size), dtype=np.int64)
    out[: a.size] = a
    return out


@compiled
def _levels_of(perf: np.ndarray, cols: np.ndarray, levels: np.ndarray) -> np.ndarray:
    lvl = np.full(perf.size, levels.size, dtype=np.int64)
    for x in cols:
        lvl[x] = level_of(levels, perf[x])
    return lvl


@compiled
def members_in_rows(
    rows: Rows, nodes: Nodes, shape: Shape, earliest: float, without: int, gaps: Scratch
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every candidate (t, P) from ``earliest`` on, in order of t then level, with
    its members: (count, t, level index, the members' offsets, their nodes, their gaps' raw starts
    and ends, and each member's candidate's t and T). A candidate has at least n members, one
    starting at t and one of performance exactly P, as in ``placement_in_rows``, which reads the
    same gaps (``row_gaps``) in the same order."""
    perf = nodes.perf
    cols, levels, lengths, n = shape.cols, shape.levels, shape.lengths, shape.n
    L = levels.size
    ct = np.empty(64)
    ck = np.empty(64, dtype=np.int64)
    off = np.zeros(65, dtype=np.int64)
    mx = np.empty(1024, dtype=np.int64)
    mgs = np.empty(1024)
    mge = np.empty(1024)
    mt = np.empty(1024)
    mT = np.empty(1024)
    short = shortest(perf, shape)
    if short == math.inf:
        return 0, ct[:0], ck[:0], off[:1], mx[:0], mgs[:0], mge[:0], mt[:0], mT[:0]
    lvl = _levels_of(perf, cols, levels)
    gn, ges, gend, graw = gaps
    size = row_gaps(rows, cols, earliest, math.inf, short, without, gaps, 0)
    order = by_start(ges[:size])  # stable, as a mergesort
    holder = np.full(perf.size, -1, dtype=np.int64)
    act = np.empty(cols.size, dtype=np.int64)
    count = 0
    m_all = 0
    i = 0
    while i < size:
        t = ges[order[i]]
        while i < size and ges[order[i]] == t:
            g = order[i]
            holder[gn[g]] = g  # a node's gaps are disjoint: the latest to start holds t
            i += 1
        na = holding(cols, holder, gend, t, short, act)
        if na < n:
            continue
        for k in range(L):
            T = lengths[k]
            mx = _grown_int(mx, m_all + na)
            mgs = _grown(mgs, m_all + na)
            mge = _grown(mge, m_all + na)
            mt = _grown(mt, m_all + na)
            mT = _grown(mT, m_all + na)
            m = m_all
            started = False
            exact = False
            for x in act[:na]:
                g = holder[x]
                if lvl[x] > k or (gend[g] - t) + EPS < T:
                    continue
                started |= ges[g] == t
                exact |= lvl[x] == k
                mx[m], mgs[m], mge[m], mt[m], mT[m] = x, graw[g], gend[g], t, T
                m += 1
            if m - m_all < n or not started or not exact:
                continue
            ct = _grown(ct, count + 1)
            ck = _grown_int(ck, count + 1)
            off = _grown_int(off, count + 2)
            ct[count], ck[count] = t, k
            count += 1
            off[count] = m
            m_all = m
    kept = off[: count + 1].copy()
    mine = (mx[:m_all].copy(), mgs[:m_all].copy(), mge[:m_all].copy(), mt[:m_all].copy(), mT[:m_all].copy())
    return count, ct[:count].copy(), ck[:count].copy(), kept, mine[0], mine[1], mine[2], mine[3], mine[4]


@compiled
def choose_members(
    count: int,
    ct: np.ndarray,
    ck: np.ndarray,
    off: np.ndarray,
    mx: np.ndarray,
    z: np.ndarray,
    nodes: Nodes,
    shape: Shape,
) -> Placed:
    """The best of ``members_in_rows``'s candidates, each member scored ``z``: each candidate's n
    best (``choose_n``), and of those the largest sum, ties to the earlier t, the shorter T, the
    lower cost, the faster level (``beats``), as the general exact search decides."""
    perf, price, rank = nodes
    cols, levels, lengths, n, _, resolution = shape
    none = np.empty(0, dtype=np.int64)
    lvl = _levels_of(perf, cols, levels)
    widest = 0
    for c in range(count):
        widest = max(widest, off[c + 1] - off[c])
    mz = np.empty(widest)
    mu = np.empty(widest, dtype=np.int64)
    mine = np.empty(widest, dtype=np.int64)
    picked = np.empty(n)
    best_k = -1
    best_t = best_v = best_T = best_c = 0.0
    best_nodes = none
    for c in range(count):
        a, m, k, t = off[c], off[c + 1] - off[c], ck[c], ct[c]
        T = lengths[k]
        for q in range(m):
            mz[q] = -z[a + q]
            mu[q] = int(cost_units(price[mx[a + q]], T, resolution))
            mine[q] = mx[a + q]
        value, cost, chosen = choose_n(mz, mu, mine, m, n, k, lvl, rank, price, T, picked)
        if best_k < 0 or beats(value, (t, T, cost, k), best_v, (best_t, best_T, best_c, best_k)):
            best_k, best_t, best_v, best_T, best_c = k, t, value, T, cost
            best_nodes = np.sort(mine[chosen])
    return Placed(best_k, best_t, best_nodes, best_v)
