"""A schedule or an environment written in one of the formats the workbench exports
(docs/formats.md), the file's suffix and a style picking which: the command line's ``export`` and
the GUI's File ▸ Export both write through here."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from workbench.engine.errors import ParameterError
from workbench.engine.io.atomic import write_json_atomic, write_text_atomic
from workbench.engine.io.batsim import environment_to_batsim, schedule_to_batsim_csv
from workbench.engine.io.result import schedule_to_csv, schedule_to_dict
from workbench.engine.io.swf import schedule_to_swf
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule

STYLES = ("workbench", "batsim")


def write_schedule(
    env: Environment,
    schedule: Schedule,
    path: str | os.PathLike[str],
    style: str = "workbench",
    waiting: Sequence[str] = (),
) -> None:
    """``.csv``: the workbench's rows, or with ``style="batsim"`` Batsim's jobs.csv; ``.json``: the
    schedule JSON; ``.swf``: the jobs as a trace with their simulated times. ``waiting``: at a
    simulation step, the jobs that wait for a window (the workbench's CSV lists them)."""
    suffix = Path(path).suffix.lower()
    if style not in STYLES:
        raise ParameterError("--format", f"expected one of {', '.join(STYLES)}, got {style!r}")
    if suffix == ".csv":
        batsim = style == "batsim"
        write_text_atomic(
            schedule_to_batsim_csv(env, schedule) if batsim else schedule_to_csv(env, schedule, waiting), path
        )
    elif suffix == ".swf" and style == "workbench":
        write_text_atomic(schedule_to_swf(env, schedule), path)
    elif suffix == ".json" and style == "workbench":
        write_json_atomic(schedule_to_dict(env, schedule), path)
    else:
        raise ParameterError("-o", f"{path}: a {style} schedule is written as " + _suffixes(style))


def write_workload(env: Environment, path: str | os.PathLike[str]) -> None:
    """The environment's jobs as a Batsim JSON workload (``batsim.environment_to_batsim``)."""
    write_json_atomic(environment_to_batsim(env), path)


def _suffixes(style: str) -> str:
    return ".csv (jobs.csv)" if style == "batsim" else ".csv, .json or .swf"
