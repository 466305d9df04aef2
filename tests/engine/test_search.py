"""The square-window search against brute force, and the subset choice against enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.brute import brute_subset, brute_window
from tests.support.hypothesis_strategies import environments, examples
from workbench.engine import criteria as cr
from workbench.engine.model import Environment, Job, LocalTask, Node, TimeSettings
from workbench.engine.search import SearchSpec, find_window, knapsack_count, lagrangian_bound
from workbench.engine.slots import SlotTable

# Dyadic PAST/CoP constants keep every sum exact, so ties must match to the letter.
DYADIC = {
    "alpha1": 0.125,
    "alpha2": 1 / 1024,
    "delta1": 1.0,
    "delta2": 0.125,
    "eps1": 0.03125,
    "eps2": 0.25,
    "eps3": 0.375,
}

CRITERIA = {
    "start": cr.StartTime,
    "finish": cr.FinishTime,
    "cost": cr.Cost,
    "runtime": cr.RunTime,
    "q": cr.Attribute,
    "dep": cr.Dependable,
    "coord": cr.Coordinated,
    "lsum": cr.GapSum,
    "lmin": cr.NearestGap,
    "past": lambda: cr.Past(**DYADIC),
    "cop": lambda: cr.CoordinatedPlacement(**DYADIC),
}


# One job, any criterion, lite or exact, from several earliest times, BFshort-like length factors.
SEARCH_CASES = {
    "env": environments(max_jobs=1),
    "name": st.sampled_from(sorted(CRITERIA)),
    "exact": st.booleans(),
    "earliest": st.sampled_from([0.0, 3.0, 10.0]),
    "factor": st.sampled_from([1.0, 0.5]),
    "quantum": st.sampled_from([0.0, 0.0, 1.0, 4.0]),  # 0: exact lengths; else whole quanta
}


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**SEARCH_CASES)
def test_search_equals_brute_force(env, name, exact, earliest, factor, quantum):
    """find_window returns exactly the window the literal normative search finds."""
    table = SlotTable.from_environment(env)
    job = env.jobs[0]
    crit = CRITERIA[name]()
    spec = SearchSpec(crit, exact=exact, length_factor=factor, quantum=quantum)
    got = find_window(table, job, spec, earliest)
    want = brute_window(table, job, crit, exact, earliest, factor, quantum=quantum)
    if want is None:
        assert got is None
        return
    assert got is not None
    value, window = want
    assert got.value == value
    assert got.window == window


@settings(max_examples=examples(300), deadline=None)
@given(
    data=st.lists(st.tuples(st.integers(-5, 9), st.integers(0, 6), st.booleans()), min_size=1, max_size=9),
    n=st.integers(1, 4),
    budget=st.integers(0, 30),
    constrained=st.booleans(),
)
def test_knapsack_equals_enumeration(data, n, budget, constrained):
    """The DP of seed 002 eq. 2 picks the same subset as enumeration, ties included.

    With ``constrained`` the subset must hold one of the required items (a node of
    performance exactly P, DESIGN.md "Window length").
    """
    z = np.array([float(a) for a, _, _ in data])
    units = np.array([u for _, u, _ in data], dtype=np.int64)
    required = np.array([r for _, _, r in data]) if constrained else None
    positions = np.arange(len(data))[::-1].copy()  # not the item order: positions matter
    got = knapsack_count(z, units, n, budget, positions, required)
    want = brute_subset(list(z), list(units), n, budget, list(positions), required)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert sorted(got.tolist()) == want


@settings(max_examples=examples(200), deadline=None)
@given(
    data=st.lists(st.tuples(st.floats(-50, 50), st.integers(0, 9)), min_size=1, max_size=9),
    n=st.integers(1, 4),
    budget=st.integers(0, 40),
)
def test_knapsack_optimal_on_real_values(data, n, budget):
    """On arbitrary real values the DP's total equals the best enumerated total."""
    z = np.array([a for a, _ in data])
    units = np.array([u for _, u in data], dtype=np.int64)
    got = knapsack_count(z, units, n, budget, np.arange(len(data)))
    want = brute_subset(list(z), list(units), n, budget, list(range(len(data))))
    if want is None:
        assert got is None
        return
    assert got is not None
    assert units[got].sum() <= budget
    assert len(got) == n
    assert z[got].sum() == pytest.approx(z[want].sum(), abs=1e-9)


