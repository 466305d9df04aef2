"""Reference implementations by plain enumeration (slow, obviously right)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from workbench.engine.criteria import Criterion, SlotContext
from workbench.engine.model import EPS, Job, Window
from workbench.engine.search import budget_units, cost_units
from workbench.engine.slots import SlotTable


def brute_subset(z, units, n, budget, positions, required=None):
    """max sum z, then min sum units, then lexicographically smallest sorted positions.

    With ``required``, only subsets holding at least one required item count.
    """
    best = None
    for combo in itertools.combinations(range(len(z)), n):
        if required is not None and not any(required[i] for i in combo):
            continue
        u = sum(units[i] for i in combo)
        if u > budget:
            continue
        key = (-sum(z[i] for i in combo), u, tuple(sorted(positions[i] for i in combo)))
        if best is None or key < best[0]:
            best = (key, combo)
    return None if best is None else sorted(best[1])


def _z_one(table, crit, job, t, T, slot_idx):
    pos = table.node[slot_idx]
    ctx = SlotContext(
        t=np.array([t]),
        T=np.array([T]),
        sstart=table.start[slot_idx][None, :],
        send=table.end[slot_idx][None, :],
        perf=table.perf[pos][None, :],
        price=table.price[pos][None, :],
        attributes={k: v[pos][None, :] for k, v in table.attrs.items()},
        volume=job.volume,
        node=pos[None, :],
    )
    return np.broadcast_to(crit.z(ctx), (1, len(slot_idx)))[0]


def brute_window(
    table: SlotTable,
    job: Job,
    crit: Criterion,
    exact: bool,
    earliest: float,
    factor: float = 1.0,
    res: float = 1.0,
    quantum: float = 0.0,
):
    """The normative search of DESIGN.md, literally: every level, every eligible slot start."""
    perf, price = table.perf, table.price
    levels = sorted({p for p in perf if p >= job.min_performance - EPS}, reverse=True)
    bu = budget_units(job.budget, res)
    best = None  # (value, t, T, cost, nodes)
    for P in levels:
        T = job.volume / P * factor
        if quantum > 0:  # whole quanta of time, rounded up
            T = math.ceil(T / quantum - 1e-9) * quantum
        elig = [
            s
            for s in range(table.size)
            if perf[table.node[s]] >= P and table.end[s] - max(table.start[s], earliest) >= T - EPS
        ]
        for s in elig:
            t = max(table.start[s], earliest)
            sw = [j for j in elig if table.start[j] <= t and table.end[j] >= t + T - EPS]
            if len(sw) < job.node_count or not any(perf[table.node[j]] == P for j in sw):
                continue
            sw = np.array(sw)
            pos = table.node[sw]
            z = _z_one(table, crit, job, t, T, sw)
            units = cost_units(price[pos], T, res)
            # DESIGN.md "Window length": the subset holds a node of performance exactly P.
            at_level = [perf[p] == P for p in pos]
            if exact:
                budget = math.inf if bu is None else bu
                pick = brute_subset(list(z), list(units), job.node_count, budget, list(pos), at_level)
                if pick is None:
                    continue
            else:
                by_price = sorted(range(len(sw)), key=lambda i: (price[pos[i]], pos[i]))
                pick = by_price[: job.node_count]
                if not any(at_level[i] for i in pick):
                    # The dearest of the n cheapest gives way to the cheapest slot of level P.
                    pick[-1] = next(i for i in by_price if at_level[i])
                if bu is not None and sum(units[i] for i in pick) > bu:
                    continue
            value = float(sum(z[i] for i in pick))
            cost = T * float(sum(price[pos[i]] for i in pick))
            cand = (value, t, T, cost, tuple(sorted(int(pos[i]) for i in pick)))
            if best is None or value > best[0] + EPS or (abs(value - best[0]) <= EPS and (t, T, cost) < best[1:4]):
                best = cand
    if best is None:
        return None
    value, t, T, cost, nodes = best
    return value, Window(job.id, t, T, tuple(table.node_ids[p] for p in nodes), cost)
