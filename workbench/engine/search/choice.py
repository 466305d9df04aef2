"""The exact subset choice (seed 002 eq. 2): n slots of one candidate's S_W with the largest
sum of z within the budget, a 0-1 knapsack with a count constraint, and its bounds.

Without a budget (or when the n best fit it) the n best by (larger z, fewer cost units,
lower position) are the answer (``n_best``, with the rule that one slot must be of the
window's own performance level). Otherwise a dynamic programme over cost units decides
(``knapsack_count``), run only on candidates whose Lagrangian bound can still win.
"""

from __future__ import annotations

import numpy as np

from workbench.engine.errors import check_dp_size


def n_best(zm: np.ndarray, units: np.ndarray, positions: np.ndarray, n: int) -> np.ndarray:
    """Per row, the columns of the n largest z; ties: fewer cost units, then lower node position.

    A partition finds the n-th largest value; where it is not tied, the n best are
    simply every value at least that large. Only rows with a tie at that boundary
    pay for the full tie-aware sort (the same order as the DP's).
    """
    neg = -zm
    kth = np.partition(neg, n - 1, axis=1)[:, n - 1 : n]
    upto = neg <= kth
    clean = upto.sum(axis=1) == n
    top = np.empty((zm.shape[0], n), dtype=np.int64)
    if clean.any():
        top[clean] = np.nonzero(upto[clean])[1].reshape(-1, n)
    tied = np.flatnonzero(~clean)
    if tied.size:
        top[tied] = _break_ties(neg[tied], kth[tied], units[tied], positions, n)
    return top


def _break_ties(neg: np.ndarray, kth: np.ndarray, units: np.ndarray, positions: np.ndarray, n: int) -> np.ndarray:
    """The n best of rows tied at the n-th value: all strictly better ones, then the tied ones
    with the fewest units, then the lowest positions (one integer key, no full sort)."""
    rows = neg.shape[0]
    better = neg < kth
    tie = neg == kth
    span = int(positions.max(initial=0)) + 1
    if int(units.max(initial=0)) >= np.iinfo(np.int64).max // (span + 1):
        pos = np.broadcast_to(positions[None, :], neg.shape)
        return np.lexsort((pos, units, neg), axis=1)[:, :n]
    key = np.where(tie, units * span + positions[None, :], np.iinfo(np.int64).max)
    pick = np.argpartition(key, n - 1, axis=1)[:, :n]
    r = np.arange(rows)[:, None]
    pick = pick[r, np.argsort(key[r, pick], axis=1)]
    need = n - better.sum(axis=1)
    chosen = better.copy()
    chosen[r, pick] |= np.arange(n)[None, :] < need[:, None]
    return np.nonzero(chosen)[1].reshape(rows, n)


def with_level_item(
    top: np.ndarray, zm: np.ndarray, units: np.ndarray, positions: np.ndarray, level: np.ndarray
) -> np.ndarray:
    """The n best with at least one item of level P (docs/design.md "Window length"), budget aside.

    Where the n best hold none, the best such subset is the n - 1 best of them plus
    the best item of level P, all in the order (larger z, fewer units, lower position).
    """
    rows = np.arange(top.shape[0])[:, None]
    lacking = np.nonzero(~level[rows, top].any(axis=1))[0]
    if lacking.size == 0:
        return top
    top = top.copy()
    sub = top[lacking]
    r = lacking[:, None]
    # The last of the n best in that order gives way.
    order = np.lexsort((positions[sub], units[r, sub], -zm[r, sub]), axis=1)
    worst = order[:, -1]
    # The best item of level P: the largest z, then the fewest units, then the lowest position.
    z_level = np.where(level[lacking], zm[lacking], -np.inf)
    tie = z_level == z_level.max(axis=1, keepdims=True)
    u = np.where(tie, units[lacking], np.iinfo(np.int64).max)
    tie &= u == u.min(axis=1, keepdims=True)
    best_level = np.where(tie, positions[None, :], np.iinfo(np.int64).max).argmin(axis=1)
    sub[np.arange(lacking.size), worst] = best_level
    top[lacking] = sub
    return top


def lagrangian_bound(zm: np.ndarray, units: np.ndarray, n: int, budget: int, iterations: int = 10) -> np.ndarray:
    """Upper bounds of the knapsack-with-count optimum, one per row (-inf entries are absent).

    For any lambda >= 0, max sum z <= lambda * B + (sum of the n largest z_i - lambda * u_i):
    the Lagrangian relaxation of the budget. It is minimised over lambda by bisection on
    the sign of its subgradient (B minus the cost of the relaxed choice); every lambda
    tried gives a valid bound, and the smallest is kept.
    """
    rows = zm.shape[0]
    if rows == 0:
        return np.empty(0)
    finite = np.isfinite(zm)
    zf = np.where(finite, zm, 0.0)
    span = (zf.max(axis=1) - np.where(finite, zm, np.inf).min(axis=1)) + 1.0
    lo = np.zeros(rows)
    hi = span  # past this lambda the relaxed choice is the n cheapest
    best = np.full(rows, np.inf)
    u = units.astype(np.float64)
    for step in range(iterations):
        lam = slope_lambda(zm, u, finite, n, budget) if step == 0 else 0.5 * (lo + hi)
        vals = np.where(finite, zm - lam[:, None] * u, -np.inf)
        part = -np.partition(-vals, n - 1, axis=1)
        best = np.minimum(best, lam * budget + part[:, :n].sum(axis=1))
        if step == iterations - 1:
            break
        # The relaxed choice is every value >= the n-th largest (ties may add a few):
        # only the direction of the next step depends on it.
        over = (np.where(vals >= part[:, n - 1 : n], u, 0.0)).sum(axis=1) > budget
        lo = np.where(over, lam, lo)
        hi = np.where(over, hi, lam)
    return best