@settings(max_examples=examples(200), deadline=None)
@given(
    data=st.lists(st.tuples(st.floats(-50, 50), st.integers(0, 9)), min_size=4, max_size=9),
    n=st.integers(1, 4),
    budget=st.integers(0, 40),
)
def test_lagrangian_bound_is_an_upper_bound(data, n, budget):
    """The Lagrangian bound never undercuts the true optimum (it only prunes)."""
    z = np.array([a for a, _ in data])
    units = np.array([u for _, u in data], dtype=np.int64)
    want = brute_subset(list(z), list(units), n, budget, list(range(len(data))))
    bound = lagrangian_bound(z[None, :], units[None, :], n, budget)[0]
    if want is not None:
        assert bound >= z[want].sum() - 1e-9


def _env(nodes, tasks, horizon=100.0):
    return Environment(
        nodes=tuple(Node(f"n{i}", f"n{i}", p, c, (("q", q),)) for i, (p, c, q) in enumerate(nodes)),
        local_tasks=tuple(LocalTask(f"t{i}", f"n{k}", s, e) for i, (k, s, e) in enumerate(tasks)),
        jobs=(),
        time=TimeSettings(0.0, None, horizon),
    )


def test_window_is_square_and_sized_by_the_slowest_level():
    """T = V / P for the level searched; FirstFit takes the earliest start."""
    env = _env([(2.0, 1.0, 0), (4.0, 1.0, 0), (4.0, 1.0, 0)], [(1, 0, 10), (2, 0, 10)])
    job = Job("j", "j", 2, 1.0, 40.0)
    found = find_window(SlotTable.from_environment(env), job, SearchSpec(cr.StartTime()), 0.0)
    # At t=0 only nodes 0 (p=2) is free; n1, n2 free from 10: the window starts at 10 with T=10.
    assert found is not None
    assert found.window.start == 10.0
    assert found.window.length == 10.0
    assert found.window.nodes == ("n1", "n2")


@pytest.mark.parametrize("name", ["COORD", "COORD Lite", "DEP", "DEP Lite", "MaxQ", "CoP", "FirstFit"])
def test_window_never_reserves_longer_than_its_slowest_node_needs(name):
    """At level P the subset holds a node of performance exactly P, so T = V / its slowest node.

    Four fast nodes (p=8) and one slow (p=2, listed last) are free over [0, 50]. At level 2
    (T=50) the four fast ones fit the gap exactly, which COORD would love; but they would be
    reserved 4x longer than they need, so a level-2 window must include the slow node.
    """
    from workbench.engine import registry

    env = _env(
        [(8.0, 1.0, 0), (8.0, 1.0, 0), (8.0, 1.0, 0), (8.0, 1.0, 0), (2.0, 1.0, 0)],
        [(k, 50, 100) for k in range(5)],
        horizon=100.0,
    )
    job = Job("j", "j", 4, 2.0, 100.0)
    found = registry.selector(name).select(SlotTable.from_environment(env), job, 0.0)
    assert found is not None
    slowest = min(env.nodes[env.node_index[n]].performance for n in found.window.nodes)
    assert found.window.length == job.volume / slowest
    if name.startswith("COORD"):  # a snug level-2 window exists only with the slow node in it
        assert found.window.length == 50.0
        assert "n4" in found.window.nodes


def test_a_dp_too_large_for_the_cap_is_one_clear_error():
    """A tiny resolution would need a huge table: the run stops with the parameter and the size."""
    from workbench.engine import registry
    from workbench.engine.errors import ParameterError

    env = _env([(1.0, 1.0 + k, k) for k in range(12)], [], horizon=1000.0)  # best q is dearest
    env = Environment(env.nodes, (), (Job("j", "j", 4, 1.0, 100.0, budget=1500.0),), env.time)
    with pytest.raises(ParameterError) as info:
        registry.run(env, "MaxQ", {"resolution": 1e-6})
    message = str(info.value)
    assert message.startswith("resolution: ")
    assert "GiB" in message and "limit is 128.0 MiB" in message and "\n" not in message
    # The coarser resolution the message names really is enough.
    coarser = float(message.rsplit("resolution ≥ ", 1)[1])
    assert registry.run(env, "MaxQ", {"resolution": coarser}).windows


