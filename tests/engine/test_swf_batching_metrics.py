"""SWF import, batch formation (seed 003) and the flow metrics."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import examples
from workbench.engine import registry
from workbench.engine.errors import ParameterError
from workbench.engine.flow.batching import Domain, DqBatch, RandomBatch, knapsack_01
from workbench.engine.generate import generate
from workbench.engine.io.swf import import_swf
from workbench.engine.metrics import flow_metrics, job_metrics
from workbench.engine.model import Environment, Job, Node, TimeSettings
from workbench.engine.schedule import Schedule
from workbench.engine.slots import SlotTable

ROOT = Path(__file__).resolve().parents[2]

TRACE = """\
; Version: 2.2
; Computer: test machine
; MaxNodes: 4
;
1   0   5  100  2  -1 -1  2  200 -1 1 1 1 -1 1 -1 -1 -1
2  10  -1  300  1  -1 -1 -1  200 -1 1 1 1 -1 1 -1 -1 -1
3  20  -1   50 -1  -1 -1  8  100 -1 1 1 1 -1 1 -1 -1 -1
4  30  -1   80  2  -1 -1  2   -1 -1 1 1 1 -1 1 -1 -1 -1
5  40  -1    0  1  -1 -1  1   60 -1 0 1 1 -1 1 -1 -1 -1
"""


def test_swf_mapping_follows_the_design(tmp_path):
    """Number -> id, submit -> arrival, request -> n and length, run/request -> fraction (capped)."""
    path = tmp_path / "t.swf"
    path.write_text(TRACE)
    result = import_swf(path, nodes=4, perf=2.0, price=3.0)
    env = result.env
    assert [j.id for j in env.jobs] == ["1", "2", "4"]
    one, two, four = env.jobs
    assert (one.arrival, one.node_count, one.volume, one.actual_fraction) == (0.0, 2, 400.0, 0.5)
    assert (two.node_count, two.actual_fraction) == (1, 1.0)  # allocated when requested is -1; overrun capped
    assert (four.volume, four.actual_fraction) == (160.0, 1.0)  # run time when the request is missing
    assert all(n.performance == 2.0 and n.price == 3.0 for n in env.nodes) and len(env.nodes) == 4
    assert env.time.horizon is None and math.isinf(one.budget)
    assert len(result.skipped) == 2
    assert "line 7: job 3 asks for 8 nodes; there are 4" in result.skipped
    assert any("job 5" in s for s in result.skipped)


GOOD = "1 0 5 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("2 0 5 100 2", "line 3: has 5 fields; an SWF line has 18"),
        ("2 0 5 100 2 -1 -1 2 200 -1", "has 10 fields"),
        ("2 0 5 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1 1 1 1", "has 21 fields"),
        ("2 0 5 100 two -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1", "line 3: field 5 is not a number: 'two'"),
        ("2 nan 5 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1", "field 2 is not a finite number: 'nan'"),
        ("2 0 5 100 2 -1 -1 2 inf -1 1 1 1 -1 1 -1 -1 -1", "field 9 is not a finite number: 'inf'"),
        ("2 0 5 100 2 -1 -1 1e400 200 -1 1 1 1 -1 1 -1 -1 -1", "field 8 is not a finite number"),
        ("2 0 5 100 2 -1 -1 0.5 200 -1 1 1 1 -1 1 -1 -1 -1", "asks for 0.5 processors, not a whole number"),
        ("2 0 5 100 2 -1 -1 2.7 200 -1 1 1 1 -1 1 -1 -1 -1", "asks for 2.7 processors, not a whole number"),
        ("2.5 0 5 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1", "job number '2.5' is not a whole number"),
        (GOOD, "line 3: job number 1 appears twice"),
    ],
)
def test_swf_lines_that_cannot_be_jobs_are_left_out_with_their_number(tmp_path, line, words):
    """A line the import cannot map is reported (line number, reason) and left out; the rest imports."""
    path = tmp_path / "bad.swf"
    path.write_text("; header\n" + GOOD + "\n" + line + "\n")
    result = import_swf(path, nodes=4)
    assert [j.id for j in result.env.jobs] == ["1"]
    assert len(result.skipped) == 1 and words in result.skipped[0]
    assert "\n" not in result.skipped[0]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.lists(
            st.one_of(
                st.integers(-5, 10**6).map(str),
                st.floats(allow_nan=True, allow_infinity=True).map(repr),
                st.sampled_from(["-1", "0", "0.5", "nan", "inf", "-inf", "1e400", "x", "9" * 400, "1e30", "9" * 300]),
            ),
            min_size=0,
            max_size=22,
        ),
        max_size=8,
    ),
    nodes=st.integers(1, 64),
)
def test_whatever_import_swf_writes_loads_back_the_same(tmp_path, rows, nodes):
    """Any trace: the import writes only what the loader accepts, and reads back the same environment."""
    from workbench.engine.io.envfile import load_environment, save_environment

    path = tmp_path / "t.swf"
    path.write_text("\n".join(" ".join(r) for r in rows) + "\n")
    result = import_swf(path, nodes=nodes)
    assert len(result.env.jobs) + len(result.skipped) == sum(1 for r in rows if r)
    out = tmp_path / "env.json"
    save_environment(result.env, out)
    assert load_environment(out) == result.env


def test_shipped_sample_trace_imports_and_runs():
    """The shipped SWF sample imports on 16 nodes as 60 jobs with no line skipped, and EASY places all 60."""
    result = import_swf(ROOT / "sample_envs" / "sample16.swf", nodes=16)
    assert len(result.env.jobs) == 60 and not result.skipped
    schedule = registry.run(result.env, "EASY")
    assert len(schedule.windows) == 60


def _domain_env():
    env = generate("vo24", 3)
    table = SlotTable.from_environment(env)
    return env, table, Domain.of(table)


def test_dq_terms_follow_seed_003():
    """Each Dq term moves the right way: richer, narrower, shorter, smaller jobs score higher."""
    _env, _table, dom = _domain_env()
    former = DqBatch("mdq_t")
    base = Job("j", "j", 2, 2.0, 200.0, budget=600.0)
    richer = Job("j", "j", 2, 2.0, 200.0, budget=900.0)
    wider = Job("j", "j", 6, 2.0, 200.0, budget=1800.0)
    longer = Job("j", "j", 2, 2.0, 400.0, budget=1200.0)
    assert former.dq(richer, dom) > former.dq(base, dom)
    assert former.dq(wider, dom) < former.dq(base, dom)
    assert former.dq(longer, dom) < former.dq(base, dom)
    assert former.dq(base, dom, already=dom.volume) < former.dq(base, dom)  # eq. 5: a fuller batch lowers Dq4


@pytest.mark.parametrize("limit", [1.0, 0.3, 0.1])
@pytest.mark.parametrize("method", ["mdq_c", "mdq_t"])
def test_mdq_takes_the_smallest_positive_dq_that_fits_and_stops_when_none_does(method, limit):
    """MDq greedily takes the smallest positive Dq among the jobs that still fit within
    limit_coefficient × the domain's capacity (the knapsack's limit; it used to be ignored)."""
    env, table, dom = _domain_env()
    former = DqBatch(method, limit_coefficient=limit)
    cap = limit * former.capacity(dom)
    batch = former.form(list(env.jobs), table, env, 0)
    assert batch
    already = 0.0
    remaining = list(env.jobs)

    def candidates(already):
        return {
            j.id: former.dq(j, dom, already)
            for j in remaining
            if former.dq(j, dom, already) > 0 and already + former.weight(j, dom) <= cap + 1e-9
        }

    for job in batch:
        assert candidates(already)[job.id] == min(candidates(already).values())
        remaining = [j for j in remaining if j.id != job.id]
        already += former.weight(job, dom)
    assert already <= cap + 1e-9 and not candidates(already)
    if limit < 1.0:
        assert len(batch) < len(DqBatch(method, limit_coefficient=1.0).form(list(env.jobs), table, env, 0))


def test_knapsack_batch_respects_its_limit_and_orders_by_dq():
    """knapsack_t and knapsack_c batches weigh at most 0.3 of the capacity and are in increasing order of Dq,
    every Dq positive."""
    env, table, dom = _domain_env()
    for method in ("knapsack_t", "knapsack_c"):
        former = DqBatch(method, limit_coefficient=0.3)
        batch = former.form(list(env.jobs), table, env, 0)
        assert sum(former.weight(j, dom) for j in batch) <= 0.3 * former.capacity(dom) * 1.001 + 1e-6
        dqs = [former.dq(j, dom) for j in batch]
        assert dqs == sorted(dqs) and all(d > 0 for d in dqs)


@settings(max_examples=examples(150), deadline=None)
@given(items=st.lists(st.tuples(st.floats(0.1, 10), st.integers(0, 12)), max_size=8), cap=st.integers(0, 30))
def test_knapsack_01_is_exact(items, cap):
    """knapsack_01 keeps within the capacity and reaches the best value found by trying every subset."""
    values, weights = [v for v, _ in items], [w for _, w in items]
    chosen = knapsack_01(values, weights, cap)
    assert sum(weights[i] for i in chosen) <= cap
    best = max(
        (
            sum(values[i] for i in c)
            for r in range(len(items) + 1)
            for c in itertools.combinations(range(len(items)), r)
            if sum(weights[i] for i in c) <= cap
        ),
        default=0.0,
    )
    assert sum(values[i] for i in chosen) == pytest.approx(best)


def test_random_batch_is_seeded_sized_and_in_queue_order():
    """A random batch of 5 is the same for the same seed and cycle, keeps queue order, and differs in another
    cycle."""
    env, table, _ = _domain_env()
    jobs = list(env.queue())
    a = RandomBatch(5, seed=3).form(jobs, table, env, 0)
    assert a == RandomBatch(5, seed=3).form(jobs, table, env, 0)
    assert len(a) == 5 and [jobs.index(j) for j in a] == sorted(jobs.index(j) for j in a)
    assert a != RandomBatch(5, seed=3).form(jobs, table, env, 1)


def test_metrics_on_a_hand_made_schedule():
    """Wait, slowdown, CPU time, makespan, utilisation, profit and seed 004's AWRT, by hand."""
    from workbench.engine.model import Window

    env = Environment(
        nodes=(Node("a", "a", 1.0, 2.0), Node("b", "b", 1.0, 1.0)),
        jobs=(Job("x", "x", 2, 1.0, 10.0, arrival=0.0, actual_fraction=0.5), Job("y", "y", 1, 1.0, 20.0, arrival=5.0)),
        time=TimeSettings(0.0, None, 40.0),
    )
    windows = (Window("x", 0.0, 10.0, ("a", "b"), 30.0), Window("y", 10.0, 20.0, ("b",), 20.0))
    schedule = Schedule("hand", windows)
    x, y = job_metrics(env, schedule)
    assert (x.wait, x.actual_finish, x.cpu_time, x.slowdown) == (0.0, 5.0, 20.0, 1.0)
    assert (y.wait, y.finish, y.slowdown) == (5.0, 30.0, 25.0 / 20.0)
    m = flow_metrics(env, schedule)
    assert m.makespan == 30.0 and m.total_cost == 50.0 and m.mean_start == 5.0
    assert m.utilisation == pytest.approx((2 * 5.0 + 20.0) / 80.0)
    assert m.owners_profit == {"a": 20.0, "b": 30.0}
    # Seed 000 Table 2 per node: L_c, the time reserved, and U, the time really used (x ends at 5)
    # over the free time offered (40 each).
    assert m.node_busy == {"a": 10.0, "b": 30.0}
    assert m.node_utilisation == {"a": 5.0 / 40.0, "b": 25.0 / 40.0}
    # AWRT = sum(n * actual runtime * (finish - arrival)) / sum(n * actual runtime)
    assert m.awrt == pytest.approx((2 * 5 * (5 - 0) + 1 * 20 * (30 - 5)) / (2 * 5 + 1 * 20))
    assert np.isnan(m.mean_alternatives)


