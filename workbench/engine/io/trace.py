"""What every trace import shares (docs/formats.md, "SWF import"): the machine the jobs are put
on, the jobs a selection keeps (completed only, a time window, the first N), and the environment
that results.

SWF (``io/swf.py``) and Batsim workloads (``io/batsim.py``) read their jobs; everything after that
is here, so the command line and the GUI's Import dialog select jobs with the same function.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from workbench.engine.errors import ValidationError
from workbench.engine.io.envfile import job_problem
from workbench.engine.io.limits import MAX_NODES
from workbench.engine.model import Environment, Job, Node, StrategyRef, TimeSettings
from workbench.engine.numbers import number

# SWF field 11: 0 the job failed, 5 it was cancelled (1 completed; 2-4 parts of checkpointed jobs).
FAILED, CANCELLED = 0, 5
UNKNOWN_STATUS = -1


@dataclass(frozen=True)
class Machine:
    """The nodes a trace's jobs are put on: ``nodes`` of performance ``perf``, or with
    ``performance=(lo, hi)`` each drawn from the integers lo..hi (``seed``) and priced at it."""

    nodes: int
    perf: float = 1.0
    price: float | None = None
    performance: tuple[int, int] | None = None
    seed: int = 0

    def check(self) -> None:
        if not 1 <= self.nodes <= MAX_NODES:
            raise ValidationError("--nodes", f"must be from 1 to {MAX_NODES:,}, got {self.nodes}")
        if not math.isfinite(self.perf) or self.perf <= 0:
            raise ValidationError("--perf", "must be a finite number > 0")
        if self.price is not None and (not math.isfinite(self.price) or self.price < 0):
            raise ValidationError("--price", "must be a finite number ≥ 0")
        if self.performance is not None:
            lo, hi = self.performance
            if not 1 <= lo <= hi <= 1_000_000:
                raise ValidationError("--performance", f"expected LO:HI with 1 ≤ LO ≤ HI ≤ 1000000, got {lo}:{hi}")

    @property
    def job_perf(self) -> float:
        """The performance a trace's time is measured on: a job's volume is its length times this
        (1 on mixed nodes, so a job finishes sooner on faster ones)."""
        return 1.0 if self.performance is not None else self.perf

    @property
    def min_perf(self) -> float:
        """The performance every imported job asks for: any node of the machine serves it."""
        return float(self.performance[0]) if self.performance is not None else self.perf

    def build(self) -> tuple[Node, ...]:
        if self.performance is not None:
            lo, hi = self.performance
            perf = np.random.default_rng(self.seed).integers(lo, hi + 1, size=self.nodes).astype(float)
            price = perf.copy() if self.price is None else np.full(self.nodes, self.price)
        else:
            perf = np.full(self.nodes, self.perf)
            price = np.full(self.nodes, 1.0 if self.price is None else self.price)
        width = len(str(self.nodes))
        return tuple(
            Node(f"n{i + 1}", f"node {i + 1:0{width}d}", float(p), float(c))
            for i, (p, c) in enumerate(zip(perf, price, strict=True))
        )

    def describe(self) -> str:
        if self.performance is None:
            return f"{self.nodes} nodes, identical"
        lo, hi = self.performance
        return f"{self.nodes} nodes, performance {lo}..{hi} (seed {self.seed})"


@dataclass(frozen=True)
class Selection:
    """Which of a trace's jobs to keep, applied in this order: ``skip_status`` leaves out the jobs
    the trace says failed or were cancelled (SWF field 11); ``start``/``end`` keep the jobs submitted
    in [start, end) (trace time); ``first`` keeps the first N of what is left."""

    first: int | None = None
    start: float | None = None
    end: float | None = None
    skip_status: bool = False

    def check(self) -> None:
        if self.first is not None and self.first < 1:
            raise ValidationError("--first", f"expected a whole number ≥ 1, got {self.first}")
        for name, value in (("--from", self.start), ("--to", self.end)):
            if value is not None and not math.isfinite(value):
                raise ValidationError(name, f"expected a finite time, got {value}")
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValidationError(
                "--to", f"expected a time after --from ({number(self.start)}), got {number(self.end)}"
            )

    def keeps(self, job: Job, status: int) -> bool:
        if self.skip_status and status in (FAILED, CANCELLED):
            return False
        if self.start is not None and job.arrival < self.start:
            return False
        return self.end is None or job.arrival < self.end

    def describe(self) -> str:
        parts = []
        if self.skip_status:
            parts.append("jobs that failed or were cancelled left out")
        if self.start is not None or self.end is not None:
            low = "the start" if self.start is None else number(self.start)
            high = "the end" if self.end is None else number(self.end)
            parts.append(f"jobs submitted from {low} to {high}")
        if self.first is not None:
            parts.append(f"the first {self.first:,}")
        return "; ".join(parts)


@dataclass
class TraceImport:
    """A trace read onto a machine: its jobs (with the trace's status of each), the lines or JSON
    paths left out and why, and what the environment's description keeps of the source."""

    nodes: tuple[Node, ...]
    jobs: tuple[Job, ...]
    skipped: list[str]  # "line 12: job 7 asks for 300 nodes; there are 128"
    name: str
    machine: str  # "128 nodes, identical"
    statuses: tuple[int, ...] = ()  # per job, SWF field 11 (UNKNOWN_STATUS when the source has none)
    notes: tuple[str, ...] = ()  # facts of the source kept in the description (the SWF header's)
    selected: str = ""  # the selection applied, in words
    dropped: int = 0  # jobs the selection left out (by request: not in ``skipped``)
    skipped_after: tuple[int, ...] = ()  # per ``skipped`` entry, how many jobs were read before it
    strategy: str = "EASY"

    @cached_property
    def env(self) -> Environment:
        jobs = self.jobs
        about = f"{len(jobs)} jobs on {self.machine}; {len(self.skipped)} left out."
        if self.selected:
            about += f" Selected: {self.selected} ({self.dropped:,} not taken)."
        about += "".join(f" {note}" for note in self.notes)
        return Environment(
            nodes=self.nodes,
            local_tasks=(),
            jobs=jobs,
            # A trace begins with its first arrival: a log's clock may start days before its first job.
            time=TimeSettings(start=min((j.arrival for j in jobs), default=0.0), unit="seconds"),
            name=self.name,
            description=about,
            strategy=StrategyRef(self.strategy),
        )


def imported(
    machine: Machine,
    jobs: list[Job],
    skipped: list[str],
    name: str,
    selection: Selection | None,
    statuses: tuple[int, ...] = (),
    notes: tuple[str, ...] = (),
    skipped_after: tuple[int, ...] = (),
) -> TraceImport:
    """What an importer read, on its machine, with ``selection`` applied (SWF and Batsim alike)."""
    result = TraceImport(
        nodes=machine.build(),
        jobs=tuple(jobs),
        skipped=skipped,
        name=name,
        machine=machine.describe(),
        statuses=statuses,
        notes=notes,
        skipped_after=skipped_after,
    )
    return result if selection is None else select_jobs(result, selection)


def select_jobs(result: TraceImport, selection: Selection) -> TraceImport:
    """The jobs of ``result`` that ``selection`` keeps (the one selection of `import-swf` and the
    Import dialog); the description says what was selected."""
    selection.check()
    statuses = result.statuses or (UNKNOWN_STATUS,) * len(result.jobs)
    kept = [
        (i, job, s) for i, (job, s) in enumerate(zip(result.jobs, statuses, strict=True)) if selection.keeps(job, s)
    ]
    cut = selection.first is not None and len(kept) > selection.first
    kept = kept[: selection.first]
    if len(kept) == len(result.jobs) and not selection.describe():
        return result
    skipped, after = result.skipped, result.skipped_after
    if cut and len(after) == len(skipped):
        # What was left out after the last job taken is beyond the selection: not reported.
        last = kept[-1][0] if kept else -1
        keep = [k for k, a in enumerate(after) if a <= last + 1]
        skipped, after = [skipped[k] for k in keep], tuple(after[k] for k in keep)
    return dataclasses.replace(
        result,
        jobs=tuple(job for _, job, _ in kept),
        statuses=tuple(s for _, _, s in kept),
        selected=selection.describe(),
        dropped=len(result.jobs) - len(kept),
        skipped=skipped,
        skipped_after=after,
    )


def is_gzipped(path: str | os.PathLike[str]) -> bool:
    """A trace ending in ``.gz`` is read through gzip."""
    return os.fspath(path).lower().endswith(".gz")


def unheld(job: Job) -> tuple[str, str] | None:
    """(field, why) when an environment file could not hold ``job`` (its limits, docs/formats.md
    "Limits"): such a job is left out and reported, never written."""
    problem = job_problem(job)
    if problem is None:
        return None
    return problem.path.removeprefix("$."), problem.message


def reserved_length(env: Environment, job: Job) -> float:
    """How long ``job`` runs on the slowest node it may use (V over that performance): its
    requested time when a format needs one without a schedule (on identical nodes, its length)."""
    usable = [n.performance for n in env.nodes if n.performance >= job.min_performance]
    return job.volume / (min(usable) if usable else max(n.performance for n in env.nodes))


def whole(value: float) -> float | int:
    """A number as the formats write it: a whole number without a point."""
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)
