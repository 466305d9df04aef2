"""Every trace the workbench imports, by its file name: a Batsim JSON workload (``.json``,
``.json.gz``) or an SWF trace (anything else, ``.swf.gz`` included). The command line's
``import-swf`` and the GUI's Import dialog both read through :func:`import_trace`."""

from __future__ import annotations

import os

from workbench.engine.io.batsim import import_batsim
from workbench.engine.io.swf import import_swf
from workbench.engine.io.trace import Selection, TraceImport


def is_batsim(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path).lower().removesuffix(".gz").endswith(".json")


def import_trace(
    path: str | os.PathLike[str],
    nodes: int | None = None,
    perf: float = 1.0,
    price: float | None = None,
    performance: tuple[int, int] | None = None,
    seed: int = 0,
    selection: Selection | None = None,
) -> TraceImport:
    """The trace at ``path`` on ``nodes`` nodes (default: the trace's own machine size, SWF's
    ``MaxNodes``/``MaxProcs`` or Batsim's ``nb_res``), with the jobs ``selection`` keeps."""
    read = import_batsim if is_batsim(path) else import_swf
    return read(path, nodes, perf, price, performance=performance, seed=seed, selection=selection)
