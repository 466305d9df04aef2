"""Standard Workload Format import (docs/design.md "Environment file", SWF mapping).

Each SWF job becomes a Job on N identical nodes (performance P, price C;
node ids n1..nN; unbounded horizon):

* the job id is the SWF job number, and the file order is kept;
* submit time -> ``arrival``;
* requested processors -> ``node_count`` (allocated processors when the request is -1);
* requested time -> reservation length (run time when the request is missing),
  so ``volume`` = that length × P;
* run time / requested time -> ``actual_fraction``, capped at 1 (an overrunning job
  is killed at its requested time, as batch systems do);
* user number -> ``user`` (empty when the trace says -1).

Header comments (';') and -1 fields of the Parallel Workloads Archive are
tolerated. A line that cannot be a job (not 18 fields, a field that is not a finite
number, a fractional processor count or job number, a job wider than N, no usable
size or length, a repeated job number) is left out and reported with its line
number and reason, so what the import writes always loads.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass, field

import numpy as np

from workbench.engine.errors import ValidationError, show
from workbench.engine.io.envfile import MAX_ITEMS, MAX_NODES, read_text
from workbench.engine.model import Environment, Job, Node, StrategyRef, TimeSettings

FIELDS = 18
# 1-based SWF field numbers of the fields the import reads
JOB, SUBMIT, RUN, ALLOC, REQ_PROCS, REQ_TIME, USER = 1, 2, 4, 5, 8, 9, 12


@dataclass
class SwfImport:
    env: Environment
    skipped: list[str] = field(default_factory=list)  # "line 12: job 7 asks for 300 nodes; there are 128"


def swf_machine_size(path: str | os.PathLike[str]) -> int | None:
    """The machine size a trace's header gives (``MaxNodes``, else ``MaxProcs``), or None.

    Only the header (the ``;`` lines before the first job) is read."""
    found: dict[str, int] = {}
    with open(path, encoding="utf-8", errors="replace") as lines:
        for raw in lines:
            line = raw.strip()
            if line and not line.startswith(";"):
                break
            key, sep, value = line.lstrip("; ").partition(":")
            if sep and key.strip() in ("MaxNodes", "MaxProcs"):
                with contextlib.suppress(ValueError):
                    found[key.strip()] = int(value.strip())
    size = found.get("MaxNodes") or found.get("MaxProcs")
    return size if size is not None and size > 0 else None


def import_swf(
    path: str | os.PathLike[str],
    nodes: int,
    perf: float = 1.0,
    price: float | None = None,
    name: str | None = None,
    performance: tuple[int, int] | None = None,
    seed: int = 0,
) -> SwfImport:
    """Read an SWF trace into an environment of ``nodes`` nodes.

    With ``performance=(lo, hi)`` each node's performance is drawn uniformly from the
    integers lo..hi (``seed``) and its price is proportional to it unless ``price`` is
    given; a job's volume stays its requested time × the trace machine's performance
    (1), so it finishes sooner on faster nodes. Otherwise every node has ``perf``.
    """
    if not 1 <= nodes <= MAX_NODES:
        raise ValidationError("--nodes", f"must be from 1 to {MAX_NODES:,}, got {nodes}")
    if not math.isfinite(perf) or perf <= 0:
        raise ValidationError("--perf", "must be a finite number > 0")
    if price is not None and (not math.isfinite(price) or price < 0):
        raise ValidationError("--price", "must be a finite number ≥ 0")
    if performance is not None:
        lo, hi = performance
        if not 1 <= lo <= hi <= 1_000_000:
            raise ValidationError("--performance", f"expected LO:HI with 1 ≤ LO ≤ HI ≤ 1000000, got {lo}:{hi}")
        rng = np.random.default_rng(seed)
        node_perf = rng.integers(lo, hi + 1, size=nodes).astype(float)
        node_price = node_perf.copy() if price is None else np.full(nodes, price)
        job_perf, min_perf = 1.0, float(lo)
    else:
        node_perf = np.full(nodes, perf)
        node_price = np.full(nodes, 1.0 if price is None else price)
        job_perf, min_perf = perf, perf
    text = read_text(path)
    jobs: list[Job] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if len(jobs) >= MAX_ITEMS:
            raise ValidationError(f"line {lineno}", f"more than {MAX_ITEMS:,} jobs; the limit is {MAX_ITEMS:,}")
        job = _job_from(line.split(), nodes, job_perf, min_perf, seen)
        if isinstance(job, str):
            skipped.append(f"line {lineno}: {job}")
        else:
            seen.add(job.id)
            jobs.append(job)
    width = len(str(nodes))
    kind = "identical" if performance is None else f"performance {performance[0]}..{performance[1]} (seed {seed})"
    env = Environment(
        nodes=tuple(
            Node(f"n{i + 1}", f"node {i + 1:0{width}d}", float(p), float(c))
            for i, (p, c) in enumerate(zip(node_perf, node_price, strict=True))
        ),
        local_tasks=(),
        jobs=tuple(jobs),
        # The trace begins with its first arrival: a log's clock may start days before its first job.
        time=TimeSettings(start=min((j.arrival for j in jobs), default=0.0), cycle_length=None, horizon=None),
        name=name or f"SWF import of {os.path.basename(os.fspath(path))}",
        description=f"{len(jobs)} jobs on {nodes} nodes, {kind}; {len(skipped)} left out.",
        strategy=StrategyRef("EASY"),
    )
    return SwfImport(env, skipped)


def _job_from(parts: list[str], nodes: int, job_perf: float, min_perf: float, seen: set[str]) -> Job | str:
    """The job of one SWF line, or why the line cannot be one (it is then left out and reported)."""
    if len(parts) != FIELDS:
        return f"has {len(parts)} fields; an SWF line has {FIELDS}"
    values = []
    for k, part in enumerate(parts, start=1):
        try:
            value = float(part)
        except ValueError:
            return f"field {k} is not a number: {show(part, 40)}"
        if not math.isfinite(value):
            return f"field {k} is not a finite number: {show(part, 40)}"
        values.append(value)
    number = values[JOB - 1]
    if not number.is_integer():
        return f"job number {show(parts[JOB - 1], 40)} is not a whole number"
    job_id = str(int(number))
    if job_id in seen:
        return f"job number {job_id} appears twice"
    submit, run, alloc, req_procs, req_time = (values[i - 1] for i in (SUBMIT, RUN, ALLOC, REQ_PROCS, REQ_TIME))
    width = req_procs if req_procs > 0 else alloc
    if width <= 0:
        return f"job {job_id} gives no processor count"
    if not width.is_integer():
        return f"job {job_id} asks for {width:g} processors, not a whole number"
    if width > nodes:
        return f"job {job_id} asks for {int(width)} nodes; there are {nodes}"
    length = req_time if req_time > 0 else run
    if length <= 0:
        return f"job {job_id} gives neither a requested nor a run time"
    if run == 0:
        return f"job {job_id} ran for 0 time units"
    return Job(
        id=job_id,
        name=f"job {job_id}",
        node_count=int(width),
        min_performance=min_perf,
        volume=length * job_perf,
        budget=math.inf,
        criterion="finish",
        arrival=max(submit, 0.0),
        priority=0.0,
        actual_fraction=1.0 if run < 0 else min(1.0, run / length),
        user=_user(values[USER - 1]),
    )


def _user(value: float) -> str:
    """SWF's user number as the job's user ("" when the trace says -1, unknown)."""
    return str(int(value)) if value >= 0 and value.is_integer() else ""


def write_swf(path: str | os.PathLike[str], rows: list[tuple[int, float, float, int, float]], header: str) -> None:
    """Write a minimal SWF trace: (job, submit, run time, processors, requested time) per row."""
    lines = [f"; {line}" for line in header.splitlines()]
    for job, submit, run, procs, req in rows:
        fields = [job, int(submit), -1, int(run), procs, -1, -1, procs, int(req), -1, 1, 1, 1, -1, 1, -1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    from workbench.engine.io.envfile import write_text_atomic

    write_text_atomic("\n".join(lines) + "\n", path)
