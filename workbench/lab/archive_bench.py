"""`workbench bench --only archive`: a trace of archive size, from import to result, phase by phase.

The workloads are the Lublin–Feitelson model's, generated (seed 1) at their own load on 512 nodes:
200,000 and 1,000,000 jobs. Each is written once as an SWF trace, a JSON environment and a
container (not timed), then, each in a fresh process so that its memory is its own:

- *import*: the SWF trace read into an environment (`import-swf`);
- *load*, *run* (EASY), *measures* (every flow measure), *write* (the result with its
  environment), once with the container and once with JSON: the end-to-end time is their sum;
- *GUI open*: the result container opened in the window offscreen, until its whole picture is
  drawn, with the GUI thread's longest block (a 5 ms heartbeat);
- dynamic FirstFit on the 200,000 jobs, stopped at the limit.

Peak memory is each phase's own: the process's high-water mark is reset between phases
(``/proc/self/clear_refs``) and read after it.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.lab.scale import in_child

Out = Callable[[str], None]
NODES = 512
SIZES = (200_000, 1_000_000)
TARGETS = {  # end to end (load, run, measures, write): seconds and MB, issue 45
    (200_000, ".npz"): (5.0, 1024.0),
    (200_000, ".json"): (20.0, None),
    (1_000_000, ".npz"): (25.0, 4096.0),
}


def peak_mb() -> float:
    """This process's resident high-water mark since the last ``reset_peak`` (MB)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")  # pragma: no cover - not Linux


def reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:  # pragma: no cover - not Linux, or not allowed: the peak is then the process's
        pass


