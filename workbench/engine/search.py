"""Square-window search and subset choice (seed 002 §3.2-3.3; DESIGN.md "Window search").

The normative search visits every performance level P >= p (highest first)
with T = V / P, and every eligible slot start t; S_W is the set of slots that
hold [t, t+T]. A (P, t) pair is a *candidate* when |S_W| >= n and S_W has a
node of performance exactly P. From S_W we choose n slots within budget:

* ``lite``: the n cheapest (ties: lower node position), scored with z;
* ``exact``: maximum sum of z, a 0-1 knapsack with a count constraint
  (seed 002 eq. 2), with the shortcuts "n cheapest over budget -> none" and
  "n best fit the budget -> take them".

The best window over all candidates wins; ties go to the earlier t, then the
shorter T, then the lower cost.

How it is vectorised: for the sorted distinct candidate times tau and every
node we fill (K, N) matrices of the remaining free length and the holding
slot's bounds, and turn the remaining length into the highest level the node
can serve. Candidate validity then comes from difference arrays over levels,
and each candidate's S_W is a boolean row. Candidates are visited best-first
by the criterion's upper bound, in blocks, so FirstFit-like criteria stop
after the first feasible block; the exact DP runs only where the bound says
it can still win.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from workbench.engine.criteria import BoundEnv, Criterion, Given, SlotContext, StartTime
from workbench.engine.errors import Cancelled, check_dp_size
from workbench.engine.model import EPS, Job, Window
from workbench.engine.profile import Profile
from workbench.engine.slots import Distances, SlotTable, window_distances, window_lengths

BLOCK = 1024
LITE_BLOCK = 8192
FIRST_BLOCK = 32
FIRST_CHUNK_CELLS = 2048  # times x nodes in the first chunk of a monotone search
WARM_START = 4


@dataclass(frozen=True)
class SearchSpec:
    """How to choose a window: the criterion, lite or exact, and the cost resolution."""

    criterion: Criterion
    exact: bool = False
    length_factor: float = 1.0  # BFshort reserves 0.99 * T
    resolution: float = 1.0
    quantum: float = 0.0  # > 0: window lengths rounded up to whole quanta of time


@dataclass(frozen=True)
class Found:
    """A window with the criterion value it was chosen by, and the slots it was chosen from."""

    window: Window
    value: float
    table: SlotTable | None = field(default=None, compare=False, repr=False)

    def distances(self) -> Distances | None:
        """L_left and L_right of each part as the search saw them (None without the table)."""
        return None if self.table is None else window_distances(self.table, self.window)


# Cost and budget units saturate here: integers are exact up to 2^53, and sums of up to
# 2^10 * 100,000 of them still fit in int64. A window this dear counts as unaffordable.
UNITS_CAP = 2**43


def cost_units(price: np.ndarray, length: np.ndarray | float, res: float) -> np.ndarray:
    """DESIGN.md: cost units = ceil(c_i * T / res - 1e-9) (saturating at ``UNITS_CAP``)."""
    return np.minimum(np.ceil(np.asarray(price) * length / res - 1e-9), UNITS_CAP).astype(np.int64)


def budget_units(budget: float, res: float) -> int | None:
    """DESIGN.md: budget units = floor(C / res + 1e-9); None for an infinite budget."""
    if math.isinf(budget):
        return None
    return min(math.floor(budget / res + 1e-9), UNITS_CAP - 1)  # a saturated cost never fits


class _Prepared:
    """What one search shares: levels, node columns, usable slots and candidate times.

    Columns are nodes in (price, position) order, so lite takes the first n members.
    The (times x nodes) matrices are built per chunk of candidate times by ``chunk``.
    """

    def __init__(self, table: SlotTable, job: Job, spec: SearchSpec, earliest: float) -> None:
        self.ok = False
        n = job.node_count
        nodes = node_facts(table, job.min_performance)
        if nodes.count < n or table.size == 0:
            return
        eligible, levels, lvl_node = nodes.eligible, nodes.levels, nodes.lvl_node
        T = window_lengths(job.volume, levels, spec.length_factor, spec.quantum)  # ascending
        # Usable slots: on eligible nodes, long enough for the shortest T after `earliest`.
        es = np.maximum(table.start, earliest)
        usable = eligible[table.node] & (table.end - es >= T[0] - EPS)
        if not usable.any():
            return
        self.s_col = nodes.col_of[table.node[usable]]
        self.s_start = table.start[usable]
        self.s_end = table.end[usable]
        self.s_es = es[usable]
        self.tau = sorted_unique(self.s_es)
        self.s_lo = np.searchsorted(self.tau, self.s_es, "left")
        self.s_hi = np.searchsorted(self.tau, self.s_end - T[0] + EPS, "right")
        # A slot is a member only at levels from its node's own down: it is of use to a chunk
        # only at the levels the chunk searches and only while it still holds its own level's T.
        # (The tolerance is wider than the exact test the chunk applies to what is left.)
        self.s_lvl = lvl_node[table.node[usable]]
        self.s_own_hi = np.searchsorted(self.tau, self.s_end - T[self.s_lvl] + 2 * EPS, "right")
        self.first_row = _first_covered_row(self.tau, self.s_lo, self.s_hi, n)
        if self.first_row >= self.tau.size:
            return
        self.ok = True
        self.n = n
        self.job = job
        self.table = table
        self.spec = spec
        self.levels, self.T = levels, T
        self.neg_T_desc = -T[::-1]
        self.lvl_col = nodes.lvl_col
        self.porder = nodes.porder
        self.perf_c = nodes.perf_c
        self.price_c = nodes.price_c
        self.attrs_c = nodes.attrs_c
        self.bu = budget_units(job.budget, spec.resolution)
        self.bits = nodes.bits if not spec.exact and nodes.words <= BIT_WORDS else None
        self.level_columns = None if spec.exact or self.bits is not None else self._level_columns(max(24, 4 * n))
        self.benv = BoundEnv(
            istart=table.istart,
            iend=table.iend,
            max_attr=nodes.max_attr,
            max_perf=nodes.max_perf,
            min_price_at_level=nodes.min_price_at_level,
        )
        self.level_cap = self._level_caps() if spec.criterion.time_invariant else None

    def _level_caps(self) -> np.ndarray:
        """Per level, the n largest z among every node that may serve it, summed (time-invariant
        criteria): no window of that level, at any time, is worth more. Much tighter than n
        times the criterion's own per-slot bound when nodes differ (MinCost: n times the
        cheapest price), so whole levels drop out of the search as soon as one is beaten."""
        L, N = self.levels.size, self.perf_c.size
        cols = np.arange(N)[None, :]
        zeros = np.zeros((L, N))
        z = self._z(np.zeros(L), self.T, zeros, zeros, cols)
        z = np.where(self.lvl_col[None, :] <= np.arange(L)[:, None], z, -np.inf)
        if self.n >= N:
            return z.sum(axis=1)
        return -np.partition(-z, self.n - 1, axis=1)[:, : self.n].sum(axis=1)

    def _level_columns(self, width: int) -> np.ndarray:
        """For each level, its first ``width`` eligible columns in price order (padded with N)."""
        L, N = self.levels.size, self.lvl_col.size
        eligible = self.lvl_col[None, :] <= np.arange(L)[:, None]
        rank = np.cumsum(eligible, axis=1) - 1
        out = np.full((L, width), N, dtype=np.int64)
        keep = eligible & (rank < width)
        lv, col = np.nonzero(keep)
        out[lv, rank[lv, col]] = col
        return out

    def chunk(self, a: int, b: int, top: int) -> _Chunk | None:
        """Matrices and candidates for candidate times tau[a:b], at the levels before ``top``."""
        lo = np.maximum(self.s_lo, a)
        hi = np.minimum(self.s_own_hi, b)
        counts = np.where(self.s_lvl < top, np.maximum(hi - lo, 0), 0)
        total = int(counts.sum())
        which = np.repeat(np.arange(counts.size), counts)
        offs = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = lo[which] + offs - a  # local rows
        cols = self.s_col[which]
        tau = self.tau[a:b]
        K, N, L = b - a, self.perf_c.size, top
        # The highest level each slot serves at each row: as many levels as have T <= what is left
        # (+ EPS), counted as (all levels) - (those with -T < -(what is left + EPS)). Negating is
        # exact, so the comparisons are the same; but a slot's rows (later, less left) now give
        # rising keys, which searchsorted answers faster than keys in any order.
        at = tau[rows]
        kmax = self.T.size - 1 - np.searchsorted(self.neg_T_desc, at - self.s_end[which] - EPS, "left")
        # Node j serves the levels [lvl(j), kmax] at its row; a candidate needs >= n members, one
        # of them a slot that starts at t, and one on a node of performance exactly P.
        klo = self.lvl_col[cols]
        ok = (kmax >= klo) & (klo < L)
        keep: slice | np.ndarray = slice(None) if ok.all() else ok  # nearly always all
        hi = np.minimum(kmax[keep], L - 1)
        started = (self.s_es[which] == at)[keep]
        sel = None
        if self.bits is not None:
            chosen = self._lite_by_bits(rows[keep], cols[keep], hi, started, K, L)
            if chosen is None:
                return None
            row, k, sel = chosen
        else:
            found = self._candidates_by_counts(rows[keep], klo[keep], hi, started, K, L)
            if found is None:
                return None
            row, k = found
        # Exact mode scores whole rows: keep only the columns of nodes with a slot here (in price
        # order still), often a small share of a large machine. The lite choice reads columns by
        # their global position, and a mostly full chunk gains nothing.
        used = np.flatnonzero(np.bincount(cols, minlength=N)) if self.spec.exact else None
        if used is not None and used.size < 0.75 * N:
            local = np.empty(N, dtype=np.int64)
            local[used] = np.arange(used.size)
            cols = local[cols]
            columns = (used, self.lvl_col[used], self.price_c[used], self.porder[used])
        else:
            columns = (np.arange(N), self.lvl_col, self.price_c, self.porder)
        U = columns[0].size
        KM = None
        if sel is None:
            # One spare column of -1 (no level) after the U real ones: the lite choice's padding points there.
            KM = np.full((K, U + 1), -1, dtype=np.int16 if L < 2**15 else np.int64)
            KM[rows, cols] = kmax
        if self.spec.exact:  # whole rows of slot bounds
            SS = np.zeros((K, U))
            SE = np.zeros((K, U))
            SS[rows, cols] = self.s_start[which]
            SE[rows, cols] = self.s_end[which]
            return _Chunk(tau, KM, SS, SE, None, row, k, *columns)
        # The lite choice reads the bounds of n slots per candidate, each a member (so set here).
        slot = np.empty((K, U), dtype=np.intp)  # the index type: no conversion when it indexes
        slot.ravel()[rows * U + cols] = which
        return _Chunk(tau, KM, None, None, slot, row, k, *columns, sel=sel)

    def _candidates_by_counts(
        self, r: np.ndarray, lo: np.ndarray, hi: np.ndarray, started: np.ndarray, K: int, L: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The candidates (row, level) of a chunk whose members serve the levels [lo, hi] of row r,
        by difference arrays over the level axis."""
        # A candidate's level is the level of one of its nodes: only the levels D of the nodes
        # here can have one, often a small share of hundreds. Counting at D alone, an interval
        # [lo, hi] covers D's ranks rank(lo) .. (the rank of the last level of D up to hi).
        present = np.zeros(L, dtype=bool)
        present[lo] = True
        levels_here = np.flatnonzero(present)
        rank_upto = np.cumsum(present) - 1
        lo_d, hi_d = rank_upto[lo], rank_upto[hi]
        D = levels_here.size
        # Both counts in one pass: a slot that starts at t adds 2^26 besides its 1 (exact in float64).
        both = _interval_counts(r, lo_d, hi_d, K, D + 1, 1.0 + started * float(STARTED))
        has_level_node = np.zeros((K, D), dtype=bool)
        has_level_node[r, lo_d] = True
        row, kd = np.nonzero(((both & (STARTED - 1)) >= self.n) & (both >= STARTED) & has_level_node)
        if row.size == 0:
            return None
        return row, levels_here[kd]

    def _lite_by_bits(
        self, r: np.ndarray, c: np.ndarray, hi: np.ndarray, started: np.ndarray, K: int, L: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Candidates and their lite choice at once, with each S_W as bit words (column j is bit
        j % 64 of word j // 64; columns are in price order, so the lowest set bits are the cheapest).

        Per word, the members of row r at level k are the columns whose slot holds T_k there
        (a cumulative OR from the top level down) and whose node may serve level k.
        """
        assert self.bits is not None
        n, B = self.n, len(self.bits.eligible)
        # Levels run backwards here (from level L - 1 down to 0), so the cumulative OR runs forwards.
        eligible = [x[L - 1 :: -1] for x in self.bits.eligible]
        exact_level = [x[L - 1 :: -1] for x in self.bits.exact]
        word = c >> 6
        bit = np.left_shift(np.uint64(1), (c & 63).astype(np.uint64))
        # Column c's slot at row r holds T_k for k up to hi: in backwards levels, from L - 1 - hi on.
        back = L - 1 - hi
        # All words in one (B * K, L) array; each column once per row: the sum is the OR.
        grid = np.zeros((B * K, L), dtype=np.uint64)
        np.add.at(grid.ravel(), (word * K + r) * L + back, bit)
        np.bitwise_or.accumulate(grid, axis=1, out=grid)
        holds = list(grid.reshape(B, K * L))
        # A candidate has a slot that starts at t among its members: its level lies in the levels
        # that slot's node serves. Only those (row, level) cells are looked at.
        lo = L - 1 - self.lvl_col[c[started]]  # backwards too: [back, lo]
        first = back[started]
        span = lo - first + 1
        cell = np.repeat(r[started] * L + first - np.cumsum(span) + span, span) + np.arange(int(span.sum()))
        seen = np.zeros(K * L, dtype=bool)
        seen[cell] = True  # two slots that start together may cover a cell twice
        cell = np.flatnonzero(seen)
        kr = cell % L
        picked = [holds[w][cell] & eligible[w][kr] for w in range(B)]
        count = sum(np.bitwise_count(x) for x in picked)
        has_level = np.logical_or.reduce([(x & exact_level[w][kr]) != 0 for w, x in enumerate(picked)])
        keep = np.flatnonzero((count >= n) & has_level)
        if keep.size == 0:
            return None
        cell, kr = cell[keep], kr[keep]
        picked = [x[keep] for x in picked]
        sel = _lowest_bits(picked, n)
        # DESIGN.md "Window length": with no node of level P among the n cheapest, the dearest
        # gives way to the cheapest member of level P (a later column).
        at_level = _lowest_bit([x & exact_level[w][kr] for w, x in enumerate(picked)])
        np.copyto(sel[:, -1], at_level, where=at_level > sel[:, -1])
        return cell // L, L - 1 - kr, sel

    def block(self, ch: _Chunk, idx: np.ndarray | slice) -> _Block:
        """Lite values (and, in exact mode, every member's z) for the candidates ``idx`` (a slice: all)."""
        row, k = ch.row[idx], ch.k[idx]
        C = row.size
        t, T = ch.tau[row], self.T[k]
        r = row[:, None]
        member = z = units = None
        if self.spec.exact:
            member = self._members(ch, row, k, ch.width)
            assert ch.SS is not None and ch.SE is not None
            z = self._z(t, T, ch.SS[row], ch.SE[row], ch.cols[None, :])
            units = cost_units(ch.price[None, :], T[:, None], self.spec.resolution)
            if self.bu is None:  # no budget: the n best are the answer, lite has nothing to add
                empty = np.zeros((C, self.n), dtype=np.int64)
                return _Block(t, T, k, member, empty, np.zeros(C), np.ones(C, bool), z, units)
            sel_cols = self._with_level_slot(_first_members(member, self.n), k, ch.lvl, lambda rows: member[rows])
            r = np.arange(C)[:, None]
            z_sel, units_sel = z[r, sel_cols], units[r, sel_cols]
        else:
            sel_cols = ch.sel[idx] if ch.sel is not None else self._lite_columns(ch, row, k)
            held_by = ch.slot
            assert held_by is not None
            # Which slot each choice is (a flat take is several times faster than held_by[r, sel_cols]),
            # only if the criterion reads the slots' bounds.
            slot = functools.cache(lambda: np.take(held_by, r * ch.width + sel_cols))
            cols = sel_cols if ch.width == self.perf_c.size else ch.cols[sel_cols]  # all columns: the same
            z_sel = self._z(t, T, lambda: self.s_start[slot()], lambda: self.s_end[slot()], cols)
            units_sel = cost_units(ch.price[sel_cols], T[:, None], self.spec.resolution)
        value = _row_sums(z_sel)
        if self.bu is None:
            feasible = np.ones(C, dtype=bool)
        else:
            feasible = _row_sums(units_sel) <= self.bu
        return _Block(t, T, k, member, sel_cols, value, feasible, z, units)

    def _members(self, ch: _Chunk, row: np.ndarray, k: np.ndarray, width: int) -> np.ndarray:
        """S_W of each candidate over the chunk's first ``width`` columns (price order)."""
        assert ch.KM is not None
        return (ch.lvl[None, :width] <= k[:, None]) & (ch.KM[row, :width] >= k[:, None])

    def _lite_columns(self, ch: _Chunk, row: np.ndarray, k: np.ndarray) -> np.ndarray:
        """The n cheapest members of each candidate's S_W, as (C, n) columns.

        They nearly always lie among the first few dozen columns, in price order, of
        the nodes eligible at the candidate's level; only those are examined, and the
        rows that need more get the full width.
        """
        n = self.n
        assert self.level_columns is not None
        cand = self.level_columns[k]  # (C, W) eligible columns, cheapest first; N = padding
        km = ch.KM
        assert km is not None
        width = cand.shape[1]
        # n always-true columns after the W real ones: every row has n picks, and a row
        # whose last pick falls there did not have n members among its W cheapest.
        narrow = np.ones((row.size, width + n), dtype=bool)
        flat = row[:, None] * km.shape[1] + cand  # a flat take is several times faster than km[row, cand]
        np.greater_equal(np.take(km, flat), k[:, None].astype(km.dtype), out=narrow[:, :width])
        picks = _first_members(narrow, n)
        cols = cand[np.arange(row.size)[:, None], np.minimum(picks, width - 1)]
        short = picks[:, -1] >= width
        if short.any():
            cols[short] = _first_members(self._members(ch, row[short], k[short], ch.width), n)
        lacking = ~(self.lvl_col[cols] == k[:, None]).any(axis=1)
        if lacking.any():
            # The cheapest slot of level P is nearly always among the W cheapest too.
            at_level = narrow[lacking, :width] & (
                self.lvl_col[np.minimum(cand[lacking], self.lvl_col.size - 1)] == k[lacking, None]
            )
            found = at_level.any(axis=1)
            rows = np.flatnonzero(lacking)
            cols[rows[found], -1] = cand[rows[found], np.argmax(at_level[found], axis=1)]
            lacking[rows[found]] = False
        return self._with_level_slot(
            cols, k, ch.lvl, lambda rows: self._members(ch, row[rows], k[rows], ch.width), lacking
        )

    @staticmethod
    def _with_level_slot(
        cols: np.ndarray,
        k: np.ndarray,
        lvl: np.ndarray,
        members: Callable[[np.ndarray], np.ndarray],
        lacking: np.ndarray | None = None,
    ) -> np.ndarray:
        """The n cheapest ``cols`` with the rule of DESIGN.md "Window length": with no slot of
        performance exactly P among them, the dearest gives way to the cheapest of level P (a
        later column, as columns are in price order). ``lvl``: each column's level; ``members(rows)``
        gives those rows' S_W."""
        if lacking is None:
            lacking = ~(lvl[cols] == k[:, None]).any(axis=1)
        lacking = np.flatnonzero(lacking)
        if lacking.size:
            at_level = members(lacking) & (lvl[None, :] == k[lacking, None])
            cols[lacking, -1] = np.argmax(at_level, axis=1)
        return cols

    def _z(self, t: np.ndarray, T: np.ndarray, sstart: Given, send: Given, cols: np.ndarray) -> np.ndarray:
        """z of the slots on columns ``cols`` (shape (C, X) or (1, X)) whose bounds are ``sstart``/``send``."""
        shape = (t.size, cols.shape[1])
        ctx = SlotContext(
            t=t,
            T=T,
            sstart=sstart,
            send=send,
            perf=lambda: self.perf_c[cols],
            price=lambda: self.price_c[cols],
            attributes=_Gathered(self.attrs_c, cols),
            volume=self.job.volume,
            shape=shape,
        )
        z = self.spec.criterion.z(ctx)
        if z.shape == shape and z.dtype == np.float64:
            return z
        return np.broadcast_to(z, shape).astype(np.float64)


class _Gathered(Mapping[str, np.ndarray]):
    """Node attributes at some columns, each gathered only when a criterion reads it."""

    def __init__(self, values: Mapping[str, np.ndarray], cols: np.ndarray) -> None:
        self._values, self._cols = values, cols

    def __getitem__(self, key: str) -> np.ndarray:
        return self._values[key][self._cols]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


class _NodeFacts:
    """What a search needs of the nodes alone, for one minimum performance: it depends on no
    slot, so the many searches of one flow (one profile, the same arrays) share it."""

    def __init__(self, perf: np.ndarray, price: np.ndarray, attrs: Mapping[str, np.ndarray], min_perf: float):
        self.eligible = eligible = perf >= min_perf - EPS
        self.count = int(eligible.sum())
        self.levels = levels = sorted_unique(perf[eligible])[::-1]  # P, highest first
        # Columns are nodes in (price, position) order, so lite takes the first n members.
        self.porder = porder = np.lexsort((np.arange(perf.size), price))
        self.col_of = np.empty_like(porder)
        self.col_of[porder] = np.arange(porder.size)
        self.lvl_node = np.full(perf.size, levels.size, dtype=np.int64)
        self.lvl_node[eligible] = np.searchsorted(-levels, -perf[eligible])
        self.lvl_col = self.lvl_node[porder]
        self.words = (porder.size + 63) >> 6  # of a bit set over the columns
        self.perf_c = perf[porder]
        self.price_c = price[porder]
        self.attrs_c = {key: values[porder] for key, values in attrs.items()}
        self.max_attr = {key: float(v.max(initial=0.0)) for key, v in self.attrs_c.items()}
        self.max_perf = float(self.perf_c.max(initial=0.0))
        self.min_price_at_level = self._min_price_per_level() if levels.size else np.empty(0)
        self._lengths: dict[tuple[float, float, float], np.ndarray] = {}
        # Shared by many searches: read-only, so a write by mistake fails at once.
        shared = (self.eligible, self.levels, self.porder, self.col_of, self.lvl_node, self.lvl_col)
        for array in (*shared, self.perf_c, self.price_c, self.min_price_at_level, *self.attrs_c.values()):
            array.setflags(write=False)

    @functools.cached_property
    def columns(self) -> np.ndarray:
        """The positions of the eligible nodes (``kernels.earliest_in_rows`` reads their rows)."""
        cols = np.flatnonzero(self.eligible)
        cols.setflags(write=False)
        return cols

    def lengths(self, volume: float, factor: float, quantum: float) -> np.ndarray:
        """``window_lengths`` at these levels, kept per job shape (a flow has few of them)."""
        key = (volume, factor, quantum)
        hit = self._lengths.get(key)
        if hit is None:
            if len(self._lengths) > 100_000:
                self._lengths.clear()
            hit = self._lengths[key] = window_lengths(volume, self.levels, factor, quantum)
            hit.setflags(write=False)
        return hit

    @functools.cached_property
    def bits(self) -> _LevelBits:
        """Per level, the columns that may serve it and those of exactly that level, as bit words."""
        L, words = self.levels.size, self.words
        cols = np.flatnonzero(self.lvl_col < L)
        exact = np.zeros((words, L), dtype=np.uint64)
        np.add.at(exact, (cols >> 6, self.lvl_col[cols]), np.left_shift(np.uint64(1), (cols & 63).astype(np.uint64)))
        eligible = np.bitwise_or.accumulate(exact, axis=1)  # level k: every level from 0 to k
        for array in (exact, eligible):
            array.setflags(write=False)
        return _LevelBits(list(eligible), list(exact))

    def _min_price_per_level(self) -> np.ndarray:
        """Cheapest price among the nodes that may serve each level (performance >= P_k)."""
        L = self.levels.size
        eligible = self.lvl_col < L
        # The cheapest of levels 0..k: a running minimum over the nodes sorted by level.
        order = np.argsort(self.lvl_col[eligible], kind="stable")
        lvl, price = self.lvl_col[eligible][order], self.price_c[eligible][order]
        running = np.minimum.accumulate(price)
        last_of_level = np.searchsorted(lvl, np.arange(L), "right") - 1
        return running[last_of_level]


# Lite choices by bit sets on machines of up to 64 * BIT_WORDS nodes; beyond, by the cheapest few
# dozen columns of each level. Measured on window100-like machines: bit sets take half the time
# at 100 nodes and about 0.7 at 256; at 500 and 1,000 they gain little and their (words x times
# x levels) grid grows to hundreds of MB.
BIT_WORDS = 4


@dataclass(frozen=True)
class _LevelBits:
    eligible: list[np.ndarray]  # per word, (L,): the columns whose node may serve level k
    exact: list[np.ndarray]  # per word, (L,): the columns whose node is of level k


_Held = tuple[weakref.ref[np.ndarray], weakref.ref[np.ndarray], object, _NodeFacts]
_NODE_FACTS: dict[tuple[int, int, int, float], _Held] = {}
NODE_FACTS_KEPT = 64


def node_facts(table: SlotTable | Profile, min_perf: float) -> _NodeFacts:
    """``_NodeFacts`` of the table's (or profile's) nodes, shared while the same arrays are searched again.

    Keyed by the arrays' identities and checked through weak references, so arrays that
    are gone (and whose ids may be reused) never match. Nothing writes to node arrays in place.
    """
    perf, price, attrs = table.perf, table.price, table.attrs
    key = (id(perf), id(price), id(attrs), float(min_perf))
    hit = _NODE_FACTS.get(key)
    if hit is not None and hit[0]() is perf and hit[1]() is price and hit[2] is attrs:
        return hit[3]
    facts = _NodeFacts(perf, price, attrs, min_perf)
    if len(_NODE_FACTS) >= NODE_FACTS_KEPT:
        _NODE_FACTS.clear()
    _NODE_FACTS[key] = (weakref.ref(perf), weakref.ref(price), attrs, facts)
    return facts


@dataclass
class _Chunk:
    tau: np.ndarray
    KM: np.ndarray | None  # highest level each column's node can serve at each time (-1: none); None with sel
    SS: np.ndarray | None  # exact mode: bounds of the slot holding each (time, column)
    SE: np.ndarray | None
    slot: np.ndarray | None  # lite: which usable slot holds each (time, column) (only members' are set)
    row: np.ndarray  # candidates: local time row and level
    k: np.ndarray
    cols: np.ndarray  # the prepared search's column of each of the chunk's columns (price order)
    lvl: np.ndarray  # per chunk column: its node's level, price and position
    price: np.ndarray
    pos: np.ndarray
    sel: np.ndarray | None = None  # (C, n) every candidate's lite choice, when made with the candidates

    @property
    def width(self) -> int:
        return int(self.cols.size)


@dataclass
class _Block:
    t: np.ndarray
    T: np.ndarray
    k: np.ndarray
    member: np.ndarray | None  # (C, N) S_W rows, exact mode only
    sel_cols: np.ndarray  # (C, n): the lite choice
    value: np.ndarray
    feasible: np.ndarray
    z: np.ndarray | None  # (C, N), exact mode only
    units: np.ndarray | None


def _row_sums(a: np.ndarray) -> np.ndarray:
    """Each row's sum, added left to right (the order of the brute-force reference). For the few
    columns of a choice, column by column is several times faster than numpy's reduction."""
    if a.shape[1] > 16:
        return a.sum(axis=1)
    out = a[:, 0].copy()
    for j in range(1, a.shape[1]):
        out += a[:, j]
    return out


def _first_covered_row(tau: np.ndarray, lo: np.ndarray, hi: np.ndarray, n: int) -> int:
    """The first candidate time at which n slots (on n distinct nodes) are long enough.

    Each usable slot covers the rows [lo, hi) of candidate times it could hold the
    shortest window from; a node's slots are disjoint, so covering slots are distinct
    nodes. No window of any level can start before the first row covered n times.
    """
    delta = np.bincount(lo, minlength=tau.size + 1) - np.bincount(hi, minlength=tau.size + 1)
    covered = np.cumsum(delta[: tau.size]) >= n
    return int(np.argmax(covered)) if covered.any() else tau.size


def _n_best(zm: np.ndarray, units: np.ndarray, positions: np.ndarray, n: int) -> np.ndarray:
    """Per row, the columns of the n largest z; ties: fewer cost units, then lower node position.

    A partition finds the n-th largest value; where it is not tied, the n best are
    simply every value at least that large. Only rows with a tie at that boundary
    pay for the full tie-aware sort (the same order as the DP's).
    """
    neg = -zm
    kth = np.partition(neg, n - 1, axis=1)[:, n - 1 : n]
    upto = neg <= kth
    clean = upto.sum(axis=1) == n
    top = np.empty((zm.shape[0], n), dtype=np.int64)
    if clean.any():
        top[clean] = np.nonzero(upto[clean])[1].reshape(-1, n)
    tied = np.flatnonzero(~clean)
    if tied.size:
        top[tied] = _break_ties(neg[tied], kth[tied], units[tied], positions, n)
    return top


def _break_ties(neg: np.ndarray, kth: np.ndarray, units: np.ndarray, positions: np.ndarray, n: int) -> np.ndarray:
    """The n best of rows tied at the n-th value: all strictly better ones, then the tied ones
    with the fewest units, then the lowest positions (one integer key, no full sort)."""
    rows = neg.shape[0]
    better = neg < kth
    tie = neg == kth
    span = int(positions.max(initial=0)) + 1
    if int(units.max(initial=0)) >= np.iinfo(np.int64).max // (span + 1):
        pos = np.broadcast_to(positions[None, :], neg.shape)
        return np.lexsort((pos, units, neg), axis=1)[:, :n]
    key = np.where(tie, units * span + positions[None, :], np.iinfo(np.int64).max)
    pick = np.argpartition(key, n - 1, axis=1)[:, :n]
    r = np.arange(rows)[:, None]
    pick = pick[r, np.argsort(key[r, pick], axis=1)]
    need = n - better.sum(axis=1)
    chosen = better.copy()
    chosen[r, pick] |= np.arange(n)[None, :] < need[:, None]
    return np.nonzero(chosen)[1].reshape(rows, n)


def _with_level_item(
    top: np.ndarray, zm: np.ndarray, units: np.ndarray, positions: np.ndarray, level: np.ndarray
) -> np.ndarray:
    """The n best with at least one item of level P (DESIGN.md "Window length"), budget aside.

    Where the n best hold none, the best such subset is the n - 1 best of them plus
    the best item of level P, all in the order (larger z, fewer units, lower position).
    """
    rows = np.arange(top.shape[0])[:, None]
    lacking = np.nonzero(~level[rows, top].any(axis=1))[0]
    if lacking.size == 0:
        return top
    top = top.copy()
    sub = top[lacking]
    r = lacking[:, None]
    # The last of the n best in that order gives way.
    order = np.lexsort((positions[sub], units[r, sub], -zm[r, sub]), axis=1)
    worst = order[:, -1]
    # The best item of level P: the largest z, then the fewest units, then the lowest position.
    z_level = np.where(level[lacking], zm[lacking], -np.inf)
    tie = z_level == z_level.max(axis=1, keepdims=True)
    u = np.where(tie, units[lacking], np.iinfo(np.int64).max)
    tie &= u == u.min(axis=1, keepdims=True)
    best_level = np.where(tie, positions[None, :], np.iinfo(np.int64).max).argmin(axis=1)
    sub[np.arange(lacking.size), worst] = best_level
    top[lacking] = sub
    return top


def _first_members(member: np.ndarray, n: int) -> np.ndarray:
    """Column indices of the first n True entries of each row (every row has at least n)."""
    if member.shape[1] <= 64:
        return _first_set_bits(member, n)
    small = member.shape[1] < 32_000
    counts: np.ndarray = np.cumsum(member, axis=1, dtype=np.int16 if small else np.int64)
    return np.nonzero(member & (counts <= n))[1].reshape(member.shape[0], n)


def _first_set_bits(member: np.ndarray, n: int) -> np.ndarray:
    """``_first_members`` for rows of at most 64 columns: each row packed into one 64-bit word."""
    rows = member.shape[0]
    words = np.zeros((rows, 8), dtype=np.uint8)
    packed = np.packbits(member, axis=1, bitorder="little")
    words[:, : packed.shape[1]] = packed
    return _lowest_bits([words.view("<u8").ravel()], n)


def _lowest_bit(words: list[np.ndarray]) -> np.ndarray:
    """Position of the lowest set bit of each row of a bit set held as 64-bit words (one is set)."""
    out = np.zeros(words[0].size, dtype=np.int64)
    for w in range(len(words) - 1, -1, -1):
        x = words[w]
        # A power of two converts to float exactly; its exponent is the bit's position.
        here = np.subtract(np.frexp((x & (np.uint64(0) - x)).astype(np.float64))[1], 1 - 64 * w, dtype=np.intp)
        out = np.where(x != 0, here, out)
    return out


def _lowest_bits(words: list[np.ndarray], n: int) -> np.ndarray:
    """Positions of the n lowest set bits of each row of a bit set held as 64-bit words (word w
    holds bits 64w..64w+63; every row has at least n set). The lowest set bit is taken and
    cleared n times (a few operations per row, not per bit); a later word is read only for
    the rows the earlier ones leave short."""
    zero = np.uint64(0)

    def lowest(x: np.ndarray) -> np.ndarray:
        x = x.copy()
        low = np.empty((n, x.size), dtype=np.uint64)
        for j in range(n):
            np.bitwise_and(x, zero - x, out=low[j])
            x ^= low[j]
        # A power of two converts to float exactly; its exponent is the bit's position (0 gives -1).
        return np.subtract(np.frexp(low.T.astype(np.float64))[1], 1, dtype=np.intp)  # intp: indexes as it is

    out = lowest(words[0])
    have = np.bitwise_count(words[0]).astype(np.int64)
    for w in range(1, len(words)):
        short = np.flatnonzero(have < n)
        if short.size == 0:
            break
        # A short row keeps its first ``have`` positions and takes place j >= have from this word's j - have.
        more = lowest(words[w][short])
        more += 64 * w
        j = np.arange(n)[None, :]
        h = have[short, None]
        src = j - h
        np.maximum(src, 0, out=src)
        src += (n * np.arange(short.size))[:, None]
        rows = out[short]
        np.copyto(rows, np.take(more, src), where=j >= h)
        out[short] = rows
        have[short] += np.bitwise_count(words[w][short])
    return out


def _first_of_equal_rows(keyed: np.ndarray) -> np.ndarray:
    """Indices of the first row of each group of equal rows, in their original order."""
    order = np.lexsort(keyed.T[::-1])
    ks = keyed[order]
    new = np.concatenate(([True], (ks[1:] != ks[:-1]).any(axis=1)))
    return np.sort(order[new])


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """np.unique for small float arrays (numpy's own is several times slower here)."""
    s = np.sort(values)
    if s.size == 0:
        return s
    return s[np.concatenate(([True], s[1:] != s[:-1]))]


STARTED = 2**26  # above any node count (MAX_NODES), so two counts share one integer


def _interval_counts(
    r: np.ndarray, lo: np.ndarray, hi: np.ndarray, K: int, width: int, weights: np.ndarray
) -> np.ndarray:
    """The sum of the (whole-number) ``weights`` of the [lo, hi] level intervals of each row that
    contain each level: (K, width-1), int64."""
    add = np.bincount(r * width + lo, weights, minlength=K * width)
    sub = np.bincount(r * width + hi + 1, weights, minlength=K * width)
    return np.cumsum((add - sub).astype(np.int64).reshape(K, width), axis=1)[:, :-1]


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


def find_window(
    table: SlotTable,
    job: Job,
    spec: SearchSpec,
    earliest: float,
    should_stop: Callable[[], bool] | None = None,
) -> Found | None:
    """The best window for ``job`` on ``table`` starting at or after ``earliest``, or None."""
    if _is_first_fit(spec) and node_facts(table, job.min_performance).levels.size <= FEW_LEVELS:
        from workbench.engine.firstfit import first_fit  # it builds on this module

        return first_fit(table, job, earliest, spec.length_factor, spec.resolution, quantum=spec.quantum)
    return general_search(table, job, spec, earliest, should_stop)


# first_fit loops over performance levels in Python; the general search handles many at once.
FEW_LEVELS = 6


def general_search(
    table: SlotTable,
    job: Job,
    spec: SearchSpec,
    earliest: float,
    should_stop: Callable[[], bool] | None = None,
) -> Found | None:
    """``find_window`` by the general machinery for every criterion (FirstFit's reference)."""
    return _search(table, job, spec, earliest, should_stop, math.inf)[0]


def _is_first_fit(spec: SearchSpec) -> bool:
    return not spec.exact and type(spec.criterion) is StartTime


def _search(
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
    prep = _Prepared(table, job, spec, earliest)
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


def _later_bound(prep: _Prepared, t: float) -> float:
    """An upper bound of the value of every candidate starting at ``t`` or later (monotone criteria)."""
    return float(_level_bounds(prep, t).max())


def _first_beaten(prep: _Prepared, a: int, b: int, value: float) -> int:
    """The first row in (a, b] from which no candidate can beat ``value`` (the bound falls with t)."""
    lo, hi = a + 1, b  # tau[a] can still beat it (the caller checked)
    while lo < hi:
        mid = (lo + hi) // 2
        if _later_bound(prep, prep.tau[mid]) <= value + EPS:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _level_bounds(prep: _Prepared, t: float) -> np.ndarray:
    """Per level, an upper bound of the value of its candidates starting at ``t`` or later."""
    t_a = np.full(prep.levels.size, t)
    bounds = prep.n * prep.spec.criterion.slot_bound(t_a, prep.T, prep.levels, prep.benv)
    return bounds if prep.level_cap is None else np.minimum(bounds, prep.level_cap)


def search_profile(
    profile: Profile,
    job: Job,
    spec: SearchSpec,
    earliest: float,
    should_stop: Callable[[], bool] | None = None,
    before: float = math.inf,
    without: int = -1,
) -> Found | None:
    """``find_window`` on the profile's full table, looking at no more of it than it must.

    For a criterion whose bound falls with t the search reads the slots of
    [earliest, earliest + span] and widens the span fourfold until the answer is
    proven. With ``before`` (FirstFit-like criteria) it gives up at that time: the
    caller only asks whether a window starts earlier. ``without``: a profile owner
    whose intervals count as free (the job's own reservation, when it is planned again).
    """
    if not spec.criterion.monotone_in_t:
        return find_window(profile.search_table(earliest, without=without), job, spec, earliest, should_stop)
    if _is_first_fit(spec):
        from workbench.engine.firstfit import first_fit_in  # it builds on this module

        return first_fit_in(profile, job, earliest, spec.length_factor, spec.resolution, before, spec.quantum, without)
    from workbench.engine.placement import compiled_for, placement_in  # it builds on this module

    if math.isinf(before) and compiled_for(spec, job):
        return placement_in(profile, job, spec, earliest, without)
    count, slowest, _levels = profile.capable(job.min_performance)
    if count < job.node_count:
        return None
    span = 4.0 * job.volume / slowest * spec.length_factor
    end = min(before, profile.iend)
    settled = profile.last_busy_end()  # no slot starts after it: a range to there holds every candidate
    while True:
        limit = earliest + span
        if limit >= settled:
            limit = math.inf
        if limit >= end:
            limit = before if before < profile.iend else math.inf
        table = profile.search_table(earliest, limit, without)
        found, proven = _search(table, job, spec, earliest, should_stop, limit)
        if proven or limit >= end:
            return found
        span *= 4.0


def _search_chunk(
    prep: _Prepared, ch: _Chunk, best: _Best | None, should_stop: Callable[[], bool] | None
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


def _level_env(prep: _Prepared, k: np.ndarray) -> BoundEnv:
    env = prep.benv
    return BoundEnv(env.istart, env.iend, env.max_attr, env.min_price_at_level[k], env.max_perf)


def _take_block_best(
    prep: _Prepared, ch: _Chunk, blk: _Block, best: _Best | None, pending: list[_Pending]
) -> _Best | None:
    """Fold a block into the incumbent; in exact mode queue the candidates that need the DP.
    The block's columns are the chunk's; the incumbent keeps the prepared search's."""
    value, feasible, cols = blk.value, blk.feasible, blk.sel_cols
    if prep.spec.exact:
        assert blk.z is not None and blk.units is not None and blk.member is not None
        n = prep.n
        zm = np.where(blk.member, blk.z, -np.inf)
        level = blk.member & (ch.lvl[None, :] == blk.k[:, None])
        top = _with_level_item(_n_best(zm, blk.units, ch.pos, n), zm, blk.units, ch.pos, level)
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
    prep: _Prepared,
    ch: _Chunk,
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
            np.median(_slope_lambda(zm[warm], units[warm].astype(np.float64), np.isfinite(zm[warm]), prep.n, bu))
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


def lagrangian_bound(zm: np.ndarray, units: np.ndarray, n: int, budget: int, iterations: int = 10) -> np.ndarray:
    """Upper bounds of the knapsack-with-count optimum, one per row (-inf entries are absent).

    For any lambda >= 0, max sum z <= lambda * B + (sum of the n largest z_i - lambda * u_i):
    the Lagrangian relaxation of the budget. It is minimised over lambda by bisection on
    the sign of its subgradient (B minus the cost of the relaxed choice); every lambda
    tried gives a valid bound, and the smallest is kept.
    """
    rows = zm.shape[0]
    if rows == 0:
        return np.empty(0)
    finite = np.isfinite(zm)
    zf = np.where(finite, zm, 0.0)
    span = (zf.max(axis=1) - np.where(finite, zm, np.inf).min(axis=1)) + 1.0
    lo = np.zeros(rows)
    hi = span  # past this lambda the relaxed choice is the n cheapest
    best = np.full(rows, np.inf)
    u = units.astype(np.float64)
    for step in range(iterations):
        lam = _slope_lambda(zm, u, finite, n, budget) if step == 0 else 0.5 * (lo + hi)
        vals = np.where(finite, zm - lam[:, None] * u, -np.inf)
        part = -np.partition(-vals, n - 1, axis=1)
        best = np.minimum(best, lam * budget + part[:, :n].sum(axis=1))
        if step == iterations - 1:
            break
        # The relaxed choice is every value >= the n-th largest (ties may add a few):
        # only the direction of the next step depends on it.
        over = (np.where(vals >= part[:, n - 1 : n], u, 0.0)).sum(axis=1) > budget
        lo = np.where(over, lam, lo)
        hi = np.where(over, hi, lam)
    return best


def _slope_lambda(zm: np.ndarray, u: np.ndarray, finite: np.ndarray, n: int, budget: int) -> np.ndarray:
    """A good first lambda: value lost per unit saved from the n best to the n cheapest."""
    r = np.arange(zm.shape[0])[:, None]
    best_idx = np.argpartition(-np.where(finite, zm, -np.inf), n - 1, axis=1)[:, :n]
    cheap_idx = np.argpartition(np.where(finite, u, np.inf), n - 1, axis=1)[:, :n]
    dz = zm[r, best_idx].sum(axis=1) - zm[r, cheap_idx].sum(axis=1)
    du = u[r, best_idx].sum(axis=1) - u[r, cheap_idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(du > 0, dz / du, 0.0)
    return np.maximum(lam, 0.0)


def _to_found(prep: _Prepared, best: _Best) -> Found:
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


def knapsack_count(
    z: np.ndarray,
    units: np.ndarray,
    n: int,
    budget: int,
    positions: np.ndarray,
    required: np.ndarray | None = None,
    resolution: float = 1.0,
) -> np.ndarray | None:
    """Exact subset choice, seed 002 §3.3 eq. 2: max sum z over n items with sum units <= budget.

    f_i(c, k) = max(f_{i-1}(c, k), f_{i-1}(c - u_i, k - 1) + z_i), then backward
    induction. With ``required`` the subset must hold at least one of those items
    (DESIGN.md "Window length": a node of performance exactly P), a flag carried as
    one more axis of f. Among optimal subsets it returns the cheapest, and among
    those the one whose node positions come first lexicographically. Returns the
    indices into ``z`` of the chosen items, or None when no n items fit.
    Raises ``DPTooLarge`` (naming ``resolution``) rather than exhaust the memory.
    """
    if z.size < n:
        return None
    if required is not None and (required.all() or not required.any()):
        if not required.any():
            return None
        required = None  # every item qualifies: the plain problem
    cheapest = np.sort(units)[:n].sum()
    if cheapest > budget:
        return None
    # An item beaten (value >=, cost <=, and better in one of value, cost, position)
    # by n others is never needed: swap it for one of them that is left out. A
    # required item may be the only one in the subset, so one of its n must be required.
    zi, ui, pi = z[:, None], units[:, None], positions[:, None]
    beats = (z[None, :] >= zi) & (units[None, :] <= ui)
    beats &= (z[None, :] > zi) | (units[None, :] < ui) | (positions[None, :] < pi)
    drop = beats.sum(axis=1) >= n
    if required is not None:
        drop &= ~required | (beats & required[None, :]).any(axis=1)
    keep = np.nonzero(~drop)[0]
    chosen = _knapsack_dp(
        z[keep], units[keep], n, budget, positions[keep], None if required is None else required[keep], resolution
    )
    return None if chosen is None else keep[chosen]


def _knapsack_dp(
    z: np.ndarray,
    units: np.ndarray,
    n: int,
    budget: int,
    positions: np.ndarray,
    required: np.ndarray | None,
    resolution: float,
) -> np.ndarray | None:
    m = z.size
    cap = int(min(budget, np.sort(units)[-n:].sum()))
    flags = 1 if required is None else 2
    check_dp_size((m + 1) * flags * (n + 1), cap, resolution, "the exact choice", f"{m} slots × {n} nodes")
    # Process the highest positions first so that backtracking meets the lowest first.
    order = np.argsort(-positions, kind="stable")
    zz, uu = z[order], units[order]
    need = np.ones(m, dtype=bool) if required is None else required[order]
    # f[i, g, k, c]: best value of k of the first i items within c units; g = 1 when
    # one of them is required (always 1 with no requirement).
    f = np.full((m + 1, flags, n + 1, cap + 1), -np.inf)
    f[0, 0, 0, :] = 0.0
    top = flags - 1
    for i in range(m):
        prev, cur = f[i], f[i + 1]
        cur[:] = prev
        u = int(uu[i])
        if u > cap:
            continue
        # Taking item i: from g = 1 stays 1; from g = 0 moves to 1 if it is required.
        to = top if need[i] else 0
        for g in range(flags):
            dest = top if g == top else to
            cand = prev[g, :-1, : cap + 1 - u] + zz[i]
            np.maximum(cur[dest, 1:, u:], cand, out=cur[dest, 1:, u:])
    last = f[m, top, n]
    if not np.isfinite(last[cap]):
        return None
    c = int(np.argmax(last >= last[cap]))  # the cheapest budget level reaching the optimum
    k = n
    states = {top}  # every flag from which an optimal completion exists
    chosen: list[int] = []
    for i in range(m, 0, -1):
        if k == 0:
            break
        u = int(uu[i - 1])
        to = top if need[i - 1] else 0
        taken: set[int] = set()
        if u <= c:
            for g in range(flags):
                for dest in states:
                    if (dest == top if g == top else dest == to) and f[i - 1, g, k - 1, c - u] + zz[i - 1] == f[
                        i, dest, k, c
                    ]:
                        taken.add(g)
        if taken:
            chosen.append(i - 1)
            k -= 1
            c -= u
            states = taken
        else:
            states = {g for g in states if f[i - 1, g, k, c] == f[i, g, k, c]}
    if k != 0 or not states:  # pragma: no cover - the forward pass guarantees a path
        raise AssertionError("knapsack backtracking lost its path")
    return np.sort(order[np.array(chosen, dtype=np.int64)])
