"""Rough-edged windows and the AEP strategies of seed 000 (AMP, MinProcTime, CSA) against brute force."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import environments, examples
from workbench.engine import registry
from workbench.engine.errors import ParameterError
from workbench.engine.flow.css import CssSpec, find_alternatives
from workbench.engine.metrics import flow_metrics
from workbench.engine.model import EPS, Environment, Job, LocalTask, Node, TimeSettings
from workbench.engine.rough import ROUGH_CRITERIA, search_rough
from workbench.engine.search import budget_units, cost_units
from workbench.engine.slots import SlotTable


def _free(env: Environment, node: str, a: float, b: float) -> bool:
    """Is ``node`` free of local tasks over [a, b] inside the interval? (straight from the model)"""
    if a < env.time.start - EPS or b > env.time.end + EPS:
        return False
    return all(t.end <= a + EPS or t.start >= b - EPS for t in env.local_tasks if t.node == node)


def brute_rough(env: Environment, job: Job, criterion: str, earliest: float) -> float | None:
    """The best value over every start in a fine grid of candidate times and every n-subset of nodes."""
    times = {max(earliest, env.time.start)}
    times |= {t.end for t in env.local_tasks if t.end >= earliest}  # every slot starts at a task's end
    budget = budget_units(job.budget, 1.0)
    best = None
    for t in sorted(times):
        ok = [
            node
            for node in env.nodes
            if node.performance >= job.min_performance - EPS
            and _free(env, node.id, t, t + job.volume / node.performance)
        ]
        for subset in itertools.combinations(ok, job.node_count):
            lengths = [job.volume / node.performance for node in subset]
            units = sum(int(cost_units(node.price, job.volume / node.performance, 1.0)) for node in subset)
            if budget is not None and units > budget:
                continue
            value = {
                "start": -t,
                "finish": -(t + max(lengths)),
                "runtime": -max(lengths),
                "cost": -sum(node.price * length for node, length in zip(subset, lengths, strict=True)),
                "proc_time": -sum(lengths),
            }[criterion]
            if best is None or value > best + 1e-9:
                best = value
    return best


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=1, bounded=True),
    criterion=st.sampled_from(ROUGH_CRITERIA),
    earliest=st.sampled_from([0.0, 3.0, 10.0]),
)
def test_rough_search_equals_brute_force(env, criterion, earliest):
    """The rough search finds the best value there is, and its window is really free and affordable."""
    job = env.jobs[0]
    table = SlotTable.from_environment(env)
    got = search_rough(table, job, criterion, earliest)
    want = brute_rough(env, job, criterion, earliest)
    if want is None:
        assert got is None
        return
    assert got is not None
    assert got.value == pytest.approx(want, abs=1e-7)
    w = got.window
    assert len(set(w.nodes)) == job.node_count and w.start >= earliest - EPS
    perf = {node.id: node.performance for node in env.nodes}
    for node_id, end in w.part_ends():
        assert end == pytest.approx(w.start + job.volume / perf[node_id])
        assert _free(env, node_id, w.start, end)
    assert w.length == pytest.approx(max(w.part_lengths))


def _line(perfs, prices, tasks=(), budget=math.inf, n=2, volume=60.0) -> Environment:
    nodes = tuple(Node(f"n{i + 1}", f"n{i + 1}", p, c) for i, (p, c) in enumerate(zip(perfs, prices, strict=True)))
    local = tuple(LocalTask(f"t{k}", node, s, e) for k, (node, s, e) in enumerate(tasks))
    job = Job("j1", "j1", n, 1.0, volume, budget)
    return Environment(nodes, local, (job,), TimeSettings(0.0, None, 200.0))


def test_a_rough_window_reserves_each_node_for_its_own_time_and_frees_the_rest():
    """Seed 000 Fig. 3: on nodes of performance 2 and 6, V = 60 takes 30 and 10 units; the fast node is
    free again at 10, runtime is 30, CPU time 40, cost Σ c_i·V/p_i."""
    env = _line((2.0, 6.0), (1.0, 3.0))
    found = registry.selector("AMP", {"shape": "rough"}).select(SlotTable.from_environment(env), env.jobs[0], 0.0)
    w = found.window
    assert w.nodes == ("n1", "n2") and w.lengths == (30.0, 10.0)
    assert (w.length, w.cpu_time, w.cost) == (30.0, 40.0, 30.0 + 30.0)
    after = SlotTable.from_environment(env, [w])
    free_from = {table_node: start for table_node, start in zip(after.node, after.start, strict=True)}
    assert free_from[0] == 30.0 and free_from[1] == 10.0
    square = registry.selector("AMP", {"shape": "square"}).select(SlotTable.from_environment(env), env.jobs[0], 0.0)
    assert square.window.lengths == () and square.window.cpu_time == 60.0  # both nodes for V / P_min = 30


def test_min_run_time_takes_the_fastest_affordable_set_and_min_cost_the_cheapest():
    """Under a budget that allows one fast, dear node, the runtime search takes n2 and n3 (runtime 15) and the
    cost search the cheapest pair, n1 and n2 (cost 60)."""
    # Fast nodes are dear: the budget allows one of them only.
    env = _line((2.0, 4.0, 10.0, 10.0), (1.0, 2.0, 10.0, 10.0), budget=110.0)
    table = SlotTable.from_environment(env)
    job = env.jobs[0]
    run = search_rough(table, job, "runtime", 0.0).window
    assert run.nodes == ("n2", "n3") and run.length == 15.0  # 6 (cost 60) + 15 (cost 30) = 90 <= 110
    cost = search_rough(table, job, "cost", 0.0).window
    assert cost.nodes == ("n1", "n2") and cost.cost == 60.0


def test_a_busy_fast_node_moves_min_finish_later_only_when_that_pays():
    """With fast node n3 busy until 20, the finish search starts at 20 on n3 and n4 and ends at 26, rather than
    start at once with a slow node and end at 30."""
    env = _line((2.0, 2.0, 10.0, 10.0), (1.0, 1.0, 1.0, 1.0), tasks=[("n3", 0.0, 20.0)])
    job = env.jobs[0]
    w = search_rough(SlotTable.from_environment(env), job, "finish", 0.0).window
    # Now: n4 (6) + a slow node (30) ends at 30; at 20: n3 + n4 end at 26: later start, earlier finish.
    assert (w.start, w.end, w.nodes) == (20.0, 26.0, ("n3", "n4"))


def test_csa_picks_the_extreme_of_disjoint_amp_alternatives():
    """CSA finds at least two alternatives, disjoint in nodes and time, and by runtime selects the shortest."""
    env = _line((2.0, 3.0, 6.0, 6.0), (1.0, 1.0, 4.0, 4.0))
    table = SlotTable.from_environment(env)
    job = env.jobs[0]
    csa = registry.selector("CSA", {"shape": "rough", "by": "runtime"})
    alternatives = csa.alternatives(table, job, 0.0)
    assert len(alternatives) >= 2
    for a, b in itertools.combinations(alternatives, 2):  # disjoint in nodes x time
        for (na, ea), (nb, eb) in itertools.product(a.part_ends(), b.part_ends()):
            assert na != nb or ea <= b.start + EPS or eb <= a.start + EPS
    best = csa.select(table, job, 0.0).window
    assert best.length == min(a.length for a in alternatives)


def test_metrics_and_backfilling_count_the_parts_of_rough_windows():
    """Two AMP jobs in rough windows: CPU time and the owners' profit count each part, and the second job starts
    at 10 on the node the first one's short part left free."""
    env = _line((2.0, 6.0, 3.0), (1.0, 1.0, 1.0), n=2)
    two = Job("j2", "j2", 2, 1.0, 60.0, math.inf)
    env = Environment(env.nodes, (), (env.jobs[0], two), env.time)
    result = registry.run(env, "AMP", {"shape": "rough"})
    assert len(result.windows) == 2
    m = flow_metrics(env, result)
    assert m.total_cpu_time == pytest.approx(sum(w.cpu_time for w in result.windows))
    assert sum(m.owners_profit.values()) == pytest.approx(m.total_cost)
    # j1 takes n2 (10 units) and n3 (20); j2 starts at 10 on n1 and on the n2 that j1's short part left
    # free, where a square j1 would have held n2 until 20.
    first, second = result.windows
    assert first.lengths == (10.0, 20.0) and first.end == 20.0
    assert second.start == 10.0 and second.nodes == ("n1", "n2")


