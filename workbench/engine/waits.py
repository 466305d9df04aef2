"""Why so late? What held a job at each moment from its arrival to its start.

A run's schedule says where every job ran; this module reads it back for one job and splits the
job's wait at every event that could change the answer (a part starting or ending on a node of its
level, a local task's edge, a cycle's start). In each stretch one cause held it, checked in order:

- ``cycle``: under a cycle length, a strategy of the cycle driver (the selectors, CSS,
  Batch-slicer, BSF) places a job within one cycle: its window would not have ended in this one,
  and it was held over to a later cycle;
- ``nodes``: fewer nodes of its level (performance ≥ its minimum) were free than it needs; the
  jobs (and local tasks) holding them are named, each with the time it let go;
- ``local``: the same, but the owners' local tasks held the nodes it lacked;
- ``reservation``: enough nodes were free, but not for its whole length: they were reserved from a
  later time for other jobs (EASY's blocked head, or the reservations of the jobs ahead in
  conservative backfilling);
- ``budget``: enough nodes were free for its whole length, but the cheapest of them cost more than
  its budget;
- ``queue``: nodes were free and affordable, and jobs ahead of it were still waiting: the strategy's
  order (or, under EASY, the blocked head's reservation) kept it back;
- ``choice``: nodes were free and affordable and nothing waited ahead of it: its strategy chose a
  later window by its criterion (MinCost may wait for a cheaper node).

The stretches cover the whole wait, each moment once. It also says what finally let the job start
(a completion, an early end, a local task's end, a cycle's start, or its planned start coming),
and under EASY whether it started as the head of the queue or was backfilled past it.

It reads the schedule a run made (the GUI's live result, ``simulate``, ``explain``): nothing is
simulated again, and a question about one job of the whole KTH trace reads its nodes' intervals
once (a few hundred milliseconds at most).
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workbench.engine import words
from workbench.engine.model import EPS, Environment, Job
from workbench.engine.numbers import number
from workbench.engine.schedule import Schedule

CAUSES = {
    "cycle": "waiting for the next cycle",
    "nodes": "too few free nodes of its level",
    "local": "local tasks on the nodes it needed",
    "reservation": "free nodes reserved for other jobs",
    "budget": "the budget",
    "queue": "jobs ahead of it in the queue",
    "choice": "its strategy chose a later window",
}
# Strategies driven by events, not cycles: a cycle length does not bound their windows.
EVENT_DRIVEN = ("EASY", "Local", "Job sharing", "Multi-site", "Adaptive multi-site", "Economic")
MAX_CYCLE_CUTS = 10_000  # cycle starts a wait is cut at, at most
SHOWN = 4  # holders named in a sentence; the rest are counted
Show = Callable[[float], str]  # how a time or a length reads: the document's number, or in a display unit


@dataclass(frozen=True)
class Stretch:
    """[start, end) of the wait, held by one ``cause`` (a key of CAUSES); ``holders`` are the jobs
    (ids) or local tasks ("local task ID") that held it, ``text`` the sentence a person reads."""

    start: float
    end: float
    cause: str
    text: str
    holders: tuple[str, ...] = ()


@dataclass(frozen=True)
class Wait:
    job: str
    arrival: float
    start: float | None  # None: never placed
    stretches: tuple[Stretch, ...]
    released: str  # what let it start ("" when it did not wait)
    role: str = ""  # EASY: "was the head of the queue when it started" or "backfilled past job X"

    @property
    def waited(self) -> float:
        return 0.0 if self.start is None else self.start - self.arrival


@dataclass(frozen=True)
class _Busy:
    """One node's busy intervals [start, end) by start, with who held each."""

    starts: list[float]
    ends: list[float]
    owners: list[str]  # a job id, or "local task ID"

    def holder_at(self, t: float) -> int | None:
        """The interval holding the node just after ``t`` (intervals on a node never overlap)."""
        k = bisect.bisect_right(self.starts, t + EPS) - 1
        return k if k >= 0 and self.ends[k] > t + EPS else None

    def next_start(self, t: float) -> int | None:
        k = bisect.bisect_right(self.starts, t + EPS)
        return k if k < len(self.starts) else None


