"""A plain textbook EASY in pure Python: the baseline the engine's EASY is timed against.

Host-level EASY as batch systems and Batsim's batsched run it (seed 004 §3, Lifka):
queue heads start while enough hosts are free (lowest index first); the blocked head
gets a reservation at the earliest time enough hosts are predicted free (running jobs
end at start + requested time); later jobs start now if they fit on free hosts that
the reservation does not need, or end before it begins. It is written the way a
person would write it for a simulator, with a heap of completions and a bisect-sorted
queue, and no numpy, so `workbench bench --only scale` measures the engine against a
fair, independent implementation on the same trace.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass

from workbench.engine.model import Environment

EPS = 1e-9


@dataclass(frozen=True)
class _Job:
    key: tuple[float, float, int]  # queue order: priority, submit, position
    id: str
    submit: float
    width: int
    requested: float
    actual: float


def textbook_easy(env: Environment) -> dict[str, tuple[float, tuple[int, ...]]]:
    """EASY on ``env``'s identical nodes: {job id: (start, host indices)}."""
    perf = env.nodes[0].performance
    jobs = [
        _Job(
            (j.priority, j.arrival, i),
            j.id,
            j.arrival,
            j.node_count,
            j.volume / perf,
            j.volume / perf * j.actual_fraction,
        )
        for i, j in enumerate(env.jobs)
    ]
    arrivals = sorted(jobs, key=lambda j: (j.submit, j.key))
    hosts = len(env.nodes)
    free = [True] * hosts
    n_free = hosts
    predicted = [0.0] * hosts
    ends: list[tuple[float, int, list[int]]] = []  # (actual end, sequence, hosts)
    queue: list[tuple[tuple[float, float, int], _Job]] = []
    out: dict[str, tuple[float, tuple[int, ...]]] = {}
    nxt, seq = 0, 0

    def take(job: _Job, usable: list[int], now: float) -> None:
        nonlocal n_free, seq
        chosen = usable[: job.width]
        for h in chosen:
            free[h] = False
            predicted[h] = now + job.requested
        n_free -= job.width
        seq += 1
        heapq.heappush(ends, (now + job.actual, seq, chosen))
        out[job.id] = (now, tuple(chosen))

    while nxt < len(arrivals) or ends:
        now = min(ends[0][0] if ends else float("inf"), arrivals[nxt].submit if nxt < len(arrivals) else float("inf"))
        while ends and ends[0][0] <= now + EPS:
            for h in heapq.heappop(ends)[2]:
                free[h] = True
            n_free = sum(free)
        while nxt < len(arrivals) and arrivals[nxt].submit <= now + EPS:
            job = arrivals[nxt]
            nxt += 1
            if job.width <= hosts:
                bisect.insort(queue, (job.key, job))
        while queue and queue[0][1].width <= n_free:
            job = queue.pop(0)[1]
            take(job, [h for h in range(hosts) if free[h]], now)
        if not queue or n_free == 0:
            continue
        head = queue[0][1]
        avail = sorted((now if free[h] else predicted[h], h) for h in range(hosts))
        shadow = avail[head.width - 1][0]
        reserved = set(sorted(h for a, h in avail if a <= shadow + EPS)[: head.width])  # lowest indices
        at = 1
        while at < len(queue) and n_free:
            job = queue[at][1]
            short = now + job.requested <= shadow + EPS
            usable = [h for h in range(hosts) if free[h] and (short or h not in reserved)]
            if len(usable) >= job.width:
                queue.pop(at)
                take(job, usable, now)
            else:
                at += 1
    return out
