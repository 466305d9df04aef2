"""Where the benchmarks and studies get their workloads, the way a user gets them.

A log of the Parallel Workloads Archive comes from ``workbench traces get NAME``'s cache, or from a
folder the user names (``workbench bench --traces DIR``); a missing one is one line that names the
command which gets it. The Lublin–Feitelson workload is not a log the archive serves: it is made
here by the project's own generator (engine/grid/lublin.py), seeded, so it is the same on every
machine. A ``--traces`` folder that holds ``synthetic_lublin_256.swf`` (a copy the project was
first measured on) is read instead, so that older figures stay comparable.
"""

from __future__ import annotations

from pathlib import Path

from workbench.engine.errors import ParameterError
from workbench.engine.model import Environment
from workbench.lab import archive

KTH = "KTH-SP2"
NASA = "NASA-iPSC"
LUBLIN_FILE = "synthetic_lublin_256.swf"
LUBLIN_JOBS, LUBLIN_NODES, LUBLIN_SEED = 10_000, 256, 1


def trace_file(name: str, folder: Path | None = None) -> Path:
    """The SWF file of the catalogue's log ``name``: in ``folder`` when one is given, else in the
    ``traces get`` cache. ParameterError, naming the command that gets it, when it is not there."""
    entry = archive.trace(name)
    if folder is not None:
        path = Path(folder) / entry.swf
        if not path.is_file():
            raise ParameterError("--traces", f"{path} not found; give the folder that holds {entry.swf}")
        return path
    path = archive.cache_folder() / entry.swf
    if not path.is_file():
        raise ParameterError(
            "trace",
            f"the {entry.name} log is not in {path.parent}; get it with `workbench traces get {entry.name}`",
        )
    return path


def trace_environment(name: str, nodes: int, folder: Path | None = None, **options: object) -> Environment:
    """The log ``name`` imported on ``nodes`` nodes (``options``: import_swf's, such as performance)."""
    from workbench.engine.io.swf import import_swf

    return import_swf(trace_file(name, folder), nodes, **options).env  # type: ignore[arg-type]


def lublin_environment(folder: Path | None = None) -> Environment:
    """The Lublin–Feitelson workload of 10,000 jobs on 256 nodes: generated, seeded; read from
    ``folder``'s ``synthetic_lublin_256.swf`` instead when the folder holds one."""
    if folder is not None and (Path(folder) / LUBLIN_FILE).is_file():
        from workbench.engine.io.swf import import_swf

        return import_swf(Path(folder) / LUBLIN_FILE, LUBLIN_NODES).env
    from workbench.engine.grid.configs import lublin_environment as generated

    return generated(LUBLIN_JOBS, seed=LUBLIN_SEED, nodes=LUBLIN_NODES)[0]


def where(folder: Path | None) -> str:
    """Where the logs are read from, for a benchmark's first line."""
    return str(folder) if folder is not None else f"{archive.cache_folder()} (`workbench traces get`)"
