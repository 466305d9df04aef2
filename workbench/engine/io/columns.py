"""Jobs as columns: checked as whole arrays, turned into ``Job`` records in one pass.

The environment file (``io/envfile.py``), the container (``io/container.py``) and the SWF importer
meet here. A column holds one field of every job; ``check_job_columns`` checks a field's rule
(docs/formats.md) over the whole column at once and names the first row that breaks it, so a
200,000-job file is checked in numpy time, not field by field in Python. The rules are the ones
``records.RECORDS`` states; the JSON reader reruns its own record check on a failing row, so its
messages stay word for word what they were.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from workbench.engine.errors import ValidationError, show, text_problem
from workbench.engine.io.limits import MAX_ID, MAX_MAGNITUDE, MAX_NODE_COUNT, MAX_TEXT
from workbench.engine.io.records import RECORDS
from workbench.engine.model import JOB_CRITERIA, Job

NUMBERS = ("min_performance", "volume", "budget", "arrival", "priority", "actual_fraction")
TEXTS = ("id", "name", "user", "site")
JOB_FIELDS = ("id", "name", "node_count", *NUMBERS[:3], "criterion", *NUMBERS[3:], "user", "site")

_CONTROL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
_CONTROL_FREE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")

# Where(row, column) -> the path a message names: "$.jobs[3].volume" or "jobs.volume, row 3".
Where = Callable[[int, str], str]


def json_where(row: int, column: str) -> str:
    return f"$.jobs[{row}].{column}"


def check_text_column(values: Sequence[str], column: str, where: Where, free: bool = False) -> None:
    """``errors.text_problem`` over a column of ids (or of ``free`` text), in one regex pass; the
    first row it refuses is named with its message."""
    limit = MAX_TEXT if free else MAX_ID
    pattern = _CONTROL_FREE if free else _CONTROL
    if not values or (max(map(len, values)) <= limit and pattern.search(" ".join(values)) is None):
        return
    for row, value in enumerate(values):
        problem = text_problem(value, limit, free)
        if problem is not None:
            raise ValidationError(where(row, column), problem)


def check_unique(ids: Sequence[str], where: Where, what: str) -> None:
    """No id twice: the second row with one is named."""
    if len(set(ids)) == len(ids):
        return
    seen: set[str] = set()
    for row, ident in enumerate(ids):
        if ident in seen:
            raise ValidationError(where(row, "id"), f"duplicate {what} id {show(ident)}")
        seen.add(ident)


def check_job_columns(cols: dict[str, Any], where: Where, sites: set[str] | None) -> None:
    """Every job field's rule over whole columns; ``ValidationError`` names the first failing row.

    ``cols``: ``id``, ``name``, ``user``, ``site`` (lists of str), ``criterion`` (list of str),
    ``node_count`` (int64 array) and the ``NUMBERS`` (float64 arrays, budget +inf for none).
    ``sites``: the site ids a job may name (None: any)."""
    ids = cols["id"]
    for column in TEXTS:
        check_text_column(cols[column], column, where, free=column == "name")
    blank = next((i for i, ident in enumerate(ids) if not ident or (ident[0].isspace() and not ident.strip())), None)
    if blank is not None:
        raise ValidationError(where(blank, "id"), "expected a non-empty string")
    check_unique(ids, where, "job")
    bad = set(cols["criterion"]) - set(JOB_CRITERIA)
    if bad:
        row = next(i for i, c in enumerate(cols["criterion"]) if c in bad)
        raise ValidationError(
            where(row, "criterion"), f"expected one of {', '.join(JOB_CRITERIA)}, got {show(cols['criterion'][row])}"
        )
    count = np.asarray(cols["node_count"])
    out = np.flatnonzero((count < 1) | (count > MAX_NODE_COUNT))
    if out.size:
        raise ValidationError(
            where(int(out[0]), "node_count"),
            f"expected a whole number from 1 to {MAX_NODE_COUNT:,}, got {count[out[0]]}",
        )
    for column in NUMBERS:
        check_number_column(np.asarray(cols[column], dtype=np.float64), column, where)
    if sites is not None:
        unknown = {s for s in cols["site"] if s} - sites
        if unknown:
            row = next(i for i, s in enumerate(cols["site"]) if s in unknown)
            listed = ", ".join(sorted(sites)) or "none"
            raise ValidationError(
                where(row, "site"),
                f"no site has id {show(cols['site'][row])} (a job is submitted at a site that has nodes or is "
                f"listed in $.sites; sites: {listed})",
            )


def check_number_column(values: np.ndarray, column: str, where: Where) -> None:
    """One number column against the bounds the job record states (``records.RECORDS``); +inf is
    allowed only as "no budget"."""
    spec = RECORDS["job"][column]
    low, low_open, high = spec.low, spec.low_open, spec.high
    finite = np.isfinite(values)
    if column == "budget":
        finite |= values == math.inf
    bad = ~finite | (np.abs(np.where(np.isinf(values), 0.0, values)) > MAX_MAGNITUDE)
    if low is not None:
        bad |= (values <= low) if low_open else (values < low)
    if high is not None:
        bad |= values > high
    rows = np.flatnonzero(bad)
    if not rows.size:
        return
    row, value = int(rows[0]), float(values[rows[0]])
    if not math.isfinite(value) and not (column == "budget" and value == math.inf):
        raise ValidationError(where(row, column), f"expected a finite number, got {value}")
    if abs(value) > MAX_MAGNITUDE and math.isfinite(value):
        raise ValidationError(where(row, column), f"expected a number within ±{MAX_MAGNITUDE:g}, got {value:g}")
    if low is not None and (value < low or (low_open and value <= low)):
        raise ValidationError(
            where(row, column), f"expected a number {'>' if low_open else '≥'} {low:g}, got {value:g}"
        )
    raise ValidationError(where(row, column), f"expected a number ≤ {high:g}, got {value:g}")


def jobs_from_columns(cols: dict[str, Any]) -> tuple[Job, ...]:
    """``Job`` records from checked columns, built in one pass without per-field checks."""
    new = object.__new__
    out: list[Job] = []
    append = out.append
    numbers = [np.asarray(cols[c], dtype=np.float64).tolist() for c in NUMBERS]
    counts = np.asarray(cols["node_count"], dtype=np.int64).tolist()
    rows = zip(
        cols["id"],
        cols["name"],
        counts,
        *numbers[:3],
        cols["criterion"],
        *numbers[3:],
        cols["user"],
        cols["site"],
        strict=True,
    )
    for row in rows:
        job = new(Job)
        job.__dict__.update(zip(JOB_FIELDS, row, strict=True))  # a frozen dataclass's fields live in its __dict__
        append(job)
    return tuple(out)


def job_columns(jobs: Sequence[Job]) -> dict[str, Any]:
    """The columns of ``jobs`` (the inverse of ``jobs_from_columns``)."""
    cols: dict[str, Any] = {c: [j.__dict__[c] for j in jobs] for c in (*TEXTS, "criterion")}
    cols["node_count"] = np.fromiter((j.node_count for j in jobs), dtype=np.int64, count=len(jobs))
    for c in NUMBERS:
        cols[c] = np.fromiter((j.__dict__[c] for j in jobs), dtype=np.float64, count=len(jobs))
    return cols
