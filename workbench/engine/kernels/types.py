"""The kernels' structured arguments: named tuples of arrays that Python builds and the compiled code
reads by name, and the one numba type each of them has (``ARGS``), which ``boundary.Entry`` declares.

Every array is C-contiguous and writable, float64, int64 or bool: one signature per kernel. Python
makes them so where they are made (``Profile``, ``node_facts``, the flows), and the boundary checks
the first call of each kernel against the declared signature.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

F8, I8, B1 = types.float64, types.int64, types.boolean


def array(dtype: types.Type, ndim: int = 1) -> types.Array:
    """The type of a C-contiguous writable array of ``dtype``."""
    return types.Array(dtype, ndim, "C")


F1, I1, BOOL1, F2, I2 = array(F8), array(I8), array(B1), array(F8, 2), array(I8, 2)
H1 = array(types.int16)  # the chart's pixel cells: a rectangle group's code each


class Rows(NamedTuple):
    """A profile's busy intervals (``Profile``): per node a row of starts and ends sorted by start,
    padded with inf, each interval's owner (-1: never moves), how many a row holds, and the span."""

    bs: np.ndarray  # float64 (nodes, width)
    be: np.ndarray  # float64 (nodes, width)
    owner: np.ndarray  # int64 (nodes, width)
    size: np.ndarray  # int64 (nodes,): how many intervals each row holds
    istart: float
    iend: float


class Nodes(NamedTuple):
    """The nodes by position: performance, price, and each one's place in (price, position) order."""

    perf: np.ndarray  # float64
    price: np.ndarray  # float64
    rank: np.ndarray  # int64


class Shape(NamedTuple):
    """One job's search: the nodes it may use, its performance levels (highest first) and their window
    lengths, its node count, its budget in cost units (-1: none) and the cost resolution."""

    cols: np.ndarray  # int64
    levels: np.ndarray  # float64
    lengths: np.ndarray  # float64
    n: int
    budget: int
    resolution: float


class Scratch(NamedTuple):
    """Room for the gaps a search reads (one entry per row entry and row): node, start clipped to the
    search's earliest, end, start."""

    node: np.ndarray  # int64
    start: np.ndarray  # float64
    end: np.ndarray  # float64
    raw: np.ndarray  # float64


class Lists(NamedTuple):
    """The compiled pass's gap lists: per row the gaps at least ``theta`` long (``size`` -1: not listed
    yet), and from how many busy intervals per row on average a pass reads them (``list_from``)."""

    starts: np.ndarray  # float64 (nodes, width + 1)
    ends: np.ndarray  # float64 (nodes, width + 1)
    size: np.ndarray  # int64 (nodes,): how many gaps each row's list holds
    theta: float
    list_from: float


class Found(NamedTuple):
    """A search's answer: the level index (-1: none), the start, the nodes chosen."""

    level: int
    start: float
    nodes: np.ndarray  # int64


class Placed(NamedTuple):
    """PAST's or CoP's answer: ``Found``'s, the nodes sorted, and the window's value."""

    level: int
    start: float
    nodes: np.ndarray  # int64
    value: float


class Queue(NamedTuple):
    """Dynamic backfilling's jobs, by index: the jobs in queue order, which still wait (active) and hold
    a certificate (verified), arrival, volume, least performance, the n-th fastest speed a window can
    have (``top``), reservation start, and where an unverified job may have an earlier window."""

    live: np.ndarray  # int64
    active: np.ndarray  # bool
    verified: np.ndarray  # bool
    arrival: np.ndarray  # float64
    volume: np.ndarray  # float64
    min_perf: np.ndarray  # float64
    top: np.ndarray  # float64
    start: np.ndarray  # float64
    lower: np.ndarray  # float64
    upper: np.ndarray  # float64


class Freed(NamedTuple):
    """Gaps a move or an early end gave back: node, start, end."""

    node: np.ndarray  # int64
    start: np.ndarray  # float64
    end: np.ndarray  # float64


class JobShapes(NamedTuple):
    """Every job's ``Shape`` for the compiled pass, flat: node count, budget units, its columns, levels
    and lengths (offsets and counts into shared arrays), its window now (nodes, part length) and its
    shortest window."""

    n: np.ndarray  # int64
    budget: np.ndarray  # int64
    col_off: np.ndarray  # int64
    col_cnt: np.ndarray  # int64
    cols: np.ndarray  # int64
    lvl_off: np.ndarray  # int64
    lvl_cnt: np.ndarray  # int64
    levels: np.ndarray  # float64
    len_off: np.ndarray  # int64
    lengths: np.ndarray  # float64
    node_off: np.ndarray  # int64
    nodes: np.ndarray  # int64
    length: np.ndarray  # float64
    shortest: np.ndarray  # float64


