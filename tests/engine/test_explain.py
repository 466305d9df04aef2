"""Why here?: the explainer's candidates are the normative search's, and its best is the strategy's window."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.test_search import CRITERIA, SEARCH_CASES
from tests.support.brute import brute_window
from tests.support.hypothesis_strategies import examples, flows
from workbench.engine import registry
from workbench.engine.explain import candidates, explain_job, explanation_text
from workbench.engine.files import load_environment
from workbench.engine.numbers import number
from workbench.engine.search import SearchSpec
from workbench.engine.slots import SlotTable, window_lengths

SELECTORS = [info.name for info in registry.strategies() if info.family == "selector" and info.name != "MultipleBest"]


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**SEARCH_CASES)
def test_best_candidate_is_the_brute_force_window(env, name, exact, earliest, factor, quantum):
    """On random cases the explainer's best candidate is brute force's window and value, none is cut, and each
    candidate is a real window: n distinct eligible nodes, the length its slowest node needs, a cost within the
    budget."""
    table = SlotTable.from_environment(env)
    job = env.jobs[0]
    spec = SearchSpec(CRITERIA[name](), exact=exact, length_factor=factor, quantum=quantum)
    found, compared, cut = candidates(table, job, spec, earliest)
    want = brute_window(table, job, spec.criterion, exact, earliest, factor, quantum=quantum)
    assert not cut and compared == len(found)
    if want is None:
        assert found == []
        return
    value, window = want
    best = found[0]
    assert best.same_window(window) and best.value == pytest.approx(value, abs=1e-9)
    # Every candidate is a real window: n distinct eligible nodes, the length its slowest node needs.
    perf = {node.id: node.performance for node in env.nodes}
    for c in found:
        assert len(set(c.nodes)) == job.node_count
        slowest = min(perf[n] for n in c.nodes)
        assert slowest >= job.min_performance
        assert c.length == pytest.approx(window_lengths(job.volume, np.array([slowest]), factor, quantum)[0])
        if math.isfinite(job.budget):
            assert c.cost <= job.budget * (1 + 1e-9) + spec.resolution * job.node_count


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=5), name=st.sampled_from(SELECTORS), pick=st.integers(0, 4), data=st.data())
def test_explained_choice_is_the_strategys_window(env, name, pick, data):
    """Replayed with the job watched, the best candidate on the slots it saw is the window it got,
    also after dynamic moves on early completions."""
    job = env.jobs[pick % len(env.jobs)]
    schedule = registry.run(env, name)
    ex = explain_job(env, name, {}, job.id)
    window = schedule.window_of(job.id)
    assert ex.chosen == window
    if window is None:
        assert ex.summary
        return
    assert ex.candidates, explanation_text(ex)
    assert ex.candidates[0].same_window(window), explanation_text(ex)


def test_default_sample_explanations_read_well():
    """On the default sample, CoP's explanation of j4 puts its window first, compares it with the next best, and
    its rule terms add up to each value; j6's failure names the budget and the cheapest window ruled out; CSS's
    candidates hold its choice and its summary speaks of a combination."""
    env = load_environment(registry.__file__.replace("workbench/engine/registry.py", "sample_envs/default.json"))
    cop = explain_job(env, "CoP", {}, "j4")
    assert cop.candidates[0].same_window(cop.chosen)
    assert "better than the next best" in cop.summary and "the next best starts at" in cop.summary
    # The CoP rule terms add up to the value.
    for c in cop.candidates:
        assert sum(v for _, v in c.terms) == pytest.approx(c.value)
    failed = explain_job(env, "CoP", {}, "j6")
    assert failed.chosen is None and "budget" in failed.summary
    assert failed.over_budget and min(c.cost for c in failed.over_budget) > env.job("j6").budget
    # The cheapest window ruled out is the one the failure reason names.
    cheapest = failed.over_budget[0].cost
    assert f"the cheapest costs {number(cheapest)}" in failed.summary
    css = explain_job(env, "CSS", {}, "j4")
    assert css.candidates and any(c.same_window(css.chosen) for c in css.candidates)
    assert "combination" in css.summary


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=6, cycles=False, equal_priority=True))
def test_easy_snapshots_show_the_heads_reservation_and_keep_it(env):
    """Cycles mode draws EASY's reservation for the blocked head: it is the head of the queue, lies
    ahead, holds n nodes for its requested length, and the head never starts later than it (with
    equal priorities; a higher-priority arrival may take the head's place)."""
    sim = registry.simulator(env, "EASY", {}, history=True)
    schedule = sim.run()
    holds = [s for s in sim.snapshots if s.hold is not None]
    for snap in holds:
        job_id, start, length, nodes = snap.hold
        job = env.job(job_id)
        assert snap.queue and snap.queue[0] == job_id
        assert start >= snap.time - 1e-9 and len(nodes) == job.node_count == len(set(nodes))
        assert length > 0
        window = schedule.window_of(job_id)
        assert window is not None and window.start <= start + 1e-9


def test_slices_are_recorded_for_colouring():
    """Batch-slicer with 3 slices labels each window with its slice (at least two used), and BSF labels some
    windows backfilled."""
    env = load_environment(registry.__file__.replace("workbench/engine/registry.py", "sample_envs/default.json"))
    schedule = registry.run(env, "Batch-slicer", {"slices": 3})
    labels = {schedule.groups[w.job] for w in schedule.windows}
    assert labels <= {"slice 1 of 3", "slice 2 of 3", "slice 3 of 3"} and len(labels) >= 2
    bsf = registry.run(env, "BSF", {})
    assert "backfilled" in set(bsf.groups.values())


def test_user_comes_from_swf_and_round_trips(tmp_path):
    """SWF's user number becomes the job's user (for View ▸ Colour windows by ▸ User); files keep it,
    and files without users are written as before."""
    from pathlib import Path

    from workbench.engine.io.envfile import environment_to_dict, save_environment
    from workbench.engine.io.swf import import_swf

    root = Path(registry.__file__).resolve().parents[2]
    trace = root / "sample_envs" / "sample16.swf"
    users = {}
    for line in trace.read_text().splitlines():
        if line.strip() and not line.startswith(";"):
            fields = line.split()
            users[fields[0]] = fields[11] if float(fields[11]) >= 0 else ""
    env = import_swf(trace, 16).env
    assert {j.id: j.user for j in env.jobs} == {k: v for k, v in users.items() if k in env.job_index}
    assert any(j.user for j in env.jobs)
    save_environment(env, tmp_path / "e.json")
    assert load_environment(tmp_path / "e.json") == env
    plain = load_environment(root / "sample_envs" / "tiny.json")
    assert all("user" not in j for j in environment_to_dict(plain)["jobs"])


def test_why_here_without_a_budget_needs_no_knapsack_on_a_wide_job():
    """Issue 43's trial: CoP's Why here? on the KTH trace stopped with "the exact choice at
    resolution 1 needs a table of 103.1 GiB". With no budget the exact choice is the n best (as
    the search takes them), so a 98-node job of a four-hour window on 100 nodes is explained, and
    the chosen window is the one the run placed."""
    from workbench.engine.explain import explain_job
    from workbench.engine.model import Environment, Job, Node, TimeSettings

    nodes = tuple(Node(f"n{i}", f"n{i}", 1.0, 1.0) for i in range(100))
    jobs = (Job("a", "a", 60, 1.0, 3600.0), Job("b", "b", 98, 1.0, 14400.0, arrival=10.0))
    env = Environment(nodes, (), jobs, TimeSettings(0.0, None, None), "wide")
    ex = explain_job(env, "CoP", {}, "b")
    placed = registry.run(env, "CoP").window_of("b")
    assert ex.chosen == placed and ex.candidates and ex.candidates[0].same_window(placed)
