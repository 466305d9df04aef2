"""Reading a profile's rows (``types.Rows``) as gaps: the free intervals of some rows in which a
window of a given length could start within a range, from the rows themselves or from the
compiled pass's gap lists (``types.Lists``), an owner's intervals given back."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.types import Lists, Rows, Scratch
from workbench.engine.model import EPS


@compiled
def row_gaps(
    rows: Rows,
    cols: np.ndarray,
    earliest: float,
    before: float,
    shortest: float,
    without: int,
    gaps: Scratch,
    m: int,
) -> int:
    """The gaps of ``cols``' rows as ``Profile.gaps(earliest, before, without)`` gives them, cut to
    those that could hold a window of length ``shortest`` starting in [earliest, before), written
    to ``gaps`` from ``m`` on; the new count. (One loop over the rows: a call per row, with its
    arrays, would cost more than reading most rows.)"""
    bs, be, owner, count, istart, iend = rows
    for c in cols:
        # Skip the intervals that start by ``earliest`` (the rows are sorted): the gaps before them
        # end too soon. A search restricted to a late range (``replan_pass``) reads only that range.
        lo = 0
        hi = count[c]
        while lo < hi:
            mid = (lo + hi) // 2
            if bs[c, mid] > earliest:
                hi = mid
            else:
                lo = mid + 1
        gs = istart
        for k in range(lo - 1, -1, -1):
            if without < 0 or owner[c, k] != without:
                gs = max(be[c, k], istart)
                break
        for k in range(lo, count[c] + 1):
            if k < count[c]:
                if without >= 0 and owner[c, k] == without:
                    continue  # given back: the gap before it runs on to the next interval
                ge = min(bs[c, k], iend)
            else:
                ge = iend
            if gs >= before:
                break  # every later gap starts later still
            if ge - gs > EPS and ge > earliest:  # (``gap_if_fits``, written out: measured faster)
                es = max(gs, earliest)
                if es < before and ge - es >= shortest - EPS:
                    gaps.node[m] = c
                    gaps.start[m] = es
                    gaps.end[m] = ge
                    gaps.raw[m] = gs
                    m += 1
            if k < count[c]:
                gs = max(be[c, k], istart)
    return m


@compiled
def gap_if_fits(
    gs: float, ge: float, c: int, earliest: float, before: float, shortest: float, gaps: Scratch, m: int
) -> int:
    """Write the gap [gs, ge) of row c at ``m`` if a window of length ``shortest`` starting in
    [earliest, before) fits in it; the new count."""
    if ge - gs > EPS and ge > earliest:
        es = max(gs, earliest)
        if es < before and ge - es >= shortest - EPS:
            gaps.node[m] = c
            gaps.start[m] = es
            gaps.end[m] = ge
            gaps.raw[m] = gs
            m += 1
    return m


@compiled
def list_gaps(rows: Rows, lists: Lists, x: int) -> None:
    """Row x's gaps [max(be[k-1], istart), min(bs[k], iend)) of length >= ``lists.theta`` - EPS, in
    order, into ``lists``' row x: what ``row_gaps`` reads of the row, no owner's intervals given
    back, for every search whose shortest window is ``theta`` or longer."""
    bs, be, _, count, istart, iend = rows
    m = 0
    gs = istart
    c = count[x]
    for k in range(c + 1):
        ge = min(bs[x, k], iend) if k < c else iend
        if ge - gs >= lists.theta - EPS:
            lists.starts[x, m] = gs
            lists.ends[x, m] = ge
            m += 1
        if k < c:
            gs = max(be[x, k], istart)
    lists.size[x] = m


@compiled
def _own_interval(rows: Rows, c: int, without: int, at: float, before: float) -> tuple[int, float, float]:
    """Where row c holds ``without``'s interval from ``at``, when that is not before ``before``: its
    position (-1: before ``before``, or not on this row after all) and the gap [a, b) it leaves
    given back, from the end of the interval before it to the start of the one after."""
    bs, be, owner, count, istart, iend = rows
    if at < before:
        return -1, 0.0, 0.0
    p = count_below(bs[c], count[c], at, False)  # the first interval from ``at``
    while p < count[c] and owner[c, p] != without:
        p += 1
    if p == count[c]:
        return -1, 0.0, 0.0
    a = max(be[c, p - 1], istart) if p > 0 else istart
    b = min(bs[c, p + 1], iend) if p + 1 < count[c] else iend
    return p, a, b


@compiled
def gaps_in_lists(
    rows: Rows,
    lists: Lists,
    listed: bool,
    own: np.ndarray,
    cols: np.ndarray,
    earliest: float,
    before: float,
    shortest: float,
    without: int,
    at: float,
    gaps: Scratch,
) -> int:
    """``row_gaps``, read from the rows' gap lists when ``listed`` (``list_gaps``, of a threshold no
    longer than ``shortest``; else from the rows themselves); on the rows ``own`` that ``without``'s
    window holds from ``at`` its interval is given back (``_own_interval``). A row whose list count
    is -1 is listed first."""
    if not listed:
        return row_gaps(rows, cols, earliest, before, shortest, without, gaps, 0)
    gls, gle, gcount = lists.starts, lists.ends, lists.size
    gnode, gstart, gend, graw = gaps.node, gaps.start, gaps.end, gaps.raw
    size = 0
    for c in cols:
        if gcount[c] < 0:
            list_gaps(rows, lists, c)
        mine = False
        for x in own:
            mine |= x == c
        # On a row of ``without``'s window, the listed gaps before the gap that ends at its interval,
        # then that gap run on past the interval to the next one (given back); read as it is when
        # the interval is before ``before``.
        until = math.inf
        a = b = 0.0
        if mine:
            p, a, b = _own_interval(rows, c, without, at, before)
            if p < 0:
                size = row_gaps(rows, np.array([c]), earliest, before, shortest, without, gaps, size)
                continue
            until = a
        # The listed gaps, written out here: a call per row, with its arrays, costs more than most
        # rows' reading (backfill32, 1,500 jobs: 15.2 -> 13.7 s). A gap's end bounds its start, so the
        # first that ends after ``earliest`` is found by binary search.
        lo = 0
        hi = 0 if gcount[c] == 0 or gle[c, 0] > earliest else gcount[c]  # (most often the first: no search)
        while lo < hi:
            mid = (lo + hi) // 2
            if gle[c, mid] > earliest:
                hi = mid
            else:
                lo = mid + 1
        for i in range(lo, gcount[c]):
            gs = gls[c, i]
            if gs >= before or gs >= until:
                break
            ge = gle[c, i]
            if ge - gs > EPS:  # (``gap_if_fits``, written out)
                es = max(gs, earliest)
                if es < before and ge - es >= shortest - EPS:
                    gnode[size] = c
                    gstart[size] = es
                    gend[size] = ge
                    graw[size] = gs
                    size += 1
        if mine and a < before:
            size = gap_if_fits(a, b, c, earliest, before, shortest, gaps, size)
    return size


@compiled
def count_below(row: np.ndarray, c: int, v: float, inclusive: bool) -> int:
    """How many of the first c entries of the ascending ``row`` are below v (or equal, ``inclusive``)."""
    lo = 0
    hi = c
    while lo < hi:
        mid = (lo + hi) // 2
        if row[mid] < v or (inclusive and row[mid] == v):
            lo = mid + 1
        else:
            hi = mid
    return lo


@compiled
def holding_gap(rows: Rows, x: int, t: float, end: float, without: int) -> tuple[float, float]:
    """(start, end) of the gap of row x that holds [t, end], ``without``'s interval given back."""
    bs, be, owner, count, istart, iend = rows
    gs = istart
    for k in range(count[x] + 1):
        if k < count[x] and without >= 0 and owner[x, k] == without:
            continue
        ge = min(bs[x, k], iend) if k < count[x] else iend
        if gs <= t + EPS and ge >= end - EPS:
            return gs, ge
        if k < count[x]:
            gs = max(be[x, k], istart)
    raise ValueError("a window's part is not in a free gap")
