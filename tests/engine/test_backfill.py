"""Conservative backfilling with every selector: valid windows, the selectors' defining properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import environments, examples
from tests.support.validity import assert_valid_schedule
from workbench.engine import criteria as cr
from workbench.engine import registry
from workbench.engine.model import Environment, Job, LocalTask, Node, TimeSettings
from workbench.engine.slots import SlotTable, window_distances

SELECTORS = [info.name for info in registry.strategies() if info.family == "selector"]


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=5),
    name=st.sampled_from(SELECTORS),
    dynamic=st.booleans(),
    replan=st.sampled_from(["search", "nodes"]),
)
def test_every_selector_backfills_valid_windows(env, name, dynamic, replan):
    """Every window of every selector is valid; windows never share a node (until their actual end)."""
    schedule = registry.run(env, name, {"dynamic": dynamic, "replan": replan})
    assert_valid_schedule(env, schedule, executed=dynamic, length_factor=0.99 if name == "BFshort" else 1.0)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=environments(max_jobs=1))
def test_single_job_selector_properties(env):
    """MinCost never costs more than FirstFit; DEP's sum of min(L) is the largest; MinFinish ends first."""
    job = env.jobs[0]
    table = SlotTable.from_environment(env)
    earliest = max(job.arrival, env.time.start)
    found = {name: registry.selector(name).select(table, job, earliest) for name in SELECTORS}
    if found["FirstFit"] is None:
        # All selectors search the same candidate space: none finds a window either.
        assert all(f is None for f in found.values())
        return
    windows = {name: f.window for name, f in found.items() if f is not None}
    assert windows["MinCost"].cost <= windows["FirstFit"].cost + 1e-9
    assert all(windows["FirstFit"].start <= w.start + 1e-9 for w in windows.values())
    assert all(windows["MinFinish"].end <= w.end + 1e-9 for n, w in windows.items() if n != "BFshort")
    assert all(windows["MinRunTime"].length <= w.length + 1e-9 for n, w in windows.items() if n != "BFshort")

    def lmin(w):
        left, right = window_distances(table, w)
        return float(np.minimum(left, right).sum())

    def lmax(w):
        left, right = window_distances(table, w)
        return float(np.maximum(left, right).sum())

    # The normative search starts windows at slot starts; the alternatives that MultipleBest and CSA
    # collect start wherever the previous ones end, outside that candidate space.
    same_length = [n for n in windows if n not in ("BFshort", "MultipleBest", "CSA")]
    assert all(lmin(windows["DEP"]) >= lmin(windows[n]) - 1e-9 for n in same_length)
    assert all(lmax(windows["COORD"]) <= lmax(windows[n]) + 1e-9 for n in same_length)
    q = {node.id: node.attribute("q") for node in env.nodes}
    assert all(sum(q[i] for i in windows["MaxQ"].nodes) >= sum(q[i] for i in w.nodes) for w in windows.values())


def _line(nodes, tasks, horizon=200.0):
    return Environment(
        nodes=tuple(Node(f"n{i}", f"node {i}", p, c) for i, (p, c) in enumerate(nodes)),
        local_tasks=tuple(LocalTask(f"t{i}", f"n{k}", s, e) for i, (k, s, e) in enumerate(tasks)),
        jobs=(),
        time=TimeSettings(0.0, None, horizon),
    )


def test_bfshort_windows_are_099_of_t():
    """BFshort reserves 0.99 * V / P."""
    env = _line([(2.0, 1.0), (2.0, 1.0)], [])
    env = Environment(env.nodes, (), (Job("a", "a", 2, 1.0, 100.0),), env.time)
    schedule = registry.run(env, "BFshort")
    assert schedule.windows[0].length == pytest.approx(0.99 * 50.0)


def test_cop_prefers_the_snug_gap_and_past_the_adjacent_slots():
    """Seed 001 Fig. 2 in small: CoP picks the gap that fits T; PAST the slots touching tasks."""
    # Node 0: free [0, 10) then busy: a snug fit for T = 10. Node 1: free [0, 200).
    env = _line([(1.0, 1.0), (1.0, 1.0)], [(0, 10, 200)])
    env = Environment(env.nodes, env.local_tasks, (Job("a", "a", 1, 1.0, 10.0),), env.time)
    for name in ("CoP", "PAST"):
        window = registry.run(env, name).windows[0]
        assert window.nodes == ("n0",), name
    # BFfinish breaks the tie by node order too; make node 1 the first to see the difference.
    env2 = _line([(1.0, 1.0), (1.0, 1.0)], [(1, 10, 200)])
    env2 = Environment(env2.nodes, env2.local_tasks, (Job("a", "a", 1, 1.0, 10.0),), env2.time)
    assert registry.run(env2, "CoP").windows[0].nodes == ("n1",)
    assert registry.run(env2, "BFfinish").windows[0].nodes == ("n0",)


def test_cop_prefers_slower_nodes_at_equal_finish():
    """CoP rule 0: of two equal-finish slots, keep the faster node free (alpha1 * p)."""
    env = _line([(4.0, 1.0), (2.0, 1.0)], [], horizon=None)
    # V = 20: T = 5 on the p=4 node, 10 on p=2 — no tie. Use a job that needs p >= 2 on equal levels:
    env = _line([(3.0, 1.0), (2.0, 1.0), (2.0, 1.0)], [], horizon=None)
    env = Environment(env.nodes, (), (Job("a", "a", 2, 1.0, 20.0),), env.time)
    window = registry.run(env, "CoP").windows[0]
    # At level 3 only one node qualifies; at level 2 (T = 10) CoP takes the two p=2 nodes.
    assert set(window.nodes) == {"n1", "n2"}


