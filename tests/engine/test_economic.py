"""The economic grid scheduler of seed 004 §4: the bucket offers of Fig. 12, MF/UF, the offer
search against brute force, co-allocation and the run as a whole."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine.test_grid import grid, job, starts
from tests.support.hypothesis_strategies import examples
from workbench.engine import registry
from workbench.engine.errors import ParameterError
from workbench.engine.grid.economic import (
    MACHINE_FUNCTIONS,
    USER_FUNCTIONS,
    EconomicRun,
    bucket_offers,
    machine_value,
    utility,
)
from workbench.engine.metrics import flow_metrics
from workbench.engine.model import EPS
from workbench.engine.simulate import Recorder

# ---------------------------------------------------------------- Fig. 12: the bucket method

# The paper's start situation, read off Figs. 12-15: the job needs 3 nodes for a runtime of 4 in
# the frame A = 0 … D = 10. Nodes 1, 2 and 5 are idle over the whole frame (Bucket 1), node 7
# from 2 to 8, nodes 3 and 4 from 2 to 10; nodes 6 and 8 are never idle for 4 in a row.
FIG_12 = [
    (1, 0.0, 10.0), (2, 0.0, 10.0), (5, 0.0, 10.0),
    (7, 2.0, 8.0),
    (3, 2.0, 10.0), (4, 2.0, 10.0),
    (6, 0.0, 2.0), (6, 5.0, 7.0), (8, 7.0, 10.0),
]  # fmt: skip
PAPER_SOLUTIONS = {
    (1, 2, 5), (1, 2, 3), (1, 2, 4), (1, 2, 7), (1, 3, 4), (1, 3, 7), (1, 4, 7), (2, 3, 4), (2, 3, 7), (3, 4, 7)
}  # fmt: skip


def test_fig_12_bucket_offers_are_the_papers_solution_set():
    """The bucket method on Fig. 12's idle intervals offers the paper's solution set (and {2, 4, 7}, which holds
    whenever {1, 4, 7} does), Bucket 1 first, each with its frame; limit caps the offers, and a runtime of 7
    leaves node 7 out."""
    offers = bucket_offers(FIG_12, 3, 4.0)
    assert offers[0].nodes == (1, 2, 5) and (offers[0].start, offers[0].end) == (0.0, 10.0)  # Bucket 1 alone
    got = {o.nodes for o in offers}
    # Every solution the paper lists, and {2, 4, 7}: nodes 1 and 2 share Bucket 1, so {2, 4, 7}
    # holds exactly when {1, 4, 7} does (the paper's list of ten leaves it out).
    assert got == PAPER_SOLUTIONS | {(2, 4, 7)}
    assert all(o.start == 2.0 and o.end == 8.0 for o in offers if 7 in o.nodes)
    assert all(o.start == 2.0 and o.end == 10.0 for o in offers if 7 not in o.nodes and o.nodes != (1, 2, 5))
    assert [o.nodes for o in bucket_offers(FIG_12, 3, 4.0, limit=1)] == [(1, 2, 5)]
    assert len(bucket_offers(FIG_12, 3, 4.0, limit=4)) == 4
    # For a runtime of 7 node 7 (idle 2 … 8) drops out: only Bucket 1 and nodes 3, 4.
    assert {o.nodes for o in bucket_offers(FIG_12, 3, 7.0)} == {(1, 2, 5), (1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)}


@st.composite
def idle_intervals(draw):
    """Each node's idle intervals: disjoint, in time order, as a schedule leaves them."""
    out = []
    for node in range(1, draw(st.integers(1, 7)) + 1):
        t = draw(st.integers(0, 4))
        for _ in range(draw(st.integers(0, 2))):
            length = draw(st.integers(1, 8))
            out.append((node, float(t), float(t + length)))
            t += length + draw(st.integers(1, 4))
    return out


@settings(max_examples=examples(100), deadline=None)
@given(intervals=idle_intervals(), n=st.integers(1, 4), runtime=st.integers(1, 6))
def test_every_bucket_offer_is_feasible_and_new(intervals, n, runtime):
    """On random idle intervals each bucket offer is distinct, has n different nodes idle over a frame at least
    the runtime long, and a bucket long enough that alone has n nodes always yields an offer."""
    offers = bucket_offers(intervals, n, float(runtime))
    assert len({(o.nodes, o.start, o.end) for o in offers}) == len(offers)
    for o in offers:
        assert len(set(o.nodes)) == n and o.start + runtime <= o.end + EPS
        for node in o.nodes:  # each node has an interval holding the offer's frame
            assert any(v == node and s <= o.start and e >= o.end for v, s, e in intervals)
    # A bucket (one start, one end) that alone has n nodes always yields an offer.
    for (s, e), members in itertools.groupby(sorted((s, e, v) for v, s, e in intervals), key=lambda x: x[:2]):
        nodes = sorted({v for *_, v in members})
        if e - s >= runtime and len(nodes) >= n:
            assert any(set(o.nodes) <= set(nodes) and (o.start, o.end) == (s, e) for o in offers)


