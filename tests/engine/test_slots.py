"""The slot table: gaps between busy intervals, and reserving equal to rebuilding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import environments, examples, flows
from workbench.engine import registry
from workbench.engine.slots import SlotTable


def _same(a: SlotTable, b: SlotTable) -> None:
    assert np.array_equal(a.node, b.node)
    assert np.array_equal(a.start, b.start)
    assert np.array_equal(a.end, b.end)


@settings(max_examples=examples(80), deadline=None)
@given(env=environments(max_jobs=5), name=st.sampled_from(["FirstFit", "CoP", "DEP"]))
def test_incremental_reserve_equals_rebuild(env, name):
    """Splitting slots window by window gives exactly the table built from scratch."""
    schedule = registry.run(env, name, {"dynamic": False})
    table = SlotTable.from_environment(env)
    for w in schedule.windows:
        table = table.reserve([w])
    _same(table, SlotTable.from_environment(env, schedule.windows))
    if schedule.windows:  # several windows at once (possibly in one slot) fall back to a rebuild
        _same(SlotTable.from_environment(env).reserve(schedule.windows), table)


def test_slots_are_the_gaps_clipped_to_the_interval():
    """Slots lie between tasks, inside [istart, iend], never zero-length."""
    from workbench.engine.model import Environment, LocalTask, Node, TimeSettings

    env = Environment(
        nodes=(Node("a", "a", 1.0, 1.0), Node("b", "b", 1.0, 1.0)),
        local_tasks=(
            LocalTask("t1", "a", -5.0, 10.0),
            LocalTask("t2", "a", 10.0, 20.0),
            LocalTask("t3", "b", 50.0, 150.0),
        ),
        time=TimeSettings(0.0, None, 100.0),
    )
    table = SlotTable.from_environment(env)
    got = sorted(zip(table.node.tolist(), table.start.tolist(), table.end.tolist(), strict=True))
    assert got == [(0, 20.0, 100.0), (1, 0.0, 50.0)]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=flows(max_jobs=12, max_nodes=5), name=st.sampled_from(["EASY", "FirstFit", "MinCost"]))
def test_distances_read_from_the_free_slots_are_those_of_a_table_without_the_window(env, name):
    """The chart's tooltip reads a window's L_left and L_right from the busy intervals of the
    result's free slots (``distances_around``, every window in them) instead of a table of all the
    other windows (``window_distances``), which at 200,000 windows took seconds a hover: the same
    numbers, and the same refusal where another window overlaps it."""
    from workbench.engine.slots import distances_around, window_distances

    schedule = registry.run(env, name)
    free = SlotTable.from_environment(env, list(schedule.windows))
    for window in schedule.windows:
        others = [w for w in schedule.windows if w.job != window.job]
        try:
            want = window_distances(SlotTable.from_environment(env, others), window)
        except ValueError:  # another window overlaps it (a start after an early end): both refuse
            with pytest.raises(ValueError, match="is not free"):
                distances_around(free, window)
            continue
        got = distances_around(free, window)
        assert np.allclose(got, want, rtol=0, atol=1e-9), (window, got, want)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.data(),
    n_nodes=st.integers(1, 6),
    count=st.integers(0, 40),
    horizon=st.sampled_from([30.0, 55.5, float("inf")]),
)
def test_the_compiled_gap_walk_builds_the_numpy_table(monkeypatch, data, n_nodes, count, horizon):
    """Above ``BY_KEYS_FROM`` busy intervals a table's gaps come from ``kernels.node_gaps``: the same
    table as the numpy join and sorts, whether each node's intervals come by start or not, with
    intervals that abut, tie, or reach past either end of the interval."""
    from workbench.engine import kernels, slots

    kernels.prepare((kernels.node_gaps,))
    times = st.sampled_from([-5.0, 0.0, 1.0, 2.5, 2.5 + 1e-12, 4.0, 10.0, 30.0, 41.0, 60.0])
    node = np.array(data.draw(st.lists(st.integers(0, n_nodes - 1), min_size=count, max_size=count)), np.int64)
    start = np.array(data.draw(st.lists(times, min_size=count, max_size=count)))
    end = start + np.array(data.draw(st.lists(st.sampled_from([0.5, 1.5, 3.0, 20.0]), min_size=count, max_size=count)))
    if data.draw(st.booleans()):  # by start, as a schedule's windows come
        order = np.argsort(start, kind="stable")
        node, start, end = node[order], start[order], end[order]
    ids = tuple(f"n{k}" for k in range(n_nodes))
    perf = price = np.ones(n_nodes)

    def table(threshold):  # (each draw sets the threshold it builds with)
        monkeypatch.setattr(slots, "BY_KEYS_FROM", threshold)
        return SlotTable.build(ids, perf, price, 0.0, horizon, node, start, end)

    compiled, plain = table(0), table(10**9)
    for field in ("node", "start", "end", "busy_node", "busy_start", "busy_end"):
        np.testing.assert_array_equal(getattr(compiled, field), getattr(plain, field))