@pytest.mark.parametrize("method", ["mdq_c", "mdq_t"])
def test_soft_mdq_sets_c_v_to_the_limit_and_has_no_cap(method):
    """Seed 003 §1.3's soft limit: C_v is the administrators' coefficient and a job enters while its whole
    Dq (eq. 5) stays positive, even past limit_coefficient × the domain; the hard one never passes it."""
    env, table, dom = _domain_env()
    soft = DqBatch(method, limit_coefficient=0.3, k_v=5.0, mdq_limit="soft")
    assert soft.c_v == 0.3 and DqBatch(method, limit_coefficient=0.3, mdq_limit="hard").c_v == 0.5
    batch = soft.form(list(env.jobs), table, env, 0)
    already, remaining = 0.0, list(env.jobs)
    for job in batch:  # the smallest positive Dq each time, with no cap on the weight
        scores = {j.id: soft.dq(j, dom, already) for j in remaining}
        assert scores[job.id] > 0 and scores[job.id] == min(d for d in scores.values() if d > 0)
        remaining = [j for j in remaining if j.id != job.id]
        already += soft.weight(job, dom)
    assert all(soft.dq(j, dom, already) <= 0 for j in remaining)  # it stops only when no Dq is positive
    hard = DqBatch(method, limit_coefficient=0.3, k_v=5.0, c_v=0.3)
    hard_weight = sum(hard.weight(j, dom) for j in hard.form(list(env.jobs), table, env, 0))
    assert hard_weight <= 0.3 * hard.capacity(dom) + 1e-6
    assert already > 0.3 * soft.capacity(dom)  # here the soft limit lets the batch past the cap
    with pytest.raises(ParameterError, match="mdq_limit"):
        DqBatch(method, mdq_limit="loose")


