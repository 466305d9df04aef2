"""The compiled kernels held to plain code (docs/design.md "The compiled kernels"): each kernel's
own test, and saturated flows made by the tests themselves (the Lublin–Feitelson model, arrivals
compressed, most jobs ending early) run compiled and by the reference. CI runs this module a
second time with bounds checking on and a fresh cache (``NUMBA_BOUNDSCHECK=1``): an index out of
range is then an ``IndexError``, not memory silently overwritten.

The searches' kernels are also held to the general search in test_backfill_scale.py
(``test_the_compiled_*``), and the host-level EASY kernel in test_flows.py.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import examples, flows
from tests.support.reference_backfill import reference_placer
from workbench.engine import registry
from workbench.engine.flow.backfill import backfill_placer
from workbench.engine.flow.batching import AllJobs
from workbench.engine.flow.cycles import run_cycles
from workbench.engine.grid.lublin import generate_workload
from workbench.engine.kernels import unverify
from workbench.engine.kernels.types import Freed, Queue, Rows
from workbench.engine.model import Environment, Job, Node, TimeSettings
from workbench.engine.simulate import Recorder


def _run(env, placer):
    rec = Recorder(env, history=False)
    for _ in run_cycles(env, rec, placer, AllJobs()):
        pass
    return rec.schedule("x", 0.0)


@st.composite
def lublin_flows(draw):
    """A slice of a Lublin–Feitelson workload on a small machine of mixed nodes, its arrivals
    compressed so that many jobs wait, and most jobs ending early."""
    nodes = draw(st.integers(4, 12))
    count = draw(st.integers(20, 70))
    work = generate_workload(count, nodes, seed=draw(st.integers(0, 10_000)))
    compress = draw(st.sampled_from([2.0, 4.0, 8.0]))
    perf = [float(draw(st.sampled_from([1.0, 1.0, 2.0, 3.0]))) for _ in range(nodes)]
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    scale = float(np.median(work.runtime)) or 1.0  # times near 1..100, so that EPS stays far below
    jobs = tuple(
        Job(
            f"j{i}",
            f"j{i}",
            int(work.size[i]),
            0.0,
            float(max(work.runtime[i], 1.0)) / scale * 10.0,
            arrival=float(work.arrival[i] - work.arrival[0]) / scale * 10.0 / compress,
            actual_fraction=float(rng.choice([1.0, 0.8, 0.5, 0.3, 0.1])),
        )
        for i in range(count)
    )
    return Environment(
        nodes=tuple(Node(f"n{i}", f"n{i}", perf[i], perf[i]) for i in range(nodes)),
        jobs=jobs,
        time=TimeSettings(0.0, None, None),
        name="lublin",
    )


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=lublin_flows(),
    name=st.sampled_from(["FirstFit", "CoP", "PAST", "BFfinish", "MinCost", "MinLSum", "MinLMinSum", "DEP", "COORD"]),
)
def test_compiled_backfilling_equals_the_reference_on_lublin_flows(env, name):
    """Dynamic backfilling's compiled pass makes the reference's every move on trace-like saturated
    flows: the same windows, ends and failures."""
    selector = registry.selector(name)
    fast = _run(env, backfill_placer(selector, True))
    ref = _run(env, reference_placer(selector, True))
    assert fast.windows == ref.windows
    assert fast.unscheduled == ref.unscheduled
    assert fast.actual_ends == ref.actual_ends


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=14, max_nodes=6))
def test_the_stepped_node_level_easy_is_the_compiled_one(env):
    """The stepped node-level EASY (``flow.easy._Nodes``, which Cycles mode runs) and the compiled one
    (``kernels.easy_nodes``, for runs that keep no history) give the same schedule on any nodes."""
    env = Environment(env.nodes, (), env.jobs, env.time, env.name)
    compiled = registry.run(env, "EASY")
    stepped = registry.simulator(env, "EASY", history=True).run()
    assert compiled.windows == stepped.windows
    assert compiled.unscheduled == stepped.unscheduled
    assert compiled.actual_ends == stepped.actual_ends
    assert compiled.reasons == stepped.reasons


def test_a_cleared_certificate_keeps_where_an_earlier_window_can_start():
    """``unverify`` keeps, for each job whose certificate a freed gap clears, the range where a new
    window can start: [max(A, e_j), min(S_j, b)) of every such gap, spanned; once that spans half
    the way to the job's start it is dropped for the whole way (the re-check then searches it all)."""

    inf = math.inf
    busy = [(0.0, 10.0), (20.0, 30.0), (40.0, 70.0), (80.0, 200.0)]  # node 0, the freed gaps taken out
    width = 8
    bs = np.full((2, width), inf)
    be = np.full((2, width), inf)
    owner = np.full((2, width), -1, dtype=np.int64)
    for k, (a, b) in enumerate(busy):
        bs[0, k], be[0, k] = a, b
    bs[1, 0], be[1, 0] = 0.0, 200.0
    count = np.array([len(busy), 1], dtype=np.int64)
    perf = np.array([1.0, 1.0])
    queue = {
        "jobs": np.array([0, 1], dtype=np.int64),
        "active": np.array([True, True]),
        "verified": np.array([True, False]),  # job 1: not verified for another reason, searched everywhere
        "arrival": np.zeros(2),
        "volume": np.array([5.0, 5.0]),
        "min_perf": np.zeros(2),
        "top": np.ones(2),  # each job's fastest window runs at speed 1
        "start": np.array([100.0, 100.0]),
        "lower": np.array([0.0, -inf]),
        "upper": np.array([0.0, inf]),
    }

    def free(a: float, b: float) -> int:
        rows = tuple(Rows(bs, be, owner, count, 0.0, inf))
        freed = tuple(Freed(np.array([0], dtype=np.int64), np.array([a]), np.array([b])))
        return unverify(*rows, perf, *freed, *Queue(*queue.values()), 1.0, 0.0, -1)

    assert free(10.0, 20.0) == 1  # job 0's certificate is cleared, and only where the gap is
    assert not queue["verified"][0] and (queue["lower"][0], queue["upper"][0]) == (10.0, 20.0)
    assert (queue["lower"][1], queue["upper"][1]) == (-inf, inf)
    assert free(30.0, 40.0) == 0  # already cleared: the range grows
    assert (queue["lower"][0], queue["upper"][0]) == (10.0, 40.0)
    free(70.0, 80.0)  # 10 to 80 is over half of the 100 to the job's start: the whole way
    assert (queue["lower"][0], queue["upper"][0]) == (-inf, inf)
    # A job whose n nodes run at speed 0.4 at best needs 12.5, more than the gap's 10 on this
    # speed-1 node: the gap cannot help it.
    queue["verified"][0], queue["top"][0] = True, 0.4
    assert free(10.0, 20.0) == 0 and queue["verified"][0]
    queue["top"][0] = 0.5  # 10 fits
    assert free(10.0, 20.0) == 1 and not queue["verified"][0]


