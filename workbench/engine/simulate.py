"""Stepping through a strategy's run: immutable snapshots (docs/design.md "Cycles").

Every flow strategy is a generator that yields after each step (one cycle, or
one event of a dynamic strategy). It records what it does in a ``Recorder``;
the recorder appends to a log that only ever grows, and a ``Snapshot`` is a
view of a prefix of that log plus the queue and batch of that moment. So a
snapshot is cheap to make, never changes, and stepping back is just reading an
earlier one. ``Simulator`` drives the generator: ``step()`` for the GUI,
``run()`` to the end for the command line.
"""

from __future__ import annotations

import bisect
import gc
import time
from collections import defaultdict
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

import numpy as np

from workbench.engine import kernels
from workbench.engine.errors import Cancelled
from workbench.engine.metrics import FlowMetrics, flow_metrics
from workbench.engine.model import EPS, Environment, Window
from workbench.engine.schedule import LazyEnds, LazyWindows, Schedule, WindowArrays
from workbench.engine.slots import Distances, SlotTable

StopFn = Callable[[], bool] | None
Progress = Callable[[int, int], None] | None
REPORT_EVERY = 0.05  # seconds between progress reports


@dataclass
class Watch:
    """What the recorder keeps about one watched job while a strategy runs ("Why here?")."""

    job: str
    seen: tuple[SlotTable, float, Any] | None = None  # (slots, earliest, selector) of the last search
    placed_by: tuple[SlotTable, float, Any] | None = None  # the search that produced its window
    alternatives: list[Window] = field(default_factory=list)  # CSS
    alternative_values: list[float] = field(default_factory=list)
    combination: str = ""


class WatchSettled(Exception):
    """Raised by a flow once the watched job can never be placed again (it started, or can start
    no earlier): the rest of the run cannot change what "Why here?" says, so it stops there."""