def test_vo24_over_several_cycles_keeps_the_first_and_loads_every_cycle():
    """The batch-formation flow: ``cycles`` stretches the horizon and draws local load in every cycle,
    after the jobs, so the one-cycle environment is the first cycle of the longer one."""
    one, many = generate("vo24", 4), generate("vo24", 4, cycles=5)
    assert many.time.horizon == 5 * 600 and many.time.cycle_length == 600
    assert many.jobs == one.jobs and many.nodes == one.nodes
    assert [t for t in many.local_tasks if t.start < 600] == list(one.local_tasks)
    for k in range(5):
        inside = [t for t in many.local_tasks if k * 600 <= t.start < (k + 1) * 600]
        assert inside and all(t.end <= (k + 1) * 600 for t in inside)
    assert len({t.id for t in many.local_tasks}) == len(many.local_tasks)
    with pytest.raises(ParameterError, match="cycles"):
        generate("vo24", 4, cycles=0)


def test_the_load_model_option_puts_that_many_tasks_on_every_node_at_its_drawn_utilisation():
    """window100's ``tasks_per_node``: 0 (the default) is the hypergeometric count, several tasks on
    most nodes; 1 is one block of busy time per node, within the same bound on utilisation."""
    from collections import Counter

    default = generate("window100", 5)
    assert default == generate("window100", 5, tasks_per_node=0)
    per_node = Counter(t.node for t in default.local_tasks)
    assert max(per_node.values()) > 1
    for k in (1, 3):
        env = generate("window100", 5, tasks_per_node=k)
        assert env.nodes == default.nodes and env.jobs == default.jobs
        counts = Counter(t.node for t in env.local_tasks)
        assert counts and max(counts.values()) <= k
        if k == 1:
            assert len(counts) >= 90  # nearly every node draws some load
        for node in env.nodes:
            busy = sum(t.end - t.start for t in env.local_tasks if t.node == node.id)
            assert busy <= 0.3 * 1200
    with pytest.raises(ParameterError, match="tasks_per_node"):
        generate("window100", 5, tasks_per_node=-1)


