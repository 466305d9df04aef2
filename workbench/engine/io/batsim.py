"""Batsim's formats (docs/formats.md, "Batsim workload import" and "Schedule"): the JSON workload
in and out, and a schedule as Batsim's ``jobs.csv``, which evalys reads (``JobSet.from_csv``).

A workload is ``{"nb_res": N, "jobs": [{"id", "subtime", "res", "walltime", "profile"}],
"profiles": {NAME: {"type": "delay", "delay": seconds}}}``. Importing maps a job as SWF import
does (``io/swf.py``): ``subtime`` -> arrival, ``res`` -> node count, ``walltime`` -> the reserved
length (the profile's delay when there is none), delay / walltime -> ``actual_fraction`` (capped
at 1). Only delay profiles (``delay``, ``DelayProfile``) have a run time without a platform; a job
whose entry or profile cannot be imported is left out and reported with its JSON path.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
from collections.abc import Iterable
from typing import Any

from workbench.engine.errors import ValidationError, show
from workbench.engine.io.envfile import Obj
from workbench.engine.io.limits import MAX_NODES
from workbench.engine.io.records import Field
from workbench.engine.io.text import parse_json, read_text
from workbench.engine.io.trace import (
    Machine,
    Selection,
    TraceImport,
    imported,
    is_gzipped,
    reserved_length,
    unheld,
    whole,
)
from workbench.engine.model import Environment, Job
from workbench.engine.schedule import Schedule

DELAY_TYPES = ("delay", "DelayProfile")
WORKLOAD = "w0"  # the name Batsim gives the first workload it is given
NO_WALLTIME = -1
# The workload's name of each job field an environment file limits (for the path of a value it cannot hold)
SOURCE_FIELDS = {"id": "id", "arrival": "subtime", "node_count": "res"}

CSV_COLUMNS = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
)


# The fields the importer reads, checked as the environment loader checks its own (records.Field);
# Batsim allows fields of its users' besides these, which are left alone.
TOP = {"nb_res": Field("number", "the machine's resources", nullable=True)}
PROFILE = {
    "type": Field("keyword", "the profile type", required=True),
    "delay": Field("number", "the run time of a delay profile", required=True, low=0.0, low_open=True),
}
JOB = {
    "id": Field("id", "unique among the jobs", required=True),
    "subtime": Field("number", "the submission time", required=True, low=0.0),
    "profile": Field("id", "the name of a profile in $.profiles", required=True),
    "walltime": Field("number", "the requested time; -1: none", default=NO_WALLTIME),
}


def _open(data: Any, path: str, record: dict[str, Field]) -> Obj:
    """``data`` read by ``record``, any other field allowed (and ignored)."""
    extra = Field("params", "a field of the workload's own")
    fields = {key: extra for key in data} if isinstance(data, dict) else {}
    return Obj(data, path, {**fields, **record})


def import_batsim(
    path: str | os.PathLike[str],
    nodes: int | None = None,
    perf: float = 1.0,
    price: float | None = None,
    name: str | None = None,
    performance: tuple[int, int] | None = None,
    seed: int = 0,
    selection: Selection | None = None,
) -> TraceImport:
    """Read a Batsim JSON workload (``.json`` or ``.json.gz``) onto ``nodes`` nodes (default: its
    ``nb_res``); the machine options and ``selection`` are those of :func:`swf.import_swf`."""
    data = parse_json(read_text(path, gzipped=is_gzipped(path)))
    top = _open(data, "$", TOP)
    if "jobs" not in top.data:
        raise ValidationError("$.jobs", "missing required field")
    machine = Machine(_nb_res(top) if nodes is None else nodes, perf, price, performance, seed)
    machine.check()
    delays, skipped = _delays(top)
    after = [0] * len(skipped)  # per entry left out: the jobs read before it
    jobs: list[Job] = []
    seen: set[str] = set()
    for i, item in enumerate(top.items("jobs")):
        try:
            job = _job_from(item, f"$.jobs[{i}]", machine, delays, seen)
        except ValidationError as exc:
            skipped.append(str(exc))
            after.append(len(jobs))
            continue
        seen.add(job.id)
        jobs.append(job)
    title = name or f"Batsim workload {os.path.basename(os.fspath(path))}"
    return imported(machine, jobs, skipped, title, selection, skipped_after=tuple(after))


def _nb_res(top: Obj) -> int:
    value = top.num("nb_res")
    if value is None:
        raise ValidationError("--nodes", "the workload gives no nb_res: give --nodes N")
    if not value.is_integer() or not 1 <= value <= MAX_NODES:
        raise ValidationError("$.nb_res", f"expected a whole number from 1 to {MAX_NODES:,}, got {value:g}")
    return int(value)


def _delays(top: Obj) -> tuple[dict[str, float | str], list[str]]:
    """Each profile's delay, or why it cannot be imported (reported once, at its path)."""
    profiles = top.data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ValidationError("$.profiles", "expected an object of profiles")
    at = Obj({}, "$.profiles", {}).at
    delays: dict[str, float | str] = {}
    skipped = []
    for key, item in profiles.items():
        try:
            obj = _open(item, at(key), PROFILE)
            kind = obj.text("type")
            if kind not in DELAY_TYPES:
                raise ValidationError(
                    obj.at("type"),
                    f"expected {' or '.join(DELAY_TYPES)} (the others need a platform), got {show(kind)}",
                )
            delays[key] = float(obj.num("delay") or 0.0)
        except ValidationError as exc:
            delays[key] = f"its profile is left out ({exc.path})"
            skipped.append(str(exc))
    return delays, skipped