def explain_wait(
    env: Environment,
    schedule: Schedule,
    job_id: str,
    strategy: str = "",
    cyclic: bool | None = None,
    show: Show = number,
) -> Wait:
    """Why ``job_id`` started when it did under ``schedule`` (made by ``strategy``). ``cyclic``: the
    strategy places within cycles (the cycle driver's); None: any but EVENT_DRIVEN, under a cycle
    length. ``show``: how the sentences write a time or a length (the GUI's, in its display unit)."""
    if cyclic is None:
        cyclic = strategy not in EVENT_DRIVEN
    cycle = env.time.cycle_length if cyclic else None
    job = env.job(job_id)
    arrival = max(job.arrival, env.time.start)
    window = schedule.window_of(job_id)
    if window is None:
        reason = schedule.reasons.get(job_id, "it was not placed")
        return Wait(job_id, arrival, None, (Stretch(arrival, math.inf, "nodes", f"Never placed: {reason}."),), "")
    start = window.start
    if start <= arrival + EPS:
        return Wait(job_id, arrival, start, (), "", _role(env, schedule, job, strategy))
    level = [i for i, node in enumerate(env.nodes) if node.performance >= job.min_performance - EPS]
    length, n = window.length, job.node_count
    pad = 1e-6 * (1.0 + abs(start) + length)  # far past EPS: nothing that touches the wait is cut
    busy = _busy_of(env, schedule, job_id, {env.nodes[i].id for i in level}, arrival - pad, start + length + pad)
    cuts = _cuts(env, busy, level, arrival, start, cycle)
    # One stretch per run of moments with one cause: its holders gathered (each with the latest time
    # it let go, or the earliest its reservation began), its free count as a range.
    runs: list[list] = []  # [start, end, cause, text, holders, least free, most free]
    for t0, t1 in itertools.pairwise(cuts):
        cause, text, holders, free = _held(env, schedule, job, busy, level, t0, length, n, strategy, cycle, show)
        last = runs[-1] if runs else None
        if last is not None and last[2] == cause:
            last[1] = t1
            merge = max if cause in ("nodes", "local") else min
            for owner, at in holders.items():
                last[4][owner] = merge(last[4].get(owner, at), at)
            last[5], last[6] = min(last[5], free), max(last[6], free)
        else:
            runs.append([t0, t1, cause, text, dict(holders), free, free])
    stretches = tuple(_with_ahead(env, schedule, job, _stretch(job, length, strategy, show, *run)) for run in runs)
    return Wait(
        job_id,
        arrival,
        start,
        stretches,
        _released(env, schedule, busy, level, start, cycle, show),
        _role(env, schedule, job, strategy),
    )


def _with_ahead(env: Environment, schedule: Schedule, job: Job, stretch: Stretch) -> Stretch:
    """A stretch the job spent short of nodes, with the jobs ahead of it in the queue that were
    waiting too then: they would have come first had the nodes been free."""
    if stretch.cause not in ("nodes", "local"):
        return stretch
    waiting = _waiting_ahead(env, schedule, job, stretch.start)
    if not waiting:
        return stretch
    some = "1 job ahead of it in the queue was" if len(waiting) == 1 else f"{len(waiting)} jobs ahead of it were"
    text = f"{stretch.text} {some} waiting too: {words.jobs(waiting)}."
    return Stretch(stretch.start, stretch.end, stretch.cause, text, stretch.holders)