def test_vo24_job_performance_requirement_can_be_dropped():
    """vo24's ``job_perf_max``: by default each job asks for p ~ U[2, 6]; 0 drops the requirement (every
    job asks for the slowest performance there is), and nothing else of the environment changes."""
    default = generate("vo24", 4, cycles=2)
    assert default == generate("vo24", 4, cycles=2, job_perf_max=6.0)
    ps = [j.min_performance for j in default.jobs]
    assert all(2.0 <= p <= 6.0 for p in ps) and len(set(ps)) > 10
    free = generate("vo24", 4, cycles=2, job_perf_max=0.0)
    assert {j.min_performance for j in free.jobs} == {2.0}
    assert free.nodes == default.nodes and free.local_tasks == default.local_tasks
    strip = [(j.id, j.node_count, j.volume, j.budget, j.criterion) for j in free.jobs]
    assert strip == [(j.id, j.node_count, j.volume, j.budget, j.criterion) for j in default.jobs]
    # A wider requirement reaches faster nodes.
    assert max(j.min_performance for j in generate("vo24", 4, job_perf_max=10.0).jobs) > 6.0
    with pytest.raises(ParameterError, match="job_perf_max"):
        generate("vo24", 4, job_perf_max=1.0)


def test_backfill32_job_performance_requirements_are_drawn_within_reach():
    """backfill32's ``job_perf_max``: 0 (the default) lets every node serve every job; above it each job
    asks for p ~ U[2, job_perf_max], never more than its n-th fastest node has (so it can run), and the
    nodes, widths and volumes stay those of the environment without requirements."""
    default = generate("backfill32", 9, jobs=200)
    assert default == generate("backfill32", 9, jobs=200, job_perf_max=0.0)
    assert {j.min_performance for j in default.jobs} == {2.0}
    env = generate("backfill32", 9, jobs=200, job_perf_max=12.0)
    assert env.nodes == default.nodes and env.local_tasks == default.local_tasks
    strip = [(j.id, j.node_count, j.volume) for j in env.jobs]
    assert strip == [(j.id, j.node_count, j.volume) for j in default.jobs]
    fastest = sorted((n.performance for n in env.nodes), reverse=True)
    ps = [j.min_performance for j in env.jobs]
    assert all(2.0 <= j.min_performance <= min(12.0, fastest[j.node_count - 1]) for j in env.jobs)
    assert min(ps) < 4 and max(ps) > 10  # spread over the range
    assert len(set(ps)) > 150
    # Eight nodes and jobs as wide: a job on all eight can ask no more than the slowest node has.
    small = generate("backfill32", 9, jobs=200, nodes=8, n_max=8, job_perf_max=16.0)
    slowest = min(n.performance for n in small.nodes)
    wide = [j.min_performance for j in small.jobs if j.node_count == 8]
    assert wide and all(p <= slowest for p in wide) and wide.count(slowest) > len(wide) // 2
    for bad in (-1.0, 1.0):
        with pytest.raises(ParameterError, match="job_perf_max"):
            generate("backfill32", 9, job_perf_max=bad)


