"""Why here? reads as the chart does: nodes by name, near-identical candidates as one row, and a failed
job's over-budget windows said to be free when it was planned (defect 13)."""

from __future__ import annotations

import re
from pathlib import Path

from workbench.engine.files import load_environment
from workbench.engine.model import Environment
from workbench.gui.panels.why import NEAR, WhyPanel
from workbench.session import edits
from workbench.session.document import Document

DEFAULT = Path(__file__).resolve().parents[2] / "sample_envs" / "default.json"


def _explain(qtbot, env: Environment, job: str) -> WhyPanel:
    why = WhyPanel(Document(env))
    qtbot.addWidget(why)
    why.show()
    why.set_on_screen(True)
    why.show_job(job)
    qtbot.waitUntil(lambda: why.explanation is not None and why.explanation.job == job, timeout=30_000)
    return why


def _column(why: WhyPanel, name: str) -> list[str]:
    col = [why.table.horizontalHeaderItem(c).text() for c in range(why.table.columnCount())].index(name)
    return [why.table.item(r, col).text() for r in range(why.table.rowCount())]


def test_why_here_names_nodes_as_the_chart_does(qtbot):
    """Why here? for j11 names the candidates' nodes by their names, as the chart does, never by id."""
    env = load_environment(DEFAULT)
    why = _explain(qtbot, env, "j11")
    names = {n.name for n in env.nodes}
    for cell in _column(why, "nodes"):
        assert set(cell.split(", ")) <= names
        assert not re.search(r"\bn\d+\b", cell)  # no ids ("n9")


def test_why_here_lists_near_identical_candidates_once(qtbot):
    """j11's search saw windows on the same node starting at 328 and at 329 (a coarse grid): one row."""
    env = load_environment(DEFAULT)
    why = _explain(qtbot, env, "j11")
    ex = why.explanation
    starts = {round(c.start) for c in ex.candidates}
    assert {328, 329} <= starts  # the engine still compares both
    shown = [g[0] for g in why.shown_groups]
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            near = abs(a.start - b.start) <= NEAR * a.length and a.length == b.length and a.cost == b.cost
            assert not (set(a.nodes) == set(b.nodes) and near), (a, b)
    merged = [r for r, g in enumerate(why.shown_groups) if len(g) > 1]
    assert merged
    assert "starts" in _column(why, "start")[merged[0]]
    assert why.table.rowCount() < len(ex.candidates) + len(ex.over_budget)
    assert "sliver apart" in why.notes.text()


def test_a_failed_jobs_over_budget_windows_were_free_when_it_was_planned(qtbot):
    """For j6, which fails its budget under CoP, the over-budget windows are tagged free then and a note says
    they were free when it was planned; a placed job shows neither."""
    env = load_environment(DEFAULT)
    why = _explain(qtbot, env, "j6")  # fails its budget under CoP
    assert why.explanation.chosen is None and why.explanation.over_budget
    assert "over budget (free then)" in _column(why, "")
    assert "free when the job was planned" in why.notes.text()
    placed = _explain(qtbot, env, "j11")
    assert "free then" not in " ".join(_column(placed, "")) + placed.notes.text()


def test_under_easy_no_candidates_are_offered_to_outline(qtbot):
    """Issue 43 defect 6: EASY keeps no per-job candidates, so neither an empty table nor "Outline
    these candidates" is shown; a strategy that has them shows both again."""
    from dataclasses import replace

    from workbench.engine.model import StrategyRef

    env = replace(load_environment(DEFAULT), strategy=StrategyRef("EASY"))
    why = _explain(qtbot, env, "j3")
    assert "keeps no per-job candidates" in why.notes.text()
    assert why.show_ghosts.isHidden() and why.table.isHidden()
    why.document.replace_environment(load_environment(DEFAULT), None)
    why.show_job("j11")
    qtbot.waitUntil(lambda: why.explanation is not None and len(why.explanation.candidates) > 0, timeout=30_000)
    assert not why.show_ghosts.isHidden() and not why.table.isHidden()


def test_a_failed_jobs_cost_column_stays_in_the_panel(qtbot):
    """Issue 43 cosmetics: the tag "over budget (free then)" widened the first column until the cost
    column was clipped at the dock's edge; it wraps now, and the cost reads whole."""
    env = load_environment(DEFAULT)
    why = _explain(qtbot, env, "j6")
    why.resize(500, 600)
    qtbot.wait(50)
    table = why.table
    cost = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())].index("cost")
    assert table.columnViewportPosition(cost) + table.columnWidth(cost) <= table.viewport().width()
    assert why.late.isHidden()  # never placed: the summary says why, once


def test_a_job_whose_placement_cannot_be_explained_keeps_its_own_wait_and_nothing_stale(qtbot, window, monkeypatch):
    """Issue 43's trial: when Why here? failed (CoP's exact choice on a trace), the panel kept the
    last job's "Why so late?" under the new job's heading. Now a new question clears the panel at
    once, a failed Why here? says so, and the job's own Why so late? still shows."""
    from tests.gui.helpers import wait_result
    from workbench.engine.errors import ParameterError
    from workbench.gui.panels import why as why_module

    win = window()
    win.document.apply(edits.set_strategy("EASY", {}))
    wait_result(qtbot, win)
    env, result = win.document.env, win.document.result
    waited = sorted(
        (w for w in result.windows if w.start > env.job(w.job).arrival + 1e-9),
        key=lambda w: w.start - env.job(w.job).arrival,
    )
    first, second = waited[-1].job, waited[-2].job
    win.why.set_on_screen(True)
    win.state.select(first)
    qtbot.waitUntil(lambda: win.why.wait is not None and win.why.wait.job == first and not win.why.call.busy)

    def refuse(*args, **kwargs):
        raise ParameterError("resolution", "the exact choice needs a table of 103 GiB")

    monkeypatch.setattr(why_module, "explain_job", refuse)
    win.state.select(second)
    assert win.why.late.text() == "" and win.why.summary.text() == ""  # nothing of the first job's
    qtbot.waitUntil(lambda: not win.why.call.busy and win.why._asked[1] == second)
    assert win.why.title.text() == "Cannot explain where this job went"
    assert "103 GiB" in win.why.summary.text()
    assert win.why.wait is not None and win.why.wait.job == second
    assert "It waited" in win.why.late.text() and win.why.late.isVisibleTo(win.why)
