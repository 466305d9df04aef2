"""Strategy plug-ins (workbench.api, docs/plugins.md): criteria run like the built-in ones, flow
rules on the event core, and every way a plug-in can be wrong refused in one line."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.brute import brute_window
from tests.support.hypothesis_strategies import environments, examples, flows
from tests.support.validity import assert_valid_schedule
from workbench.api import Param, PluginError, criterion, flow_rule
from workbench.engine import plugins, registry
from workbench.engine import strategies as catalogue
from workbench.engine.explain import explain_job
from workbench.engine.files import default_environment_path, load_environment
from workbench.engine.model import Environment, Job, Node, TimeSettings
from workbench.engine.search import find_window
from workbench.engine.slots import SlotTable

SAMPLE = default_environment_path()


@pytest.fixture(autouse=True)
def _clean_registry():
    """Each test starts and ends with the built-in strategies only."""
    yield
    for key in list(plugins.added()):
        plugins.forget(key)
    assert [info.name for info in registry.strategies()] == [
        info.name for info in catalogue.CATALOGUE if info.name in catalogue.BUILT_IN
    ]


def _write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


# The built-in criteria, written as plug-ins would write them.
def _define_equivalents() -> dict[str, str]:
    @criterion("plug MinCost", direction="min")
    def cost(c):
        return c.price * c.length

    @criterion("plug DEP", direction="max")
    def dep(c):
        return np.minimum(c.t - c.start, c.end - (c.t + c.length))

    @criterion("plug MaxQ", direction="max", vectorized=True)
    def q(c):
        return c.attributes["q"] + 0 * c.start

    @criterion("plug COORD Lite", direction="min", choice="lite")
    def coord(c):
        return np.maximum(c.t - c.start, c.end - (c.t + c.length))

    return {"plug MinCost": "MinCost", "plug DEP": "DEP", "plug MaxQ": "MaxQ", "plug COORD Lite": "COORD Lite"}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=environments(max_jobs=4), which=st.integers(0, 3), dynamic=st.booleans())
def test_a_plugin_criterion_gives_the_windows_of_the_equivalent_built_in(env, which, dynamic):
    """On random environments, with and without dynamic, plug-in versions of MinCost, DEP, MaxQ and COORD Lite
    give the built-ins' windows and unscheduled jobs."""
    pairs = _define_equivalents()
    try:
        mine, theirs = list(pairs.items())[which]
        got = registry.run(env, mine, {"dynamic": dynamic})
        want = registry.run(env, theirs, {"dynamic": dynamic})
        assert got.windows == want.windows
        assert got.unscheduled == want.unscheduled
    finally:
        plugins.forget("module:" + __name__)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=5), which=st.integers(0, 3))
def test_plugin_criteria_equal_the_built_ins_under_dynamic_backfilling_with_early_ends(env, which):
    """On random flows with early ends, run with the default parameters, the plug-in versions of MinCost, DEP,
    MaxQ and COORD Lite give the built-ins' windows."""
    pairs = _define_equivalents()
    try:
        mine, theirs = list(pairs.items())[which]
        assert registry.run(env, mine).windows == registry.run(env, theirs).windows
    finally:
        plugins.forget("module:" + __name__)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=environments(max_jobs=1), exact=st.booleans(), earliest=st.sampled_from([0.0, 3.0, 10.0]))
def test_a_new_criterion_finds_the_window_brute_force_finds(env, exact, earliest):
    """'Most spare time' has no built-in twin: the search must find what enumeration finds."""

    @criterion("Most spare time", choice="exact" if exact else "lite")
    def spare(c):
        return (c.end - c.start) - c.length

    try:
        selector = registry.selector("Most spare time")
        table = SlotTable.from_environment(env)
        got = find_window(table, env.jobs[0], selector.spec, earliest)
        want = brute_window(table, env.jobs[0], selector.spec.criterion, exact, earliest)
        assert (got is None) == (want is None)
        if want is not None:
            assert got.value == want[0]
            assert got.window == want[1]
    finally:
        plugins.forget("module:" + __name__)


