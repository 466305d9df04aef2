"""The candidate windows of one search: the levels and times, and per chunk of times the
(times x nodes) matrices of what each node can hold.

For the sorted distinct candidate times tau and every node we fill matrices of the
remaining free length and the holding slot's bounds, and turn the remaining length into
the highest level the node can serve. Candidate validity comes from difference arrays over
levels, and each candidate's S_W is a boolean row (exact) or its Lite choice (lite).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from workbench.engine.criteria import BoundEnv, Given, SlotContext
from workbench.engine.model import EPS, Job
from workbench.engine.search.facts import node_facts, sorted_unique
from workbench.engine.search.lite import first_members, lowest_bit, lowest_bits
from workbench.engine.search.spec import SearchSpec, cost_units
from workbench.engine.slots import SlotTable, window_lengths
from workbench.engine.units import budget_units

BLOCK = 1024
LITE_BLOCK = 8192
FIRST_BLOCK = 32
FIRST_CHUNK_CELLS = 2048  # times x nodes in the first chunk of a monotone search
WARM_START = 4

# Lite choices by bit sets on machines of up to 64 * BIT_WORDS nodes; beyond, by the cheapest few
# dozen columns of each level. Measured on window100-like machines: bit sets take half the time
# at 100 nodes and about 0.7 at 256; at 500 and 1,000 they gain little and their (words x times
# x levels) grid grows to hundreds of MB.
BIT_WORDS = 4


class PreparedSearch:
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

    def chunk(self, a: int, b: int, top: int) -> Chunk | None:
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
            return Chunk(tau, KM, SS, SE, None, row, k, *columns)
        # The lite choice reads the bounds of n slots per candidate, each a member (so set here).
        slot = np.empty((K, U), dtype=np.intp)  # the index type: no conversion when it indexes
        slot.ravel()[rows * U + cols] = which
        return Chunk(tau, KM, None, None, slot, row, k, *columns, sel=sel)

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
        sel = lowest_bits(picked, n)
        # docs/design.md "Window length": with no node of level P among the n cheapest, the dearest
        # gives way to the cheapest member of level P (a later column).
        at_level = lowest_bit([x & exact_level[w][kr] for w, x in enumerate(picked)])
        np.copyto(sel[:, -1], at_level, where=at_level > sel[:, -1])
        return cell // L, L - 1 - kr, sel

    def block(self, ch: Chunk, idx: np.ndarray | slice) -> Block:
        """Lite values (and, in exact mode, every member's z) for the candidates ``idx`` (a slice: all)."""
        row, k = ch.row[idx], ch.k[idx]
        C = row.size
        t, T = ch.tau[row], self.T[k]
        r = row[:, None]
        member = z = units = None
        if self.spec.exact:
            member = self._members(ch, row, k, ch.width)
            assert ch.SS is not None and ch.SE is not None
            z = self._z(t, T, ch.SS[row], ch.SE[row], ch.cols[None, :], member)
            units = cost_units(ch.price[None, :], T[:, None], self.spec.resolution)
            if self.bu is None:  # no budget: the n best are the answer, lite has nothing to add
                empty = np.zeros((C, self.n), dtype=np.int64)
                return Block(t, T, k, member, empty, np.zeros(C), np.ones(C, bool), z, units)
            sel_cols = self._with_level_slot(first_members(member, self.n), k, ch.lvl, lambda rows: member[rows])
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
        return Block(t, T, k, member, sel_cols, value, feasible, z, units)

    def _members(self, ch: Chunk, row: np.ndarray, k: np.ndarray, width: int) -> np.ndarray:
        """S_W of each candidate over the chunk's first ``width`` columns (price order)."""
        assert ch.KM is not None
        return (ch.lvl[None, :width] <= k[:, None]) & (ch.KM[row, :width] >= k[:, None])

    def _lite_columns(self, ch: Chunk, row: np.ndarray, k: np.ndarray) -> np.ndarray:
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
        picks = first_members(narrow, n)
        cols = cand[np.arange(row.size)[:, None], np.minimum(picks, width - 1)]
        short = picks[:, -1] >= width
        if short.any():
            cols[short] = first_members(self._members(ch, row[short], k[short], ch.width), n)
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
        """The n cheapest ``cols`` with the rule of docs/design.md "Window length": with no slot of
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

    def _z(
        self,
        t: np.ndarray,
        T: np.ndarray,
        sstart: Given,
        send: Given,
        cols: np.ndarray,
        member: np.ndarray | None = None,
    ) -> np.ndarray:
        """z of the slots on columns ``cols`` (shape (C, X) or (1, X)) whose bounds are ``sstart``/``send``
        (``member``: which of them are candidate slots; None: all)."""
        shape = (t.size, cols.shape[1])
        ctx = SlotContext(
            t=t,
            T=T,
            sstart=sstart,
            send=send,
            perf=lambda: self.perf_c[cols],
            price=lambda: self.price_c[cols],
            node=lambda: self.porder[cols],
            attributes=_Gathered(self.attrs_c, cols),
            volume=self.job.volume,
            shape=shape,
            member=member,
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


@dataclass
class Chunk:
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
class Block:
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


STARTED = 2**26  # above any node count (MAX_NODES), so two counts share one integer


def _interval_counts(
    r: np.ndarray, lo: np.ndarray, hi: np.ndarray, K: int, width: int, weights: np.ndarray
) -> np.ndarray:
    """The sum of the (whole-number) ``weights`` of the [lo, hi] level intervals of each row that
    contain each level: (K, width-1), int64."""
    add = np.bincount(r * width + lo, weights, minlength=K * width)
    sub = np.bincount(r * width + hi + 1, weights, minlength=K * width)
    return np.cumsum((add - sub).astype(np.int64).reshape(K, width), axis=1)[:, :-1]
