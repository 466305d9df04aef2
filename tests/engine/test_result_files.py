"""Result files (issue 45): written as JSON or in the container, read back without running again,
and reporting a dynamic run's work."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.engine import registry
from workbench.engine.errors import WorkbenchError
from workbench.engine.files import load_environment, save_environment
from workbench.engine.io.result import result_text, schedule_to_dict, work_of
from workbench.engine.io.result_files import is_result_file, load_result, save_result
from workbench.engine.metrics import flow_metrics

SAMPLES = Path(__file__).resolve().parents[2] / "sample_envs"


def _same_schedule(a, b) -> None:
    assert [w.job for w in a.windows] == [w.job for w in b.windows]
    assert a.windows == b.windows
    assert a.unscheduled == b.unscheduled and a.reasons == b.reasons
    for w in a.windows:
        assert (
            a.actual_ends.get(w.job, None) == pytest.approx(b.actual_ends.get(w.job, None))
            or w.job not in a.actual_ends
        )


@pytest.mark.parametrize(
    ("sample", "strategy"), [("backfill32.json", "FirstFit"), ("grid32.json", None), ("default.json", "EASY")]
)
@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_a_result_reads_back_as_the_schedule_it_was_written_from(tmp_path, sample, strategy, suffix):
    """Windows, rough edges, multi-site overheads, jobs left out with their reasons, actual ends and
    the measures come back equal, from JSON (which names its environment) and from the container."""
    env = load_environment(SAMPLES / sample)
    name = strategy or env.strategy.name
    schedule = registry.run(env, name, env.strategy.params_dict() if strategy is None else {})
    env_path = tmp_path / "env.json"
    save_environment(env, env_path)
    out = tmp_path / f"result{suffix}"
    save_result(env, schedule, out, environment=str(env_path))
    assert is_result_file(out)
    env2, back = load_result(out, load_environment)
    assert env2 == env
    _same_schedule(schedule, back)
    got, want = flow_metrics(env2, back).as_dict(), flow_metrics(env, schedule).as_dict()
    for key, value in want.items():
        if isinstance(value, dict):
            assert got[key] == pytest.approx(value), key
        else:
            assert got[key] == pytest.approx(value, nan_ok=True), key
    assert back.strategy == schedule.strategy


def test_the_fast_json_writer_writes_the_document_json_dumps_writes():
    """``result_text`` is ``json.dumps(doc, indent=2)`` in meaning, with long lists one entry per line."""
    env = load_environment(SAMPLES / "backfill32.json")
    doc = schedule_to_dict(env, registry.run(env, "FirstFit", {}), environment="env.json")
    text = result_text(doc)
    assert json.loads(text) == json.loads(json.dumps(doc))
    assert text.count("\n") >= len(doc["windows"])  # one window per line, not one long line


def test_a_dynamic_run_reports_its_work_and_a_one_pass_run_none():
    """`work` counts early completions, re-checks, searches and moves; EASY plans each job once."""
    env = load_environment(SAMPLES / "backfill32.json")
    env = dataclasses.replace(env, jobs=tuple(dataclasses.replace(j, actual_fraction=0.5) for j in env.jobs))
    work = work_of(registry.run(env, "FirstFit", {}))
    assert work is not None and set(work) == {"early", "checks", "searches", "moves"}
    assert work["searches"] >= len(env.jobs) and work["early"] > 0 and work["moves"] > 0
    doc = schedule_to_dict(env, registry.run(env, "EASY", {}))
    assert doc["work"] is None


def test_a_json_result_without_its_environment_is_refused_in_one_line(tmp_path):
    """A result that names no environment cannot be opened again: the message says so."""
    env = load_environment(SAMPLES / "tiny.json")
    doc = schedule_to_dict(env, registry.run(env, "FirstFit", {}))
    (tmp_path / "r.json").write_text(json.dumps(doc))
    with pytest.raises(WorkbenchError, match=r"\$\.environment: missing"):
        load_result(tmp_path / "r.json", load_environment)
    with pytest.raises(WorkbenchError, match="not a result"):
        load_result(SAMPLES / "tiny.json", load_environment)


def test_schedule_out_refuses_an_unknown_suffix_before_running(tmp_path):
    """`schedule --out r.parquet` says which suffixes it writes, exits 2 at once, and writes nothing."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "schedule",
            str(SAMPLES / "tiny.json"),
            "--out",
            str(tmp_path / "r.parquet"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    assert ".json (text) or .npz" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r.parquet").exists()


def test_workbench_metrics_reports_the_work_in_csv_and_json(tmp_path):
    """`workbench metrics` lists work.early … work.moves after the summary for a dynamic run, and
    `-o x.json` holds them under "work"."""
    env = load_environment(SAMPLES / "backfill32.json")
    env = dataclasses.replace(env, jobs=tuple(dataclasses.replace(j, actual_fraction=0.5) for j in env.jobs))
    path = tmp_path / "early.json"
    save_environment(env, path)
    run = [sys.executable, "-m", "workbench", "metrics", str(path), "--strategy", "FirstFit"]
    text = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    rows = {line.split(",")[0]: line.split(",")[1] for line in text.splitlines()[1:]}
    expected = work_of(registry.run(env, "FirstFit", {}))
    assert {key: int(rows[f"work.{key}"]) for key in expected} == expected
    subprocess.run([*run, "-o", str(tmp_path / "m.json")], check=True)
    assert json.loads((tmp_path / "m.json").read_text())["work"] == expected
