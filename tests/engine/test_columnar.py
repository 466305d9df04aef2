"""The columnar path (issue 45): jobs checked as columns, the ``.npz`` container, the array measures.

Each is held to what it replaces: the JSON reader's record-by-record check (same jobs, same
message on a bad row), the JSON file (the container round-trips every shipped sample and random
environments to the same ``Environment``), and the plain Python measures
(``tests/support/reference_metrics.py``).
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import reference_metrics
from tests.support.hypothesis_strategies import examples, flows, saturated_flows
from workbench.engine import jobarrays, registry
from workbench.engine.errors import ValidationError, WorkbenchError
from workbench.engine.files import load_environment, save_environment
from workbench.engine.io import envfile
from workbench.engine.metrics import flow_metrics, job_metrics
from workbench.engine.model import JOB_CRITERIA, Environment, Job, LocalTask, Node, Site, TimeSettings

SAMPLES = sorted(Path(__file__).resolve().parents[2].joinpath("sample_envs").glob("*.json"))

TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=12)


@st.composite
def file_environments(draw) -> Environment:
    """Environments with every field of a file varied: texts, sites, users, criteria, budgets."""
    sites = draw(st.lists(TEXT, max_size=2, unique=True))
    n_nodes = draw(st.integers(1, 5))
    nodes = tuple(
        Node(
            f"n{i}",
            draw(TEXT),
            draw(st.floats(0.25, 64)),
            draw(st.floats(0, 10)),
            (("q", draw(st.floats(-5, 5))),) if draw(st.booleans()) else (),
            draw(st.sampled_from(sites)) if sites and draw(st.booleans()) else "",
        )
        for i in range(n_nodes)
    )
    tasks = tuple(
        LocalTask(
            f"t{k}", f"n{k % n_nodes}", float(10 * k), float(10 * k + draw(st.integers(1, 9))), "local", draw(TEXT)
        )
        for k in range(draw(st.integers(0, 4)))
    )
    ids = draw(st.lists(TEXT.filter(lambda s: s.strip() == s), min_size=1, max_size=8, unique=True))
    jobs = tuple(
        Job(
            ident,
            draw(TEXT),
            draw(st.integers(1, 4)),
            draw(st.floats(0, 8)),
            draw(st.floats(0.5, 1e6)),
            draw(st.one_of(st.just(math.inf), st.floats(1, 1e6))),
            draw(st.sampled_from(JOB_CRITERIA)),
            draw(st.floats(0, 1e7)),
            draw(st.floats(-5, 5)),
            draw(st.floats(0.01, 1.0)),
            draw(st.sampled_from(["", "alice", "ü 7"])),
            draw(st.sampled_from(["", *sites])),
        )
        for ident in ids
    )
    time = TimeSettings(
        0.0,
        draw(st.sampled_from([None, 50.0])),
        draw(st.sampled_from([None, 1e8])),
        draw(st.sampled_from(["model", "seconds"])),
    )
    return Environment(nodes, tasks, jobs, time, draw(TEXT), "", sites=tuple(Site(s, s) for s in sites))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file_environments())
def test_json_jobs_read_as_columns_equal_the_record_by_record_read(env):
    """The column check and the record check read the same jobs from the same document."""
    doc = envfile.environment_to_dict(env)
    top = envfile.Obj(doc, "$", envfile.RECORDS["environment"])
    sites = set(env.site_ids)
    assert envfile._jobs_from(top, sites) == envfile._jobs_one_by_one(top, sites) == env.jobs


BAD_VALUES = [
    ("volume", 0),
    ("volume", -3.5),
    ("volume", "12"),
    ("node_count", 0),
    ("node_count", 2.5),
    ("node_count", True),
    ("budget", 0),
    ("arrival", -1),
    ("arrival", 1e16),
    ("actual_fraction", 1.5),
    ("criterion", "soonest"),
    ("id", ""),
    ("id", "a\x01b"),
    ("name", "x" * 100_001),
    ("user", "line\nbreak"),
    ("priority", None),
    ("site", "nowhere"),
]


@pytest.mark.parametrize(("field", "value"), BAD_VALUES)
def test_a_bad_job_field_gives_the_record_checks_message(field, value):
    """A bad value in row 3 is refused with the message and path the record check gives."""
    env = load_environment(SAMPLES[0])
    doc = envfile.environment_to_dict(env)
    jobs = [envfile.job_to_dict(env.jobs[k % 2]) for k in range(6)]
    for k, job in enumerate(jobs):
        job["id"] = f"row{k}"
    jobs[3][field] = value
    doc["jobs"] = jobs
    top = envfile.Obj(doc, "$", envfile.RECORDS["environment"])
    with pytest.raises(ValidationError) as fast:
        envfile._jobs_from(top, set())
    with pytest.raises(ValidationError) as slow:
        envfile._jobs_one_by_one(top, set())
    assert str(fast.value) == str(slow.value)
    assert fast.value.path.startswith("$.jobs[3]")


def test_a_duplicate_job_id_is_named_at_its_second_row():
    """Duplicates are a column's rule: the second row with the id is named, as the record check does."""
    doc = envfile.environment_to_dict(load_environment(SAMPLES[0]))
    doc["jobs"] = [dict(doc["jobs"][0], id="a"), dict(doc["jobs"][0], id="b"), dict(doc["jobs"][0], id="a")]
    with pytest.raises(ValidationError, match=r"^\$\.jobs\[2\]\.id: duplicate job id 'a'$"):
        envfile.environment_from_dict(doc)