@dataclass
class _Log:
    """Append-only history of a run: (job, window, actual end) placements, failures, alternatives."""

    placements: list[tuple[str, Window, float, Distances | None]] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)
    alternatives: list[tuple[str, int]] = field(default_factory=list)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The state after one step. Everything it shows is fixed when it is made."""

    step: int
    time: float
    label: str
    cycle: int | None
    queue: tuple[str, ...]
    batch: tuple[str, ...]
    env: Environment = field(repr=False)
    _log: _Log = field(repr=False)
    _placed: int = field(repr=False)
    _failed: int = field(repr=False)
    _alts: int = field(repr=False)
    # EASY: the blocked head's reservation at this step (job, start, length, nodes), if any.
    hold: tuple[str, float, float, tuple[str, ...]] | None = None
    # The step before, whose plan and windows this one's are made from when it has them (a step
    # through a long run reads only the placements since; 100,000 windows: 170 ms a step otherwise).
    previous: Snapshot | None = field(default=None, repr=False, compare=False)

    def _known_before(self, name: str) -> Snapshot | None:
        """The step before when it has worked out ``name`` already, on the same log."""
        before = self.previous
        if before is None or before._log is not self._log or before._placed > self._placed:
            return None
        return before if name in before.__dict__ else None

    @cached_property
    def _plan(self) -> tuple[dict[str, Window], dict[str, float], dict[str, Distances]]:
        windows: dict[str, Window] = {}
        ends: dict[str, float] = {}
        distances: dict[str, Distances] = {}
        since = 0
        before = self._known_before("_plan")
        if before is not None:
            windows, ends, distances = dict(before._plan[0]), dict(before._plan[1]), dict(before._plan[2])
            since = before._placed
        for job, window, end, seen in self._log.placements[since : self._placed]:
            windows[job] = window  # a later placement of the same job replaces the earlier one
            ends[job] = end
            if seen is not None:
                distances[job] = seen
            else:
                distances.pop(job, None)
        return windows, ends, distances

    @cached_property
    def windows(self) -> tuple[Window, ...]:
        """Every window placed so far (started or reserved), by start then job order."""
        order = self.env.job_index

        def key(w: Window) -> tuple[float, int]:
            return w.start, order[w.job]

        before = self._known_before("windows")
        if before is None or "_plan" not in before.__dict__:
            return tuple(sorted(self._plan[0].values(), key=key))
        # The step before's, with the jobs placed since put in their place (keys are unique per job:
        # the same order as sorting them all).
        placed = self._plan[0]
        since = {job for job, _, _, _ in self._log.placements[before._placed : self._placed]}
        if not since:
            return before.windows
        replaced = since & before._plan[0].keys()
        kept = [w for w in before.windows if w.job not in replaced] if replaced else list(before.windows)
        for job in since:
            bisect.insort(kept, placed[job], key=key)
        # The step before keeps no copy of what this one now holds (a Play through a long run would keep
        # one per step); read again, it is made again.
        for name in ("_plan", "windows"):
            before.__dict__.pop(name, None)
        return tuple(kept)

    @cached_property
    def longest(self) -> float:
        """No window placed so far is longer (a bound: one a later placement replaced may count),
        so that the windows meeting a time span are found from their starts (``windows`` are by start)."""
        before = self.previous
        if before is not None and before._log is self._log and "longest" in before.__dict__:
            since = self._log.placements[before._placed : self._placed]
            return max([before.longest, *(window.length for _, window, _, _ in since)])
        return max((w.length for w in self.windows), default=0.0)

    @cached_property
    def actual_ends(self) -> Mapping[str, float]:
        return MappingProxyType(dict(self._plan[1]))

    @cached_property
    def failed(self) -> Mapping[str, str]:
        return MappingProxyType(dict(self._log.failures[: self._failed]))

    @cached_property
    def alternatives(self) -> Mapping[str, int]:
        return MappingProxyType(dict(self._log.alternatives[: self._alts]))

    def started(self, job_id: str) -> bool:
        window = self._plan[0].get(job_id)
        return window is not None and window.start <= self.time + EPS

    def finished(self, job_id: str) -> bool:
        end = self._plan[1].get(job_id)
        return end is not None and end <= self.time + EPS

    @cached_property
    def schedule(self) -> Schedule:
        made = Schedule(
            strategy="",
            windows=self.windows,
            unscheduled=tuple(self.failed),
            reasons=dict(self.failed),
            actual_ends=dict(self.actual_ends),
            alternatives=dict(self.alternatives),
            distances=dict(self._plan[2]),
        )
        made.__dict__["_by_job"] = self._plan[0]  # its ``window_of`` index is the plan (not made again)
        return made

    @cached_property
    def busy_fraction(self) -> float:
        """The share of the nodes running a job at this snapshot's time (not a running total)."""
        t = self.time
        ends = self._plan[1]
        busy = {n for w in self.windows if w.start <= t + EPS and ends.get(w.job, w.end) > t + EPS for n in w.nodes}
        return len(busy) / len(self.env.nodes) if self.env.nodes else 0.0

    def busy_fractions(self, times: Sequence[float]) -> np.ndarray:
        """``busy_fraction`` of the earlier snapshots at ``times`` (none after this one's), read from
        this snapshot's plan at once. A window started by then is in it as it ran (a plan moves only
        jobs still waiting, and to starts after its own time), so one sort serves a thousand steps:
        asking each snapshot sorted its every window, 27 s for the first 13,000 KTH steps."""
        windows, ends = self._plan[0], self._plan[1]
        n = len(windows)
        starts = np.fromiter((w.start for w in windows.values()), np.float64, n)
        finish = np.fromiter((ends.get(j, w.end) for j, w in windows.items()), np.float64, n)
        width = np.fromiter((len(w.nodes) for w in windows.values()), np.float64, n)
        by_start, by_end = np.argsort(starts, kind="stable"), np.argsort(finish, kind="stable")
        started = np.concatenate(([0.0], np.cumsum(width[by_start])))
        ended = np.concatenate(([0.0], np.cumsum(width[by_end])))
        at = np.asarray(times, dtype=np.float64) + EPS
        running = started[np.searchsorted(starts[by_start], at, side="right")]
        running -= ended[np.searchsorted(finish[by_end], at, side="right")]
        return running / len(self.env.nodes) if self.env.nodes else np.zeros(len(at))

    @cached_property
    def metrics(self) -> FlowMetrics:
        """Measures of every window placed so far."""
        return flow_metrics(self.env, self.schedule)