def test_the_finish_time_search_breaks_ties_in_whole_cost_units_then_position():
    """Found by the Lublin flows above: a job of n = 2 at level 2 may use a (p 2, c 2), b (p 3, c 3)
    and c (p 2, c 2); for T = 0.588 each costs 2 whole units. The exact search keeps equal-valued
    slots in (units, position) order, so it takes a and b; the compiled finish-time search took the
    cheapest by price, a and c."""
    nodes = (Node("a", "a", 2.0, 2.0), Node("b", "b", 3.0, 3.0), Node("c", "c", 2.0, 2.0))
    job = Job("j", "j", 2, 0.0, 1.1764705882352942, criterion="finish")
    env = Environment(nodes=nodes, jobs=(job,), time=TimeSettings(0.0, None, None))
    selector = registry.selector("BFfinish")
    fast = _run(env, backfill_placer(selector, True))
    ref = _run(env, reference_placer(selector, True))
    assert fast.windows == ref.windows
    assert fast.windows[0].nodes == ("a", "b")


@st.composite
def row_edits(draw: st.DrawFn) -> tuple[list[list[tuple[float, float]]], list[tuple[str, int, float, float]], float]:
    """Rows of abutting or spaced intervals on a grid of halves (so that gaps of exactly ``theta``
    and intervals that abut both occur), and a sequence of edits: an interval put into a free gap,
    or one taken out."""
    rows = []
    for _ in range(draw(st.integers(1, 3))):
        t, row = 0.0, []
        for _ in range(draw(st.integers(0, 6))):
            t += draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]))
            length = draw(st.sampled_from([0.5, 1.0, 2.5]))
            row.append((t, t + length))
            t += length
        rows.append(row)
    edits = [
        (
            draw(st.sampled_from(["insert", "delete"])),
            draw(st.integers(0, 99)),
            draw(st.floats(0, 1)),
            draw(st.floats(0, 1)),
        )
        for _ in range(draw(st.integers(1, 12)))
    ]
    return rows, edits, draw(st.sampled_from([0.5, 1.0, 2.0]))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=row_edits(), istart=st.sampled_from([0.0, 1.5]), iend=st.sampled_from([math.inf, 12.0]))
