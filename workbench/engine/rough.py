"""Windows with a "rough right edge": the AEP strategies of seed 000 (§3, Fig. 3; §5).

In seed 000 each part of a window is reserved on its own node for as long as
that node needs, L_i = V / p_i. A window on nodes of different performance
then has a rough right edge. Its runtime is its longest part, its CPU time is
the sum of the parts, and its cost is Σ c_i·L_i. The square windows of
docs/design.md (every part V / P_min long) stay the default. This shape is the
``shape="rough"`` option of the AEP family: AMP, MinFinish, MinCost,
MinRunTime, MinProcTime and CSA.

The search is exact for each criterion. A candidate start t is the start of a
usable slot, or ``earliest``. A node can take part at t when one of its free
slots holds [t, t + L_i]. Among those nodes the search picks n within the
budget, in cost units as docs/design.md defines them:

* ``start`` (AMP): the n cheapest. The earliest t where they fit wins. With
  ``pick="first"``, the n found first instead: the nodes whose free slot began
  earliest (the paper's scan meets slots in start order), ties by position.
* ``cost`` (MinCost): the n cheapest. The cheapest such set over all t wins.
* ``runtime`` and ``finish`` (MinRunTime, MinFinish): the smallest longest part
  L* at t. The nodes are sorted by L_i, and a binary search finds the shortest
  prefix whose n cheapest members fit. That is vectorised over every t at
  once. Then the n cheapest with L_i <= L* are taken.
* ``proc_time`` (MinProcTime): the least Σ L_i, a knapsack with a count
  constraint (``search.knapsack_count``). It runs only on distinct sets of
  available nodes, best bound first. The paper's own MinProcTime is a
  simplified heuristic ("a random window is selected"); this one is exact.

Ties go to the earlier t, then the lower cost, then the lower node positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.engine.criteria import StartTime
from workbench.engine.errors import Cancelled, ParameterError
from workbench.engine.model import EPS, Job, Window
from workbench.engine.search import Found, SearchSpec, budget_units, cost_units, knapsack_count
from workbench.engine.selectors import BestOfAlternatives, SearchSelector, Selector, StopFn
from workbench.engine.slots import SlotTable

ROUGH_CRITERIA = ("start", "finish", "runtime", "cost", "proc_time")
SHAPES = ("square", "rough")


@dataclass(frozen=True)
class _Candidates:
    """Every candidate start ``tau`` (K,) and which nodes can take part there ``avail`` (K, N)."""

    tau: np.ndarray
    avail: np.ndarray
    length: np.ndarray  # (N,) L_i = V / p_i (inf for a node below the job's performance)
    units: np.ndarray  # (N,) cost units of c_i * L_i
    cost: np.ndarray  # (N,) c_i * L_i
    budget: int | None
    since: np.ndarray  # (K, N) when the free slot holding each available node began (inf: not available)


def candidates(table: SlotTable, job: Job, earliest: float, resolution: float = 1.0) -> _Candidates:
    """Where a rough window of ``job`` can start, and on which nodes."""
    perf = table.perf
    eligible = perf >= job.min_performance - EPS
    own = job.volume / np.maximum(perf, EPS)  # each node's part length
    length = np.where(eligible, own, np.inf)
    cost = np.where(eligible, table.price * own, np.inf)
    units = np.where(eligible, cost_units(table.price, own, resolution), 0)
    lo = np.maximum(table.start, earliest)
    need = length[table.node]
    usable = (lo + need <= table.end + EPS) & eligible[table.node]
    node, start, end = table.node[usable], table.start[usable], table.end[usable]
    tau = np.unique(lo[usable])
    n_nodes = perf.size
    if tau.size == 0:
        empty = np.zeros((0, n_nodes))
        return _Candidates(tau, empty.astype(bool), length, units, cost, None, empty)
    covers = (start[None, :] <= tau[:, None] + EPS) & (end[None, :] >= tau[:, None] + length[node][None, :] - EPS)
    order = np.argsort(node, kind="stable")
    grouped = node[order]
    firsts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    # When the free slot holding each node at t began; a node's slots are disjoint, so at most
    # one holds it, and it is available exactly where there is one.
    since = np.full((tau.size, n_nodes), np.inf)
    held = np.where(covers, start[None, :], np.inf)[:, order]
    since[:, grouped[firsts]] = np.minimum.reduceat(held, firsts, axis=1)
    avail = since < np.inf
    return _Candidates(tau, avail, length, units, cost, budget_units(job.budget, resolution), since)


def _cheapest(avail: np.ndarray, rank_order: np.ndarray, units: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row: is there an n-subset, and the units of the n cheapest available nodes."""
    ordered = avail[:, rank_order]
    taken = ordered & (np.cumsum(ordered, axis=1) <= n)
    total = (taken * units[rank_order][None, :]).sum(axis=1)
    return ordered.sum(axis=1) >= n, total


