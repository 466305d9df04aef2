"""Sums and ties as the general search makes them: numpy's pairwise summation bit for bit, the
search's order among windows of equal value, and a stable order of gaps by start."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.jit import compiled
from workbench.engine.model import EPS


@compiled
def _block_sum(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise sum of a[lo:lo + n] for n <= 128: eight running sums, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r = a[lo : lo + 8].copy()
    i = 8
    stop = n - n % 8
    while i < stop:
        for q in range(8):
            r[q] += a[lo + i + q]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@compiled
def pairwise_sum(a: np.ndarray) -> float:
    """numpy's sum of ``a`` (``np.add.reduce``'s pairwise order, bit for bit): the search compares
    window values that were summed so, within EPS of each other. Halves (cut at a multiple of 8)
    until blocks of 128, without recursion (a stack of (start, size, halves added yet))."""
    if a.size <= 128:
        return _block_sum(a, 0, a.size)
    task_lo = np.empty(128, dtype=np.int64)
    task_n = np.empty(128, dtype=np.int64)
    task_join = np.zeros(128, dtype=np.bool_)
    sums = np.empty(128)
    tasks = 1
    kept = 0
    task_lo[0], task_n[0] = 0, a.size
    while tasks:
        tasks -= 1
        lo, n, join = task_lo[tasks], task_n[tasks], task_join[tasks]
        if join:
            kept -= 1
            sums[kept - 1] = sums[kept - 1] + sums[kept]
        elif n <= 128:
            sums[kept] = _block_sum(a, lo, n)
            kept += 1
        else:
            half = n // 2
            half -= half % 8
            task_lo[tasks], task_n[tasks], task_join[tasks] = lo, n, True
            task_lo[tasks + 1], task_n[tasks + 1], task_join[tasks + 1] = lo + half, n - half, False
            task_lo[tasks + 2], task_n[tasks + 2], task_join[tasks + 2] = lo, half, False
            tasks += 3
    return sums[0]


Key = tuple[float, float, float, int]


@compiled
def beats(value: float, key: Key, best: float, best_key: Key) -> bool:
    """``search._Best.beaten_by``: the value within EPS, then (start, length, cost, level) in that
    order: the earlier t, the shorter T, the lower cost, the faster level."""
    if value > best + EPS:
        return True
    if value < best - EPS:
        return False
    return key < best_key


@compiled
def by_start(keys: np.ndarray) -> np.ndarray:
    """The positions of ``keys`` in ascending order (ties in position order): a counting sort into
    size/2 + 1 buckets by value, each kept in order by insertion. The gaps come row by row, each
    row in order, and the first of every row is often at the same clipped start: numba's
    quicksort is slow on that, and one pass of buckets suits it."""
    size = keys.size
    order = np.empty(size, dtype=np.int64)
    lo = math.inf
    hi = -math.inf
    for g in range(size):
        lo = min(lo, keys[g])
        hi = max(hi, keys[g])
    if not hi > lo:  # one value (or none)
        for g in range(size):
            order[g] = g
        return order
    B = size // 2 + 1
    scale = (B - 1) / (hi - lo)
    start = np.zeros(B + 1, dtype=np.int64)
    bucket = np.empty(size, dtype=np.int64)
    for g in range(size):
        b = min(int((keys[g] - lo) * scale), B - 1)
        bucket[g] = b
        start[b + 1] += 1
    for b in range(B):
        start[b + 1] += start[b]
    base = start.copy()
    for g in range(size):
        b = bucket[g]
        at = start[b]
        start[b] = at + 1
        while at > base[b] and keys[order[at - 1]] > keys[g]:
            order[at] = order[at - 1]
            at -= 1
        order[at] = g
    return order
