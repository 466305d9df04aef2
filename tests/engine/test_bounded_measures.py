"""Every measure with a bound stays inside it, over random flows with early completions.

Shares (the utilisations, per node too) lie in [0, 1], waits and responses are ≥ 0, slowdowns
and bounded slowdowns ≥ 1, and the counts add up, whatever the strategy and the flow.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings

from tests.engine.test_metric_definitions import _case
from tests.support.hypothesis_strategies import examples, flows, saturated_flows
from workbench.engine import registry
from workbench.engine.metrics import flow_metrics, job_metrics

STRATEGIES = ("EASY", "FirstFit", "CoP", "MinCost")
SLACK = 1e-9  # float sums of lengths


def assert_within_bounds(env, schedule) -> None:
    m = flow_metrics(env, schedule)
    assert m.placed + m.failed == m.jobs
    for name in ("utilisation", "slot_utilisation"):
        assert -SLACK <= getattr(m, name) <= 1 + SLACK, (name, getattr(m, name))
    for node, share in m.node_utilisation.items():
        assert -SLACK <= share <= 1 + SLACK, ("node_utilisation", node, share)
    for job in job_metrics(env, schedule):
        assert job.wait >= 0 and job.response >= 0, job
        assert job.slowdown >= 1 - SLACK and job.bounded_slowdown >= 1 - SLACK, job
    if m.placed:
        assert m.mean_wait >= 0 and m.mean_response >= 0 and m.makespan >= 0
        assert m.mean_slowdown >= 1 - SLACK and m.mean_bounded_slowdown >= 1 - SLACK
    else:
        assert math.isnan(m.mean_wait)


@pytest.mark.parametrize("strategy", STRATEGIES)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=8))
def test_bounded_measures_stay_in_bounds_on_flows(strategy, env):
    """Early completions, arrivals and cycles: each bound holds under each strategy."""
    assert_within_bounds(env, registry.run(env, strategy))


@pytest.mark.parametrize("strategy", STRATEGIES)
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=saturated_flows(max_jobs=18))
def test_bounded_measures_stay_in_bounds_on_saturated_flows(strategy, env):
    """Most jobs end early while many wait: nodes are reused inside windows reserved longer."""
    assert_within_bounds(env, registry.run(env, strategy))


def test_node_utilisation_counts_the_time_really_used():
    """The hand case: y reserves 20 on a and b from 10 but ends at 20 (half its length). Node a
    offered [10, 20] and was used all of it (1, not 20/10); b offered [0, 20] and was used
    5 + 4 + 10 = 19 of it. node_busy stays the reserved time (L_c)."""
    env, schedule = _case()
    m = flow_metrics(env, schedule)
    assert m.node_utilisation == pytest.approx({"a": 1.0, "b": 19 / 20})
    assert m.node_busy == pytest.approx({"a": 20.0, "b": 29.0})
