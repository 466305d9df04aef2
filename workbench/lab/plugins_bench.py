"""``workbench bench --only plugins``: criteria without a bound on a trace, built-in and plug-in,
against FirstFit on the same flow (issue 44: "within 10x of FirstFit").

The flow is the first 1,000 jobs of the KTH-SP2 log under dynamic conservative backfilling. A
criterion with no bound that falls with t makes the search read every candidate start, and every
early completion re-checks the waiting jobs with it: tens of thousands of searches a run. Each
strategy runs in this one process after a warm-up, so the times are the strategy's own
(``Schedule.elapsed_ms``), and the ratios are taken within one run.
"""

from __future__ import annotations

import dataclasses
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from workbench.engine import plugins, registry
from workbench.engine.errors import Cancelled
from workbench.lab.sources import KTH, trace_environment

Out = Callable[[str], None]
JOBS = 1000
PLUGINS = '''
import numpy as np
from workbench.api import criterion

@criterion("bench: MinLSum as a plug-in", direction="min")
def lsum(c):
    right = np.where(np.isinf(c.end), 0.0, c.end - (c.t + c.length))
    return (c.t - c.start) + right

@criterion("bench: snug end", direction="min")
def snug(c):
    return c.end - (c.t + c.length)

@criterion("bench: snug end, per start", direction="min", per_slot=False)
def snug_per_start(c):
    return c.end - (c.t + c.length)
'''
RUNS = (
    ("FirstFit", "FirstFit"),
    ("MinLSum (built-in)", "MinLSum"),
    ("MinLSum as a plug-in", "bench: MinLSum as a plug-in"),
    ("c.end - (c.t + c.length)", "bench: snug end"),
    ("the same, per_slot=False", "bench: snug end, per start"),
)
TARGET = 10.0


def run_plugins(out: Out = print, traces: Path | None = None, limit_s: float = 300.0) -> None:
    env = trace_environment(KTH, 100, traces)
    env = dataclasses.replace(env, jobs=env.jobs[:JOBS])
    with tempfile.TemporaryDirectory(prefix="workbench-bench-") as folder:
        path = Path(folder) / "bench_plugins.py"
        path.write_text(textwrap.dedent(PLUGINS))
        plugins.load_file(path)
        try:
            _measure(env, out, limit_s)
        finally:
            plugins.forget(str(path.resolve()))


def _measure(env: object, out: Out, limit_s: float) -> None:
    out(f"Criteria without a bound: first {JOBS:,} KTH jobs, dynamic backfilling, one process (this machine)")
    out(f"{'criterion':28s} {'seconds':>8s} {'× FirstFit':>10s} {'searches':>9s} {'µs/search':>9s}  within 10×")
    first_fit = None
    for label, name in RUNS:
        registry.run(dataclasses.replace(env, jobs=env.jobs[:30]), name)  # kernels and caches ready
        began = time.perf_counter()
        try:
            schedule = registry.run(env, name, should_stop=lambda end=began + limit_s: time.perf_counter() > end)
        except Cancelled:  # a stopped run is a figure too: over the limit
            out(f"{label:28s} {'>' + format(limit_s, 'g'):>8s}  stopped at the limit")
            continue
        seconds = schedule.elapsed_ms / 1000.0
        first_fit = seconds if first_fit is None else first_fit
        searches = int(schedule.counts.get("selector_searches", 0) + schedule.counts.get("checks", 0))
        per = seconds / searches * 1e6 if searches else 0.0
        ratio = seconds / first_fit
        verdict = "" if name == "FirstFit" else ("✔" if ratio <= TARGET else "✘")
        out(f"{label:28s} {seconds:8.2f} {ratio:10.1f} {searches:9,d} {per:9.1f}  {verdict}")
