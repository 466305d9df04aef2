"""The row edits of a move: a window's intervals enter their rows in sorted place, or leave them;
with the compiled pass's gap lists (``types.Lists``) kept equal to a listing of the edited rows."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.gaps import count_below
from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.types import Lists, Rows
from workbench.engine.model import EPS


@compiled
def insert_rows(rows: Rows, xs: np.ndarray, start: float, ends: np.ndarray, who: int) -> None:
    """Put [start, ends[i]) into row xs[i] in its sorted place (after any that start at ``start``).
    The caller makes sure every row has a spare column."""
    for i in range(xs.size):
        _insert(rows, xs[i], count_below(rows.bs[xs[i]], rows.size[xs[i]], start, True), start, ends[i], who)


@compiled
def delete_rows(rows: Rows, xs: np.ndarray, start: float, ends: np.ndarray) -> int:
    """Take [start, ends[i]) out of row xs[i] (the first that matches within EPS); -1 when done,
    else the position in ``xs`` of the first row that does not hold its interval (nothing changed)."""
    found, missing = _find(rows, xs, start, ends)
    if missing >= 0:
        return missing
    for i in range(xs.size):
        _delete(rows, xs[i], found[i])
    return -1


@compiled
def insert_listed(rows: Rows, lists: Lists, xs: np.ndarray, start: float, ends: np.ndarray, who: int) -> None:
    """``insert_rows``, and each listed row's list (``gaps.list_gaps``) edited to match: the gap the
    interval falls in gives way to the two on either side of it."""
    bs, be, count, istart, iend = rows.bs, rows.be, rows.size, rows.istart, rows.iend
    for i in range(xs.size):
        x = xs[i]
        c = count[x]
        p = count_below(bs[x], c, start, True)
        if lists.size[x] >= 0:
            gs = max(be[x, p - 1], istart) if p > 0 else istart
            ge = min(bs[x, p], iend) if p < c else iend
            _splice(lists, x, gs, ge, math.inf, -math.inf, gs, min(start, iend), max(ends[i], istart), ge)
        _insert(rows, x, p, start, ends[i], who)


@compiled
def delete_listed(rows: Rows, lists: Lists, xs: np.ndarray, start: float, ends: np.ndarray) -> int:
    """``delete_rows``, and each listed row's list edited to match: the gaps on either side of the
    interval become one."""
    bs, be, count, istart, iend = rows.bs, rows.be, rows.size, rows.istart, rows.iend
    found, missing = _find(rows, xs, start, ends)
    if missing >= 0:
        return missing
    for i in range(xs.size):
        x = xs[i]
        p = found[i]
        c = count[x]
        if lists.size[x] >= 0:
            gs = max(be[x, p - 1], istart) if p > 0 else istart
            mid_s = max(be[x, p], istart)
            mid_e = min(bs[x, p], iend)
            ge = min(bs[x, p + 1], iend) if p + 1 < c else iend
            _splice(lists, x, gs, mid_e, mid_s, ge, gs, ge, math.inf, -math.inf)
        _delete(rows, x, p)
    return -1


@compiled
def _find(rows: Rows, xs: np.ndarray, start: float, ends: np.ndarray) -> tuple[np.ndarray, int]:
    """Where each row holds [start, ends[i]) (the first within EPS: a binary search to the first that
    starts from start - EPS, then on), and -1; or the position in ``xs`` of the first row that holds
    none."""
    bs, be, count = rows.bs, rows.be, rows.size
    found = np.empty(xs.size, dtype=np.int64)
    for i in range(xs.size):
        x = xs[i]
        k = count_below(bs[x], count[x], start - EPS, False)
        found[i] = -1
        while k < count[x] and bs[x, k] <= start + EPS:
            if abs(be[x, k] - ends[i]) <= EPS:
                found[i] = k
                break
            k += 1
        if found[i] < 0:
            return found, i
    return found, -1


@compiled
def _insert(rows: Rows, x: int, at: int, start: float, end: float, who: int) -> None:
    bs, be, owner, count = rows.bs, rows.be, rows.owner, rows.size
    c = count[x]
    for k in range(c, at, -1):
        bs[x, k] = bs[x, k - 1]
        be[x, k] = be[x, k - 1]
        owner[x, k] = owner[x, k - 1]
    bs[x, at] = start
    be[x, at] = end
    owner[x, at] = who
    count[x] = c + 1


@compiled
def _delete(rows: Rows, x: int, k: int) -> None:
    bs, be, owner, count = rows.bs, rows.be, rows.owner, rows.size
    c = count[x]
    for q in range(k, c - 1):
        bs[x, q] = bs[x, q + 1]
        be[x, q] = be[x, q + 1]
        owner[x, q] = owner[x, q + 1]
    bs[x, c - 1] = math.inf
    be[x, c - 1] = math.inf
    owner[x, c - 1] = -1
    count[x] = c - 1


@compiled
def _splice(
    lists: Lists, x: int, o0: float, o1: float, p0: float, p1: float, n0: float, n1: float, q0: float, q1: float
) -> None:
    """In row x's list, replace the old gaps [o0, o1) and [p0, p1) that are listed (at least
    ``theta`` long) by the new ones [n0, n1) and [q0, q1) that are (an empty pair: none). They lie
    from the first entry that starts at ``o0`` or later: a listed gap before them ends by the edited
    interval's neighbour's start, so it starts earlier. Where the list is not as that says (a row
    whose intervals overlap), the row is left to be listed again when next read."""
    gls, gle = lists.starts, lists.ends
    theta = lists.theta - EPS
    m = lists.size[x]
    i = count_below(gls[x], m, o0, False)
    gone = 0
    if o1 - o0 >= theta:
        if i >= m or gls[x, i] != o0 or gle[x, i] != o1:
            lists.size[x] = -1
            return
        gone += 1
    if p1 - p0 >= theta:
        if i + gone >= m or gls[x, i + gone] != p0 or gle[x, i + gone] != p1:
            lists.size[x] = -1
            return
        gone += 1
    first = n1 - n0 >= theta
    second = q1 - q0 >= theta
    shift = first + second - gone
    if shift > 0:
        for k in range(m - 1, i + gone - 1, -1):
            gls[x, k + shift] = gls[x, k]
            gle[x, k + shift] = gle[x, k]
    elif shift < 0:
        for k in range(i + gone, m):
            gls[x, k + shift] = gls[x, k]
            gle[x, k + shift] = gle[x, k]
    at = i
    if first:
        gls[x, at], gle[x, at] = n0, n1
        at += 1
    if second:
        gls[x, at], gle[x, at] = q0, q1
        at += 1
    m += shift
    lists.size[x] = m
    for k in range(max(i - 1, 0), min(at + 1, m) - 1):  # the edited stretch and its neighbours stay in order
        if gls[x, k + 1] <= gls[x, k] or gle[x, k + 1] <= gle[x, k]:
            lists.size[x] = -1
            return
