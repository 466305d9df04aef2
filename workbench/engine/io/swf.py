"""The Standard Workload Format (docs/design.md "Environment file", SWF mapping; docs/formats.md).

Import: each SWF job becomes a Job on N identical nodes (performance P, price C;
node ids n1..nN; unbounded horizon):

* the job id is the SWF job number, and the file order is kept;
* submit time -> ``arrival``;
* requested processors -> ``node_count`` (allocated processors when the request is -1);
* requested time -> reservation length (run time when the request is missing),
  so ``volume`` = that length × P;
* run time / requested time -> ``actual_fraction``, capped at 1 (an overrunning job
  is killed at its requested time, as batch systems do);
* user number -> ``user`` (empty when the trace says -1).

N defaults to the header's ``MaxNodes``, else ``MaxProcs``; its ``UnixStartTime`` and
``TimeZoneString`` go into the description. A ``.gz`` trace is read as it is. Header comments
(';') and -1 fields of the Parallel Workloads Archive are tolerated. A line that cannot be a job
(not 18 fields, a field that is not a finite number, a fractional processor count or job number,
a job wider than N, no usable size or length, a repeated job number, a value an environment file
cannot hold) is left out and reported with its line number and reason, so what the import writes
always loads.

Export: a schedule as a trace (:func:`schedule_to_swf`), the jobs with their simulated wait and
run times.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import math
import os
import zlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from workbench.engine.errors import ValidationError, WorkbenchError, show, text_problem
from workbench.engine.io.columns import jobs_from_columns as columns_jobs
from workbench.engine.io.limits import MAX_ID, MAX_ITEMS, MAX_MAGNITUDE, MAX_NODES
from workbench.engine.io.text import read_text
from workbench.engine.io.trace import (
    CANCELLED,
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
from workbench.engine.numbers import number
from workbench.engine.schedule import Schedule

FIELDS = 18
# 1-based SWF field numbers of the fields the import reads
JOB, SUBMIT, RUN, ALLOC, REQ_PROCS, REQ_TIME, STATUS, USER = 1, 2, 4, 5, 8, 9, 11, 12
HEADER_KEYS = ("MaxNodes", "MaxProcs", "UnixStartTime", "TimeZoneString")
COMPLETED = 1  # field 11 of the export: a job with a window ran (one without is CANCELLED: it never started)

Header = dict[str, tuple[int, str]]  # header key -> (line number, value as written)


def read_header(path: str | os.PathLike[str]) -> Header:
    """The fields of a trace's header (the ``;`` lines before the first job) the import reads;
    only the header is read, from a ``.gz`` trace too."""
    try:
        opener = gzip.open if is_gzipped(path) else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as lines:
            return _header_of(lines)
    except (OSError, EOFError, zlib.error) as exc:
        raise WorkbenchError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None


def _header_of(lines: Iterable[str]) -> Header:
    found: Header = {}
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if line and not line.startswith(";"):
            break
        key, sep, value = line.lstrip("; ").partition(":")
        if sep and key.strip() in HEADER_KEYS:
            found.setdefault(key.strip(), (lineno, value.strip()))
    return found


def header_machine_size(header: Header) -> tuple[int, str] | None:
    """(size, where) of the machine the header names: ``MaxNodes``, else ``MaxProcs``, if positive."""
    for key in ("MaxNodes", "MaxProcs"):
        if key in header:
            lineno, value = header[key]
            with contextlib.suppress(ValueError):
                size = int(value)
                if size > 0:
                    return size, f"{key} on line {lineno}"
    return None


def swf_machine_size(path: str | os.PathLike[str]) -> int | None:
    """The machine size a trace's header gives (``MaxNodes``, else ``MaxProcs``), or None."""
    found = header_machine_size(read_header(path))
    return None if found is None else found[0]


def _header_notes(header: Header) -> tuple[tuple[str, ...], list[str]]:
    """The header's start time and time zone as the description keeps them, and the values left out."""
    kept: list[str] = []
    left_out: list[str] = []
    if "UnixStartTime" in header:
        lineno, value = header["UnixStartTime"]
        try:
            seconds = int(value)
            try:
                when = datetime.fromtimestamp(seconds, UTC).strftime(" (%Y-%m-%d %H:%M:%S UTC)")
            except (OverflowError, OSError, ValueError):
                when = ""
            kept.append(f"UnixStartTime {seconds}{when}")
        except ValueError:
            left_out.append(f"line {lineno}: UnixStartTime is not a whole number of seconds: {show(value, 40)}")
    if "TimeZoneString" in header:
        lineno, value = header["TimeZoneString"]
        problem = text_problem(value, MAX_ID)
        if problem is None:
            kept.append(f"TimeZoneString {value}")
        else:
            left_out.append(f"line {lineno}: TimeZoneString: {problem}")
    notes = (f"Trace header: {', '.join(kept)}.",) if kept else ()
    return notes, left_out


