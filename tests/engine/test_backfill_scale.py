"""The scalable backfilling against the plain reference, and the profile-limited search."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import environments, examples, flows, saturated_flows
from tests.support.reference_backfill import reference_placer
from workbench.engine import registry
from workbench.engine.flow.backfill import backfill_placer
from workbench.engine.flow.batching import AllJobs
from workbench.engine.flow.cycles import run_cycles
from workbench.engine.profile import Profile
from workbench.engine.search import SearchSpec, find_window, search_profile
from workbench.engine.simulate import Recorder
from workbench.engine.slots import SlotTable

SELECTORS = [
    "FirstFit", "CoP", "PAST", "BFstart", "BFshort", "MinCost", "DEP", "COORD Lite", "MaxQ", "MultipleBest", "MinLSum"
]  # fmt: skip


def _run(env, placer, history=True):
    rec = Recorder(env, history=history)
    snaps = [s for s in run_cycles(env, rec, placer, AllJobs()) if s is not None]
    return rec.schedule("x", 0.0), [(s.time, s.windows) for s in snaps]


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=flows(max_jobs=14, max_nodes=6),
    name=st.sampled_from(SELECTORS),
    dynamic=st.booleans(),
    quantum=st.sampled_from([0.0, 0.0, 0.0, 1.0, 4.0]),
    replan=st.sampled_from(["search", "search", "nodes"]),
)
def test_fast_backfilling_equals_the_reference(env, name, dynamic, quantum, replan):
    """Identical windows, failures and snapshots, step by step, on flows with early ends and arrivals
    (and with window lengths in whole quanta, for the selectors that take them; and with jobs that
    move up on their own nodes)."""
    takes = {p.name for p in registry.get(name).params}
    params = {"quantum": quantum} if quantum and "quantum" in takes else {}
    selector = registry.selector(name, params)
    fast, fast_steps = _run(env, backfill_placer(selector, dynamic, replan=replan))
    ref, ref_steps = _run(env, reference_placer(selector, dynamic, replan=replan))
    assert fast.windows == ref.windows
    assert fast.unscheduled == ref.unscheduled
    assert fast.actual_ends == ref.actual_ends
    assert [t for t, _ in fast_steps] == [t for t, _ in ref_steps]
    assert [w for _, w in fast_steps] == [w for _, w in ref_steps]


# One of each selector family: earliest start (lite), earliest finish (exact, and 0.99 T), the
# coordinated exact rules, a cost and an attribute criterion, gap criteria (exact and lite), and
# the best of disjoint alternatives.
FAMILIES = [
    "FirstFit",
    "BFstart",
    "BFfinish",
    "BFshort",
    "CoP",
    "PAST",
    "MinCost",
    "MaxQ",
    "DEP",
    "COORD Lite",
    "MultipleBest",
]


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=saturated_flows(),
    name=st.sampled_from(FAMILIES),
    replan=st.sampled_from(["search", "search", "nodes"]),
    lists=st.booleans(),
    history=st.booleans(),
)
def test_fast_backfilling_equals_the_reference_on_saturated_flows(env, name, replan, lists, history):
    """Where many more jobs wait than there are nodes and most end early, the fast backfilling still
    makes the reference's every move: the same windows, ends and snapshots; also with the compiled
    pass reading gap lists on rows of any length (``CompiledPass.LIST_FROM``), and in a run without
    history, where the pass makes a moved job's window only when it is read."""
    from unittest import mock

    from workbench.engine.flow import compiled_pass

    selector = registry.selector(name)
    pass_class = compiled_pass.CompiledPass
    with mock.patch.object(pass_class, "LIST_FROM", 0 if lists else pass_class.LIST_FROM):
        fast, fast_steps = _run(env, backfill_placer(selector, True, replan=replan), history)
    ref, ref_steps = _run(env, reference_placer(selector, True, replan=replan))
    assert fast.windows == ref.windows
    assert fast.unscheduled == ref.unscheduled
    assert fast.actual_ends == ref.actual_ends
    if history:
        assert fast_steps == ref_steps


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=4),
    name=st.sampled_from(["FirstFit", "CoP", "PAST", "MinFinish", "MinCost", "BFshort", "DEP", "MaxQ"]),
    earliest=st.sampled_from([0.0, 3.0, 10.0, 30.0]),
    reserve=st.integers(0, 3),
)
def test_profile_search_equals_the_full_table_search(env, name, earliest, reserve):
    """A search that reads only the time range it needs finds the full table's window."""
    table = SlotTable.from_environment(env)
    profile = Profile(table)
    # Take some windows out first, so the profile holds reservations as well as tasks.
    spec_ff = SearchSpec(registry.selector("FirstFit").feasibility.criterion)
    for job in env.jobs[1 : 1 + reserve]:
        hit = find_window(table, job, spec_ff, 0.0)
        if hit is not None:
            table = table.reserve([hit.window])
            profile.add(hit.window)
    spec = registry.selector(name).spec
    job = env.jobs[0]
    want = find_window(table, job, spec, earliest)
    got = search_profile(profile, job, spec, earliest)
    assert got == want