def test_a_moves_edits_keep_every_gap_list_equal_to_a_new_listing(case, istart, iend):
    """``insert_listed`` and ``delete_listed`` edit a listed row's gap list in place (O(log S) to find
    the place, not a listing of the whole row): after every edit the list is what ``list_gaps``
    makes of the row afresh, and the row is what ``insert_rows``/``delete_rows`` make of it."""
    from workbench.engine.kernels.edits import delete_listed, delete_rows, insert_listed, insert_rows
    from workbench.engine.kernels.gaps import list_gaps
    from workbench.engine.kernels.types import Lists

    rows_in, edits, theta = case
    n, width = len(rows_in), 32

    def empty() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        bs, be = np.full((n, width), math.inf), np.full((n, width), math.inf)
        return bs, be, np.full((n, width), -1, dtype=np.int64), np.zeros(n, dtype=np.int64)

    bs, be, owner, count = empty()
    for x, row in enumerate(rows_in):
        for k, (a, b) in enumerate(row):
            bs[x, k], be[x, k] = a, b
        count[x] = len(row)
    plain = Rows(bs.copy(), be.copy(), owner.copy(), count.copy(), istart, iend)  # edited without lists
    rows = Rows(bs, be, owner, count, istart, iend)
    lists = Lists(np.empty((n, width + 1)), np.empty((n, width + 1)), np.zeros(n, dtype=np.int64), theta, 0.0)
    for x in range(n):
        list_gaps(rows, lists, x)
    fresh = Lists(np.empty((n, width + 1)), np.empty((n, width + 1)), np.zeros(n, dtype=np.int64), theta, 0.0)
    for kind, pick, u, v in edits:
        x = pick % n
        xs = np.array([x], dtype=np.int64)
        c = int(count[x])
        if kind == "delete" and c:
            k = pick % c
            start, ends = float(bs[x, k]), np.array([be[x, k]])
            assert delete_listed(rows, lists, xs, start, ends) == -1
            assert delete_rows(plain, xs, start, ends) == -1
        elif kind == "insert" and c + 1 < width:
            # A free stretch of the row (from istart: the gaps before it too): the interval fills part of it.
            starts = [0.0] + [float(e) for e in be[x, :c]]
            ends_ = [float(s) for s in bs[x, :c]] + [20.0]
            free = [(a, b) for a, b in zip(starts, ends_, strict=True) if b > a]
            if not free:
                continue
            a, b = free[pick % len(free)]
            s = a + (b - a) * min(u, v)
            e = a + (b - a) * max(u, v)
            if e <= s:
                continue
            insert_listed(rows, lists, xs, s, np.array([e]), 7)
            insert_rows(plain, xs, s, np.array([e]), 7)
        for arr, ref in zip(rows[:4], plain[:4], strict=True):
            assert np.array_equal(arr, ref)
        for y in range(n):
            list_gaps(rows, fresh, y)
            m = int(lists.size[y])
            if m >= 0:  # -1: to be listed again when next read (never for rows that do not overlap)
                assert m == fresh.size[y]
                assert np.array_equal(lists.starts[y, :m], fresh.starts[y, :m])
                assert np.array_equal(lists.ends[y, :m], fresh.ends[y, :m])
            assert m >= 0


