"""`workbench bench --only saturation`: the strategies where thousands of jobs wait.

Scheduling research happens where the queue is long, so these flows are saturated:
real traces with their arrivals compressed, the Lublin–Feitelson model at an offered
load above 1, and the papers' own regime (a queue at time 0) twenty times larger.

* ``kth``: the first N jobs of KTH-SP2, arrivals divided by 3, on 100 identical nodes;
* ``nasa``: the first N jobs of NASA iPSC/860, arrivals divided by 2, on 128 nodes;
* ``lublin``: N jobs of the Lublin–Feitelson model for 256 nodes (seed 1), arrivals
  scaled to an offered load of 1.3 (the model's runtimes are exact: no early ends);
* ``backfill32``: the seed 001 preset with N_Q = 2,000 jobs queued at time 0 on 32
  heterogeneous nodes with local tasks, each job really running a U[0.2, 1] share of
  its reserved time (seed 1).

Each run happens in a child process (its peak resident memory is its own) under a time
limit. Beside the time it prints what the run had to do (``Schedule.counts``): early
completions, certificate checks (a waiting job searched again), searches, real moves
and the mean time of a search; the 2,500-job flows give the growth to 5,000.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from workbench.engine.errors import ParameterError
from workbench.engine.model import Environment
from workbench.lab.scale import in_child, timed_run
from workbench.lab.sources import KTH, NASA, trace_environment, trace_file, where

Out = Callable[[str], None]

OFFERED_LOAD = 1.3


@dataclass(frozen=True)
class Flow:
    key: str
    jobs: int
    label: str


FLOWS = [
    Flow("kth", 5000, "KTH 5k, arrivals ÷3, 100 nodes"),
    Flow("nasa", 5000, "NASA 5k, arrivals ÷2, 128 nodes"),
    Flow("lublin", 5000, "Lublin 5k, load 1.3, 256 nodes"),
    Flow("lublin", 20000, "Lublin 20k, load 1.3, 256 nodes"),
    Flow("backfill32", 2000, "backfill32, N_Q 2k at t=0, early ends"),
]
GROWTH_FROM = 2500  # the flows of 5,000 jobs are also run at this size
STRATEGIES = ["FirstFit", "CoP", "BFfinish", "EASY"]


def target_s(flow: Flow, strategy: str) -> float | None:
    """The issue's targets: 5,000 saturated jobs in 20 s (FirstFit) or 30 s (CoP, BFfinish);
    20,000 Lublin jobs in 120 s for FirstFit."""
    if strategy == "EASY" or (flow.jobs < 5000 and flow.key != "backfill32"):
        return None
    if flow.jobs > 5000:
        return 120.0 if strategy == "FirstFit" else None
    return 20.0 if strategy == "FirstFit" else 30.0


def compressed(env: Environment, jobs: int, factor: float) -> Environment:
    """The first ``jobs`` jobs, their arrivals divided by ``factor`` (counted from the first)."""
    first = env.jobs[:jobs]
    t0 = min((j.arrival for j in first), default=0.0)
    moved = tuple(dataclasses.replace(j, arrival=(j.arrival - t0) / factor) for j in first)
    name = f"{env.name}, first {len(moved)} jobs, arrivals ÷{factor:g}"
    return dataclasses.replace(env, jobs=moved, name=name, time=dataclasses.replace(env.time, start=0.0))


def saturated_environment(key: str, jobs: int, traces: Path | None) -> Environment:
    """The flow ``key`` with ``jobs`` jobs (see the module's docstring)."""
    from workbench.engine.generate import generate
    from workbench.engine.grid.lublin import generate_workload, workload_environment

    if key == "kth":
        return compressed(trace_environment(KTH, 100, traces), jobs, 3.0)
    if key == "nasa":
        return compressed(trace_environment(NASA, 128, traces), jobs, 2.0)
    if key == "lublin":
        work = generate_workload(jobs, 256, seed=1)
        env = workload_environment(work, 256, seed=1)
        span = float(work.arrival.max() - work.arrival.min()) or 1.0
        load = float((work.size * work.runtime).sum()) / (256 * span)
        return compressed(env, jobs, OFFERED_LOAD / load)
    if key == "backfill32":
        env = generate("backfill32", 1, jobs=jobs)
        rng = np.random.default_rng(1)
        early = rng.uniform(0.2, 1.0, size=len(env.jobs))
        return dataclasses.replace(
            env,
            jobs=tuple(dataclasses.replace(j, actual_fraction=float(f)) for j, f in zip(env.jobs, early, strict=True)),
        )
    raise ParameterError("flow", f"unknown saturated flow {key!r}")


def _child(flow: Flow, strategy: str, traces: Path | None, limit_s: float, answer: Any) -> None:
    env = saturated_environment(flow.key, flow.jobs, traces)
    answer.put(timed_run(env, strategy, {}, limit_s)[0])


def measure(flow: Flow, strategy: str, traces: Path | None, limit_s: float) -> dict[str, Any]:
    """One run in a fresh process: seconds, counts and peak memory."""
    return in_child(_child, flow, strategy, traces, limit_s)


def _counts(counts: dict[str, float]) -> str:
    if not counts:
        return ""
    searches = counts.get("searches", 0)
    per = counts.get("search_s", 0.0) / searches * 1e6 if searches else 0.0
    return (
        f"{int(counts.get('early_completions', 0)):>6d} {int(counts.get('checks', 0)):>8d}"
        f" {int(searches):>8d} {int(counts.get('moves', 0)):>7d} {per:>7.1f}"
    )


def run_saturation(out: Out = print, traces: Path | None = None, limit_s: float = 300.0) -> None:
    for name in (KTH, NASA):
        trace_file(name, traces)  # one line naming `traces get` when one is missing, before any run
    out(f"Saturated flows, traces from {where(traces)}; each run in its own process, stopped after {limit_s:g} s")
    out("early: early completions; checks: waiting jobs searched again; moves: reservations moved earlier;")
    out("µs/search: mean time of one window search; growth: time at 5,000 jobs over time at 2,500")
    head = f"{'flow':40s} {'strategy':9s} {'seconds':>8s} {'target':>6s} {'peak MB':>7s}"
    out(f"{head} {'early':>6s} {'checks':>8s} {'searches':>8s} {'moves':>7s} {'µs/srch':>7s}  result")
    for flow in FLOWS:
        for strategy in STRATEGIES:
            got = measure(flow, strategy, traces, limit_s)
            target = target_s(flow, strategy)
            verdict = ""
            if got["stopped"]:
                done, total = got["reached"]
                seconds = f">{got['seconds']:.0f}"
                verdict = f"✘ stopped at the limit, {done}/{total} of its work done"
            else:
                seconds = f"{got['seconds']:.2f}"
                ok = (target is None or got["seconds"] <= target) and got["peak_mb"] <= 500
                verdict = f"{'✔' if ok else '✘'} {got['placed']} of {got['jobs']} placed"
                if flow.jobs == 5000 and flow.key != "backfill32":
                    half = measure(Flow(flow.key, GROWTH_FROM, flow.label), strategy, traces, limit_s)
                    if not half["stopped"] and half["seconds"] > 0:
                        growth = got["seconds"] / half["seconds"]
                        mark = "✔" if growth <= 2.5 else "✘"
                        verdict += f"; 2,500 jobs {half['seconds']:.2f} s, growth {growth:.2f}× {mark} (≤ 2.5)"
            shown = f"{target:g}" if target is not None else "—"
            line = f"{flow.label:40s} {strategy:9s} {seconds:>8s} {shown:>6s} {got['peak_mb']:7.0f}"
            out(f"{line} {_counts(got['counts']) or ' ' * 41}  {verdict}")
    run_per_operation(out, limit_s)


QUEUED = (1000, 2000, 4000)  # backfill32's queue at t = 0, for the time per operation
GROWTH_PER_OPERATION = 1.15  # the bound on the growth of the time per move and per re-check


def per_operation(got: dict[str, Any]) -> tuple[float, float]:
    """µs per operation of a run (its seconds over moves + re-checks) and µs per re-check alone
    (its search time over its searches): the cost the semantics' count of operations is paid at."""
    counts = got["counts"]
    operations = counts.get("moves", 0) + counts.get("checks", 0)
    per_op = got["seconds"] / operations * 1e6 if operations else float("nan")
    searches = counts.get("searches", 0)
    per_check = counts.get("search_s", 0.0) / searches * 1e6 if searches else float("nan")
    return per_op, per_check


def run_per_operation(out: Out = print, limit_s: float = 300.0, queued: tuple[int, ...] = QUEUED) -> None:
    """Dynamic FirstFit on backfill32 with 1,000, 2,000 and 4,000 jobs queued at t = 0: the time per
    move and re-check, so that growth is judged per operation (≤ 15 % from the first to the last)."""
    out(f"Per operation: backfill32, N_Q jobs at t = 0, dynamic FirstFit (stopped after {limit_s:g} s)")
    out(f"{'N_Q':>6s} {'seconds':>8s} {'moves':>9s} {'checks':>10s} {'µs/op':>7s} {'µs/search':>9s}")
    first: float | None = None
    for jobs in queued:
        got = measure(Flow("backfill32", jobs, f"backfill32, N_Q {jobs}"), "FirstFit", None, limit_s)
        if got["stopped"]:
            done, total = got["reached"]
            out(f"{jobs:>6,d} {'>' + format(got['seconds'], '.0f'):>8s}  stopped at the limit, {done}/{total} done")
            continue
        per_op, per_check = per_operation(got)
        counts = got["counts"]
        growth = ""
        if first is None:
            first = per_op
        else:
            ratio = per_op / first
            mark = "✔" if ratio <= GROWTH_PER_OPERATION else "✘"
            growth = f"  {ratio:.2f}× the first {mark} (≤ {GROWTH_PER_OPERATION})"
        out(
            f"{jobs:>6,d} {got['seconds']:8.2f} {int(counts.get('moves', 0)):>9,d} {int(counts.get('checks', 0)):>10,d}"
            f" {per_op:7.2f} {per_check:9.2f}{growth}"
        )