# ---------------------------------------------------------------- the container


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_every_shipped_sample_round_trips_through_the_container(sample, tmp_path):
    """JSON → .npz → the same Environment, and the container → JSON → the same again."""
    env = load_environment(sample)
    save_environment(env, tmp_path / "env.npz")
    back = load_environment(tmp_path / "env.npz")
    assert back == env
    save_environment(back, tmp_path / "env.json")
    assert load_environment(tmp_path / "env.json") == env


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file_environments())
def test_random_environments_round_trip_through_the_container(tmp_path, env):
    """Any environment a file can hold reads back equal from the container, as from JSON."""
    save_environment(env, tmp_path / "h.npz")
    save_environment(env, tmp_path / "h.json")
    loaded = load_environment(tmp_path / "h.npz")
    assert loaded == load_environment(tmp_path / "h.json") == env
    # The job arrays the container hands over are those its jobs give.
    for name in jobarrays.FIELDS:
        got = jobarrays.job_array(loaded, name)
        want = np.array([getattr(job, name) for job in loaded.jobs], dtype=got.dtype)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == (np.int64 if name == "node_count" else np.float64) and not got.flags.writeable


def _columns(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def _write_raw(path: Path, meta, arrays) -> None:
    payload = {"meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays}
    with open(path, "wb") as handle:
        np.savez(handle, **payload)


def _bad(tmp_path: Path, change) -> str:
    env = load_environment(SAMPLES[0])
    path = tmp_path / "bad.npz"
    save_environment(env, path)
    arrays = _columns(path)
    meta = json.loads(bytes(arrays.pop("meta")).decode())
    change(meta, arrays)
    _write_raw(path, meta, arrays)
    with pytest.raises(WorkbenchError) as info:
        load_environment(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path)), message
    return message


def test_a_bad_container_is_refused_in_one_line_naming_the_column_and_row(tmp_path):
    """Wrong version, wrong type, NaN, a negative count, a missing column: one line each, nothing loaded."""

    def version(meta, arrays):
        meta["version"] = 2

    def wrong_type(meta, arrays):
        arrays["jobs.volume"] = arrays["jobs.volume"].astype(str)

    def nan(meta, arrays):
        arrays["jobs.arrival"][1] = np.nan

    def negative(meta, arrays):
        arrays["jobs.node_count"][2] = -4

    def missing(meta, arrays):
        del arrays["jobs.priority"]

    def short(meta, arrays):
        arrays["jobs.budget"] = arrays["jobs.budget"][:-1]

    def code(meta, arrays):
        arrays["jobs.criterion"][0] = 9

    assert "container version 2; this workbench reads version 1" in _bad(tmp_path, version)
    assert "column jobs.volume: expected float64 numbers" in _bad(tmp_path, wrong_type)
    assert "jobs.arrival, row 1: expected a finite number, got nan" in _bad(tmp_path, nan)
    assert "jobs.node_count, row 2: expected a whole number from 1" in _bad(tmp_path, negative)
    assert "column jobs.priority is missing" in _bad(tmp_path, missing)
    assert "column jobs.budget:" in _bad(tmp_path, short) and "rows, expected" in _bad(tmp_path, short)
    assert "jobs.criterion, row 0: expected a code from 0 to 4, got 9" in _bad(tmp_path, code)


def test_a_truncated_or_corrupted_container_is_refused(tmp_path):
    """Cut short or with a flipped byte, the file is refused in one line; nothing is half loaded."""
    env = load_environment(SAMPLES[0])
    path = tmp_path / "env.npz"
    save_environment(env, path)
    data = path.read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(WorkbenchError, match="not a whole container"):
        load_environment(tmp_path / "cut.npz")
    # A flipped byte inside a column's data: the archive's checksum catches it.
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("jobs.volume.npy")
    at = info.header_offset + 30 + len(info.filename) + 140
    flipped = bytearray(data)
    flipped[at] ^= 0xFF
    (tmp_path / "flip.npz").write_bytes(bytes(flipped))
    with pytest.raises(WorkbenchError) as info2:
        load_environment(tmp_path / "flip.npz")
    assert "jobs.volume" in str(info2.value) and "\n" not in str(info2.value)
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(WorkbenchError, match="not a whole container"):
        load_environment(tmp_path / "text.npz")


def test_a_suffix_the_writer_does_not_know_is_refused(tmp_path):
    """`.parquet`, no suffix, `.txt`: refused in one line naming the two it writes; no file appears."""
    env = load_environment(SAMPLES[0])
    for name in ("x.parquet", "x", "x.txt"):
        with pytest.raises(WorkbenchError, match=r"\.json \(text\) or \.npz"):
            save_environment(env, tmp_path / name)
        assert not (tmp_path / name).exists()


# ---------------------------------------------------------------- the array measures


def _same_measures(env, schedule) -> None:
    new, old = flow_metrics(env, schedule), reference_metrics.flow_metrics(env, schedule)
    for name, value in new.as_dict().items():
        expected = getattr(old, name)
        if isinstance(value, dict):
            assert value.keys() == expected.keys(), name
            for key in value:
                assert value[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-9), (name, key)
        elif isinstance(value, float) and math.isnan(value):
            assert math.isnan(expected), name
        else:
            assert value == pytest.approx(expected, rel=1e-9, abs=1e-9), name
    for a, b in zip(job_metrics(env, schedule), reference_metrics.job_metrics(env, schedule), strict=True):
        assert a.job == b.job
        for name in (
            "start",
            "finish",
            "actual_finish",
            "wait",
            "runtime",
            "cost",
            "cpu_time",
            "slowdown",
            "response",
            "bounded_slowdown",
        ):
            assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-9, abs=1e-9), (a.job, name)


