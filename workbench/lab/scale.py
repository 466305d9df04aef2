"""`workbench bench --only scale`: the strategies on real traces, at the size users bring.

Each run happens in a child process, so that its peak memory (resident set size)
is its own, and under a time limit: a run still going at the limit is cancelled
through ``should_stop`` and reported as such, with how far it had got. The figure
is the strategy's own compute time (``elapsed_ms``), as ``workbench schedule``
reports it; building the environment is not counted.

The traces are those of the shared folder (`--traces DIR`): KTH-SP2 (the first
10,000 jobs, and the whole trace) on 100 nodes, identical or of performance 1..4
(seed 1), and the Lublin-Feitelson synthetic trace on 256 nodes. Static CoP runs
on ``generate backfill32 --seed 1 --set nodes=1000 --set jobs=2000``: 1,000 nodes of
performance U[2, 16] (two decimals, so about as many distinct levels), local tasks
up to 10 % load over 1,000 time units, 2,000 jobs of 1..8 nodes at time 0.
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Out = Callable[[str], None]


@dataclass(frozen=True)
class ScaleRun:
    label: str
    env: str  # a key of ENVIRONMENTS
    strategy: str
    params: dict[str, Any]
    target_s: float
    baseline: bool = False  # also time the textbook EASY (lab/baseline.py) in the same process


RUNS = [
    ScaleRun("FirstFit, dynamic: KTH 10k, 100 identical", "kth10k", "FirstFit", {}, 30.0),
    ScaleRun("CoP, dynamic: KTH 10k, 100 identical", "kth10k", "CoP", {}, 30.0),
    ScaleRun("FirstFit, dynamic: whole KTH, 100 identical", "kth_all", "FirstFit", {}, 10.0),
    ScaleRun("CoP, dynamic: whole KTH, 100 identical", "kth_all", "CoP", {}, 20.0),
    ScaleRun("FirstFit, dynamic: KTH 10k, 100 p∈1..4", "kth10k_mixed", "FirstFit", {}, 60.0),
    ScaleRun("CoP, dynamic: KTH 10k, 100 p∈1..4", "kth10k_mixed", "CoP", {}, 60.0),
    ScaleRun("EASY: KTH 10k, 100 p∈1..4", "kth10k_mixed", "EASY", {}, 3.0),
    ScaleRun("EASY: whole KTH (28,467), 100 identical", "kth_all", "EASY", {}, 0.25, baseline=True),
    ScaleRun("EASY: whole KTH (28,467), 100 p∈1..4", "kth_all_mixed", "EASY", {}, 0.75),
    ScaleRun("EASY: Lublin 10k, 256 identical", "lublin", "EASY", {}, 1.0),
    ScaleRun("CoP, static: 1000 nodes × 2000 jobs", "cop1000", "CoP", {"dynamic": False}, 10.0),
]


def environment(key: str, traces: Path | None) -> Any:
    """The workload ``key``: the logs from ``traces`` (None: the ``traces get`` cache), lab/sources.py."""
    from workbench.engine.generate import generate
    from workbench.lab.sources import KTH, lublin_environment, trace_environment

    if key == "cop1000":
        return generate("backfill32", 1, nodes=1000, jobs=2000)
    if key == "lublin":
        return lublin_environment(traces)
    mixed = key in ("kth10k_mixed", "kth_all_mixed")
    env = trace_environment(KTH, 100, traces, performance=(1, 4) if mixed else None, seed=1)
    return env if key.startswith("kth_all") else dataclasses.replace(env, jobs=env.jobs[:10_000])


def warm_up(env: Any, strategy: str, params: dict[str, Any]) -> float:
    """Run ``strategy`` on the first 50 jobs: the first call in a process loads the compiled loops
    (engine/kernels/) from numba's cache, timed apart so that a figure is the strategy's own time."""
    from workbench.engine import registry

    first = time.perf_counter()
    registry.run(dataclasses.replace(env, jobs=env.jobs[:50]), strategy, params)
    return time.perf_counter() - first


def timed_run(env: Any, strategy: str, params: dict[str, Any], limit_s: float) -> tuple[dict[str, Any], Any]:
    """Run ``strategy`` on ``env`` in this (child) process, stopped after ``limit_s``: the figures
    (seconds of compute, windows placed, counts, the warm-up, peak memory; how far a stopped run
    got) and the schedule (None when stopped)."""
    from workbench.allocator import settle_allocator
    from workbench.engine import registry
    from workbench.engine.errors import Cancelled

    settle_allocator()  # as the `workbench` command does before it runs anything
    reached = [0, 0]

    def progress(done: int, total: int) -> None:
        reached[:] = [done, total]

    out: dict[str, Any] = {"jobs": len(env.jobs), "nodes": len(env.nodes), "warmup_s": warm_up(env, strategy, params)}
    began = time.perf_counter()
    schedule = None
    try:
        schedule = registry.run(
            env, strategy, params, progress=progress, should_stop=lambda: time.perf_counter() - began > limit_s
        )
        out.update(seconds=schedule.elapsed_ms / 1000.0, placed=len(schedule.windows), counts=schedule.counts)
        out["stopped"] = False
    except Cancelled:
        out.update(seconds=time.perf_counter() - began, stopped=True, reached=list(reached), counts={})
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return out, schedule


def in_child(target: Callable[..., None], *args: Any) -> dict[str, Any]:
    """``target(*args, answer)`` in a fresh process (its memory its own); what it put on ``answer``."""
    ctx = mp.get_context("spawn")
    answer = ctx.Queue()
    child = ctx.Process(target=target, args=(*args, answer))
    child.start()
    got: dict[str, Any] = answer.get()
    child.join()
    return got


def _child(run: ScaleRun, traces: Path | None, limit_s: float, answer: Any) -> None:
    env = environment(run.env, traces)
    out, schedule = timed_run(env, run.strategy, run.params, limit_s)
    if run.baseline and schedule is not None:
        from workbench.lab.baseline import textbook_easy

        start = time.perf_counter()
        textbook = textbook_easy(env)
        out["baseline_s"] = time.perf_counter() - start
        ours = {w.job: (w.start, tuple(env.node_index[n] for n in w.nodes)) for w in schedule.windows}
        out["same"] = ours == textbook
    answer.put(out)


def run_scale(out: Out = print, traces: Path | None = None, limit_s: float = 300.0) -> None:
    from workbench.lab.sources import KTH, trace_file, where

    trace_file(KTH, traces)  # one line naming `traces get` when it is missing, before any run
    out(f"Scale, traces from {where(traces)}; each run in its own process, stopped after {limit_s:g} s")
    out(f"{'run':44s} {'seconds':>9s} {'target':>7s} {'peak MB':>8s}  result")
    easy: dict[str, float] = {}
    for run in RUNS:
        got = in_child(_child, run, traces, limit_s)
        if got["stopped"]:
            done, total = got["reached"]
            verdict = f"✘ stopped at the limit, {done}/{total} of its work done"
            seconds = f">{got['seconds']:.0f}"
        else:
            ok = got["seconds"] <= run.target_s and got["peak_mb"] <= 500
            verdict = f"{'✔' if ok else '✘'} {got['placed']} of {got['jobs']} placed"
            verdict += f" (first call of the process {got['warmup_s']:.2f} s)"
            seconds = f"{got['seconds']:.2f}"
            if "baseline_s" in got:
                ratio = got["seconds"] / got["baseline_s"]
                verdict += f"; textbook EASY {got['baseline_s']:.2f} s, ratio {ratio:.2f} (≤ 0.5)"
                verdict += ", same schedule" if got["same"] else ", DIFFERENT schedule"
        out(f"{run.label:44s} {seconds:>9s} {run.target_s:>7g} {got['peak_mb']:8.0f}  {verdict}")
        if not got["stopped"]:
            easy[run.env] = got["seconds"]
    if "kth_all" in easy and "kth_all_mixed" in easy:
        ratio = easy["kth_all_mixed"] / easy["kth_all"]
        out(f"EASY on mixed nodes over identical ones, whole KTH: {ratio:.1f}× {'✔' if ratio <= 3 else '✘'} (≤ 3)")