def test_budget_is_respected_and_unmeetable_budget_gives_none():
    """Cost = sum c_i * T must stay within C; nothing fits when even the cheapest is over."""
    env = _env([(1.0, 5.0, 0), (1.0, 1.0, 0), (1.0, 2.0, 0)], [])
    job = Job("j", "j", 2, 1.0, 10.0, budget=30.0)
    found = find_window(SlotTable.from_environment(env), job, SearchSpec(cr.StartTime()), 0.0)
    assert found is not None and found.window.nodes == ("n1", "n2") and found.window.cost == 30.0
    poor = Job("j", "j", 2, 1.0, 10.0, budget=29.0)
    assert find_window(SlotTable.from_environment(env), poor, SearchSpec(cr.StartTime()), 0.0) is None


def test_exact_maxq_beats_lite_when_the_best_nodes_are_not_the_cheapest():
    """MaxQ's DP trades cost for q; MaxQ Lite only scores the n cheapest."""
    env = _env([(1.0, 1.0, 1), (1.0, 1.0, 1), (1.0, 2.0, 9), (1.0, 3.0, 9)], [])
    job = Job("j", "j", 2, 1.0, 10.0, budget=40.0)
    table = SlotTable.from_environment(env)
    exact = find_window(table, job, SearchSpec(cr.Attribute(), exact=True), 0.0)
    lite = find_window(table, job, SearchSpec(cr.Attribute(), exact=False), 0.0)
    assert exact.value == 10.0 and set(exact.window.nodes) == {"n0", "n2"}  # 10 + 20 <= 40
    assert lite.value == 2.0 and lite.window.nodes == ("n0", "n1")


def test_unbounded_horizon_trailing_slot_has_zero_right_distance():
    """An open-ended slot leaves no gap behind a window: L_right = 0 there."""
    env = _env([(1.0, 1.0, 0)], [(0, 0, 5)], horizon=None)
    env = Environment(env.nodes, env.local_tasks, (), TimeSettings(0.0, None, None))
    job = Job("j", "j", 1, 1.0, 10.0)
    found = find_window(SlotTable.from_environment(env), job, SearchSpec(cr.Coordinated(), exact=True), 0.0)
    assert found.window.start == 5.0 and found.value == 0.0
    assert math.isinf(SlotTable.from_environment(env).end.max())


def test_earliest_start_is_respected_and_left_gap_measured_to_the_task():
    """A window starts at or after `earliest`; L_left still counts from the previous task's end."""
    env = _env([(1.0, 1.0, 0)], [(0, 0, 5)])
    job = Job("j", "j", 1, 1.0, 10.0)
    found = find_window(SlotTable.from_environment(env), job, SearchSpec(cr.Dependable(), exact=True), 20.0)
    assert found.window.start == 20.0
    assert found.value == 15.0  # min(L_left = 20 - 5, L_right = 100 - 30 = 70)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=3),
    earliest=st.sampled_from([0.0, 3.0, 10.0]),
    factor=st.sampled_from([1.0, 0.99, 0.5]),
    before=st.sampled_from([math.inf, 12.0, 30.0]),
    reserve=st.integers(0, 2),
    quantum=st.sampled_from([0.0, 0.0, 1.0, 8.0]),
)
def test_fast_first_fit_equals_the_general_search(env, earliest, factor, before, reserve, quantum):
    """first_fit gives exactly find_window's FirstFit answer (window and value), ties included."""
    from workbench.engine.search import general_search
    from workbench.engine.search.firstfit import first_fit

    table = SlotTable.from_environment(env)
    spec = SearchSpec(cr.StartTime(), length_factor=factor, quantum=quantum)
    for job in env.jobs[1 : 1 + reserve]:
        hit = find_window(table, job, spec, 0.0)
        if hit is not None:
            table = table.reserve([hit.window])
    job = env.jobs[0]
    want = general_search(table, job, spec, earliest)
    got = first_fit(table, job, earliest, factor, before=before, quantum=quantum)
    if want is not None and want.window.start >= before - 1e-9:
        assert got is None or got.window.start >= before - 1e-9
        return
    assert got == want