def test_profile_table_is_the_full_table_cut_to_the_range():
    """Every slot of the full table that ends after lo and starts by hi, with its true bounds."""
    from workbench.engine.model import Environment, LocalTask, Node, TimeSettings

    nodes = tuple(Node(f"n{i}", f"n{i}", 1.0, 1.0) for i in range(3))
    tasks = tuple(LocalTask(f"t{k}", f"n{k % 3}", float(s), float(s + 5)) for k, s in enumerate(range(0, 120, 7)))
    env = Environment(nodes, tasks, (), TimeSettings(0.0, None, 130.0))
    full = SlotTable.from_environment(env)
    profile = Profile(full)
    for lo, hi in [(0.0, 20.0), (13.0, 13.0), (40.5, 77.0), (-math.inf, math.inf), (125.0, math.inf)]:
        part = profile.table(lo, hi)
        keep = (full.end > lo) & (full.start <= hi)
        assert part.node.tolist() == full.node[keep].tolist()
        assert part.start.tolist() == full.start[keep].tolist()
        assert part.end.tolist() == full.end[keep].tolist()


def _long_flow():
    """A saturated flow: 1,500 jobs queued at time 0 on the 32 nodes of backfill32, each really
    running a U[0.2, 1] share of its reserved time, so every early completion moves much of the
    queue (dynamic FirstFit takes a minute on it)."""
    import dataclasses

    import numpy as np

    from workbench.engine.generate import generate

    env = generate("backfill32", 1, jobs=1500)
    share = np.random.default_rng(1).uniform(0.2, 1.0, size=len(env.jobs))
    jobs = tuple(dataclasses.replace(j, actual_fraction=float(f)) for j, f in zip(env.jobs, share, strict=True))
    return dataclasses.replace(env, jobs=jobs)


def test_a_long_run_reports_progress_and_asks_should_stop_for_every_job():
    """On a saturated flow, progress(done, total) climbs towards its total; should_stop() is asked at
    least once for every job planned (so a cancel waits for one search at most, not for the run), and
    its first yes ends the run with Cancelled, with no progress after it. Counts, not seconds."""
    from workbench.engine.errors import Cancelled

    env = _long_flow()
    reports: list[tuple[int, int]] = []
    asked: list[bool] = []  # each answer of should_stop, in order

    def progress(done: int, total: int) -> None:
        reports.append((done, total))

    def should_stop() -> bool:
        # Stop once every job has arrived and been planned (and some have ended early since).
        asked.append(bool(reports) and reports[-1][0] > len(env.jobs))
        return asked[-1]

    with pytest.raises(Cancelled):
        registry.run(env, "FirstFit", progress=progress, should_stop=should_stop)
    assert asked.count(True) == 1 and asked[-1]  # the first yes ended the run
    assert reports[-1][0] > len(env.jobs)  # nothing was reported after the stop
    assert len(asked) >= len(env.jobs)
    assert len(reports) >= 2
    totals = {t for _, t in reports}
    assert len(totals) == 1 and totals.pop() >= len(env.jobs)
    done = [d for d, _ in reports]
    assert done == sorted(done) and done[-1] > 0


