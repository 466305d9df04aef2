"""The Lite choice's bit sets: the n cheapest members of each candidate's S_W.

Columns are nodes in (price, position) order, so the n cheapest members are the n lowest
set bits of the candidate's S_W row. Rows of up to 64 columns pack into one 64-bit word;
wider ones into several, read only for the rows the earlier words leave short.
"""

from __future__ import annotations

import numpy as np


def first_members(member: np.ndarray, n: int) -> np.ndarray:
    """Column indices of the first n True entries of each row (every row has at least n)."""
    if member.shape[1] <= 64:
        return _first_set_bits(member, n)
    small = member.shape[1] < 32_000
    counts: np.ndarray = np.cumsum(member, axis=1, dtype=np.int16 if small else np.int64)
    return np.nonzero(member & (counts <= n))[1].reshape(member.shape[0], n)


def _first_set_bits(member: np.ndarray, n: int) -> np.ndarray:
    """``first_members`` for rows of at most 64 columns: each row packed into one 64-bit word."""
    rows = member.shape[0]
    words = np.zeros((rows, 8), dtype=np.uint8)
    packed = np.packbits(member, axis=1, bitorder="little")
    words[:, : packed.shape[1]] = packed
    return lowest_bits([words.view("<u8").ravel()], n)


def lowest_bit(words: list[np.ndarray]) -> np.ndarray:
    """Position of the lowest set bit of each row of a bit set held as 64-bit words (one is set)."""
    out = np.zeros(words[0].size, dtype=np.int64)
    for w in range(len(words) - 1, -1, -1):
        x = words[w]
        # A power of two converts to float exactly; its exponent is the bit's position.
        here = np.subtract(np.frexp((x & (np.uint64(0) - x)).astype(np.float64))[1], 1 - 64 * w, dtype=np.intp)
        out = np.where(x != 0, here, out)
    return out


def lowest_bits(words: list[np.ndarray], n: int) -> np.ndarray:
    """Positions of the n lowest set bits of each row of a bit set held as 64-bit words (word w
    holds bits 64w..64w+63; every row has at least n set). The lowest set bit is taken and
    cleared n times (a few operations per row, not per bit); a later word is read only for
    the rows the earlier ones leave short."""
    zero = np.uint64(0)

    def lowest(x: np.ndarray) -> np.ndarray:
        x = x.copy()
        low = np.empty((n, x.size), dtype=np.uint64)
        for j in range(n):
            np.bitwise_and(x, zero - x, out=low[j])
            x ^= low[j]
        # A power of two converts to float exactly; its exponent is the bit's position (0 gives -1).
        return np.subtract(np.frexp(low.T.astype(np.float64))[1], 1, dtype=np.intp)  # intp: indexes as it is

    out = lowest(words[0])
    have = np.bitwise_count(words[0]).astype(np.int64)
    for w in range(1, len(words)):
        short = np.flatnonzero(have < n)
        if short.size == 0:
            break
        # A short row keeps its first ``have`` positions and takes place j >= have from this word's j - have.
        more = lowest(words[w][short])
        more += 64 * w
        j = np.arange(n)[None, :]
        h = have[short, None]
        src = j - h
        np.maximum(src, 0, out=src)
        src += (n * np.arange(short.size))[:, None]
        rows = out[short]
        np.copyto(rows, np.take(more, src), where=j >= h)
        out[short] = rows
        have[short] += np.bitwise_count(words[w][short])
    return out