class Phases:
    """Times and peaks of the phases of one process."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float]] = []

    def __call__(self, name: str, work: Callable[[], Any]) -> Any:
        reset_peak()
        began = time.perf_counter()
        value = work()
        self.rows.append((name, time.perf_counter() - began, peak_mb()))
        return value


def prepare(jobs: int, folder: Path) -> dict[str, str]:
    """The workload of ``jobs`` as an SWF trace, a JSON environment and a container in ``folder``."""
    from workbench.engine.files import save_environment
    from workbench.engine.grid.configs import lublin_environment
    from workbench.engine.grid.lublin import generate_workload
    from workbench.engine.io.swf import write_swf

    work = generate_workload(jobs, NODES, 1)
    columns = zip(work.arrival.tolist(), work.runtime.tolist(), work.size.tolist(), strict=True)
    rows = [(k + 1, float(a), float(r), int(s), float(r)) for k, (a, r, s) in enumerate(columns)]
    paths = {"swf": str(folder / f"l{jobs}.swf")}
    paths |= {suffix: str(folder / f"l{jobs}{suffix}") for suffix in (".json", ".npz")}
    write_swf(paths["swf"], rows, f"MaxNodes: {NODES}\nLublin–Feitelson workload, {jobs} jobs, seed 1")
    env, _ = lublin_environment(jobs, 1, NODES)
    save_environment(env, paths[".json"])
    save_environment(env, paths[".npz"])
    return paths


def _import(swf: str, answer: Any) -> None:
    from workbench.engine.io.swf import import_swf

    phases = Phases()
    result = phases("import", lambda: import_swf(swf, NODES))
    answer.put({"rows": phases.rows, "jobs": len(result.env.jobs)})


def _end_to_end(path: str, out_path: str, answer: Any) -> None:
    from workbench.allocator import settle_allocator
    from workbench.engine import registry
    from workbench.engine.files import load_environment
    from workbench.engine.io.result_files import save_result
    from workbench.engine.metrics import flow_metrics
    from workbench.engine.warmup import warm

    settle_allocator()
    warm()  # the compiled kernels made ready first, as a run's own time leaves them out
    phases = Phases()
    env = phases("load", lambda: load_environment(path))
    schedule = phases("run", lambda: registry.run(env, "EASY", {}))
    phases("measures", lambda: flow_metrics(env, schedule))
    phases("write", lambda: save_result(env, schedule, out_path, environment=path))
    answer.put({"rows": phases.rows, "placed": len(schedule.windows), "sim_s": schedule.elapsed_ms / 1000.0})


def _dynamic(path: str, limit_s: float, answer: Any) -> None:
    from workbench.engine.files import load_environment
    from workbench.lab.scale import timed_run

    env = load_environment(path)
    got, _ = timed_run(env, "FirstFit", {}, limit_s)
    answer.put(got)


def gui_open(path: str) -> dict[str, Any]:
    """``gui.bench.open_result_timed`` in a fresh process (the lab never imports the GUI)."""
    import json
    import os
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "workbench.gui.bench", "--open-result", path],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    got: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return got


def run_archive(out: Out = print, limit_s: float = 300.0, sizes: tuple[int, ...] = SIZES) -> None:
    out(f"Archive scale: Lublin–Feitelson workloads on {NODES} nodes (seed 1); each phase in a fresh process")
    out(f"{'workload':>10s} {'phase':28s} {'seconds':>8s} {'peak MB':>8s}")
    with tempfile.TemporaryDirectory(prefix="workbench-archive-") as tmp:
        folder = Path(tmp)
        for jobs in sizes:
            began = time.perf_counter()
            paths = prepare(jobs, folder)
            out(f"{jobs:>10,d} {'(made the files, not timed)':28s} {time.perf_counter() - began:8.1f}")
            got = in_child(_import, paths["swf"])
            for name, seconds, peak in got["rows"]:
                verdict = "" if jobs != 200_000 else (" ✔ (≤ 3 s)" if seconds <= 3 else " ✘ (≤ 3 s)")
                out(f"{jobs:>10,d} {name + ' (SWF)':28s} {seconds:8.2f} {peak:8.0f}{verdict}")
            for suffix in (".npz", ".json"):
                got = in_child(_end_to_end, paths[suffix], str(folder / f"r{jobs}{suffix}"))
                total = sum(seconds for _, seconds, _ in got["rows"])
                peak = max(p for _, _, p in got["rows"])
                for name, seconds, p in got["rows"]:
                    out(f"{jobs:>10,d} {name + f' ({suffix})':28s} {seconds:8.2f} {p:8.0f}")
                target = TARGETS.get((jobs, suffix))
                verdict = ""
                if target is not None:
                    ok = total <= target[0] and (target[1] is None or peak <= target[1])
                    mem = f", ≤ {target[1]:,.0f} MB" if target[1] else ""
                    verdict = f" {'✔' if ok else '✘'} (≤ {target[0]:g} s{mem})"
                out(f"{jobs:>10,d} {'end to end (' + suffix + ')':28s} {total:8.2f} {peak:8.0f}{verdict}")
                rate = jobs / got["sim_s"] if got["sim_s"] > 0 else float("inf")
                out(f"{jobs:>10,d} {'  EASY simulation alone':28s} {got['sim_s']:8.2f} {'':8s} {rate:,.0f} jobs/s")
            got = gui_open(str(folder / f"r{jobs}.npz"))
            if "error" in got:
                out(f"{jobs:>10,d} {'GUI open (result .npz)':28s} failed: {got['error']}")
            else:
                verdict = " ✔" if got["seconds"] <= 5 and got["worst_ms"] <= 100 else " ✘"
                out(
                    f"{jobs:>10,d} {'GUI open (result .npz)':28s} {got['seconds']:8.2f} {got['peak_mb']:8.0f}"
                    f" longest block {got['worst_ms']:.0f} ms; a zoom {got['zoom_ms']:.0f} ms{verdict}"
                    " (≤ 5 s, ≤ 100 ms)"
                )
            if jobs == 200_000:
                got = in_child(_dynamic, paths[".npz"], limit_s)
                if got["stopped"]:
                    done, total_work = got["reached"]
                    line = f">{got['seconds']:7.0f} stopped, {done}/{total_work} done ✘"
                else:
                    ok = "✔" if got["seconds"] <= 60 else "✘"
                    line = f"{got['seconds']:8.2f} {got['peak_mb']:8.0f} {ok} (≤ 60 s)"
                out(f"{jobs:>10,d} {'dynamic FirstFit':28s} {line}")
