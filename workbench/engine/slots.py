"""The free-slot table: gaps between local tasks and reservations, as numpy arrays.

A slot is a maximal free interval of one node inside the scheduling interval
[istart, iend]. Its bounds are the neighbouring tasks (or the interval's own
boundary), so L_left and L_right of a window part are measured to them
(docs/design.md, "Window search"). The table is built once from parallel arrays and
then only queried with vectorised numpy operations (docs/style.md point 2).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from workbench.engine import kernels
from workbench.engine.model import EPS, Environment, Window

SPLIT_LIMIT = 64  # window parts above which reserve() rebuilds instead of splitting
FloatArray = np.ndarray
IntArray = np.ndarray


BY_KEYS_FROM = 100_000


def by_keys(first: np.ndarray, then: np.ndarray) -> np.ndarray:
    """``np.lexsort((then, first))``: the order by ``first``, ties by ``then``, then by position. Two
    stable sorts, a node number sorted by radix, take half the time of ``lexsort`` at millions of
    intervals (6 million: 2.3 s -> 1.3 s shuffled); below ``BY_KEYS_FROM`` ``lexsort`` is quicker."""
    if first.size < BY_KEYS_FROM:
        return np.lexsort((then, first))

    def stable(keys: np.ndarray) -> np.ndarray:
        small = keys.dtype.kind in "iu" and (keys.size == 0 or (keys.min() >= 0 and keys.max() < 2**15))
        return np.argsort(keys.astype(np.int16) if small else keys, kind="stable")

    order = stable(then)
    return order[stable(first[order])]


def _clipped(
    node: IntArray, start: FloatArray, end: FloatArray, istart: float, iend: float
) -> tuple[IntArray, FloatArray, FloatArray]:
    """The intervals clipped to [istart, iend], those left empty dropped. When none needs either
    (a result's parts inside its run), the arrays themselves: at millions of parts each copy of a
    column is 48 MB of fresh memory, and on the reference machine first touching memory costs
    about 2 ms a MB."""
    inside = start.size == 0 or (float(start.min()) >= istart and float(end.max()) <= iend)
    s = start if inside else np.maximum(start, istart)
    e = end if inside else np.minimum(end, iend)
    keep = e - s > EPS
    if keep.all():
        return node, s, e
    return node[keep], s[keep], e[keep]


def _node_gaps(
    bn: IntArray, bs: FloatArray, be: FloatArray, n_nodes: int, istart: float, iend: float
) -> tuple[IntArray, FloatArray, FloatArray]:
    """``SlotTable.build``'s gaps, node after node, by the compiled walk (``kernels.node_gaps``)."""
    room = bn.size + n_nodes
    gn, gs, ge = np.empty(room, dtype=np.int64), np.empty(room), np.empty(room)
    m = kernels.node_gaps(
        np.ascontiguousarray(bn, dtype=np.int64), np.ascontiguousarray(bs, dtype=np.float64),
        np.ascontiguousarray(be, dtype=np.float64), n_nodes, float(istart), float(iend), gn, gs, ge,
    )  # fmt: skip
    return gn[:m], gs[:m], ge[:m]


@dataclass(frozen=True, eq=False)
class SlotTable:
    """Free slots of every node over [istart, iend], sorted by (start, node).

    ``node`` indexes the environment's node list; ``busy_*`` keep the occupied
    intervals (local tasks and reservations) so that reserving more is cheap.
    """

    node_ids: tuple[str, ...]
    perf: FloatArray
    price: FloatArray
    istart: float
    iend: float
    node: IntArray
    start: FloatArray
    end: FloatArray
    busy_node: IntArray
    busy_start: FloatArray
    busy_end: FloatArray
    attrs: Mapping[str, FloatArray] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return int(self.node.size)

    @cached_property
    def index(self) -> dict[str, int]:
        """Node id -> position."""
        return {node_id: i for i, node_id in enumerate(self.node_ids)}

    @classmethod
    def from_environment(
        cls,
        env: Environment,
        reservations: Iterable[Window] = (),
        istart: float | None = None,
        iend: float | None = None,
    ) -> SlotTable:
        """Slots of ``env`` with its local tasks and ``reservations`` taken out."""
        index = env.node_index
        tasks = env.local_tasks
        wins = list(reservations)
        count = len(tasks) + sum(len(w.nodes) for w in wins)
        bnode = np.empty(count, dtype=np.int64)
        bstart = np.empty(count, dtype=np.float64)
        bend = np.empty(count, dtype=np.float64)
        k = 0
        for task in tasks:
            bnode[k], bstart[k], bend[k] = index[task.node], task.start, task.end
            k += 1
        for w in wins:
            for node_id, end in w.part_ends():
                bnode[k], bstart[k], bend[k] = index[node_id], w.start, end
                k += 1
        return cls.build(
            tuple(n.id for n in env.nodes),
            np.array([n.performance for n in env.nodes], dtype=np.float64),
            np.array([n.price for n in env.nodes], dtype=np.float64),
            env.time.start if istart is None else istart,
            env.time.end if iend is None else iend,
            bnode,
            bstart,
            bend,
            node_attributes(env),
        )

    @classmethod
    def build(
        cls,
        node_ids: tuple[str, ...],
        perf: FloatArray,
        price: FloatArray,
        istart: float,
        iend: float,
        busy_node: IntArray,
        busy_start: FloatArray,
        busy_end: FloatArray,
        attrs: Mapping[str, FloatArray] | None = None,
    ) -> SlotTable:
        """Gaps between the busy intervals of each node, clipped to [istart, iend]."""
        n_nodes = len(node_ids)
        # Clip the busy intervals to the interval and drop what falls outside.
        bn, bs, be = _clipped(busy_node, busy_start, busy_end, istart, iend)
        if bn.size >= BY_KEYS_FROM and kernels.node_gaps.ready:  # (never compiled here: the warm-up does)
            gn, gs, ge = _node_gaps(bn, bs, be, n_nodes, istart, iend)
            by_start = np.argsort(gs, kind="stable")  # node after node: ties by node, as ``by_keys``
        else:
            # Sentinels: every node is "busy" before istart and after iend.
            nodes = np.arange(n_nodes, dtype=np.int64)
            all_n = np.concatenate([bn, nodes, nodes])
            all_s = np.concatenate([bs, np.full(n_nodes, -math.inf), np.full(n_nodes, iend)])
            all_e = np.concatenate([be, np.full(n_nodes, istart), np.full(n_nodes, math.inf)])
            order = by_keys(all_n, all_s)
            all_n, all_s, all_e = all_n[order], all_s[order], all_e[order]
            # A gap lies between consecutive busy intervals of the same node.
            same = all_n[:-1] == all_n[1:]
            gs = all_e[:-1]
            ge = all_s[1:]
            ok = same & (ge - gs > EPS)
            gn, gs, ge = all_n[:-1][ok], gs[ok], ge[ok]
            by_start = by_keys(gs, gn)
        return cls(
            node_ids=node_ids,
            perf=perf,
            price=price,
            istart=float(istart),
            iend=float(iend),
            node=gn[by_start],
            start=gs[by_start],
            end=ge[by_start],
            busy_node=bn,
            busy_start=bs,
            busy_end=be,
            attrs=attrs or {},
        )

    @cached_property
    def busy_by_node(self) -> tuple[IntArray, IntArray]:
        """The busy intervals node by node: their positions, each node's in the table's order, and
        where each node's begin (node x's are ``order[first[x]:first[x + 1]]``). Made once per
        table (a result's: 6 million intervals, a radix sort of their nodes) and kept with it, so
        that a tooltip's distances read only the window's nodes (``distances_around``)."""
        key = self.busy_node.astype(np.int16 if len(self.node_ids) < 32_768 else np.int64)
        order = np.argsort(key, kind="stable")
        first = np.searchsorted(self.busy_node[order], np.arange(len(self.node_ids) + 1), "left")
        return order, first

    def reserve(self, windows: Iterable[Window]) -> SlotTable:
        """A new table with the windows' intervals taken out as well.

        Each window part splits the one slot that holds it into what is left on
        either side; only when that does not apply (a part outside any single slot,
        or two parts in one slot) is the table rebuilt from the busy intervals.
        """
        index = self.index
        pieces = [
            (index[node_id], max(w.start, self.istart), min(end, self.iend))
            for w in windows
            for node_id, end in w.part_ends()
        ]
        pieces = [p for p in pieces if p[2] - p[1] > EPS]
        if not pieces:
            return self
        add_n = np.array([p[0] for p in pieces], dtype=np.int64)
        add_s = np.array([p[1] for p in pieces], dtype=np.float64)
        add_e = np.array([p[2] for p in pieces], dtype=np.float64)
        return self._reserve(add_n, add_s, add_e)

    def reserve_parts(self, node: IntArray, start: FloatArray, end: FloatArray) -> SlotTable:
        """``reserve`` of window parts given as columns (node position, start, end): a compiled run's
        windows (``Schedule.arrays``) are taken out without a Python step per part."""
        node, start, end = _clipped(np.asarray(node, dtype=np.int64), start, end, self.istart, self.iend)
        if not node.size:
            return self
        return self._reserve(node, start, end)

    def _reserve(self, add_n: IntArray, add_s: FloatArray, add_e: FloatArray) -> SlotTable:
        """``reserve`` of parts already clipped to the interval, none empty."""
        busy_node = np.concatenate([self.busy_node, add_n])
        busy_start = np.concatenate([self.busy_start, add_s])
        busy_end = np.concatenate([self.busy_end, add_e])
        # Splitting is the quick way for a few windows; many at once are cheaper to rebuild.
        split = self._split(add_n, add_s, add_e) if add_n.size <= SPLIT_LIMIT else None
        if split is None:
            return self._rebuilt(busy_node, busy_start, busy_end)
        node, start, end = split
        return SlotTable(
            self.node_ids,
            self.perf,
            self.price,
            self.istart,
            self.iend,
            node,
            start,
            end,
            busy_node,
            busy_start,
            busy_end,
            self.attrs,
        )

    def _split(
        self, add_n: IntArray, add_s: FloatArray, add_e: FloatArray
    ) -> tuple[IntArray, FloatArray, FloatArray] | None:
        holds = (
            (self.node[None, :] == add_n[:, None])
            & (self.start[None, :] <= add_s[:, None] + EPS)
            & (self.end[None, :] >= add_e[:, None] - EPS)
        )
        if not (holds.sum(axis=1) == 1).all():
            return None
        holder = np.argmax(holds, axis=1)
        if holder.size > 1 and (np.diff(np.sort(holder)) == 0).any():
            return None
        keep = np.ones(self.size, dtype=bool)
        keep[holder] = False
        left_s, left_e = self.start[holder], add_s
        right_s, right_e = add_e, self.end[holder]
        node = np.concatenate([self.node[keep], add_n, add_n])
        start = np.concatenate([self.start[keep], left_s, right_s])
        end = np.concatenate([self.end[keep], left_e, right_e])
        ok = end - start > EPS
        node, start, end = node[ok], start[ok], end[ok]
        order = np.lexsort((node, start))
        return node[order], start[order], end[order]

    def release(self, windows: Iterable[Window]) -> SlotTable:
        """A new table with the windows' own busy intervals given back (exact matches only)."""
        index = self.index
        keep = np.ones(self.busy_node.size, dtype=bool)
        for w in windows:
            for node_id in w.nodes:
                hit = np.nonzero(
                    keep
                    & (self.busy_node == index[node_id])
                    & (np.abs(self.busy_start - max(w.start, self.istart)) <= EPS)
                    & (np.abs(self.busy_end - min(w.end, self.iend)) <= EPS)
                )[0]
                if hit.size:
                    keep[hit[0]] = False
        return self._rebuilt(self.busy_node[keep], self.busy_start[keep], self.busy_end[keep])

    def _rebuilt(self, busy_node: IntArray, busy_start: FloatArray, busy_end: FloatArray) -> SlotTable:
        """The same nodes and interval with other busy intervals."""
        return SlotTable.build(
            self.node_ids, self.perf, self.price, self.istart, self.iend, busy_node, busy_start, busy_end, self.attrs
        )

    def with_interval(self, istart: float, iend: float) -> SlotTable:
        """The same busy intervals seen through another interval (e.g. one cycle)."""
        return SlotTable.build(
            self.node_ids,
            self.perf,
            self.price,
            istart,
            iend,
            self.busy_node,
            self.busy_start,
            self.busy_end,
            self.attrs,
        )

    def slot_bounds(
        self, node_positions: IntArray, t: float, length: float | tuple[float, ...]
    ) -> tuple[FloatArray, FloatArray]:
        """(start, end) of the slot of each given node that holds [t, t+length] (``length``: one for
        all, or one per node, for a window with a rough right edge).

        Raises ``ValueError`` when a node has no such slot (the window is not free).
        """
        starts = np.empty(len(node_positions))
        ends = np.empty(len(node_positions))
        lengths = np.broadcast_to(np.asarray(length, dtype=np.float64), (len(node_positions),))
        for k, pos in enumerate(node_positions):
            end = t + float(lengths[k])
            mask = (self.node == pos) & (self.start <= t + EPS) & (self.end >= end - EPS)
            hit = np.flatnonzero(mask)
            if hit.size != 1:
                raise ValueError(f"node {self.node_ids[pos]} is not free over [{t}, {end}]")
            starts[k] = self.start[hit[0]]
            ends[k] = self.end[hit[0]]
        return starts, ends


Distances = tuple[tuple[float, ...], tuple[float, ...]]  # L_left and L_right per part


def window_distances(table: SlotTable, window: Window) -> Distances:
    """L_left and L_right of each part of ``window`` (in the order of ``window.nodes``) on ``table``:
    the distances to the neighbours of the slot holding it (0 behind an open-ended slot)."""
    index = table.index
    pos = np.array([index[node_id] for node_id in window.nodes], dtype=np.int64)
    lengths = window.part_lengths  # each part's own length (they differ on a rough right edge)
    sstart, send = table.slot_bounds(pos, window.start, lengths)
    left = window.start - sstart
    right = np.where(np.isinf(send), 0.0, send - (window.start + np.asarray(lengths)))
    return tuple(float(v) for v in left), tuple(float(v) for v in right)


def distances_around(table: SlotTable, window: Window) -> Distances:
    """``window_distances`` of a window among the other busy intervals of ``table``, which holds it
    as busy too (a result's free slots, every window in them), without a table of all the others
    made again: on each of its nodes, ``build``'s gaps between the other busy intervals, and the one
    that holds the part. One pass over the busy intervals (6 million at 200,000 windows: tens of
    milliseconds, against seconds).

    Raises ``ValueError``, as ``window_distances`` does, when another interval overlaps a part (a
    window that started after another's early end overlaps that one's reserved tail)."""
    index = table.index
    pos = np.array([index[node_id] for node_id in window.nodes], dtype=np.int64)
    t = window.start
    ends = t + np.asarray(window.part_lengths, dtype=np.float64)
    # Each part reads its own node's intervals, from the table's index by node (made once per table).
    order, first = table.busy_by_node
    near = np.concatenate([order[first[x] : first[x + 1]] for x in pos.tolist()])
    start, end = table.busy_start[near], table.busy_end[near]
    counts = first[pos + 1] - first[pos]
    hi = np.cumsum(counts)
    lo = hi - counts
    left = np.empty(pos.size)
    right = np.empty(pos.size)
    for k in range(pos.size):
        s, e = start[lo[k] : hi[k]], end[lo[k] : hi[k]]
        own = np.flatnonzero((s == max(t, table.istart)) & (e == min(ends[k], table.iend)))
        if own.size:
            s, e = np.delete(s, own[0]), np.delete(e, own[0])
        # ``build``'s gaps on this node, its sentinels before istart and from iend included, and
        # ``slot_bounds``'s one slot that holds the part.
        s = np.concatenate([s, [-math.inf, table.iend]])
        e = np.concatenate([e, [table.istart, math.inf]])
        order = np.argsort(s, kind="stable")
        gs, ge = e[order][:-1], s[order][1:]
        hit = np.flatnonzero((ge - gs > EPS) & (gs <= t + EPS) & (ge >= ends[k] - EPS))
        if hit.size != 1:
            raise ValueError(f"node {table.node_ids[pos[k]]} is not free over [{t}, {ends[k]}]")
        left[k] = t - gs[hit[0]]
        right[k] = 0.0 if math.isinf(ge[hit[0]]) else ge[hit[0]] - ends[k]
    return tuple(float(v) for v in left), tuple(float(v) for v in right)


def node_attributes(env: Environment) -> dict[str, FloatArray]:
    """Every attribute name used by any node, as an (N,) array (0 where a node lacks it)."""
    keys: dict[str, None] = {}
    for node in env.nodes:
        for key, _ in node.attributes:
            keys[key] = None
    return {key: np.array([node.attribute(key) for node in env.nodes], dtype=np.float64) for key in keys}


def window_lengths(volume: float, levels: np.ndarray | float, factor: float = 1.0, quantum: float = 0.0) -> np.ndarray:
    """docs/design.md "Window length": V / P times the length factor for each level P; with a time
    quantum, rounded up to whole quanta (the papers' simulators count time in whole units)."""
    T = np.asarray(volume / levels * factor)
    if quantum > 0:
        T = np.ceil(T / quantum - 1e-9) * quantum
    return T
