"""The general square-window search (seed 002 §3.2-3.3; docs/design.md "Window search").

The normative search visits every performance level P >= p (highest first) with T = V / P,
and every eligible slot start t; S_W is the set of slots that hold [t, t+T]. A (P, t) pair
is a *candidate* when |S_W| >= n and S_W has a node of performance exactly P. From S_W it
chooses n slots within budget: ``lite``, the n cheapest (ties: lower node position), scored
with z; ``exact``, the largest sum of z (``choice``). The best window over all candidates
wins; ties go to the earlier t, then the shorter T, then the lower cost.

Candidates are visited best-first by the criterion's upper bound, in blocks, so FirstFit-like
criteria stop after the first feasible block; the exact DP runs only where the bound says it
can still win. Criteria whose bound falls with t are searched in growing chunks of times.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workbench.engine.criteria import BoundEnv
from workbench.engine.errors import Cancelled
from workbench.engine.model import EPS, Job, Window
from workbench.engine.search.candidates import (
    BLOCK,
    FIRST_BLOCK,
    FIRST_CHUNK_CELLS,
    LITE_BLOCK,
    WARM_START,
    Block,
    Chunk,
    PreparedSearch,
)
from workbench.engine.search.choice import knapsack_count, lagrangian_bound, n_best, slope_lambda, with_level_item
from workbench.engine.search.spec import Found, SearchSpec
from workbench.engine.slots import SlotTable


@dataclass
class _Best:
    value: float
    t: float
    T: float
    cost: float
    cols: np.ndarray
    k: int  # the level: with whole time quanta two levels can share a length

    def beaten_by(self, value: float, t: float, T: float, cost: float, k: int) -> bool:
        """The normative order: the value, then the earlier t, the shorter T, the lower cost, and
        (a tie only whole quanta make) the faster level, the one the scan visits first."""
        if value > self.value + EPS:
            return True
        if value < self.value - EPS:
            return False
        return (t, T, cost, k) < (self.t, self.T, self.cost, self.k)


def general_search(
    table: SlotTable,
    job: Job,
    spec: SearchSpec,
    earliest: float,
    should_stop: Callable[[], bool] | None = None,
) -> Found | None:
    """``find_window`` by the general machinery for every criterion (FirstFit's reference)."""
    return run_search(table, job, spec, earliest, should_stop, math.inf)[0]


def run_search(
    table: SlotTable,
    job: Job,
    spec: SearchSpec,
    earliest: float,
    should_stop: Callable[[], bool] | None,
    limit: float,
) -> tuple[Found | None, bool]:
    """The best window among the candidates of ``table``, and whether it is the best of all.

    ``table`` holds every slot that starts by ``limit`` (a ``Profile.table``), so every
    candidate up to ``limit`` is here; the answer is *proven* when ``limit`` is infinite,
    or when the criterion's bound says no candidate after ``limit`` can beat it.
    """
    prep = PreparedSearch(table, job, spec, earliest)
    if not prep.ok:
        return None, math.isinf(limit)
    crit = spec.criterion
    K = prep.tau.size
    # Criteria whose bound falls with t are searched in growing chunks of times,
    # earliest first, until no later time can beat the incumbent.
    step = max(4, FIRST_CHUNK_CELLS // prep.perf_c.size) if crit.monotone_in_t else K
    best: _Best | None = None
    a = prep.first_row
    proven = math.isinf(limit)
    while a < K:
        top = prep.levels.size
        if best is not None and crit.monotone_in_t:
            bounds = _level_bounds(prep, prep.tau[a])
            if bounds.max() <= best.value + EPS:
                proven = True
                break
            # From tau[a] on, a level whose bound cannot reach the incumbent has no candidate
            # worth scoring: the chunk leaves out every level after the last one that can.
            top = int(np.flatnonzero(bounds >= best.value - EPS)[-1]) + 1
        b = min(K, a + step)
        step *= 2
        if best is not None and crit.monotone_in_t:
            b = _first_beaten(prep, a, b, best.value)  # no later row can reach the incumbent
        ch = prep.chunk(a, b, top)
        a = b
        if ch is not None:
            best = _search_chunk(prep, ch, best, should_stop)
    if best is None:
        return None, proven
    if not proven and crit.monotone_in_t:
        proven = _later_bound(prep, limit) <= best.value + EPS
    return _to_found(prep, best), proven


def _later_bound(prep: PreparedSearch, t: float) -> float:
    """An upper bound of the value of every candidate starting at ``t`` or later (monotone criteria)."""
    return float(_level_bounds(prep, t).max())


def _first_beaten(prep: PreparedSearch, a: int, b: int, value: float) -> int:
    """The first row in (a, b] from which no candidate can beat ``value`` (the bound falls with t)."""
    lo, hi = a + 1, b  # tau[a] can still beat it (the caller checked)
    while lo < hi:
        mid = (lo + hi) // 2
        if _later_bound(prep, prep.tau[mid]) <= value + EPS:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _level_bounds(prep: PreparedSearch, t: float) -> np.ndarray:
    """Per level, an upper bound of the value of its candidates starting at ``t`` or later."""
    t_a = np.full(prep.levels.size, t)
    bounds = prep.n * prep.spec.criterion.slot_bound(t_a, prep.T, prep.levels, prep.benv)
    return bounds if prep.level_cap is None else np.minimum(bounds, prep.level_cap)


def _search_chunk(
    prep: PreparedSearch, ch: Chunk, best: _Best | None, should_stop: Callable[[], bool] | None
) -> _Best | None:
    """Visit a chunk's candidates best bound first, in blocks; then the DPs they need."""
    crit = prep.spec.criterion
    t_all = ch.tau[ch.row]
    T_all = prep.T[ch.k]
    ub = prep.n * crit.slot_bound(t_all, T_all, prep.levels[ch.k], _level_env(prep, ch.k))
    if prep.level_cap is not None:
        ub = np.minimum(ub, prep.level_cap[ch.k])
    bounded = bool(np.all(np.isfinite(ub)))
    # A lite block holds (C, n) choices, an exact one (C, N) matrices: lite blocks may be larger.
    largest = BLOCK if prep.spec.exact else LITE_BLOCK
    first, size = 0, FIRST_BLOCK if crit.monotone_in_t else largest
    # One block that holds every candidate needs no order: the block's best is the same in any.
    single = size >= ub.size
    if bounded and single and best is not None and ub.max() < best.value - EPS:
        return best
    order = None if single else np.lexsort((T_all, t_all, -ub)) if bounded else np.arange(ub.size)
    pending: list[_Pending] = []
    while first < ub.size:
        if should_stop is not None and should_stop():
            raise Cancelled("search cancelled")
        idx: slice | np.ndarray = slice(None)
        if order is not None:
            idx = order[first : first + size]
            if bounded and best is not None and ub[idx[0]] < best.value - EPS:
                break
        first += size
        size = min(2 * size, largest)
        best = _take_block_best(prep, ch, prep.block(ch, idx), best, pending)
    if pending:
        best = _run_pending(prep, ch, best, pending, should_stop)
    return best


def _level_env(prep: PreparedSearch, k: np.ndarray) -> BoundEnv:
    env = prep.benv
    return BoundEnv(env.istart, env.iend, env.max_attr, env.min_price_at_level[k], env.max_perf)


def _take_block_best(
    prep: PreparedSearch, ch: Chunk, blk: Block, best: _Best | None, pending: list[_Pending]
) -> _Best | None:
    """Fold a block into the incumbent; in exact mode queue the candidates that need the DP.
    The block's columns are the chunk's; the incumbent keeps the prepared search's."""
    value, feasible, cols = blk.value, blk.feasible, blk.sel_cols
    if prep.spec.exact:
        assert blk.z is not None and blk.units is not None and blk.member is not None
        n = prep.n
        zm = np.where(blk.member, blk.z, -np.inf)
        level = blk.member & (ch.lvl[None, :] == blk.k[:, None])
        top = with_level_item(n_best(zm, blk.units, ch.pos, n), zm, blk.units, ch.pos, level)
        rows = np.arange(blk.t.size)[:, None]
        top_val = zm[rows, top].sum(axis=1)
        if prep.bu is None:
            shortcut = np.ones(blk.t.size, dtype=bool)
        else:
            shortcut = blk.units[rows, top].sum(axis=1) <= prep.bu
        # Where the n best fit, they are the exact answer; take them instead of lite.
        cols = np.where(shortcut[:, None], top, cols)
        value = np.where(shortcut, top_val, value)
        need_dp = np.nonzero(~shortcut & feasible & (top_val > value + EPS))[0]
        feasible = feasible | shortcut
        if need_dp.size:
            pending.append(
                _Pending(
                    blk.t[need_dp],
                    blk.T[need_dp],
                    blk.k[need_dp],
                    blk.member[need_dp],
                    level[need_dp],
                    zm[need_dp],
                    blk.units[need_dp],
                    top_val[need_dp],
                )
            )
    if not feasible.any():
        return best
    vmax = value[feasible].max()
    ties = np.nonzero(feasible & (value >= vmax - EPS))[0]
    cost = blk.T[ties] * ch.price[cols[ties]].sum(axis=1)  # only ties need it
    first = np.lexsort((blk.k[ties], cost, blk.T[ties], blk.t[ties]))[0]
    pick = ties[first]
    v, t, T, c, k = float(value[pick]), float(blk.t[pick]), float(blk.T[pick]), float(cost[first]), int(blk.k[pick])
    if best is None or best.beaten_by(v, t, T, c, k):
        return _Best(v, t, T, c, ch.cols[cols[pick]], k)
    return best


@dataclass
class _Pending:
    """Candidates of one block whose answer needs the knapsack DP."""

    t: np.ndarray
    T: np.ndarray
    k: np.ndarray
    member: np.ndarray
    level: np.ndarray  # members on nodes of performance exactly P
    zm: np.ndarray  # z, -inf outside S_W
    units: np.ndarray
    top: np.ndarray  # the best value with no budget: a bound


def _run_pending(
    prep: PreparedSearch,
    ch: Chunk,
    best: _Best | None,
    pending: list[_Pending],
    should_stop: Callable[[], bool] | None,
) -> _Best | None:
    """Run the DP on the queued candidates, best bound first, while they can still win.

    A few rows with the best plain bound (the n best z) go first to get a strong
    incumbent; then ever tighter bounds (that plain one, a one-step Lagrangian
    bound, then the bisected one) weed out the rest before any more DP runs.
    """
    bu = prep.bu
    assert bu is not None
    t = np.concatenate([p.t for p in pending])
    T = np.concatenate([p.T for p in pending])
    k = np.concatenate([p.k for p in pending])
    member = np.concatenate([p.member for p in pending])
    level = np.concatenate([p.level for p in pending])
    zm = np.concatenate([p.zm for p in pending])
    units = np.concatenate([p.units for p in pending])
    top = np.concatenate([p.top for p in pending])
    keep = np.lexsort((T, t))
    if prep.spec.criterion.time_invariant:
        # Equal S_W at one level give equal answers: keep the earliest of each.
        packed = np.packbits(member[keep], axis=1)
        keyed = np.concatenate([k[keep, None].astype(np.int64), packed.astype(np.int64)], axis=1)
        keep = keep[_first_of_equal_rows(keyed)]

    def can_win(bound: float, i: int) -> bool:
        if best is None or bound > best.value + EPS:
            return True
        return bound >= best.value - EPS and (t[i], T[i]) <= (best.t, best.T)  # equal: cost or level may win

    def solve(i: int) -> None:
        nonlocal best
        if should_stop is not None and should_stop():
            raise Cancelled("search cancelled")
        cols = np.nonzero(member[i])[0]
        chosen = knapsack_count(
            zm[i, cols], units[i, cols], prep.n, bu, ch.pos[cols], level[i, cols], prep.spec.resolution
        )
        if chosen is None:
            return
        sel_cols = cols[chosen]
        v = float(zm[i, sel_cols].sum())
        c = float(T[i]) * float(ch.price[sel_cols].sum())
        if best is None or best.beaten_by(v, float(t[i]), float(T[i]), c, int(k[i])):
            best = _Best(v, float(t[i]), float(T[i]), c, ch.cols[sel_cols], int(k[i]))

    keep = keep[np.argsort(-top[keep], kind="stable")]
    for i in keep[:WARM_START]:
        solve(int(i))
    warm, keep = keep[:WARM_START], keep[WARM_START:]
    if best is not None and keep.size:
        keep = keep[top[keep] >= best.value - EPS]
        # One Lagrangian bound at a shared lambda (the warm rows' own) before the bisection.
        lam = float(
            np.median(slope_lambda(zm[warm], units[warm].astype(np.float64), np.isfinite(zm[warm]), prep.n, bu))
        )
        vals = zm[keep] - lam * units[keep]
        quick = lam * bu - np.partition(-vals, prep.n - 1, axis=1)[:, : prep.n].sum(axis=1)
        keep = keep[quick >= best.value - EPS]
    bound = lagrangian_bound(zm[keep], units[keep], prep.n, bu)
    for j in np.argsort(-bound, kind="stable"):
        i = int(keep[j])
        if best is not None and bound[j] < best.value - EPS:
            break
        if can_win(float(bound[j]), i):
            solve(i)
    return best


def _to_found(prep: PreparedSearch, best: _Best) -> Found:
    positions = np.sort(prep.porder[best.cols])
    ids = prep.table.node_ids
    window = Window(
        job=prep.job.id,
        start=best.t,
        length=best.T,
        nodes=tuple(ids[p] for p in positions),
        cost=best.T * float(prep.table.price[positions].sum()),
    )
    return Found(window, best.value, prep.table)


def _first_of_equal_rows(keyed: np.ndarray) -> np.ndarray:
    """Indices of the first row of each group of equal rows, in their original order."""
    order = np.lexsort(keyed.T[::-1])
    ks = keyed[order]
    new = np.concatenate(([True], (ks[1:] != ks[:-1]).any(axis=1)))
    return np.sort(order[new])
