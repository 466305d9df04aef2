"""Job-flow strategies: invariants over random flows, and each scheduler's defining property."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import examples, flows, jobs, nodes_and_tasks, saturated_flows
from tests.support.validity import assert_valid_schedule
from workbench.engine import registry
from workbench.engine.errors import Cancelled, ParameterError
from workbench.engine.flow.css import choose_combination, eq5_limit
from workbench.engine.model import EPS, Environment, Job, Node, TimeSettings

FLOW_RUNS = [
    ("FirstFit", {}),
    ("CoP", {}),
    ("EASY", {}),
    ("EASY", {"fast_path": False}),
    ("CSS", {}),
    ("CSS", {"vo_criterion": "profit"}),
    ("Batch-slicer", {"slices": 2, "vo_criterion": "cost"}),
    ("BSF", {"n_high": -1, "high_fraction": 0.5, "rule": "size"}),
    ("BSF", {"n_high": -1, "high_fraction": 0.5, "rule": "cost", "selector": "CoP", "batching": "mdq_t"}),
    ("CSS", {"batching": "knapsack_c", "limit_coefficient": 0.8}),
    ("Batch-slicer", {"batching": "random", "batch_size": 2, "slices": 2}),
    ("CSS", {"shape": "rough"}),
    ("Batch-slicer", {"slices": 2, "vo_criterion": "cost", "shape": "rough"}),
    ("BSF", {"n_high": -1, "high_fraction": 0.5, "shape": "rough"}),
]
SETTINGS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _occupies(w, end_actual, at):
    """What a window holds on each node at a snapshot: up to its actual end once that has passed,
    else all of its part there (a rough right edge holds each node for its own part only)."""
    done = end_actual <= at + EPS
    return [(node, (w.start, min(end, end_actual) if done else end)) for node, end in w.part_ends()]


def _rough_parts_end_apart() -> Environment:
    """Found by hypothesis: BSF's rough-edged windows end part by part (node 1 is twice as fast),
    and dynamic backfilling dropped a short part from its profile before the window left it."""
    nodes = (Node("n0", "node 0", 1.0, 0.0, (("q", 0.0),)), Node("n1", "node 1", 2.0, 0.0, (("q", 0.0),)))
    sizes, fractions = (1, 2, 1, 1, 1), (1.0, 1.0, 0.75, 1.0, 0.75)
    jobs = tuple(
        Job(f"j{i}", f"job {i}", n, 0.0, 8.0, actual_fraction=f)
        for i, (n, f) in enumerate(zip(sizes, fractions, strict=True))
    )
    return Environment(nodes=nodes, jobs=jobs, time=TimeSettings(0.0, None, None), name="flow")


@SETTINGS
@given(env=flows(), run=st.sampled_from(FLOW_RUNS))
@example(env=_rough_parts_end_apart(), run=("BSF", {"n_high": -1, "high_fraction": 0.5, "shape": "rough"}))
def test_flow_invariants(env, run):
    """No overlaps at any step; started jobs never move; every job runs or fails; snapshots never change."""
    name, params = run
    sim = registry.simulator(env, name, params)
    frozen = []
    while not sim.done:
        snap = sim.step()
        if snap is not None:
            frozen.append((snap, snap.windows, dict(snap.actual_ends), snap.queue))
    first_start: dict[str, float] = {}
    started_window: dict[str, object] = {}
    for snap, windows, ends, _queue in frozen:
        busy: dict[str, list[tuple[float, float]]] = {n.id: [] for n in env.nodes}
        for task in env.local_tasks:
            busy[task.node].append((task.start, task.end))
        for w in windows:
            first_start.setdefault(w.job, w.start)
            for node, span in _occupies(w, ends[w.job], snap.time):
                busy[node].append(span)
            if w.start <= snap.time - EPS:  # started before this step: it must never move again
                assert started_window.setdefault(w.job, w) == w, f"{w.job} moved after starting"
        for node, spans in busy.items():
            spans.sort()
            for (_a, e0), (s1, _b) in itertools.pairwise(spans):
                assert s1 >= e0 - EPS, f"overlap on {node} at step {snap.step}"
    # Immutability: re-reading a snapshot gives what it showed when it was made.
    for snap, windows, ends, queue in frozen:
        assert snap.windows == windows and dict(snap.actual_ends) == ends and snap.queue == queue
    result = sim.result()
    assert_valid_schedule(env, result, executed=True)
    if name in ("FirstFit", "CoP"):  # dynamic conservative backfilling: never later than the first reservation
        for w in result.windows:
            assert w.start <= first_start[w.job] + EPS


@SETTINGS
@given(env=flows(equal_priority=True, cycles=False), fast=st.booleans())
def test_easy_never_delays_the_reserved_head(env, fast):
    """Every job starts no later than the first reservation it got as the queue head."""
    sim = registry.simulator(env, "EASY", {"fast_path": fast}, history=False)
    result = sim.run()
    starts = {w.job: w.start for w in result.windows}
    for job_id, reserved in sim.recorder.reservations.items():
        assert job_id in starts
        assert starts[job_id] <= reserved + EPS, (job_id, starts[job_id], reserved)


def _identical(jobs, hosts):
    return Environment(
        nodes=tuple(Node(f"n{i + 1}", f"n{i + 1}", 1.0, 1.0) for i in range(hosts)),
        jobs=tuple(jobs),
        time=TimeSettings(0.0, None, None),
    )


def textbook_easy(jobs, hosts):
    """Host-level EASY as in Batsim's batsched: FCFS heads, one reservation, lowest host index first.

    Written independently of the engine: jobs are (id, submit, width, requested, actual).
    Returns {id: (start, hosts)}.
    """
    pending = sorted(jobs, key=lambda j: (j[1], jobs.index(j)))
    free = set(range(hosts))
    running = []  # (actual end, requested end, id, hosts)
    queue, out, t = [], {}, 0.0
    while pending or running:
        t = min([r[0] for r in running] + [p[1] for p in pending[:1]])
        for r in [r for r in running if r[0] <= t + 1e-9]:
            running.remove(r)
            free.update(r[3])
        while pending and pending[0][1] <= t + 1e-9:
            queue.append(pending.pop(0))

        def start(job, hosts_, now):
            out[job[0]] = (now, tuple(hosts_))
            free.difference_update(hosts_)
            running.append((now + job[4], now + job[3], job[0], tuple(hosts_)))
            queue.remove(job)

        while queue and queue[0][2] <= len(free):
            start(queue[0], sorted(free)[: queue[0][2]], t)
        if not queue:
            continue
        head = queue[0]
        avail = {h: t for h in free}
        for _actual, requested, _id, hs in running:
            for h in hs:
                avail[h] = requested
        shadow = sorted(avail.values())[head[2] - 1]
        reserved = set(sorted(h for h, a in avail.items() if a <= shadow + 1e-9)[: head[2]])
        for job in list(queue[1:]):
            usable = sorted(h for h in free if h not in reserved or t + job[3] <= shadow + 1e-9)
            if len(usable) >= job[2]:
                start(job, usable[: job[2]], t)
    return out


@settings(max_examples=examples(80), deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 30), st.integers(1, 4), st.integers(1, 20), st.sampled_from([1.0, 0.5, 0.25])),
        min_size=1,
        max_size=12,
    ),
    hosts=st.integers(1, 5),
)
def test_easy_on_identical_nodes_is_host_level_easy(data, hosts):
    """Both EASY paths give the textbook host-level EASY schedule: same starts, same hosts."""
    data = [d for d in data if d[1] <= hosts]
    jobs = [
        Job(f"j{i}", f"j{i}", width, 1.0, float(req), arrival=float(submit), actual_fraction=frac)
        for i, (submit, width, req, frac) in enumerate(data)
    ]
    env = _identical(jobs, hosts)
    want = textbook_easy([(j.id, j.arrival, j.node_count, j.volume, j.volume * j.actual_fraction) for j in jobs], hosts)
    for fast in (True, False):
        got = registry.run(env, "EASY", {"fast_path": fast})
        assert {w.job: (w.start, tuple(int(n[1:]) - 1 for n in w.nodes)) for w in got.windows} == want


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.lists(
        st.tuples(
            st.integers(0, 30),
            st.integers(1, 6),
            st.integers(1, 20),
            st.sampled_from([1.0, 0.5, 0.25]),
            st.integers(0, 2),
            st.sampled_from([math.inf, math.inf, 30.0, 12.0]),
            st.sampled_from([1.0, 1.0, 1.0, 1.5]),
        ),
        min_size=1,
        max_size=30,
    ),
    hosts=st.integers(1, 5),
    start=st.sampled_from([0.0, 7.0]),
)
def test_compiled_easy_is_the_stepped_easy(data, hosts, start):
    """The compiled host-level EASY (runs without history) gives the stepped one's schedule: the
    same windows, ends and failures, with priorities, budgets, too-wide or too-slow jobs and a late
    start; and both give the general path's windows (which jobs can run at all is decided apart)."""
    jobs = [
        Job(
            f"j{i}",
            f"j{i}",
            width,
            least,
            float(req),
            budget,
            arrival=float(submit),
            priority=float(prio),
            actual_fraction=frac,
        )
        for i, (submit, width, req, frac, prio, budget, least) in enumerate(data)
    ]
    env = Environment(
        nodes=tuple(Node(f"n{i + 1}", f"n{i + 1}", 1.0, 1.0) for i in range(hosts)),
        jobs=tuple(jobs),
        time=TimeSettings(start, None, None),
    )
    compiled = registry.run(env, "EASY")
    stepped = registry.simulator(env, "EASY", history=True).run()
    assert compiled.windows == stepped.windows
    assert compiled.actual_ends == stepped.actual_ends
    assert compiled.reasons == stepped.reasons
    general = registry.run(env, "EASY", {"fast_path": False})
    assert compiled.windows == general.windows
    assert compiled.unscheduled == general.unscheduled