def test_exact_choice_never_falls_back_to_a_subset_without_a_level_node():
    """Regression (found by hypothesis): at level 2 only the dear n1 has performance 2 and the
    budget excludes it, so no level-2 window exists; the fast nodes alone form a level-4 window."""
    env = _env([(4.0, 0.0, 0), (2.0, 2.0, 0), (1.0, 0.0, 0), (1.0, 0.0, 0), (4.0, 0.0, 0)], [(4, 4, 5)], horizon=None)
    job = Job("j0", "j0", 2, 2.0, 8.0, budget=4.0)
    found = find_window(SlotTable.from_environment(env), job, SearchSpec(cr.Coordinated(), exact=True), 0.0)
    assert found is not None
    assert (found.window.start, found.window.length, found.window.nodes) == (0.0, 2.0, ("n0", "n4"))
    assert found.value == -2.0


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=environments(max_jobs=1, bounded=True), earliest=st.sampled_from([0.0, 5.0]))
def test_a_failure_reason_names_the_level_that_came_closest_and_is_true(env, earliest):
    """A failure reason comes from the search's own candidate space. When no
    window exists, the level it names needs T = V / P, and n nodes of performance >= P, one of
    them exactly P, really are free together for the time it states, from the time it states."""
    from dataclasses import replace

    from workbench.engine.diagnose import closest_level

    job = replace(env.jobs[0], budget=math.inf)
    table = SlotTable.from_environment(env)
    if find_window(table, job, SearchSpec(cr.StartTime()), earliest) is not None:
        return
    found = closest_level(table, job, earliest)
    if found is None:
        return
    P, T, longest, at = found
    assert job.volume / P == T and longest < T
    free = [
        table.perf[x]
        for x in range(len(table.node_ids))
        if table.perf[x] >= P
        and any(
            s <= at + 1e-9 and e >= at + longest - 1e-9
            for s, e in zip(table.start[table.node == x], table.end[table.node == x], strict=True)
        )
    ]
    assert len(free) >= job.node_count and P in free


@settings(max_examples=examples(200), deadline=None)
@given(
    width=st.integers(1, 80),
    n=st.integers(1, 12),
    rows=st.integers(1, 6),
    seed=st.integers(0, 2**31),
)
def test_first_members_takes_the_first_n_true_columns_of_every_row(width, n, rows, seed):
    """The packed-bits path (rows of up to 64 columns) and the counting path agree with a plain scan."""
    from workbench.engine.search.lite import first_members

    n = min(n, width)
    member, expected = _random_members(seed, rows, width, n, density=1.0)
    assert np.array_equal(first_members(member, n), expected)


def _random_members(seed: int, rows: int, width: int, n: int, density: float) -> tuple[np.ndarray, np.ndarray]:
    """A random (rows, width) membership, up to ``density`` full, with at least n members per row;
    and each row's first n member columns, by a plain scan."""
    rng = np.random.default_rng(seed)
    member = rng.random((rows, width)) < rng.random() * density
    for r in range(rows):
        member[r, rng.choice(width, n, replace=False)] = True
    return member, np.array([np.flatnonzero(member[r])[:n] for r in range(rows)])


@settings(max_examples=examples(200), deadline=None)
@given(
    width=st.integers(1, 200),
    n=st.integers(1, 12),
    rows=st.integers(1, 6),
    seed=st.integers(0, 2**31),
)
def test_lowest_bits_reads_the_n_lowest_set_bits_across_words(width, n, rows, seed):
    """Bit sets of several 64-bit words: the n lowest members, also for rows whose first words hold fewer."""
    from workbench.engine.search.lite import lowest_bit, lowest_bits

    n = min(n, width)
    member, expected = _random_members(seed, rows, width, n, density=0.3)  # sparse: short first words
    words = (width + 63) // 64
    padded = np.zeros((rows, 64 * words), dtype=bool)
    padded[:, :width] = member
    packed = np.packbits(padded, axis=1, bitorder="little").view("<u8")
    split = [np.ascontiguousarray(packed[:, w]) for w in range(words)]
    assert np.array_equal(lowest_bits(split, n), expected)
    assert np.array_equal(lowest_bit(split), expected[:, 0])


