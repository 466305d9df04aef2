"""The `workbench` command: JSON results, one-line errors with exit code 2, deterministic presets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.engine import registry
from workbench.engine.files import load_environment

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "sample_envs" / "tiny.json"


def test_schedule_writes_the_design_json(tmp_path, capsys):
    """`schedule` writes strategy, the environment file it ran on, windows with actual_end,
    unscheduled, reasons, metrics (and the definitions they follow), the run's work, elapsed_ms."""
    out = tmp_path / "r.json"
    assert main(["schedule", str(TINY), "--strategy", "MinCost", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    keys = {"strategy", "environment", "windows", "unscheduled", "reasons", "metrics", "metric_definitions", "work"}
    assert set(doc) == {*keys, "elapsed_ms", "prepare_ms"}  # the kernels' preparation, apart from the run's time
    assert (out.parent / doc["environment"]).resolve() == TINY.resolve() and doc["work"] is not None
    assert doc["strategy"] == "MinCost"
    direct = registry.run(load_environment(TINY), "MinCost")
    assert [(w["job"], w["start"], w["length"], tuple(w["nodes"])) for w in doc["windows"]] == [
        (w.job, w.start, w.length, w.nodes) for w in direct.windows
    ]
    for w in doc["windows"]:
        assert set(w) == {"job", "start", "length", "nodes", "cost", "actual_end"}
    assert doc["metrics"]["placed"] == len(doc["windows"])
    assert doc["elapsed_ms"] >= 0 and doc["prepare_ms"] >= 0


def test_schedule_params_are_applied(capsys):
    """--param reaches the strategy (MultipleBest by q differs from by start)."""
    assert main(["schedule", str(TINY), "--strategy", "MultipleBest", "--param", "by=start"]) == 0
    by_start = json.loads(capsys.readouterr().out)
    assert main(["schedule", str(TINY), "--strategy", "MultipleBest", "--param", "by=coord"]) == 0
    by_coord = json.loads(capsys.readouterr().out)
    assert by_start["windows"] != by_coord["windows"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["schedule", str(TINY), "--strategy", "Nope"], "unknown strategy 'Nope'"),
        (["schedule", str(TINY), "--strategy", "CoP", "--param", "gamma=1"], "gamma: unknown parameter of CoP"),
        (["schedule", str(TINY), "--strategy", "CoP", "--param", "alpha1=x"], "alpha1: expected a finite number"),
        (["schedule", str(TINY), "--strategy", "MultipleBest", "--param", "max_alternatives=0"], "must be ≥ 1"),
        (["schedule", str(TINY), "--param", "oops"], "expected key=value"),
        (["schedule", "/nonexistent/env.json"], "no such file"),
        (["generate", "nope", "-o", "x.json"], "unknown preset 'nope'"),
    ],
)
def test_errors_are_one_line_with_exit_2(args, words, capsys):
    """Bad input gives one clear line on stderr and exit code 2."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_malformed_environment_names_the_path(tmp_path, capsys):
    """An environment file with a negative job volume stops `schedule` with exit code 2, and the error names the
    field's path, $.jobs[1].volume."""
    bad = json.loads(TINY.read_text())
    bad["jobs"][1]["volume"] = -3
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert main(["schedule", str(path)]) == 2
    assert "$.jobs[1].volume" in capsys.readouterr().err


def test_no_traceback_unless_debug(tmp_path):
    """The real process prints no traceback; --debug does."""
    cmd = [sys.executable, "-m", "workbench", "schedule", str(TINY), "--strategy", "Nope"]
    plain = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
    debug = subprocess.run([*cmd, "--debug"], capture_output=True, text=True, timeout=120)
    assert debug.returncode != 0 and "Traceback" in debug.stderr


def test_generate_is_deterministic(tmp_path, capsys):
    """Same preset and seed give byte-identical files; another seed differs."""
    for name in ("a", "b"):
        assert main(["generate", "vo24", "--seed", "5", "-o", str(tmp_path / f"{name}.json")]) == 0
    assert main(["generate", "vo24", "--seed", "6", "-o", str(tmp_path / "c.json")]) == 0
    a, b, c = ((tmp_path / f"{n}.json").read_bytes() for n in "abc")
    assert a == b and a != c


