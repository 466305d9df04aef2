"""The slot table: gaps between busy intervals, and reserving equal to rebuilding."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import environments, examples
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