@settings(max_examples=examples(80), deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 30), st.integers(1, 4), st.integers(1, 20), st.sampled_from([1.0, 0.5, 0.25])),
        min_size=1,
        max_size=40,
    ),
    hosts=st.integers(1, 5),
)
def test_the_careful_baseline_is_host_level_easy(data, hosts):
    """lab/baseline.py's careful EASY (the benchmark's yardstick) gives the engine's schedule."""
    from workbench.lab.baseline import textbook_easy as careful

    jobs = [
        Job(f"j{i}", f"j{i}", width, 1.0, float(req), arrival=float(submit), actual_fraction=frac)
        for i, (submit, width, req, frac) in enumerate(data)
        if width <= hosts
    ]
    env = _identical(jobs, hosts)
    got = registry.run(env, "EASY")
    assert careful(env) == {w.job: (w.start, tuple(env.node_index[n] for n in w.nodes)) for w in got.windows}


def test_the_careful_baseline_equals_engine_easy_on_the_shipped_trace():
    """On the shipped SWF trace, squeezed onto fewer nodes so that jobs wait, the baseline and the
    engine start every job at the same time on the same hosts."""
    from pathlib import Path

    from workbench.engine.io.swf import import_swf
    from workbench.lab.baseline import textbook_easy as careful

    trace = Path(__file__).resolve().parents[2] / "sample_envs" / "sample16.swf"
    for nodes in (16, 8):
        env = import_swf(trace, nodes).env
        got = registry.run(env, "EASY")
        starts = {w.job: (w.start, tuple(env.node_index[n] for n in w.nodes)) for w in got.windows}
        assert len(starts) == len(env.jobs) > 40
        assert careful(env) == starts
        assert any(w.start > env.job(w.job).arrival for w in got.windows)  # some jobs waited


