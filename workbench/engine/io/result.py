"""The schedule as JSON (`workbench schedule`, docs/design.md "Command line") and as CSV."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from typing import Any

from workbench.engine.metrics import BOUNDED_SLOWDOWN_THRESHOLD, DEFINITIONS_VERSION, flow_definitions, flow_metrics
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.engine.simulate import Snapshot


def _clean(value: Any) -> Any:
    """JSON has no NaN or infinity: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _clean(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


WORK_COUNTS = {"early": "early_completions", "checks": "checks", "searches": "searches", "moves": "moves"}
WORK_DEFINITIONS = {
    "early": "early completions: jobs that ended before their reserved end (each plans the queue again)",
    "checks": "re-checks: waiting jobs searched again after a freed gap cleared their certificate",
    "searches": "window searches in all: arrivals, re-checks and moves",
    "moves": "moves: reservations moved earlier",
}


def work_of(schedule: Schedule) -> dict[str, int] | None:
    """What a dynamic run had to do (docs/formats.md, "Result"): early completions, re-checks, window
    searches and moves; None for a run that plans each job once and never again (EASY, static)."""
    counts = schedule.counts
    if not counts or not any(key in counts for key in WORK_COUNTS.values()):
        return None
    return {name: int(counts.get(key, 0)) for name, key in WORK_COUNTS.items()}


def result_summary(
    env: Environment,
    schedule: Schedule,
    threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
    environment: str | None = None,
) -> dict[str, Any]:
    """A result's fields other than its windows and the jobs left out: the strategy, the environment
    file it was run on, the measures with their definitions, the run's work and its times."""
    return {
        "strategy": schedule.strategy,
        **({"environment": environment} if environment else {}),
        "metrics": _clean(flow_metrics(env, schedule, threshold).as_dict()),
        "metric_definitions": {"version": DEFINITIONS_VERSION, **flow_definitions()},
        "work": work_of(schedule),
        "elapsed_ms": _clean(schedule.elapsed_ms),
        "prepare_ms": _clean(schedule.prepare_ms),
    }


def schedule_to_dict(
    env: Environment,
    schedule: Schedule,
    threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
    environment: str | None = None,
) -> dict[str, Any]:
    """The schedule JSON; ``metrics`` are named in ``metric_definitions`` (docs/metrics.md);
    ``environment``: the environment file it was run on, recorded so the result can be opened again."""
    ends = window_ends(env, schedule)
    windows = [
        {
            "job": w.job,
            "start": w.start,
            "length": w.length,
            "nodes": list(w.nodes),
            "cost": w.cost,
            "actual_end": end,
            **({"lengths": list(w.lengths)} if w.lengths else {}),  # a rough right edge
            **({"overhead": w.overhead} if w.overhead else {}),  # multi-site runtime stretch (seed 004)
        }
        for w, end in zip(schedule.windows, ends, strict=True)
    ]
    summary = result_summary(env, schedule, threshold, environment)
    head: dict[str, Any] = {key: summary.pop(key) for key in ("strategy", "environment") if key in summary}
    return {
        **head,
        "windows": windows,
        "unscheduled": list(schedule.unscheduled),
        "reasons": dict(schedule.reasons),
        **summary,
    }


def window_ends(env: Environment, schedule: Schedule) -> list[float]:
    """Each window's actual end, in window order."""
    given, index, jobs = schedule.actual_ends, env.job_index, env.jobs
    return [
        given[w.job] if w.job in given else w.start + jobs[index[w.job]].actual_fraction * w.length
        for w in schedule.windows
    ]


LONG = 64  # lists and objects longer than this are written one entry per line, by the C encoder


def result_text(doc: dict[str, Any]) -> str:
    """``doc`` as indented JSON, with its long lists and objects one entry per line: the same
    document ``json.dumps(doc, indent=2)`` writes, an order of magnitude faster at trace scale
    (Python's C encoder runs only without indentation)."""
    compact = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode

    def value(v: Any) -> str:
        if isinstance(v, list) and len(v) > LONG:
            return "[\n" + ",\n".join("    " + compact(x) for x in v) + "\n  ]"
        if isinstance(v, dict) and len(v) > LONG:
            return "{\n" + ",\n".join(f"    {compact(k)}: {compact(x)}" for k, x in v.items()) + "\n  }"
        return json.dumps(v, indent=2, ensure_ascii=False, allow_nan=False).replace("\n", "\n  ")

    return "{\n" + ",\n".join(f"  {compact(k)}: {value(v)}" for k, v in doc.items()) + "\n}\n"


def snapshot_summary(snap: Snapshot) -> dict[str, Any]:
    """What `workbench simulate` reports of one step."""
    started = [w.job for w in snap.windows if snap.started(w.job)]
    metrics = snap.metrics
    return _clean(
        {
            "step": snap.step,
            "time": snap.time,
            "cycle": snap.cycle,
            "label": snap.label,
            "queue": list(snap.queue),
            "batch": list(snap.batch),
            "placed": len(snap.windows),
            "started": len(started),
            "failed": len(snap.failed),
            "metrics": {
                "mean_start": metrics.mean_start,
                "mean_finish": metrics.mean_finish,
                "makespan": metrics.makespan,
                "total_cost": metrics.total_cost,
                "utilisation": metrics.utilisation,
                "slot_utilisation": metrics.slot_utilisation,
            },
        }
    )


CSV_COLUMNS = ("job", "name", "status", "start", "end", "length", "actual_end", "nodes", "cost", "reason")


def schedule_to_csv(env: Environment, schedule: Schedule, waiting: Sequence[str] = ()) -> str:
    """One row per job: its window (numbers) or, for a job without one, empty cells and the reason;
    ``waiting``: at a simulation step, the jobs that have arrived and wait for a window (each a row)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for w in schedule.windows:
        end = schedule.actual_end(env, w)
        writer.writerow(
            [w.job, env.job(w.job).name, "placed", w.start, w.end, w.length, end, " ".join(w.nodes), w.cost, ""]
        )
    for job_id in schedule.unscheduled:
        reason = schedule.reasons.get(job_id, "")
        writer.writerow([job_id, env.job(job_id).name, "failed", "", "", "", "", "", "", reason])
    placed = {w.job for w in schedule.windows}
    for job_id in waiting:
        if job_id not in placed and job_id not in schedule.reasons:
            reason = "arrived; waits for a window at this step"
            writer.writerow([job_id, env.job(job_id).name, "waiting", "", "", "", "", "", "", reason])
    return buffer.getvalue()


METRICS_COLUMNS = ("measure", "value", "definition")


def _cell(value: object) -> object:
    """A CSV cell: empty for a measure with no value (NaN)."""
    return "" if isinstance(value, float) and not math.isfinite(value) else value


def metrics_to_csv(
    env: Environment, schedule: Schedule, threshold: float = BOUNDED_SLOWDOWN_THRESHOLD, per_node: bool = True
) -> str:
    """The flow's measures, one row each with the definition it follows (docs/metrics.md), then,
    with ``per_node``, the per-node measures, one row per node named ``measure[node]``; a measure
    with no value has an empty cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(METRICS_COLUMNS)
    definitions = flow_definitions()
    measures = flow_metrics(env, schedule, threshold).as_dict()
    summary = [(name, value) for name, value in measures.items() if not isinstance(value, dict)]
    nodes = [(name, value) for name, value in measures.items() if isinstance(value, dict)] if per_node else []
    for name, value in summary:
        writer.writerow([name, _cell(value), definitions[name]])
    for name, value in (work_of(schedule) or {}).items():  # a dynamic run's work (docs/formats.md, "Result")
        writer.writerow([f"work.{name}", value, WORK_DEFINITIONS[name]])
    for name, value in nodes:
        for node, v in value.items():
            writer.writerow([f"{name}[{node}]", _cell(v), definitions[name]])
    return buffer.getvalue()