def test_min_proc_time_is_exact_under_a_budget_where_the_greedy_choice_is_wrong():
    """Under a budget of 60 that every pair with the shortest part exceeds, the processing-time search finds the
    best affordable pair, n2 and n4, with CPU time 27."""
    # Parts 30, 15, 10, 12 costing 15, 15, 50, 36: the shortest pair n3 + n4 costs 86 > 60, and so does
    # every pair with n3; the best affordable pair is n2 + n4.
    env = _line((2.0, 4.0, 6.0, 5.0), (0.5, 1.0, 5.0, 3.0), budget=60.0)
    w = search_rough(SlotTable.from_environment(env), env.jobs[0], "proc_time", 0.0).window
    assert set(w.nodes) == {"n2", "n4"} and w.cpu_time == pytest.approx(15.0 + 12.0)


def _cheap_late_dear_early(jobs: tuple[Job, ...] = (), cycle: float | None = None) -> Environment:
    """Two cheap nodes free from 4 and a dear one (price 3) free from 0, all of performance 2."""
    nodes = (Node("n0", "A", 2.0, 1.0), Node("n1", "B", 2.0, 1.0), Node("n2", "C", 2.0, 3.0))
    tasks = (LocalTask("t0", "n0", 0.0, 4.0), LocalTask("t1", "n1", 0.0, 4.0))
    return Environment(nodes, tasks, jobs, TimeSettings(0.0, cycle, 100.0), "cheap late, dear early")