def test_a_bound_lets_the_search_stop_early_without_changing_the_answer():
    """A criterion with a bound gives the same windows as one without it (and as MinFinish) while being called
    fewer times."""
    calls = {"with": 0, "without": 0}

    @criterion("finish, unbounded", direction="min", per_slot=False)  # one call per start: counted
    def plain(c):
        calls["without"] += 1
        return np.full(len(c), c.t + c.length)

    @criterion("finish, bounded", direction="min", bound=lambda t, length, perf, params: t + length, per_slot=False)
    def bounded(c):
        calls["with"] += 1
        return np.full(len(c), c.t + c.length)

    env = load_environment(SAMPLE)
    a = registry.run(env, "finish, unbounded", {"dynamic": False})
    b = registry.run(env, "finish, bounded", {"dynamic": False})
    assert a.windows == b.windows == registry.run(env, "MinFinish", {"dynamic": False}).windows
    assert 0 < calls["with"] < calls["without"]


def test_plugin_parameters_are_declared_checked_and_passed():
    """A plug-in's declared parameter is listed first, beside the engine's own; it is tried with its default
    when declared, passed to the criterion on a run, and a value below its minimum is refused."""
    seen = []

    @criterion("weighted", params=[Param("weight", float, 1.0, "how much price counts", minimum=0.0)])
    def weighted(c):
        seen.append(c.params["weight"])
        return -c.params["weight"] * c.price

    assert set(seen) == {1.0}  # the checks when it was declared, with the default
    seen.clear()
    info = registry.get("weighted")
    assert [p.name for p in info.params][:1] == ["weight"]
    assert {"dynamic", "replan", "resolution", "quantum", "max_cycles"} <= {p.name for p in info.params}
    env = load_environment(SAMPLE)
    registry.run(env, "weighted", {"weight": 2.5})
    assert set(seen) == {2.5}
    with pytest.raises(Exception, match="weight: must be ≥ 0"):
        registry.run(env, "weighted", {"weight": -1})


def test_a_plugin_criterion_runs_in_multiplebest_bsf_and_why_here():
    """A plug-in criterion is offered as MultipleBest's `by` and BSF's selector and runs in both; Why here?
    explains its choice with the plug-in's rule, the chosen window first with minus its cost as value."""

    @criterion("cheap", direction="min")
    def cheap(c):
        return c.price * c.length

    env = load_environment(SAMPLE)
    by = next(p for p in registry.get("MultipleBest").params if p.name == "by")
    assert "cheap" in by.choices
    assert registry.run(env, "MultipleBest", {"by": "cheap"}).windows
    sel = next(p for p in registry.get("BSF").params if p.name == "selector")
    assert "cheap" in sel.choices
    bsf = registry.run(env, "BSF", {"selector": "cheap"})
    assert bsf.windows
    schedule = registry.run(env, "cheap", {"dynamic": False})
    w = schedule.windows[-1]
    story = explain_job(env, "cheap", {"dynamic": False}, w.job)
    assert story.chosen == w
    assert story.rule.startswith("the smallest sum of cheap's values (plug-in tests.engine.test_plugins)")
    mine = next(c for c in story.candidates if c.same_window(w))
    # Its value is minus the plug-in's (direction min): minus the sum of price × length, the cost.
    assert mine.value == pytest.approx(-w.cost)
    assert story.candidates[0] is mine and len(story.candidates) > 1


def test_the_slots_a_criterion_sees_are_the_candidates_of_one_window_start():
    """A per-start criterion sees the candidates of one window start: the nodes fast enough (the window takes
    b and c), with their performance, the start, length, volume and the slots' ends."""
    seen = []

    @criterion("spy", per_slot=False)  # one call per window start: the candidates of each
    def spy(c):
        seen.append(c)
        return np.zeros(len(c))

    nodes = (Node("a", "a", 1.0, 1.0), Node("b", "b", 2.0, 3.0), Node("c", "c", 2.0, 2.0))
    env = Environment(
        nodes=nodes,
        jobs=(Job("j", "j", 2, 2.0, 8.0),),
        time=TimeSettings(0.0, None, 100.0),
    )
    window = registry.run(env, "spy").windows[0]
    assert window.nodes == ("b", "c")  # only b and c are fast enough: equal values, the cheaper pair
    c = next(c for c in seen if len(c) == 2)
    assert sorted(c.node.tolist()) == [1, 2]
    assert sorted(c.performance.tolist()) == [2.0, 2.0]
    assert c.t == 0.0 and c.length == 4.0 and c.volume == 8.0
    assert c.end.tolist() == [100.0, 100.0]


