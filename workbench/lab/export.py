"""Tidy export of a study's results: one row per (run, measure), CSV or Parquet.

Columns: ``study, run, strategy, seed, <one column per factor>, measure, value``
(plus ``status`` and ``error``, so failed runs are visible, and ``definition``: the
definition the measure follows, as the database recorded it, docs/metrics.md).
``run`` is the run's stable key in the database.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from workbench.engine.errors import ParameterError
from workbench.lab.database import Database


def tidy_rows(folder: Path) -> tuple[list[str], list[dict[str, Any]]]:
    with Database(Path(folder), "", create=False) as db:
        rows = list(db.rows())
        definitions = db.definitions()
    factors = sorted({name for r in rows for name in r.factors})
    columns = ["study", "run", "strategy", "seed", *factors, "measure", "value", "status", "error", "definition"]
    out = []
    for r in rows:
        base = {"study": r.study, "run": r.key, "strategy": r.strategy, "seed": r.seed, **r.factors}
        base.update(status=r.status, error=r.error)
        if not r.measures:
            out.append({**base, "measure": "", "value": None, "definition": ""})
        for measure, value in sorted(r.measures.items()):
            out.append({**base, "measure": measure, "value": value, "definition": definitions.get(measure, "")})
    return columns, out


def frame(folder: Path) -> Any:
    """The tidy rows as a pandas DataFrame."""
    try:
        import pandas as pd
    except ImportError:
        raise ParameterError("--format", "pandas is in the lab extra: python -m pip install -e '.[lab]'") from None
    columns, rows = tidy_rows(folder)
    return pd.DataFrame(rows, columns=columns)


def export(folder: Path, fmt: str, target: Path | None = None) -> Path:
    """Write the tidy rows of ``folder`` as ``fmt`` (csv or parquet); returns the file written."""
    from workbench.engine.io.atomic import write_text_atomic

    if fmt not in ("csv", "parquet"):
        raise ParameterError("--format", f"expected csv or parquet, got {fmt!r}")
    target = Path(target) if target is not None else Path(folder) / f"results.{fmt}"
    if fmt == "csv":
        columns, rows = tidy_rows(folder)
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        write_text_atomic(buffer.getvalue(), target)
        return target
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ParameterError("--format", "parquet needs pyarrow: python -m pip install -e '.[lab]'") from None
    data = frame(folder)
    for column in data.columns:  # factor columns may mix types across studies: keep them as text
        if data[column].dtype == object and column not in ("value",):
            data[column] = data[column].astype(str)
    tmp = target.with_name(f".{target.name}.tmp")
    data.to_parquet(tmp, index=False)
    tmp.replace(target)
    return target
