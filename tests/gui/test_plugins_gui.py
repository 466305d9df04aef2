"""Strategy ▸ Load plug-in…: a plug-in's strategy in the strategy panel (with its parameter form),
run live, explained by Why here?, offered by Compare, remembered for the next start; a broken
one refused in one line while the built-ins keep working."""

from __future__ import annotations

import textwrap

import pytest
from PySide6.QtCore import QSettings, Qt

from tests.gui.helpers import wait_result
from workbench.engine import plugins, registry
from workbench.gui.plugin_menu import load_remembered, remembered
from workbench.session import edits

SPARE = """
from workbench.api import Param, criterion

@criterion("Most spare time", params=[Param("weight", float, 1.0, "how much spare time counts", minimum=0.0)])
def spare(c):
    return c.params["weight"] * ((c.end - c.start) - c.length)
"""


@pytest.fixture(autouse=True)
def _no_plugins_after():
    yield
    for key in list(plugins.added()):
        plugins.forget(key)


def _plugin(tmp_path, body=SPARE, name="spare.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_a_loaded_plugin_runs_from_the_strategy_panel_and_why_here_explains_it(qtbot, window, tmp_path):
    """A loaded plug-in's strategy is offered in the strategy panel with a form for its parameter; chosen, it
    runs live with the engine's windows, and Why here? explains its choice by the plug-in's rule."""
    win = window()
    assert win.plugin_menu.load(_plugin(tmp_path)) is None
    assert "Loaded Most spare time from spare.py" in win.statusBar().currentMessage()
    panel = win.strategy
    panel.family.setCurrentText("selector")
    names = [panel.name.itemText(i) for i in range(panel.name.count())]
    assert "Most spare time" in names
    panel.name.setCurrentText("Most spare time")
    assert win.document.env.strategy.name == "Most spare time"
    assert "weight" in panel._fields  # the form is built from the plug-in's declared parameters
    qtbot.waitUntil(lambda: win.document.result is not None and win.document.result.strategy == "Most spare time")
    wait_result(qtbot, win)
    want = registry.run(win.document.env, "Most spare time")
    assert win.document.result.windows == want.windows
    job = want.windows[0].job
    win.why.set_on_screen(True)
    win.why.show_job(job)
    qtbot.waitUntil(lambda: win.why.explanation is not None and win.why.explanation.job == job, timeout=30_000)
    assert win.why.explanation.chosen == want.windows[0]
    assert "Most spare time's values (plug-in spare.py)" in win.why.explanation.rule
    assert win.why.table.rowCount() >= 1


def _ticked(dialog):
    items = [dialog.choices.item(i) for i in range(dialog.choices.count())]
    return [item.text() for item in items if item.checkState() == Qt.CheckState.Checked]


def test_compare_offers_a_plugin_loaded_after_it_opened(qtbot, window, tmp_path):
    """A plug-in loaded while Compare is open is added to the end of its strategies, and the ticked ones stay
    ticked."""
    win = window()
    win.open_compare()
    dialog = win.compare_dialog
    before = [dialog.choices.item(i).text() for i in range(dialog.choices.count())]
    dialog.choices.item(before.index("CoP")).setCheckState(Qt.CheckState.Checked)
    ticked = _ticked(dialog)
    assert "CoP" in ticked and "Most spare time" not in ticked
    win.plugin_menu.load(_plugin(tmp_path))
    after = [dialog.choices.item(i).text() for i in range(dialog.choices.count())]
    assert after == [*before, "Most spare time"]
    assert _ticked(dialog) == ticked
    dialog.close()


def test_plugins_are_remembered_for_the_next_start(qtbot, window, tmp_path):
    """A loaded plug-in is remembered in the settings and loaded again at the next start; a remembered file that
    is gone is reported in one line and forgotten."""
    win = window()
    path = _plugin(tmp_path)
    win.plugin_menu.load(path)
    assert remembered(win.settings) == [str(path.resolve())]
    plugins.forget(str(path.resolve()))
    with pytest.raises(Exception, match="unknown strategy"):
        registry.get("Most spare time")
    assert load_remembered(QSettings("SlotWorkbench", "Slot Workbench")) == []
    assert registry.get("Most spare time").family == "selector"
    path.unlink()
    plugins.forget(str(path.resolve()))
    errors = load_remembered(QSettings("SlotWorkbench", "Slot Workbench"))
    assert errors == [f"plug-in spare.py: no such file any more: {path.resolve()} (forgotten)"]
    assert remembered(QSettings("SlotWorkbench", "Slot Workbench")) == []


def test_a_broken_plugin_is_refused_in_one_line_and_nothing_is_lost(qtbot, window, tmp_path):
    """A broken plug-in is refused with one line in the status bar and not remembered; the strategy and its
    result stay as they were."""
    win = window()
    win.document.apply(edits.set_strategy("MinCost", {}))
    wait_result(qtbot, win)
    windows = win.document.result.windows
    bad = _plugin(
        tmp_path,
        "from workbench.api import criterion\n@criterion('Bad')\ndef f(c):\n    return c.start[:1]\n",
        "bad.py",
    )
    error = win.plugin_menu.load(bad)
    assert error == (
        "plug-in bad.py, strategy 'Bad': returned shape (1, 3); expected (2, 3), one value per slot"
        " (per slot, the default, its fields are 2-D and c.t a column: write it elementwise or declare per_slot=False)"
    )
    assert win.last_error == error and win.statusBar().currentMessage() == error
    assert remembered(win.settings) == []
    assert win.document.env.strategy.name == "MinCost"
    win.run_now()
    wait_result(qtbot, win)
    assert win.document.result.windows == windows


def test_reloading_a_plugin_that_dropped_the_current_strategy_falls_back_to_firstfit(qtbot, window, tmp_path):
    """Reloading a plug-in file that no longer defines the current strategy falls back to FirstFit in the
    document and the panel, and the run has no error."""
    win = window()
    path = _plugin(tmp_path)
    win.plugin_menu.load(path)
    win.document.apply(edits.set_strategy("Most spare time", {}))
    path.write_text("from workbench.api import criterion\n@criterion('Renamed')\ndef f(c):\n    return -c.price\n")
    assert win.plugin_menu.load(path) is None
    assert win.document.env.strategy.name == "FirstFit"
    assert win.strategy.name.currentText() == "FirstFit"
    wait_result(qtbot, win)
    assert win.document.error is None


def test_a_flow_rule_of_the_wrong_kind_is_refused_at_load_and_forgotten_at_restart(
    qtbot, window, tmp_path, monkeypatch
):
    """Issue 43 defect 13: a flow rule whose key is text loaded in the GUI and failed only when run;
    now it is refused when loaded, as the CLI refuses it. A remembered file that is refused at the
    next start is forgotten (not retried at every start, not offered in Compare), and the refusal is
    told in a message, not only the status bar."""
    from PySide6.QtWidgets import QMessageBox

    from workbench.gui.plugin_menu import tell_refusals

    win = window()
    text_key = "from workbench.api import flow_rule\n@flow_rule('Text key')\ndef k(job, now):\n    return 'x'\n"
    bad = _plugin(tmp_path, text_key, "key.py")
    refusal = win.plugin_menu.load(bad)
    assert refusal is not None and "Text key" in refusal and "expected a number" in refusal
    with pytest.raises(Exception, match="unknown strategy"):
        registry.get("Text key")
    # A good file remembered, then broken before the next start: refused then, and forgotten.
    good = _plugin(tmp_path, SPARE, "spare.py")
    assert win.plugin_menu.load(good) is None
    good.write_text(SPARE.replace("return c.params", "return [1.0] or c.params"))
    plugins.forget(str(good.resolve()))
    settings = QSettings("SlotWorkbench", "Slot Workbench")
    errors = load_remembered(settings)
    assert len(errors) == 1 and "spare.py" in errors[0] and "forgotten" in errors[0]
    assert remembered(settings) == []
    assert "Most spare time" not in {info.name for info in registry.strategies()}
    seen = []
    monkeypatch.setattr(QMessageBox, "open", lambda box: seen.append(box.text()))
    win.quiet = False
    tell_refusals(win, errors)
    win.quiet = True
    assert seen and "spare.py" in seen[0] and errors[0] in win.statusBar().currentMessage()
