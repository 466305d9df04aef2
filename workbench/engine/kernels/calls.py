"""The kernels as Python calls them: each takes its structured arguments in the form numba dispatches
fastest and hands them on as the named tuples of ``types``.

numba's dispatcher types a named tuple in Python, about 0.8 µs each, a plain tuple of arrays in C
and a plain array argument fastest of all: with four named tuples a call of ``earliest_in_rows`` cost
9 µs instead of 5, and dynamic backfilling on the first 10,000 KTH jobs, which makes some 50,000
calls, ran 25 % slower. So the entries called most (the row edits, the earliest window, the
certificate test: tens of thousands of calls a run) take each named tuple's fields one by one
(Python passes ``*profile.rows``), and the rest (a pass, PAST's and CoP's search, EASY: called
once a pass or a chunk) take plain tuples. Each names them again here, in compiled code, where
that costs nothing, and answers with plain tuples (``types.Found``, ``Placed`` and ``PassEnd``'s
fields), which numba makes faster than named ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from workbench.engine.kernels import certificates, earliest, easy, edits, members, placement, replan
from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.types import (
    EasyArrivals,
    EasyJobs,
    EasyNodes,
    EasyRun,
    Freed,
    JobShapes,
    Lists,
    Moves,
    Nodes,
    Queue,
    Rows,
    Scratch,
    Shape,
)

Tuple = tuple[Any, ...]


@compiled
def insert_rows(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    size: np.ndarray,
    istart: float,
    iend: float,
    xs: np.ndarray,
    start: float,
    ends: np.ndarray,
    who: int,
) -> None:
    edits.insert_rows(Rows(bs, be, owner, size, istart, iend), xs, start, ends, who)


@compiled
def delete_rows(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    size: np.ndarray,
    istart: float,
    iend: float,
    xs: np.ndarray,
    start: float,
    ends: np.ndarray,
) -> int:
    return edits.delete_rows(Rows(bs, be, owner, size, istart, iend), xs, start, ends)


@compiled
def earliest_in_rows(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    size: np.ndarray,
    istart: float,
    iend: float,
    perf: np.ndarray,
    price: np.ndarray,
    rank: np.ndarray,
    cols: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray,
    n: int,
    budget: int,
    resolution: float,
    earliest_: float,
    before: float,
    without: int,
    node: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    raw: np.ndarray,
    finish: bool,
) -> Tuple:
    found = earliest.earliest_in_rows(
        Rows(bs, be, owner, size, istart, iend),
        Nodes(perf, price, rank),
        Shape(cols, levels, lengths, n, budget, resolution),
        earliest_,
        before,
        without,
        Scratch(node, start, end, raw),
        finish,
    )
    return found.level, found.start, found.nodes  # (a plain tuple: a named one costs Python more to make)


@compiled
def fastest_level(perf: np.ndarray, cols: np.ndarray, levels: np.ndarray, n: int) -> int:
    return earliest.fastest_level(perf, cols, levels, n)


@compiled
def placement_in_rows(
    rows: Tuple,
    nodes: Tuple,
    shape: Tuple,
    kind: int,
    consts: np.ndarray,
    earliest_: float,
    first: float,
    without: int,
    gaps: Tuple,
    lists: Tuple,
    listed: bool,
    own: np.ndarray,
    at: float,
) -> Tuple:
    found = placement.placement_in_rows(
        Rows(*rows), Nodes(*nodes), Shape(*shape), kind, consts, earliest_, first, without, Scratch(*gaps),
        Lists(*lists), listed, own, at,
    )  # fmt: skip
    return found.level, found.start, found.nodes, found.value


@compiled
def members_in_rows(
    rows: Tuple, nodes: Tuple, shape: Tuple, earliest_: float, without: int, gaps: Tuple
) -> Tuple:
    return members.members_in_rows(Rows(*rows), Nodes(*nodes), Shape(*shape), earliest_, without, Scratch(*gaps))


@compiled
def choose_members(
    count: int,
    ct: np.ndarray,
    ck: np.ndarray,
    off: np.ndarray,
    mx: np.ndarray,
    z: np.ndarray,
    nodes: Tuple,
    shape: Tuple,
) -> Tuple:
    found = members.choose_members(count, ct, ck, off, mx, z, Nodes(*nodes), Shape(*shape))
    return found.level, found.start, found.nodes, found.value


@compiled
def unverify(
    bs: np.ndarray,
    be: np.ndarray,
    owner: np.ndarray,
    size: np.ndarray,
    istart: float,
    iend: float,
    perf: np.ndarray,
    node: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    live: np.ndarray,
    active: np.ndarray,
    verified: np.ndarray,
    arrival: np.ndarray,
    volume: np.ndarray,
    min_perf: np.ndarray,
    top: np.ndarray,
    start_: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    factor: float,
    now: float,
    mover: int,
) -> int:
    return certificates.unverify(
        Rows(bs, be, owner, size, istart, iend),
        perf,
        Freed(node, start, end),
        Queue(live, active, verified, arrival, volume, min_perf, top, start_, lower, upper),
        factor,
        now,
        mover,
    )


@compiled
def replan_pass(
    rows: Tuple,
    nodes: Tuple,
    shapes: Tuple,
    queue: Tuple,
    moves: Tuple,
    gaps: Tuple,
    lists: Tuple,
    factor: float,
    resolution: float,
    now: float,
    cursor: int,
    move: np.ndarray,
    place: np.ndarray,
    consts: np.ndarray,
    explain: bool,
    stop_at: int,
) -> Tuple:
    end = replan.replan_pass(
        Rows(*rows), Nodes(*nodes), JobShapes(*shapes), Queue(*queue), Moves(*moves), Scratch(*gaps), Lists(*lists),
        factor, resolution, now, cursor, move, place, consts, explain, stop_at,
    )  # fmt: skip
    return end.kind, end.written, end.checks, end.cleared, end.placed, end.job, end.level, end.start, end.nodes


@compiled
def easy_hosts(arrivals: Tuple, jobs: Tuple, run: Tuple, max_events: int) -> bool:
    return easy.easy_hosts(EasyArrivals(*arrivals), EasyJobs(*jobs), EasyRun(*run), max_events)


@compiled
def easy_nodes(
    arrivals: Tuple,
    jobs: Tuple,
    run: Tuple,
    nodes: Tuple,
    t0: float,
    horizon: float,
    reserved_at: np.ndarray,
    max_events: int,
) -> bool:
    return easy.easy_nodes(
        EasyArrivals(*arrivals), EasyJobs(*jobs), EasyRun(*run), EasyNodes(*nodes), t0, horizon, reserved_at, max_events
    )