class Recorder:
    """The mutable side of a run: what a strategy placed (or moved) and gave up on."""

    def __init__(
        self,
        env: Environment,
        history: bool = True,
        should_stop: StopFn = None,
        progress: Progress = None,
        explain: bool = False,
    ) -> None:
        self.env = env
        self.history = history
        self.should_stop = should_stop
        self.progress = progress
        self.explain = explain  # keep what each placement saw (the GUI's tooltips), at a small cost
        self.distances: dict[str, Distances] = {}
        self._reported = 0.0
        self._log = _Log()
        # Job id -> its window and where it really ends. A compiled run's windows are kept as columns
        # instead (``place_columns``) until ``materialise``: these dicts are then empty.
        self.windows: dict[str, Window] = {}
        self.actual: dict[str, float] = {}
        self._lazy: tuple[LazyWindows, LazyEnds] | None = None
        self.failed: dict[str, str] = {}
        self.alternatives: dict[str, int] = {}
        self.reservations: dict[str, float] = {}  # EASY: the first reserved start of each head
        # The jobs the flow still has to start, in queue order; a snapshot shows those of them that
        # have arrived and not started by its time (``waiting``).
        self.queue: tuple[str, ...] = ()
        self._queue_seen: tuple[str, ...] | None = None
        self._by_arrival: list[tuple[float, str]] = []  # the queue's jobs by arrival, not yet arrived
        self._waiting: dict[str, int] = {}  # arrived, not started (yet): job -> place in queue order
        self._place: dict[str, int] = {}
        self.batch: tuple[str, ...] = ()
        self.cycle: int | None = None
        self.steps = 0
        self.watch: Watch | None = None  # "Why here?": the job whose search to keep (engine/explain.py)
        self._last_snap: Snapshot | None = None  # (``Snapshot.previous``)
        self.hold: tuple[str, float, float, tuple[str, ...]] | None = None  # EASY's head reservation now
        self.groups: dict[str, str] = {}  # the part of a batch that placed each job ("slice 2 of 3", …)
        # What the run had to do, for benchmarks (``workbench bench --only saturation``): counts of
        # early completions, certificate checks, searches and moves, and the seconds in searches.
        self.counts: defaultdict[str, float] = defaultdict(float)
        # The windows as columns when a compiled run made them all at once (``Schedule.arrays``);
        # any later placement drops them.
        self.arrays: WindowArrays | None = None

    def materialise(self) -> None:
        """Make a compiled run's columns (``place_columns``) into the ``windows`` and ``actual`` dicts,
        for code that reads them one by one; nothing to do otherwise."""
        if self._lazy is None:
            return
        windows, ends = self._lazy
        self._lazy = None
        for w in windows:
            self.windows[w.job] = w
        self.actual.update(ends)

    def place_columns(self, arrays: WindowArrays, job_ids: Sequence[str], node_ids: Sequence[str]) -> None:
        """Record every window of a compiled run at once, as columns in the schedule's order (start,
        then job position): no record is made unless something reads one (``LazyWindows``). Only for
        a run without history, before anything else is placed."""
        assert not self.windows and not self.history
        self._lazy = LazyWindows(arrays, job_ids, node_ids), LazyEnds(arrays, job_ids)
        self.arrays = arrays

    def placed_count(self) -> int:
        return len(self._lazy[0]) if self._lazy is not None else len(self.windows)

    def last_end(self, default: float) -> float:
        """The latest actual end of a window placed (``default`` when none is)."""
        if self._lazy is not None:
            actual = self._lazy[0].arrays.actual
            return float(actual.max()) if actual.size else default
        return max(self.actual.values(), default=default)

    def watching(self, job_id: str) -> bool:
        return self.watch is not None and self.watch.job == job_id

    def watched_settled(self) -> None:
        """The watched job can never move again: stop the run (``WatchSettled``)."""
        if self.watch is not None:
            raise WatchSettled(self.watch.job)

    def saw(self, table: SlotTable, earliest: float, selector: object) -> None:
        """The slots a search for the watched job saw (call only when ``watching`` it)."""
        if self.watch is not None:
            self.watch.seen = (table, earliest, selector)

    def actual_end(self, window: Window) -> float:
        """Where the job really releases its nodes: start + actual_fraction * length."""
        return window.start + self.env.job(window.job).actual_fraction * window.length

    def place(self, window: Window, distances: Distances | None = None, actual_end: float | None = None) -> None:
        """Record a window (a later one of the same job replaces it); ``distances``: the L_left
        and L_right its strategy saw, kept when the run explains itself (``explain``);
        ``actual_end``: ``self.actual_end(window)`` when the caller has already worked it out."""
        end = self.actual_end(window) if actual_end is None else actual_end
        if self._lazy is not None:  # a compiled run's columns become records first
            self.materialise()
        self.arrays = None
        self.windows[window.job] = window
        self.actual[window.job] = end
        if self.history:  # only snapshots read the log; a long run without them keeps none
            self._log.placements.append((window.job, window, end, distances if self.explain else None))
        if self.explain and distances is not None:
            self.distances[window.job] = distances
        else:
            self.distances.pop(window.job, None)
        self.failed.pop(window.job, None)
        if self.watch is not None and window.job == self.watch.job:
            self.watch.placed_by = self.watch.seen

    def fail(self, job_id: str, reason: str) -> None:
        self.failed[job_id] = reason
        if self.history:
            self._log.failures.append((job_id, reason))

    def count_alternatives(self, job_id: str, count: int) -> None:
        self.alternatives[job_id] = count
        if self.history:
            self._log.alternatives.append((job_id, count))

    def note_reservation(self, job_id: str, start: float) -> None:
        self.reservations.setdefault(job_id, start)

    def report(self, done: int, total: int) -> None:
        """Progress of the run: ``done`` of ``total`` units of work (at most every 50 ms)."""
        if self.progress is None:
            return
        now = time.perf_counter()
        if now - self._reported >= REPORT_EVERY or done >= total:
            self._reported = now
            self.progress(done, total)

    def check_stop(self) -> None:
        if self.should_stop is not None and self.should_stop():
            raise Cancelled("simulation cancelled")

    def waiting(self, at: float) -> tuple[str, ...]:
        """The queue at ``at``: the flow's queue (``self.queue``) less the jobs that have not arrived
        by then and those that have started (their window begins by ``at``) or failed, in queue
        order. Kept up to date step by step: each call costs what is waiting, not the whole queue."""
        if self.queue is not self._queue_seen:
            self._queue_seen = self.queue
            self._place = {job: k for k, job in enumerate(self.queue)}
            arrival = self.env.job_index
            jobs = self.env.jobs
            self._by_arrival = sorted(((jobs[arrival[j]].arrival, j) for j in self.queue), reverse=True)
            self._waiting = {}
        by_arrival, waiting = self._by_arrival, self._waiting
        while by_arrival and by_arrival[-1][0] <= at + EPS:
            job = by_arrival.pop()[1]
            waiting[job] = self._place[job]
        for job in list(waiting):
            window = self.windows.get(job)
            if (window is not None and window.start <= at + EPS) or job in self.failed:
                del waiting[job]
        return tuple(sorted(waiting, key=waiting.__getitem__))

    def snap(self, at: float, label: str) -> Snapshot | None:
        """A snapshot of now (None when the run keeps no history)."""
        self.check_stop()
        self.steps += 1
        if not self.history:
            return None
        self._last_snap = Snapshot(
            step=self.steps,
            time=at,
            label=label,
            cycle=self.cycle,
            queue=self.waiting(at),
            batch=self.batch,
            env=self.env,
            _log=self._log,
            _placed=len(self._log.placements),
            _failed=len(self._log.failures),
            _alts=len(self._log.alternatives),
            hold=self.hold,
            previous=self._last_snap,
        )
        return self._last_snap

    def schedule(self, strategy: str, elapsed_ms: float, prepare_ms: float = 0.0) -> Schedule:
        jobs = self.env.jobs
        windows: Sequence[Window]
        ends: Mapping[str, float]
        arrays: WindowArrays | None
        if self._lazy is not None:  # a compiled run's columns, in the schedule's order already
            windows, ends = self._lazy
            arrays = self._lazy[0].arrays
            placed = np.zeros(len(jobs), dtype=bool)
            placed[arrays.job_row] = True
            unplaced = [jobs[i].id for i in np.flatnonzero(~placed).tolist()]
        else:
            order = self.env.job_index
            windows = tuple(sorted(self.windows.values(), key=lambda w: (w.start, order[w.job])))
            ends = dict(self.actual)
            arrays = self.arrays if self.arrays is not None and self.arrays.start.size == len(windows) else None
            unplaced = [j.id for j in jobs if j.id not in self.windows]
        reasons = {j: self.failed.get(j, "not placed before the end of the run") for j in unplaced}
        return Schedule(
            strategy=strategy,
            windows=windows,
            unscheduled=tuple(unplaced),
            reasons=reasons,
            elapsed_ms=elapsed_ms,
            prepare_ms=prepare_ms,
            actual_ends=ends,
            alternatives=dict(self.alternatives),
            distances=dict(self.distances),
            groups=dict(self.groups),
            counts=dict(self.counts),
            arrays=arrays,
        )


