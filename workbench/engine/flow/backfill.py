"""Conservative backfilling with any selector (seed 001 §2.2, §4.1; DESIGN.md "Backfilling").

Jobs are taken in queue order; each gets the best window the selector finds on
the slots left by the local tasks and the earlier reservations, and keeps it.
A job with no window stays unscheduled, with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from workbench.engine.diagnose import explain_failure
from workbench.engine.errors import Cancelled
from workbench.engine.model import Environment, Window
from workbench.engine.schedule import Schedule
from workbench.engine.selectors import Selector
from workbench.engine.slots import SlotTable

Progress = Callable[[int, int], None] | None
StopFn = Callable[[], bool] | None


def backfill(
    env: Environment,
    selector: Selector,
    name: str = "",
    progress: Progress = None,
    should_stop: StopFn = None,
    resolution: float = 1.0,
) -> Schedule:
    """Static conservative backfilling of the whole queue over [time.start, horizon]."""
    began = time.perf_counter()
    table = SlotTable.from_environment(env)
    queue = env.queue()
    windows: list[Window] = []
    unscheduled: list[str] = []
    reasons: dict[str, str] = {}
    explaining = 0.0  # the diagnosis is not the strategy's own compute time
    for done, job in enumerate(queue, start=1):
        if should_stop is not None and should_stop():
            raise Cancelled("backfilling cancelled")
        earliest = max(job.arrival, env.time.start)
        found = selector.select(table, job, earliest, should_stop)
        if found is None:
            unscheduled.append(job.id)
            t0 = time.perf_counter()
            reasons[job.id] = explain_failure(table, job, earliest, resolution)
            explaining += time.perf_counter() - t0
        else:
            windows.append(found.window)
            table = table.reserve([found.window])
        if progress is not None:
            progress(done, len(queue))
    return Schedule(
        strategy=name or selector.name,
        windows=tuple(windows),
        unscheduled=tuple(unscheduled),
        reasons=reasons,
        elapsed_ms=(time.perf_counter() - began - explaining) * 1000.0,
    )