def test_generate_presets_match_the_papers(tmp_path):
    """vo24: 24 nodes p in [2,10], 20 jobs, interval 600; window100: 100 nodes, one job n=7 V=800 C=644."""
    assert main(["generate", "vo24", "--seed", "1", "-o", str(tmp_path / "v.json")]) == 0
    env = load_environment(tmp_path / "v.json")
    assert len(env.nodes) == 24 and len(env.jobs) == 20 and env.time.horizon == 600
    assert all(2 <= n.performance <= 10 for n in env.nodes)
    assert main(["generate", "window100", "--seed", "1", "-o", str(tmp_path / "w.json")]) == 0
    env = load_environment(tmp_path / "w.json")
    (job,) = env.jobs
    assert len(env.nodes) == 100 and (job.node_count, job.volume, job.budget) == (7, 800, 644)
    assert all(0 <= n.attribute("q") <= 10 for n in env.nodes)
    for node in env.nodes:  # initial load up to 30 %
        busy = sum(t.end - t.start for t in env.local_tasks if t.node == node.id)
        assert busy <= 0.3 * 1200 + 1e-9
    assert main(["generate", "backfill32", "--seed", "1", "--set", "jobs=200", "-o", str(tmp_path / "b.json")]) == 0
    env = load_environment(tmp_path / "b.json")
    assert len(env.nodes) == 32 and len(env.jobs) == 200
    assert all(1 <= j.node_count <= 8 and 60 <= j.volume <= 1200 for j in env.jobs)
    assert all(2 <= n.performance <= 16 for n in env.nodes)


def test_strategies_verbose_explains_each_shared_parameter_once(capsys):
    """Issue 44 defect 6: `strategies -v` repeated the same help for every selector. A parameter
    many strategies share is explained once; each strategy still names it with its default."""
    from workbench.engine import registry

    assert main(["strategies", "-v"]) == 0
    out = capsys.readouterr().out
    helps = {p.help for info in registry.strategies() for p in info.params}
    assert helps and all(out.count(text) <= 1 for text in helps), [t for t in helps if out.count(t) > 1][:2]
    assert all(out.count(f"{p.name}=") >= 1 for info in registry.strategies() for p in info.params)
    first_fit = out.split("\nAMP")[0]
    assert "dynamic=True" in first_fit and "max_cycles=200" in first_fit


def test_strategies_lists_the_registry(capsys):
    """`strategies` lists each built-in strategy from FirstFit to MultipleBest, each name at the start of a
    line."""
    assert main(["strategies"]) == 0
    out = capsys.readouterr().out
    for name in (
        "FirstFit",
        "MinFinish",
        "MinCost",
        "MinRunTime",
        "MaxQ",
        "MaxQ Lite",
        "DEP",
        "DEP Lite",
        "COORD",
        "COORD Lite",
        "BFstart",
        "BFfinish",
        "BFshort",
        "PAST",
        "CoP",
        "MultipleBest",
    ):
        assert f"\n{name} " in "\n" + out


def test_sample_environments_load():
    """Every bundled sample is valid."""
    for path in (ROOT / "sample_envs").glob("*.json"):
        assert load_environment(path).nodes