@pytest.mark.parametrize("name", ["DEP Lite", "COORD Lite", "MaxQ Lite", "FirstFit"])
def test_lite_choice_by_bit_sets_equals_the_column_scan(name):
    """On 100 and 200 nodes (several words, many rows whose first word is short) the bit-set lite choice
    finds exactly the window of the column scan, which the brute-force tests check on small sets."""
    from unittest import mock

    from workbench.engine import registry
    from workbench.engine.generate import generate
    from workbench.engine.search import candidates as search_module
    from workbench.engine.search import general_search

    spec = registry.selector(name).spec
    compared = 0
    for seed, nodes in [(1, 100), (2, 100), (3, 100), (4, 100), (5, 100), (6, 200)]:  # 200: four words
        env = generate("window100", seed, nodes=nodes)
        table = SlotTable.from_environment(env)
        base = env.jobs[0]
        cases = [(7, base.budget, 0.0), (3, math.inf, 0.0), (15, 2 * base.budget, 0.0), (5, math.inf, 6.0)]
        for n, budget, min_perf in cases:
            job = Job(**{**base.__dict__, "node_count": n, "budget": budget, "min_performance": min_perf})
            by_bits = general_search(table, job, spec, env.time.start)
            with mock.patch.object(search_module, "BIT_WORDS", 0):
                by_columns = general_search(table, job, spec, env.time.start)
            assert (by_bits is None) == (by_columns is None)
            if by_bits is not None:
                assert by_bits.window == by_columns.window and by_bits.value == by_columns.value
                compared += 1
    assert compared >= 15


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=1),
    name=st.sampled_from(sorted(CRITERIA)),
    earliest=st.sampled_from([0.0, 3.0, 10.0]),
    factor=st.sampled_from([1.0, 0.5]),
)
def test_lite_choice_by_column_scan_equals_brute_force(env, name, earliest, factor):
    """The lite choice of large machines (more nodes than bit sets hold) against the literal search."""
    from unittest import mock

    from workbench.engine.search import candidates as search_module

    table = SlotTable.from_environment(env)
    crit = CRITERIA[name]()
    with mock.patch.object(search_module, "BIT_WORDS", 0):
        got = find_window(table, env.jobs[0], SearchSpec(crit, length_factor=factor), earliest)
    want = brute_window(table, env.jobs[0], crit, False, earliest, factor)
    assert (got is None) == (want is None)
    if want is not None:
        assert got is not None and (got.value, got.window) == want


def _two_speeds() -> Environment:
    """Two slow nodes free from 0, two fast ones busy until 30: the earliest window is slow."""
    nodes = tuple(Node(f"n{i}", f"node {i}", p, 1.0) for i, p in enumerate([2.0, 2.0, 8.0, 8.0]))
    tasks = (LocalTask("t1", "n2", 0.0, 30.0), LocalTask("t2", "n3", 0.0, 30.0))
    job = Job("j1", "job", node_count=2, min_performance=1.0, volume=40.0)
    return Environment(nodes, tasks, (job,), TimeSettings(0.0, None, 200.0), "two speeds")


def test_first_fit_in_the_papers_scan_order_takes_the_fastest_group_first():
    """order=performance: the first window of the fastest group that has one (seed 002 §3.2, step 3),
    even when a slower group has an earlier one; the default takes the earliest window."""
    from workbench.engine import registry

    env = _two_speeds()
    table = SlotTable.from_environment(env)
    earliest = registry.selector("FirstFit").select(table, env.jobs[0], 0.0)
    scan = registry.selector("FirstFit", {"order": "performance"}).select(table, env.jobs[0], 0.0)
    assert earliest is not None and scan is not None
    assert (earliest.window.start, earliest.window.length, earliest.window.nodes) == (0.0, 20.0, ("n0", "n1"))
    assert (scan.window.start, scan.window.length, scan.window.nodes) == (30.0, 5.0, ("n2", "n3"))
    # The same in backfilling: BFstart in scan order reserves the fast nodes.
    run = registry.run(env, "BFstart", {"order": "performance"})
    assert run.windows[0].nodes == ("n2", "n3") and run.windows[0].start == 30.0


def test_idle_space_criteria_measure_the_gaps_beside_each_part():
    """L_Σ and L_minΣ (seed 001 §3) by hand: a part with 3 units free before it and 5 after."""
    ctx = cr.SlotContext(
        t=np.array([10.0]),
        T=np.array([4.0]),
        sstart=np.array([[7.0, 10.0]]),
        send=np.array([[19.0, np.inf]]),
        perf=np.ones((1, 2)),
        price=np.ones((1, 2)),
    )
    # Part 1: L_left 3, L_right 5; part 2 touches its left neighbour, and an open end leaves no gap.
    assert cr.GapSum().z(ctx).tolist() == [[-8.0, -0.0]]
    assert cr.NearestGap().z(ctx).tolist() == [[-3.0, -0.0]]