# --- refusals: one line naming the plug-in, the strategy and the problem; nothing left behind


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "import nothing_here_at_all\n",
            r"plug-in bad\.py: cannot be imported: ModuleNotFoundError: "
            r"No module named 'nothing_here_at_all' \(bad\.py line 5\)",
        ),
        ("def broken(:\n", r"plug-in bad\.py: cannot be imported: SyntaxError: invalid syntax \(line 5\)"),
        (
            "from workbench.api import criterion\n@criterion('S', direction='up')\ndef f(c):\n    return c.start\n",
            r"plug-in bad\.py, strategy 'S': direction must be one of max, min, got 'up'",
        ),
        (
            "from workbench.api import criterion\n@criterion('S')\ndef f(c):\n    return c.start[:1]\n",
            r"plug-in bad\.py, strategy 'S': returned shape \(1, 3\); expected \(2, 3\).*declare per_slot=False",
        ),
        (
            "from workbench.api import criterion\n@criterion('S')\ndef f(c):\n    return c.start * float('nan')\n",
            r"plug-in bad\.py, strategy 'S': returned nan for a made-up slot \(the check when it loads\); "
            r"every value must be finite",
        ),
        (
            "from workbench.api import criterion\n@criterion('S')\ndef f(c):\n    return 1 / 0\n",
            r"plug-in bad\.py, strategy 'S': raised ZeroDivisionError: division by zero \(bad\.py line 8\)",
        ),
        (
            "from workbench.api import criterion\n@criterion('FirstFit')\ndef f(c):\n    return c.start\n",
            r"strategy 'FirstFit': the name is taken by a built-in strategy \(FirstFit\)",
        ),
        (
            "from workbench.api import criterion, Param\n@criterion('S', params=[Param('dynamic', bool, True, '')])\n"
            "def f(c):\n    return c.start\n",
            r"parameter 'dynamic' is the engine's own",
        ),
        (
            "from workbench.api import flow_rule\n@flow_rule('R', reservations=-1)\ndef f(job, now):\n    return 0\n",
            r"plug-in bad\.py, strategy 'R': reservations must be a whole number ≥ 0",
        ),
    ],
)
def test_a_broken_plugin_is_refused_in_one_line_and_leaves_nothing(tmp_path, body, message):
    """Each way a plug-in file can be wrong (import or syntax error, bad direction, wrong shape, NaN, an
    exception, a built-in's name, an engine parameter, negative reservations) is refused in one line; none of
    the file's strategies stays and the built-ins still run."""
    good = "from workbench.api import criterion\n@criterion('Good one')\ndef g(c):\n    return c.price\n"
    path = _write(tmp_path, "bad.py", good + body)
    with pytest.raises(PluginError, match=message) as caught:
        plugins.load_file(path)
    assert "\n" not in str(caught.value)
    with pytest.raises(Exception, match="unknown strategy"):
        registry.get("Good one")
    assert plugins.added() == {}
    assert registry.run(load_environment(SAMPLE), "FirstFit").windows  # the built-ins still work


def test_a_plugin_that_goes_wrong_only_on_real_data_fails_the_run_not_the_workbench(tmp_path):
    """A plug-in that loads but raises on a real run fails that run with a PluginError naming the file, the
    strategy and the exception; other strategies still run."""
    path = _write(
        tmp_path,
        "late.py",
        """
        from workbench.api import criterion

        @criterion("late")
        def late(c):
            if len(c) > 3:
                raise ValueError("too many slots")
            return -c.price
        """,
    )
    assert plugins.load_file(path) == ["late"]
    env = load_environment(SAMPLE)
    with pytest.raises(PluginError, match=r"plug-in late\.py, strategy 'late': raised ValueError: too many slots"):
        registry.run(env, "late")
    assert registry.run(env, "MinCost").windows


def test_a_file_that_defines_no_strategy_is_refused(tmp_path):
    """A file that defines no strategy, or does not exist, is refused with a PluginError saying so."""
    with pytest.raises(PluginError, match=r"^plug-in empty\.py: defines no strategy \(decorate a function"):
        plugins.load_file(_write(tmp_path, "empty.py", "x = 1\n"))
    with pytest.raises(PluginError, match=r"^plug-in gone\.py: no such file"):
        plugins.load_file(tmp_path / "gone.py")


