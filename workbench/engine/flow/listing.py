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

import numpy as np

from workbench.engine.diagnose import explain_failure
from workbench.engine.flow.cycles import capable
from workbench.engine.flow.events import EventPolicy, WaitingQueue, run_events
from workbench.engine.model import EPS, Environment, Job, Window
from workbench.engine.search import FIRST_FIT, budget_units, cost_units, find_window
from workbench.engine.search.facts import node_facts
from workbench.engine.search.firstfit import first_fit
from workbench.engine.simulate import FlowRun, Recorder
from workbench.engine.slots import SlotTable

Shapes = tuple[np.ndarray, np.ndarray, np.ndarray]  # every job's n, minimum performance and V

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
        jobs = env.jobs
        self.shapes: Shapes = (
            np.array([job.node_count for job in jobs], dtype=np.int64),
            np.array([job.min_performance for job in jobs], dtype=np.float64),
            np.array([job.volume for job in jobs], dtype=np.float64),
        )
        self.running: dict[str, Window] = {}
        # Wake-ups: a local task's end can let a waiting job start, and so can the
        # moment a reservation begins, with no arrival or completion then.
        self.wakeups = sorted({task.end for task in env.local_tasks if self.t0 < task.end < self.horizon})

    WOKE = "a local task ended"

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
        started, reserved_at = self._pass(now, order)
        for at in reserved_at:
            if at > now + EPS:
                bisect.insort(self.wakeups, at)
        return started

    def finish(self) -> None:
        fail_still_waiting(self.env, self.rec, self.queue)

    def _pass(self, now: float, order: Sequence[int]) -> tuple[list[str], list[float]]:
        """One pass at ``now``: the jobs started, and the starts of the reservations made."""
        rec, queue, running, ends = self.rec, self.queue, self.running, self.completions
        # Running jobs hold their nodes until their requested end: the prediction.
        table = self.base.with_interval(now, self.horizon).reserve(running.values())
        free = FreeNow(table, now)
        jobs = queue.jobs
        started: list[str] = []
        taken: list[int] = []
        reserved_at: list[float] = []
        rec.hold = None

        def start(at: int) -> bool:
            nonlocal table
            window = free.starts_now(table, jobs[at])
            if window is None:
                return False
            rec.place(window)
            running[window.job] = window
            ends.add(rec.actual[window.job], window.job)
            table = table.reserve([window])
            free.take(window)
            started.append(window.job)
            taken.append(at)
            return True

        order = list(order)
        visited = 0
        tried = 0
        while visited < len(order) and tried < self.reservations:
            rec.check_stop()
            at = order[visited]
            visited += 1
            if start(at):
                continue
            tried += 1
            job = jobs[at]
            found = find_window(table, job, FIRST_FIT, max(job.arrival, now))
            if found is None:
                continue
            w = found.window
            rec.note_reservation(job.id, w.start)
            if rec.hold is None:
                rec.hold = (job.id, w.start, w.length, w.nodes)
            table = table.reserve([w])
            free.take(w)
            reserved_at.append(w.start)
        # The reservations are made: the rest only start now. Those that no n nodes free now could
        # hold, found once here for all of them, are passed over (starts and reservations only
        # take nodes, so none of them could start later in the pass).
        for at in free.enough(queue, order[visited:], self.shapes):
            rec.check_stop()
            start(at)
        for at in sorted(taken, reverse=True):
            queue.remove_at(at)
        return started, reserved_at


