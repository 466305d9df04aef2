"""The certificate test of freed gaps: which waiting jobs a gap given back could let start earlier
(``backfill._Replanner._unverify``), and where."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.gaps import count_below
from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.types import Freed, Queue, Rows
from workbench.engine.model import EPS

WIDE_RANGE = 0.5  # a search range this much of the way to the job's start is dropped


@compiled
def unverify(
    rows: Rows, perf: np.ndarray, freed: Freed, queue: Queue, factor: float, now: float, mover: int
) -> int:
    """Clear the certificate of every active, verified job of the queue (``live``) that a freed gap
    (``freed``: [start, end) on a node) could help (``backfill._Replanner._unverify``); how many were cleared.

    A new feasible window must overlap a freed gap and fit in it merged with its free
    neighbours: start s >= max(A, e_j), s < min(S_j, b), s + T <= B, with T >= V_j / p_x, and
    T >= V_j / ``top``_j too: no window runs faster than the n-th fastest node the job may use
    (0: fewer than n, no window at all). A job whose own interval bounds the gap may also use that part.

    Each job whose certificate is cleared also keeps where such a start can be: [``lower``,
    ``upper``) spans the ranges [max(A, e_j), min(S_j, b)) of every freed gap that could help it
    since it was last verified; its re-check searches only there (``replan_pass``). A job not
    verified for another reason spans everything, (-inf, inf), and keeps it; so does one whose
    span reaches ``WIDE_RANGE`` of the way to its start (keeping it would cost more than it saves).
    """
    bs, be, owner, count, istart, iend = rows
    fx, fa, fb = freed
    live, active, verified, arrival, volume, min_perf, top, start, lower, upper = queue
    F = fx.size
    A = np.empty(F)
    B = np.empty(F)
    lo_owner = np.empty(F, dtype=np.int64)
    hi_owner = np.empty(F, dtype=np.int64)
    A2 = np.empty(F)
    B2 = np.empty(F)
    for f in range(F):  # Profile.gaps_around
        x = fx[f]
        c = count[x]
        # The last busy interval that ends by fa, and the first that starts from fb (rows are sorted
        # by start, and so by end).
        left = count_below(be[x], c, fa[f] + EPS, True) - 1
        right = count_below(bs[x], c, fb[f] - EPS, False)
        A[f] = max(be[x, left], istart) if left >= 0 else istart
        lo_owner[f] = owner[x, left] if left >= 0 else -1
        A2[f] = max(be[x, left - 1], istart) if left >= 1 else istart
        B[f] = min(bs[x, right], iend) if right < c else iend
        hi_owner[f] = owner[x, right] if right < c else -1
        B2[f] = min(bs[x, right + 1], iend) if right + 1 < c else iend
    # What any job a gap helps must meet (its own interval may widen the gap: A2, B2): a part that
    # fits some gap's room on its node, a start after some gap's, a node fast enough.
    room = 0.0
    after = math.inf
    fastest = 0.0
    for f in range(F):
        a = max(min(A[f], A2[f]), now)
        room = max(room, (max(B[f], B2[f]) + EPS - a) * perf[fx[f]])
        after = min(after, a)
        fastest = max(fastest, perf[fx[f]])
    room = room * (1 + 1e-9) + EPS  # rounding
    cleared = 0
    for j in live:
        if j == mover or not active[j]:
            continue
        if not verified[j] and lower[j] == -math.inf and upper[j] == math.inf:
            continue  # to be searched everywhere already
        if volume[j] * factor > room or start[j] + EPS <= after or min_perf[j] > fastest + EPS or top[j] <= 0:
            continue  # no freed gap can help it
        for f in range(F):
            px = perf[fx[f]]
            if min_perf[j] > px + EPS:
                continue
            px = min(px, top[j])
            lo = A2[f] if lo_owner[f] == j else A[f]
            hi = B2[f] if hi_owner[f] == j else B[f]
            s0 = max(lo, max(arrival[j], now))
            if s0 >= min(start[j], fb[f]) + EPS:
                continue
            if s0 + volume[j] / px * factor <= hi + EPS:
                if verified[j]:
                    verified[j] = False
                    cleared += 1
                    lower[j] = s0
                    upper[j] = min(start[j], fb[f])
                else:
                    lower[j] = min(lower[j], s0)
                    upper[j] = max(upper[j], min(start[j], fb[f]))
                if upper[j] - lower[j] >= WIDE_RANGE * (start[j] - max(arrival[j], now)):
                    lower[j], upper[j] = -math.inf, math.inf  # most of the way anyway: stop keeping it
                    break
    return cleared
