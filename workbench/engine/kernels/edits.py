"""The row edits of a move: a window's intervals enter their rows in sorted place, or leave them."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.types import Rows
from workbench.engine.model import EPS


@compiled
def insert_rows(rows: Rows, xs: np.ndarray, start: float, ends: np.ndarray, who: int) -> None:
    """Put [start, ends[i]) into row xs[i] in its sorted place (after any that start at ``start``).
    The caller makes sure every row has a spare column."""
    bs, be, owner, count = rows.bs, rows.be, rows.owner, rows.size
    for i in range(xs.size):
        x = xs[i]
        c = count[x]
        at = 0
        while at < c and bs[x, at] <= start:
            at += 1
        for k in range(c, at, -1):
            bs[x, k] = bs[x, k - 1]
            be[x, k] = be[x, k - 1]
            owner[x, k] = owner[x, k - 1]
        bs[x, at] = start
        be[x, at] = ends[i]
        owner[x, at] = who
        count[x] = c + 1


@compiled
def delete_rows(rows: Rows, xs: np.ndarray, start: float, ends: np.ndarray) -> int:
    """Take [start, ends[i]) out of row xs[i] (the first that matches within EPS); -1 when done,
    else the position in ``xs`` of the first row that does not hold its interval (nothing changed)."""
    bs, be, owner, count = rows.bs, rows.be, rows.owner, rows.size
    found = np.empty(xs.size, dtype=np.int64)
    for i in range(xs.size):
        x = xs[i]
        found[i] = -1
        for k in range(count[x]):
            if abs(bs[x, k] - start) <= EPS and abs(be[x, k] - ends[i]) <= EPS:
                found[i] = k
                break
        if found[i] < 0:
            return i
    for i in range(xs.size):
        x = xs[i]
        c = count[x]
        for k in range(found[i], c - 1):
            bs[x, k] = bs[x, k + 1]
            be[x, k] = be[x, k + 1]
            owner[x, k] = owner[x, k + 1]
        bs[x, c - 1] = math.inf
        be[x, c - 1] = math.inf
        owner[x, c - 1] = -1
        count[x] = c - 1
    return -1