@pytest.mark.timing
def test_a_long_run_stops_within_a_second_of_cancel():
    """Wall clock: should_stop() set one second into a saturated flow ends the run within a second."""
    import dataclasses
    import threading
    import time

    from workbench.engine.errors import Cancelled

    env = _long_flow()
    registry.run(dataclasses.replace(env, jobs=env.jobs[:100]), "FirstFit")  # compiled loops loaded first
    stop = threading.Event()
    stopped_at: list[float] = []

    def cancel_later() -> None:
        time.sleep(1.0)
        stopped_at.append(time.perf_counter())
        stop.set()

    threading.Thread(target=cancel_later, daemon=True).start()
    with pytest.raises(Cancelled):
        registry.run(env, "FirstFit", should_stop=stop.is_set)
    assert time.perf_counter() - stopped_at[0] < 1.0


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=4),
    lo=st.sampled_from([-math.inf, 0.0, 5.0, 17.0, 40.0]),
    span=st.sampled_from([0.0, 6.0, 30.0, math.inf]),
    without=st.integers(-1, 3),
)
def test_profile_gaps_are_the_full_tables_slots_in_range(env, lo, span, without):
    """gaps()/search_table() equal a full rebuild's slots in [lo, hi], an owner's windows given back."""
    table = SlotTable.from_environment(env)
    profile = Profile(table)
    spec_ff = SearchSpec(registry.selector("FirstFit").feasibility.criterion)
    kept = []
    for owner, job in enumerate(env.jobs):
        hit = find_window(table, job, spec_ff, 0.0)
        if hit is not None:
            table = table.reserve([hit.window])
            profile.add(hit.window, owner)
            if owner != without:
                kept.append(hit.window)
    hi = lo + span
    full = SlotTable.from_environment(env, kept)
    keep = (full.end > lo) & (full.start <= hi)
    got = profile.search_table(lo, hi, without)
    assert got.node.tolist() == full.node[keep].tolist()
    assert got.start.tolist() == full.start[keep].tolist()
    assert got.end.tolist() == full.end[keep].tolist()


