"""The environment file's format as data: each record's fields, their kinds, bounds and defaults.

The loader (``envfile``) checks a file by these records, the column checks (``columns``) read their
bounds, and ``schema`` writes the published JSON Schema from them, so the three cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.engine.io.limits import MAX_ITEMS, MAX_NODES
from workbench.engine.model import JOB_CRITERIA, TASK_KINDS, TIME_BASES

FORMAT = "workbench.environment"
VERSION = 1



@dataclass(frozen=True)
class Field:
    """One field of the format: the loader checks it by this record, and ``io/schema.py`` writes the
    JSON Schema from the same record (docs/formats.md), so the two cannot disagree.

    ``kind``: ``id`` (a non-empty id), ``keyword`` (a short string, from ``choices`` when given),
    ``text`` (free text: a name, a label), ``number`` (finite, within ±MAX_MAGNITUDE and the bounds),
    ``count`` (a whole number from 1 to MAX_NODE_COUNT), ``const`` (exactly ``value``), ``numbers``
    (an object of numbers), ``params`` (an object), ``object`` (the record ``item``) or ``list`` (of
    ``item`` records, at most ``limit``, at least ``least``).
    """

    kind: str
    help: str
    required: bool = False
    default: Any = None  # when missing; with ``nullable`` and no default, missing means null
    low: float | None = None
    low_open: bool = False
    high: float | None = None
    nullable: bool = False
    choices: tuple[str, ...] = ()
    value: Any = None
    item: str = ""
    limit: int = MAX_ITEMS
    least: int = 0


_NAME = "free text; the id when missing"
RECORDS: dict[str, dict[str, Field]] = {
    "environment": {
        "format": Field("const", "the file's format", required=True, value=FORMAT),
        "version": Field("const", "the format's version", required=True, value=VERSION),
        "name": Field("text", "free text", default=""),
        "description": Field("text", "free text", default=""),
        "time": Field("object", "the time settings", item="time"),
        "sites": Field("list", "the machines of a grid (seed 004)", item="site"),
        "nodes": Field("list", "the computing nodes", item="node", limit=MAX_NODES, least=1),
        "local_tasks": Field("list", "the owners' own use of the nodes; none overlap on a node", item="local_task"),
        "jobs": Field("list", "the job requests", item="job"),
        "strategy": Field("object", "the strategy (its name is checked against the registry)", item="strategy"),
    },
    "time": {
        "start": Field("number", "the start of time", default=0.0),
        "cycle_length": Field("number", "L; null: one cycle", low=0.0, low_open=True, nullable=True),
        "horizon": Field("number", "the end of time, after start; null: unbounded", nullable=True),
        "unit": Field("keyword", "what one unit of time is; missing: model", default="model", choices=TIME_BASES),
    },
    "site": {
        "id": Field("id", "unique among the sites", required=True),
        "name": Field("text", "free text", default=""),
    },
    "node": {
        "id": Field("id", "unique among the nodes", required=True),
        "name": Field("text", _NAME),
        "performance": Field("number", "p", required=True, low=0.0, low_open=True),
        "price": Field("number", "c, per time unit", required=True, low=0.0),
        "attributes": Field("numbers", "free numbers, e.g. q for MaxQ"),
        "site": Field("keyword", "the id of a site in $.sites, when it is given", default=""),
    },
    "local_task": {
        "id": Field("id", "unique among the local tasks", required=True),
        "node": Field("keyword", "the id of a node", required=True),
        "start": Field("number", "its start", required=True),
        "end": Field("number", "its end, after start", required=True),
        "kind": Field("keyword", "what the owner does", default="local", choices=TASK_KINDS),
        "label": Field("text", "free text", default=""),
    },
    "job": {
        "id": Field("id", "unique among the jobs", required=True),
        "name": Field("text", _NAME),
        "node_count": Field("count", "n: nodes at once", required=True),
        "min_performance": Field("number", "p: the slowest node it accepts", default=0.0, low=0.0),
        "volume": Field("number", "V: the work of each parallel part", required=True, low=0.0, low_open=True),
        "budget": Field("number", "C; null: no budget", low=0.0, low_open=True, nullable=True),
        "criterion": Field("keyword", "the user's own preference", default="finish", choices=JOB_CRITERIA),
        "arrival": Field("number", "when it is submitted", default=0.0, low=0.0),
        "priority": Field("number", "lower runs first", default=0.0),
        "actual_fraction": Field("number", "real runtime over reserved", default=1.0, low=0.0, low_open=True, high=1.0),
        "user": Field("keyword", "who submitted it (for grouping only)", default=""),
        "site": Field("keyword", "where it was submitted: a site of $.sites or of a node", default=""),
    },
    "strategy": {
        "name": Field("id", "a strategy of `workbench strategies`", required=True),
        "params": Field("params", "its parameters (`workbench strategies -v`)", default={}),
    },
}