def _fits(total: np.ndarray, budget: int | None) -> np.ndarray:
    return np.ones(total.shape, dtype=bool) if budget is None else total <= budget


def _n_cheapest(mask: np.ndarray, units: np.ndarray, n: int) -> np.ndarray:
    """Positions of the n cheapest nodes in ``mask`` (ties: lower position)."""
    pos = np.flatnonzero(mask)
    return np.sort(pos[np.lexsort((pos, units[pos]))[:n]])


def search_rough(
    table: SlotTable,
    job: Job,
    criterion: str,
    earliest: float,
    resolution: float = 1.0,
    should_stop: StopFn = None,
    pick: str = "cheapest",
) -> Found | None:
    """The best rough-edged window of ``job`` by ``criterion`` (one of ``ROUGH_CRITERIA``); ``pick``
    ("cheapest" or "first") is AMP's choice of nodes at a start."""
    if criterion not in ROUGH_CRITERIA:
        raise ParameterError("criterion", f"a rough window takes one of {', '.join(ROUGH_CRITERIA)}, got {criterion!r}")
    if should_stop is not None and should_stop():
        raise Cancelled("window search cancelled")
    c = candidates(table, job, earliest, resolution)
    n = job.node_count
    if c.tau.size == 0:
        return None
    positions = np.arange(table.perf.size)
    if criterion == "start" and pick == "first":
        return _first_found(table, job, c, positions)
    by_cost = np.lexsort((positions, c.units))
    enough, total = _cheapest(c.avail, by_cost, c.units, n)
    ok = enough & _fits(total, c.budget)
    if not ok.any():
        return None
    if criterion in ("start", "cost"):
        if criterion == "start":
            row = int(np.argmax(ok))
        else:
            money = np.where(ok, total, np.iinfo(np.int64).max)
            row = int(np.argmax(money == money.min()))
        chosen = _n_cheapest(c.avail[row], c.units, n)
        value = -c.tau[row] if criterion == "start" else -float(c.cost[chosen].sum())
        return _found(table, job, c, row, chosen, value)
    if criterion in ("runtime", "finish"):
        longest = _shortest_longest_part(c, by_cost, ok, n)
        score = longest + (c.tau if criterion == "finish" else 0.0)
        score = np.where(ok, score, np.inf)
        row = int(np.argmax(score <= score.min() + EPS))
        chosen = _n_cheapest(c.avail[row] & (c.length <= longest[row] + EPS), c.units, n)
        return _found(table, job, c, row, chosen, -float(score[row]))
    return _min_proc_time(table, job, c, ok, resolution, should_stop)


def _first_found(table: SlotTable, job: Job, c: _Candidates, positions: np.ndarray) -> Found | None:
    """AMP as the paper's scan meets slots: at each start the n nodes whose free slot began
    earliest (ties: lower position); the earliest start where they fit the budget wins."""
    n = job.node_count
    first = np.lexsort((np.broadcast_to(positions, c.since.shape), c.since), axis=1)[:, :n]
    ok = (c.avail.sum(axis=1) >= n) & _fits(c.units[first].sum(axis=1), c.budget)
    if not ok.any():
        return None
    row = int(np.argmax(ok))
    return _found(table, job, c, row, np.sort(first[row]), -float(c.tau[row]))


def _shortest_longest_part(c: _Candidates, by_cost: np.ndarray, ok: np.ndarray, n: int) -> np.ndarray:
    """Per candidate start: the smallest L* such that n nodes with L_i <= L* fit the budget."""
    by_length = np.lexsort((np.arange(c.length.size), c.length))
    rank = np.empty(c.length.size, dtype=np.int64)
    rank[by_length] = np.arange(c.length.size)
    k = c.tau.size
    lo = np.full(k, n - 1)  # a prefix of fewer than n nodes never fits
    hi = np.full(k, c.length.size - 1)  # the whole list fits wherever ``ok``
    while True:
        active = ok & (lo < hi)
        if not active.any():
            break
        mid = (lo + hi) // 2
        within = c.avail & (rank[None, :] <= mid[:, None])
        enough, total = _cheapest(within, by_cost, c.units, n)
        fits = enough & _fits(total, c.budget)
        hi = np.where(active & fits, mid, hi)
        lo = np.where(active & ~fits, mid + 1, lo)
    return np.where(ok, c.length[by_length][hi], np.inf)


