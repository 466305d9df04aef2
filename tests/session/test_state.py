"""The view state without Qt: the selection by job id and the status of the result on screen."""

from __future__ import annotations

from pathlib import Path

from workbench.engine import registry
from workbench.engine.files import load_environment
from workbench.session import edits
from workbench.session.document import Document
from workbench.session.state import FAILED, FRESH, RUNNING, STALE, ViewState

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "sample_envs" / "tiny.json"
DEFAULT = ROOT / "sample_envs" / "default.json"


def _run(doc: Document) -> None:
    doc.set_result(doc.version, registry.run(doc.env, doc.env.strategy.name))


def test_the_selection_survives_runs_and_edits_and_ends_with_the_document():
    """A job stays selected through a run and an edit; deleting it or opening another document clears it."""
    doc = Document(load_environment(TINY), TINY)
    state = ViewState(doc)
    seen: list[object] = []
    state.selection_changed.connect(seen.append)
    state.select("j4")
    _run(doc)
    doc.apply(edits.reorder_job("j4", 0))
    assert state.job == "j4" and seen == ["j4"]
    doc.apply(edits.delete_job("j4"))
    assert state.job is None and seen == ["j4", None]
    doc.undo()
    state.select("j4")
    doc.replace_environment(load_environment(DEFAULT), DEFAULT)  # it has a j4 too: not the same job
    assert state.job is None


def test_the_status_says_whose_result_is_on_screen():
    """fresh after a run; stale (previous result on screen) after an edit; running; failed."""
    doc = Document(load_environment(TINY), TINY)
    state = ViewState(doc)
    statuses: list[str] = []
    state.status_changed.connect(statuses.append)
    _run(doc)
    assert state.status == FRESH and not state.stale
    doc.apply(edits.set_job("j1", volume=150.0))
    assert state.status == STALE and state.stale
    state.run_started()
    assert state.status == RUNNING and state.stale
    state.run_stopped()
    assert state.status == STALE and state.stale
    doc.set_result(doc.version, None, "no window")
    assert state.status == FAILED and not state.stale and state.shown is None
    _run(doc)
    doc.replace_environment(load_environment(DEFAULT), DEFAULT)
    assert state.status == STALE and not state.stale  # nothing of the other document is shown
    assert statuses == [FRESH, STALE, RUNNING, STALE, FAILED, FRESH, STALE]