def import_swf(
    path: str | os.PathLike[str],
    nodes: int | None = None,
    perf: float = 1.0,
    price: float | None = None,
    name: str | None = None,
    performance: tuple[int, int] | None = None,
    seed: int = 0,
    selection: Selection | None = None,
) -> TraceImport:
    """Read an SWF trace (``.swf`` or ``.swf.gz``) into an environment of ``nodes`` nodes (default:
    the header's machine size), keeping the jobs ``selection`` selects (:func:`select_jobs`).

    With ``performance=(lo, hi)`` each node's performance is drawn uniformly from the
    integers lo..hi (``seed``) and its price is proportional to it unless ``price`` is
    given; a job's volume stays its requested time × the trace machine's performance
    (1), so it finishes sooner on faster nodes. Otherwise every node has ``perf``.
    """
    text = read_text(path, gzipped=is_gzipped(path))
    header = _header_of(text.splitlines())
    if nodes is None:
        nodes = _default_nodes(header)
    machine = Machine(nodes, perf, price, performance, seed)
    machine.check()
    notes, skipped = _header_notes(header)
    after = [0] * len(skipped)  # per skipped line: the jobs read before it
    jobs, statuses = _read_jobs(text, machine, skipped, after)
    title = name or f"SWF import of {os.path.basename(os.fspath(path))}"
    return imported(machine, jobs, skipped, title, selection, tuple(statuses), notes, tuple(after))


def _read_jobs(text: str, machine: Machine, skipped: list[str], after: list[int]) -> tuple[list[Job], list[int]]:
    """The jobs of a trace's lines and their statuses; the lines left out go to ``skipped`` (with,
    in ``after``, the jobs read before each). Whole columns are parsed and checked at once
    (``_columns``); a line that any rule might refuse is read again alone by ``_job_from``, so what
    is kept and every message are the line-by-line reader's own."""
    numbered = enumerate(text.splitlines(), start=1)
    lines = [(k, line) for k, line in numbered if line.strip() and not line.lstrip().startswith(";")]
    if len(lines) > MAX_ITEMS:
        limit = f"more than {MAX_ITEMS:,} jobs; the limit is {MAX_ITEMS:,}"
        raise ValidationError(f"line {lines[MAX_ITEMS][0]}", limit)
    if not lines:
        return [], []
    try:
        values = np.loadtxt(io.StringIO("\n".join(line for _, line in lines)), comments=None, ndmin=2)
    except ValueError:  # a line without 18 numbers: every line is read alone
        values = None
    if values is None or values.shape[1:] != (FIELDS,) or values.shape[0] != len(lines):
        return _lines_one_by_one(lines, machine, skipped, after)
    fast, columns, statuses_all = _columns(values, machine)
    jobs: list[Job] = []
    statuses: list[int] = []
    by_row: list[tuple[int, Job, int]] = []
    fast_rows = np.flatnonzero(fast).tolist()
    first_of = {num: row for row, num in zip(fast_rows, values[fast, JOB - 1].tolist(), strict=True)}
    fast_before = np.cumsum(fast) - fast  # fast jobs in the rows before each row
    slow_ids: set[str] = set()
    for row in np.flatnonzero(~fast).tolist():
        k, line = lines[row]
        number = values[row, JOB - 1]
        seen = set(slow_ids)
        if math.isfinite(number) and first_of.get(number, row) < row:
            seen.add(str(int(number)))
        job = _job_from(line.split(), machine, seen)
        if isinstance(job, str):
            skipped.append(f"line {k}: {job}")
            after.append(int(fast_before[row]) + len(by_row))
        else:
            slow_ids.add(job[0].id)
            by_row.append((row, job[0], job[1]))
    made = iter(columns_jobs(columns))
    slow = iter(by_row)
    pending = next(slow, None)
    for row, status in zip(np.flatnonzero(fast).tolist(), statuses_all[fast].tolist(), strict=True):
        while pending is not None and pending[0] < row:
            jobs.append(pending[1])
            statuses.append(pending[2])
            pending = next(slow, None)
        jobs.append(next(made))
        statuses.append(status)
    while pending is not None:
        jobs.append(pending[1])
        statuses.append(pending[2])
        pending = next(slow, None)
    return jobs, statuses