# ---------------------------------------------------------------- machine and user functions


def test_machine_and_user_functions_by_hand():
    """MF1-MF6 and UF1-UF5 give the values worked out by hand for one case; an unknown machine or user function
    is refused by name."""
    # n = 2, T = 10: the job's own node-time 20; before 5, after 3, parallel 10 so parallel_rel = 0.5
    args = (2, 10.0, 5.0, 3.0, 10.0)
    assert machine_value("MF1", *args) == (20 + 5 + 3 + 10) * 0.5
    assert machine_value("MF2", *args) == 38
    assert machine_value("MF3", *args) == (20 + 5 + 3) * 0.5
    assert machine_value("MF4", *args) == (20 + 10) * 0.5
    assert machine_value("MF5", *args) == (20 + 3 + 10) * 0.5
    assert machine_value("MF6", *args) == (20 + 5 + 10) * 0.5
    assert [utility(u, 7.0, 100.0) for u in USER_FUNCTIONS] == [-7.0, -100.0, -107.0, -207.0, -114.0]
    with pytest.raises(ParameterError, match="machine_function: expected one of MF1, MF2"):
        machine_value("MF7", *args)
    with pytest.raises(ParameterError, match="user_function: expected one of UF1"):
        utility("uf1", 0.0, 0.0)


def test_an_offer_carries_before_after_and_parallel_of_its_schedule():
    """On one machine of 4 with x on two nodes, y is offered starts 0 and 10, with the node sets, MF2 values and
    UF3 utilities worked out by hand from the idle time before, after and beside each."""
    # One machine of 4: x holds n1, n2 over [0, 10]. y (2 nodes, T = 5) at 0: n3, n4 are idle from 0
    # to the end of the schedule (10), so before = 0, after = 2 × (10 - 5) = 10, parallel = 0.
    env = grid([4], [job("x", 2, 10.0), job("y", 2, 5.0)])
    run = EconomicRun(env, {"machine_function": "MF2", "user_function": "UF3"}, Recorder(env, history=False))
    run.book(env.job("x"), 0.0)
    offers = run.offers(env.job("y"), 0, 0.0)
    # The feasible starts are where idle intervals begin: 0 (n3, n4) and 10 (n1, n2 after x).
    assert [o.start for o in offers] == [0.0, 10.0]
    first = offers[0]
    assert first.nodes.tolist() == [2, 3] and first.value == 10 + 10 and first.utility == -20
    # From 10 every node is idle: the job ends the schedule (after 0), parallel = 2 × 5 beside it;
    # n1, n2 idle since 10 (before 0) are taken over n3, n4 idle since 0 (before 2 × 10).
    assert offers[1].nodes.tolist() == [0, 1] and offers[1].value == 10 + 0 + 10
    assert offers[1].utility == -(10 + 20)


# ---------------------------------------------------------------- the offer search against brute force


@st.composite
def booked_machines(draw):
    k = draw(st.integers(1, 5))
    rows = []
    for node in range(k):
        t = float(draw(st.integers(0, 4)))
        for _ in range(draw(st.integers(0, 3))):
            length = float(draw(st.integers(1, 6)))
            rows.append((node, t, t + length))
            t += length + draw(st.integers(0, 5))
    now = float(draw(st.integers(0, 6)))
    n = draw(st.integers(1, k))
    T = float(draw(st.integers(1, 8)))
    mf = draw(st.sampled_from(sorted(MACHINE_FUNCTIONS)))
    uf = draw(st.sampled_from(sorted(USER_FUNCTIONS)))
    return k, rows, now, n, T, mf, uf


def brute_force(k, rows, now, n, T, mf, uf, s):
    """The best utility over every n-set of nodes idle over [s, s + T], or None."""
    live = [r for r in rows if r[2] > now + EPS]
    horizon = max([e for _, _, e in live], default=-math.inf)
    free = [v for v in range(k) if not any(x == v and a < s + T - EPS and e > s + EPS for x, a, e in live)]
    if len(free) < n:
        return None
    busy = sum(max(0.0, min(e, s + T) - max(a, s)) for _, a, e in live)
    parallel = k * T - busy - n * T
    best = -math.inf
    for nodes in itertools.combinations(free, n):
        before = sum(s - max([now] + [e for x, _, e in live if x == v and e <= s + EPS]) for v in nodes)
        nxt = [min([math.inf] + [a for x, a, _ in live if x == v and a >= s + T - EPS]) for v in nodes]
        after = sum(min(t, max(horizon, s + T)) - (s + T) for t in nxt)
        best = max(best, utility(uf, s, machine_value(mf, n, T, before, after, parallel)))
    return best


