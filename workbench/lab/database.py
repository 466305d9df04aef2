"""The results database of a study run: one SQLite file in the run folder, one row per run.

The ``meta`` table names the study, the schema, the engine version and the definition each measure
follows (``definitions``: JSON, measure -> its definition on one line, docs/metrics.md), so results
measured under different definitions are never mixed in one database.

Only the coordinating process writes, in WAL mode, one transaction per finished
batch, so a kill at any moment leaves the rows of every batch that finished and
nothing half-written; running the same command again resumes with what is missing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import workbench
from workbench.engine.errors import ParameterError

FILE = "results.sqlite"
SCHEMA = 1


@dataclass(frozen=True)
class Row:
    key: str
    study: str
    strategy: str
    seed: int
    factors: dict[str, Any]
    status: str  # "ok" or "failed"
    error: str
    elapsed_ms: float
    engine: str
    measures: dict[str, float]


class Database:
    def __init__(
        self, folder: Path, study: str, create: bool = True, definitions: Mapping[str, str] | None = None
    ) -> None:
        self.path = Path(folder) / FILE
        if not self.path.exists() and not create:
            raise ParameterError("DIR", f"{folder}: no {FILE} here; run a study into it first")
        Path(folder).mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        with self.conn:
            self.conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS runs (key TEXT PRIMARY KEY, study TEXT NOT NULL, strategy TEXT NOT NULL,"
                " seed INTEGER NOT NULL, factors TEXT NOT NULL, status TEXT NOT NULL, error TEXT NOT NULL,"
                " elapsed_ms REAL NOT NULL, engine TEXT NOT NULL, measures TEXT NOT NULL)"
            )
        meta = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
        if not meta:
            with self.conn:
                self.conn.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [("study", study), ("schema", str(SCHEMA)), ("engine", workbench.__version__)],
                )
            meta = {"study": study, "schema": str(SCHEMA)}
        if study and meta.get("study") != study:
            self.conn.close()
            raise ParameterError(
                "--out", f"{folder} holds results of study {meta.get('study')!r}, not {study!r}; pick another folder"
            )
        if meta.get("schema") != str(SCHEMA):
            self.conn.close()
            raise ParameterError(
                "--out", f"{folder}: results database of schema {meta.get('schema')}, expected {SCHEMA}"
            )
        self.study = meta["study"]
        if definitions is not None:
            self._settle_definitions(meta.get("definitions"), dict(definitions), folder)

    def _settle_definitions(self, stored: str | None, wanted: dict[str, str], folder: Path) -> None:
        """Record the measures' definitions in a new database; refuse one whose runs followed others."""
        if stored is None and self.conn.execute("SELECT 1 FROM runs LIMIT 1").fetchone() is None:
            with self.conn:
                self.conn.execute("INSERT INTO meta VALUES ('definitions', ?)", (json.dumps(wanted, sort_keys=True),))
            return
        if stored is None:
            self.conn.close()
            raise ParameterError(
                "--out", f"{folder} holds runs recorded before measures named their definitions; pick another folder"
            )
        recorded = json.loads(stored)
        changed = sorted(name for name in recorded.keys() | wanted.keys() if recorded.get(name) != wanted.get(name))
        if changed:
            self.conn.close()
            raise ParameterError(
                "--out",
                f"{folder} holds results measured under other definitions (of {', '.join(changed)}); "
                "pick another folder",
            )

    def definitions(self) -> dict[str, str]:
        """Each measure's definition as recorded when the database was made ({} if it predates them)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'definitions'").fetchone()
        return json.loads(row[0]) if row else {}

    def done(self) -> set[str]:
        """Keys of the runs recorded as done. A failed run is kept (its error is in the report) but
        not done: the same command runs it again, once what failed it is fixed (a trace fetched)."""
        return {key for (key,) in self.conn.execute("SELECT key FROM runs WHERE status = 'ok'")}

    def add(self, rows: Iterable[Row]) -> None:
        """Record finished runs in one transaction (all or none of them)."""
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.key,
                        r.study,
                        r.strategy,
                        r.seed,
                        json.dumps(r.factors, sort_keys=True),
                        r.status,
                        r.error,
                        r.elapsed_ms,
                        r.engine,
                        json.dumps(r.measures, sort_keys=True),
                    )
                    for r in rows
                ],
            )

    def rows(self) -> Iterator[Row]:
        for key, study, strategy, seed, factors, status, error, ms, engine, measures in self.conn.execute(
            "SELECT * FROM runs ORDER BY rowid"
        ):
            yield Row(key, study, strategy, seed, json.loads(factors), status, error, ms, engine, json.loads(measures))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
