"""The `traces` study and the benchmarks find their workloads as a user gets them: the archive's
log through `workbench traces get`, the Lublin–Feitelson workload generated here; a study with a
failed run exits non-zero, resumed or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cli import main
from workbench.engine.errors import ParameterError
from workbench.lab import sources
from workbench.lab.catalogue import added
from workbench.lab.database import FILE
from workbench.lab.runner import run_study
from workbench.lab.studies.traces import _trace_env
from workbench.lab.study import Factor, RunSpec, Study


def test_the_traces_study_without_its_log_fails_at_once_naming_traces_get(archive, tmp_path, capsys):
    """An empty cache: one line naming the command, exit 2, and no run recorded (no database made)."""
    out = tmp_path / "runs"
    assert main(["lab", "run", "traces", "--set", "jobs=1000", "--workers", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "`workbench traces get KTH-SP2`" in err and "not in" in err, err
    assert not (out / FILE).exists()


def test_the_traces_study_runs_after_traces_get(archive, tmp_path, capsys):
    """`traces get` puts the log in the cache (here a two-job stand-in); the study then reads it."""
    assert main(["traces", "get", "KTH-SP2"]) == 0
    out = tmp_path / "runs"
    argv = ["lab", "run", "traces", "--set", "trace=KTH-SP2", "--set", "jobs=1000", "--workers", "1"]
    assert main([*argv, "--out", str(out)]) == 0
    assert "3 of 3 runs" in capsys.readouterr().out
    env = _trace_env("KTH-SP2", 1000)
    assert len(env.jobs) == 2 and len(env.nodes) == 100  # the stand-in's jobs, on KTH's 100 nodes


def test_the_lublin_workload_is_generated_seeded_without_any_file(archive):
    """No trace anywhere: the Lublin–Feitelson workload is made by the generator, the same each time."""
    one = sources.lublin_environment()
    two = sources.lublin_environment()
    assert len(one.jobs) == 10_000 and len(one.nodes) == 256
    assert one.jobs == two.jobs
    assert _trace_env("Lublin-256", 200).jobs == one.jobs[:200]


def test_the_benchmarks_read_the_cache_or_a_named_folder(archive, tmp_path):
    """`bench --traces DIR` reads DIR; without it, the cache; a missing log names what to do."""
    with pytest.raises(ParameterError, match=r"workbench traces get NASA-iPSC"):
        sources.trace_file("NASA-iPSC")
    with pytest.raises(ParameterError, match=r"--traces: .*not found"):
        sources.trace_file("KTH-SP2", tmp_path)
    assert main(["traces", "get", "KTH-SP2"]) == 0
    assert sources.trace_file("KTH-SP2").parent.name == "traces"
    assert len(sources.trace_environment("KTH-SP2", 4).jobs) == 2
    assert main(["bench", "--only", "saturation"]) == 2  # NASA is not fetched: refused before any run


def _half_broken(spec: RunSpec) -> dict[str, float]:
    if spec.seed == 2 and not Path(spec.factor("fixed")).exists():
        raise ValueError("seed 2 needs its file")
    return {"x": float(spec.seed)}


def test_a_study_with_a_failed_run_exits_non_zero_and_a_resume_runs_it_again(tmp_path, capsys):
    """The failed run is recorded and the exit is 1; resuming without a fix fails again (exit 1);
    once fixed, the same command runs only the failed run and exits 0."""
    fixed = tmp_path / "fixed"
    study = Study(
        "half", "half", "test", "test", (("A", "FirstFit", {}),), (Factor("fixed", (str(fixed),)),), 3,
        {"x": "x"}, _half_broken,
    )  # fmt: skip
    argv = ["lab", "run", "half", "--workers", "1", "--out", str(tmp_path / "runs")]
    with added(study):
        assert main(argv) == 1
        assert "1 of 3 runs failed" in capsys.readouterr().err
        assert main(argv) == 1  # resumed: the earlier failure still counts
        fixed.write_text("")
        assert main(argv) == 0
        assert "3 of 3 runs" in capsys.readouterr().out
        assert run_study("half", 3, 1, None, tmp_path / "runs").failed == 0


def test_bench_plugins_reports_each_criterion_against_firstfit(monkeypatch):
    """`workbench bench --only plugins` times FirstFit, MinLSum and plug-ins on one flow and reports
    each one's ratio to FirstFit (here on a small generated stand-in for the KTH log)."""
    from workbench.engine.generate import generate
    from workbench.lab import plugins_bench

    small = generate("backfill32", 1, jobs=40)
    monkeypatch.setattr(plugins_bench, "trace_environment", lambda *args: small)
    lines: list[str] = []
    plugins_bench.run_plugins(lines.append, None, limit_s=60.0)
    rows = {line[:28].strip(): line[28:].split() for line in lines[2:]}  # label, then the figures
    assert set(rows) == {label for label, _ in plugins_bench.RUNS}
    ratios = {label: float(cells[1]) for label, cells in rows.items()}
    assert ratios["FirstFit"] == 1.0 and all(r > 0 for r in ratios.values())
    assert all(cells[-1] in ("✔", "✘") for label, cells in rows.items() if label != "FirstFit")
    from workbench.engine import registry

    assert not [s for s in registry.strategies() if s.name.startswith("bench:")]  # forgotten after
