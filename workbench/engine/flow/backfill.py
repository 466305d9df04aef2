"""Conservative backfilling with any selector (seed 001 §2.2, §4.1; docs/design.md "Backfilling").

Reservations are made upon arrival (seed 001 §2.2: conservative backfilling "either
immediately starts a job or makes an appropriate reservation upon the arrival"): the
jobs that have arrived by the start are planned in queue order, and each later job
gets the best window the selector finds when it arrives (simultaneous arrivals in
queue order), on the slots left by the local tasks and the reservations so far. So a
job submitted later never holds a slot that an earlier one could move up into.
With ``dynamic`` (the default), every early completion (actual_fraction < 1) plans
the arrived jobs that have not started again, in queue order, on the freed slots,
before the arrivals of that moment: a job moves only to an earlier start, never
later, and a started job never moves. Without it, the jobs are planned once, in
order of arrival (queue order at equal times).

How it scales to long flows (the semantics are exactly those of the plain
implementation kept in ``tests/support/reference_backfill.py``):

* The slots live in a mutable ``Profile``; a search reads only the time range it
  needs (``search_profile``), never the whole plan.
* A waiting job is *verified* once a search showed that no feasible window starts
  before its reservation. It can only move earlier after slots are freed (an early
  completion, or another job moving away), and then only if a freed gap, merged with
  its neighbours, could hold its window before its start; each freed gap is tested
  against every verified job at once, and only the jobs it could help are searched
  again, and only where such a gap lets a window start (``kernels.unverify`` keeps the
  range). The search asks FirstFit first (is there an earlier feasible window at all?),
  so most re-checks stop after a cheap search.
* A whole pass runs in compiled code (``kernels.replan_pass``): the re-checks, and the moves
  of every job whose selector's window is FirstFit's (``first_fit_answers``); Python then
  records the moves in their order. For the other jobs the pass stops where the selector's
  own search must decide.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import time
from collections.abc import Mapping, Sequence

import numpy as np

from workbench.engine import kernels, words
from workbench.engine.errors import ParameterError, show
from workbench.engine.flow.compiled_pass import CompiledPass
from workbench.engine.flow.cycles import Placer, PlaceRun
from workbench.engine.model import EPS, Job, Window
from workbench.engine.profile import NO_OWNER, Profile, windows_profile
from workbench.engine.search import Found, SearchSpec, node_facts, search_profile
from workbench.engine.selectors import SearchSelector, Selector
from workbench.engine.simulate import Recorder
from workbench.engine.slots import Distances, SlotTable

REPLAN_MODES = ("search", "nodes")


def backfill_placer(
    selector: Selector, dynamic: bool = True, fixed: Sequence[Window] = (), replan: str = "search"
) -> Placer:
    """A placer for the cycle driver; ``fixed`` windows are already placed and never move.

    ``replan`` says how a waiting job moves up after an early completion: ``search``, the
    selector's window found again on any nodes; ``nodes``, the same nodes and part lengths
    at the earliest start they allow (the plan run "on the chosen resources", seed 000 §7.2).
    """
    if replan not in REPLAN_MODES:
        raise ParameterError("replan", f"expected one of {', '.join(REPLAN_MODES)}, not {show(replan)}")

    def place(rec: Recorder, jobs: list[Job], table: SlotTable, cs: float, ce: float) -> PlaceRun:
        # The kernels this run uses, made ready (compiled once per install) before it starts.
        kernels.prepare(kernels.BACKFILL if dynamic and replan == "search" else kernels.SEARCH, rec.should_stop)
        profile = windows_profile(table, fixed)
        plan: dict[str, Window] = {}
        early = sum(1 for job in jobs if job.actual_fraction < 1.0) + len(fixed) if dynamic else 0
        total = len(jobs) + early
        if dynamic:
            first = [i for i, job in enumerate(jobs) if job.arrival <= cs + EPS]
        else:  # in order of arrival, queue order at equal times
            first = sorted(range(len(jobs)), key=lambda i: max(jobs[i].arrival, cs))
        answers = first_fit_answers(selector, jobs, profile)
        for done, i in enumerate(first):
            rec.check_stop()
            rec.report(done, total)
            _plan_new(rec, selector, profile, plan, jobs[i], i, max(jobs[i].arrival, cs), bool(answers[i]))
        where = f"cycle {rec.cycle}: " if rec.cycle is not None else ""
        yield rec.snap(cs, f"{where}{selector.name} planned {len(plan)} of {len(first)} jobs")
        if dynamic:
            replanner = Replanner(rec, selector, jobs, plan, list(fixed), profile, cs, ce, replan == "nodes", answers)
            yield from replanner.run(len(first), total)
        rec.report(total, total)

    return place


def first_fit_answers(selector: Selector, jobs: list[Job], profile: Profile) -> np.ndarray:
    """Per job: is FirstFit's window (the feasibility search) the selector's? For FirstFit itself,
    and for a window-wide criterion when the job has one performance level to choose from."""
    same = isinstance(selector, SearchSelector) and _same_spec(selector.spec, selector.feasibility)
    levels = np.array([node_facts(profile, job.min_performance).levels.size for job in jobs], dtype=np.int64)
    return np.full(len(jobs), same) | (selector.first_fit_at_one_level & (levels == 1))


def _plan_new(
    rec: Recorder,
    selector: Selector,
    profile: Profile,
    plan: dict[str, Window],
    job: Job,
    i: int,
    earliest: float,
    first_fit: bool,
) -> Window | None:
    """A job's first reservation: the selector's window from ``earliest`` (found by FirstFit's
    search when that is the same window), taken out of the profile."""
    if rec.watching(job.id):
        rec.saw(profile.table(earliest), earliest, selector)
    began = time.perf_counter()
    if first_fit:
        found = search_profile(profile, job, selector.feasibility, earliest, rec.should_stop)
    else:
        found = selector.select_in(profile, job, earliest, rec.should_stop)
    rec.counts["search_s"] += time.perf_counter() - began
    rec.counts["searches"] += 1
    if found is None:
        return None
    plan[job.id] = found.window
    rec.place(found.window, _distances(found, profile, earliest, NO_OWNER) if rec.explain else None)
    profile.add(found.window, i)
    return found.window


def _distances(found: Found, profile: Profile, earliest: float, without: int) -> Distances | None:
    """The window's L distances on the slots it was found in (a search in place keeps no table)."""
    if found.table is None:
        found = dataclasses.replace(found, table=profile.search_table(earliest, without=without))
    return found.distances()


