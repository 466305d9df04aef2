"""The straightforward conservative backfilling, kept as the reference for the fast one.

This is the implementation the engine had before it scaled (DESIGN.md "Backfilling"),
with reservations made upon arrival (seed 001 §2.2): the jobs that have arrived by the
start are planned in queue order; each later job gets its reservation when it arrives
(simultaneous arrivals in queue order). At every early completion the whole slot table
is rebuilt and every arrived job that has not started is searched again, in queue
order, before the arrivals of that moment (with ``replan="nodes"``, a job that has a
reservation keeps its nodes and takes the earliest start they allow instead). It is
slow and obviously right; the property tests check that
``workbench.engine.flow.backfill`` gives identical schedules.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from workbench.engine.flow.cycles import Placer, PlaceRun
from workbench.engine.model import EPS, Job, Window
from workbench.engine.numbers import number
from workbench.engine.selectors import Selector
from workbench.engine.simulate import Recorder
from workbench.engine.slots import SlotTable


def reference_placer(
    selector: Selector, dynamic: bool = True, fixed: Sequence[Window] = (), replan: str = "search"
) -> Placer:
    def place(rec: Recorder, jobs: list[Job], table: SlotTable, cs: float, ce: float) -> PlaceRun:
        plan: dict[str, Window] = {}
        current = table.reserve(fixed)
        first = [j for j in jobs if j.arrival <= cs + EPS] if dynamic else _by_arrival(jobs, cs)
        for job in first:
            found = selector.select(current, job, max(job.arrival, cs))
            if found is not None:
                plan[job.id] = found.window
                rec.place(found.window)
                current = current.reserve([found.window])
        yield rec.snap(cs, "planned")
        if dynamic:
            yield from _replan(rec, jobs, plan, list(fixed), table, cs, ce, selector, replan == "nodes")

    return place


def _by_arrival(jobs: list[Job], cs: float) -> list[Job]:
    return sorted(jobs, key=lambda j: max(j.arrival, cs))  # stable: queue order at equal times


def _replan(
    rec: Recorder,
    jobs: list[Job],
    plan: dict[str, Window],
    fixed: list[Window],
    table: SlotTable,
    cs: float,
    ce: float,
    selector: Selector,
    keep_nodes: bool,
) -> PlaceRun:
    now = cs
    while True:
        windows = fixed + list(plan.values())
        early = [rec.actual[w.job] for w in windows if rec.actual[w.job] < w.end - EPS]
        next_early = min((end for end in early if end > now + EPS), default=math.inf)
        next_arrival = min((j.arrival for j in jobs if now + EPS < j.arrival < ce - EPS), default=math.inf)
        if math.isinf(next_early) and math.isinf(next_arrival):
            return
        arrived = [j for j in jobs if j.arrival <= now + EPS]
        now = min(next_early, next_arrival)
        live = [w for w in windows if rec.actual[w.job] > now + EPS]
        current = table.with_interval(now, ce).reserve(live)
        if next_early <= now + EPS:
            for job in arrived:
                old = plan.get(job.id)
                if old is not None and (old.start < now - EPS or old.start <= max(job.arrival, now) + EPS):
                    continue
                trial = current.release([old]) if old is not None else current
                if keep_nodes and old is not None:
                    start = _earliest_on_nodes(trial, old, max(job.arrival, now))
                    window = None if start is None else dataclasses.replace(old, start=start)
                else:
                    found = selector.select(trial, job, max(job.arrival, now))
                    window = None if found is None else found.window
                if window is not None and (old is None or window.start < old.start - EPS):
                    plan[job.id] = window
                    rec.place(window)
                    current = trial.reserve([window])
        known = {j.id for j in arrived}
        for job in [j for j in jobs if j.arrival <= now + EPS and j.id not in known]:
            found = selector.select(current, job, max(job.arrival, now))
            if found is not None:
                plan[job.id] = found.window
                rec.place(found.window)
                current = current.reserve([found.window])
        yield rec.snap(now, f"t={number(now)}")


def _earliest_on_nodes(table: SlotTable, window: Window, earliest: float) -> float | None:
    """The first time from ``earliest``, before the window's own start, at which every part fits
    in a free slot of its own node: tried at ``earliest`` and at every later slot start."""
    slots = [(table.node_ids[n], s, e) for n, s, e in zip(table.node, table.start, table.end, strict=True)]
    times = sorted({earliest} | {s for node, s, _ in slots if node in window.nodes and s > earliest})
    for t in times:
        if t >= window.start - EPS:
            return None
        if all(
            any(node == mine and s <= t + EPS and t + length <= e + EPS for node, s, e in slots)
            for mine, length in zip(window.nodes, window.part_lengths, strict=True)
        ):
            return t
    return None
