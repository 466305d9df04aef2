"""Hypothesis strategies for small environments where every value is exact in floats.

Performances are powers of two and volumes multiples of 8, so T = V / P, every
L_left / L_right and every criterion sum is an exact float: brute force and the
engine must then agree to the letter, ties included.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from workbench.engine.model import Environment, Job, LocalTask, Node, TimeSettings


@st.composite
def nodes_and_tasks(draw, max_nodes: int = 6, span: int = 48):
    count = draw(st.integers(2, max_nodes))
    nodes = []
    tasks = []
    for i in range(count):
        nodes.append(
            Node(
                id=f"n{i}",
                name=f"node {i}",
                performance=float(draw(st.sampled_from([1, 2, 4]))),
                price=float(draw(st.integers(0, 3))),
                attributes=(("q", float(draw(st.integers(0, 5)))),),
            )
        )
        cuts = sorted(draw(st.lists(st.integers(0, span), max_size=6, unique=True)))
        for a, b in zip(cuts[::2], cuts[1::2], strict=False):
            if b > a:
                tasks.append(LocalTask(id=f"t{len(tasks)}", node=f"n{i}", start=float(a), end=float(b)))
    return nodes, tasks


@st.composite
def jobs(draw, count: int, max_n: int = 4):
    out = []
    for i in range(count):
        budget = draw(st.one_of(st.just(math.inf), st.integers(4, 120).map(float)))
        out.append(
            Job(
                id=f"j{i}",
                name=f"job {i}",
                node_count=draw(st.integers(1, max_n)),
                min_performance=float(draw(st.sampled_from([0, 1, 2]))),
                volume=float(draw(st.sampled_from([8, 16, 24, 32]))),
                budget=budget,
                arrival=float(draw(st.sampled_from([0, 0, 4, 10]))),
                priority=float(draw(st.integers(0, 2))),
                actual_fraction=draw(st.sampled_from([1.0, 0.5, 0.75])),
            )
        )
    return out


@st.composite
def environments(draw, max_jobs: int = 4, max_nodes: int = 6, bounded: bool | None = None):
    nodes, tasks = draw(nodes_and_tasks(max_nodes=max_nodes))
    if bounded is None:
        bounded = draw(st.booleans())
    horizon = float(draw(st.sampled_from([48, 64, 96]))) if bounded else None
    return Environment(
        nodes=tuple(nodes),
        local_tasks=tuple(tasks),
        jobs=tuple(draw(jobs(draw(st.integers(1, max_jobs))))),
        time=TimeSettings(start=0.0, cycle_length=None, horizon=horizon),
        name="hypothesis",
    )


@st.composite
def flows(draw, max_jobs: int = 6, max_nodes: int = 5, equal_priority: bool = False, cycles: bool = True):
    """Environments with early completions, arrivals and (sometimes) cycles."""
    nodes, tasks = draw(nodes_and_tasks(max_nodes=max_nodes))
    job_list = draw(jobs(draw(st.integers(1, max_jobs))))
    out = []
    for job in job_list:
        fraction = draw(st.sampled_from([1.0, 0.75, 0.5, 0.25]))
        priority = 0.0 if equal_priority else job.priority
        out.append(Job(**{**job.__dict__, "actual_fraction": fraction, "priority": priority}))
    cycle = draw(st.sampled_from([None, 24.0, 48.0])) if cycles else None
    horizon = draw(st.sampled_from([None, 96.0]))
    return Environment(
        nodes=tuple(nodes),
        local_tasks=tuple(tasks),
        jobs=tuple(out),
        time=TimeSettings(start=0.0, cycle_length=cycle, horizon=horizon),
        name="flow",
    )


@st.composite
def saturated_flows(draw, max_jobs: int = 24, max_nodes: int = 3):
    """Many more waiting jobs than nodes: most arrive at once, the rest while the first run, and
    most finish early, so every completion lets much of the queue move up."""
    nodes, tasks = draw(nodes_and_tasks(max_nodes=max_nodes))
    count = draw(st.integers(len(nodes) * 3, max(len(nodes) * 3, max_jobs)))
    out = []
    for job in draw(jobs(count)):
        arrival = float(draw(st.sampled_from([0, 0, 0, 0, 2, 6, 13, 30])))
        fraction = draw(st.sampled_from([1.0, 0.75, 0.5, 0.25, 0.25]))
        out.append(Job(**{**job.__dict__, "arrival": arrival, "actual_fraction": fraction}))
    horizon = draw(st.sampled_from([None, None, 400.0]))
    return Environment(
        nodes=tuple(nodes),
        local_tasks=tuple(tasks),
        jobs=tuple(out),
        time=TimeSettings(start=0.0, cycle_length=None, horizon=horizon),
        name="saturated",
    )


def examples(count: int) -> int:
    """Hypothesis example counts, scaled by WORKBENCH_TEST_SCALE for a longer stress run."""
    import os

    return count * int(os.environ.get("WORKBENCH_TEST_SCALE", "1"))
