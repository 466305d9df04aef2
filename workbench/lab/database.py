"""The results database of a study run: one SQLite file in the run folder, one row per run.

Only the coordinating process writes, in WAL mode, one transaction per finished
batch, so a kill at any moment leaves the rows of every batch that finished and
nothing half-written; running the same command again resumes with what is missing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
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
    def __init__(self, folder: Path, study: str, create: bool = True) -> None:
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

    def done(self) -> set[str]:
        """Keys of the runs already recorded (failed ones included: they are results too)."""
        return {key for (key,) in self.conn.execute("SELECT key FROM runs")}

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