@pytest.mark.parametrize("strategy", ["EASY", "FirstFit", "CoP", "MinCost", "CSS"])
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env=st.one_of(flows(), saturated_flows()))
def test_array_measures_equal_the_plain_ones(strategy, env):
    """Every flow measure and every job's measures equal the one-window-at-a-time reference."""
    _same_measures(env, registry.run(env, strategy, {}))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_array_measures_equal_the_plain_ones_on_the_samples(sample):
    """The same on every shipped sample under its own strategy (rough edges, sites, local tasks)."""
    env = load_environment(sample)
    _same_measures(env, registry.run(env, env.strategy.name, env.strategy.params_dict()))


# ---------------------------------------------------------------- SWF lines read as columns

SWF_VALUE = st.sampled_from(["-1", "0", "1", "2", "3.5", "7", "16", "120", "3600", "1e16", "nan", "inf", "-5"])


@st.composite
def swf_lines(draw) -> list[tuple[int, str]]:
    """Trace lines, good and bad: repeated job numbers, missing sizes and times, odd fields."""
    lines = []
    for k in range(draw(st.integers(1, 25))):
        fields = [draw(st.sampled_from(["1", "2", "3", "4", "2.5", "1e15"]))]
        fields += [draw(SWF_VALUE) if draw(st.integers(0, 6)) == 0 else str(draw(st.integers(1, 64))) for _ in range(17)]  # noqa: E501
        if draw(st.integers(0, 60)) == 0:  # rare: then every line is read alone
            fields = fields[:-1] if draw(st.booleans()) else [*fields[:-1], "x"]
        lines.append((k + 3, " ".join(fields)))
    return lines