def _columns(values: np.ndarray, machine: Machine) -> tuple[np.ndarray, dict[str, Any], np.ndarray]:
    """Which rows every rule surely accepts (``fast``), their jobs as columns, and every row's status.
    A row any rule might refuse (a non-finite or fractional number, no size or length, too wide, a
    repeated job number, a value past the file limits) is left to ``_job_from``."""
    num, submit, run, alloc, procs, req = (values[:, i - 1] for i in (JOB, SUBMIT, RUN, ALLOC, REQ_PROCS, REQ_TIME))
    with np.errstate(invalid="ignore"):
        width = np.where(procs > 0, procs, alloc)
        length = np.where(req > 0, req, run)
        fast = np.isfinite(values).all(axis=1) & (num == np.floor(num)) & (np.abs(num) < 1e15)
        fast &= (width > 0) & (width == np.floor(width)) & (width <= machine.nodes)
        fast &= (length > 0) & (run != 0) & (length * machine.job_perf <= MAX_MAGNITUDE) & (submit <= MAX_MAGNITUDE)
    _, first = np.unique(num, return_index=True)
    repeated = np.ones(num.size, dtype=bool)
    repeated[first] = False
    fast &= ~repeated
    f = fast
    ids = num[f].astype(np.int64).astype(str).tolist()
    user = values[f, USER - 1]
    users = np.where((user >= 0) & (user == np.floor(user)), np.abs(user).astype(np.int64).astype(str), "").tolist()
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.where(run[f] < 0, 1.0, np.minimum(1.0, run[f] / length[f]))
    m = int(f.sum())
    columns: dict[str, Any] = {
        "id": ids,
        "name": [f"job {i}" for i in ids],
        "node_count": width[f].astype(np.int64),
        "min_performance": np.full(m, machine.min_perf),
        "volume": length[f] * machine.job_perf,
        "budget": np.full(m, math.inf),
        "criterion": ["finish"] * m,
        "arrival": np.maximum(submit[f], 0.0),
        "priority": np.zeros(m),
        "actual_fraction": fraction,
        "user": users,
        "site": [""] * m,
    }
    statuses = np.where(np.isfinite(values[:, STATUS - 1]), values[:, STATUS - 1], 0).astype(np.int64)
    return fast, columns, statuses


def _lines_one_by_one(
    lines: list[tuple[int, str]], machine: Machine, skipped: list[str], after: list[int]
) -> tuple[list[Job], list[int]]:
    jobs: list[Job] = []
    statuses: list[int] = []
    seen: set[str] = set()
    for lineno, line in lines:
        job = _job_from(line.split(), machine, seen)
        if isinstance(job, str):
            skipped.append(f"line {lineno}: {job}")
            after.append(len(jobs))
        else:
            seen.add(job[0].id)
            jobs.append(job[0])
            statuses.append(job[1])
    return jobs, statuses


def _default_nodes(header: Header) -> int:
    found = header_machine_size(header)
    if found is None:
        raise ValidationError(
            "--nodes", "the trace's header names no machine size (MaxNodes or MaxProcs): give --nodes N"
        )
    size, where = found
    if size > MAX_NODES:
        raise ValidationError(
            "--nodes", f"the trace's header says {size:,} ({where}); the limit is {MAX_NODES:,}: give --nodes N"
        )
    return size


def _job_from(parts: list[str], machine: Machine, seen: set[str]) -> tuple[Job, int] | str:
    """The job of one SWF line and its status (field 11), or why the line cannot be one (it is then
    left out and reported)."""
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
    if not values[JOB - 1].is_integer():
        return f"job number {show(parts[JOB - 1], 40)} is not a whole number"
    job_id = str(int(values[JOB - 1]))
    label = job_id if len(job_id) <= 40 else job_id[:39] + "…"  # a number of up to 309 digits
    if job_id in seen:
        return f"job number {label} appears twice"
    submit, run, alloc, req_procs, req_time = (values[i - 1] for i in (SUBMIT, RUN, ALLOC, REQ_PROCS, REQ_TIME))
    width = req_procs if req_procs > 0 else alloc
    if width <= 0:
        return f"job {label} gives no processor count"
    if not width.is_integer():
        return f"job {label} asks for {width:g} processors, not a whole number"
    if width > machine.nodes:
        return f"job {label} asks for {int(width)} nodes; there are {machine.nodes}"
    length = req_time if req_time > 0 else run
    if length <= 0:
        return f"job {label} gives neither a requested nor a run time"
    if run == 0:
        return f"job {label} ran for 0 time units"
    job = Job(
        id=job_id,
        name=f"job {job_id}",
        node_count=int(width),
        min_performance=machine.min_perf,
        volume=length * machine.job_perf,
        budget=math.inf,
        criterion="finish",
        arrival=max(submit, 0.0),
        priority=0.0,
        actual_fraction=1.0 if run < 0 else min(1.0, run / length),
        user=_user(values[USER - 1]),
    )
    problem = unheld(job)
    if problem is not None:
        name, why = problem
        source = {"id": JOB, "arrival": SUBMIT, "volume": REQ_TIME if req_time > 0 else RUN, "user": USER}.get(name)
        return f"job {label}: {name}{f' (field {source})' if source else ''}: {why}"
    return job, int(values[STATUS - 1])