def test_a_step_with_no_arrival_or_completion_says_what_woke_it():
    """EASY's general path also wakes when a local task ends: its step read "t=10: nothing started"
    with no event named; it says the local task ended."""
    from workbench.engine.model import LocalTask

    nodes = (Node("n1", "n1", 1.0, 1.0), Node("n2", "n2", 1.0, 1.0))
    tasks = (LocalTask("t", "n1", 0.0, 10.0),)
    env = Environment(nodes, tasks, (Job("j", "j", 2, 1.0, 5.0),), TimeSettings(0.0, None, None))
    sim = registry.simulator(env, "EASY", history=True)
    sim.run()
    labels = [snap.label for snap in sim.snapshots]
    assert "t=10: a local task ended; started job j" in labels, labels


def test_a_combination_too_large_for_the_cap_stops_after_the_first_pass(monkeypatch):
    """CSS learns the combination's size only once every alternative is found: on a saturated batch
    of 1,000 KTH jobs it stopped after 23 s. Each job's least expense bounds the table from below,
    so a batch whose table is too large whatever it finds stops after the first pass, with the
    resolution it needs at least; a batch whose table fits runs on."""
    from workbench.engine.flow import css

    calls = [0]
    find = css.CssSpec.find

    def counted(self, table, job, earliest):
        calls[0] += 1
        return find(self, table, job, earliest)

    monkeypatch.setattr(css.CssSpec, "find", counted)
    nodes = tuple(Node(f"n{i}", f"n{i}", 1.0, 1.0) for i in range(4))
    batch = tuple(Job(f"j{i}", f"j{i}", 1, 1.0, 1000.0) for i in range(30))
    env = Environment(nodes, (), batch, TimeSettings(0.0, None, 1_000_000.0))
    with pytest.raises(ParameterError) as info:
        registry.run(env, "CSS", {"resolution": 0.01})
    assert calls[0] == 30  # one search per job: the first pass, and no other
    message = str(info.value)
    assert message.startswith("resolution: ") and "needs a table of at least" in message
    coarser = float(message.rsplit("resolution ≥ ", 1)[1])
    assert 0.05 < coarser < 0.06  # 31 rows of 30 × 1,000 / r units in 2**24 cells: r ≥ 0.0554
    calls[0] = 0
    assert len(registry.run(env, "CSS", {"resolution": coarser}).windows) == 30  # here the bound is the cost
    assert calls[0] > 30  # it went on to find more alternatives


