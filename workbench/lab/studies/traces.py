"""traces: real and synthetic workloads (the Parallel Workloads Archive's KTH-SP2, a
Lublin-Feitelson trace): EASY, FirstFit and CoP on the first N jobs."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from workbench.engine import registry
from workbench.engine.metrics import flow_metrics
from workbench.engine.model import Environment
from workbench.lab.sources import KTH, LUBLIN_NODES, lublin_environment, trace_environment, trace_file
from workbench.lab.study import Factor, RunSpec, Study, checked

KTH_NODES = 100
TRACES = ("KTH-SP2", "Lublin-256")  # the archive's log (`workbench traces get KTH-SP2`); the model, generated


@cache
def _trace_env(trace: str, jobs: int) -> Environment:
    import dataclasses

    env = trace_environment(KTH, KTH_NODES) if trace == "KTH-SP2" else lublin_environment()
    return dataclasses.replace(env, jobs=env.jobs[:jobs])


def _needs(plan: Sequence[RunSpec]) -> None:
    """Before any run: the KTH log must be in the ``traces get`` cache (one line naming the command)."""
    if any(spec.factor("trace") == "KTH-SP2" for spec in plan):
        trace_file(KTH)


def _traces_run(spec: RunSpec) -> dict[str, float]:
    env = _trace_env(str(spec.factor("trace")), int(spec.factor("jobs")))
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
        source=(
            "the Parallel Workloads Archive's KTH-SP2 log (`workbench traces get KTH-SP2`) and a "
            "Lublin-Feitelson workload this project generates (seed 1)"
        ),
        setup=(
            "Not from a paper: EASY (what production systems run), conservative backfilling (FirstFit, "
            "dynamic) and CoP (dynamic) on the first N jobs of each trace, identical nodes, requested time "
            "as the reservation and the run time as the actual end. Bounded slowdown uses the usual 10 s "
            "threshold; AWRT weighs response time by n × runtime (seed 004). KTH-SP2 runs on 100 nodes; "
            f"the Lublin-Feitelson workload is 10,000 jobs for {LUBLIN_NODES} nodes from the project's own "
            "generator, seed 1. The traces are deterministic, so one repetition says everything."
        ),
        strategies=(("EASY", "EASY", {}), ("FirstFit", "FirstFit", {}), ("CoP", "CoP", {})),
        factors=(
            Factor("trace", TRACES, "which trace"),
            Factor("jobs", (1000, 2000, 5000, 10000), "the first N jobs of it", label="first N jobs of the trace"),
        ),
        reps=1,
        measures={
            "awrt": "average weighted response time",
            "mean_wait": "mean wait (start − arrival)",
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
        needs=_needs,
        units={
            "awrt": "s",
            "mean_wait": "s",
            "bounded_slowdown": "ratio, ≥ 1",
            "utilisation": "share, 0–1",
            "ms": "ms",
        },
        figures=(("mean_wait", "jobs"), ("bounded_slowdown", "jobs")),
    )
)

# Each registers its study (seed 003 §2, seed 000 §6-7, seed 004 §3 and §4).
