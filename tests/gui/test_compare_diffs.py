"""Compare's per-job differences: a job placed under only one of the two strategies is marked and named."""

from __future__ import annotations

from pathlib import Path

from tests.gui.helpers import compared

DEFAULT = Path(__file__).resolve().parents[2] / "sample_envs" / "default.json"


def test_a_job_placed_under_one_strategy_only_is_marked_with_a_tooltip(qtbot, window):
    """Issue 43's trial: "2 placed only under FirstFit" in the summary could not be found on the plot
    (such jobs had no bar). Each gets a triangle on the axis whose tooltip names the strategy."""
    win = window(DEFAULT)
    env = win.document.env
    dialog = compared(qtbot, win, ["FirstFit", "MinCost"])
    diff = dialog.diff
    only = [(j, "FirstFit") for j in diff.only_a] + [(j, "MinCost") for j in diff.only_b]
    assert only, "default.json places some job under one of the two only"
    for job_id, under in only:
        x = env.job_index[job_id]
        tip = dialog.diff_tip(float(x))
        assert tip == f"{env.job(job_id).name} ({job_id}): placed only under {under}, so no difference to draw"
    assert len(dialog._only_items) == (len(diff.only_a) > 0) + (len(diff.only_b) > 0)
    dialog.diff_b.setCurrentText("FirstFit")  # the same strategy twice: nothing placed under one only
    assert dialog._only_items == [] and dialog._only_at == {}
