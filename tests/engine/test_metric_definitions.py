"""Every flow measure against a case computed by hand, and the definitions the exports name."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.engine.errors import ParameterError
from workbench.engine.io.envfile import save_environment
from workbench.engine.io.result import metrics_to_csv, schedule_to_dict
from workbench.engine.metrics import DEFINITIONS, DEFINITIONS_VERSION, FlowMetrics, flow_metrics, job_metrics
from workbench.engine.model import Environment, Job, LocalTask, Node, TimeSettings, Window
from workbench.engine.schedule import Schedule

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def _case() -> tuple[Environment, Schedule]:
    """Two nodes of performance 1: a (price 1, a local task over [0, 10)) and b (price 2); no horizon.

    x: n=1, T=5, arrives 0, runs on b over [0, 5]                      -> C = 5
    z: n=1, T=4, arrives 0, runs on b over [5, 9]                      -> C = 9
    y: n=2, T=20, arrives 2, actual_fraction 0.5, on a and b from 10   -> C = 10 + 0.5·20 = 20
    """
    env = Environment(
        nodes=(Node("a", "a", 1.0, 1.0), Node("b", "b", 1.0, 2.0)),
        local_tasks=(LocalTask("t", "a", 0.0, 10.0),),
        jobs=(
            Job("x", "x", 1, 1.0, 5.0, arrival=0.0),
            Job("y", "y", 2, 1.0, 20.0, arrival=2.0, actual_fraction=0.5),
            Job("z", "z", 1, 1.0, 4.0, arrival=0.0),
        ),
        time=TimeSettings(0.0, None, None),
    )
    windows = (
        Window("x", 0.0, 5.0, ("b",), 10.0),  # cost 2·5
        Window("z", 5.0, 4.0, ("b",), 8.0),  # cost 2·4
        Window("y", 10.0, 20.0, ("a", "b"), 60.0),  # cost (1 + 2)·20
    )
    return env, Schedule("hand", windows)


def test_every_flow_measure_on_a_case_computed_by_hand():
    """wait, response, slowdown, bounded slowdown (τ = 10 and 6), AWRT, makespan, both utilisations, cost."""
    env, schedule = _case()
    m = flow_metrics(env, schedule)
    # waits: x 0, z 5 - 0 = 5, y 10 - 2 = 8
    assert m.mean_wait == pytest.approx((0 + 5 + 8) / 3)
    # responses C - r: x 5, z 9, y 20 - 2 = 18
    assert m.mean_response == pytest.approx((5 + 9 + 18) / 3)
    # slowdowns response / run (runs: x 5, z 4, y 10): 1, 9/4, 18/10
    assert m.mean_slowdown == pytest.approx((1 + 2.25 + 1.8) / 3)
    # bounded at τ = 10: max(1, 5/10) = 1, max(1, 9/10) = 1, max(1, 18/10) = 1.8
    assert m.slowdown_threshold == 10.0
    assert m.mean_bounded_slowdown == pytest.approx((1 + 1 + 1.8) / 3)
    # bounded at τ = 6: max(1, 5/6) = 1, max(1, 9/6) = 1.5, max(1, 18/10) = 1.8
    six = flow_metrics(env, schedule, threshold=6.0)
    assert six.mean_bounded_slowdown == pytest.approx((1 + 1.5 + 1.8) / 3) and six.slowdown_threshold == 6.0
    # at τ = 0 it is the plain slowdown (every slowdown here is ≥ 1)
    assert flow_metrics(env, schedule, threshold=0.0).mean_bounded_slowdown == pytest.approx(m.mean_slowdown)
    # AWRT: weights n·run = 5, 4, 2·10 = 20; Σ w·(C - r) = 5·5 + 4·9 + 20·18 = 421; Σ w = 29
    assert m.awrt == pytest.approx(421 / 29)
    # makespan: the last actual finish, 20, from t0 = 0
    assert m.makespan == 20.0
    # busy node-time 5 + 4 + 2·10 = 29; capacity 2 nodes × [0, 20] = 40;
    # free slot time: a is free over [10, 20] (10), b over [0, 20] (20): 30
    assert m.utilisation == pytest.approx(29 / 40)
    assert m.slot_utilisation == pytest.approx(29 / 30)
    # cost Σ c_i·T: 10 + 8 + 60; CPU time Σ T: 5 + 4 + 40
    assert m.total_cost == 78.0 and m.total_cpu_time == 49.0
    x, y, z = sorted(job_metrics(env, schedule, threshold=6.0), key=lambda j: j.job)
    assert (x.wait, x.response, x.slowdown, x.bounded_slowdown) == (0.0, 5.0, 1.0, 1.0)
    assert (z.wait, z.response, z.slowdown, z.bounded_slowdown) == (5.0, 9.0, 2.25, 1.5)
    assert (y.wait, y.response, y.slowdown, y.bounded_slowdown) == (8.0, 18.0, 1.8, 1.8)


def test_the_two_utilisations_agree_without_local_tasks():
    """Without local tasks the free slot time is the capacity, so the two utilisations are one number."""
    env, schedule = _case()
    m = flow_metrics(dataclasses.replace(env, local_tasks=()), schedule)
    assert m.utilisation == pytest.approx(m.slot_utilisation) == pytest.approx(29 / 40)


@pytest.mark.parametrize("bad", [-1.0, float("inf"), float("nan"), True])
def test_a_bad_threshold_is_refused_by_name(bad):
    """A slowdown threshold that is negative, infinite, NaN or a bool is refused with a ParameterError naming
    slowdown_threshold."""
    env, schedule = _case()
    with pytest.raises(ParameterError, match="slowdown_threshold"):
        flow_metrics(env, schedule, threshold=bad)


def test_every_flow_measure_has_one_definition_and_the_docs_state_it():
    """Each FlowMetrics field has a definition, each definition is a row of docs/metrics.md, word for word."""
    names = [d.name for d in DEFINITIONS]
    assert len(names) == len(set(names))
    assert set(FlowMetrics.__dataclass_fields__) <= set(names)
    text = DOCS.read_text(encoding="utf-8")
    for d in DEFINITIONS:
        assert f"| `{d.name}` | {d.title} | {d.formula} | {d.source} |" in text, d.name
    assert DEFINITIONS_VERSION in text


def test_the_schedule_json_names_its_definitions():
    """The schedule's JSON holds a definition for exactly each measure it gives, with the definitions' version,
    and records the threshold used."""
    env, schedule = _case()
    doc = schedule_to_dict(env, schedule, threshold=6.0)
    defs = doc["metric_definitions"]
    assert defs["version"] == DEFINITIONS_VERSION
    assert set(defs) - {"version"} == set(doc["metrics"])
    assert "machine's capacity" in defs["utilisation"] and "free slot time" in defs["slot_utilisation"]
    assert doc["metrics"]["slowdown_threshold"] == 6.0


def test_the_metrics_csv_has_a_definition_on_every_row():
    """The metrics CSV gives the hand case's values (utilisation 29/40, slot utilisation 29/30, node a busy 20),
    leaves a measure without a value empty, and ends each row's definition with its version."""
    env, schedule = _case()
    rows = list(csv.DictReader(io.StringIO(metrics_to_csv(env, schedule))))
    by_name = {r["measure"]: r for r in rows}
    assert float(by_name["utilisation"]["value"]) == pytest.approx(29 / 40)
    assert float(by_name["slot_utilisation"]["value"]) == pytest.approx(29 / 30)
    assert float(by_name["node_busy[a]"]["value"]) == 20.0
    assert by_name["mean_alternatives"]["value"] == ""  # no value: not a CSS flow
    assert all(r["definition"].endswith(f"({DEFINITIONS_VERSION})") for r in rows)
    assert "τ" in by_name["mean_bounded_slowdown"]["definition"]


def test_cli_metrics_writes_csv_and_json_and_refuses_a_bad_threshold(tmp_path, capsys):
    """`metrics` prints CSV holding the threshold given and writes JSON of strategy, metrics and definitions to
    -o; a negative threshold is one line and exit code 2."""
    env, _ = _case()
    path = tmp_path / "env.json"
    save_environment(env, path)
    assert main(["metrics", str(path), "--strategy", "FirstFit", "--slowdown-threshold", "6"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["measure"] for r in rows} >= {"utilisation", "slot_utilisation", "mean_bounded_slowdown"}
    assert next(r for r in rows if r["measure"] == "slowdown_threshold")["value"] == "6.0"
    assert main(["metrics", str(path), "--strategy", "FirstFit", "-o", str(tmp_path / "m.json")]) == 0
    doc = json.loads((tmp_path / "m.json").read_text())
    assert set(doc) == {"strategy", "metrics", "metric_definitions", "work"}
    assert main(["metrics", str(path), "--slowdown-threshold", "-1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and re.search(r"--slowdown-threshold: expected a finite number ≥ 0", err)