@settings(max_examples=examples(200), deadline=None)
@given(
    alts=st.lists(
        st.lists(st.tuples(st.integers(1, 20), st.integers(1, 15)), min_size=1, max_size=4), min_size=1, max_size=4
    ),
    maximise=st.booleans(),
    slack=st.integers(-5, 5),
)
def test_combination_dp_equals_brute_force(alts, maximise, slack):
    """Seed 000 eqs. 2-4: the DP's optimum equals enumeration over every combination."""
    values = [[float(v) for v, _ in row] for row in alts]
    expenses = [[float(g) for _, g in row] for row in alts]
    limit = max(0.0, eq5_limit(expenses) + slack)
    got = choose_combination(values, expenses, limit, maximise)
    best = None
    for combo in itertools.product(*[range(len(r)) for r in alts]):
        if sum(expenses[i][j] for i, j in enumerate(combo)) <= limit:
            total = sum(values[i][j] for i, j in enumerate(combo))
            if best is None or (total > best if maximise else total < best):
                best = total
    if best is None:
        assert got is None
    else:
        assert got is not None
        assert sum(expenses[i][j] for i, j in enumerate(got)) <= limit
        assert sum(values[i][j] for i, j in enumerate(got)) == best


def test_eq5_limit_is_the_sum_of_ceiled_means():
    """Eq. 5's limit is the sum of each group's mean rounded up: 2 + 10 + 4 for the three groups here."""
    assert eq5_limit([[1.0, 2.0], [10.0], [3.0, 3.5, 4.0]]) == 2 + 10 + 4


@SETTINGS
@given(env=flows(max_jobs=5), slices=st.integers(1, 3), selector=st.sampled_from(["FirstFit", "BFfinish"]))
def test_bsf_extremes(env, slices, selector):
    """BSF with no high-priority job is backfilling; with all of them it is batch-slicer."""
    none_high = registry.run(env, "BSF", {"n_high": 0, "selector": selector, "slices": slices})
    backfill = registry.run(env, selector)
    assert none_high.windows == backfill.windows
    all_high = registry.run(env, "BSF", {"n_high": len(env.jobs), "slices": slices})
    slicer = registry.run(env, "Batch-slicer", {"slices": slices})
    assert all_high.windows == slicer.windows
    assert registry.run(env, "Batch-slicer", {"slices": 1}).windows == registry.run(env, "CSS").windows