@contextmanager
def collection_paused() -> Iterator[None]:
    """Python's cycle collector held off while a run records many windows at once (a compiled run's
    whole schedule). None of them form cycles, and each full collection they would set off walks
    every object the environment holds: on the whole KTH trace (28,467 jobs) that was a third of
    EASY's time. Objects freed meanwhile are freed as usual; only cycles wait for the next
    collection. Safe from any thread: the collector is turned back on only if it was on."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


FlowRun = Generator[Snapshot | None, None, None]
FlowFactory = Callable[[Environment, dict[str, Any], Recorder], FlowRun]


class Simulator:
    """Steps a flow strategy one snapshot at a time, or runs it to the end.

    ``snapshots`` is the history (the first one is the state before any step);
    ``step()`` returns the next snapshot, or None when the run is over.
    """

    def __init__(
        self,
        env: Environment,
        name: str,
        factory: FlowFactory,
        params: dict[str, Any],
        should_stop: StopFn = None,
        history: bool = True,
        progress: Progress = None,
        explain: bool = False,
    ) -> None:
        self.env = env
        self.name = name
        self.recorder = Recorder(env, history, should_stop, progress, explain)
        self._gen = factory(env, params, self.recorder)
        self.snapshots: list[Snapshot] = []
        self.done = False
        self._compute = 0.0
        self._prepare = 0.0

    def step(self) -> Snapshot | None:
        if self.done:
            return None
        began = time.perf_counter()
        prepared = kernels.prepared_seconds()
        try:
            snap = next(self._gen)
        except StopIteration:
            self.done = True
            return None
        finally:
            # Making the compiled kernels ready is the process's, not the run's: timed apart.
            spent = kernels.prepared_seconds() - prepared
            self._prepare += spent
            self._compute += time.perf_counter() - began - spent
        if snap is not None:
            self.snapshots.append(snap)
        return snap

    def run(self) -> Schedule:
        """Run to the end (the strategy reports its progress through the recorder)."""
        while not self.done:
            self.step()
        return self.result()

    def result(self) -> Schedule:
        return self.recorder.schedule(self.name, self._compute * 1000.0, self._prepare * 1000.0)