def test_a_job_that_never_fits_costs_one_look_past_the_last_busy_time():
    """With an unbounded horizon and a budget nothing meets, the widening search stops at once."""
    from workbench.engine.model import Environment, Job, Node, TimeSettings

    env = Environment(
        tuple(Node(f"n{i}", f"n{i}", 1.0, 5.0) for i in range(4)),
        (),
        (Job("j", "j", 2, 1.0, 100.0, budget=10.0),),
        TimeSettings(0.0, None, None),
    )
    profile = Profile(SlotTable.from_environment(env))
    calls = []
    original = profile.search_table

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    profile.search_table = counting
    spec = registry.selector("CoP").spec
    assert search_profile(profile, env.jobs[0], spec, 0.0) is None
    assert len(calls) == 1


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=environments(max_jobs=5, bounded=True), name=st.sampled_from(["FirstFit", "CoP", "DEP", "MinCost"]))
def test_explained_runs_keep_the_distances_each_placement_saw(env, name):
    """Static backfilling with explain: a job's recorded L_left/L_right are those of the slots it was
    placed on, with only the local tasks and the windows of the jobs planned before it (in order of
    arrival, queue order at equal times) around it."""
    from workbench.engine.slots import window_distances

    schedule = registry.run(env, name, {"dynamic": False}, explain=True)
    assert set(schedule.distances) == {w.job for w in schedule.windows}
    earlier = []
    for job in sorted(env.queue(), key=lambda j: max(j.arrival, env.time.start)):
        window = schedule.window_of(job.id)
        if window is None:
            continue
        seen = SlotTable.from_environment(env, earlier)
        assert schedule.distances[job.id] == window_distances(seen, window)
        earlier.append(window)
    assert registry.run(env, name, {"dynamic": False}).distances == {}  # headless runs do not pay for it


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=10, max_nodes=5), replan=st.sampled_from(["search", "nodes"]))
def test_dynamic_explained_runs_keep_distances_for_every_moved_job(env, replan):
    """With early completions, a job moved up (searched again or on its own nodes) keeps the L_left and
    L_right of its new window: one pair per part, never negative, for every placed job."""
    schedule = registry.run(env, "CoP", {"replan": replan}, explain=True)
    assert set(schedule.distances) == {w.job for w in schedule.windows}
    for w in schedule.windows:
        left, right = schedule.distances[w.job]
        assert len(left) == len(right) == len(w.nodes)
        assert min(*left, *right) >= -1e-9


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=5),
    earliest=st.sampled_from([0.0, 3.0, 10.0, 30.0]),
    before=st.sampled_from([6.0, 20.0, 41.0, math.inf]),
    without=st.integers(-1, 3),
    gone=st.integers(-1, 3),
    factor=st.sampled_from([1.0, 0.99]),
    quantum=st.sampled_from([0.0, 0.0, 4.0]),
)
def test_the_compiled_first_fit_is_first_fit_on_the_profiles_gaps(
    env, earliest, before, without, gone, factor, quantum
):
    """kernels.earliest_in_rows (first_fit_in) finds first_fit's window on Profile.gaps, with an owner's
    intervals given back, after windows were added to the rows and one was taken out again."""
    from workbench.engine.search.firstfit import first_fit, first_fit_in

    table = SlotTable.from_environment(env)
    profile = Profile(table)
    spec_ff = SearchSpec(registry.selector("FirstFit").feasibility.criterion)
    placed = []
    for owner, job in enumerate(env.jobs[1:]):
        hit = find_window(table, job, spec_ff, 0.0)
        if hit is not None:
            table = table.reserve([hit.window])
            profile.add(hit.window, owner)
            placed.append(hit.window)
    if 0 <= gone < len(placed):
        profile.remove(placed[gone])
    job = env.jobs[0]
    want = first_fit(profile.search_table(earliest, before, without), job, earliest, factor, 1.0, before, quantum)
    got = first_fit_in(profile, job, earliest, factor, 1.0, before, quantum, without)
    assert (got is None) == (want is None)
    if got is not None:
        assert got.window == want.window
        assert got.value == want.value


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=saturated_flows(), name=st.sampled_from(["FirstFit", "BFshort", "CoP"]), watch=st.integers(0, 5))
def test_the_compiled_pass_explains_as_the_python_pass_does(env, name, watch):
    """With explanations on (the GUI's runs) and one job watched by "Why here?", the compiled pass
    gives the Python pass's windows, L distances and the watched job's search."""
    from unittest import mock

    from workbench.engine.explain import explain_job
    from workbench.engine.flow import compiled_pass

    job = env.jobs[watch % len(env.jobs)].id
    compiled = registry.run(env, name, explain=True)
    why = explain_job(env, name, {}, job)
    with mock.patch.object(compiled_pass.CompiledPass, "build", return_value=None):
        plain = registry.run(env, name, explain=True)
        plain_why = explain_job(env, name, {}, job)
    assert compiled.windows == plain.windows
    assert compiled.distances == plain.distances
    assert compiled.actual_ends == plain.actual_ends
    assert why == plain_why


def _placement_spec(kind, alpha1, alpha2, delta1, delta2, quantum=0.0):
    from workbench.engine import criteria as cr

    make = cr.CoordinatedPlacement if kind == "cop" else cr.Past
    criterion = make(alpha1=alpha1, alpha2=alpha2, delta1=delta1, delta2=delta2)
    return SearchSpec(criterion, exact=True, quantum=quantum)


def _profile_with_reservations(env, owners_from=1):
    """The environment's slots as a profile, with FirstFit windows of the jobs after the first reserved."""
    table = SlotTable.from_environment(env)
    profile = Profile(table)
    spec_ff = SearchSpec(registry.selector("FirstFit").feasibility.criterion)
    placed = []
    for owner, job in enumerate(env.jobs[owners_from:]):
        hit = find_window(table, job, spec_ff, 0.0)
        if hit is not None:
            table = table.reserve([hit.window])
            profile.add(hit.window, owner)
            placed.append(hit.window)
    return profile, placed