def test_css_vo_criteria_pull_in_their_directions():
    """On one batch: min cost is never dearer than max profit; max idle never uses less CPU than min CPU."""
    from workbench.engine.generate import generate

    env = generate("vo24", 4)
    runs = {c: registry.run(env, "CSS", {"vo_criterion": c}) for c in ("cpu_time", "cost", "profit", "idle")}
    placed = {c: {w.job for w in r.windows} for c, r in runs.items()}
    common = set.intersection(*placed.values())
    cost = {c: sum(w.cost for w in r.windows if w.job in common) for c, r in runs.items()}
    cpu = {c: sum(len(w.nodes) * w.length for w in r.windows if w.job in common) for c, r in runs.items()}
    assert cost["cost"] <= cost["profit"] + 1e-6
    assert cpu["cpu_time"] <= cpu["idle"] + 1e-6
    assert any(runs["cpu_time"].alternatives.values())


def test_no_job_ever_fits_still_ends_with_every_job_failed():
    """Unbounded horizon, cycles, nothing fits: the run ends, every job reported failed."""
    env = Environment(
        nodes=(Node("a", "a", 1.0, 100.0), Node("b", "b", 1.0, 100.0)),
        jobs=(
            *(Job(f"j{i}", f"j{i}", 2, 1.0, 10.0, budget=5.0, arrival=float(i)) for i in range(4)),
            Job("wide", "wide", 3, 1.0, 10.0),
        ),
        time=TimeSettings(0.0, 50.0, None),
    )
    for name in ("CSS", "BSF", "FirstFit", "EASY", "Batch-slicer"):
        result = registry.run(env, name)
        assert not result.windows
        assert set(result.unscheduled) == {j.id for j in env.jobs}
        assert "budget" in result.reasons["j0"] and "needs 3 nodes" in result.reasons["wide"]


def test_cancel_stops_cleanly_and_keeps_earlier_snapshots():
    """A cancel callback stops the run with Cancelled; what was already stepped stays readable."""
    from workbench.engine.generate import generate

    env = generate("vo24", 2)
    calls = {"n": 0}

    def stop():
        calls["n"] += 1
        return calls["n"] > 40

    sim = registry.simulator(env, "CSS", should_stop=stop)
    sim.step()
    first = sim.snapshots[0]
    with pytest.raises(Cancelled):
        while not sim.done:
            sim.step()
    assert first.windows == () and first.step == 1
    assert env == generate("vo24", 2)  # the environment itself is untouched


@pytest.mark.parametrize(
    ("name", "params", "words"),
    [
        ("Batch-slicer", {"slices": 0}, "slices"),
        ("BSF", {"n_high": 99}, "larger than the batch"),
        ("BSF", {"high_fraction": -0.5}, "high_fraction"),
        ("BSF", {"n_high": -3}, "n_high"),
        ("BSF", {"selector": "EASY"}, "selector"),
        ("CSS", {"vo_criterion": "speed"}, "vo_criterion"),
        ("CSS", {"max_alternatives": 0}, "max_alternatives"),
        ("CSS", {"batching": "magic"}, "batching"),
        ("CSS", {"batching": "knapsack_t", "limit_coefficient": 0}, "limit_coefficient"),
        ("CSS", {"c_v": 0}, "c_v"),
    ],
)
def test_invalid_flow_parameters_are_one_clear_error(name, params, words):
    """Each invalid Batch-slicer, BSF or CSS parameter raises a ParameterError naming the parameter or what is
    wrong."""
    from workbench.engine.generate import generate

    with pytest.raises(ParameterError, match=words):
        registry.run(generate("vo24", 1), name, params)


