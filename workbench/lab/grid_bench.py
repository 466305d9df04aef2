"""`workbench bench --only grid`: the grid strategies of seed 004 at the sizes issue 11 names.

Each run is its own process (spawned), so its peak memory (max RSS) is its own. The time
is the strategy's compute time (``Schedule.elapsed_ms``), not the workload's making.
"""

from __future__ import annotations

import multiprocessing as mp
import resource
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Out = Callable[[str], None]


@dataclass(frozen=True)
class GridRun:
    label: str
    workload: str  # "lublin10k", "kth_all", "lublin80k"
    config: str
    strategy: str
    params: tuple[tuple[str, Any], ...]
    target_s: float
    target_mb: float


RUNS = (
    *(
        GridRun(f"{name}: 10k model jobs, m128-4", "lublin10k", "m128-4", name, params, 3.0, 1024.0)
        for name, params in (
            ("Local", ()),
            ("Job sharing", ()),
            ("Multi-site", (("overhead", 0.25),)),
            ("Adaptive multi-site", (("overhead", 0.25),)),
        )
    ),
    *(
        GridRun(
            f"Economic {mf}–{uf}: 10k model jobs, m128-4",
            "lublin10k",
            "m128-4",
            "Economic",
            (("machine_function", mf), ("user_function", uf)),
            30.0,
            1024.0,
        )
        for mf, uf in (("MF1", "UF1"), ("MF2", "UF3"))
    ),
    GridRun("Job sharing: whole KTH, load 0.9, m128-4", "kth_all", "m128-4", "Job sharing", (), 5.0, 500.0),
    GridRun("Job sharing: 80k model jobs, m512-1", "lublin80k", "m512-1", "Job sharing", (), 20.0, 1024.0),
)


def offered_load(env: Any, nodes: int) -> float:
    arrivals = [j.arrival for j in env.jobs]
    work = sum(j.node_count * j.volume * j.actual_fraction for j in env.jobs)
    return work / (nodes * ((max(arrivals) - min(arrivals)) or 1.0))


def workload(key: str, config: str, local: bool, traces: Path | None) -> Any:
    from workbench.engine.grid.configs import grid_environment
    from workbench.engine.grid.lublin import generate_workload, workload_environment
    from workbench.lab.sources import KTH, trace_environment
    from workbench.lab.studies.grid import grid_workload

    if key == "kth_all":
        env = trace_environment(KTH, 512, traces)
        return grid_environment(env, config, 2, compress=0.9 / offered_load(env, 512))[0]
    if key == "lublin10k":  # the grid study's set-up: its seed-1 workload at load 0.6
        return grid_workload(config, 2, local, 10_000, 1, 0.6)
    return grid_environment(workload_environment(generate_workload(80_000, 512, 1), 512, 1), config, 2)[0]


def _child(run: GridRun, traces: Path | None, answer: Any) -> None:
    from workbench.engine import registry
    from workbench.engine.grid.metrics import grid_metrics

    env = workload(run.workload, run.config, run.strategy == "Local", traces)
    schedule = registry.run(env, run.strategy, dict(run.params))
    m = grid_metrics(env, schedule)
    answer.put(
        {
            "jobs": len(env.jobs),
            "placed": len(schedule.windows),
            "seconds": schedule.elapsed_ms / 1000.0,
            "awrt_h": m.awrt / 3600.0,
            "multi": m.multi_site_jobs,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        }
    )


def run_grid_bench(out: Out = print, traces: Path | None = None) -> None:
    from workbench.lab.sources import KTH, trace_file

    trace_file(KTH, traces)  # one line naming `traces get` when it is missing, before any run
    out("Grid strategies (seed 004), each run in its own process; compute time of the strategy, peak RSS")
    out(f"{'run':44s} {'seconds':>8s} {'target':>7s} {'peak MB':>8s}  result")
    ctx = mp.get_context("spawn")
    for run in RUNS:
        answer = ctx.Queue()
        child = ctx.Process(target=_child, args=(run, traces, answer))
        child.start()
        got = answer.get()
        child.join()
        ok = got["seconds"] <= run.target_s and got["peak_mb"] <= run.target_mb
        out(
            f"{run.label:44s} {got['seconds']:8.2f} {run.target_s:7.0f} {got['peak_mb']:8.0f}  "
            f"{'✔' if ok else '✘'} {got['placed']} of {got['jobs']} placed, AWRT {got['awrt_h']:.1f} h, "
            f"{got['multi']} multi-site"
        )
