"""`workbench bench`: timings and criterion values beside the papers' figures.

Benchmarks are not tests: they print figures for a person to compare with
seed 002 Table 1 and Fig. 3 (and, as the flow strategies arrive, with the
other papers' set-ups).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.engine import registry
from workbench.engine.errors import ParameterError
from workbench.engine.generate import generate
from workbench.engine.metrics import flow_metrics
from workbench.engine.model import Environment
from workbench.engine.slots import SlotTable, window_distances

Out = Callable[[str], None]

# Seed 002 Table 1 / Fig. 3 (Java, the authors' machine): ms, Q, L_minΣ, L_maxΣ.
PAPER = {
    "FirstFit": ("4.2", "≈35", "85", "342"),
    "MultipleBest": ("103", "≈52", "253", "159"),
    "MaxQ": ("—", "61.8", "", ""),
    "MaxQ Lite": ("—", "≈52", "", ""),
    "DEP": ("1695", "", "369", "480"),
    "DEP Lite": ("4.5", "", "275", "440"),
    "COORD": ("1694", "", "9", "52"),
    "COORD Lite": ("4.5", "", "31", "148"),
}

WINDOW_STRATEGIES: list[tuple[str, dict[str, str]]] = [
    ("FirstFit", {}),
    ("MaxQ", {}),
    ("MaxQ Lite", {}),
    ("DEP", {}),
    ("DEP Lite", {}),
    ("COORD", {}),
    ("COORD Lite", {}),
    ("MultipleBest", {"by": "q"}),
    ("MultipleBest", {"by": "dep"}),
    ("MultipleBest", {"by": "coord"}),
]


@dataclass
class WindowFigures:
    label: str
    median_ms: float
    p90_ms: float
    q: float
    lmin: float
    lmax: float
    failures: int


def bench_window_search(runs: int, repeats: int = 3) -> list[WindowFigures]:
    """Seed 002 §4.1 set-up: one search per generated window100 environment.

    Each search is timed ``repeats`` times and the fastest kept (the machine's
    noise only ever adds time); the figure is the median over the environments.
    """
    envs = [generate("window100", seed) for seed in range(1, runs + 1)]
    tables = [SlotTable.from_environment(env) for env in envs]
    figures = []
    for name, params in WINDOW_STRATEGIES:
        selector = registry.selector(name, params)
        label = name + (f" by {params['by']}" if "by" in params else "")
        times, qs, lmins, lmaxs = [], [], [], []
        failures = 0
        selector.select(tables[0], envs[0].jobs[0], 0.0)  # warm caches and imports
        for env, table in zip(envs, tables, strict=True):
            job = env.jobs[0]
            best = float("inf")
            found = None
            for _ in range(repeats):
                began = time.perf_counter()
                found = selector.select(table, job, env.time.start)
                best = min(best, time.perf_counter() - began)
            times.append(best * 1000.0)
            if found is None:
                failures += 1
                continue
            w = found.window
            left, right = window_distances(table, w)
            q = {node.id: node.attribute("q") for node in env.nodes}
            qs.append(sum(q[n] for n in w.nodes))
            lmins.append(float(np.minimum(left, right).mean()))
            lmaxs.append(float(np.maximum(left, right).mean()))
        figures.append(
            WindowFigures(
                label,
                statistics.median(times),
                float(np.percentile(times, 90)),
                float(np.mean(qs)) if qs else float("nan"),
                float(np.mean(lmins)) if lmins else float("nan"),
                float(np.mean(lmaxs)) if lmaxs else float("nan"),
                failures,
            )
        )
    return figures


# Seed 001 Table 2, N_Q = 200: mean job finish time.
PAPER_BACKFILL = {"BFstart": 1112, "BFfinish": 1072.7, "BFshort": 1060.3, "PAST": 1083.3, "CoP": 1072.2}


def _timed(fn: Callable[[], object], repeats: int = 1) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        began = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - began)
    return best * 1000.0, result


def bench_backfill(runs: int, out: Out) -> None:
    """Seed 001 §4.2: conservative backfilling of a 200-job queue on backfill32."""
    out(f"\nConservative backfilling, seed 001 §4.2 set-up (backfill32, 200 jobs at time 0), {runs} environments")
    out(f"{'strategy':12s} {'median ms':>10s} {'mean finish':>12s} {'makespan':>9s}   paper: mean finish (N_Q=200)")
    envs = [generate("backfill32", seed, jobs=200) for seed in range(1, runs + 1)]
    for name, paper in PAPER_BACKFILL.items():
        times, finishes, spans = [], [], []
        for env in envs:
            ms, result = _timed(lambda env=env, name=name: registry.run(env, name), repeats=2)
            times.append(ms)
            m = flow_metrics(env, result)  # type: ignore[arg-type]
            finishes.append(m.mean_finish)
            spans.append(m.makespan)
        out(f"{name:12s} {statistics.median(times):10.1f} {np.mean(finishes):12.1f} {np.mean(spans):9.1f}   {paper}")


def swf_environment(seed: int, jobs: int, nodes: int, load: float = 0.9) -> Environment:
    """A synthetic SWF trace written to disk and imported back, as a user would."""
    import tempfile
    from pathlib import Path

    from workbench.engine.generate import swf_rows
    from workbench.engine.io.swf import import_swf, write_swf

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.swf"
        write_swf(path, swf_rows(seed, jobs, nodes, load), "workbench bench trace")
        return import_swf(path, nodes).env


def bench_easy(out: Out, jobs: int = 10_000, nodes: int = 128) -> None:
    """EASY on a synthetic SWF trace on identical nodes (seed 004 §3's scheduler)."""
    env = swf_environment(1, jobs, nodes)
    ms, result = _timed(lambda: registry.run(env, "EASY"), repeats=3)
    m = flow_metrics(env, result)  # type: ignore[arg-type]
    out(f"\nEASY, {jobs} synthetic SWF jobs on {nodes} identical nodes (load 0.9)")
    out(f"  {ms:.0f} ms  ({jobs / ms * 1000:.0f} jobs/s)   AWRT {m.awrt:.0f}   utilisation {100 * m.utilisation:.1f} %")


def bench_easy_general(out: Out, jobs: int = 1000, nodes: int = 32) -> None:
    """The same on the general (window-search) path, on a smaller trace."""
    env = swf_environment(2, jobs, nodes)
    fast, a = _timed(lambda: registry.run(env, "EASY"))
    slow, b = _timed(lambda: registry.run(env, "EASY", {"fast_path": False}))
    same = a.windows == b.windows  # type: ignore[union-attr]
    out(
        f"  general path on {jobs} jobs / {nodes} nodes: {slow:.0f} ms (fast path {fast:.0f} ms; same schedule: {same})"
    )


def bench_css(runs: int, out: Out) -> None:
    """Seed 000 §5: CSS and batch-slicer(k=5) on vo24, 20 jobs, one cycle."""
    out(f"\nCSS and batch-slicer, seed 000 §5 set-up (vo24: 24 nodes, 20 jobs, one 600-unit cycle), {runs} cycles")
    head = f"{'strategy':22s} {'median ms':>10s} {'N_A':>6s} {'placed':>7s}"
    out(head + f" {'Σ n·T':>9s} {'Σ cost':>9s} {'mean start':>11s}")
    envs = [generate("vo24", seed) for seed in range(1, runs + 1)]
    for name, params in (("CSS", {}), ("Batch-slicer", {"slices": 5}), ("BSF", {"slices": 5}), ("FirstFit", {})):
        times, alts, placed, cpu, cost, start = [], [], [], [], [], []
        for env in envs:
            ms, result = _timed(lambda env=env, name=name, params=params: registry.run(env, name, params), repeats=2)
            times.append(ms)
            m = flow_metrics(env, result)  # type: ignore[arg-type]
            alts.append(m.mean_alternatives)
            placed.append(m.placed)
            cpu.append(m.total_cpu_time)
            cost.append(m.total_cost)
            start.append(m.mean_start)
        label = name + (f"(k={params['slices']})" if "slices" in params else "")
        out(
            f"{label:22s} {statistics.median(times):10.1f} {np.nanmean(alts) if not np.isnan(alts).all() else 0:6.1f}"
            f" {np.mean(placed):7.1f} {np.mean(cpu):9.0f} {np.mean(cost):9.0f} {np.mean(start):11.1f}"
        )


def run_bench(
    runs: int = 50,
    only: list[str] | None = None,
    out: Out = print,
    traces: Path | None = None,
    limit_s: float = 300.0,
    studies: list[str] | None = None,
) -> None:
    """The benchmarks named in ``only`` (default: window, backfill, easy and css; the others read the
    traces or take minutes)."""
    known = ("window", "backfill", "easy", "css", "why", "plugins", "grid", "lab", "studies", "scale", "saturation")
    known += ("coldstart", "archive")
    wanted = set(only or known[:4])  # the others read the traces or take minutes: asked for by name
    unknown = wanted - set(known)
    if unknown:
        raise ParameterError("--only", f"unknown benchmark {sorted(unknown)[0]!r}; expected one of {', '.join(known)}")
    if "coldstart" in wanted:
        from workbench.lab.coldstart import run_coldstart

        run_coldstart(out, traces)
    if "archive" in wanted:
        from workbench.lab.archive_bench import run_archive

        run_archive(out, limit_s)
    if "scale" in wanted:
        from workbench.lab.scale import run_scale

        run_scale(out, traces, limit_s)
    if "saturation" in wanted:
        from workbench.lab.saturation import run_saturation

        run_saturation(out, traces, limit_s)
    if "window" in wanted:
        out(f"Window search, seed 002 §4.1 set-up (window100: 100 nodes, n=7, V=800, C=644), {runs} environments")
        out("median/p90 = time of one search (fastest of 3 tries per environment), this machine, Python+numpy")
        header = f"{'strategy':22s} {'median ms':>10s} {'p90 ms':>8s} {'Q':>7s} {'LminΣ':>7s} {'LmaxΣ':>7s}"
        header += f" {'fail':>5s}"
        out(header + "   paper: ms / Q / LminΣ / LmaxΣ")
        for f in bench_window_search(runs):
            paper = PAPER.get(f.label.split(" by ")[0], ("", "", "", ""))
            out(
                f"{f.label:22s} {f.median_ms:10.2f} {f.p90_ms:8.2f} {f.q:7.1f} {f.lmin:7.1f} {f.lmax:7.1f}"
                f" {f.failures:5d}   {' / '.join(paper)}"
            )
    if "backfill" in wanted:
        bench_backfill(min(runs, 10), out)
    if "easy" in wanted:
        bench_easy(out)
        bench_easy_general(out)
    if "css" in wanted:
        bench_css(min(runs, 20), out)
    if "why" in wanted:
        from workbench.lab.why_bench import run_why

        run_why(out, traces)
    if "plugins" in wanted:
        from workbench.lab.plugins_bench import run_plugins

        run_plugins(out, traces, limit_s)
    if "grid" in wanted:
        from workbench.lab.grid_bench import run_grid_bench

        run_grid_bench(out, traces)
    if "lab" in wanted:
        bench_lab(out)
    if "studies" in wanted:
        bench_studies(out, names=studies)


def bench_lab(out: Out, reps: int = 250) -> None:
    """The lab's sweeps: window-search at the paper's size, speed-up with 2 workers, Dask's overhead."""
    import resource
    import tempfile

    from workbench.lab.runner import run_study

    # The paper's set-up: its eight algorithms on the preset's load (the study also runs the
    # literal-scan FirstFit and a second load model).
    paper = {"strategy": ",".join(PAPER_WINDOW_LABELS), "tasks_per_node": "0"}

    def timed(**kwargs: object) -> float:
        with tempfile.TemporaryDirectory() as folder:
            began = time.perf_counter()
            run_study("window-search", out=Path(folder), overrides=paper, **kwargs)  # type: ignore[arg-type]
            return time.perf_counter() - began

    out(f"\nLab: window-search, {reps * 8} runs (the paper's 2000 is reps=250), 2 workers")
    full = timed(reps=reps, workers=2)
    out(f"  {full:.1f} s   (target ≤ 300 s)")
    small = max(10, reps // 5)
    one = timed(reps=small, workers=1)
    two = timed(reps=small, workers=2)
    dask = timed(reps=small, workers=2, dask="local")
    out(f"  {small * 8} runs: 1 worker {one:.1f} s, 2 workers {two:.1f} s (speed-up {one / two:.2f}×, target ≥ 1.7)")
    out(f"  Dask LocalCluster, 2 workers: {dask:.1f} s ({100 * (dask / two - 1):+.0f} % vs the pool; start-up weighs)")
    dask_full = timed(reps=reps, workers=2, dask="local")
    extra = 100 * (dask_full / full - 1)
    out(f"  {reps * 8} runs, Dask LocalCluster, 2 workers: {dask_full:.1f} s ({extra:+.0f} % vs the pool, ≤ 15 %)")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    out(f"  peak worker memory {peak:.0f} MB (target ≤ 300)")


PAPER_WINDOW_LABELS = ("FirstFit", "MultipleBest", "MaxQ", "MaxQ Lite", "DEP", "DEP Lite", "COORD", "COORD Lite")
STUDY_TARGET_S = 600.0  # issue 10: every study's default run within 10 minutes on 2 cores


def bench_studies(out: Out, limit_s: float = 1.5 * STUDY_TARGET_S, names: list[str] | None = None) -> None:
    """Every registered study's default run (its own repetitions, every factor) on 2 workers, timed
    (or only the studies ``names``).

    A run still going after ``limit_s`` is stopped (its time is then a lower bound).
    """
    import tempfile

    from workbench.lab.catalogue import all_studies, get_study
    from workbench.lab.runner import run_study

    chosen = all_studies() if not names else [get_study(name) for name in names]

    out(f"\nLab: every study's default run, 2 workers (target ≤ {STUDY_TARGET_S:.0f} s each)")
    out(f"A run still going after {limit_s:.0f} s is stopped; its time is then a lower bound.")
    out(f"{'study':18s} {'runs':>6s} {'seconds':>9s}")
    for study in chosen:
        with tempfile.TemporaryDirectory() as folder:
            began = time.perf_counter()
            deadline = began + limit_s
            run = run_study(
                study.name, workers=2, out=Path(folder), should_stop=lambda d=deadline: time.perf_counter() > d
            )
            took = time.perf_counter() - began
        done = f"{run.recorded}" if run.recorded == run.planned else f"{run.recorded}/{run.planned}"
        verdict = "✓" if run.recorded == run.planned and took <= STUDY_TARGET_S else "✗"
        out(f"{study.name:18s} {done:>6s} {took:9.1f} {verdict}" + (f"  ({run.failed} failed)" if run.failed else ""))
