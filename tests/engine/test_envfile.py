"""Environment files: lossless round trip, atomic save, every validation error named by path."""

from __future__ import annotations

import copy
import json
import math
import os
from pathlib import Path

import pytest
from hypothesis import given, settings

from tests.support.hypothesis_strategies import environments, examples
from workbench.engine.errors import ValidationError, WorkbenchError
from workbench.engine.files import environment_from_dict, load_environment
from workbench.engine.generate import generate
from workbench.engine.io.envfile import environment_to_dict, save_environment
from workbench.engine.model import StrategyRef

GOOD = {
    "format": "workbench.environment",
    "version": 1,
    "name": "t",
    "description": "",
    "time": {"start": 0, "cycle_length": 600, "horizon": 600},
    "nodes": [
        {"id": "n1", "name": "node 1", "performance": 4, "price": 1.5, "attributes": {"q": 7}},
        {"id": "n2", "name": "node 2", "performance": 2, "price": 1},
    ],
    "local_tasks": [
        {"id": "t1", "node": "n1", "start": 0, "end": 120, "kind": "local", "label": ""},
        {"id": "t2", "node": "n1", "start": 120, "end": 200, "kind": "maintenance"},
    ],
    "jobs": [
        {
            "id": "j1",
            "name": "job 1",
            "node_count": 2,
            "min_performance": 2,
            "volume": 800,
            "budget": 644,
            "criterion": "finish",
            "arrival": 0,
            "priority": 0,
            "actual_fraction": 1,
        }
    ],
    "strategy": {"name": "CoP", "params": {"alpha1": 0.2}},
}


@settings(max_examples=examples(60), deadline=None)
@given(env=environments())
def test_round_trip_is_lossless(env, tmp_path_factory):
    """Saving then loading gives back an equal environment."""
    path = tmp_path_factory.mktemp("rt") / "env.json"
    save_environment(env, path)
    assert load_environment(path) == env


def test_round_trip_of_generated_presets(tmp_path):
    """All presets survive a save/load unchanged, infinite budgets included."""
    for preset in ("vo24", "backfill32", "window100"):
        env = generate(preset, 7)
        save_environment(env, tmp_path / f"{preset}.json")
        assert load_environment(tmp_path / f"{preset}.json") == env
    assert math.isinf(generate("backfill32", 7).jobs[0].budget)


def test_good_document_loads():
    """The DESIGN.md example loads with its values and strategy parameters."""
    env = environment_from_dict(GOOD)
    assert env.nodes[0].attribute("q") == 7.0
    assert env.local_tasks[1].kind == "maintenance"
    assert env.jobs[0].budget == 644.0
    assert env.strategy == StrategyRef("CoP", (("alpha1", 0.2),))


def _broken(path: list, value=..., delete: bool = False) -> dict:
    doc = copy.deepcopy(GOOD)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("doc", "path", "words"),
    [
        (_broken(["format"], "other"), "$.format", "expected 'workbench.environment'"),
        (_broken(["version"], 2), "$.version", "expected 1"),
        (_broken(["extra"], 1), "$.extra", "unknown field"),
        (_broken(["nodes", 0, "performance"], -1), "$.nodes[0].performance", "> 0"),
        (_broken(["nodes", 0, "performance"], "fast"), "$.nodes[0].performance", "expected a finite number"),
        (_broken(["nodes", 1, "price"], True), "$.nodes[1].price", "boolean"),
        (_broken(["nodes", 1, "id"], "n1"), "$.nodes[1].id", "duplicate node id"),
        (_broken(["nodes", 0, "attributes"], {"q": "x"}), "$.nodes[0].attributes.q", "finite number"),
        (_broken(["nodes", 0, "speed"], 3), "$.nodes[0].speed", "unknown field"),
        (_broken(["nodes"], []), "$.nodes", "at least one node"),
        (_broken(["local_tasks", 0, "node"], "n9"), "$.local_tasks[0].node", "no node has id 'n9'"),
        (_broken(["local_tasks", 0, "end"], 0), "$.local_tasks[0].end", "> start"),
        (_broken(["local_tasks", 1, "start"], 100), "$.local_tasks[1]", "overlaps local task 't1'"),
        (_broken(["local_tasks", 0, "kind"], "holiday"), "$.local_tasks[0].kind", "expected one of"),
        (_broken(["jobs", 0, "node_count"], 0), "$.jobs[0].node_count", "whole number from 1 to 100,000"),
        (_broken(["jobs", 0, "node_count"], 2.5), "$.jobs[0].node_count", "whole number from 1 to 100,000"),
        (_broken(["jobs", 0, "volume"], 0), "$.jobs[0].volume", "> 0"),
        (_broken(["jobs", 0, "volume"], None, delete=True), "$.jobs[0].volume", "missing required field"),
        (_broken(["jobs", 0, "budget"], -5), "$.jobs[0].budget", "> 0"),
        (_broken(["jobs", 0, "actual_fraction"], 1.5), "$.jobs[0].actual_fraction", "≤ 1"),
        (_broken(["jobs", 0, "criterion"], "fastest"), "$.jobs[0].criterion", "expected one of"),
        (_broken(["time", "horizon"], -1), "$.time.horizon", "> start"),
        (_broken(["time", "cycle_length"], 0), "$.time.cycle_length", "> 0"),
        (_broken(["strategy", "name"], "Nope"), "$.strategy.name", "unknown strategy"),
        (_broken(["strategy", "params"], {"speed": 1}), "$.strategy.params.speed", "unknown parameter"),
        (_broken(["strategy", "params"], {"alpha1": "x"}), "$.strategy.params.alpha1", "expected a finite number"),
        ([1, 2], "$", "expected an object"),
    ],
)
def test_validation_errors_name_the_path(doc, path, words):
    """Each mistake is reported at its JSON path, saying what was expected."""
    with pytest.raises(ValidationError) as info:
        environment_from_dict(doc)
    assert info.value.path == path
    assert words in info.value.message


