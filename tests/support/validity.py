"""Checks shared by the property tests: is a schedule made of valid windows?"""

from __future__ import annotations

import itertools
import math

from workbench.engine.model import EPS, Environment
from workbench.engine.schedule import Schedule


def assert_valid_schedule(
    env: Environment,
    schedule: Schedule,
    earliest: float | None = None,
    executed: bool = False,
    length_factor: float = 1.0,
) -> None:
    """Every window valid (DESIGN.md "Window"); no two windows share a node at once.

    A window's length is V divided by the lowest performance among its own nodes,
    times ``length_factor`` (0.99 for BFshort): DESIGN.md "Window length". A rough-edged
    window's parts are V / p_i each, and each holds only its own node.

    With ``executed`` a window holds its nodes only until its actual end (a dynamic
    run reuses what early completions free); otherwise for its whole reserved length.
    """
    nodes = {n.id: n for n in env.nodes}
    busy: dict[str, list[tuple[float, float, str]]] = {n.id: [] for n in env.nodes}
    for task in env.local_tasks:
        busy[task.node].append((task.start, task.end, f"task {task.id}"))
    seen_jobs = set()
    for w in schedule.windows:
        job = env.job(w.job)
        assert w.job not in seen_jobs, f"job {w.job} placed twice"
        seen_jobs.add(w.job)
        assert len(w.nodes) == job.node_count == len(set(w.nodes)), w
        assert w.start >= max(job.arrival, env.time.start) - EPS, w
        if earliest is not None:
            assert w.start >= earliest - EPS
        if env.time.horizon is not None:
            assert w.end <= env.time.horizon + EPS, w
        slowest = min(nodes[n].performance for n in w.nodes)
        assert all(nodes[n].performance >= job.min_performance - EPS for n in w.nodes), w
        if w.lengths:  # a rough right edge (seed 000 §3): each part as long as its own node needs
            for n, part in zip(w.nodes, w.lengths, strict=True):
                assert math.isclose(part, job.volume / nodes[n].performance, rel_tol=1e-12), w
            assert math.isclose(w.length, max(w.lengths), rel_tol=1e-12), w
        else:  # square, sized by its own slowest node, never longer
            assert math.isclose(w.length, job.volume / slowest * length_factor, rel_tol=1e-12), w
        cost = sum(nodes[n].price * part for n, part in zip(w.nodes, w.part_lengths, strict=True))
        assert math.isclose(w.cost, cost, rel_tol=1e-9, abs_tol=1e-9)
        assert w.cost <= job.budget + 1.0 + 1e-6  # within budget up to the cost resolution
        until = schedule.actual_end(env, w) if executed else w.end
        for n, part_end in w.part_ends():
            busy[n].append((w.start, min(part_end, until), f"job {w.job}"))
    for node_id, spans in busy.items():
        spans.sort()
        for (_s0, e0, a), (s1, _e1, b) in itertools.pairwise(spans):
            assert s1 >= e0 - EPS, f"{a} and {b} overlap on {node_id}"
    placed = {w.job for w in schedule.windows}
    assert placed | set(schedule.unscheduled) == {j.id for j in env.jobs}
    assert not placed & set(schedule.unscheduled)
    assert set(schedule.reasons) == set(schedule.unscheduled)