def _same_spec(a: SearchSpec, b: SearchSpec) -> bool:
    return (type(a.criterion), a.exact, a.length_factor, a.resolution, a.quantum) == (
        type(b.criterion),
        b.exact,
        b.length_factor,
        b.resolution,
        b.quantum,
    )


class Replanner:
    """Dynamic conservative backfilling: the event loop over early completions."""

    def __init__(
        self,
        rec: Recorder,
        selector: Selector,
        jobs: list[Job],
        plan: dict[str, Window],
        fixed: list[Window],
        profile: Profile,
        now: float,
        end: float,
        keep_nodes: bool,
        answers: np.ndarray,
    ) -> None:
        self.rec = rec
        self.keep_nodes = keep_nodes
        self.selector = selector
        self.jobs = jobs
        self.plan = plan
        self.profile = profile
        self.now = now
        self.feasibility = selector.feasibility
        # Per job: the feasibility search already is the selector's answer; the selector picks an
        # earliest window (its first planning search proved there is no earlier one).
        self.first_fit_answers = answers
        self.earliest = self.first_fit_answers | selector.picks_earliest
        self.factor = self.feasibility.length_factor
        m = len(jobs)
        self.arrival = np.array([j.arrival for j in jobs], dtype=np.float64)
        self.min_perf = np.array([j.min_performance for j in jobs], dtype=np.float64)
        self.volume = np.array([j.volume for j in jobs], dtype=np.float64)
        # Per job, the level of its fastest window and that level's speed (``fastest_levels``).
        self.fastest, self.top = fastest_levels(profile, jobs)
        self.start = np.full(m, math.inf)
        self.watched = next((i for i, job in enumerate(jobs) if rec.watching(job.id)), -1)
        for i, job in enumerate(jobs):
            if job.id in plan:
                self.start[i] = plan[job.id].start
        # The first planning search proved there is no earlier window for the earliest-
        # picking selectors, and none at all for a job it could not place. Jobs yet to
        # arrive are neither: they enter when they arrive (``_arrive``).
        self.verified = np.isinf(self.start) | self.earliest
        # Where a job not verified can have an earlier window (``kernels.unverify``): everywhere,
        # unless freed gaps alone cleared its certificate.
        self.lower = np.full(m, -math.inf)
        self.upper = np.full(m, math.inf)
        self.range = (self.lower, self.upper)
        came = self.arrival <= now + EPS
        self.active = came.copy()
        self.live = np.flatnonzero(came)  # a superset of the active jobs, in queue order
        later = np.flatnonzero(~came & (self.arrival < end - EPS))
        self.coming = later[np.argsort(self.arrival[later], kind="stable")].tolist()[::-1]  # next: last
        self._seq = 0
        # (actual end, sequence number, job) of every window, and of the early completions to come;
        # an entry is valid while it is its job's latest (``seq``), else deleted lazily.
        self.ends: list[tuple[float, int, str]] = []
        self.early: list[tuple[float, int, str]] = []
        self.seq: dict[str, int] = {}
        # Every window not over yet, fixed ones too. The compiled pass keeps the windows it moves in
        # its arrays and makes them when read (``_window_now``): until then an entry here is out of date.
        self.current: dict[str, Window] = {}
        # The pass runs compiled unless a job keeps its nodes (``replan="nodes"``).
        self.compiled = None if keep_nodes else CompiledPass.build(self, jobs, profile)
        for window in [*fixed, *plan.values()]:
            self._track(window)

    def _track(self, window: Window, compiled_knows: bool = False) -> None:
        """Follow the job's window: its actual end (the early completions to come) and, unless the
        compiled pass made the move itself (``compiled_knows``), the pass's copy of its nodes."""
        self.current[window.job] = window
        if self.compiled is not None and not compiled_knows:
            self.compiled.track(window)
        self.follow(window.job, self.rec.actual[window.job], window.end)
        self.compact()

    def follow(self, job_id: str, end: float, planned_end: float) -> None:
        """The job's window ends at ``end`` (its actual end), before ``planned_end`` if early."""
        self._seq += 1
        self.seq[job_id] = self._seq
        entry = (end, self._seq, job_id)
        heapq.heappush(self.ends, entry)
        if end < planned_end - EPS:
            heapq.heappush(self.early, entry)

    def _window_now(self, job_id: str) -> Window | None:
        """The job's window now (made from the compiled pass's arrays if it moved it since)."""
        if self.compiled is not None:
            self.compiled.settle(job_id)
        return self.current.get(job_id)

    def compact(self) -> None:
        """Moved windows leave stale entries behind (deleted lazily): drop them now and then, so
        that a long run does not keep every window it ever planned."""
        if len(self.ends) > 2 * len(self.current) + 64:
            self.ends = [e for e in self.ends if self._valid(e)]
            self.early = [e for e in self.early if self._valid(e)]
            heapq.heapify(self.ends)
            heapq.heapify(self.early)

    def _valid(self, entry: tuple[float, int, str]) -> bool:
        return self.seq.get(entry[2]) == entry[1]

    def run(self, placed: int, total: int) -> PlaceRun:
        """Events in time order: early completions (and the moves they allow), then arrivals."""
        done = placed
        while True:
            while self.early and (not self._valid(self.early[0]) or self.early[0][0] <= self.now + EPS):
                heapq.heappop(self.early)
            next_early = self.early[0][0] if self.early else math.inf
            next_arrival = float(self.arrival[self.coming[-1]]) if self.coming else math.inf
            if math.isinf(next_early) and math.isinf(next_arrival):
                if self.compiled is not None:
                    self.compiled.settle_all()
                return
            self.now = min(next_early, next_arrival)
            self.rec.check_stop()
            finished = self._expire()
            self.rec.counts["early_completions"] += len(finished)
            moved = self._pass() if next_early <= self.now + EPS else []
            arrived = self._arrive()
            done += len(finished) + len(arrived)
            self.rec.report(min(done, total), total)
            yield self.rec.snap(self.now, self._label(finished, moved, arrived))

    def _label(self, finished: list[str], moved: list[str], arrived: list[str]) -> str:
        what = []
        if finished:
            what.append(f"{words.jobs(finished)} finished early; ")
            what.append(f"moved {words.jobs(moved)} earlier" if moved else "nothing could move earlier")
        if arrived:
            what.append(f"{'; ' if finished else ''}{words.jobs(arrived)} arrived")
        return f"t={words.number(self.now)}: {''.join(what)}"

    def _arrive(self) -> list[str]:
        """Plan the jobs arriving now, in queue order, after the moves of this moment."""
        new: list[int] = []
        while self.coming and self.arrival[self.coming[-1]] <= self.now + EPS:
            new.append(self.coming.pop())
        new.sort()
        for i in new:
            self.rec.check_stop()
            job = self.jobs[i]
            earliest = max(job.arrival, self.now)
            window = _plan_new(
                self.rec, self.selector, self.profile, self.plan, job, i, earliest, bool(self.first_fit_answers[i])
            )
            if window is not None:
                self._track(window)
                self.start[i] = window.start
            self._certify(i, window is None or bool(self.earliest[i]))
            self.active[i] = window is None or window.start > earliest + EPS
        if new:
            self.live = np.union1d(self.live, np.array(new, dtype=np.int64))
            self._watch_settled(self.now + EPS)
        return [self.jobs[i].id for i in new]

    def _expire(self) -> list[str]:
        """Take out every window that is over by now; test the gaps the early ones free."""
        now, profile = self.now, self.profile
        finished: list[str] = []
        freed: list[tuple[int, float, float]] = []
        while self.ends and self.ends[0][0] <= now + EPS:
            entry = heapq.heappop(self.ends)
            if not self._valid(entry):
                continue
            window = self._window_now(entry[2])
            assert window is not None
            del self.current[window.job], self.seq[window.job]
            profile.remove(window)
            if abs(entry[0] - now) <= EPS and entry[0] < window.end:
                finished.append(window.job)
                freed.extend((profile.index[node], now, end) for node, end in window.part_ends() if end > now)
        profile.start_at(now)
        profile.drop_before(now)
        # Jobs that started, or can start no earlier, never move again.
        live = self.live
        self.active[live] &= self.start[live] > np.maximum(self.arrival[live], now) + EPS
        self.live = live[self.active[live]]
        self._unverify(freed, NO_OWNER)
        self._watch_settled(self.now - EPS)
        return sorted(finished)

    def _watch_settled(self, came_by: float) -> None:
        """Stop a "Why here?" run once the watched job, planned when it came (by ``came_by``), waits
        no more: no search of it can come after (``Recorder.watched_settled``)."""
        w = self.watched
        if w >= 0 and not self.active[w] and self.arrival[w] <= came_by:
            self.rec.watched_settled()

    def _unverify(self, freed: list[tuple[int, float, float]], mover: int) -> None:
        """Clear the certificate of every waiting job a freed gap [a, b) on node x could help.

        A new feasible window must overlap a freed gap and fit in it merged with its
        free neighbours: start s >= max(A, e_j), s < min(S_j, b), s + T <= B, with
        T >= V_j / p_x. A job whose own window bounds the gap may also use that part.
        """
        if not freed:
            return
        f = np.array(freed, dtype=np.float64).reshape(-1, 3).T.copy()  # a row each: node, a, b
        self.rec.counts["certificates_cleared"] += kernels.unverify(
            *self.profile.rows, self.profile.perf, f[0].astype(np.int64), f[1], f[2],  # a kernels.types.Freed
            *self.queue(),
            float(self.factor),
            float(self.now),
            int(mover),
        )

    def queue(self) -> tuple[np.ndarray, ...]:
        """The jobs' state as the compiled kernels read and write it: a ``kernels.types.Queue`` as a
        plain tuple, of the arrays themselves."""
        return (  # live, active, verified, arrival, volume, min_perf, top, start, lower, upper
            self.live,
            self.active,
            self.verified,
            self.arrival,
            self.volume,
            self.min_perf,
            self.top,
            self.start,
            self.lower,
            self.upper,
        )

    def _pass(self) -> list[str]:
        """Every job not verified, in queue order, gets its chance to move earlier."""
        if self.compiled is not None:
            return self.compiled.run_pass()
        moved: list[str] = []
        cursor = -1
        while True:
            live = self.live
            todo = live[self.active[live] & ~self.verified[live]]
            todo = todo[todo > cursor]
            for i in todo:
                cursor = int(i)
                if self.check(cursor):
                    moved.append(self.jobs[cursor].id)
                    break  # a move may have cleared later certificates: look again
            else:
                return moved

    def check(self, i: int) -> bool:
        """Search job i again on the slots as they are now; move it if it can start earlier."""
        rec, profile, job = self.rec, self.profile, self.jobs[i]
        rec.check_stop()
        old = self._window_now(job.id)
        before = old.start if old is not None else math.inf
        earliest = max(job.arrival, self.now)
        if rec.watching(job.id):
            rec.saw(profile.table(earliest, without=i), earliest, self.selector)
        # Its own reservation counts as free (``without``), as if given back for the search.
        if self.keep_nodes and old is not None:
            return self._move_on_own_nodes(i, old, earliest)
        counts = rec.counts
        counts["checks"] += 1
        began = time.perf_counter()
        first = search_profile(profile, job, self.feasibility, earliest, rec.should_stop, before, i)
        counts["search_s"] += time.perf_counter() - began
        counts["searches"] += 1
        if first is None or first.window.start >= before - EPS:
            self.verified[i] = True  # no feasible window starts earlier
            return False
        return self.choose(i, first)

    def choose(self, i: int, first: Found) -> bool:
        """Job i has a feasible window (``first``) before its reservation: move it to the selector's
        window if that starts earlier too."""
        rec, profile, job = self.rec, self.profile, self.jobs[i]
        old = self._window_now(job.id)
        before = old.start if old is not None else math.inf
        earliest = max(job.arrival, self.now)
        if self.first_fit_answers[i]:
            found: Found | None = first
        else:
            began = time.perf_counter()
            found = self.selector.select_in(profile, job, earliest, rec.should_stop, i)
            rec.counts["search_s"] += time.perf_counter() - began
            rec.counts["searches"] += 1
            rec.counts["selector_searches"] += 1
        if found is None or found.window.start >= before - EPS:
            self._certify(i, False)  # an earlier window exists but the criterion prefers this one
            return False
        self._move(i, old, found)
        # The feasibility search above saw the same slots: a window at its earliest start has
        # no feasible window before it, whatever the selector's criterion.
        self._certify(i, bool(self.earliest[i]) or found.window.start <= first.window.start + EPS)
        return True

    def _certify(self, i: int, verified: bool) -> None:
        """Job i has no earlier feasible window (``verified``), or may have one anywhere."""
        self.verified[i] = verified
        if not verified:
            self.lower[i], self.upper[i] = -math.inf, math.inf

    def _move_on_own_nodes(self, i: int, old: Window, earliest: float) -> bool:
        """``replan="nodes"``: job i keeps its nodes and part lengths and starts as early as they allow."""
        profile = self.profile
        start = earliest_on_nodes(profile.gaps(earliest, old.start, i), profile.index, old, earliest)
        self.verified[i] = True  # after a move too: no earlier start on these nodes
        if start is None:
            return False
        window = dataclasses.replace(old, start=start)
        table = profile.table(earliest, window.end, without=i) if self.rec.explain else None
        self._move(i, old, Found(window, 0.0, table))
        return True

    def _move(self, i: int, old: Window | None, found: Found) -> None:
        """Job i gives back ``old`` (if any) and takes ``found``'s window."""
        self.rec.counts["moves"] += 1
        rec, profile, job = self.rec, self.profile, self.jobs[i]
        window = found.window
        earliest = max(job.arrival, self.now)
        distances = _distances(found, profile, earliest, i) if rec.explain else None
        if old is not None:
            # Test the freed gaps before the new window takes any of them: a superset is safe.
            profile.remove(old)
            del self.current[job.id], self.seq[job.id]
            self._unverify([(profile.index[node], old.start, end) for node, end in old.part_ends()], i)
        profile.add(window, i)
        self.plan[job.id] = window
        rec.place(window, distances)
        self._track(window)
        self.start[i] = window.start
        self.active[i] = window.start > earliest + EPS