def test_loading_a_file_again_replaces_its_strategies(tmp_path):
    """Loading a changed file again registers its new strategy and drops the one it no longer defines."""
    path = _write(
        tmp_path, "p.py", "from workbench.api import criterion\n@criterion('A')\ndef a(c):\n    return c.price\n"
    )
    assert plugins.load_file(path) == ["A"]
    path.write_text("from workbench.api import criterion\n@criterion('B')\ndef b(c):\n    return c.price\n")
    assert plugins.load_file(path) == ["B"]
    assert registry.get("B").name == "B"
    with pytest.raises(Exception, match="unknown strategy"):
        registry.get("A")


def test_installed_packages_plugins_load_through_the_entry_point_group(tmp_path, monkeypatch):
    """An installed package's strategy, found through the workbench.strategies entry point group, loads without
    errors and runs as a selector."""
    (tmp_path / "wb_sample_plugin.py").write_text(
        "from workbench.api import criterion\n@criterion('From a package')\ndef f(c):\n    return -c.price\n"
    )
    info = tmp_path / "wb_sample_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: wb-sample-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[workbench.strategies]\nsample = wb_sample_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert plugins.load_entry_points() == []
        assert registry.get("From a package").family == "selector"
        assert registry.run(load_environment(SAMPLE), "From a package").windows
    finally:
        sys.modules.pop("wb_sample_plugin", None)


# --- flow rules


def test_a_flow_rule_in_queue_order_with_one_reservation_is_easy():
    """A flow rule with a constant key (queue order) and one reservation gives EASY's windows."""

    @flow_rule("queue order", reservations=1)
    def same(job, now):
        return 0

    env = load_environment(SAMPLE)
    assert registry.run(env, "queue order").windows == registry.run(env, "EASY", {"fast_path": False}).windows


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=6, cycles=False))
def test_flow_rules_place_every_job_in_its_order_without_overlap(env):
    """On random flows a flow rule without reservations gives a valid schedule, places or explains each job
    once, is deterministic, and starts jobs only at events: an arrival, an end, a local task's end or the start
    of time."""

    @flow_rule("widest first", reservations=0)
    def widest(job, now):
        return -job.node_count

    try:
        schedule = registry.run(env, "widest first")
        assert_valid_schedule(env, schedule, executed=True)  # free time, no overlap to the actual ends
        placed = {w.job for w in schedule.windows}
        assert placed | set(schedule.unscheduled) == {j.id for j in env.jobs}  # every job, once
        assert not placed & set(schedule.unscheduled)
        assert registry.run(env, "widest first").windows == schedule.windows  # deterministic
        # List scheduling without reservations starts a job only at an event: an arrival, an
        # (actual) end, a local task's end or the start of time.
        events = {env.time.start, *(j.arrival for j in env.jobs), *(t.end for t in env.local_tasks)}
        events |= {schedule.actual_end(env, w) for w in schedule.windows}
        for w in schedule.windows:
            assert w.start >= env.job(w.job).arrival
            assert any(abs(w.start - e) <= 1e-9 for e in events), (w, sorted(events))
    finally:
        plugins.forget("module:" + __name__)


def test_the_rule_order_decides_who_starts_and_reservations_protect_the_first_blocked():
    """Shortest first without reservations starts the two one-node jobs at once and the wide job at 30; widest
    first with one reservation starts the wide job at 0."""
    nodes = tuple(Node(f"n{i}", f"n{i}", 1.0, 1.0) for i in range(2))
    jobs = (
        Job("wide", "wide", 2, 1.0, 10.0),
        Job("small", "small", 1, 1.0, 30.0),
        Job("tiny", "tiny", 1, 1.0, 5.0, arrival=0.0),
    )
    env = Environment(nodes=nodes, jobs=jobs, time=TimeSettings(0.0, None, None))

    @flow_rule("shortest first", reservations=0)
    def shortest(job, now):
        return job.volume

    schedule = registry.run(env, "shortest first")
    starts = {w.job: w.start for w in schedule.windows}
    # tiny (5) and small (30) start at once; wide waits for both nodes: after small ends at 30.
    assert starts == {"tiny": 0.0, "small": 0.0, "wide": 30.0}

    @flow_rule("wide first, reserved", reservations=1)
    def wide_first(job, now):
        return -job.node_count

    starts = {w.job: w.start for w in registry.run(env, "wide first, reserved").windows}
    assert starts["wide"] == 0.0


