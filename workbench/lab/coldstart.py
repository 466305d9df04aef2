"""``workbench bench --only coldstart``: what a fresh install pays the first time, measured in a fresh
kernel cache (docs/performance.md "Cold start").

Each figure is a separate ``workbench`` process pointed at an empty cache directory
(``WORKBENCH_KERNEL_CACHE``), as a new user meets it: ``workbench warm`` (every kernel compiled),
then ``schedule`` of the first 1,000 KTH jobs with dynamic FirstFit on a cold cache and again on the
cache it left, with the run's own time (``elapsed_ms``) and the preparation's (``prepare_ms``) as the
schedule reports them. It also counts the files ``warm`` left: one per kernel and signature.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

Out = Callable[[str], None]


def _workbench(args: list[str], cache: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "WORKBENCH_KERNEL_CACHE": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "workbench", *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"workbench {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return time.perf_counter() - began, done


def run_coldstart(out: Out, traces: Path | None = None) -> None:
    from workbench.engine import kernels
    from workbench.engine.files import save_environment
    from workbench.lab.sources import KTH, trace_environment

    with tempfile.TemporaryDirectory(prefix="workbench-coldstart-") as tmp:
        folder = Path(tmp)
        env = trace_environment(KTH, 100, traces)
        env = dataclasses.replace(env, jobs=env.jobs[:1000])
        path = folder / "kth1000.json"
        save_environment(env, path)
        seconds, _ = _workbench(["warm"], folder / "warm-cache")
        files = [p.name.rsplit("-", 1)[0] for p in (folder / "warm-cache").rglob("*.nbk")]
        out("Cold start (each a new process on an empty kernel cache; this machine)")
        out(f"  workbench warm (every kernel compiled): {seconds:.1f} s")
        many = sorted({name for name in files if files.count(name) > 1})
        out(
            f"  signatures compiled: {len(files)} files for {len(set(files))} of the {len(kernels.KERNELS)} kernels"
            + (f"; more than one: {', '.join(many)}" if many else " (one each)")
        )
        cache = folder / "cold-cache"
        for label in ("cold cache", "warm cache"):
            result = folder / f"{label[:4]}.json"
            seconds, _ = _workbench(["schedule", str(path), "--strategy", "FirstFit", "--out", str(result)], cache)
            data = json.loads(result.read_text())
            out(
                f"  schedule, first 1,000 KTH jobs, dynamic FirstFit, {label}: {seconds:.1f} s in all "
                f"(preparing the kernels {data['prepare_ms'] / 1000:.1f} s, the run {data['elapsed_ms'] / 1000:.2f} s)"
            )
