"""Why so late? (engine/waits.py): a hand-built case for each cause, against what a person reads off
the picture, and on generated flows: the stretches cover each wait exactly once."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from tests.support.hypothesis_strategies import examples, flows
from workbench.engine import registry
from workbench.engine.generate import generate
from workbench.engine.grid.configs import lublin_environment
from workbench.engine.model import Environment, Job, LocalTask, Node, StrategyRef, TimeSettings
from workbench.engine.waits import explain_wait, wait_text


def _env(nodes, jobs, tasks=(), cycle=None, strategy="EASY"):
    return Environment(
        nodes=tuple(Node(f"n{k + 1}", f"node {k + 1}", p, c) for k, (p, c) in enumerate(nodes)),
        local_tasks=tuple(LocalTask(f"t{k + 1}", node, s, e) for k, (node, s, e) in enumerate(tasks)),
        jobs=tuple(jobs),
        time=TimeSettings(0.0, cycle, None),
        strategy=StrategyRef(strategy),
    )


def _job(ident, n, volume, arrival=0.0, budget=float("inf")):
    return Job(ident, f"job {ident}", n, 1.0, float(volume), budget=budget, arrival=float(arrival))


def _why(env, job, strategy="EASY"):
    schedule = registry.run(env, strategy)
    return explain_wait(env, schedule, job, strategy), schedule


def test_too_few_free_nodes_names_the_job_holding_them_and_its_completion():
    """A job waiting for nodes held by another names that job and when it ends, is released by its completion,
    and started as the head of the queue."""
    env = _env([(1, 1), (1, 1)], [_job("a", 2, 10), _job("b", 2, 5)])
    wait, _ = _why(env, "b")
    assert wait.start == 10 and [(s.start, s.end, s.cause, s.holders) for s in wait.stretches] == [
        (0, 10, "nodes", ("a",))
    ]
    assert "held by job a until 10" in wait.stretches[0].text
    assert wait.released == "the completion of job a"
    assert wait.role.startswith("was the head of the queue when it started")


def test_local_tasks_and_an_early_end():
    """A job freed by an early end says so with the planned end; one waiting for a local task names the task and
    its end, and is released by it."""
    env = _env([(1, 1)], [_job("a", 1, 10), _job("b", 1, 5)], tasks=[])
    env = replace(env, jobs=(replace(env.jobs[0], actual_fraction=0.4), env.jobs[1]))
    wait, _ = _why(env, "b")
    assert wait.start == 4 and wait.released == "an early end of job a (planned to end at 10)"
    env = _env([(1, 1)], [_job("b", 1, 5)], tasks=[("n1", 0, 7)])
    wait, _ = _why(env, "b")
    assert [(s.start, s.end, s.cause) for s in wait.stretches] == [(0, 7, "local")]
    assert "local task t1 until 7" in wait.stretches[0].text and wait.released == "the end of local task t1"


def test_easy_keeps_a_short_job_back_for_the_blocked_heads_reservation():
    """Under EASY a job that would delay the blocked head waits first for the head's reservation, naming it,
    then for nodes; a job short enough to end before the reservation is backfilled past the head without
    waiting."""
    # a runs on n1 until 10; the head b needs both nodes (reserved at 10); c (20 long) would fit on n2
    # now but would delay b: it waits for the reservation, and starts after b, not backfilled.
    env = _env([(1, 1), (1, 1)], [_job("a", 1, 10), _job("b", 2, 5), _job("c", 1, 20)])
    wait, schedule = _why(env, "c")
    assert schedule.window_of("b").start == 10 and wait.start == 15
    assert wait.stretches[0].cause == "reservation" and wait.stretches[0].holders == ("b",)
    assert "the blocked head's reservation (job b from 10)" in wait.stretches[0].text
    assert [s.cause for s in wait.stretches][-1] == "nodes"  # then b holds both nodes until 15
    assert wait.role.startswith("was the head of the queue when it started")
    # A short job that fits before the reservation is backfilled past the head.
    env = _env([(1, 1), (1, 1)], [_job("a", 1, 10), _job("b", 2, 5), _job("d", 1, 4, arrival=1)])
    wait, _ = _why(env, "d")
    assert wait.start == 1 and wait.stretches == () and wait.role.startswith("backfilled past the blocked head, job b")


def test_the_budget_keeps_a_job_off_a_free_but_dear_node():
    """A job kept off a free node that would cost more than its budget waits with one stretch caused by the
    budget, which names it."""
    # n1 is cheap and busy until 10; n2 is free but its 5 units cost 50, over b's budget of 20.
    env = _env([(1, 1), (1, 10)], [_job("a", 1, 10, budget=1000), _job("b", 1, 5, budget=20)])
    env = replace(env, jobs=(replace(env.jobs[0]), env.jobs[1]))
    schedule = registry.run(env, "FirstFit")
    assert schedule.window_of("a").nodes == ("n1",)
    wait = explain_wait(env, schedule, "b", "FirstFit")
    assert wait.start == 10 and [s.cause for s in wait.stretches] == ["budget"]
    assert "over its budget 20" in wait.stretches[0].text


def test_a_window_that_would_not_end_in_its_cycle_is_held_over_to_the_next():
    """With cycles of 10, a job that would end past its cycle waits for nodes, then for the next cycle, and is
    released by its start at 10; under EASY the cycle is not a cause."""
    # Cycles of 10 on one node: a runs 0-8; b (5 long) would end at 13, past its cycle: cycle 1, at 10.
    env = _env([(1, 1)], [_job("a", 1, 8), _job("b", 1, 5)], cycle=10.0, strategy="FirstFit")
    schedule = registry.run(env, "FirstFit")
    assert schedule.window_of("b").start == 10
    wait = explain_wait(env, schedule, "b", "FirstFit")
    assert [(s.start, s.end, s.cause) for s in wait.stretches] == [(0, 8, "nodes"), (8, 10, "cycle")]
    assert "would not have ended within this cycle, which ends at 10" in wait.stretches[1].text
    assert wait.released == "the start of cycle 1 at 10"
    # EASY is driven by events: a cycle length does not bound it.
    assert explain_wait(env, registry.run(env, "EASY"), "b", "EASY").stretches[-1].cause != "cycle"


def test_a_job_that_did_not_wait_and_one_never_placed():
    """A job that starts on arrival has no stretches; one wider than the machine was never placed and its text
    says so."""
    env = _env([(1, 1)], [_job("a", 1, 5), _job("wide", 3, 5)])
    schedule = registry.run(env, "EASY")
    assert explain_wait(env, schedule, "a", "EASY").stretches == ()
    never = explain_wait(env, schedule, "wide", "EASY")
    assert never.start is None and "Never placed" in wait_text(never)


@settings(max_examples=10, deadline=None)
@given(seed=hs.integers(0, 100), strategy=hs.sampled_from(["EASY", "FirstFit", "CoP", "BFfinish", "MinCost"]))
def test_the_stretches_cover_every_wait_exactly(seed, strategy):
    """On a generated flow (Lublin–Feitelson, arrivals compressed so that jobs queue, early ends):
    for every job that waited, the causes' intervals run from its arrival to its start, each moment
    once, each with a sentence; every cause is one of the listed ones."""
    env, _ = lublin_environment(150, seed, nodes=16)
    rng = np.random.default_rng(seed)
    jobs = tuple(
        replace(j, arrival=j.arrival / 30, actual_fraction=float(rng.choice([1.0, 0.6, 0.3]))) for j in env.jobs
    )
    env = replace(env, jobs=jobs)
    schedule = registry.run(env, strategy)
    waited = 0
    for job in env.jobs:
        wait = explain_wait(env, schedule, job.id, strategy)
        if wait.start is None or wait.start <= wait.arrival + 1e-9:
            assert not wait.stretches or wait.start is None
            continue
        waited += 1
        spans = [(s.start, s.end) for s in wait.stretches]
        assert spans[0][0] == pytest.approx(wait.arrival) and spans[-1][1] == pytest.approx(wait.start)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
        assert all(s.end > s.start and s.text for s in wait.stretches)
        assert wait.released
        for stretch in wait.stretches:  # the cause against a count made here, window by window
            free = _free_at(env, schedule, job, stretch.start)
            if stretch.cause in ("nodes", "local"):
                assert free < job.node_count, (job.id, stretch)
            else:
                assert free >= job.node_count, (job.id, stretch)
    assert waited > 0


def _free_at(env, schedule, job, t):
    """Nodes of the job's level that no other job's part and no local task holds just after t."""
    eps = 1e-9
    held = {
        n
        for w in schedule.windows
        if w.job != job.id
        for n, end in w.part_ends()
        if w.start <= t + eps and min(end, schedule.actual_ends.get(w.job, w.end)) > t + eps
    }
    held |= {task.node for task in env.local_tasks if task.start <= t + eps and task.end > t + eps}
    return sum(1 for node in env.nodes if node.performance >= job.min_performance and node.id not in held)


def test_cyclic_and_batch_strategies_and_grids_explain_too():
    """On vo24 under CSS, Batch-slicer and BSF, and on the grid study's workload (grid m128-4, offered load 0.9)
    under job sharing, for the first windows and the first that waited, a wait's stretches run from the job's
    arrival to its start."""
    from workbench.lab.studies.grid import grid_workload

    vo24 = generate("vo24", 3)
    grid = grid_workload("m128-4", 2, False, 600, 1, 0.9)
    for env, strategy in ((vo24, "CSS"), (vo24, "Batch-slicer"), (vo24, "BSF"), (grid, "Job sharing")):
        schedule = registry.run(env, strategy)
        waited = [w for w in schedule.windows if w.start > env.job(w.job).arrival][:5]
        assert waited or strategy != "Job sharing"  # at load 0.9 some grid jobs wait
        for w in [*schedule.windows[:5], *waited]:
            wait = explain_wait(env, schedule, w.job, strategy)
            if wait.stretches:
                assert wait.stretches[0].start == pytest.approx(wait.arrival)
                assert wait.stretches[-1].end == pytest.approx(wait.start)


def test_a_stretch_short_of_nodes_names_the_jobs_ahead_that_waited_too():
    """Issue 43's trial: job 4034 (98 nodes) waited behind 4031-4033 (98 nodes each) and the panel
    said only "too few free nodes". A stretch short of nodes now names the jobs ahead of it in the
    queue that were waiting then too; EASY's role says the head was reached when it started."""
    nodes = tuple(Node(f"n{i}", f"n{i}", 1.0, 1.0) for i in range(2))
    jobs = (
        Job("a", "a", 2, 1.0, 10.0),
        Job("b", "b", 2, 1.0, 10.0, arrival=1.0),
        Job("c", "c", 2, 1.0, 10.0, arrival=2.0),
    )
    env = Environment(nodes, (), jobs, TimeSettings(0.0, None, None), "queue")
    schedule = registry.run(env, "EASY")
    wait = explain_wait(env, schedule, "c", "EASY")
    first = wait.stretches[0]
    assert first.cause == "nodes" and "1 job ahead of it in the queue was waiting too: job b." in first.text
    assert wait.role.startswith("was the head of the queue when it started")
    assert "ahead of it" not in explain_wait(env, schedule, "b", "EASY").stretches[0].text


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=14, max_nodes=6))
def test_a_compiled_runs_columns_explain_a_wait_as_its_windows_do(env):
    """Why so late? reads a compiled run's windows as columns (``Schedule.arrays``: at 200,000 jobs a
    pass over every part in Python took seconds a click), and only the intervals that reach the wait:
    every job's answer is the one its windows, read one by one, give."""
    import dataclasses

    from workbench.engine.explain import explain_late

    schedule = registry.run(env, "EASY")
    if schedule.arrays is None:
        return  # a run with no columns: nothing to compare
    plain = dataclasses.replace(schedule, arrays=None, windows=tuple(schedule.windows))
    for job in env.jobs:
        assert explain_late(env, schedule, job.id, "EASY") == explain_late(env, plain, job.id, "EASY")
