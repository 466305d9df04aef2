"""The Metrics panel names which utilisation it shows, and each row's tooltip is its definition."""

from __future__ import annotations

from pathlib import Path

from workbench.engine import registry
from workbench.engine.files import load_environment
from workbench.engine.metrics import definition, flow_metrics
from workbench.gui.panels.metrics import MetricsPanel, format_metric

TINY = Path(__file__).resolve().parents[2] / "sample_envs" / "tiny.json"


def test_both_utilisations_are_shown_by_name_and_equal_the_engines(qtbot):
    """With local tasks the two utilisations differ; the panel shows utilisation of capacity, of free slots,
    bounded slowdown and mean wait by name, with the engine's values and each definition as the row's tooltip."""
    env = load_environment(TINY)  # local tasks on its nodes: the two utilisations differ
    schedule = registry.run(env, "FirstFit")
    panel = MetricsPanel()
    qtbot.addWidget(panel)
    panel.show_schedule(env, schedule)
    want = flow_metrics(env, schedule)
    assert want.utilisation < want.slot_utilisation
    rows = {panel.flow.verticalHeaderItem(r).text(): r for r in range(panel.flow.rowCount())}
    for label, key in (
        ("utilisation of capacity", "utilisation"),
        ("utilisation of free slots", "slot_utilisation"),
        ("mean bounded slowdown (τ = 10)", "mean_bounded_slowdown"),
        ("mean wait", "mean_wait"),
    ):
        row = rows[label]
        assert panel.flow.item(row, 0).text() == format_metric(key, getattr(want, key))
        assert panel.flow.verticalHeaderItem(row).toolTip() == definition(key).text()