@settings(max_examples=examples(200), deadline=None)
@given(values=st.lists(st.integers(0, 6).map(float), min_size=1, max_size=40), data=st.data())
def test_the_shadows_selection_is_numpys_partition(values, data):
    """EASY's shadow (``easy._kth_smallest``, in place on scratch) is the k-th smallest, as
    ``np.partition`` finds it, duplicates included; the values stay the same multiset."""
    from workbench.engine.kernels.easy import _kth_smallest

    k = data.draw(st.integers(0, len(values) - 1))
    scratch = np.array([*values, 99.0])  # an entry past ``size`` that must be left out
    assert _kth_smallest(scratch, len(values), k) == np.partition(np.array(values), k)[k]
    assert sorted(scratch[:-1]) == sorted(values) and scratch[-1] == 99.0


def _parts_in_numpy(ordered, offset, width, length, hosts, position):
    """The numpy ``window_parts`` replaced: each job's nodes by position, sorted, in window order."""
    pos = position[hosts]
    for n in np.unique(width[ordered]).tolist():
        of_n = ordered[width[ordered] == n]
        slots = offset[of_n, None] + np.arange(n)
        pos[slots] = np.sort(pos[slots], axis=1)
    n = width[ordered]
    first = np.repeat(offset[ordered] - (np.cumsum(n) - n), n)
    return pos[first + np.arange(int(n.sum()))], np.repeat(np.arange(ordered.size), n), np.repeat(length[ordered], n)


@settings(max_examples=examples(100), deadline=None)
@given(data=st.data(), jobs=st.integers(1, 12), hosts=st.integers(1, 9))
def test_a_compiled_runs_parts_are_the_numpy_ones(data, jobs, hosts):
    """``kernels.window_parts`` and ``window_rows`` lay the parts out as the numpy they replaced did,
    whether each job's columns come in position order or not, and when the window column reuses
    the host list (written after the hosts are read)."""
    from workbench.engine import kernels

    width = np.array(data.draw(st.lists(st.integers(1, hosts), min_size=jobs, max_size=jobs)), dtype=np.int64)
    offset = np.zeros(jobs, dtype=np.int64)
    np.cumsum(width[:-1], out=offset[1:])
    placed = np.concatenate([data.draw(st.permutations(range(hosts)))[:n] for n in width]).astype(np.int64)
    position = np.array(data.draw(st.permutations(range(hosts))), dtype=np.int64)
    ordered = np.array(data.draw(st.permutations(range(jobs))), dtype=np.int64)[: data.draw(st.integers(1, jobs))]
    length = np.arange(1.0, jobs + 1.0)
    want = _parts_in_numpy(ordered, offset, width, length, placed.copy(), position)
    parts = int(width[ordered].sum())
    node, part_length = np.empty(parts, np.int64), np.empty(parts)
    hosts_seen = placed.copy()
    kernels.window_parts(ordered, offset, width, hosts_seen, position, node)
    kernels.window_rows(width[ordered], length[ordered], hosts_seen[:parts], part_length)
    for got, expected in zip((node, hosts_seen[:parts], part_length), want, strict=True):
        np.testing.assert_array_equal(got, expected)
