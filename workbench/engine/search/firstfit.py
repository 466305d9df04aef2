"""The earliest window, fast: FirstFit's answer without the general search machinery.

FirstFit (z = -t, the lite choice) needs no scoring: at each performance level P
(T = V / P) the first candidate time t at which at least n slots hold [t, t+T], one
of them on a node of performance exactly P, and whose lite choice fits the budget,
is that level's answer; the best over the levels wins (earlier t, then shorter T).
Coverage counts come from two sorted arrays per level (a slot holds t when its
clipped start <= t <= end - T). This is the same candidate space and the same
choice as ``find_window`` with ``SearchSpec(StartTime())``, which the tests check;
it is what feasibility tests, EASY and MultipleBest use, thousands of times a run.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.engine import kernels
from workbench.engine.model import EPS, Job, Window
from workbench.engine.profile import NO_OWNER, Profile
from workbench.engine.search.facts import node_facts, sorted_unique
from workbench.engine.search.spec import Found, cost_units
from workbench.engine.slots import SlotTable, window_lengths
from workbench.engine.units import budget_units


def first_fit(
    table: SlotTable,
    job: Job,
    earliest: float,
    length_factor: float = 1.0,
    resolution: float = 1.0,
    before: float = math.inf,
    quantum: float = 0.0,
) -> Found | None:
    """FirstFit's window on ``table`` from ``earliest`` (only windows starting before ``before``)."""
    n = job.node_count
    perf, price = table.perf, table.price
    nodes = node_facts(table, job.min_performance)
    if nodes.count < n or table.size == 0:
        return None
    eligible_node, levels = nodes.eligible, nodes.levels  # levels highest first: T ascending
    T_all = window_lengths(job.volume, levels, length_factor, quantum)
    es = np.maximum(table.start, earliest)
    slot_perf = perf[table.node]
    room = table.end - es
    keep = eligible_node[table.node] & (room >= T_all[0] - EPS) & (es < before)
    if not keep.any():
        return None
    node, es, end, room, slot_perf = table.node[keep], es[keep], table.end[keep], room[keep], slot_perf[keep]
    bu = budget_units(job.budget, resolution)
    best: Best | None = None
    for P, T in zip(levels, T_all, strict=True):
        if best is not None and best[1] < es.min() - EPS:
            break  # no later level can start earlier than the incumbent
        member = (slot_perf >= P) & (room >= T - EPS)
        if int(member.sum()) < n:
            continue
        m_es, m_last = es[member], end[member] - T + EPS  # a member holds t for m_es <= t <= m_last
        exact = slot_perf[member] == P
        times = sorted_unique(m_es)  # a candidate time starts a member slot
        times = times[times < (best[1] + EPS if best is not None else before)]
        if times.size == 0:
            continue
        a, b = np.sort(m_es), np.sort(m_last)
        cover = np.searchsorted(a, times, "right") - np.searchsorted(b, times, "left")
        a_x, b_x = np.sort(m_es[exact]), np.sort(m_last[exact])
        at_level = np.searchsorted(a_x, times, "right") - np.searchsorted(b_x, times, "left")
        # "A slot that starts at t": any member with m_es == t (every time is one, by construction).
        valid = times[(cover >= n) & (at_level >= 1)]
        best = first_affordable(valid, node[member], m_es, m_last, exact, price, n, T, bu, resolution, best)
    if best is None:
        return None
    value, t, T, _cost, chosen = best
    positions = np.sort(chosen)
    window = Window(
        job=job.id,
        start=t,
        length=T,
        nodes=tuple(table.node_ids[p] for p in positions),
        cost=T * float(price[positions].sum()),
    )
    return Found(window, value, table)


def first_fit_in(
    profile: Profile,
    job: Job,
    earliest: float,
    length_factor: float = 1.0,
    resolution: float = 1.0,
    before: float = math.inf,
    quantum: float = 0.0,
    without: int = NO_OWNER,
    finish: bool = False,
) -> Found | None:
    """``first_fit`` on the profile's gaps (``without``'s intervals given back), read in place by
    a compiled loop (``kernels.earliest_in_rows``); with ``finish``, the exact search by finish time
    instead (``search.placement``). The window's ``Found`` carries no table."""
    nodes = node_facts(profile, job.min_performance)
    n = job.node_count
    if nodes.count < n:
        return None
    lengths = nodes.lengths(job.volume, length_factor, quantum)
    bu = budget_units(job.budget, resolution)
    k, t, chosen = kernels.earliest_in_rows(
        *profile.rows,
        *(profile.perf, profile.price, nodes.col_of),  # a kernels.types.Nodes, field by field
        *(nodes.columns, nodes.levels, lengths, n, -1 if bu is None else bu, float(resolution)),  # a Shape
        float(earliest),
        float(before),
        int(without),
        *profile.scratch(),
        finish,
    )
    if k < 0:
        return None
    positions = np.sort(chosen)
    T = float(lengths[k])
    ids = profile.node_ids
    window = Window(job.id, float(t), T, tuple(ids[p] for p in positions), T * float(profile.price[positions].sum()))
    return Found(window, float(np.full(n, -(t + T) if finish else -t).sum()))


Best = tuple[float, float, float, float, np.ndarray]  # value, t, T, cost, chosen node positions


def first_affordable(
    times: np.ndarray,
    nodes: np.ndarray,
    first: np.ndarray,
    last: np.ndarray,
    exact: np.ndarray,
    price: np.ndarray,
    n: int,
    T: float,
    bu: int | None,
    resolution: float,
    best: Best | None,
) -> Best | None:
    """At one level: the first of the valid ``times`` whose lite choice fits the budget, kept if it
    beats ``best`` (FirstFit's order: value within EPS, then earlier t, shorter T, lower cost).

    A member (``nodes``: positions) holds [t, t+T] when ``first <= t <= last``; ``exact`` marks
    the members of performance exactly P.
    """
    for t in times:
        t = float(t)
        holds = (first <= t) & (last >= t)
        chosen = _lite_choice(nodes[holds], exact[holds], price, n)
        chosen_price = price[chosen]
        if bu is not None and int(cost_units(chosen_price, T, resolution).sum()) > bu:
            continue  # the cheapest subset is over budget: the next time
        value = float(np.full(n, -t).sum())
        cost = float(T * chosen_price.sum())
        if best is None or value > best[0] + EPS or (value >= best[0] - EPS and (t, T, cost) < best[1:4]):
            return (value, t, float(T), cost, chosen)
        return best
    return best


def _lite_choice(nodes: np.ndarray, exact: np.ndarray, price: np.ndarray, n: int) -> np.ndarray:
    """The n cheapest nodes (price, then position); if none has performance exactly P,
    the dearest of them gives way to the cheapest that has (docs/design.md "Window length")."""
    order = np.lexsort((nodes, price[nodes]))
    chosen = nodes[order[:n]]
    if not exact[order[:n]].any():
        chosen = chosen.copy()
        chosen[-1] = nodes[order[np.argmax(exact[order])]]
    return chosen
