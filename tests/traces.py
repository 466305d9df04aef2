"""Environments the tests build from synthetic SWF traces, as a user would get them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from workbench.engine.generate import swf_rows
from workbench.engine.io.swf import import_swf, write_swf
from workbench.engine.model import Environment


def swf_environment(seed: int, jobs: int, nodes: int, load: float = 0.9) -> Environment:
    """A synthetic SWF trace of ``jobs`` jobs, written to disk and imported back on ``nodes`` nodes."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.swf"
        write_swf(path, swf_rows(seed, jobs, nodes, load), "workbench test trace")
        return import_swf(path, nodes).env
