"""What a search needs of the nodes alone: their performance levels, their (price, position)
column order, and per level the nodes that may serve it. It depends on no slot, so the many
searches of one flow (one profile, the same node arrays) share it (``node_facts``).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from workbench.engine.model import EPS
from workbench.engine.profile import Profile
from workbench.engine.slots import SlotTable, window_lengths


class _NodeFacts:
    """What a search needs of the nodes alone, for one minimum performance: it depends on no
    slot, so the many searches of one flow (one profile, the same arrays) share it."""

    def __init__(self, perf: np.ndarray, price: np.ndarray, attrs: Mapping[str, np.ndarray], min_perf: float):
        self.eligible = eligible = perf >= min_perf - EPS
        self.count = int(eligible.sum())
        self.levels = levels = np.ascontiguousarray(sorted_unique(perf[eligible])[::-1])  # P, highest first
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
        # Shared by many searches: read-only, so a write by mistake fails at once. The arrays the
        # compiled kernels read (levels, col_of, columns, lengths) stay writable: the kernels take
        # one writability, and the compiled pass passes them slices of its own writable arrays.
        shared = (self.eligible, self.porder, self.lvl_node, self.lvl_col)
        for array in (*shared, self.perf_c, self.price_c, self.min_price_at_level, *self.attrs_c.values()):
            array.setflags(write=False)

    @functools.cached_property
    def columns(self) -> np.ndarray:
        """The positions of the eligible nodes (``kernels.earliest_in_rows`` reads their rows)."""
        return np.flatnonzero(self.eligible)

    def lengths(self, volume: float, factor: float, quantum: float) -> np.ndarray:
        """``window_lengths`` at these levels, kept per job shape (a flow has few of them)."""
        key = (volume, factor, quantum)
        hit = self._lengths.get(key)
        if hit is None:
            if len(self._lengths) > 100_000:
                self._lengths.clear()
            hit = self._lengths[key] = window_lengths(volume, self.levels, factor, quantum)
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


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """np.unique for small float arrays (numpy's own is several times slower here)."""
    s = np.sort(values)
    if s.size == 0:
        return s
    return s[np.concatenate(([True], s[1:] != s[:-1]))]
