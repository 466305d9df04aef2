"""A study's database, report and export name the definition each measure follows (docs/metrics.md)."""

from __future__ import annotations

import csv
import dataclasses
import json
import sqlite3

import pytest

from workbench.cli import main
from workbench.engine.errors import ParameterError
from workbench.engine.metrics import DEFINITIONS_VERSION, definition
from workbench.lab.catalogue import added, get_study
from workbench.lab.database import FILE, Database
from workbench.lab.runner import run_study
from workbench.lab.study import Factor, RunSpec, Study, checked


def _run(spec: RunSpec) -> dict[str, float]:
    return {"makespan": 10.0 * spec.seed, "odd": 1.0}


TINY = Study(
    "tiny-defs", "tiny", "test", "test", (("A", "FirstFit", {}),), (Factor("k", (1,)),), 2,
    {"makespan": "last finish", "odd": "a paper's own measure"}, _run, definitions={"makespan": "makespan"},
)  # fmt: skip


def test_the_database_report_and_export_name_each_measures_definition(tmp_path, capsys):
    """A study's database records each measure's definition (a study's own measure as its own), and the exported
    CSV and the report give the same definitions."""
    with added(TINY):
        run_study("tiny-defs", 2, 1, None, tmp_path)
        with Database(tmp_path, "", create=False) as db:
            recorded = db.definitions()
        assert recorded["makespan"] == definition("makespan").text() and DEFINITIONS_VERSION in recorded["makespan"]
        assert recorded["odd"] == "this study's own: a paper's own measure"
        assert main(["lab", "export", str(tmp_path)]) == 0
        with open(tmp_path / "results.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        assert {r["measure"]: r["definition"] for r in rows} == recorded
        report = main(["lab", "report", str(tmp_path)])
    assert report == 0
    text = (tmp_path / "report.md").read_text()
    assert f"- `makespan`: {recorded['makespan']}" in text and "- `odd`: this study's own" in text


def test_a_database_of_other_definitions_is_not_resumed(tmp_path, capsys):
    """A run folder whose measures followed other definitions (or none were recorded) is refused by
    name, and nothing in it changes."""
    with added(TINY):
        run_study("tiny-defs", 1, 1, None, tmp_path)
    changed = dataclasses.replace(TINY, definitions={"makespan": "mean_finish"})
    with added(changed):
        before = (tmp_path / FILE).read_bytes()
        assert main(["lab", "run", "tiny-defs", "--reps", "2", "--out", str(tmp_path)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "other definitions (of makespan)" in err
        assert (tmp_path / FILE).read_bytes() == before
        with sqlite3.connect(tmp_path / FILE) as conn:  # as a database made before definitions were recorded
            conn.execute("DELETE FROM meta WHERE key = 'definitions'")
        with pytest.raises(ParameterError, match="before measures named their definitions"):
            run_study("tiny-defs", 2, 1, None, tmp_path)


def test_every_shipped_study_names_known_definitions():
    """The shipped studies that use the flow's measures say which definition; the utilisation of
    backfilling and traces is the one over the machine's capacity."""
    for name in ("backfilling", "traces"):
        defs = get_study(name).measure_definitions()
        assert defs["utilisation"] == definition("utilisation").text()
    assert get_study("grid").definitions["bounded_slowdown"] == "grid_bounded_slowdown"
    with pytest.raises(ValueError, match="unknown"):
        checked(dataclasses.replace(TINY, definitions={"makespan": "nope"}))
    assert json.dumps(get_study("css").measure_definitions())  # every measure has a line