def test_amp_first_found_takes_the_slots_the_scan_meets_first():
    """AMP pick=first (seed 000 §5 as the paper's scan meets slots): at the earliest start, the nodes
    whose free slot began first, not the cheapest; a start where those exceed the budget is passed."""
    table = SlotTable.from_environment(_cheap_late_dear_early())
    job = Job("j1", "job", node_count=2, min_performance=1.0, volume=20.0)  # every part lasts 10
    cheapest = search_rough(table, job, "start", 0.0)
    first = search_rough(table, job, "start", 0.0, pick="first")
    assert cheapest is not None and first is not None
    assert (cheapest.window.start, cheapest.window.nodes) == (4.0, ("n0", "n1"))
    assert (first.window.start, first.window.nodes, first.window.cost) == (4.0, ("n0", "n2"), 40.0)
    # The first-found pair costs 40 units: under a budget of 35 it is not taken, and no later start has one.
    tight = Job("j1", "job", node_count=2, min_performance=1.0, volume=20.0, budget=35.0)
    assert search_rough(table, tight, "start", 0.0, pick="first") is None
    assert search_rough(table, tight, "start", 0.0).window.nodes == ("n0", "n1")
    with pytest.raises(Exception, match="pick"):
        registry.selector("AMP", {"pick": "first"})  # square windows have no first-found choice


def test_explained_runs_measure_each_rough_part_against_its_own_slot():
    """With explain=True (the GUI's runs) every part's L_right is measured from its own end: a fast
    node free for its own part but not for the slowest part's length is no error."""
    nodes = (Node("n0", "fast", 4.0, 1.0), Node("n1", "slow", 2.0, 1.0))
    tasks = (LocalTask("t0", "n0", 7.0, 20.0),)  # the fast node is free over [0, 7): its part needs 5
    job = Job("j1", "job", node_count=2, min_performance=1.0, volume=20.0)
    env = Environment(nodes, tasks, (job,), TimeSettings(0.0, None, 100.0), "rough explain")
    for pick in ("cheapest", "first"):
        run = registry.run(env, "AMP", {"shape": "rough", "pick": pick}, explain=True)
        (window,) = run.windows
        assert (window.start, window.lengths) == (0.0, (5.0, 10.0))
        left, right = run.distances[window.job]
        assert left == (0.0, 0.0) and right == (2.0, 90.0)  # 7 - 5 on the fast node; 100 - 10 on the slow


def test_a_job_its_strategy_turns_down_is_not_blamed_on_cycle_boundaries():
    """AMP pick=first refuses the only affordable pair (the first-found one costs too much): the
    reason says a window fits inside the cycle and the strategy's own rule turned it down."""
    job = Job("j1", "job", node_count=2, min_performance=1.0, volume=20.0, budget=35.0)
    env = _cheap_late_dear_early((job,), cycle=100.0)
    run = registry.run(env, "AMP", {"shape": "rough", "pick": "first"})
    assert run.unscheduled == ("j1",)
    assert run.reasons["j1"].startswith("the strategy took no window, though one fits inside a cycle")
    assert "from 4" in run.reasons["j1"]  # FirstFit's window, on the two cheap nodes
    assert registry.run(env, "AMP", {"shape": "rough"}).windows[0].nodes == ("n0", "n1")


def test_css_family_searches_and_weighs_rough_alternatives():
    """With shape=rough, CSS's alternatives are the rough AEP windows of the job's own criterion, each on
    what the ones before left (a fast node's short part holds it only that long), and the VO's CPU time
    is the sum of the parts: {n1, n2} holds 30 + 6 = 36 units of node time, where a square window would
    hold 2 × 30."""
    nodes = tuple(
        Node(f"n{i + 1}", f"n{i + 1}", p, c)
        for i, (p, c) in enumerate(((2.0, 0.1), (10.0, 1.0), (3.0, 1.0), (3.0, 1.0)))
    )
    job = Job("j1", "j1", 2, 1.0, 60.0, math.inf, criterion="start")
    env = Environment(nodes, (), (job,), TimeSettings(0.0, None, 35.0))
    spec = CssSpec(max_alternatives=5, shape="rough")
    alternatives = find_alternatives(None, env.jobs, SlotTable.from_environment(env), 0.0, spec)["j1"]
    assert [(w.nodes, w.start, w.lengths) for w in alternatives] == [
        (("n1", "n2"), 0.0, (30.0, 6.0)),
        (("n3", "n4"), 0.0, (20.0, 20.0)),
    ]
    chosen = registry.run(env, "CSS", {"shape": "rough", "max_alternatives": 5}).windows
    assert [(w.nodes, w.cpu_time) for w in chosen] == [(("n1", "n2"), 36.0)]
    square = registry.run(env, "CSS", {"max_alternatives": 5}).windows
    assert square[0].lengths == () and square[0].cpu_time == 2 * square[0].length
    with pytest.raises(ParameterError, match="shape"):
        CssSpec(shape="jagged")