def _job_from(item: Any, where: str, machine: Machine, delays: dict[str, float | str], seen: set[str]) -> Job:
    obj = _open(item, where, JOB)
    raw = obj._get("id", None)
    ident = str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else obj.text("id")
    if ident in seen:
        raise ValidationError(obj.at("id"), f"duplicate job id {show(ident)}")
    arrival = float(obj.num("subtime") or 0.0)
    count = obj._get("res", None)
    if isinstance(count, bool) or not isinstance(count, int | float) or not float(count).is_integer():
        raise ValidationError(obj.at("res"), f"expected a whole number of resources, got {show(count)}")
    if not 1 <= count <= machine.nodes:
        raise ValidationError(
            obj.at("res"), f"expected a whole number from 1 to {machine.nodes} (the nodes), got {count}"
        )
    profile = obj.text("profile")
    delay = delays.get(profile, f"no profile {show(profile)} in $.profiles")
    if isinstance(delay, str):
        raise ValidationError(obj.at("profile"), delay)
    walltime = obj.num("walltime")
    if walltime != NO_WALLTIME and (walltime or 0.0) <= 0:
        raise ValidationError(obj.at("walltime"), f"expected a number > 0, or {NO_WALLTIME} for none, got {walltime:g}")
    length = delay if walltime == NO_WALLTIME or walltime is None else walltime
    job = Job(
        id=ident,
        name=f"job {ident}",
        node_count=int(count),
        min_performance=machine.min_perf,
        volume=length * machine.job_perf,
        budget=math.inf,
        criterion="finish",
        arrival=arrival,
        priority=0.0,
        actual_fraction=min(1.0, delay / length),
    )
    problem = unheld(job)
    if problem is not None:
        field, why = problem
        if field == "volume":  # the walltime's, or without one the profile's delay (times the performance)
            source = "profile" if walltime == NO_WALLTIME else "walltime"
        else:
            source = SOURCE_FIELDS.get(field, field)
        raise ValidationError(obj.at(source), why)
    return job


def environment_to_batsim(env: Environment) -> dict[str, Any]:
    """The environment's jobs as a Batsim workload: ``res`` its node count, ``walltime`` its length on
    the slowest node it may use, a delay profile of its actual run (``actual_fraction`` × walltime).
    A job id may repeat no profile name: ids are unique, and each profile is ``job_ID``.
    Local tasks, budgets, prices and performances have no place in a workload and are left out."""
    jobs = []
    profiles: dict[str, dict[str, Any]] = {}
    for job in env.jobs:
        walltime = reserved_length(env, job)
        profile = profile_name(job)
        profiles[profile] = {"type": "delay", "delay": whole(job.actual_fraction * walltime)}
        jobs.append(
            {
                "id": job.id,
                "subtime": whole(job.arrival),
                "res": job.node_count,
                "walltime": whole(walltime),
                "profile": profile,
            }
        )
    return {"nb_res": len(env.nodes), "jobs": jobs, "profiles": profiles}


def profile_name(job: Job) -> str:
    """The delay profile of ``job``'s actual run: one per job, since runs that differ in the last
    digit must not share one."""
    return f"job_{job.id}"


def schedule_to_batsim_csv(env: Environment, schedule: Schedule) -> str:
    """The schedule as Batsim's ``jobs.csv``: one row per job in the environment's order; times in
    model units; ``allocated_resources`` the nodes' 0-based positions as an interval set (``0-3 7``).
    A job without a window is ``REJECTED``, with empty times (as Batsim writes a rejected job)."""
    position = {node.id: k for k, node in enumerate(env.nodes)}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for job in env.jobs:
        window = schedule.window_of(job.id)
        head = [job.id, WORKLOAD, profile_name(job), whole(job.arrival), job.node_count]
        if window is None:
            writer.writerow([*head, whole(reserved_length(env, job)), 0, "REJECTED", *[""] * 7])
            continue
        start, end = window.start, schedule.actual_end(env, window)
        times = [start, end - start, end, start - job.arrival, end - job.arrival, (end - job.arrival) / (end - start)]
        nodes = interval_set(position[node] for node in window.nodes)
        writer.writerow([*head, whole(window.length), 1, "COMPLETED_SUCCESSFULLY", *map(whole, times), nodes])
    return buffer.getvalue()


def interval_set(indices: Iterable[int]) -> str:
    """Batsim's canonical interval set of node indices: sorted, maximal runs, ``a-b`` or ``a``,
    separated by spaces (``0-3 7``)."""
    runs = []
    ordered = sorted(set(indices))
    for _, group in itertools.groupby(enumerate(ordered), key=lambda pair: pair[1] - pair[0]):
        members = [index for _, index in group]
        runs.append(str(members[0]) if len(members) == 1 else f"{members[0]}-{members[-1]}")
    return " ".join(runs)
