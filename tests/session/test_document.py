"""The document and its edits, without Qt: undo/redo, validation, files, autosave."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from workbench.engine.errors import ValidationError, WorkbenchError
from workbench.engine.files import load_environment
from workbench.session import edits
from workbench.session.document import Document, read_autosave

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "sample_envs" / "tiny.json"


def test_edit_undo_redo_moves_along_immutable_environments():
    """An edit gives a new environment, named for undo; undo brings back the very same original and clears
    modified, redo the edited one; each change is signalled."""
    doc = Document(load_environment(TINY), TINY)
    original = doc.env
    seen = []
    doc.events.environment.connect(seen.append)
    doc.apply(edits.move_task("t1", 30.0))
    moved = doc.env
    assert moved.local_tasks[0].start == 30.0 and moved.local_tasks[0].end == 50.0
    assert doc.modified and doc.undo_text == "move task t1"
    doc.undo()
    assert doc.env is original and not doc.modified and doc.redo_text == "move task t1"
    doc.redo()
    assert doc.env is moved
    assert seen == [moved, original, moved]


def test_a_new_edit_after_undo_drops_the_redo_branch():
    """A new edit after an undo drops the redo branch."""
    doc = Document(load_environment(TINY), TINY)
    doc.apply(edits.set_job("j1", budget=500.0))
    doc.undo()
    doc.apply(edits.set_job("j1", budget=600.0))
    assert not doc.can_redo and doc.env.job("j1").budget == 600.0


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (edits.set_job("j1", budget=-5.0), "budget"),
        (edits.set_job("j1", node_count=99), "node_count"),
        (edits.set_job("j1", actual_fraction=0.0), "actual_fraction"),
        (edits.set_node("n1", performance=-1.0), "performance"),
        (edits.set_task("t1", end=0.0), "end"),
        (edits.move_task("t1", 55.0), "start"),  # would overlap t2 on alpha
        (edits.add_task("n9", 0.0, 5.0), "node"),
        (edits.set_time(0.0, 0.0, 100.0), "cycle_length"),
        (edits.set_strategy("Nope"), "strategy"),
        (edits.set_strategy("CoP", {"alpha1": "x"}), "alpha1"),
    ],
)
def test_invalid_edits_are_refused_and_change_nothing(edit, field):
    """Each invalid edit is refused with a ValidationError naming the field, and the environment and undo stack
    are unchanged."""
    doc = Document(load_environment(TINY), TINY)
    before = doc.env
    with pytest.raises(ValidationError) as info:
        doc.apply(edit)
    assert info.value.path == field
    assert doc.env is before and not doc.can_undo


def test_structural_edits():
    """Nodes and jobs are added and deleted, a job reordered and a task added; a node is not deleted while a job
    needs more nodes than would remain; a deleted node's tasks go with it; a budget may be set infinite."""
    doc = Document(load_environment(TINY), TINY)
    doc.apply(edits.add_node(5.0, 2.0))
    doc.apply(edits.add_job(node_count=7, volume=50.0))
    assert len(doc.env.nodes) == 7 and doc.env.jobs[-1].node_count == 7
    with pytest.raises(ValidationError, match="needs 7 nodes"):
        doc.apply(edits.delete_node("n1"))
    doc.apply(edits.delete_job(doc.env.jobs[-1].id))
    doc.apply(edits.delete_node("n1"))
    assert all(t.node != "n1" for t in doc.env.local_tasks)
    doc.apply(edits.reorder_job("j3", 0))
    assert doc.env.jobs[0].id == "j3"
    doc.apply(edits.add_task("n2", 40.0, 50.0, "maintenance"))
    assert doc.env.local_tasks[-1].kind == "maintenance"
    doc.apply(edits.set_job("j2", budget=math.inf))
    assert math.isinf(doc.env.job("j2").budget)


def test_save_open_round_trip_and_a_bad_file_leaves_the_document(tmp_path):
    """A saved document is no longer modified and opens equal; a file of an unknown version is refused, leaving
    the document and its path as they were."""
    doc = Document(load_environment(TINY), TINY)
    doc.apply(edits.set_job("j1", budget=321.0))
    path = tmp_path / "saved.json"
    doc.save(path)
    assert not doc.modified and doc.path == path
    other = Document()
    other.open(path)
    assert other.env == doc.env
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "workbench.environment", "version": 2}')
    before = other.env
    with pytest.raises(ValidationError, match="version"):
        other.open(bad)
    assert other.env is before and other.path == path


def test_save_without_a_name_is_an_error():
    """Saving a document that has no file name is an error that points to Save As."""
    with pytest.raises(WorkbenchError, match="Save As"):
        Document().save()


def test_autosave_round_trip(tmp_path):
    """An autosave of an edited document reads back as the edited environment and the original path."""
    doc = Document(load_environment(TINY), TINY)
    doc.apply(edits.set_job("j2", volume=55.0))
    doc.write_autosave(tmp_path / "auto" / "autosave.json")
    env, original = read_autosave(tmp_path / "auto" / "autosave.json")
    assert env == doc.env and original == TINY


def test_stale_results_are_ignored():
    """A result for an older version is ignored; one for the current version is taken, with its error."""
    doc = Document(load_environment(TINY), TINY)
    version = doc.version
    doc.apply(edits.set_job("j1", budget=300.0))
    assert not doc.set_result(version, None)
    assert doc.set_result(doc.version, None, "boom") and doc.error == "boom"