def test_a_flow_rule_with_a_bad_key_is_refused_naming_the_job(tmp_path):
    """A flow rule whose key is not a number is refused when declared (tried on a sample job) and is not
    registered; one that fails only for some jobs is refused on the run, naming the job."""
    # Refused when declared: the key is tried on a sample job (issue 43 defect 13) ...
    with pytest.raises(PluginError, match=r"strategy 'bad key': key of job sample is 'soon'; expected a number"):

        @flow_rule("bad key")
        def bad(job, now):
            return "soon"

    with pytest.raises(Exception, match="unknown strategy"):
        registry.get("bad key")

    # ... and a key that goes wrong only for some jobs is refused when it meets one, naming it.
    @flow_rule("bad for wide jobs")
    def wide(job, now):
        return "soon" if job.node_count > 2 else 1.0

    with pytest.raises(PluginError, match=r"strategy 'bad for wide jobs': key of job j\d+ is 'soon'; expected"):
        registry.run(load_environment(SAMPLE), "bad for wide jobs")


def test_flow_rule_parameters_reach_the_key():
    """A flow rule's declared parameter is listed beside reservations and reaches the key: weights 1 and -1 give
    different windows."""

    @flow_rule("by weight", params=[Param("weight", float, 1.0, "weight of the width")])
    def by_weight(job, now, weight):
        return weight * job.node_count

    env = load_environment(SAMPLE)
    info = registry.get("by weight")
    assert {p.name for p in info.params} == {"weight", "reservations"}
    a = registry.run(env, "by weight", {"weight": 1.0, "reservations": 0})
    b = registry.run(env, "by weight", {"weight": -1.0, "reservations": 0})
    assert a.windows != b.windows


@pytest.mark.parametrize("dask", [None, "local"])
def test_a_plugin_in_the_lab_runs_in_worker_processes(tmp_path, dask):
    """A loaded plug-in runs in a study's worker processes (two local workers, or Dask's local cluster): its run
    is recorded ok, places all 50 jobs and differs from BFfinish's."""
    from workbench.lab.database import Database
    from workbench.lab.runner import run_study

    path = _write(
        tmp_path,
        "spare.py",
        """
        from workbench.api import criterion

        @criterion("Most spare time")
        def spare(c):
            return (c.end - c.start) - c.length
        """,
    )
    plugins.load_file(path)
    sets = {
        "strategy": "Most spare time,BFfinish",
        "n_q": "50",
        "scenario": "static",
        "quantum": "0.0",
        "local_load": "0.0",
        "job_perf_max": "12.0",
    }
    result = run_study("backfilling", reps=1, workers=2, dask=dask, out=tmp_path / "run", overrides=sets)
    assert result.planned == 2
    rows = {row.strategy: row for row in Database(result.folder, "backfilling", create=False).rows()}
    assert rows["Most spare time"].status == "ok", rows["Most spare time"].error
    assert rows["Most spare time"].measures["placed"] == 50.0
    assert rows["Most spare time"].measures["mean_finish"] != rows["BFfinish"].measures["mean_finish"]


def test_a_plugin_criterion_finds_css_alternatives_as_its_built_in_twin_does():
    """CSS and BSF with alternatives_by a plug-in criterion give the same windows and alternatives as with its
    twin MinCost, unlike the jobs' own criteria; a flow strategy, or a selector with rough windows, is refused."""

    @criterion("cheap", direction="min")
    def cheap(c):
        return c.price * c.length

    env = load_environment(SAMPLE)
    for strategy in ("CSS", "BSF"):
        mine = registry.run(env, strategy, {"alternatives_by": "cheap"})
        twin = registry.run(env, strategy, {"alternatives_by": "MinCost"})
        own = registry.run(env, strategy)
        assert mine.windows == twin.windows
        assert mine.alternatives == twin.alternatives
        assert mine.windows != own.windows  # the jobs' own criteria find other alternatives
    with pytest.raises(Exception, match="alternatives_by: expected own or a square-window selector"):
        registry.run(env, "CSS", {"alternatives_by": "EASY"})
    with pytest.raises(Exception, match="alternatives_by: a selector finds square windows"):
        registry.run(env, "CSS", {"alternatives_by": "cheap", "shape": "rough"})