@settings(max_examples=examples(150), deadline=None)
@given(case=booked_machines())
def test_offers_are_the_best_node_sets_at_the_earliest_feasible_starts(case):
    """Against brute force on random bookings: the first offer is at the earliest feasible start, the offers'
    starts increase (at most `starts` of them), and each offer has n nodes and the best utility at its start."""
    k, rows, now, n, T, mf, uf = case
    env = grid([k], [job("new", n, T)])
    run = EconomicRun(env, {"machine_function": mf, "user_function": uf}, Recorder(env, history=False))
    for node, a, e in rows:
        run.machines[0].book(np.array([node]), a, e, e)
    offers = run.offers(env.job("new"), 0, now)
    candidates = sorted({now} | {e for _, _, e in rows if e > now})
    earliest = next(c for c in candidates if brute_force(k, rows, now, n, T, mf, uf, c) is not None)
    assert offers and offers[0].start == earliest
    assert len(offers) <= run.starts and [o.start for o in offers] == sorted({o.start for o in offers})
    for o in offers:  # at each offered start, no n-set of idle nodes has a higher utility
        assert o.utility == pytest.approx(brute_force(k, rows, now, n, T, mf, uf, o.start), rel=1e-9, abs=1e-9)
        assert len(o.nodes) == n


# ---------------------------------------------------------------- whole runs


def test_uf1_takes_the_earliest_start_and_cost_can_buy_a_later_one():
    """UF1 starts y at once on the free node; with MF2, UF2 buys the cheaper start at 10 and UF3 does not; with
    starts=1 UF2 has no later offer to take."""
    # One machine of 2: x holds n1 over [0, 10]; y (1 node, T = 2) arrives at 0.
    env = grid([2], [job("x", 1, 10.0), job("y", 1, 2.0)])
    assert starts(registry.run(env, "Economic", {"user_function": "UF1"}))["y"] == (0.0, 2.0, ("n2",))
    # MF2 prices y from 0 on n2 at 2 + after (10 - 2) = 10 (parallel 0: n1 is busy), and from 10 on
    # n1 at 2 + parallel 2 (n2 idle beside it) = 4 (before 0 on n1, after 0: y ends the schedule).
    # Cost alone (UF2) buys the later start; UF3 weighs the wait 10 against the saving 6 and does not.
    cheap = starts(registry.run(env, "Economic", {"user_function": "UF2", "machine_function": "MF2"}))
    assert cheap["y"] == (10.0, 2.0, ("n1",))
    both = starts(registry.run(env, "Economic", {"user_function": "UF3", "machine_function": "MF2"}))
    assert both["y"] == (0.0, 2.0, ("n2",))
    # With one start per machine (starts = 1) UF2 has no later offer to buy.
    one = registry.run(env, "Economic", {"user_function": "UF2", "machine_function": "MF2", "starts": 1})
    assert starts(one)["y"][0] == 0.0


def test_a_job_wider_than_every_machine_is_co_allocated_with_the_overhead():
    """A 5-node job on machines of 4 and 2 starts at 6 over both, its length stretched by the 0.5 overhead, and
    counts as one multi-site job; a job wider than all machines together is left out with a reason."""
    # m1 = 4 nodes, m2 = 2; w needs 5. a takes all of m1 until 3 (only m1 is wide enough), b all of
    # m2 until 6 (from 0 there, not from 3 on m1). At 3 the machines have 4 nodes free together, at 6
    # all 6: w starts at 6 for 1.5 × 4 = 6, m1 (more free nodes) giving 4 and m2 one.
    env = grid([4, 2], [job("a", 4, 3.0), job("b", 2, 6.0), job("w", 5, 4.0, arrival=1.0)])
    got = registry.run(env, "Economic", {"overhead": 0.5})
    placed = starts(got)
    assert placed["a"] == (0.0, 3.0, ("n1", "n2", "n3", "n4")) and placed["b"] == (0.0, 6.0, ("n5", "n6"))
    w = next(x for x in got.windows if x.job == "w")
    assert (w.start, w.length, w.overhead) == (6.0, 6.0, 0.5)
    assert w.nodes == ("n1", "n2", "n3", "n4", "n5")
    assert flow_metrics(env, got).multi_site_jobs == 1
    wide = registry.run(grid([4, 2], [job("huge", 7, 1.0)]), "Economic")
    assert wide.reasons["huge"] == "asks for 7 nodes, more than all machines together have (6)"


