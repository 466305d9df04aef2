"""Running a study: plan the sweep, skip what the database already has, run the rest, record it.

Backends: in this process (one worker), a process pool (one worker per core by
default) or Dask distributed (``dask="local"`` starts a LocalCluster, or the
address of a running scheduler). Runs go out in batches; the coordinator alone
writes the results, one transaction per batch, as they come back. Every run is a
pure function of its strategy, factors and seed, so the numbers do not depend on
the backend, the worker count or the order of completion.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import workbench
from workbench.allocator import settle_allocator
from workbench.engine import plugins
from workbench.engine.errors import ParameterError, one_line
from workbench.lab.catalogue import get_study
from workbench.lab.database import Database, Row
from workbench.lab.study import RunSpec, Study

Progress = Callable[[int, int], None] | None


def execute_batch(specs: list[RunSpec]) -> list[Row]:
    """Run specs one after another (in a worker); a run that raises is recorded as failed."""
    settle_allocator()  # a Dask nanny pins malloc's thresholds; see workbench.allocator
    out = []
    for spec in specs:
        began = time.perf_counter()
        try:
            measures = {k: float(v) for k, v in get_study(spec.study).run(spec).items()}
            status, error = "ok", ""
        except Exception as exc:
            measures, status, error = {}, "failed", one_line(f"{type(exc).__name__}: {exc}")
        out.append(
            Row(
                spec.key,
                spec.study,
                spec.strategy,
                spec.seed,
                dict(spec.factors),
                status,
                error,
                (time.perf_counter() - began) * 1000.0,
                workbench.__version__,
                measures,
            )
        )
    return out


def execute_batch_with(plugin_files: list[str], specs: list[RunSpec]) -> list[Row]:
    """``execute_batch`` in a worker that first loads the plug-in files the caller had loaded."""
    plugins.load_files(plugin_files)
    return execute_batch(specs)


@dataclass
class StudyRun:
    """What a run of a study left in its folder."""

    folder: Path
    study: Study
    planned: int
    recorded: int  # rows in the database for this plan (earlier runs included)
    failed: int
    stopped: bool

    def to_frame(self) -> Any:
        """Tidy long-format rows (pandas): study, run, strategy, seed, one column per factor, measure, value."""
        from workbench.lab.export import frame

        return frame(self.folder)

    def report(self, path: Path | None = None) -> Path:
        from workbench.lab.report import write_report

        return write_report(self.folder, path)


def _batches(todo: list[RunSpec], workers: int) -> Iterator[list[RunSpec]]:
    """Batches small enough to spread over the workers, big enough to keep the overhead down."""
    size = max(1, min(16, len(todo) // max(1, workers * 4)))
    for i in range(0, len(todo), size):
        yield todo[i : i + size]


def run_study(
    name: str,
    reps: int | None = None,
    workers: int | None = None,
    dask: str | None = None,
    out: Path | str | None = None,
    overrides: Mapping[str, str] | None = None,
    progress: Progress = None,
    should_stop: Callable[[], bool] | None = None,
) -> StudyRun:
    """Run (or resume) a study into ``out`` (default ``lab-runs/STUDY``) and return what is there.

    Ctrl-C or ``should_stop`` ends the run cleanly: every finished batch is kept, and the
    same call later runs only what is missing.
    """
    study = get_study(name)
    plan = study.plan(reps, overrides)
    if study.needs is not None:
        study.needs(plan)
    if workers is not None and workers < 1:
        raise ParameterError("--workers", f"must be at least 1, got {workers}")
    workers = workers or os.cpu_count() or 1
    folder = Path(out) if out is not None else Path("lab-runs") / study.name
    if folder.exists() and not folder.is_dir():
        raise ParameterError("--out", f"{folder} is a file, not a folder")
    with Database(folder, study.name, definitions=study.measure_definitions()) as db:
        done = db.done()
        todo = [spec for spec in plan if spec.key not in done]
        total, finished = len(plan), len(plan) - len(todo)
        if progress is not None:
            progress(finished, total)
        stopped = False
        try:
            for rows in _execute(todo, workers, dask, should_stop):
                db.add(rows)
                finished += len(rows)
                if progress is not None:
                    progress(finished, total)
        except KeyboardInterrupt:
            stopped = True
        except _Stopped:
            stopped = True
        keys = {spec.key for spec in plan}
        mine = [row for row in db.rows() if row.key in keys]
    return StudyRun(folder, study, total, len(mine), sum(r.status == "failed" for r in mine), stopped)


class _Stopped(Exception):
    pass


def _execute(
    todo: list[RunSpec], workers: int, dask: str | None, should_stop: Callable[[], bool] | None
) -> Iterator[list[Row]]:
    if not todo:
        return
    if dask is not None:
        yield from _execute_dask(todo, workers, dask, should_stop)
    elif workers == 1:
        for batch in _batches(todo, 1):
            if should_stop is not None and should_stop():
                raise _Stopped
            yield execute_batch(batch)
    else:
        yield from _execute_pool(todo, workers, should_stop)


def _execute_pool(todo: list[RunSpec], workers: int, should_stop: Callable[[], bool] | None) -> Iterator[list[Row]]:
    # Spawned, not forked: the caller may be the GUI, and a forked Qt process is not safe.
    # A spawned worker starts with the built-in strategies only: it loads the plug-ins this process has.
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=mp.get_context("spawn"),
        initializer=plugins.load_files,
        initargs=(plugins.loaded_files(),),
    )
    try:
        pending: set[Future[list[Row]]] = {pool.submit(execute_batch, batch) for batch in _batches(todo, workers)}
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
            if should_stop is not None and should_stop():
                raise _Stopped
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _execute_dask(
    todo: list[RunSpec], workers: int, address: str, should_stop: Callable[[], bool] | None
) -> Iterator[list[Row]]:
    try:
        import dask
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ParameterError("--dask", "needs dask[distributed]: python -m pip install -e '.[lab]'") from None
    cluster = None
    if address == "local":
        # The statistical profiler samples every worker's stack every 10 ms and takes the
        # GIL from the run each time (about 4 % of a sweep); nobody reads it here.
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            # No dashboard; the scheduler's own HTTP server (health, metrics) still starts, on 8787
            # unless told otherwise, and warned "Port 8787 is already in use" beside another
            # cluster or a second study: any free port does here.
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                scheduler_kwargs={"dashboard_address": ":0"},
            )
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout=10)
        except (OSError, TimeoutError, ValueError) as exc:
            why = one_line(f"{type(exc).__name__}: {exc}")
            raise ParameterError("--dask", f"cannot reach the Dask scheduler at {address}: {why}") from None
    try:
        files = plugins.loaded_files()  # a Dask worker starts with the built-in strategies only
        futures = [client.submit(execute_batch_with, files, batch, pure=False) for batch in _batches(todo, workers)]
        for future in as_completed(futures):
            yield future.result()
            if should_stop is not None and should_stop():
                client.cancel(futures)
                raise _Stopped
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