def test_bad_json_names_line_and_column(tmp_path):
    """A syntax error says where it is."""
    path = tmp_path / "bad.json"
    path.write_text('{"format": "workbench.environment",\n "version": 1,,}')
    with pytest.raises(ValidationError, match=r"line 2, column 15"):
        load_environment(path)


def test_missing_file_is_a_clear_error(tmp_path):
    """Loading a file that does not exist raises a WorkbenchError saying there is no such file."""
    with pytest.raises(WorkbenchError, match="no such file"):
        load_environment(tmp_path / "nope.json")


def test_save_is_atomic_and_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    """If writing fails half-way, the previous file is intact and no temporary is left."""
    path = tmp_path / "env.json"
    env = environment_from_dict(GOOD)
    save_environment(env, path)
    before = path.read_text()

    def boom(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(WorkbenchError, match="No space left"):
        save_environment(generate("vo24", 1), path)
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.json"]


def test_written_numbers_are_plain(tmp_path):
    """Whole numbers are written without '.0' and an infinite budget as null."""
    path = tmp_path / "env.json"
    doc = _broken(["jobs", 0, "budget"], None)
    save_environment(environment_from_dict(doc), path)
    data = json.loads(path.read_text())
    assert data["jobs"][0]["budget"] is None
    assert data["nodes"][0]["performance"] == 4 and isinstance(data["nodes"][0]["performance"], int)
    assert environment_to_dict(environment_from_dict(data)) == data


TINY = Path(__file__).resolve().parents[2] / "sample_envs" / "tiny.json"


def _good_text() -> str:
    return TINY.read_text()


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda t: "[" * 1200 + "]" * 1200, "$: nested too deeply (at most 32 levels)"),
        (lambda t: t.replace('"node_count": 2', '"node_count": ' + "9" * 5000, 1), "node_count: expected a whole"),
        (lambda t: t.replace('"volume": 60', '"volume": 1' + "0" * 400, 1), "volume: expected a finite number"),
        (lambda t: t.replace('"node_count": 2', '"node_count": 18446744073709551616', 1), "from 1 to 100,000"),
        (lambda t: t.replace('"name": "Tiny', '"name": "\\ud800', 1), "$.name: not valid Unicode"),
        (lambda t: t.replace('"id": "j1"', '"id": "j\\u0007"', 1), "control characters are not allowed"),
        (lambda t: t.replace('"id": "j1"', '"id": "' + "j" * 100_000 + '"', 1), "100,000 characters; the limit is 256"),
        (lambda t: t.replace('"volume": 60', '"vol\\nume": 20', 1), "$.jobs[0]['vol\\nume']: unknown field"),
        # Found by the fuzz test: cost units of such a value overflowed int64.
        (lambda t: t.replace('"volume": 60', '"volume": 461168601842738784', 1), "within ±1e+15"),
    ],
)
def test_hostile_files_give_one_line_that_names_the_path(tmp_path, mutate, words):
    """Each damaged file (too deep, huge or overflowing numbers, bad Unicode, control characters, an
    overlong id, an unknown field) gives a ValidationError of one short line, never a traceback."""
    from workbench.engine.files import environment_from_json

    text = mutate(_good_text())
    assert text != _good_text()
    with pytest.raises(ValidationError) as info:
        environment_from_json(text)
    message = str(info.value)
    assert words in message, message
    assert "\n" not in message and len(message) < 400


