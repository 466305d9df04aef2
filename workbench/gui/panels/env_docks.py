"""The Nodes, Local tasks and Jobs tables as docks: their columns, how a cell's text becomes an edit,
and their Add, Delete, Up and Down buttons (each one undoable step of the document)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from workbench.engine.errors import ValidationError
from workbench.engine.model import JOB_CRITERIA, TASK_KINDS, Environment
from workbench.engine.schedule import Schedule
from workbench.gui.numbers import number
from workbench.gui.panels.table_model import Column, EnvTableModel, parse_attributes, parse_float, parse_int
from workbench.gui.panels.tables import TableDock
from workbench.session import edits
from workbench.session.document import Document
from workbench.session.edits import Edit


def _apply(document: Document, dock_message: Callable[[str], None], edit: Edit) -> bool:
    try:
        document.apply(edit)
        dock_message("")
        return True
    except ValidationError as exc:
        dock_message(f"{exc.path}: {exc.message}")
        return False


def _with_dock(act: Callable[[TableDock], None], holder: list[TableDock], *_signal_args: object) -> None:
    act(holder[0])


def _editing_dock(
    title: str,
    model: EnvTableModel,
    what: str,
    add: Callable[[Environment], Edit],
    delete: Callable[[Environment, int], Edit],
    extra: list[tuple[str, str, Callable[[TableDock], None]]] = (),  # type: ignore[assignment]
) -> TableDock:
    """A table dock with Add and Delete (of the selected row) buttons, plus ``extra`` ones."""
    document = model.document
    holder: list[TableDock] = []

    def on_add() -> None:
        _apply(document, holder[0].message.setText, add(document.env))

    def on_delete() -> None:
        row = holder[0].selected_row()
        if row is not None:
            _apply(document, holder[0].message.setText, delete(document.env, row))

    buttons = [("Add", f"add a {what}", on_add), ("Delete", f"delete the selected {what}", on_delete)]
    # partial, not a lambda with a default: clicked(bool) would land in that default.
    buttons += [(text, tip, functools.partial(_with_dock, act, holder)) for text, tip, act in extra]
    holder.append(TableDock(title, model, buttons))
    return holder[0]


# ------------------------------------------------------------------ the three tables


def nodes_dock(document: Document) -> TableDock:
    node = lambda d, r: d.env.nodes[r]  # noqa: E731
    columns = [
        Column("id", lambda d, r: node(d, r).id),
        Column("name", lambda d, r: node(d, r).name, lambda e, r, v: edits.set_node(e.nodes[r].id, name=v)),
        Column(
            "performance",
            lambda d, r: node(d, r).performance,
            lambda e, r, v: edits.set_node(e.nodes[r].id, performance=parse_float(v, "performance")),
        ),
        Column(
            "price",
            lambda d, r: node(d, r).price,
            lambda e, r, v: edits.set_node(e.nodes[r].id, price=parse_float(v, "price")),
            tip="per time unit",
        ),
        Column(
            "attributes",
            lambda d, r: ", ".join(f"{k}={number(v)}" for k, v in node(d, r).attributes),
            lambda e, r, v: edits.set_node(e.nodes[r].id, attributes=parse_attributes(v)),
            tip="name=number, … (q is what MaxQ maximises)",
        ),
    ]
    model = EnvTableModel(document, lambda env: len(env.nodes), columns)
    return _editing_dock(
        "Nodes", model, "node", lambda env: edits.add_node(), lambda env, row: edits.delete_node(env.nodes[row].id)
    )


def tasks_dock(document: Document) -> TableDock:
    task = lambda d, r: d.env.local_tasks[r]  # noqa: E731
    columns = [
        Column("id", lambda d, r: task(d, r).id),
        Column(
            "node",
            lambda d, r: task(d, r).node,
            lambda e, r, v: edits.set_task(e.local_tasks[r].id, node=v),
            choices=lambda env: [n.id for n in env.nodes],
        ),
        Column(
            "start",
            lambda d, r: task(d, r).start,
            lambda e, r, v: edits.set_task(e.local_tasks[r].id, start=parse_float(v, "start")),
            time=True,
        ),
        Column(
            "end",
            lambda d, r: task(d, r).end,
            lambda e, r, v: edits.set_task(e.local_tasks[r].id, end=parse_float(v, "end")),
            time=True,
        ),
        Column(
            "kind",
            lambda d, r: task(d, r).kind,
            lambda e, r, v: edits.set_task(e.local_tasks[r].id, kind=v),
            choices=lambda env: list(TASK_KINDS),
        ),
        Column("label", lambda d, r: task(d, r).label, lambda e, r, v: edits.set_task(e.local_tasks[r].id, label=v)),
    ]
    model = EnvTableModel(document, lambda env: len(env.local_tasks), columns)
    return _editing_dock(
        "Local tasks",
        model,
        "local task",
        lambda env: _free_task(env, env.time.start),
        lambda env, row: edits.delete_task(env.local_tasks[row].id),
    )


def _free_task(env: Environment, start: float) -> Edit:
    """A new 10-unit local task at the first free spot of the first node that has one."""
    for node in env.nodes:
        t = start
        for task in sorted((x for x in env.local_tasks if x.node == node.id), key=lambda x: x.start):
            if task.start - t >= 10:
                break
            t = max(t, task.end)
        if env.time.horizon is None or t + 10 <= env.time.horizon:
            return edits.add_task(node.id, t, t + 10)
    return edits.add_task(env.nodes[0].id, start, start + 10)


def jobs_dock(document: Document, shown: Callable[[], Schedule | None] | None = None) -> TableDock:
    """The Jobs table; ``shown`` gives the schedule on screen (a simulation step's, in Cycles mode)."""
    job = lambda d, r: d.env.jobs[r]  # noqa: E731
    result = shown or (lambda: document.result)

    def window(d: Document, r: int) -> Any:
        schedule = result()
        return schedule.window_of(d.env.jobs[r].id) if schedule else None

    def setter(field: str, parse: Callable[[str], Any]) -> Callable[[Environment, int, str], Edit]:
        return lambda e, r, v: edits.set_job(e.jobs[r].id, **{field: parse(v)})

    def status(d: Document, r: int) -> str:
        schedule = result()
        if schedule is None:
            return ""
        w = window(d, r)
        return "placed" if w else schedule.reasons.get(d.env.jobs[r].id, "")

    columns = [
        Column("id", lambda d, r: job(d, r).id),
        Column("name", lambda d, r: job(d, r).name, setter("name", str)),
        Column(
            "n",
            lambda d, r: job(d, r).node_count,
            setter("node_count", lambda v: parse_int(v, "node_count")),
            tip="nodes needed at once",
        ),
        Column(
            "p",
            lambda d, r: job(d, r).min_performance,
            setter("min_performance", lambda v: parse_float(v, "min_performance")),
            tip="minimum performance",
        ),
        Column(
            "V",
            lambda d, r: job(d, r).volume,
            setter("volume", lambda v: parse_float(v, "volume")),
            tip="volume of each part: its length on a node of performance 1 (T = V / P), in the time unit shown",
            time=True,
        ),
        Column(
            "budget",
            lambda d, r: job(d, r).budget,
            setter("budget", lambda v: parse_float(v, "budget", allow_inf=True)),
            tip="C; ∞ for no limit",
        ),
        Column(
            "criterion",
            lambda d, r: job(d, r).criterion,
            setter("criterion", str),
            choices=lambda env: list(JOB_CRITERIA),
            tip="the user's own criterion (CSS alternatives)",
        ),
        Column(
            "arrival", lambda d, r: job(d, r).arrival, setter("arrival", lambda v: parse_float(v, "arrival")), time=True
        ),
        Column(
            "priority",
            lambda d, r: job(d, r).priority,
            setter("priority", lambda v: parse_float(v, "priority")),
            tip="lower runs first",
        ),
        Column(
            "actual",
            lambda d, r: job(d, r).actual_fraction,
            setter("actual_fraction", lambda v: parse_float(v, "actual_fraction")),
            tip="real runtime / reserved runtime, in (0, 1]",
        ),
        Column("user", lambda d, r: job(d, r).user, setter("user", str), tip="who submitted it (SWF user number)"),
        Column("start", lambda d, r: window(d, r).start if window(d, r) else "", time=True),
        Column("end", lambda d, r: window(d, r).end if window(d, r) else "", time=True),
        Column(
            "cost",
            lambda d, r: window(d, r).cost if window(d, r) else "",
            tip="the window's cost: Σ price × T over its nodes, in the document's own time unit (not the one shown)",
        ),
        Column("status", status),
    ]
    model = EnvTableModel(document, lambda env: len(env.jobs), columns)
    model.colour_rows = True

    def move(step: int) -> Callable[[TableDock], None]:
        def go(dock: TableDock) -> None:
            row = dock.selected_row()
            if row is not None and 0 <= row + step < len(document.env.jobs):
                job = document.env.jobs[row].id
                if _apply(document, dock.message.setText, edits.reorder_job(job, row + step)):
                    dock.select_source_row(row + step)  # the same job, in its new place

        return go

    dock = _editing_dock(
        "Jobs",
        model,
        "job",
        lambda env: edits.add_job(),
        lambda env, row: edits.delete_job(env.jobs[row].id),
        [
            ("Up", "earlier in the job list (breaks queue-order ties)", move(-1)),
            ("Down", "later in the job list", move(1)),
        ],
    )
    dock.add_row_filter("Unplaced only", lambda d, r: result() is not None and window(d, r) is None)
    return dock
