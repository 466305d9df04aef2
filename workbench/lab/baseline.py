"""A careful textbook EASY in pure Python: the baseline the engine's EASY is timed against.

Host-level EASY as batch systems and Batsim's batsched run it (seed 004 §3, Lifka):
queue heads start while enough hosts are free (lowest index first); the blocked head
gets a reservation at the earliest time enough hosts are predicted free (running jobs
end at start + requested time); later jobs start now if they fit on free hosts that
the reservation does not need, or end before it begins.

It is written the way a careful person would write it for a simulator, so that
`workbench bench --only scale` compares the engine with a fair baseline, not a slow
one: a heap of completions, a heap of free hosts (the lowest index comes first) and a
running count of them, and the shadow time found by walking the running jobs in order
of predicted end, sorted once per blocked head. No event visits every host.
"""

from __future__ import annotations

import bisect
import heapq

from workbench.engine.model import EPS, Environment


def textbook_easy(env: Environment) -> dict[str, tuple[float, tuple[int, ...]]]:
    """EASY on ``env``'s identical nodes: {job id: (start, host indices)}."""
    perf = env.nodes[0].performance
    hosts = len(env.nodes)
    # (submit, queue key, id, width, requested, actual), in order of submission
    arrivals = sorted(
        ((j.arrival, (j.priority, j.arrival, i), j.id, j.node_count, j.volume / perf, j.actual_fraction))
        for i, j in enumerate(env.jobs)
    )
    free = list(range(hosts))  # a heap: the lowest free index first
    ends: list[tuple[float, int, list[int]]] = []  # (actual end, sequence, hosts)
    running: dict[int, tuple[float, list[int]]] = {}  # sequence -> (predicted end, hosts)
    keys: list[tuple[float, float, int]] = []  # the queue, in queue order
    queue: list[tuple[str, int, float, float]] = []  # (id, width, requested, actual share)
    out: dict[str, tuple[float, tuple[int, ...]]] = {}
    nxt, seq = 0, 0

    def start(at: int, chosen: list[int], now: float) -> None:
        nonlocal seq
        job_id, _, requested, share = queue.pop(at)
        del keys[at]
        seq += 1
        heapq.heappush(ends, (now + requested * share, seq, chosen))
        running[seq] = (now + requested, chosen)
        out[job_id] = (now, tuple(sorted(chosen)))

    while nxt < len(arrivals) or ends:
        now = min(ends[0][0] if ends else float("inf"), arrivals[nxt][0] if nxt < len(arrivals) else float("inf"))
        while ends and ends[0][0] <= now + EPS:
            _, done, released = heapq.heappop(ends)
            del running[done]
            for h in released:
                heapq.heappush(free, h)
        while nxt < len(arrivals) and arrivals[nxt][0] <= now + EPS:
            _, key, job_id, width, requested, share = arrivals[nxt]
            nxt += 1
            if width <= hosts:
                at = bisect.bisect(keys, key)
                keys.insert(at, key)
                queue.insert(at, (job_id, width, requested, share))
        while queue and queue[0][1] <= len(free):
            start(0, [heapq.heappop(free) for _ in range(queue[0][1])], now)
        if not queue or not free:
            continue
        # The blocked head: the earliest time enough hosts are predicted free, and which.
        width = queue[0][1]
        count, shadow = len(free), now
        by_end = sorted(running.values())
        for predicted, held in by_end:
            if count >= width:
                break
            count += len(held)
            shadow = predicted
        soon = [h for predicted, held in by_end if predicted <= shadow + EPS for h in held]
        reserved = set(heapq.nsmallest(width, free + soon))  # lowest indices
        open_free = sum(1 for h in free if h not in reserved)
        at = 1
        while at < len(queue) and free:
            _, need, requested, _ = queue[at]
            short = now + requested <= shadow + EPS
            if need > (len(free) if short else open_free):
                at += 1
                continue
            chosen: list[int] = []
            skipped: list[int] = []
            while len(chosen) < need:
                h = heapq.heappop(free)
                (skipped if h in reserved and not short else chosen).append(h)
            for h in skipped:
                heapq.heappush(free, h)
            open_free -= sum(1 for h in chosen if h not in reserved)
            start(at, chosen, now)
    return out
