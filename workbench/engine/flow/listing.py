"""List scheduling on the event core (docs/design.md "EASY" and "Flow rules").

At each event time, after the completions and arrivals, one pass visits the waiting jobs in an
order. A job starts if it has a window starting now that meets none of the pass's reservations;
the first ``reservations`` jobs that cannot start each get one: their earliest window (FirstFit)
under the prediction (running jobs hold their nodes until start + requested length) and the
reservations already made. Later jobs may start now only around them.

EASY is this pass in queue order with one reservation. A flow-rule plug-in (``workbench.api``)
chooses the order and the number of reservations: none is greedy list scheduling, one is EASY's
rule, many protect every job they reach, as conservative backfilling does at each event.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import Any

from workbench.engine.diagnose import explain_failure
from workbench.engine.flow.cycles import capable
from workbench.engine.flow.events import Completions, EventPolicy, WaitingQueue, run_events
from workbench.engine.model import EPS, Environment, Job, Window
from workbench.engine.search import FIRST_FIT, find_window
from workbench.engine.search.firstfit import first_fit
from workbench.engine.simulate import FlowRun, Recorder
from workbench.engine.slots import SlotTable

# The order of one pass: the waiting jobs (in queue order) and the time -> their positions, in the
# order to try them (each position once). None: queue order.
Order = Callable[[Sequence[Job], float], Sequence[int]] | None


def list_scheduling(
    env: Environment, rec: Recorder, order: Order = None, reservations: int = 1, opening: str | None = None
) -> FlowRun:
    """The event loop with a list-scheduling pass (EASY's general path: queue order, one reservation)."""
    opening = opening or f"start: {len(env.jobs)} jobs, {len(env.nodes)} nodes"
    yield from run_events(env, rec, ListScheduler(env, rec, order, reservations), opening)


class ListScheduler(EventPolicy):
    """The pass of the module docstring through the window search: any nodes, local tasks,
    budgets, a bounded horizon."""

    def __init__(self, env: Environment, rec: Recorder, order: Order = None, reservations: int = 1) -> None:
        super().__init__(env)
        self.env, self.rec = env, rec
        self.order, self.reservations = order, reservations
        self.t0, self.horizon = env.time.start, env.time.end
        self.base = SlotTable.from_environment(env)
        self.running: dict[str, Window] = {}
        # Wake-ups: a local task's end can let a waiting job start, and so can the
        # moment a reservation begins, with no arrival or completion then.
        self.wakeups = sorted({task.end for task in env.local_tasks if self.t0 < task.end < self.horizon})

    def wakeup(self) -> float:
        return self.wakeups[0] if self.wakeups and len(self.queue) else math.inf

    def woken(self, now: float) -> None:
        while self.wakeups and self.wakeups[0] <= now + EPS:
            self.wakeups.pop(0)

    def admit(self, job: Job, earliest: float) -> str | None:
        if not capable(self.env, job) or find_window(self.base, job, FIRST_FIT, earliest) is None:
            return explain_failure(self.base, job, earliest)
        self.queue.add(job)
        return None

    def release(self, job_id: str, payload: Any) -> None:
        self.running.pop(job_id)

    def schedule(self, now: float) -> list[str]:
        if not len(self.queue) or now >= self.horizon - EPS:
            return []
        order = range(len(self.queue)) if self.order is None else self.order(tuple(self.queue.jobs), now)
        started, reserved_at = _pass(
            self.rec, self.base, self.queue, self.running, self.completions, now, self.horizon, order, self.reservations
        )
        for at in reserved_at:
            if at > now + EPS:
                bisect.insort(self.wakeups, at)
        return started

    def finish(self) -> None:
        fail_still_waiting(self.env, self.rec, self.queue)


def _pass(
    rec: Recorder,
    base: SlotTable,
    queue: WaitingQueue,
    running: dict[str, Window],
    ends: Completions,
    now: float,
    horizon: float,
    order: Sequence[int],
    reservations: int,
) -> tuple[list[str], list[float]]:
    """One pass at ``now``: the jobs started, and the starts of the reservations made."""
    # Running jobs hold their nodes until their requested end: the prediction.
    table = base.with_interval(now, horizon).reserve(running.values())
    started: list[str] = []
    taken: list[int] = []
    reserved_at: list[float] = []
    tried = 0
    rec.hold = None
    for at in order:
        rec.check_stop()
        job = queue.jobs[at]
        window = starts_now(table, job, now)
        if window is not None:
            rec.place(window)
            running[job.id] = window
            ends.add(rec.actual[job.id], job.id)
            table = table.reserve([window])
            started.append(job.id)
            taken.append(at)
            continue
        if tried >= reservations:
            continue
        tried += 1
        found = find_window(table, job, FIRST_FIT, max(job.arrival, now))
        if found is None:
            continue
        w = found.window
        rec.note_reservation(job.id, w.start)
        if rec.hold is None:
            rec.hold = (job.id, w.start, w.length, w.nodes)
        table = table.reserve([w])
        reserved_at.append(w.start)
    for at in sorted(taken, reverse=True):
        queue.remove_at(at)
    return started, reserved_at


def starts_now(table: SlotTable, job: Job, now: float) -> Window | None:
    """The FirstFit window of ``job`` if it starts at ``now``."""
    free_now = (table.start <= now + EPS) & (table.end > now + EPS)
    capable_now = table.perf[table.node[free_now]] >= job.min_performance - EPS
    if int(capable_now.sum()) < job.node_count:
        return None
    found = first_fit(table, job, max(job.arrival, now), before=now + 2 * EPS)  # nothing later matters
    if found is None or found.window.start > now + EPS:
        return None
    return found.window


def fail_still_waiting(env: Environment, rec: Recorder, queue: WaitingQueue) -> None:
    """The events have run out (a bounded horizon): every job still waiting fails with the reason
    the slots left give (failing changes no window, so one table serves them all)."""
    if not queue.jobs:
        return
    table = SlotTable.from_environment(env, rec.windows.values())
    for job in queue.jobs:
        rec.fail(job.id, explain_failure(table, job, max(job.arrival, env.time.start)))