def test_simulate_prints_one_line_per_snapshot(capsys):
    """`simulate` under BSF prints a line per snapshot: the first is step 1 and names a start, the last names
    the end."""
    assert main(["simulate", str(TINY), "--strategy", "BSF"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].lstrip().startswith("1 ") and "start" in lines[0]
    assert "end:" in lines[-1]


def test_simulate_json_and_cycle_limit(tmp_path, capsys):
    """--out writes every step; --cycles bounds a cyclic run (and an event-driven one by steps)."""
    from dataclasses import replace

    from workbench.engine.io.envfile import save_environment
    from workbench.engine.model import TimeSettings

    env = load_environment(TINY)
    endless = replace(env, time=TimeSettings(0.0, 10.0, None))
    path = tmp_path / "endless.json"
    save_environment(endless, path)
    out = tmp_path / "steps.json"
    assert main(["simulate", str(path), "--strategy", "CSS", "--cycles", "3", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["strategy"] == "CSS"
    cycles = {s["cycle"] for s in doc["steps"] if s["cycle"] is not None}
    assert cycles and max(cycles) <= 2
    assert {"step", "time", "label", "queue", "batch", "placed", "failed", "metrics"} <= set(doc["steps"][0])
    assert main(["simulate", str(TINY), "--strategy", "EASY", "--cycles", "2", "--out", str(out)]) == 0
    assert len(json.loads(out.read_text())["steps"]) == 2


def test_import_swf_writes_an_environment_and_reports_left_out_jobs(tmp_path, capsys):
    """`import-swf` writes a loadable environment on the nodes asked for and names on stderr each line left out
    (a job too wide, a line of 3 fields); --nodes 0 is one line and exit code 2."""
    out = tmp_path / "env.json"
    assert main(["import-swf", str(ROOT / "sample_envs" / "sample16.swf"), "--nodes", "8", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    env = load_environment(out)
    assert len(env.nodes) == 8 and env.jobs
    assert "left out: line" in captured.err and "asks for 16 nodes; there are 8" in captured.err
    bad = tmp_path / "bad.swf"
    bad.write_text("; x\n1 2 3\n")
    assert main(["import-swf", str(bad), "--nodes", "4", "-o", str(out)]) == 0
    assert "left out: line 2: has 3 fields; an SWF line has 18" in capsys.readouterr().err
    assert load_environment(out).jobs == ()  # what it wrote loads
    assert main(["import-swf", str(bad), "--nodes", "0", "-o", str(out)]) == 2
    assert "--nodes: must be from 1 to 100,000, got 0" in capsys.readouterr().err


def test_import_swf_on_heterogeneous_nodes(tmp_path, capsys):
    """--performance LO:HI draws integer performances (seeded); price follows performance; V = requested time."""
    trace = ROOT / "sample_envs" / "sample16.swf"
    out = tmp_path / "mixed.json"
    args = ["import-swf", str(trace), "--nodes", "16", "--performance", "1:4", "--seed", "7", "-o", str(out)]
    assert main(args) == 0
    env = load_environment(out)
    perf = [n.performance for n in env.nodes]
    assert set(perf) <= {1.0, 2.0, 3.0, 4.0} and len(set(perf)) > 1
    assert all(n.price == n.performance for n in env.nodes)
    identical = tmp_path / "same.json"
    assert main(["import-swf", str(trace), "--nodes", "16", "-o", str(identical)]) == 0
    plain = load_environment(identical)
    assert [j.volume for j in env.jobs] == [j.volume for j in plain.jobs]  # the trace machine's performance, 1
    assert all(j.min_performance == 1.0 for j in env.jobs)
    again = tmp_path / "again.json"
    assert main([*args[:-1], str(again)]) == 0
    assert [n.performance for n in load_environment(again).nodes] == perf  # the seed fixes the draw
    assert main([*args[:2], "--nodes", "16", "--performance", "4:1", "-o", str(out)]) == 2
    assert "--performance: expected LO:HI with 1 ≤ LO ≤ HI" in capsys.readouterr().err
    assert main([*args[:2], "--nodes", "16", "--performance", "x", "-o", str(out)]) == 2
    assert main([*args[:2], "--nodes", "16", "--performance", "1:2", "--perf", "2", "-o", str(out)]) == 2
    assert "not both" in capsys.readouterr().err


def test_schedule_runs_flow_strategies(capsys):
    """`schedule` runs the flow strategies EASY, CSS, Batch-slicer and BSF, each writing JSON with its name and
    windows."""
    for name in ("EASY", "CSS", "Batch-slicer", "BSF"):
        assert main(["schedule", str(TINY), "--strategy", name]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["strategy"] == name and doc["windows"]


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("nodes=abc", "nodes: expected a whole number, got 'abc'"),
        ("nodes=1000000000", "nodes: must be from 1 to 100,000"),
        ("interval=nan", "interval: expected a finite number"),
        ("jobs=" + "9" * 5000, "jobs: expected a whole number"),
    ],
)
def test_generate_refuses_absurd_settings_in_one_line(tmp_path, capsys, setting, words):
    """`generate --set` values are numbers inside the file limits, or one clear line and exit 2."""
    out = tmp_path / "env.json"
    assert main(["generate", "vo24", "--set", setting, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and len(err) < 300
    assert not out.exists()


def test_help_texts_speak_plainly_and_cite_authors(capsys):
    """Strategy descriptions are in words a user understands, each citing its paper by
    authors and title; n_high = -1 is explained."""
    from workbench.engine import registry

    for info in registry.strategies():
        assert "[" in info.description and "seed 00" not in info.description
        assert any(name in info.description for name in ("Toporkov", "Franke")), info.name
        assert not info.description.startswith("(")
    n_high = next(p for p in registry.get("BSF").params if p.name == "n_high")
    assert "-1 means" in n_high.help
    assert main(["strategies"]) == 0 and "Toporkov" in capsys.readouterr().out


def test_import_swf_onto_a_grid(tmp_path, capsys):
    """--grid maps a trace onto a seed 004 configuration: sites round robin, modifications, --compress."""
    trace = ROOT / "sample_envs" / "sample16.swf"
    out = tmp_path / "grid.json"
    plain = tmp_path / "plain.json"
    assert main(["import-swf", str(trace), "--nodes", "512", "-o", str(plain)]) == 0
    args = ["import-swf", str(trace), "--grid", "m128-4", "--compress", "2", "-o", str(out)]
    assert main(args) == 0
    assert "on grid m128-4 (4 sites, 512 nodes)" in capsys.readouterr().out
    env, source = load_environment(out), load_environment(plain)
    assert env.site_ids == ("m1", "m2", "m3", "m4") and {n.site for n in env.nodes} == set(env.site_ids)
    assert [j.site for j in env.jobs[:5]] == ["m1", "m2", "m3", "m4", "m1"]
    assert [j.arrival for j in env.jobs] == [j.arrival / 2 for j in source.jobs]
    assert env.strategy.name == "Job sharing"
    split = tmp_path / "split.json"
    assert main(["import-swf", str(trace), "--grid", "8,8", "--modification", "3", "-o", str(split)]) == 0
    assert max(j.node_count for j in load_environment(split).jobs) <= 16
    for bad, words in (
        (["--grid", "m100"], "--grid: expected one of m64-18"),
        (["--grid", "m128-4", "--modification", "5"], "--modification: expected 1, 2 or 3"),
        (["--grid", "m128-4", "--compress", "-1"], "--compress: expected a number > 0"),
        (["--compress", "2", "--nodes", "4"], "give --grid CONFIG"),
        (["--grid", "m128-4", "--nodes", "4"], "leave out --nodes"),
    ):
        assert main(["import-swf", str(trace), *bad, "-o", str(tmp_path / "x.json")]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


def test_generate_lublin_on_a_machine_and_on_a_grid(tmp_path, capsys):
    """The lublin preset generates jobs on one machine (--nodes) or on a grid's sites, each job fitting its
    site; Multi-site schedules the grid and reports awrt and the multi-site jobs; --nodes with --grid, --jobs on
    another preset and a negative overhead are refused."""
    one = tmp_path / "one.json"
    assert main(["generate", "lublin", "--jobs", "300", "--nodes", "64", "--seed", "4", "-o", str(one)]) == 0
    env = load_environment(one)
    assert len(env.jobs) == 300 and len(env.nodes) == 64 and not env.site_ids
    assert max(j.node_count for j in env.jobs) <= 64
    grid = tmp_path / "grid.json"
    args = ["generate", "lublin", "--jobs", "300", "--grid", "m64-18", "--modification", "1", "--seed", "4"]
    assert main([*args, "-o", str(grid)]) == 0
    assert "on 18 sites" in capsys.readouterr().out
    env = load_environment(grid)
    assert len(env.site_ids) == 18 and len(env.jobs) >= 300
    size = {s: sum(n.site == s for n in env.nodes) for s in env.site_ids}
    assert all(j.node_count <= size[j.site] for j in env.jobs)  # modification 1: local machine size
    assert main(["schedule", str(grid), "--strategy", "Multi-site", "--param", "overhead=0.3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "awrt" in doc["metrics"] and "multi_site_jobs" in doc["metrics"] and not doc["unscheduled"]
    multi = [w for w in doc["windows"] if w.get("overhead")]
    assert len(multi) == doc["metrics"]["multi_site_jobs"]
    assert main(["generate", "lublin", "--nodes", "64", "--grid", "m64-8", "-o", str(one)]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["generate", "vo24", "--jobs", "5", "-o", str(one)]) == 2
    assert "--jobs: only the lublin preset takes it" in capsys.readouterr().err
    assert main(["schedule", str(grid), "--strategy", "Multi-site", "--param", "overhead=-0.5"]) == 2
    assert "overhead: must be ≥ 0" in capsys.readouterr().err


def test_what_users_read_names_papers_by_authors_and_plain_words():
    """Strategy descriptions, parameter help and the About box cite papers by authors and title with
    their section, never by the project's internal file numbers ("seed 002"), a design document or
    jargon such as "DP"; the grid's refusal of mixed nodes names the paper the same way."""
    import re

    from workbench.engine import registry
    from workbench.engine.errors import WorkbenchError
    from workbench.engine.model import Environment, Job, Node, TimeSettings

    jargon = re.compile(r"\bseed \d|DESIGN\.md|docs/|\bDP\b")
    texts = [info.description for info in registry.strategies()]
    texts += [param.help for info in registry.strategies() for param in info.params]
    assert not [t for t in texts if jargon.search(t)]
    cited = "[Toporkov & Yemelyanov, dependable and coordinated allocation, §4.2]"
    assert cited in registry.get("FirstFit").description
    nodes = (Node("a", "a", 1.0, 1.0), Node("b", "b", 2.0, 1.0))
    env = Environment(nodes, (), (Job("j", "j", 1, 0.0, 1.0),), TimeSettings(0.0, None, None), "mixed")
    with pytest.raises(WorkbenchError) as info:
        registry.run(env, "Local")
    assert "Franke, Schwiegelshohn & Yahyapour" in str(info.value) and not jargon.search(str(info.value))


def test_import_swf_takes_the_header_nodes_a_gz_trace_and_a_selection(tmp_path, capsys):
    """Without --nodes the header's MaxNodes is the machine; a .swf.gz reads directly; --first,
    --from/--to and --skip-status choose the jobs (the summary counts those not selected); a Batsim
    workload (.json) imports the same way; a bad selection is one line and exit 2."""
    import gzip

    packed = tmp_path / "sample16.swf.gz"
    packed.write_bytes(gzip.compress((ROOT / "sample_envs" / "sample16.swf").read_bytes()))
    out = tmp_path / "env.json"
    assert main(["import-swf", str(packed), "-o", str(out)]) == 0
    assert "60 jobs on 16 nodes, 0 left out" in capsys.readouterr().out
    every = load_environment(out)
    args = ["import-swf", str(packed), "--from", "1000", "--to", "20000", "--first", "5", "--skip-status"]
    assert main([*args, "-o", str(out)]) == 0
    assert "5 jobs on 16 nodes, 0 left out; 55 not selected" in capsys.readouterr().out
    assert load_environment(out).jobs == tuple(j for j in every.jobs if 1000 <= j.arrival < 20000)[:5]
    workload = tmp_path / "w.json"
    assert main(["export", str(out), "--format", "batsim", "-o", str(workload)]) == 0
    again = tmp_path / "again.json"
    assert main(["import-swf", str(workload), "-o", str(again)]) == 0
    assert [j.id for j in load_environment(again).jobs] == [j.id for j in load_environment(out).jobs]
    assert main(["import-swf", str(packed), "--from", "5", "--to", "5", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--to: expected a time after --from (5), got 5" in err and err.count("\n") == 1


def test_export_writes_swf_and_batsim_formats(tmp_path, capsys):
    """`export -o F.swf` writes the schedule as a trace; `--format batsim` writes jobs.csv for .csv and
    the workload for .json; other pairs are one line and exit 2."""
    import csv

    trace = ROOT / "sample_envs" / "sample16.swf"
    env_path = tmp_path / "env.json"
    assert main(["import-swf", str(trace), "-o", str(env_path)]) == 0
    swf = tmp_path / "s.swf"
    assert main(["export", str(env_path), "--strategy", "EASY", "-o", str(swf)]) == 0
    assert "; Note: the schedule of EASY on" in swf.read_text()
    jobs = tmp_path / "jobs.csv"
    assert main(["export", str(env_path), "--strategy", "EASY", "--format", "batsim", "-o", str(jobs)]) == 0
    with jobs.open() as rows:
        first = next(csv.DictReader(rows))
    assert first["job_id"] == "1" and first["final_state"] == "COMPLETED_SUCCESSFULLY"
    plain = tmp_path / "plain.csv"
    assert main(["export", str(env_path), "--strategy", "EASY", "-o", str(plain)]) == 0
    assert plain.read_text().startswith("job,name,status")  # the workbench's own CSV stays the default
    capsys.readouterr()  # (a cold kernel cache announced its compile above)
    for bad, words in (
        (["--format", "batsim", "-o", str(tmp_path / "x.swf")], "--format: batsim writes jobs.csv"),
        (["--format", "batsim", "-o", str(tmp_path / "x.png")], "--format: batsim writes jobs.csv"),
        (["-o", str(tmp_path / "x.txt")], "the suffix picks the format"),
    ):
        assert main(["export", str(env_path), *bad]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


def test_metrics_prints_the_summary_and_the_per_node_rows_only_on_request(capsys):
    """Issue 44 defect 6: `workbench metrics` printed 323 lines on KTH. It prints the flow's
    measures; `--nodes` adds the per-node rows after them, the flow's rows unchanged."""
    assert main(["metrics", str(TINY), "--strategy", "EASY"]) == 0
    flow = capsys.readouterr().out.splitlines()
    assert main(["metrics", str(TINY), "--strategy", "EASY", "--nodes"]) == 0
    every = capsys.readouterr().out.splitlines()
    assert every[: len(flow)] == flow and len(every) > len(flow)
    assert all("[" in line.split(",", 1)[0] for line in every[len(flow) :])
    assert not any("[" in line.split(",", 1)[0] for line in flow)
    assert flow[0] == "measure,value,definition" and any(line.startswith("utilisation,") for line in flow)
    assert main(["metrics", str(TINY), "--strategy", "EASY", "--no-nodes"]) == 0  # the old flag still works
    assert capsys.readouterr().out.splitlines() == flow


def test_explain_says_why_a_job_was_late_and_why_it_went_where_it_did(capsys):
    """`workbench explain ENV --strategy S --job ID`: Why so late? (each stretch of its wait and its
    cause, what let it start, EASY's head or backfill) and Why here?."""
    from workbench.cli import main

    env = Path(__file__).resolve().parents[2] / "sample_envs" / "tiny.json"
    assert main(["explain", str(env), "--strategy", "EASY", "--job", "j2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Why so late?\nJob j2 waited 45 (from 0 to 45):\n") and "\nWhy here?\n" in out
    # Tiny's j1 is the blocked head from 0 to 10 (local task t3 in its way): j2 may not delay it.
    assert "0 to 10: free nodes reserved for other jobs." in out and "(job j1 from 10)" in out
    assert "It started on " in out and "Under EASY it " in out
    assert main(["explain", str(env), "--job", "nope"]) == 2
    assert "--job: no job 'nope'" in capsys.readouterr().err
