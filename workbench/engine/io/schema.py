"""The environment format as a JSON Schema (draft 2020-12), generated from the loader's own table.

``records.RECORDS`` says what every field is and how it is checked; the loader reads files by it
and ``environment_schema`` writes it out as a schema, so other tools can write environments and
the two cannot disagree. The schema is shipped beside this module (``environment.schema.json``)
and published as ``docs/environment.schema.json``; a test holds both to what this module makes
now. Regenerate them with ``python -m workbench.engine.io.schema --write``.

What a schema cannot say the loader still checks: unique ids, references (a task's node, a site),
no overlapping local tasks on a node, a horizon after the start, a task's end after its start,
the strategy and its parameters against the registry, the JSON nesting and the file's size.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from workbench.engine.io.limits import MAX_DEPTH, MAX_ID, MAX_MAGNITUDE, MAX_NODE_COUNT, MAX_TEXT
from workbench.engine.io.records import FORMAT, RECORDS, VERSION, Field

FILE = "environment.schema.json"
DOCS_COPY = Path(__file__).resolve().parents[3] / "docs" / FILE
# No control characters (errors.text_problem); free text may also hold tabs and line breaks.
ONE_LINE = "^[^\\u0000-\\u001f\\u007f]*$"
FREE_TEXT = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$"
CHECKED_BY_THE_LOADER = (
    "unique ids, the ids a task or a site names, no overlapping local tasks on a node, a horizon "
    "after the start, a task's end after its start, the strategy and its parameters (checked "
    f"against the registry), at most {MAX_DEPTH} levels of nesting and 256 MiB"
)


def environment_schema() -> dict[str, Any]:
    """The JSON Schema of an environment file, format version 1 (docs/formats.md)."""
    top = _record("environment", RECORDS["environment"])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:slot-workbench:{FORMAT}:{VERSION}",
        "title": f"Slot Workbench environment ({FORMAT}, version {VERSION})",
        "description": (
            "Generated from the loader's field table (workbench/engine/io/envfile.py, RECORDS). "
            f"The loader also checks what a schema cannot: {CHECKED_BY_THE_LOADER}."
        ),
        **{key: value for key, value in top.items() if key != "description"},
        "$defs": {name: _record(name, fields) for name, fields in RECORDS.items() if name != "environment"},
    }


def _record(name: str, fields: dict[str, Field]) -> dict[str, Any]:
    return {
        "type": "object",
        "description": f"a {name.replace('_', ' ')}",
        "properties": {key: _field(spec) for key, spec in fields.items()},
        "required": [key for key, spec in fields.items() if spec.required],
        "additionalProperties": False,
    }


def _field(spec: Field) -> dict[str, Any]:
    out: dict[str, Any] = {"description": spec.help, **_kind(spec)}
    if spec.default is not None and spec.kind != "const":
        out["default"] = spec.default
    return out


def _kind(spec: Field) -> dict[str, Any]:
    kind = spec.kind
    if kind == "const":
        return {"const": spec.value}
    if kind == "id":
        return {"type": "string", "maxLength": MAX_ID, "allOf": [{"pattern": ONE_LINE}, {"pattern": "\\S"}]}
    if kind == "keyword":
        return {"type": "string", "maxLength": MAX_ID, "pattern": ONE_LINE, **_choices(spec)}
    if kind == "text":
        return {"type": "string", "maxLength": MAX_TEXT, "pattern": FREE_TEXT}
    if kind == "number":
        return _number(spec)
    if kind == "count":
        return {"type": "integer", "minimum": 1, "maximum": MAX_NODE_COUNT}
    if kind == "numbers":
        return {
            "type": "object",
            "propertyNames": {"maxLength": MAX_ID, "pattern": ONE_LINE},
            "additionalProperties": _number(Field("number", "")),
        }
    if kind == "params":
        return {"type": "object"}
    if kind == "object":
        return {"$ref": f"#/$defs/{spec.item}"}
    if kind == "list":
        bounds = {"maxItems": spec.limit, **({"minItems": spec.least} if spec.least else {})}
        return {"type": "array", "items": {"$ref": f"#/$defs/{spec.item}"}, **bounds}
    raise ValueError(f"a field of unknown kind {kind!r}")


def _choices(spec: Field) -> dict[str, Any]:
    return {"enum": list(spec.choices)} if spec.choices else {}


def _number(spec: Field) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ["number", "null"] if spec.nullable else "number"}
    out["minimum"] = -MAX_MAGNITUDE
    out["maximum"] = MAX_MAGNITUDE if spec.high is None else min(spec.high, MAX_MAGNITUDE)
    if spec.low is not None:
        del out["minimum"]
        out["exclusiveMinimum" if spec.low_open else "minimum"] = spec.low
    return out


def schema_text() -> str:
    """The schema as the shipped files hold it."""
    return json.dumps(environment_schema(), indent=2, ensure_ascii=False) + "\n"


def shipped_schema_text() -> str:
    """The schema file shipped with the package."""
    return resources.files("workbench.engine.io").joinpath(FILE).read_text(encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the schema; ``--write`` regenerates the shipped file and its copy in docs/."""
    from workbench.engine.io.atomic import write_text_atomic

    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--write"]:
        for target in (Path(__file__).with_name(FILE), DOCS_COPY):
            write_text_atomic(schema_text(), target)
            print(target)
        return 0
    sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