def _assert_compiled_is_general(profile, job, spec, earliest, without):
    """``placement_in`` answers the search, with the general exact search's window and value."""
    from workbench.engine.search.placement import compiled_for, placement_in

    assert compiled_for(spec, job, profile)
    want = find_window(profile.search_table(earliest, without=without), job, spec, earliest)
    got = placement_in(profile, job, spec, earliest, without)
    assert (got is None) == (want is None)
    if got is not None:
        assert got.window == want.window
        assert got.value == want.value


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=5),
    kind=st.sampled_from(["cop", "past"]),
    alpha1=st.sampled_from([0.1, 0.0, -0.25]),
    alpha2=st.sampled_from([0.0001, 0.5, -0.01]),
    delta1=st.sampled_from([1.0, 0.3, -1.0]),
    delta2=st.sampled_from([0.1, -0.4]),
    earliest=st.sampled_from([0.0, 3.0, 10.0, 30.0]),
    without=st.integers(-1, 3),
    gone=st.integers(-1, 3),
    quantum=st.sampled_from([0.0, 0.0, 4.0]),
)
def test_the_compiled_placement_search_is_the_general_search(
    env, kind, alpha1, alpha2, delta1, delta2, earliest, without, gone, quantum
):
    """kernels.placement_in_rows (placement_in) gives the general exact search's window and value for
    PAST and CoP with no budget, at any constants (a negative alpha2 leaves PAST no bound), on rows
    where windows were added and one taken out, with an owner's intervals given back."""
    import dataclasses

    profile, placed = _profile_with_reservations(env)
    if 0 <= gone < len(placed):
        profile.remove(placed[gone])
    job = dataclasses.replace(env.jobs[0], budget=math.inf)
    spec = _placement_spec(kind, alpha1, alpha2, delta1, delta2, quantum)
    _assert_compiled_is_general(profile, job, spec, earliest, without)


GAP_CRITERIA = ("GapSum", "NearestGap", "Dependable", "Coordinated")  # MinLSum, MinLMinSum, DEP, COORD


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=5),
    name=st.sampled_from(GAP_CRITERIA),
    earliest=st.sampled_from([0.0, 3.0, 10.0, 30.0]),
    without=st.integers(-1, 3),
    gone=st.integers(-1, 3),
    quantum=st.sampled_from([0.0, 0.0, 4.0]),
)
def test_the_compiled_gap_criteria_search_is_the_general_search(env, name, earliest, without, gone, quantum):
    """MinLSum's, MinLMinSum's, DEP's and COORD's exact search with no budget (no bound that falls
    with t: every candidate is read) in compiled code gives the general exact search's window and
    value, on rows where windows were added and one taken out, with an owner's intervals given back
    (issue 44: these searches took most of a dynamic run on a trace)."""
    import dataclasses

    from workbench.engine import criteria as cr

    profile, placed = _profile_with_reservations(env)
    if 0 <= gone < len(placed):
        profile.remove(placed[gone])
    job = dataclasses.replace(env.jobs[0], budget=math.inf)
    spec = SearchSpec(getattr(cr, name)(), exact=True, quantum=quantum)
    _assert_compiled_is_general(profile, job, spec, earliest, without)