def test_only_regular_files_are_read(tmp_path):
    """A named pipe, a folder or an oversized file is refused at once, with the reason."""
    import os

    from workbench.engine.io.text import read_text

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(WorkbenchError, match="not a regular file"):
        load_environment(pipe)
    with pytest.raises(WorkbenchError, match="a folder"):
        load_environment(tmp_path)
    big = tmp_path / "big.json"
    big.write_text("x" * 2048)
    with pytest.raises(WorkbenchError, match=r"more memory to read than this machine allows.*\.npz"):
        read_text(big, limit=1024)


def test_save_refuses_a_read_only_target_and_keeps_it(tmp_path):
    """As editors do: a read-only file is not replaced; the message says what to do."""
    import stat

    from workbench.engine.io.envfile import save_environment

    target = tmp_path / "ro.json"
    target.write_text("keep me")
    target.chmod(stat.S_IRUSR)
    with pytest.raises(WorkbenchError, match="read-only"):
        save_environment(generate("vo24", 1), target)
    assert target.read_text() == "keep me"


# Saves the two environments in turn and prints how many saves it has completed after each one.
SAVER = """
import sys
from workbench.engine.generate import generate
from workbench.engine.io.envfile import save_environment
envs = [generate("vo24", 1, jobs=400), generate("vo24", 2, jobs=400)]
k = 0
while True:
    save_environment(envs[k % 2], sys.argv[1])
    k += 1
    print(k, flush=True)
"""


def test_a_killed_save_leaves_the_old_or_the_new_file_and_no_stale_temporary(tmp_path):
    """Kill a saving process at random moments after its first completed save: each time the file
    holds what one of its saves wrote (no longer the third environment it started on), always one of
    the two environments whole, and the next save removes the temporary file a kill left behind."""
    import random
    import select
    import signal
    import subprocess
    import sys
    import time

    target = tmp_path / "env.json"
    both = [generate("vo24", 1, jobs=400), generate("vo24", 2, jobs=400)]
    before = generate("vo24", 3, jobs=10)
    rng = random.Random(7)
    for _ in range(6):
        save_environment(before, target)
        with subprocess.Popen([sys.executable, "-c", SAVER, str(target)], stdout=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None
            try:
                ready, _, _ = select.select([proc.stdout], [], [], 120.0)  # a guard against a hang
                assert ready and proc.stdout.readline().strip() == "1", "the saver never completed a save"
                assert load_environment(target) in both  # its save replaced the file
                time.sleep(rng.random() * 0.3)  # then the kill lands somewhere in a later save
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
            saves = 1 + len(proc.stdout.read().split())
        assert load_environment(target) in both, f"killed after {saves} completed saves"
    save_environment(both[1], target)
    assert load_environment(target) == both[1]
    assert not list(tmp_path.glob(".env.json.*.tmp"))


def test_the_parser_keeps_a_strategy_as_written_unless_given_a_check():
    """The file parser sits below the strategy catalogue: it checks a strategy only with the check it
    is handed (workbench.engine.files hands it the registry's), and keeps the name as written without."""
    from workbench.engine import registry
    from workbench.engine.io import envfile

    doc = copy.deepcopy(GOOD)
    doc["strategy"] = {"name": "cop", "params": {"alpha1": 0.2}}
    assert envfile.environment_from_dict(doc).strategy == StrategyRef("cop", (("alpha1", 0.2),))
    assert envfile.environment_from_dict(doc, registry.check_strategy).strategy.name == "CoP"
    doc["strategy"]["name"] = "Nope"
    assert envfile.environment_from_dict(doc).strategy.name == "Nope"
    with pytest.raises(ValidationError, match="unknown strategy"):
        envfile.environment_from_dict(doc, registry.check_strategy)