def _busy_of(
    env: Environment, schedule: Schedule, job_id: str, level: set[str], lo: float = -math.inf, hi: float = math.inf
) -> dict[str, _Busy]:
    """Every node of the level's busy intervals that reach into [lo, hi]: the other jobs' parts (to
    their actual end) and the local tasks. The wait reads who holds a node within it and what starts
    next up to a window's length after it; an interval wholly outside changes neither (one that
    starts later leaves the node as free for the window as none does). A compiled run's columns are
    read as arrays (at 200,000 jobs, 6 million parts: a Python pass took seconds)."""
    raw: dict[str, list[tuple[float, float, str]]] = {node: [] for node in level}
    a = schedule.arrays
    if a is not None:
        node_ids = [node.id for node in env.nodes]
        wanted = np.array([node_id in raw for node_id in node_ids], dtype=bool)
        start = a.start[a.part_window]
        end = np.minimum(start + a.part_length, a.actual[a.part_window])
        own = env.job_index[job_id]
        keep = wanted[a.part_node] & (end >= lo) & (start <= hi) & (a.job_row[a.part_window] != own)
        for k in np.flatnonzero(keep).tolist():
            raw[node_ids[a.part_node[k]]].append(
                (float(start[k]), float(end[k]), env.jobs[int(a.job_row[a.part_window[k]])].id)
            )
    else:
        ends = schedule.actual_ends
        for w in schedule.windows:
            if w.job == job_id:
                continue
            actual = ends.get(w.job, w.end)
            if w.start > hi:
                continue
            for node, part_end in w.part_ends():
                if node in raw and min(part_end, actual) >= lo:
                    raw[node].append((w.start, min(part_end, actual), w.job))
    for task in env.local_tasks:
        if task.node in raw and task.end >= lo and task.start <= hi:
            raw[task.node].append((task.start, task.end, f"local task {task.id}"))
    out = {}
    for node, items in raw.items():
        items.sort()
        out[node] = _Busy([s for s, _, _ in items], [e for _, e, _ in items], [o for _, _, o in items])
    return out


def _cuts(
    env: Environment, busy: dict[str, _Busy], level: list[int], arrival: float, start: float, cycle: float | None
) -> list[float]:
    """The moments in (arrival, start) at which the answer may change, with both ends."""
    inside = {arrival, start}
    for i in level:
        b = busy[env.nodes[i].id]
        lo = bisect.bisect_left(b.starts, arrival)
        hi = bisect.bisect_right(b.starts, start)
        inside.update(t for t in b.starts[lo:hi] if arrival < t < start)
        inside.update(t for t in b.ends if arrival < t < start)
    if cycle:
        k = _cycle_of(env, arrival, cycle) + 1
        for _ in range(MAX_CYCLE_CUTS):
            boundary = env.time.start + k * cycle
            if boundary >= start - EPS:
                break
            inside.add(boundary)
            k += 1
    return sorted(inside)


def _cycle_of(env: Environment, t: float, cycle: float) -> int:
    return math.floor((t - env.time.start) / cycle + EPS)