def test_dynamic_backfilling_moves_jobs_into_freed_time():
    """An early completion lets the next job start at once (and static backfilling keeps the plan)."""
    env = Environment(
        nodes=(Node("a", "a", 1.0, 1.0),),
        jobs=(Job("first", "first", 1, 1.0, 10.0, actual_fraction=0.3), Job("second", "second", 1, 1.0, 10.0)),
        time=TimeSettings(0.0, None, None),
    )
    dynamic = {w.job: w.start for w in registry.run(env, "FirstFit").windows}
    static = {w.job: w.start for w in registry.run(env, "FirstFit", {"dynamic": False}).windows}
    assert dynamic == {"first": 0.0, "second": 3.0}
    assert static == {"first": 0.0, "second": 10.0}


def test_replan_on_own_nodes_keeps_each_jobs_nodes_and_only_moves_it_earlier():
    """After an early completion, "search" may hand a job other nodes; "nodes" keeps them.

    A (fast node f, [0, 5)) really ends at 1. B was planned on the slow node s at 4, after its
    local task; D needs the fast node and was planned after A, at 5. Searching again moves B
    onto f at 1 and D behind it at 3; on their own nodes B cannot move and D starts at 1.
    """
    from workbench.engine.model import LocalTask

    env = Environment(
        nodes=(Node("f", "f", 2.0, 1.0), Node("s", "s", 1.0, 1.0)),
        local_tasks=(LocalTask("t", "s", 0.0, 4.0),),
        jobs=(
            Job("A", "A", 1, 1.0, 10.0, actual_fraction=0.2),
            Job("B", "B", 1, 1.0, 4.0),
            Job("D", "D", 1, 2.0, 4.0),
        ),
        time=TimeSettings(0.0, None, None),
    )
    planned = {w.job: (w.nodes, w.start) for w in registry.run(env, "FirstFit", {"dynamic": False}).windows}
    assert planned == {"A": (("f",), 0.0), "B": (("s",), 4.0), "D": (("f",), 5.0)}
    search = {w.job: (w.nodes, w.start) for w in registry.run(env, "FirstFit").windows}
    assert search == {"A": (("f",), 0.0), "B": (("f",), 1.0), "D": (("f",), 3.0)}
    nodes = registry.run(env, "FirstFit", {"replan": "nodes"})
    kept = {w.job: (w.nodes, w.start) for w in nodes.windows}
    assert kept == {"A": (("f",), 0.0), "B": (("s",), 4.0), "D": (("f",), 1.0)}
    assert_valid_schedule(env, nodes, executed=True)


def test_cycles_place_jobs_inside_their_cycle():
    """With a cycle length, no window crosses a cycle boundary, and later arrivals wait for their cycle."""
    env = Environment(
        nodes=(Node("a", "a", 1.0, 1.0), Node("b", "b", 1.0, 1.0)),
        jobs=(Job("x", "x", 2, 1.0, 30.0), Job("y", "y", 2, 1.0, 30.0), Job("z", "z", 1, 1.0, 10.0, arrival=45.0)),
        time=TimeSettings(0.0, 40.0, 200.0),
    )
    result = registry.run(env, "CSS")
    starts = {w.job: w.start for w in result.windows}
    assert starts == {"x": 0.0, "y": 40.0, "z": 70.0}  # y holds both nodes over [40, 70]
    for w in result.windows:
        k = math.floor(w.start / 40.0)
        assert w.end <= (k + 1) * 40.0 + EPS


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=12, max_nodes=6))
def test_easy_node_path_equals_the_general_path(env):
    """Without local tasks, the node-level EASY gives the general path's schedule on any nodes."""
    env = Environment(env.nodes, (), env.jobs, env.time, env.name)
    fast = registry.run(env, "EASY")
    general = registry.run(env, "EASY", {"fast_path": False})
    assert fast.windows == general.windows
    assert fast.unscheduled == general.unscheduled
    assert fast.actual_ends == general.actual_ends
    assert fast.reasons == general.reasons