def test_reservations_are_made_upon_arrival_in_queue_order():
    """Jobs get their reservation when they arrive (seed 001 §2.2); jobs arriving together are
    planned by (priority, list position), never by id. A job arriving later, even of a higher
    priority, never takes a reservation already made."""
    env = _line([(1.0, 1.0)], [])
    jobs = (
        Job("z", "z", 1, 1.0, 10.0, priority=1),
        Job("b", "b", 1, 1.0, 10.0, arrival=5.0, priority=1),
        Job("a", "a", 1, 1.0, 10.0, arrival=5.0, priority=1),
        Job("h", "h", 1, 1.0, 10.0, arrival=5.0),
        Job("c", "c", 1, 1.0, 10.0),
    )
    env = Environment(env.nodes, (), jobs, env.time)
    want = {"c": 0.0, "z": 10.0, "h": 20.0, "b": 30.0, "a": 40.0}
    for dynamic in (True, False):
        starts = {w.job: w.start for w in registry.run(env, "FirstFit", {"dynamic": dynamic}).windows}
        assert starts == want


def test_unscheduled_jobs_have_reasons_a_person_understands():
    """Too few capable nodes, budget, and time give distinct explanations."""
    env = _line([(2.0, 1.0), (6.0, 2.0)], [(0, 0, 150)], horizon=200.0)
    jobs = (
        Job("wide", "wide", 9, 4.0, 10.0),
        Job("poor", "poor", 1, 1.0, 60.0, budget=5.0),
        Job("long", "long", 2, 1.0, 200.0),
    )
    env = Environment(env.nodes, env.local_tasks, jobs, env.time)
    schedule = registry.run(env, "FirstFit")
    assert schedule.unscheduled == ("wide", "poor", "long")
    assert schedule.reasons["wide"] == "needs 9 nodes of performance ≥ 4; the environment has 1"
    assert schedule.reasons["poor"] == "no window within budget 5; the cheapest costs 20"
    # Only level 2 has two nodes: a window needs 200 / 2 = 100, both are free together only over [150, 200).
    assert schedule.reasons["long"] == (
        "a window on nodes of performance ≥ 2 (one of them exactly 2) needs 100 time units (V / 2), "
        "but 2 such nodes are free together for at most 50 (from 150) between 0 and 200"
    )


def test_multiple_best_picks_the_best_alternative_by_its_criterion():
    """MultipleBest by q takes the FirstFit alternative with the largest q, not the first."""
    nodes = (Node("n0", "n0", 1.0, 1.0, (("q", 1.0),)), Node("n1", "n1", 1.0, 1.0, (("q", 9.0),)))
    tasks = (LocalTask("t", "n1", 0.0, 10.0),)
    env = Environment(nodes, tasks, (Job("a", "a", 1, 1.0, 10.0),), TimeSettings(0.0, None, 100.0))
    table = SlotTable.from_environment(env)
    mb = registry.selector("MultipleBest", {"by": "q"})
    alternatives = mb.alternatives(table, env.jobs[0], 0.0)
    assert alternatives[0].nodes == ("n0",) and len(alternatives) > 2
    best = mb.select(table, env.jobs[0], 0.0)
    assert best.window.nodes == ("n1",) and best.window.start == 10.0
    # Alternatives never intersect.
    spans = sorted((w.nodes[0], w.start, w.end) for w in alternatives)
    for (n0, _s0, e0), (n1, s1, _e1) in itertools.pairwise(spans):
        assert n0 != n1 or s1 >= e0


def test_infinite_budget_never_limits():
    """A job with budget = inf is placed whatever the prices."""
    env = _line([(1.0, 1e9)], [])
    env = Environment(env.nodes, (), (Job("a", "a", 1, 1.0, 10.0, budget=math.inf),), env.time)
    assert registry.run(env, "MaxQ").windows[0].cost == pytest.approx(1e10)


def test_pure_criteria_values():
    """PAST and CoP z follow seed 001 §4.1 rule by rule."""
    ctx = cr.SlotContext(
        t=np.array([10.0]),
        T=np.array([100.0]),
        sstart=np.array([[10.0, 0.0, 5.0]]),
        send=np.array([[110.0, 250.0, 140.0]]),
        perf=np.array([[2.0, 4.0, 8.0]]),
        price=np.array([[1.0, 1.0, 1.0]]),
    )
    # L_left = (0, 10, 5); L_right = (0, 140, 30).
    past = cr.Past().z(ctx)[0]
    assert past == pytest.approx([-110 - 0.2 + 2, -110 - 0.4 - 0.0001 * 140, -110 - 0.8 - 0.0001 * 30])
    cop = cr.CoordinatedPlacement().z(ctx)[0]
    # slot 0: both sides < 3 -> +2; slot 1: left 10 (>= 3, not in (20,35)), right 140 > T -> +0.1;
    # slot 2: left 5 -> nothing (not < 3), right 30 in (20, 35) -> -1.
    assert cop == pytest.approx([-110 - 0.2 + 2, -110 - 0.4 + 0.1, -110 - 0.8 - 1])