def slope_lambda(zm: np.ndarray, u: np.ndarray, finite: np.ndarray, n: int, budget: int) -> np.ndarray:
    """A good first lambda: value lost per unit saved from the n best to the n cheapest."""
    r = np.arange(zm.shape[0])[:, None]
    best_idx = np.argpartition(-np.where(finite, zm, -np.inf), n - 1, axis=1)[:, :n]
    cheap_idx = np.argpartition(np.where(finite, u, np.inf), n - 1, axis=1)[:, :n]
    dz = zm[r, best_idx].sum(axis=1) - zm[r, cheap_idx].sum(axis=1)
    du = u[r, best_idx].sum(axis=1) - u[r, cheap_idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(du > 0, dz / du, 0.0)
    return np.maximum(lam, 0.0)


def knapsack_count(
    z: np.ndarray,
    units: np.ndarray,
    n: int,
    budget: int,
    positions: np.ndarray,
    required: np.ndarray | None = None,
    resolution: float = 1.0,
) -> np.ndarray | None:
    """Exact subset choice, seed 002 §3.3 eq. 2: max sum z over n items with sum units <= budget.

    f_i(c, k) = max(f_{i-1}(c, k), f_{i-1}(c - u_i, k - 1) + z_i), then backward
    induction. With ``required`` the subset must hold at least one of those items
    (docs/design.md "Window length": a node of performance exactly P), a flag carried as
    one more axis of f. Among optimal subsets it returns the cheapest, and among
    those the one whose node positions come first lexicographically. Returns the
    indices into ``z`` of the chosen items, or None when no n items fit.
    Raises ``DPTooLarge`` (naming ``resolution``) rather than exhaust the memory.
    """
    if z.size < n:
        return None
    if required is not None and (required.all() or not required.any()):
        if not required.any():
            return None
        required = None  # every item qualifies: the plain problem
    cheapest = np.sort(units)[:n].sum()
    if cheapest > budget:
        return None
    # An item beaten (value >=, cost <=, and better in one of value, cost, position)
    # by n others is never needed: swap it for one of them that is left out. A
    # required item may be the only one in the subset, so one of its n must be required.
    zi, ui, pi = z[:, None], units[:, None], positions[:, None]
    beats = (z[None, :] >= zi) & (units[None, :] <= ui)
    beats &= (z[None, :] > zi) | (units[None, :] < ui) | (positions[None, :] < pi)
    drop = beats.sum(axis=1) >= n
    if required is not None:
        drop &= ~required | (beats & required[None, :]).any(axis=1)
    keep = np.nonzero(~drop)[0]
    chosen = _knapsack_dp(
        z[keep], units[keep], n, budget, positions[keep], None if required is None else required[keep], resolution
    )
    return None if chosen is None else keep[chosen]


def _knapsack_dp(
    z: np.ndarray,
    units: np.ndarray,
    n: int,
    budget: int,
    positions: np.ndarray,
    required: np.ndarray | None,
    resolution: float,
) -> np.ndarray | None:
    m = z.size
    cap = int(min(budget, np.sort(units)[-n:].sum()))
    flags = 1 if required is None else 2
    check_dp_size((m + 1) * flags * (n + 1), cap, resolution, "the exact choice", f"{m} slots × {n} nodes")
    # Process the highest positions first so that backtracking meets the lowest first.
    order = np.argsort(-positions, kind="stable")
    zz, uu = z[order], units[order]
    need = np.ones(m, dtype=bool) if required is None else required[order]
    # f[i, g, k, c]: best value of k of the first i items within c units; g = 1 when
    # one of them is required (always 1 with no requirement).
    f = np.full((m + 1, flags, n + 1, cap + 1), -np.inf)
    f[0, 0, 0, :] = 0.0
    top = flags - 1
    for i in range(m):
        prev, cur = f[i], f[i + 1]
        cur[:] = prev
        u = int(uu[i])
        if u > cap:
            continue
        # Taking item i: from g = 1 stays 1; from g = 0 moves to 1 if it is required.
        to = top if need[i] else 0
        for g in range(flags):
            dest = top if g == top else to
            cand = prev[g, :-1, : cap + 1 - u] + zz[i]
            np.maximum(cur[dest, 1:, u:], cand, out=cur[dest, 1:, u:])
    last = f[m, top, n]
    if not np.isfinite(last[cap]):
        return None
    c = int(np.argmax(last >= last[cap]))  # the cheapest budget level reaching the optimum
    k = n
    states = {top}  # every flag from which an optimal completion exists
    chosen: list[int] = []
    for i in range(m, 0, -1):
        if k == 0:
            break
        u = int(uu[i - 1])
        to = top if need[i - 1] else 0
        taken: set[int] = set()
        if u <= c:
            for g in range(flags):
                for dest in states:
                    if (dest == top if g == top else dest == to) and f[i - 1, g, k - 1, c - u] + zz[i - 1] == f[
                        i, dest, k, c
                    ]:
                        taken.add(g)
        if taken:
            chosen.append(i - 1)
            k -= 1
            c -= u
            states = taken
        else:
            states = {g for g in states if f[i - 1, g, k, c] == f[i, g, k, c]}
    if k != 0 or not states:  # pragma: no cover - the forward pass guarantees a path
        raise AssertionError("knapsack backtracking lost its path")
    return np.sort(order[np.array(chosen, dtype=np.int64)])
