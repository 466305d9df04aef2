"""traces: real and synthetic workloads (the Parallel Workloads Archive's KTH-SP2, a
Lublin-Feitelson trace): EASY, FirstFit and CoP on the first N jobs."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from workbench.engine import registry
from workbench.engine.metrics import flow_metrics
from workbench.engine.model import Environment
from workbench.lab.study import Factor, RunSpec, Study, checked

TRACES = {
    "KTH-SP2": ("KTH-SP2-1996-2.1-cln.swf", 100),
    "Lublin-256": ("synthetic_lublin_256.swf", 256),
}


@cache
def _trace_env(trace: str, jobs: int, folder: str) -> Environment:
    import dataclasses

    from workbench.engine.io.swf import import_swf

    name, nodes = TRACES[trace]
    env = import_swf(Path(folder) / name, nodes).env
    return dataclasses.replace(env, jobs=env.jobs[:jobs])


def traces_folder() -> str:
    from workbench.lab.scale import default_traces

    return str(default_traces())


def _traces_run(spec: RunSpec) -> dict[str, float]:
    env = _trace_env(str(spec.factor("trace")), int(spec.factor("jobs")), traces_folder())
    name, params = TRACES_STUDY.strategy(spec.strategy)
    result = registry.run(env, name, params)
    m = flow_metrics(env, result)  # bounded slowdown at the usual 10 s threshold
    placed = bool(result.windows)
    return {
        "awrt": m.awrt,
        "mean_wait": m.mean_wait if placed else 0.0,
        "bounded_slowdown": m.mean_bounded_slowdown if placed else 0.0,
        "utilisation": m.utilisation,
        "ms": result.elapsed_ms,
    }


TRACES_STUDY = checked(
    Study(
        name="traces",
        title="The papers' heuristics against production practice on real traces",
        source="Parallel Workloads Archive traces in shared/traces (KTH-SP2, Lublin-Feitelson synthetic)",
        setup=(
            "Not from a paper: EASY (what production systems run), conservative backfilling (FirstFit, "
            "dynamic) and CoP (dynamic) on the first N jobs of each trace, identical nodes, requested time "
            "as the reservation and the run time as the actual end. Bounded slowdown uses the usual 10 s "
            "threshold; AWRT weighs response time by n × runtime (seed 004). The traces are "
            "deterministic, so one repetition says everything."
        ),
        strategies=(("EASY", "EASY", {}), ("FirstFit", "FirstFit", {}), ("CoP", "CoP", {})),
        factors=(
            Factor("trace", tuple(TRACES), "which trace"),
            Factor("jobs", (1000, 2000, 5000, 10000), "the first N jobs of it"),
        ),
        reps=1,
        measures={
            "awrt": "average weighted response time",
            "mean_wait": "mean wait (start - arrival)",
            "bounded_slowdown": "mean bounded slowdown (10 s threshold)",
            "utilisation": "busy share of the nodes over the makespan",
            "ms": "compute time of the run (ms)",
        },
        definitions={
            "awrt": "awrt",
            "mean_wait": "mean_wait",
            "bounded_slowdown": "mean_bounded_slowdown",
            "utilisation": "utilisation",
        },
        run=_traces_run,
        figures=(("mean_wait", "jobs"), ("bounded_slowdown", "jobs")),
    )
)

# Each registers its study (seed 003 §2, seed 000 §6-7, seed 004 §3 and §4).