@settings(max_examples=examples(200), deadline=None)
@given(swf_lines())
def test_swf_lines_read_as_columns_equal_the_line_by_line_read(lines):
    """The same jobs, statuses, lines left out (with the same messages) and places of those lines."""
    from workbench.engine.io import swf
    from workbench.engine.io.trace import Machine

    machine = Machine(32)
    text = "; header\n\n" + "\n".join(line for _, line in lines)
    fast_skipped, fast_after, slow_skipped, slow_after = [], [], [], []
    fast = swf._read_jobs(text, machine, fast_skipped, fast_after)
    slow = swf._lines_one_by_one(lines, machine, slow_skipped, slow_after)
    assert fast == slow
    assert fast_skipped == slow_skipped and fast_after == slow_after


# ---------------------------------------------------------------- a compiled run's windows as columns


def test_a_compiled_easy_runs_windows_stay_columns_until_read(tmp_path):
    """EASY's kernel hands over its windows as columns: measuring and saving the result to the
    container make no ``Window``; read, they equal the stepped run's, and they pickle as a tuple."""
    import pickle

    from workbench.engine.grid.configs import lublin_environment
    from workbench.engine.io.result_files import save_result
    from workbench.engine.schedule import LazyWindows

    env, _ = lublin_environment(600, 3, 64)
    lazy = registry.run(env, "EASY", {})
    assert isinstance(lazy.windows, LazyWindows)
    flow_metrics(env, lazy)
    save_result(env, lazy, tmp_path / "r.npz")
    assert lazy.windows._made is None  # nothing read them one by one
    stepped = registry.simulator(env, "EASY", {}, history=True).run()
    assert lazy.windows == stepped.windows and dict(lazy.actual_ends) == pytest.approx(dict(stepped.actual_ends))
    assert lazy.unscheduled == stepped.unscheduled
    back = pickle.loads(pickle.dumps(lazy))
    assert type(back.windows) is tuple and back.windows == stepped.windows


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from([0.0, 1.5, 2.0, -3.0, 7.25])), max_size=60))
def test_the_two_pass_sort_is_lexsort(pairs):
    """``slots.by_keys`` (two stable sorts, for millions of intervals) orders as ``np.lexsort`` does."""
    from workbench.engine import slots

    node = np.array([p[0] for p in pairs], dtype=np.int64)
    start = np.array([p[1] for p in pairs], dtype=np.float64)
    old, slots.BY_KEYS_FROM = slots.BY_KEYS_FROM, 0
    try:
        assert np.array_equal(slots.by_keys(node, start), np.lexsort((start, node)))
        assert np.array_equal(slots.by_keys(start, node), np.lexsort((node, start)))
    finally:
        slots.BY_KEYS_FROM = old
