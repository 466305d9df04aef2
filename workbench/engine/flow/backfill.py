"""Conservative backfilling with any selector (seed 001 §2.2, §4.1; DESIGN.md "Backfilling").

Jobs are taken in queue order; each gets the best window the selector finds on
the slots left by the local tasks and the earlier reservations, and keeps it.
With ``dynamic`` (the default), every early completion (actual_fraction < 1)
plans the jobs that have not started again, in queue order, on the freed slots:
a job moves only to an earlier start, never later, and a started job never moves.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.engine.flow.cycles import Placer, PlaceRun
from workbench.engine.model import EPS, Job, Window
from workbench.engine.selectors import Selector
from workbench.engine.simulate import Recorder
from workbench.engine.slots import SlotTable


def backfill_placer(selector: Selector, dynamic: bool = True, fixed: Sequence[Window] = ()) -> Placer:
    """A placer for the cycle driver; ``fixed`` windows are already placed and never move."""

    def place(rec: Recorder, jobs: list[Job], table: SlotTable, cs: float, ce: float) -> PlaceRun:
        plan: dict[str, Window] = {}
        current = table.reserve(fixed)
        for job in jobs:
            rec.check_stop()
            found = selector.select(current, job, max(job.arrival, cs), rec.should_stop)
            if found is not None:
                plan[job.id] = found.window
                rec.place(found.window)
                current = current.reserve([found.window])
        where = f"cycle {rec.cycle}: " if rec.cycle is not None else ""
        yield rec.snap(cs, f"{where}{selector.name} planned {len(plan)} of {len(jobs)} jobs")
        if dynamic:
            yield from replan_on_completions(rec, jobs, plan, list(fixed), table, ce, selector)

    return place


def replan_on_completions(
    rec: Recorder,
    jobs: list[Job],
    plan: dict[str, Window],
    fixed: list[Window],
    table: SlotTable,
    ce: float,
    selector: Selector,
) -> PlaceRun:
    """At each early completion, move the jobs that have not started to earlier windows."""
    now = table.istart
    while True:
        windows = fixed + list(plan.values())
        early = [rec.actual[w.job] for w in windows if rec.actual[w.job] < w.end - EPS]
        later = [end for end in early if end > now + EPS]
        if not later:
            return
        now = min(later)
        done = sorted(w.job for w in windows if abs(rec.actual[w.job] - now) <= EPS and rec.actual[w.job] < w.end)
        # What is busy from now on: every window as planned, except those already over.
        live = [w for w in windows if rec.actual[w.job] > now + EPS]
        current = table.with_interval(now, ce).reserve(live)
        moved = []
        for job in jobs:
            old = plan.get(job.id)
            if old is not None and (old.start < now - EPS or old.start <= max(job.arrival, now) + EPS):
                continue  # started, or already as early as it can be
            rec.check_stop()
            trial = current.release([old]) if old is not None else current
            found = selector.select(trial, job, max(job.arrival, now), rec.should_stop)
            if found is not None and (old is None or found.window.start < old.start - EPS):
                plan[job.id] = found.window
                rec.place(found.window)
                current = trial.reserve([found.window])
                moved.append(job.id)
        what = f"moved {', '.join(moved)} earlier" if moved else "nothing could move earlier"
        yield rec.snap(now, f"t={now:g}: {', '.join(done)} finished early; {what}")
