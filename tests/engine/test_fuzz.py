"""Hostile input, fuzzed: every damaged file or parameter loads and runs, or gives a domain error.

Bounded to a few seconds in the default run; WORKBENCH_TEST_SCALE=20 (or more) makes it a
longer fuzzing session. The SWF side is fuzzed by the round-trip property in
test_swf_batching_metrics.py; known damaged files are explicit tests in test_envfile.py.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import examples
from workbench.engine import registry
from workbench.engine.errors import WorkbenchError
from workbench.engine.files import environment_from_json

TINY = (Path(__file__).resolve().parents[2] / "sample_envs" / "tiny.json").read_text()
DOC = json.loads(TINY)

# Pieces that broke the loader before and other edges.
NASTY = [
    "9" * 5000,
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "18446744073709551616",
    "\\ud800",
    "\\u0000",
    "[" * 1200,
    "{",
    '"',
    "\\",
    "0.5",
    "-0",
    "null",
    "true",
    "x" * 300,
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from _paths(item, (*prefix, k))


PATHS = list(_paths(DOC))


def _replace(doc, path, value):
    if not path:
        return value
    doc = json.loads(json.dumps(doc))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


def _load_and_run(text: str) -> None:
    """Load, then run a strategy briefly: either works or raises a WorkbenchError."""
    try:
        env = environment_from_json(text)
    except WorkbenchError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 1000
        return
    began = time.perf_counter()
    try:
        registry.run(
            env, env.strategy.name, env.strategy.params_dict(), should_stop=lambda: time.perf_counter() - began > 0.5
        )
    except WorkbenchError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), value=json_values)
def test_any_value_anywhere_loads_or_gives_a_domain_error(path, value):
    """A JSON value of any kind at any place of a good file."""
    _load_and_run(json.dumps(_replace(DOC, path, value)))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(
        st.tuples(
            st.integers(0, len(TINY)),
            st.integers(0, 12),
            st.one_of(st.sampled_from(NASTY), st.text(alphabet='0123456789-+.eE[]{}":,\\ nulltrue', max_size=12)),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_any_text_edit_loads_or_gives_a_domain_error(edits):
    """Characters cut out and pasted in anywhere in a good file."""
    text = TINY
    for at, cut, paste in edits:
        at = min(at, len(text))
        text = text[:at] + paste + text[at + cut :]
    _load_and_run(text)


@settings(max_examples=examples(200), deadline=None)
@given(
    name=st.sampled_from([info.name for info in registry.strategies()]),
    data=st.data(),
    text=st.one_of(st.sampled_from(NASTY), st.text(max_size=30)),
)
def test_any_parameter_string_is_taken_or_refused_in_one_line(name, data, text):
    """`--param k=v` with any v: resolved, or a ParameterError naming the parameter."""
    info = registry.get(name)
    key = data.draw(st.sampled_from([p.name for p in info.params] + ["nope"]))
    try:
        info.resolve({key: text})
    except WorkbenchError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) < 400
