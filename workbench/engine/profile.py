"""A mutable busy profile: every node's occupied intervals, and slot tables of a time range.

A ``SlotTable`` is immutable and covers the whole interval, which is right for one
search but costs O(everything) to rebuild after each reservation. Long flows
(thousands of jobs) instead keep one ``Profile``: per node, the busy intervals
(local tasks and windows) sorted by start in a padded numpy row, each tagged with
its owner. ``table(lo, hi)`` builds the slot table of just the slots that end after
``lo`` and start no later than ``hi``, with their true bounds, so a window search on
it sees exactly the candidates of the full table that start in [lo, hi].
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from workbench.engine import kernels
from workbench.engine.kernels.types import Scratch
from workbench.engine.model import EPS, Window
from workbench.engine.slots import SlotTable

NO_OWNER = -1  # local tasks and windows that never move
FLOAT_MAX = float(np.finfo(np.float64).max)


class Profile:
    """Busy intervals per node over the interval [istart, iend]; ``istart`` may advance."""

    def __init__(self, table: SlotTable) -> None:
        self.node_ids = table.node_ids
        self.index = {node_id: i for i, node_id in enumerate(table.node_ids)}
        self.perf = table.perf
        self.price = table.price
        self.attrs: Mapping[str, np.ndarray] = table.attrs
        self.istart = table.istart
        self.iend = table.iend
        n = len(table.node_ids)
        counts = np.bincount(table.busy_node, minlength=n) if table.busy_node.size else np.zeros(n, np.int64)
        width = max(8, int(counts.max(initial=0)) * 2)
        self.bs = np.full((n, width), math.inf)
        self.be = np.full((n, width), math.inf)
        self.owner = np.full((n, width), NO_OWNER, dtype=np.int64)
        self.count = np.zeros(n, dtype=np.int64)
        order = np.lexsort((table.busy_start, table.busy_node))
        node, start, end = table.busy_node[order], table.busy_start[order], table.busy_end[order]
        first = np.searchsorted(node, np.arange(n))
        col = np.arange(node.size) - first[node]
        self.bs[node, col] = start
        self.be[node, col] = end
        self.count[:] = counts
        self._last_end: float | None = None  # cached ``last_busy_end`` (None: to compute)
        self._columns: tuple[int, np.ndarray] | None = None  # cached ``columns``
        self._capable: dict[float, tuple[int, float, int]] = {}
        self._scratch: tuple[np.ndarray, ...] | None = None
        self._rows: dict[int, tuple[Window, np.ndarray, np.ndarray]] = {}  # id(window) -> (window, xs, ends)
        self.dropped = -math.inf  # every interval that ended by this time is gone (``drop_before``)
        self.rows: tuple[np.ndarray | float, ...] = ()
        self._remake_rows()

    def capable(self, min_performance: float) -> tuple[int, float, int]:
        """The nodes of performance >= ``min_performance``: how many, the slowest, and how many
        distinct performances (cached: the nodes never change)."""
        if min_performance not in self._capable:
            perf = self.perf[self.perf >= min_performance - EPS]
            slowest = float(perf.min()) if perf.size else math.inf
            self._capable[min_performance] = (int(perf.size), slowest, int(np.unique(perf).size))
        return self._capable[min_performance]

    def start_at(self, t: float) -> None:
        """Move ``istart`` to ``t`` (the kernels read it in ``rows``)."""
        self.istart = t
        self._remake_rows()

    def _remake_rows(self) -> None:
        """``rows``: the busy intervals as the compiled kernels read them, a ``kernels.types.Rows``
        as a plain tuple (``kernels.calls``) of the arrays themselves; made again when the rows
        widen or ``istart`` moves (a plain attribute: read tens of thousands of times a run)."""
        self.rows = (self.bs, self.be, self.owner, self.count, float(self.istart), float(self.iend))  # Rows' order

    def scratch(self) -> tuple[np.ndarray, ...]:
        """Work space for the compiled loops: room for a gap per row entry of every row (a
        ``kernels.types.Scratch`` as a plain tuple)."""
        size = self.bs.size + self.count.size
        if self._scratch is None or self._scratch[0].size < size:
            made = Scratch(np.empty(size, dtype=np.int64), np.empty(size), np.empty(size), np.empty(size))
            self._scratch = tuple(made)
        return self._scratch

    # -- changes ------------------------------------------------------------------

    def add(self, window: Window, owner: int = NO_OWNER) -> None:
        """Take the window's nodes over [start, end): each row gets the interval in its sorted place."""
        xs, ends = self._parts(window)
        if int(self.count[xs].max()) + 1 >= self.bs.shape[1]:
            self.widen()
        kernels.insert_rows(*self.rows, xs, float(window.start), ends, int(owner))
        self._rows[id(window)] = (window, xs, ends)
        self.changed()

    def remove(self, window: Window) -> None:
        """Give the window's intervals back (each must be present, but for the parts that ended by
        the last ``drop_before``: a rough-edged window's short parts go before its long ones)."""
        xs, ends = self._parts(window)
        present = ends > self.dropped
        if not present.all():
            xs, ends = xs[present], ends[present]
        if xs.size == 0:
            self._rows.pop(id(window), None)
            return
        missing = kernels.delete_rows(*self.rows, xs, float(window.start), ends)
        if missing >= 0:
            raise ValueError(f"window of {window.job} is not in the profile on {self.node_ids[int(xs[missing])]}")
        self._rows.pop(id(window), None)
        self.changed()

    def _parts(self, window: Window) -> tuple[np.ndarray, np.ndarray]:
        """The window's node positions and where its part on each ends (kept from ``add`` to ``remove``)."""
        hit = self._rows.get(id(window))
        if hit is not None and hit[0] is window:
            return hit[1], hit[2]
        index = self.index
        xs = np.array([index[node] for node in window.nodes], dtype=np.int64)
        if window.lengths:
            ends = np.array([window.start + length for length in window.lengths], dtype=np.float64)
        else:
            ends = np.full(xs.size, window.start + window.length)
        return xs, ends

    def drop_before(self, t: float) -> None:
        """Forget intervals that end by ``t`` (they cannot touch any slot from ``t`` on)."""
        self.dropped = max(self.dropped, t)
        if not (self.be[:, 0] <= t).any():  # rows are sorted by start, and so by end
            return
        gone = (self.be <= t).sum(axis=1)
        for x in np.flatnonzero(gone):
            g, c = int(gone[x]), int(self.count[x])
            for arr, pad in ((self.bs, math.inf), (self.be, math.inf), (self.owner, NO_OWNER)):
                arr[x, : c - g] = arr[x, g:c]
                arr[x, c - g : c] = pad
            self.count[x] = c - g
        self.changed()

    def forget(self, window: Window) -> None:
        """Drop what ``add`` kept of a window whose intervals left the rows another way
        (``kernels.replan_pass`` moves windows in the rows themselves)."""
        self._rows.pop(id(window), None)

    def changed(self) -> None:
        """Forget what was cached of the rows (they changed)."""
        self._last_end = None
        self._columns = None

    def widen(self) -> None:
        """Double every row's room for intervals."""
        extra = self.bs.shape[1]
        n = self.bs.shape[0]
        self.bs = np.concatenate([self.bs, np.full((n, extra), math.inf)], axis=1)
        self.be = np.concatenate([self.be, np.full((n, extra), math.inf)], axis=1)
        self.owner = np.concatenate([self.owner, np.full((n, extra), NO_OWNER, dtype=np.int64)], axis=1)
        self._remake_rows()

    # -- queries ------------------------------------------------------------------

    def table(self, lo: float, hi: float = math.inf, without: int = NO_OWNER) -> SlotTable:
        """The slots of the full table that end after ``lo`` and start no later than ``hi``.

        Each node contributes the busy intervals around [lo, hi] (one spare on either
        side); ``SlotTable.build`` turns them into gaps with the same clipping and
        rounding as a full build, and the gaps outside the range are cut away.
        ``without`` leaves out the intervals of that owner, as if given back.
        """
        width = int(self.count.max(initial=0))
        bs, be = self.bs[:, :width], self.be[:, :width]
        first = np.maximum((bs <= lo).sum(axis=1) - 2, 0)
        last = np.minimum((be <= hi).sum(axis=1) + 1, self.count - 1)  # inclusive
        take = np.maximum(last - first + 1, 0)
        node = np.repeat(np.arange(self.count.size), take)
        col = np.arange(int(take.sum())) - np.repeat(np.cumsum(take) - take, take) + first[node]
        if without != NO_OWNER:
            # One interval per node at most; the spares on either side cover the gap it leaves.
            mine = self.owner[node, col] == without
            node, col = node[~mine], col[~mine]
        full = SlotTable.build(
            self.node_ids, self.perf, self.price, self.istart, self.iend, node, bs[node, col], be[node, col], self.attrs
        )
        keep = (full.end > lo) & (full.start <= hi)
        if keep.all():
            return full
        return SlotTable(
            full.node_ids,
            full.perf,
            full.price,
            full.istart,
            full.iend,
            full.node[keep],
            full.start[keep],
            full.end[keep],
            full.busy_node,
            full.busy_start,
            full.busy_end,
            full.attrs,
        )

    def gaps(self, lo: float, hi: float = math.inf, without: int = NO_OWNER) -> tuple[np.ndarray, ...]:
        """(node, start, end) of the free gaps that end after ``lo`` and start by ``hi``, by node.

        Gap k of a node lies between its busy intervals k-1 and k (the interval's
        bounds stand in at either end), clipped to [istart, iend]: one column per gap,
        and the padding gives empty gaps. ``without``'s intervals count as free: the
        gap before each reaches as far as the gap after it, which goes.
        """
        w, first_starts = self.columns()
        if hi < math.inf and w:
            # Gaps after a node's first interval that starts past hi start past hi too; one more
            # column lets ``without`` merge the gap it ends with the next.
            reach = int(np.searchsorted(first_starts, hi, "right"))
            w = min(w, reach + (without != NO_OWNER))
        n = self.count.size
        start = np.empty((n, w + 1))
        start[:, 0] = self.istart
        np.maximum(self.be[:, :w], self.istart, out=start[:, 1:])
        end = np.empty((n, w + 1))
        np.minimum(self.bs[:, : w + 1], self.iend, out=end)  # the padding past a row's count is inf
        if without != NO_OWNER:
            mine = self.owner[:, :w] == without
            end[:, :w] = np.where(mine, end[:, 1:], end[:, :w])
            start[:, 1:][mine] = math.inf  # the gap after it is now part of the one before
        # A start of inf (past a row's last interval, or merged away) is never a gap; leaving it
        # out of the subtraction also spares inf - inf.
        keep = (end > lo) & (start <= min(hi, FLOAT_MAX))
        length = np.subtract(end, start, out=np.zeros(end.shape), where=keep)
        node, k = np.nonzero(keep & (length > EPS))
        return node, start[node, k], end[node, k]

    def search_table(self, lo: float, hi: float = math.inf, without: int = NO_OWNER) -> SlotTable:
        """``table(lo, hi, without)`` for a window search: the same slots, sorted, without the
        busy bookkeeping that ``reserve`` needs (so it must not be reserved on)."""
        node, start, end = self.gaps(lo, hi, without)
        order = np.argsort(start, kind="stable")  # gaps come by node: ties keep node order
        empty_i, empty_f = np.empty(0, dtype=np.int64), np.empty(0)
        return SlotTable(
            self.node_ids,
            self.perf,
            self.price,
            self.istart,
            self.iend,
            node[order],
            start[order],
            end[order],
            empty_i,
            empty_f,
            empty_f,
            self.attrs,
        )

    def columns(self) -> tuple[int, np.ndarray]:
        """The most intervals any node holds, and each column's earliest start (cached).

        Rows are sorted, so the earliest starts never fall from one column to the next: the
        columns that hold an interval starting by ``hi`` are the first searchsorted(.., hi).
        """
        if self._columns is None:
            w = int(self.count.max(initial=0))
            self._columns = (w, self.bs[:, :w].min(axis=0))
        return self._columns

    def last_busy_end(self) -> float:
        """When the last busy interval ends (``istart`` when there is none): every slot starts by then."""
        if self._last_end is None:
            held = self.count > 0
            ends = self.be[np.flatnonzero(held), self.count[held] - 1]
            self._last_end = float(ends.max()) if ends.size else -math.inf
        return self.istart if self._last_end == -math.inf else self._last_end

    def gaps_around(self, freed: list[tuple[int, float, float]]) -> np.ndarray:
        """The free gap of each freed (node x, a, b) that holds [a, b), with its neighbours.

        Rows (x, a, b, A, B, lo owner, hi owner, A', B'): the gap [A, B), the owners of
        the busy intervals that bound it, and how far it would reach if the left
        (right) neighbour were given back too.
        """
        f = np.array(freed, dtype=np.float64).reshape(-1, 3)
        xs, a, b = f[:, 0].astype(np.int64), f[:, 1], f[:, 2]
        c = self.count[xs]
        w = int(c.max(initial=0)) + 1  # a spare padded column: index c is always valid
        bs, be, own = self.bs[xs, :w], self.be[xs, :w], self.owner[xs, :w]
        rows = np.arange(xs.size)
        left = np.count_nonzero(be <= (a + EPS)[:, None], axis=1) - 1  # last busy ending by a
        right = np.count_nonzero(bs < (b - EPS)[:, None], axis=1)  # first busy starting from b
        inner = right < c
        A = np.where(left >= 0, np.maximum(be[rows, np.maximum(left, 0)], self.istart), self.istart)
        B = np.where(inner, np.minimum(bs[rows, right], self.iend), self.iend)
        lo_owner = np.where(left >= 0, own[rows, np.maximum(left, 0)], NO_OWNER)
        hi_owner = np.where(inner, own[rows, right], NO_OWNER)
        A2 = np.where(left >= 1, np.maximum(be[rows, np.maximum(left - 1, 0)], self.istart), self.istart)
        nxt = np.minimum(right + 1, w - 1)
        B2 = np.where(right + 1 < c, np.minimum(bs[rows, nxt], self.iend), self.iend)
        return np.column_stack([f, A, B, lo_owner, hi_owner, A2, B2])


def windows_profile(table: SlotTable, windows: Iterable[Window] = ()) -> Profile:
    """A profile of ``table`` with ``windows`` (that never move) taken out as well."""
    profile = Profile(table)
    for window in windows:
        profile.add(window)
    return profile