class FreeNow:
    """The nodes free at ``now`` in a pass's table, and until when: ``starts_now`` for many jobs at
    one time without a search each.

    A window that starts now takes, at its level P (T = V / P), n of the nodes free now that are at
    least that fast and stay free for T - EPS, one of them of performance exactly P: the n cheapest
    by (price, position), the dearest giving way to the cheapest exact one if none is, within the
    budget; the fastest level that has one wins. That is ``first_fit``'s choice at t = now
    (``firstfit.first_affordable`` and ``_lite_choice``); the tests hold the two equal. Where a slot
    starts a hair after now (within 2 EPS), ``first_fit`` could start a window there: such a pass
    asks ``starts_now`` itself (``direct`` is False).
    """

    def __init__(self, table: SlotTable, now: float) -> None:
        self.now, self.horizon = now, table.iend
        self.perf, self.price = table.perf, table.price
        self.index = table.index
        free = (table.start <= now) & (table.end > now + EPS)
        self.until = np.full(table.perf.size, -math.inf)  # by node: the end of its free slot from now
        self.until[table.node[free]] = table.end[free]
        self.direct = not bool(np.any((table.start > now) & (table.start < now + 2 * EPS)))
        self._free_perf: list[float] | None = None  # the free nodes' performances, ascending

    def _perfs(self) -> list[float]:
        if self._free_perf is None:
            self._free_perf = sorted(self.perf[self.until > -math.inf].tolist())
        return self._free_perf

    def enough(self, queue: WaitingQueue, positions: Sequence[int], shapes: Shapes) -> list[int]:
        """The ``positions`` in ``queue`` of the jobs that could start now, in their order: those
        for which n nodes free now are fast enough and free long enough for their own part (a node
        of performance p serves a level P <= p, for V / P >= V / p; with a margin for rounding, so
        that no job that can start is passed over). ``shapes``: every job's (n, minimum
        performance, V), by its position in the environment."""
        if not positions or not self.direct:
            return list(positions)
        at = np.asarray(positions, dtype=np.int64)
        rows = np.asarray(queue.rows, dtype=np.int64)[at]
        need, low, volume = (values[rows] for values in shapes)
        free = np.flatnonzero(self.until > -math.inf)
        perf = self.perf[free]
        reach = (self.until[free] - self.now + 2 * EPS) * perf * (1.0 + 1e-9)  # the volume each could hold
        fits = (perf[:, None] >= low[None, :] - EPS) & (reach[:, None] >= volume[None, :])
        return at[fits.sum(axis=0) >= need].tolist()

    def take(self, window: Window) -> None:
        """The window's nodes are busy from its start (``SlotTable.reserve``): each is free now only
        until then, and not at all if that is within EPS of now."""
        begin = max(window.start, self.now)
        for node_id, end in window.part_ends():
            if min(end, self.horizon) - begin <= EPS:
                continue  # (too short a part to take: ``reserve`` leaves the slot whole too)
            x = self.index[node_id]
            until = min(self.until[x], begin)
            self.until[x] = until if until > self.now + EPS else -math.inf
        self._free_perf = None

    def starts_now(self, table: SlotTable, job: Job) -> Window | None:
        """``starts_now(table, job, now)`` on the nodes free now (``table`` is the pass's table)."""
        if not self.direct:
            return starts_now(table, job, self.now)
        perfs = self._perfs()
        n = job.node_count
        if len(perfs) - bisect.bisect_left(perfs, job.min_performance - EPS) < n:
            return None
        facts = node_facts(table, job.min_performance)
        free = facts.porder[(self.until[facts.porder] > -math.inf) & facts.eligible[facts.porder]]  # cheapest first
        lengths = facts.lengths(job.volume, 1.0, 0.0)
        room, units = self.until[free] - self.now, budget_units(job.budget, 1.0)
        hit = window_now(self.perf[free], self.price[free], room, facts.levels, lengths, n, units)
        if hit is None:
            return None
        length, picked = hit
        positions = np.sort(free[picked])
        cost = length * float(self.price[positions].sum())
        return Window(job.id, self.now, length, tuple(table.node_ids[p] for p in positions), cost)


def window_now(
    perf: np.ndarray,
    price: np.ndarray,
    room: np.ndarray,
    levels: np.ndarray,
    lengths: np.ndarray,
    n: int,
    units: int | None,
) -> tuple[float, np.ndarray] | None:
    """FirstFit's window starting now on the free nodes given cheapest first (by price, then
    position), each with its performance, price and free time from now (``room``): at the fastest
    level P (highest first in ``levels``, window lengths ``lengths``) where n of them are at least
    that fast and stay free for T - EPS, one of them of performance exactly P, the n cheapest, the
    dearest giving way to the cheapest exact one if none is, within the budget (``units``, None for
    none). (T, the chosen nodes' places in the given order), or None. EASY's node path and
    ``FreeNow`` both answer with it."""
    member = (perf[:, None] >= levels[None, :]) & (room[:, None] >= lengths[None, :] - EPS)
    exact = member & (perf[:, None] == levels[None, :])
    for k in np.flatnonzero((member.sum(axis=0) >= n) & exact.any(axis=0)).tolist():
        holds = np.flatnonzero(member[:, k])
        chosen = holds[:n].copy()
        if not exact[chosen, k].any():
            chosen[-1] = holds[np.argmax(exact[holds, k])]
        length = float(lengths[k])
        if units is not None and int(cost_units(price[chosen], length, 1.0).sum()) > units:
            continue  # the cheapest choice is over budget: a slower level
        return length, chosen
    return None


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