class Moves(NamedTuple):
    """The moves a pass made, in order: job, level index, start, nodes, and (when explaining) each
    part's L_left and L_right."""

    job: np.ndarray  # int64
    level: np.ndarray  # int64
    start: np.ndarray  # float64
    nodes: np.ndarray  # int64
    left: np.ndarray  # float64
    right: np.ndarray  # float64


class PassEnd(NamedTuple):
    """Where a pass stopped (``replan.PASS_*``), what it wrote and counted, and the job it stopped at
    with FirstFit's window for it."""

    kind: int
    written: int
    checks: int
    cleared: int
    placed: int
    job: int
    level: int
    start: float
    nodes: np.ndarray  # int64


class EasyJobs(NamedTuple):
    """EASY's jobs: width, window length, actual share of it, offset of its hosts in ``EasyRun.hosts``."""

    width: np.ndarray  # int64
    length: np.ndarray  # float64
    share: np.ndarray  # float64
    offset: np.ndarray  # int64


class EasyRun(NamedTuple):
    """An EASY run's results and state between calls: starts, actual ends, hosts, which nodes are free
    and until when each busy one is held, the completions heap, the queue and the counters (``easy``'s
    NXT, HEAP, QLEN, SEQ, NFREE, EVENTS)."""

    start: np.ndarray  # float64
    actual_end: np.ndarray  # float64
    hosts: np.ndarray  # int64
    free: np.ndarray  # bool
    until: np.ndarray  # float64
    heap_time: np.ndarray  # float64
    heap_seq: np.ndarray  # int64
    heap_job: np.ndarray  # int64
    queue: np.ndarray  # int64
    state: np.ndarray  # int64


class EasyArrivals(NamedTuple):
    """The jobs that can run by (arrival, priority, position), and every job's arrival and queue keys."""

    order: np.ndarray  # int64
    arrival: np.ndarray  # float64
    priority: np.ndarray  # float64
    key_arrival: np.ndarray  # float64


class EasyNodes(NamedTuple):
    """EASY on mixed nodes: the columns (nodes in (price, position) order) with their performance,
    price and position, each position's rank, every job's levels and lengths and eligible positions
    (offsets and counts per job), its budget units."""

    perf: np.ndarray  # float64 by column
    price: np.ndarray  # float64 by column
    position: np.ndarray  # int64
    rank: np.ndarray  # int64 by position
    levels: np.ndarray  # float64
    lengths: np.ndarray  # float64
    eligible: np.ndarray  # int64
    lvl_off: np.ndarray  # int64
    lvl_cnt: np.ndarray  # int64
    budget: np.ndarray  # int64
    col_off: np.ndarray  # int64
    col_cnt: np.ndarray  # int64


# Each named tuple's field types, in order. An entry (``kernels/__init__``) takes a named tuple either
# as a plain tuple of these (``as_tuple``) or as its fields one by one (``spread``): see ``calls``.
ROWS = (F2, F2, I2, I1, F8, F8)
NODES = (F1, F1, I1)
SHAPE = (I1, F1, F1, I8, I8, F8)
SCRATCH = (I1, F1, F1, F1)
LISTS = (F2, F2, I1, F8, F8)
QUEUE = (I1, BOOL1, BOOL1, F1, F1, F1, F1, F1, F1, F1)
FREED = (I1, F1, F1)
JOB_SHAPES = (I1, I1, I1, I1, I1, I1, I1, F1, I1, F1, I1, I1, F1, F1)
MOVES = (I1, I1, F1, I1, F1, F1)
EASY_JOBS = (I1, F1, F1, I1)
EASY_RUN = (F1, F1, I1, BOOL1, F1, F1, I1, I1, I1, I1)
EASY_ARRIVALS = (I1, F1, F1, F1)
EASY_NODES = (F1, F1, I1, I1, F1, F1, I1, I1, I1, I1, I1, I1)


def as_tuple(name: str, cls: type, fields: tuple[types.Type, ...]) -> tuple[tuple[str, types.Type]]:
    """The parameter ``name``: a ``cls`` passed as a plain tuple of ``fields``."""
    assert len(fields) == len(cls._fields), cls  # type: ignore[attr-defined]
    return ((name, types.BaseTuple.from_types(fields)),)


def spread(name: str, cls: type, fields: tuple[types.Type, ...]) -> tuple[tuple[str, types.Type], ...]:
    """The parameters ``name.field``, one per field of a ``cls`` passed field by field."""
    assert len(fields) == len(cls._fields), cls  # type: ignore[attr-defined]
    return tuple((f"{name}.{field}", kind) for field, kind in zip(cls._fields, fields, strict=True))  # type: ignore[attr-defined]


def empty_lists() -> tuple[np.ndarray | float, ...]:
    """Gap lists of no rows, as a plain tuple: what a search outside the compiled pass passes (it
    reads the rows)."""
    return tuple(Lists(np.empty((0, 1)), np.empty((0, 1)), np.empty(0, np.int64), np.inf, np.inf))