def _list_run(env, reservations, order, per_job):
    """A list-scheduling run (``flow.listing``) with ``reservations`` and the pass ``order``; with
    ``per_job``, every job searched by ``starts_now`` itself (the pass's count and ``FreeNow`` off)."""
    from unittest import mock

    from workbench.engine.flow import listing
    from workbench.engine.simulate import Simulator

    def factory(env, params, rec):
        return listing.list_scheduling(env, rec, order, reservations)

    sim = Simulator(env, "list", factory, {}, history=False)
    if not per_job:
        return sim.run()
    with (
        mock.patch.object(
            listing.FreeNow, "starts_now", lambda self, table, job: listing.starts_now(table, job, self.now)
        ),
        mock.patch.object(listing.FreeNow, "enough", lambda self, queue, positions, shapes: list(positions)),
    ):
        return sim.run()


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=st.one_of(flows(max_jobs=12, max_nodes=6), saturated_flows(max_jobs=24, max_nodes=5)),
    reservations=st.sampled_from([0, 1, 1, 3]),
    backwards=st.booleans(),
)
def test_a_pass_starts_now_what_a_search_per_job_starts(env, reservations, backwards):
    """EASY's general path (and every list-scheduling rule) starts a job when it has a FirstFit
    window starting now: ``FreeNow`` answers that from the nodes free now, and passes over at once
    the jobs too few nodes are free for. The schedule is the one a search per job gives, with local
    tasks, budgets, nodes of any speed and price, any number of reservations and any order."""

    def order(jobs, now):
        return range(len(jobs) - 1, -1, -1) if backwards else range(len(jobs))

    fast = _list_run(env, reservations, order, per_job=False)
    slow = _list_run(env, reservations, order, per_job=True)
    assert fast.windows == slow.windows
    assert fast.unscheduled == slow.unscheduled and fast.reasons == slow.reasons
    assert fast.actual_ends == slow.actual_ends


@settings(max_examples=examples(400), deadline=None)
@given(
    setup=nodes_and_tasks(max_nodes=6, span=40),
    queue=jobs(4, max_n=4),
    now=st.integers(0, 30),
    horizon=st.sampled_from([math.inf, 60.0]),
)
def test_free_now_gives_first_fits_window_starting_now(setup, queue, now, horizon):
    """On any table (local tasks, nodes of mixed speed and price) ``FreeNow`` answers each job as
    ``starts_now``'s search does, window for window, and keeps answering so as jobs start and a
    reservation is made."""
    from workbench.engine.flow.listing import FreeNow, starts_now
    from workbench.engine.search import FIRST_FIT, find_window
    from workbench.engine.slots import SlotTable

    nodes, tasks = setup
    env = Environment(tuple(nodes), tuple(tasks), tuple(queue), TimeSettings(0.0, None, None))
    now = float(now)
    table = SlotTable.from_environment(env).with_interval(now, horizon)
    free = FreeNow(table, now)
    for job in queue:
        job = Job(**{**job.__dict__, "arrival": min(job.arrival, now)})
        got, want = free.starts_now(table, job), starts_now(table, job, now)
        assert got == want
        if got is None:  # a reservation instead, as a pass makes one
            found = find_window(table, job, FIRST_FIT, now)
            got = found.window if found is not None else None
        if got is not None:
            table = table.reserve([got])
            free.take(got)


def test_free_now_leaves_a_slot_starting_a_hair_after_now_to_the_search():
    """A local task that ends within 2 EPS after now leaves a slot that starts a hair late: the
    search could start a window there, so ``FreeNow`` leaves that pass to the search, and answers
    as it does."""
    from workbench.engine.flow.listing import FreeNow, starts_now
    from workbench.engine.model import LocalTask
    from workbench.engine.slots import SlotTable

    nodes = tuple(Node(id=f"n{i}", name=f"n{i}", performance=1.0, price=1.0) for i in range(2))
    task = LocalTask(id="t", node="n0", start=0.0, end=5.0 + 1.5 * EPS)
    job = Job(id="j", name="j", node_count=2, min_performance=1.0, volume=4.0)
    env = Environment(nodes, (task,), (job,), TimeSettings(0.0, None, None))
    table = SlotTable.from_environment(env).with_interval(5.0, math.inf)
    free = FreeNow(table, 5.0)
    want = starts_now(table, job, 5.0)
    assert not free.direct and want is None  # (the window would start 1.5 EPS late)
    assert free.starts_now(table, job) == want