def _min_proc_time(
    table: SlotTable, job: Job, c: _Candidates, ok: np.ndarray, resolution: float, should_stop: StopFn
) -> Found | None:
    n = job.node_count
    rows = np.flatnonzero(ok)
    # Equal sets of available nodes give equal answers: keep the earliest start of each.
    _, first = np.unique(np.packbits(c.avail[rows], axis=1), axis=0, return_index=True)
    rows = np.sort(rows[first])
    lengths = np.where(np.isfinite(c.length), c.length, 0.0)
    # The n shortest available parts, budget aside: no choice at that start can do better.
    bound = np.array([-np.sort(lengths[c.avail[r]])[:n].sum() for r in rows])
    order = np.argsort(-bound, kind="stable")
    best: tuple[float, int, np.ndarray] | None = None
    for r, b in zip(rows[order], bound[order], strict=True):
        if best is not None and b < best[0] - EPS:
            break
        if should_stop is not None and should_stop():
            raise Cancelled("window search cancelled")
        pos = np.flatnonzero(c.avail[r])
        if c.budget is None:  # no budget: simply the n shortest parts
            pick: np.ndarray | None = np.sort(np.lexsort((pos, lengths[pos]))[:n])
        else:
            pick = knapsack_count(-lengths[pos], c.units[pos], n, c.budget, pos, resolution=resolution)
        if pick is None:
            continue
        value = -float(lengths[pos[pick]].sum())
        if best is None or value > best[0] + EPS or (abs(value - best[0]) <= EPS and r < best[1]):
            best = (value, int(r), pos[pick])
    if best is None:
        return None
    return _found(table, job, c, best[1], best[2], best[0])


def _found(table: SlotTable, job: Job, c: _Candidates, row: int, chosen: np.ndarray, value: float) -> Found:
    lengths = tuple(float(x) for x in c.length[chosen])
    window = Window(
        job=job.id,
        start=float(c.tau[row]),
        length=max(lengths),
        nodes=tuple(table.node_ids[int(i)] for i in chosen),
        cost=float(c.cost[chosen].sum()),
        lengths=lengths,
    )
    return Found(window, value, table)


@dataclass
class RoughSelector(Selector):
    """An AEP strategy on rough-edged windows (seed 000 §5)."""

    name: str
    criterion: str
    resolution: float = 1.0
    pick: str = "cheapest"  # AMP: the cheapest n at a start, or the first found

    def select(self, table: SlotTable, job: Job, earliest: float, should_stop: StopFn = None) -> Found | None:
        return search_rough(table, job, self.criterion, earliest, self.resolution, should_stop, self.pick)

    @property
    def picks_earliest(self) -> bool:
        return self.criterion == "start"


def rough_value(window: Window, criterion: str, volume: float, table: SlotTable) -> float:
    """A window's value under an AEP criterion (higher is better), for choosing among alternatives."""
    if criterion == "start":
        return -window.start
    if criterion == "finish":
        return -window.end
    if criterion == "runtime":
        return -window.length
    if criterion == "cost":
        return -window.cost
    if criterion == "proc_time":
        if window.lengths:
            return -window.cpu_time
        pos = np.array([table.index[node] for node in window.nodes], dtype=np.int64)
        return -float((volume / table.perf[pos]).sum())  # the parts' own run times, as ProcTime
    raise ParameterError("by", f"expected one of {', '.join(ROUGH_CRITERIA)}, got {criterion!r}")


@dataclass
class CommonStatsAMP(BestOfAlternatives):
    """CSA (seed 000 §5, strategy 6): disjoint AMP alternatives, then the extreme one by ``by``."""

    name: str
    by: str
    shape: str = "square"
    max_alternatives: int = 50
    resolution: float = 1.0
    finder_name = "AMP"

    def finder(self) -> Selector:
        if self.shape == "rough":
            return RoughSelector("AMP", "start", self.resolution)
        return SearchSelector("AMP", SearchSpec(StartTime(), False, 1.0, self.resolution))

    def value(self, table: SlotTable, window: Window, job: Job) -> float:
        return rough_value(window, self.by, job.volume, table)

    @property
    def rule(self) -> str:
        return self.by

    @property
    def picks_earliest(self) -> bool:
        return self.by == "start"
