"""``workbench bench --only why``: what Why so late? costs on the whole KTH trace (engine/waits.py).

The explanation is read from a run's schedule on demand (the GUI asks it in the Why here? panel's
worker, the CLI in ``workbench explain``); a plain run pays nothing for it. This measures one
question: the jobs that waited longest, under EASY and dynamic FirstFit, each asked once.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from workbench.engine import registry
from workbench.engine.explain import explain_late
from workbench.lab.scale import environment

Out = Callable[[str], None]
ASKED = 20  # the longest waits asked about, per strategy


def run_why(out: Out = print, traces: Path | None = None) -> None:
    env = environment("kth_all", traces)
    out(f"Why so late? on the whole KTH trace ({len(env.jobs):,} jobs, 100 nodes): the {ASKED} longest waits")
    for strategy in ("EASY", "FirstFit"):
        schedule = registry.run(env, strategy)
        waits = sorted(schedule.windows, key=lambda w: w.start - env.job(w.job).arrival, reverse=True)[:ASKED]
        times, stretches = [], []
        for w in waits:
            began = time.perf_counter()
            answer = explain_late(env, schedule, w.job, strategy)
            times.append((time.perf_counter() - began) * 1000)
            stretches.append(len(answer.stretches))
        out(
            f"  {strategy:9s} median {statistics.median(times):6.1f} ms, max {max(times):6.1f} ms per question; "
            f"{statistics.median(stretches):.0f} stretches (median); run {schedule.elapsed_ms:.0f} ms, not slowed"
        )
