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

import numpy as np

from workbench.engine import registry
from workbench.engine.generate import generate
from workbench.engine.selectors import slot_distances
from workbench.engine.slots import SlotTable

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
            left, right = slot_distances(table, w)
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


def run_bench(runs: int = 50, only: list[str] | None = None, out: Out = print) -> None:
    wanted = set(only or ["window"])
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
