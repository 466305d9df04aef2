"""Compare strategies: its charts, its background runs, stale results and failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gui.helpers import beat_rate, compared, expected_windows
from workbench.engine import registry
from workbench.engine.files import load_environment

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
TINY = ROOT / "sample_envs" / "tiny.json"


def test_compare_three_strategies(qtbot, window):
    """Compare with FirstFit, MinCost and CoP draws each strategy's windows as the engine placed them, links the
    charts' time axes, and stars the lowest cost in the table."""

    win = window()
    dialog = compared(qtbot, win, ["FirstFit", "MinCost", "CoP"])
    assert list(dialog.results) == ["FirstFit", "MinCost", "CoP"]
    assert len(dialog.charts) == 3 and dialog.table.columnCount() == 3
    for chart, name in zip(dialog.charts, dialog.results, strict=True):
        assert drawn_windows_of(chart) == expected_windows(win.document.env, dialog.results[name])
    # Linked time axes: panning one pans all.
    dialog.charts[0].view.setXRange(100, 200, padding=0)
    assert dialog.charts[2].view.viewRange()[0] == pytest.approx([100, 200])
    costs = [float(dialog.table.item(3, c).text().split()[-1]) for c in range(3)]
    best = costs.index(min(costs))
    assert dialog.table.item(3, best).text().startswith("★")


def drawn_windows_of(chart):
    layer = chart.windows
    return sorted(zip(layer.x.tolist(), layer.y.tolist(), layer.w.tolist(), strict=True))


def test_compare_runs_in_the_background_and_marks_stale_results(qtbot, window):
    """Compare never blocks the window (a 50 ms heartbeat beats at least half as often during a second
    of Compare on a 2,000-job trace as in an idle second just before), can be cancelled, covers every
    schedule on its time axis, and says when its results no longer match the environment."""
    from dataclasses import replace

    from tests.traces import swf_environment
    from workbench.engine.model import StrategyRef
    from workbench.gui.panels.compare import CompareDialog
    from workbench.session import edits

    win = window(TINY)
    big = replace(swf_environment(seed=5, jobs=2000, nodes=64), strategy=StrategyRef("EASY"))
    win.document.replace_environment(big, None)
    win.wait_for_result()  # the live run and its drawing are another matter: let them land first
    qtbot.wait(200)
    dialog = CompareDialog(win.document, win)
    qtbot.addWidget(dialog)
    dialog.set_chosen(["FirstFit", "CoP", "EASY"])

    def compare():
        dialog.compare()
        assert dialog.running and not dialog.cancel_button.isHidden()

    idle = beat_rate(qtbot, 50, lambda: None, 1000)
    busy = beat_rate(qtbot, 50, compare, 1000)
    # A ratio of two rates taken in the same run, so a slow machine slows both.
    assert idle > 0 and busy >= idle / 2, (idle, busy)
    worker = dialog.runner.thread
    dialog.cancel()
    worker.join(timeout=60.0)  # a guard against a hang, not a measure
    assert not worker.is_alive() and not dialog.running and "Cancelled" in dialog.note.text()
    # A small comparison to the end: the shared time axis covers the longest schedule.
    win.document.replace_environment(load_environment(TINY), TINY)
    dialog.set_chosen(["FirstFit", "MinCost"])
    dialog.compare()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    longest = max(w.end for r in dialog.results.values() for w in r.windows)
    assert all(chart.view.viewRange()[0][1] >= longest for chart in dialog.charts)
    assert all(chart.minimumHeight() >= 200 for chart in dialog.charts)
    win.document.apply(edits.set_job(win.document.env.jobs[0].id, priority=5))
    assert dialog.stale and "Stale" in dialog.note.text() and dialog.run_button.text() == "Compare again"


def test_a_reopened_compare_dialog_still_notices_edits(qtbot, window):
    """The main window reuses its Compare dialog: closing it must not stop the stale marker."""
    from workbench.session import edits

    win = window(TINY)
    win.open_compare()
    dialog = win.compare_dialog
    dialog.set_chosen(["FirstFit", "MinCost"])
    dialog.compare()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    dialog.close()
    dialog.close()  # twice: nothing to undo twice
    win.open_compare()
    assert win.compare_dialog is dialog
    win.document.apply(edits.set_job(win.document.env.jobs[0].id, priority=3))
    assert dialog.stale


def test_compare_reports_a_strategy_that_fails_unexpectedly_and_keeps_the_others(qtbot, window, monkeypatch):
    """Any exception in one compared strategy (not only the engine's own errors) becomes an error line
    naming it; the other strategies' results arrive and Compare stops saying it is running."""

    real_run = registry.run

    def run(env, name, *args, **kwargs):
        if name == "MinCost":
            raise RuntimeError("a bug in a plug-in")
        return real_run(env, name, *args, **kwargs)

    monkeypatch.setattr(registry, "run", run)
    win = window()
    dialog = compared(qtbot, win, ["FirstFit", "MinCost", "CoP"])
    assert list(dialog.results) == ["FirstFit", "CoP"]
    assert "MinCost: internal error: RuntimeError('a bug in a plug-in')" in dialog.note.text()
