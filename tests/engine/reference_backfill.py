"""The straightforward conservative backfilling, kept as the reference for the fast one.

This is the implementation the engine had before it scaled (DESIGN.md "Backfilling"):
the whole slot table is rebuilt at every early completion and every job that has not
started is searched again, in queue order. It is slow and obviously right; the
property tests check that ``workbench.engine.flow.backfill`` gives identical schedules.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.engine.flow.cycles import Placer, PlaceRun
from workbench.engine.model import EPS, Job, Window
from workbench.engine.selectors import Selector
from workbench.engine.simulate import Recorder
from workbench.engine.slots import SlotTable


def reference_placer(selector: Selector, dynamic: bool = True, fixed: Sequence[Window] = ()) -> Placer:
    def place(rec: Recorder, jobs: list[Job], table: SlotTable, cs: float, ce: float) -> PlaceRun:
        plan: dict[str, Window] = {}
        current = table.reserve(fixed)
        for job in jobs:
            found = selector.select(current, job, max(job.arrival, cs))
            if found is not None:
                plan[job.id] = found.window
                rec.place(found.window)
                current = current.reserve([found.window])
        yield rec.snap(cs, "planned")
        if dynamic:
            yield from _replan(rec, jobs, plan, list(fixed), table, ce, selector)

    return place


def _replan(
    rec: Recorder,
    jobs: list[Job],
    plan: dict[str, Window],
    fixed: list[Window],
    table: SlotTable,
    ce: float,
    selector: Selector,
) -> PlaceRun:
    now = table.istart
    while True:
        windows = fixed + list(plan.values())
        early = [rec.actual[w.job] for w in windows if rec.actual[w.job] < w.end - EPS]
        later = [end for end in early if end > now + EPS]
        if not later:
            return
        now = min(later)
        live = [w for w in windows if rec.actual[w.job] > now + EPS]
        current = table.with_interval(now, ce).reserve(live)
        for job in jobs:
            old = plan.get(job.id)
            if old is not None and (old.start < now - EPS or old.start <= max(job.arrival, now) + EPS):
                continue
            trial = current.release([old]) if old is not None else current
            found = selector.select(trial, job, max(job.arrival, now))
            if found is not None and (old is None or found.window.start < old.start - EPS):
                plan[job.id] = found.window
                rec.place(found.window)
                current = trial.reserve([found.window])
        yield rec.snap(now, f"t={now:g}")