def test_a_job_that_ends_early_frees_the_rest_of_its_booking_for_later_arrivals():
    """When x ends at 5 instead of 10, y arriving at 6 starts on the freed node at 6, while z, which arrived at
    2, keeps the start at 10 it was promised."""
    # x books n1 for 10 but ends at 5 (fraction 0.5). y (1 node, T 4) arrives at 6: n1 is free again.
    env = grid([1], [job("x", 1, 10.0, frac=0.5), job("y", 1, 4.0, arrival=6.0), job("z", 1, 1.0, arrival=2.0)])
    got = starts(registry.run(env, "Economic"))
    # z arrived at 2 while x still held its booking to 10: it was promised 10 and keeps it; y at 6
    # sees n1 idle from 6 (x ended at 5) to 10 (z's booking) and fits there.
    assert got["z"][0] == 10.0 and got["y"][0] == 6.0


def test_bad_parameters_are_one_line_errors():
    """An unknown machine function, an unknown user function and a negative overhead each raise a ParameterError
    naming the parameter and what it expects."""
    env = grid([2], [job("a", 1, 1.0)])
    with pytest.raises(ParameterError, match="machine_function: expected one of MF1, MF2, MF3, MF4, MF5, MF6"):
        registry.run(env, "Economic", {"machine_function": "MF0"})
    with pytest.raises(ParameterError, match="user_function: expected one of UF1, UF2, UF3, UF4, UF5"):
        registry.run(env, "Economic", {"user_function": "best"})
    with pytest.raises(ParameterError, match="overhead: must be ≥ 0"):
        registry.run(env, "Economic", {"overhead": -0.5})


def test_under_uf1_the_machine_function_only_breaks_ties_and_fit_decides_them_by_the_idle_time_left():
    """Under MF1 and UF1 both tie rules start y at 0 with the same utility: ties=value takes the node leaving
    the most idle time (n3), ties=fit the one leaving the least (n2)."""
    # One machine of 4: x holds n1 over [0, 10] and z holds n2 over [3, 13]; y (1 node, T = 2) at 0 can
    # take n2 (idle until 3: after 1), n3 or n4 (idle to the end of the schedule, 13: after 11). Parallel
    # is 4 × 2 - 2 (x) - 2 (y) = 4 > n·T = 2, so MF1's factor 1 - parallel_rel is negative and its lowest
    # MV is the node that leaves the most idle time: the worst fit. ties=fit takes the best fit, n2.
    env = grid([4], [job("y", 1, 2.0)])
    picks = {}
    for ties in ("value", "fit"):
        run = EconomicRun(env, {"machine_function": "MF1", "user_function": "UF1", "ties": ties}, Recorder(env))
        run.machines[0].book(np.array([0]), 0.0, 10.0, 10.0)
        run.machines[0].book(np.array([1]), 3.0, 13.0, 13.0)
        (offer,) = run.offers(env.job("y"), 0, 0.0)
        picks[ties] = (offer.start, offer.nodes.tolist(), offer.idle, offer.utility)
    # Both start at 0 (the same utility, -0): only the nodes differ. Idle left: before 0 + after + parallel 4.
    assert picks == {"value": (0.0, [2], 0 + 11 + 4, 0.0), "fit": (0.0, [1], 0 + 1 + 4, 0.0)}


@pytest.mark.parametrize("config", ["m128-4", "m512-1"])
def test_with_fit_ties_every_machine_function_gives_uf1_one_schedule(config):
    """UF1's utility ignores MV: with ties=fit the MF cannot change a choice, so MF1-MF6 book every job
    alike, as MF2 does by its own value (its MV orders offers as the idle time they leave); by the lowest
    MV (the default) they differ."""
    from workbench.lab.studies.grid import grid_workload

    env = grid_workload(config, 3, False, 400, 1, 0.8)

    def plan(mf, ties):
        result = registry.run(env, "Economic", {"machine_function": mf, "user_function": "UF1", "ties": ties})
        return sorted((w.job, w.start, w.nodes) for w in result.windows)

    fit = {mf: plan(mf, "fit") for mf in MACHINE_FUNCTIONS}
    assert all(p == fit["MF2"] for p in fit.values())
    assert plan("MF2", "value") == fit["MF2"]
    assert plan("MF1", "value") != fit["MF1"]