def _plugin_lsum():
    """MinLSum's criterion as a per-slot plug-in would write it (declared, not registered)."""
    from workbench.engine.plugins import CriterionPlugin, PluginCriterion, _Source

    def lsum(c):
        right = np.where(np.isinf(c.end), 0.0, c.end - (c.t + c.length))
        return (c.t - c.start) + right

    plugin = CriterionPlugin("LSum", lsum, "min", "exact", None, (), "", True, _Source("test", "test"))
    return PluginCriterion(plugin, {})


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=5),
    name=st.sampled_from(["Attribute", "ProcTime", "plug-in"]),
    earliest=st.sampled_from([0.0, 3.0, 10.0, 30.0]),
    without=st.integers(-1, 3),
    gone=st.integers(-1, 3),
    quantum=st.sampled_from([0.0, 0.0, 4.0]),
)
def test_the_members_search_is_the_general_search(env, name, earliest, without, gone, quantum):
    """A per-slot criterion with no bound and no compiled kind of its own (MaxQ's, MinProcTime's,
    a plug-in's), exact with no budget: the compiled lists of candidates and members, scored in one
    call (``search.members``), give the general exact search's window and value."""
    import dataclasses

    from workbench.engine import criteria as cr
    from workbench.engine.search.members import members_for, members_in

    profile, placed = _profile_with_reservations(env)
    if 0 <= gone < len(placed):
        profile.remove(placed[gone])
    job = dataclasses.replace(env.jobs[0], budget=math.inf)
    criterion = _plugin_lsum() if name == "plug-in" else getattr(cr, name)()
    spec = SearchSpec(criterion, exact=True, quantum=quantum)
    assert members_for(spec, job, profile)
    want = find_window(profile.search_table(earliest, without=without), job, spec, earliest)
    got = members_in(profile, job, spec, earliest, without)
    assert (got is None) == (want is None)
    if got is not None:
        assert got.window == want.window
        assert got.value == want.value


def _wide_profiles(seed):
    """(job, profile) for jobs of 9 to 257 nodes on 300 nodes of three speeds, each with three local
    tasks in [0, 440): windows of hundreds of slots, summed past numpy's blocks of eight and 128."""
    import numpy as np

    from workbench.engine.model import Environment, Job, LocalTask, Node, TimeSettings

    rng = np.random.default_rng(seed)
    nodes = [
        Node(id=f"n{i}", name=f"n{i}", performance=float(rng.choice([1.3, 2.1, 3.7])), price=float(rng.integers(1, 9)))
        for i in range(300)
    ]
    tasks = []
    for i in range(300):
        for a in np.sort(rng.choice(np.arange(0, 400, 7), size=6, replace=False))[::2]:
            end = float(a + rng.integers(1, 40))
            tasks.append(LocalTask(id=f"t{len(tasks)}", node=f"n{i}", start=float(a), end=end))
    for count in (9, 40, 130, 257):
        job = Job(id="j", name="j", node_count=count, min_performance=1.0, volume=31.7)
        env = Environment(tuple(nodes), tuple(tasks), (job,), TimeSettings(0.0, None, None), "wide")
        yield job, Profile(SlotTable.from_environment(env))


def test_the_compiled_placement_search_sums_wide_windows_as_numpy_does():
    """Windows of hundreds of slots on a machine of many levels: the compiled search sums z in numpy's
    pairwise order (blocks of eight, halves past 128), so its values and choices are the general
    search's to the bit."""
    from workbench.engine import criteria as cr
    from workbench.engine.search.placement import placement_in

    for job, profile in _wide_profiles(7):
        for kind in ("cop", "past", *GAP_CRITERIA):
            spec = _placement_spec(kind, 0.1, 0.0001, 1.0, 0.1)
            if kind in GAP_CRITERIA:
                spec = SearchSpec(getattr(cr, kind)(), exact=True)
            want = find_window(profile.search_table(2.5), job, spec, 2.5)
            got = placement_in(profile, job, spec, 2.5)
            assert got is not None and want is not None
            assert got.window == want.window
            assert got.value == want.value


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    env=environments(max_jobs=5),
    earliest=st.sampled_from([0.0, 3.0, 10.0, 30.0]),
    without=st.integers(-1, 3),
    gone=st.integers(-1, 3),
    quantum=st.sampled_from([0.0, 0.0, 4.0]),
    factor=st.sampled_from([1.0, 1.0, 0.99]),
    budget=st.sampled_from([math.inf, None, 0.5, 1.0, 2.0]),
)
def test_the_compiled_finish_time_search_is_the_general_search(env, earliest, without, gone, quantum, factor, budget):
    """BFfinish's and BFshort's exact search (the finish time weighs every slot of a window alike) in
    compiled code gives the general exact search's window and value: with budgets (the job's own, none,
    or a share of its cheapest window's cost), on rows where windows were added and one taken out,
    with an owner's intervals given back, in whole quanta and with 0.99 T."""
    import dataclasses

    from workbench.engine import criteria as cr

    profile, placed = _profile_with_reservations(env)
    if 0 <= gone < len(placed):
        profile.remove(placed[gone])
    job = env.jobs[0]
    spec = SearchSpec(cr.FinishTime(), exact=True, length_factor=factor, quantum=quantum)
    if budget is not None:
        cheapest = find_window(profile.search_table(earliest, without=without), job, SearchSpec(cr.Cost()), earliest)
        scale = cheapest.window.cost if cheapest is not None else 1.0
        job = dataclasses.replace(job, budget=budget if math.isinf(budget) else budget * scale * 1.3)
    _assert_compiled_is_general(profile, job, spec, earliest, without)


