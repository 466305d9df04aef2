"""The environment format's JSON Schema: made from the loader's table, shipped, and agreeing with it."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from workbench.engine.errors import ValidationError
from workbench.engine.files import default_environment_path
from workbench.engine.generate import generate
from workbench.engine.io.envfile import environment_from_dict, environment_to_dict
from workbench.engine.io.schema import DOCS_COPY, FILE, environment_schema, main, schema_text, shipped_schema_text

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft202012Validator(environment_schema())
SAMPLES = sorted({*(ROOT / "sample_envs").glob("*.json"), default_environment_path()})


def test_the_shipped_schema_is_what_the_generator_makes_now():
    """The package's file and the docs' copy equal the generated text (regenerate with --write)."""
    assert shipped_schema_text() == schema_text()
    assert DOCS_COPY.read_text(encoding="utf-8") == schema_text()
    jsonschema.Draft202012Validator.check_schema(json.loads(shipped_schema_text()))
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(Path(FILE).match(pattern) for pattern in config["workbench.engine.io"])


def test_main_prints_the_schema(capsys):
    """The schema module's main prints the environment schema as JSON and returns 0."""
    assert main([]) == 0
    assert json.loads(capsys.readouterr().out) == environment_schema()


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_shipped_sample_is_valid(path):
    """Each shipped sample environment validates against the schema."""
    VALIDATOR.validate(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("preset", ["vo24", "backfill32", "window100", "aep100"])
def test_what_the_workbench_writes_is_valid(preset):
    """An environment generated from each preset, as the workbench writes it, validates against the schema."""
    VALIDATOR.validate(environment_to_dict(generate(preset, 1)))


def _base() -> dict:
    return json.loads((ROOT / "sample_envs" / "tiny.json").read_text(encoding="utf-8"))


def _set(doc: dict, path: tuple, value: object) -> dict:
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


_DELETE = object()
# (where, new value, the path the loader names)
BAD = [
    (("version",), 2, "$.version"),
    (("format",), "other", "$.format"),
    (("nodes", 0, "performance"), 0, "$.nodes[0].performance"),
    (("nodes", 0, "price"), "cheap", "$.nodes[0].price"),
    (("nodes", 0, "id"), "a\nb", "$.nodes[0].id"),
    (("nodes", 0, "attributes"), {"q": "high"}, "$.nodes[0].attributes.q"),
    (("nodes",), [], "$.nodes"),
    (("time", "cycle_length"), -1, "$.time.cycle_length"),
    (("local_tasks", 0, "kind"), "holiday", "$.local_tasks[0].kind"),
    (("jobs", 0, "actual_fraction"), 1.5, "$.jobs[0].actual_fraction"),
    (("jobs", 0, "criterion"), "fastest", "$.jobs[0].criterion"),
    (("jobs", 0, "node_count"), 2.5, "$.jobs[0].node_count"),
    (("jobs", 0, "budget"), 0, "$.jobs[0].budget"),
    (("jobs", 0, "arrival"), 1e16, "$.jobs[0].arrival"),
    (("jobs", 0, "volume"), _DELETE, "$.jobs[0].volume"),
    (("jobs", 0, "bogus"), 1, "$.jobs[0].bogus"),
    (("strategy", "name"), " ", "$.strategy.name"),
]


@pytest.mark.parametrize(("where", "value", "path"), BAD, ids=[p for _, _, p in BAD])
def test_the_schema_refuses_what_the_loader_refuses_in_the_same_place(where, value, path):
    """Each bad document is refused by the loader at its path and by the schema at the same path (a missing or
    unknown field on its object, naming the field)."""
    doc = _set(_base(), where, value)
    with pytest.raises(ValidationError) as caught:
        environment_from_dict(doc)
    assert caught.value.path == path
    errors = list(VALIDATOR.iter_errors(doc))
    assert errors, "the schema accepted it"
    # A missing or unknown field is reported on its object, naming the field.
    key = path.rsplit(".", 1)[1]
    assert any(e.json_path == path or (e.json_path == path.rsplit(".", 1)[0] and key in e.message) for e in errors), [
        (e.json_path, e.message) for e in errors
    ]


def test_what_the_loader_accepts_beyond_the_defaults_the_schema_accepts_too():
    """Optional fields left out, a null budget and horizon, a whole float as a count: both accept."""
    doc = _base()
    for job in doc["jobs"]:
        for key in ("name", "min_performance", "criterion", "arrival", "priority", "actual_fraction"):
            job.pop(key, None)
        job["budget"] = None
        job["node_count"] = float(job["node_count"])
    doc["time"]["horizon"] = None
    doc.pop("strategy")
    environment_from_dict(doc)
    VALIDATOR.validate(doc)