def test_huge_counts_do_not_allocate_per_count():
    """slices=10^6 splits no finer than one job each: the same schedule as slices=#jobs, and no more
    memory at its peak (traced allocations; one small array per slice would be some 100 MB)."""
    import tracemalloc
    from pathlib import Path

    from workbench.engine.files import load_environment

    env = load_environment(Path(__file__).resolve().parents[2] / "sample_envs" / "tiny.json")

    def peak(slices: int):
        tracemalloc.start()
        try:
            result = registry.run(env, "Batch-slicer", {"slices": slices})
            return result, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(len(env.jobs))  # the first run fills the caches
    few, few_bytes = peak(len(env.jobs))
    huge, huge_bytes = peak(10**6)
    assert huge.windows == few.windows
    assert huge_bytes < 2 * few_bytes + 64 * 1024, (huge_bytes, few_bytes)


def test_bsf_performance_rule_takes_the_jobs_that_need_the_fastest_nodes():
    """Seed 000 §4: high-priority jobs may be "the most critical in terms of required resource (by
    performance)": the highest min_performance first, queue order among equals."""
    from workbench.engine.flow.bsf import high_priority
    from workbench.engine.generate import generate
    from workbench.engine.model import Job

    jobs = [Job(f"j{i}", f"j{i}", 1, p, 10.0, 100.0) for i, p in enumerate([2.0, 6.0, 4.0, 6.0, 1.0])]
    assert [j.id for j in high_priority(jobs, "performance", 3)] == ["j1", "j3", "j2"]
    env = generate("vo24", 3)
    result = registry.run(env, "BSF", {"rule": "performance", "n_high": 5})
    assert len(result.windows) + len(result.unscheduled) == len(env.jobs)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=8, max_nodes=4), name=st.sampled_from(["FirstFit", "CoP", "EASY", "CSS", "BSF"]))
def test_a_snapshots_queue_is_the_jobs_that_have_arrived_and_not_started(env, name):
    """Every snapshot's queue, for every kind of flow, holds exactly the jobs that have arrived by its
    time and neither started (their window begins by then) nor failed, in queue order."""
    from workbench.engine.model import queue_key

    sim = registry.simulator(env, name)
    position = env.job_index
    while (snap := sim.step()) is not None:
        started = {w.job for w in snap.windows if w.start <= snap.time + EPS}
        for job_id in snap.queue:
            job = env.job(job_id)
            assert job.arrival <= snap.time + EPS, (snap.label, job_id, "has not arrived")
            assert job_id not in started and job_id not in snap.failed, (snap.label, job_id)
        keys = [queue_key(env.job(j), position[j]) for j in snap.queue]
        assert keys == sorted(keys)
        waiting = {
            j.id for j in env.jobs if j.arrival <= snap.time + EPS and j.id not in started and j.id not in snap.failed
        }
        if not snap.label.startswith(("start:", "end:")):  # before the first events, after the last
            assert set(snap.queue) == waiting, snap.label


def test_the_queue_of_a_backfilling_snapshot_is_not_the_whole_flow():
    """Backfilling plans every job at once, but at t = 0 its queue holds only those that have
    arrived (the CLI's `simulate` and the Cycles panel read it); step labels name jobs as jobs."""
    env = _arrivals_env()
    sim = registry.simulator(env, "CoP")
    first = sim.step()
    assert first is not None
    arrived = {j.id for j in env.jobs if j.arrival <= 0}
    assert set(first.queue) == arrived and len(arrived) < len(env.jobs)
    rest = []
    while (snap := sim.step()) is not None:
        rest.append(snap.label)
    assert any("job 2 arrived" in label for label in rest), rest
    assert all("t=1e" not in label and "e+0" not in label for label in rest)


def _arrivals_env() -> Environment:
    nodes = tuple(Node(id=f"n{i}", name=f"node {i}", performance=1.0, price=1.0) for i in range(2))
    jobs = tuple(
        Job(id=str(i), name=f"job {i}", node_count=1, min_performance=1.0, volume=10.0, arrival=float(a))
        for i, a in enumerate((0, 0, 5, 7))
    )
    return Environment(nodes, (), jobs, TimeSettings(0.0, None, None), "arrivals")