def _user(value: float) -> str:
    """SWF's user number as the job's user ("" when the trace says -1, unknown)."""
    return str(int(value)) if value >= 0 and value.is_integer() else ""


def write_swf(path: str | os.PathLike[str], rows: list[tuple[int, float, float, int, float]], header: str) -> None:
    """Write a minimal SWF trace: (job, submit, run time, processors, requested time) per row."""
    lines = [f"; {line}" for line in header.splitlines()]
    for job, submit, run, procs, req in rows:
        fields = [job, int(submit), -1, int(run), procs, -1, -1, procs, int(req), -1, 1, 1, 1, -1, 1, -1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    from workbench.engine.io.atomic import write_text_atomic

    write_text_atomic("\n".join(lines) + "\n", path)


def schedule_to_swf(env: Environment, schedule: Schedule) -> str:
    """The environment's jobs as an SWF trace, in their order, with the schedule's times: field 3 the
    wait (start − arrival), field 4 the run time (actual end − start), field 5 the nodes allocated,
    field 9 the reserved length, field 11 status 1; a job without a window has -1 for those and
    status 5 (cancelled: it never started). Importing the trace back gives the same jobs."""
    numbers, renumbered = _job_numbers(env)
    lines = [
        "Version: 2.2",
        f"Computer: Slot Workbench, {_machine_words(env)}",
        f"Note: the schedule of {schedule.strategy} on {env.name or 'an untitled environment'}; fields 3 (wait)"
        " and 4 (run time) are simulated",
        *(["Note: job numbers are positions in the job list (the job ids are not all whole numbers)"] * renumbered),
        f"MaxJobs: {len(env.jobs)}",
        f"MaxRecords: {len(env.jobs)}",
        f"MaxNodes: {len(env.nodes)}",
        f"MaxProcs: {len(env.nodes)}",
    ]
    rows = [f"; {line}" for line in lines]
    for job, job_number in zip(env.jobs, numbers, strict=True):
        window = schedule.window_of(job.id)
        if window is None:
            wait = run = alloc = -1.0
            requested, status = reserved_length(env, job), CANCELLED
        else:
            wait, run = window.start - job.arrival, schedule.actual_end(env, window) - window.start
            alloc, requested, status = len(window.nodes), window.length, COMPLETED
        user = int(job.user) if job.user.isdigit() else -1
        fields = [job.arrival, wait, run, alloc, -1, -1, job.node_count, requested, -1, status, user, *[-1] * 6]
        rows.append(" ".join([job_number, *map(_field, fields)]))
    return "\n".join(rows) + "\n"


def _job_numbers(env: Environment) -> tuple[list[str], bool]:
    """SWF job numbers: the ids when they are all distinct whole numbers, else positions from 1."""
    ids = [job.id for job in env.jobs]
    if all(i.isascii() and i.isdigit() and len(i) <= 15 for i in ids) and len(set(map(int, ids))) == len(ids):
        return [str(int(i)) for i in ids], False
    return [str(k) for k in range(1, len(ids) + 1)], True


def _machine_words(env: Environment) -> str:
    perf = sorted({n.performance for n in env.nodes})
    price = sorted({n.price for n in env.nodes})

    def span(values: list[float]) -> str:
        return number(values[0]) if len(values) == 1 else f"{number(values[0])}..{number(values[-1])}"

    return f"{len(env.nodes)} nodes, performance {span(perf)}, price {span(price)}"


def _field(value: float) -> str:
    """A number as SWF writes it: whole numbers without a point, others in full (repr)."""
    return repr(whole(value))