def _held(
    env: Environment,
    schedule: Schedule,
    job: Job,
    busy: dict[str, _Busy],
    level: list[int],
    t: float,
    length: float,
    n: int,
    strategy: str,
    cycle: float | None,
    show: Show,
) -> tuple[str, str, dict[str, float], int]:
    """The cause that held the job over the stretch from ``t``: (cause, its sentence when it does not
    depend on the holders, the holders with the time each let go or began, the free nodes)."""
    free: list[int] = []
    held: dict[str, float] = {}
    for i in level:
        node = env.nodes[i]
        b = busy[node.id]
        k = b.holder_at(t)
        if k is None:
            free.append(i)
        else:
            held.setdefault(b.owners[k], b.ends[k])
    cycle_end = env.time.start + (_cycle_of(env, t, cycle) + 1) * cycle if cycle else math.inf
    if len(free) >= n and t + length > cycle_end + EPS:
        text = (
            f"Its window (length {show(length)}) would not have ended within this cycle, which ends at "
            f"{show(cycle_end)}: held over to the next."
        )
        return "cycle", text, {}, len(free)
    if len(free) < n:
        only_local = all(o.startswith("local task ") for o in held)
        return ("local" if only_local else "nodes"), "", held, len(free)
    ahead: dict[str, float] = {}
    lasting = []
    for i in free:
        b = busy[env.nodes[i].id]
        k = b.next_start(t)
        if k is None or b.starts[k] >= t + length - EPS:
            lasting.append(i)
        else:
            ahead.setdefault(b.owners[k], b.starts[k])
    if len(lasting) < n:
        if all(o.startswith("local task ") for o in ahead):
            return "local ahead", "", ahead, len(free)
        # Reserved for a job ahead of it in the queue, or only planned there later (a job backfilled
        # into that time, or placed there by its own search): said apart.
        reserved_ahead = set(_waiting_ahead(env, schedule, job, t)) & set(ahead)
        return "reservation", "ahead" if reserved_ahead else "later", ahead, len(free)
    prices = sorted(env.nodes[i].price for i in lasting)[:n]
    cost = length * sum(prices)
    if cost > job.budget * (1 + 1e-9) + EPS:
        text = (
            f"Nodes were free for its whole length, but the cheapest {n} would have cost "
            f"{number(cost)}, over its budget {number(job.budget)}."
        )
        return "budget", text, {}, len(free)
    waiting = _waiting_ahead(env, schedule, job, t)
    if waiting:
        shown = ", ".join(f"job {w}" for w in waiting[:SHOWN])
        more = f" and {len(waiting) - SHOWN} more" if len(waiting) > SHOWN else ""
        if strategy == "EASY":
            text = f"Nodes were free, but starting it would have delayed the blocked head, job {waiting[0]}."
            return "reservation", text, {waiting[0]: t}, len(free)
        text = f"Nodes were free, but {len(waiting)} jobs ahead of it were waiting: {shown}{more}."
        return "queue", text, dict.fromkeys(waiting[:SHOWN], t), len(free)
    return (
        "choice",
        f"Nodes were free and affordable; {strategy or 'its strategy'} chose a later window.",
        {},
        len(free),
    )


def _stretch(
    job: Job,
    length: float,
    strategy: str,
    show: Show,
    start: float,
    end: float,
    cause: str,
    text: str,
    holders: dict[str, float],
    least: int,
    most: int,
) -> Stretch:
    """A run of moments with one cause, as a person reads it: who held the job, and until when."""
    free = f"{least}" if least == most else f"{least} to {most}"
    if cause in ("nodes", "local"):
        # Named first: those that let go by the stretch's end, the last first (they held it longest);
        # a job still holding a node then held one it did not end up needing.
        order = tuple(sorted(holders, key=lambda o: (holders[o] > end + EPS, -holders[o], o)))
        text = (
            f"{free} of the {job.node_count} nodes it needs (performance ≥ {number(job.min_performance)}) "
            f"were free; the others were held by {_named(order, holders, 'until', show)}."
        )
        return Stretch(start, end, cause, text, order)
    if cause == "local ahead" or (cause == "reservation" and text in ("ahead", "later")):
        order = tuple(sorted(holders, key=lambda o: (holders[o], o)))
        if cause == "local ahead":
            whose = "local tasks"
        elif text == "ahead":
            whose = "the blocked head's reservation" if strategy == "EASY" else "the reservations of jobs ahead"
        else:
            whose = "taken later by other jobs"
        if cause != "local ahead" and any(o.startswith("local task ") for o in order):
            whose += ", and local tasks"  # a local task is no job's reservation: named apart
        text = (
            f"{free} nodes were free, but not for its length {show(length)}: {whose} "
            f"({_named(order, holders, 'from', show)})."
        )
        return Stretch(start, end, "local" if cause == "local ahead" else cause, text, order)
    order = tuple(sorted(holders, key=lambda o: (holders[o], o)))
    return Stretch(start, end, cause, text, order)