def fastest_levels(profile: Profile, jobs: list[Job]) -> tuple[np.ndarray, np.ndarray]:
    """Per job, the index among its levels of its fastest window (``kernels.fastest_level``: the
    fastest level with n nodes at least that fast; -1 for none) and that level's speed (0 for none).
    Every part of a square window runs at least as long as V / that speed."""
    level = np.full(len(jobs), -1, dtype=np.int64)
    top = np.zeros(len(jobs))
    seen: dict[tuple[float, int], tuple[int, float]] = {}
    for i, job in enumerate(jobs):
        key = (job.min_performance, job.node_count)
        if key not in seen:
            facts = node_facts(profile, job.min_performance)
            k = int(kernels.fastest_level(profile.perf, facts.columns, facts.levels, int(job.node_count)))
            seen[key] = (k, float(facts.levels[k]) if k >= 0 else 0.0)
        level[i], top[i] = seen[key]
    return level, top


def earliest_on_nodes(
    gaps: tuple[np.ndarray, ...], index: Mapping[str, int], window: Window, earliest: float
) -> float | None:
    """The earliest start in [earliest, window.start) at which every part of ``window`` fits in a
    free gap of its own node (``gaps``: node column, start, end); None if there is none.

    A start can only be ``earliest`` or the start of a gap on one of the window's nodes.
    """
    node, gap_start, gap_end = gaps
    cols = np.array([index[n] for n in window.nodes], dtype=np.int64)
    on = np.isin(node, cols)
    times = np.unique(np.append(gap_start[on], earliest))
    times = times[(times >= earliest - EPS) & (times < window.start - EPS)]
    if times.size == 0:
        return None
    ok = np.ones(times.size, dtype=bool)
    for col, length in zip(cols, window.part_lengths, strict=True):
        mine = node == col
        s, e = gap_start[mine], gap_end[mine]
        ok &= ((s[None, :] <= times[:, None] + EPS) & (times[:, None] + length <= e[None, :] + EPS)).any(axis=1)
    hit = np.flatnonzero(ok)
    return float(times[hit[0]]) if hit.size else None
