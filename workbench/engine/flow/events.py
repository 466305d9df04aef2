"""The event core of EASY and the grid strategies: the waiting queue in queue order, the
arrivals in order, the completions, and one loop over them (``run_events``) that a scheduler
drives through a small policy (``EventPolicy``). The economic scheduler books each job on
arrival and shares the arrivals and completions.
"""

from __future__ import annotations

import bisect
import heapq
import math
from typing import Any

from workbench.engine import words
from workbench.engine.model import EPS, Environment, Job, queue_key
from workbench.engine.simulate import FlowRun, Recorder


class WaitingQueue:
    """Waiting jobs in queue order (priority, arrival, list position)."""

    def __init__(self, env: Environment) -> None:
        self.index = env.job_index
        self.keys: list[tuple[float, float, int]] = []
        self.jobs: list[Job] = []
        self.rows: list[int] = []  # each job's position in the environment's job list

    def add(self, job: Job) -> None:
        key = queue_key(job, self.index[job.id])
        at = bisect.bisect(self.keys, key)
        self.keys.insert(at, key)
        self.jobs.insert(at, job)
        self.rows.insert(at, key[2])

    def remove_at(self, at: int) -> Job:
        del self.keys[at]
        del self.rows[at]
        return self.jobs.pop(at)

    def ids(self) -> tuple[str, ...]:
        return tuple(j.id for j in self.jobs)

    def __len__(self) -> int:
        return len(self.jobs)


def arrivals_in_order(env: Environment) -> list[Job]:
    """Jobs in order of arrival; at one time, in queue order."""
    index = env.job_index
    return sorted(env.jobs, key=lambda j: (j.arrival, j.priority, index[j.id]))


def step_label(now: float, done: list[str], came: list[str], started: list[str], woke: str = "") -> str:
    """'t=2644: job 7 finished; jobs 8 and 9 arrived; started job 8'; at a moment with neither a
    completion nor an arrival, what woke the pass (``woke``: 't=4: a local task ended; …')."""
    parts = []
    if done:
        parts.append(f"{words.jobs(done)} finished")
    if came:
        parts.append(f"{words.jobs(came)} arrived")
    if not parts and woke:
        parts.append(woke)
    parts.append(f"started {words.jobs(started)}" if started else "nothing started")
    return f"t={words.number(now)}: " + "; ".join(parts)


class Completions:
    """Running jobs by actual end, then by start order: what the event loop releases when."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, str, Any]] = []
        self._started = 0

    def add(self, end: float, job_id: str, payload: Any = None) -> None:
        """Job ``job_id`` started: it ends (releases ``payload``, e.g. its nodes) at ``end``."""
        self._started += 1
        heapq.heappush(self._heap, (end, self._started, job_id, payload))

    def next_time(self) -> float:
        return self._heap[0][0] if self._heap else math.inf

    def due(self, now: float) -> list[tuple[str, Any]]:
        """The jobs that have ended by ``now`` (within EPS), in order, taken off."""
        out = []
        while self._heap and self._heap[0][0] <= now + EPS:
            _, _, job_id, payload = heapq.heappop(self._heap)
            out.append((job_id, payload))
        return out

    def __len__(self) -> int:
        return len(self._heap)


class EventPolicy:
    """What one event-driven scheduler does at its events; ``run_events`` drives it.

    The loop is the same for every one of them (docs/design.md "EASY"): at each event time the
    completions are applied, then the arrivals join the queue, then one scheduling pass runs.
    A policy says whether an arriving job can ever run (``admit``), what a completion frees
    (``release``), what the pass starts (``schedule``), and when else it must wake
    (``wakeup``: a local task's end, a reservation's start).
    """

    def __init__(self, env: Environment) -> None:
        self.queue = WaitingQueue(env)
        self.completions = Completions()

    def admit(self, job: Job, earliest: float) -> str | None:
        """None when the job joins the queue (the policy queues it); else why it can never run."""
        raise NotImplementedError

    def release(self, job_id: str, payload: Any) -> None:
        """A running job ended: give back what it held (``payload``, as ``Completions.add`` took it)."""

    def schedule(self, now: float) -> list[str]:
        """The scheduling pass at ``now``: the jobs it started, in order."""
        raise NotImplementedError

    WOKE = "the slots changed"  # what a wake-up is, for the step's label

    def wakeup(self) -> float:
        """The next time the pass must run besides arrivals and completions (inf: none)."""
        return math.inf

    def woken(self, now: float) -> None:
        """The loop has reached ``now``: wake-ups up to it are spent."""

    def queued(self) -> tuple[str, ...]:
        return self.queue.ids()

    def finish(self) -> None:
        """The events have run out: what is still waiting (``queued``) is dealt with."""


def run_events(env: Environment, rec: Recorder, policy: EventPolicy, opening: str) -> FlowRun:
    """The event loop of EASY, the grid strategies and the economic scheduler's neighbours: one
    snapshot at the start (labelled ``opening``), one per event time, one at the end."""
    t0 = env.time.start
    arrivals = arrivals_in_order(env)
    ends = policy.completions
    nxt = 0
    yield rec.snap(t0, opening)
    while nxt < len(arrivals) or len(ends) or policy.wakeup() < math.inf:
        arrival = max(arrivals[nxt].arrival, t0) if nxt < len(arrivals) else math.inf
        now = min(ends.next_time(), arrival, policy.wakeup())
        policy.woken(now)
        rec.report(nxt + len(rec.windows) - len(ends), 2 * len(arrivals))  # arrivals + completions
        done = []
        for job_id, payload in ends.due(now):
            policy.release(job_id, payload)
            done.append(job_id)
        came = []
        while nxt < len(arrivals) and max(arrivals[nxt].arrival, t0) <= now + EPS:
            job = arrivals[nxt]
            nxt += 1
            reason = policy.admit(job, max(job.arrival, t0))
            if reason is not None:
                rec.fail(job.id, reason)
                continue
            came.append(job.id)
        started = policy.schedule(now)
        if rec.history:
            rec.queue = policy.queued()
            yield rec.snap(now, step_label(now, done, came, started, policy.WOKE))
        else:
            yield rec.snap(now, "")
    policy.finish()
    rec.queue = ()
    yield rec.snap(max(rec.actual.values(), default=t0), f"end: {len(rec.windows)} placed")