def _waiting_ahead(env: Environment, schedule: Schedule, job: Job, t: float) -> list[str]:
    """The jobs before ``job`` in the queue that had arrived by ``t`` and had not started."""
    out = []
    for other in env.jobs[: env.job_index[job.id]]:
        if max(other.arrival, env.time.start) > t + EPS:
            continue
        w = schedule.window_of(other.id)
        if w is None or w.start > t + EPS:
            out.append(other.id)
    return out


def _released(
    env: Environment,
    schedule: Schedule,
    busy: dict[str, _Busy],
    level: list[int],
    start: float,
    cycle: float | None,
    show: Show,
) -> str:
    """What happened at the job's start that let it go."""
    ended: dict[str, None] = {}
    for i in level:
        b = busy[env.nodes[i].id]
        for k, end in enumerate(b.ends):
            if abs(end - start) <= EPS * (1 + abs(start)):
                ended.setdefault(b.owners[k], None)
    jobs = [o for o in ended if not o.startswith("local task ")]
    tasks = [o for o in ended if o.startswith("local task ")]
    parts = []
    for j in jobs[:SHOWN]:
        w = schedule.window_of(j)
        planned = w.end if w is not None else start
        early = planned > start + EPS
        parts.append(
            f"an early end of job {j} (planned to end at {show(planned)})" if early else f"the completion of job {j}"
        )
    if len(jobs) > SHOWN:
        parts.append(f"{len(jobs) - SHOWN} more completions")
    parts += [f"the end of {t}" for t in tasks[:SHOWN]]
    if cycle:
        k = round((start - env.time.start) / cycle)
        if abs(env.time.start + k * cycle - start) <= EPS * (1 + abs(start)):
            parts.append(f"the start of cycle {k} at {show(start)}")
    if not parts:
        return f"its planned start came at {show(start)} (no completion then: the plan had put it there)"
    return ", ".join(parts)


def _role(env: Environment, schedule: Schedule, job: Job, strategy: str) -> str:
    """EASY: whether the job started as the head of the queue or was backfilled past one."""
    if strategy != "EASY":
        return ""
    window = schedule.window_of(job.id)
    if window is None:
        return ""
    passed = [
        other.id
        for other in env.jobs[: env.job_index[job.id]]
        if max(other.arrival, env.time.start) <= window.start + EPS
        and ((w := schedule.window_of(other.id)) is None or w.start > window.start + EPS)
    ]
    if not passed:
        return "was the head of the queue when it started: every job queued before it had started by then"
    return f"backfilled past the blocked head, job {passed[0]}" + (
        f" ({len(passed)} jobs before it were waiting)" if len(passed) > 1 else ""
    )


def _named(holders: tuple[str, ...], at: dict[str, float], word: str, show: Show) -> str:
    named = [f"{_who(o)} {word} {show(at[o])}" for o in holders[:SHOWN]]
    more = f" and {len(holders) - SHOWN} more" if len(holders) > SHOWN else ""
    return ", ".join(named) + more


def _who(owner: str) -> str:
    return owner if owner.startswith("local task ") else f"job {owner}"


def wait_text(wait: Wait, show: Show = number) -> str:
    """The explanation as lines of text (the CLI's ``explain`` prints it), times as ``show`` writes them."""
    if wait.start is None:
        return wait.stretches[0].text if wait.stretches else "not placed"
    if not wait.stretches:
        lines = [f"Job {wait.job} did not wait: it started at {show(wait.start)}, when it arrived."]
    else:
        lines = [f"Job {wait.job} waited {show(wait.waited)} (from {show(wait.arrival)} to {show(wait.start)}):"]
        for s in wait.stretches:
            lines.append(f"  {show(s.start)} to {show(s.end)}: {CAUSES[s.cause]}. {s.text}")
        lines.append(f"It started on {wait.released}.")
    if wait.role:
        lines.append(f"Under EASY it {wait.role}.")
    return "\n".join(lines)
