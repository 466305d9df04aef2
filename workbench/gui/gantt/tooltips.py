"""What the chart says about what is under the mouse: a job's window, a local task, a free slot.

Times follow View ▸ Time unit with the unit's name. A window lists its nodes with the L_left and
L_right its strategy saw (or, where it kept none, as measured on the picture), at most
``MOST_NODES`` of them, so that a wide job's tooltip stays on the screen; a job that finished
early says so, in Cycles mode or not (there, once the step's time has passed its finish).
"""

from __future__ import annotations

from workbench.engine.model import Environment, LocalTask, Window
from workbench.engine.slots import Distances
from workbench.gui.gantt.parts import site_lines
from workbench.gui.numbers import number, time

MOST_NODES = 12  # nodes a window's tooltip lists; the rest are counted


def window_tip(
    env: Environment,
    window: Window,
    unit: str,
    actual_end: float | None,
    seen: Distances | None,
    measured: bool,
    now: float | None = None,
) -> str:
    """A window's tooltip: the job, its times and cost, its machines, whether it finished early, and
    its nodes with their distances (``seen``; ``measured``: on the picture, not by the strategy).
    At a step of Cycles mode (``now``), an early finish still to come is not told: nobody knows it yet."""
    job = env.job(window.job)
    lines = [
        f"<b>{job.name}</b> ({job.id})",
        f"start {time(window.start, unit)}, end {time(window.end, unit)}, length {time(window.length, unit)}",
        f"cost {number(window.cost)} of budget {number(job.budget)}",
    ]
    lines.extend(site_lines(env, window, unit))
    if actual_end is not None and actual_end < window.end - 1e-9 and (now is None or actual_end <= now + 1e-9):
        lines.append(f"Finished early at {time(actual_end, unit)}; its nodes were given back then.")
    if seen is None:  # no distances kept or measured: the nodes alone
        lines.append(f"On {len(window.nodes)} node{'s' if len(window.nodes) != 1 else ''}:")
    elif measured:
        lines.append("Distances to the neighbours in this picture:")
    else:
        lines.append("Distances to the neighbours when the strategy placed it:")
    names = {n.id: n.name for n in env.nodes}
    for k, node_id in enumerate(window.nodes[:MOST_NODES]):
        extra = "" if seen is None else f": L_left {time(seen[0][k], unit)}, L_right {time(seen[1][k], unit)}"
        lines.append(f"&nbsp;&nbsp;{names[node_id]}{extra}")
    if len(window.nodes) > MOST_NODES:
        lines.append(f"&nbsp;&nbsp;… and {len(window.nodes) - MOST_NODES} more nodes")
    return "<br>".join(lines)


def task_tip(task: LocalTask, unit: str, editable: bool) -> str:
    label = f" — {task.label}" if task.label else ""
    span = f"[{time(task.start, unit)}, {time(task.end, unit)})"
    hint = "<br><i>drag to move, drag an edge to resize</i>" if editable else ""
    return f"<b>{task.kind} task {task.id}</b>{label}<br>{span} on {task.node}{hint}"


def slot_tip(start: float, length: float, unit: str, editable: bool) -> str:
    hint = "<br><i>double-click to add a local task</i>" if editable else ""
    return f"free slot [{time(start, unit)}, {time(start + length, unit)}), length {time(length, unit)}{hint}"