def test_the_compiled_finish_time_search_sums_wide_windows_as_numpy_does():
    """Windows of 9 to 257 slots on nodes of three speeds: the finish-time values are summed in numpy's
    pairwise order, so the compiled search's value and window are the general search's to the bit."""
    from workbench.engine import criteria as cr
    from workbench.engine.search.placement import placement_in

    spec = SearchSpec(cr.FinishTime(), exact=True)
    for job, profile in _wide_profiles(11):
        want = find_window(profile.search_table(2.5), job, spec, 2.5)
        got = placement_in(profile, job, spec, 2.5)
        assert got is not None and want is not None
        assert got.window == want.window
        assert got.value == want.value


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=saturated_flows(), name=st.sampled_from(["FirstFit", "BFshort", "CoP"]), watch=st.integers(0, 5))
def test_why_here_stops_once_the_job_can_move_no_more_with_the_full_runs_answer(env, name, watch):
    """"Why here?" stops a dynamic run once the watched job waits no more (``WatchSettled``): its
    answer is the one a run to the end gives."""
    from unittest import mock

    from workbench.engine.explain import explain_job

    job = env.jobs[watch % len(env.jobs)].id
    with mock.patch.object(Recorder, "watched_settled", lambda self: None):
        full = explain_job(env, name, {}, job)
    assert explain_job(env, name, {}, job) == full


def test_why_here_stops_the_run_where_the_job_starts():
    """On a queue with early completions, "Why here?" of a job that starts at the first event stops
    the run there: it searches far fewer jobs than the whole run does."""
    from unittest import mock

    from workbench.engine.explain import explain_job
    from workbench.engine.generate import generate

    env = generate("backfill32", 5, jobs=60)
    env = dataclasses.replace(env, jobs=tuple(dataclasses.replace(j, actual_fraction=0.5) for j in env.jobs))
    schedule = registry.run(env, "FirstFit")
    first = min(schedule.windows, key=lambda w: w.start).job
    searched: list[int] = []
    run = Recorder.watched_settled

    def settled(self: Recorder) -> None:
        searched.append(int(self.counts["searches"]))
        run(self)

    with mock.patch.object(Recorder, "watched_settled", settled):
        why = explain_job(env, "FirstFit", {}, first)
    assert why.chosen == schedule.window_of(first)
    assert len(searched) == 1 and searched[0] < schedule.counts["searches"] / 2


def test_why_here_reads_easy_from_its_result_without_running_it(monkeypatch):
    """EASY keeps no per-job candidates: given its result, "Why here?" answers from it, the same
    words as after a run, and runs nothing."""
    from workbench.engine.explain import explain_job
    from workbench.engine.generate import generate

    env = generate("backfill32", 3, jobs=12)
    schedule = registry.run(env, "EASY")
    job = env.jobs[7].id
    ran = explain_job(env, "EASY", {}, job)
    monkeypatch.setattr(registry, "simulator", lambda *a, **k: pytest.fail("ran the strategy"))
    read = explain_job(env, "EASY", {}, job, schedule=schedule)
    assert read == ran
    assert read.chosen == schedule.window_of(job)