def test_an_swf_environment_starts_at_its_first_arrival(tmp_path):
    """A log whose clock starts a week before its first job (KTH's does) opens at that first arrival, not at
    an empty week; nothing else changes: every window is the one the trace gets from t = 0; compressed
    onto a grid, the start is compressed with the arrivals."""
    import dataclasses

    from workbench.engine import registry
    from workbench.engine.grid.configs import grid_environment
    from workbench.engine.io.swf import import_swf

    week = 604_800
    lines = [
        f"{k + 1} {week + 60 * k} -1 {300 + 10 * k} {1 + k % 4} -1 -1 {1 + k % 4} 600 -1 1 1 1 -1 1 -1 -1 -1"
        for k in range(12)
    ]
    trace = tmp_path / "late.swf"
    trace.write_text("; MaxNodes: 8\n" + "\n".join(lines) + "\n")
    env = import_swf(trace, 8).env
    assert env.time.start == week == min(j.arrival for j in env.jobs)
    from_zero = dataclasses.replace(env, time=dataclasses.replace(env.time, start=0.0))
    for name in ("EASY", "FirstFit", "CoP"):
        assert registry.run(env, name).windows == registry.run(from_zero, name).windows
    grid, _ = grid_environment(env, "m128-4", compress=2.0)
    assert grid.time.start == week / 2 == min(j.arrival for j in grid.jobs)
