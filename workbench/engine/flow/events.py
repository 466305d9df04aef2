"""What the event-driven schedulers share: the waiting queue in queue order, the arrivals in
order, and the label of a step.

EASY (``flow/easy.py``), the grid strategies (``grid/sim.py``) and the economic scheduler
(``grid/economic.py``) each run a loop of arrivals and completions over these.
"""

from __future__ import annotations

import bisect

from workbench.engine.model import Environment, Job, queue_key


class WaitingQueue:
    """Waiting jobs in queue order (priority, arrival, list position)."""

    def __init__(self, env: Environment) -> None:
        self.index = env.job_index
        self.keys: list[tuple[float, float, int]] = []
        self.jobs: list[Job] = []

    def add(self, job: Job) -> None:
        key = queue_key(job, self.index[job.id])
        at = bisect.bisect(self.keys, key)
        self.keys.insert(at, key)
        self.jobs.insert(at, job)

    def remove_at(self, at: int) -> Job:
        del self.keys[at]
        return self.jobs.pop(at)

    def ids(self) -> tuple[str, ...]:
        return tuple(j.id for j in self.jobs)

    def __len__(self) -> int:
        return len(self.jobs)


def arrivals_in_order(env: Environment) -> list[Job]:
    """Jobs in order of arrival; at one time, in queue order."""
    index = env.job_index
    return sorted(env.jobs, key=lambda j: (j.arrival, j.priority, index[j.id]))


def step_label(now: float, done: list[str], came: list[str], started: list[str]) -> str:
    parts = []
    if done:
        parts.append(f"{', '.join(done)} finished")
    if came:
        parts.append(f"{', '.join(came)} arrived")
    parts.append(f"started {', '.join(started)}" if started else "nothing started")
    return f"t={now:g}: " + "; ".join(parts)
