"""Traces in (SWF headers, .gz, the job selection, Batsim workloads) and schedules out (SWF, Batsim's
jobs.csv read by evalys, Batsim workloads): docs/formats.md, "SWF import", "Batsim workload import" and "Schedule"."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import examples
from workbench.engine import registry
from workbench.engine.errors import ValidationError, WorkbenchError
from workbench.engine.files import load_environment
from workbench.engine.io.batsim import (
    environment_to_batsim,
    import_batsim,
    interval_set,
    schedule_to_batsim_csv,
)
from workbench.engine.io.envfile import save_environment
from workbench.engine.io.exports import write_schedule, write_workload
from workbench.engine.io.imports import import_trace
from workbench.engine.io.swf import import_swf, schedule_to_swf, swf_machine_size
from workbench.engine.io.trace import Selection, select_jobs

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_envs" / "sample16.swf"


def swf_line(job, submit, run, procs, request, status=1, user=3):
    return f"{job} {submit} -1 {run} {procs} -1 -1 {procs} {request} -1 {status} {user} 1 -1 1 -1 -1 -1"


def write_trace(path, header, lines):
    path.write_text("".join(f"; {h}\n" for h in header) + "\n".join(lines) + "\n")
    return path


def test_the_header_gives_the_nodes_and_its_start_time_and_zone_are_kept(tmp_path):
    """MaxNodes, else MaxProcs, is the default node count; UnixStartTime (with its UTC date) and
    TimeZoneString go into the description; --nodes still overrides; no size at all names --nodes."""
    lines = [swf_line(1, 0, 50, 2, 100), swf_line(2, 10, 80, 4, 100)]
    both = write_trace(
        tmp_path / "both.swf",
        ["MaxNodes: 6", "MaxProcs: 24", "UnixStartTime: 893466664", "TimeZoneString: Europe/Stockholm"],
        lines,
    )
    env = import_swf(both).env
    assert len(env.nodes) == 6
    assert "UnixStartTime 893466664 (1998-04-25 01:11:04 UTC)" in env.description
    assert "TimeZoneString Europe/Stockholm" in env.description
    assert len(import_swf(both, 12).env.nodes) == 12
    procs = write_trace(tmp_path / "procs.swf", ["MaxNodes: -1", "MaxProcs: 24"], lines)
    assert len(import_swf(procs).env.nodes) == 24
    bare = write_trace(tmp_path / "bare.swf", ["Computer: unknown"], lines)
    with pytest.raises(ValidationError, match=r"^--nodes: the trace's header names no machine size"):
        import_swf(bare)
    huge = write_trace(tmp_path / "huge.swf", ["MaxProcs: 300000"], lines)
    with pytest.raises(ValidationError, match=r"says 300,000 \(MaxProcs on line 1\); the limit is 100,000"):
        import_swf(huge)


def test_a_header_value_an_environment_cannot_hold_is_left_out_with_its_line(tmp_path):
    """A time zone with a control character, or a start time that is no number, is reported with its
    line and kept out of the description; the file written loads."""
    trace = write_trace(
        tmp_path / "t.swf",
        ["MaxNodes: 4", "UnixStartTime: soon", "TimeZoneString: Europe/\x07Paris"],
        [swf_line(1, 0, 50, 2, 100)],
    )
    result = import_swf(trace)
    assert result.skipped == [
        "line 2: UnixStartTime is not a whole number of seconds: 'soon'",
        "line 3: TimeZoneString: control characters are not allowed: 'Europe/\\x07Paris'",
    ]
    assert "Trace header" not in result.env.description and len(result.env.jobs) == 1
    save_environment(result.env, tmp_path / "env.json")
    assert load_environment(tmp_path / "env.json") == result.env


def test_a_gzipped_trace_reads_as_the_trace_itself(tmp_path):
    """trace.swf.gz gives the environment trace.swf gives (header defaults included); a file that is
    not whole gzip is one clear error."""
    packed = tmp_path / "sample16.swf.gz"
    packed.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    plain, unpacked = import_swf(SAMPLE), import_swf(packed)
    assert unpacked.env.jobs == plain.env.jobs and len(unpacked.env.nodes) == 16
    assert unpacked.env.description == plain.env.description
    assert swf_machine_size(packed) == swf_machine_size(SAMPLE) == 16  # the header alone, read through gzip
    cut = tmp_path / "cut.swf.gz"
    cut.write_bytes(packed.read_bytes()[:200])
    with pytest.raises(WorkbenchError, match="not a whole gzip file"):
        import_swf(cut, 16)
    fake = tmp_path / "fake.swf.gz"
    fake.write_text("1 2 3\n")
    with pytest.raises(WorkbenchError, match="not a whole gzip file"):
        import_swf(fake, 16)


STATUS_TRACE = [
    swf_line(1, 0, 50, 1, 100, status=1),
    swf_line(2, 10, 50, 1, 100, status=0),  # failed
    swf_line(3, 20, 50, 1, 100, status=5),  # cancelled
    swf_line(4, 30, 50, 1, 100, status=1),
    swf_line(5, 40, 50, 1, 100, status=-1),
    swf_line(6, 50, 50, 1, 100, status=1),
]


@pytest.mark.parametrize(
    ("selection", "kept"),
    [
        (Selection(), ["1", "2", "3", "4", "5", "6"]),
        (Selection(first=2), ["1", "2"]),
        (Selection(skip_status=True), ["1", "4", "5", "6"]),
        (Selection(start=10, end=40), ["2", "3", "4"]),
        (Selection(start=25), ["4", "5", "6"]),
        (Selection(end=25), ["1", "2", "3"]),
        (Selection(first=2, start=10, skip_status=True), ["4", "5"]),
    ],
)
def test_the_selection_keeps_completed_jobs_in_a_window_then_the_first_n(tmp_path, selection, kept):
    """--skip-status drops status 0 and 5, --from/--to keep [from, to), --first N the first N of what
    is left; the environment starts at the first job kept and says what was selected."""
    trace = write_trace(tmp_path / "t.swf", ["MaxNodes: 2"], STATUS_TRACE)
    result = import_swf(trace, selection=selection)
    env = result.env
    assert [j.id for j in env.jobs] == kept
    assert env.time.start == min(j.arrival for j in env.jobs)
    assert result.dropped == 6 - len(kept)
    if kept != ["1", "2", "3", "4", "5", "6"]:
        assert f"Selected: {selection.describe()}" in env.description
    assert select_jobs(import_swf(trace), selection).env == env  # the dialog's path: select a kept reading


@pytest.mark.parametrize(
    ("selection", "words"),
    [
        (Selection(first=0), "--first: expected a whole number ≥ 1, got 0"),
        (Selection(start=50, end=50), "--to: expected a time after --from (50), got 50"),
        (Selection(start=math.nan), "--from: expected a finite time, got nan"),
    ],
)
def test_a_selection_that_cannot_select_is_one_clear_error(tmp_path, selection, words):
    """A selection that cannot select (first 0, an empty time range, a NaN start) is refused with one message
    naming the option."""
    trace = write_trace(tmp_path / "t.swf", ["MaxNodes: 2"], STATUS_TRACE)
    with pytest.raises(ValidationError) as caught:
        import_swf(trace, selection=selection)
    assert str(caught.value) == words


def test_lines_left_out_after_the_first_n_jobs_are_not_reported(tmp_path):
    """With --first N, a bad line past the N-th job taken is outside what was asked for: the summary
    and the description do not count it (a review found `--first 500` reporting nine lines from the
    rest of the KTH trace). Bad lines before it still are."""
    trace = write_trace(
        tmp_path / "t.swf",
        ["MaxNodes: 4"],
        [
            swf_line(1, 0, 50, 2, 100),
            swf_line(2, 5, "1e30", 2, -1),  # before the second job taken: reported
            swf_line(3, 10, 60, 1, 100),
            swf_line(4, 20, 60, 1, 100),
            swf_line(5, 30, "1e30", 1, -1),  # after it: beyond --first 2
        ],
    )
    everything = import_swf(trace)
    assert [s.split(":")[0] for s in everything.skipped] == ["line 3", "line 6"]
    first_two = import_swf(trace, selection=Selection(first=2))
    assert [j.id for j in first_two.env.jobs] == ["1", "3"]
    assert [s.split(":")[0] for s in first_two.skipped] == ["line 3"]
    assert "1 left out" in first_two.env.description


def test_a_value_an_environment_cannot_hold_leaves_its_line_out(tmp_path):
    """A run time of 1e30 with no request (a volume of 1e30), a submit time of 1e30 and a job number
    of 309 digits are each reported with the line number and the field; the rest imports, and what is
    written loads (it used to refuse: $.jobs[2].volume: expected a number within ±1e+15, got 1e+30)."""
    trace = write_trace(
        tmp_path / "t.swf",
        ["MaxNodes: 4"],
        [
            swf_line(1, 0, 50, 2, 100),
            swf_line(2, 5, 60, 1, 100),
            swf_line(3, 10, "1e30", 2, -1),
            swf_line(4, "1e30", 60, 1, 100),
            swf_line("1" + "0" * 308, 20, 60, 1, 100),
            swf_line(6, 30, 60, 1, 100),
        ],
    )
    result = import_swf(trace)
    assert [j.id for j in result.env.jobs] == ["1", "2", "6"]
    assert result.skipped[0] == "line 4: job 3: volume (field 4): expected a number within ±1e+15, got 1e+30"
    assert result.skipped[1] == "line 5: job 4: arrival (field 2): expected a number within ±1e+15, got 1e+30"
    assert (
        result.skipped[2].startswith("line 6: job 1000000000") and "id (field 1): 309 characters" in result.skipped[2]
    )
    out = tmp_path / "env.json"
    save_environment(result.env, out)
    assert load_environment(out) == result.env


def workload(jobs, profiles=None, nb_res=8):
    profiles = {"p50": {"type": "delay", "delay": 50}, "p80": {"type": "DelayProfile", "delay": 80.5}} | (
        profiles or {}
    )
    return {"nb_res": nb_res, "jobs": jobs, "profiles": profiles}


def write_workload_file(path, data):
    path.write_text(json.dumps(data))
    return path


def test_a_batsim_workload_imports_as_an_swf_trace_does(tmp_path):
    """nb_res is the default node count; subtime -> arrival, res -> n, walltime -> length (the delay
    when there is none), delay / walltime -> actual fraction (capped at 1); ids may be numbers; both
    delay profile types; extra fields of Batsim's users are allowed; .json.gz reads directly."""
    data = workload(
        [
            {"id": "a", "subtime": 0, "res": 2, "walltime": 100, "profile": "p50", "extra_data": "{}"},
            {"id": 7, "subtime": 12.5, "res": 8, "walltime": -1, "profile": "p80"},
            {"id": "c", "subtime": 20, "res": 1, "profile": "p80"},
            {"id": "d", "subtime": 30, "res": 1, "walltime": 40, "profile": "p50"},
        ]
    )
    path = write_workload_file(tmp_path / "w.json", data)
    result = import_batsim(path)
    env = result.env
    assert len(env.nodes) == 8 and not result.skipped
    got = [(j.id, j.arrival, j.node_count, j.volume, j.actual_fraction) for j in env.jobs]
    assert got == [("a", 0, 2, 100, 0.5), ("7", 12.5, 8, 80.5, 1), ("c", 20, 1, 80.5, 1), ("d", 30, 1, 40, 1)]
    assert env.time.start == 0 and env.strategy.name == "EASY"
    assert len(import_batsim(path, 16).env.nodes) == 16
    packed = tmp_path / "w.json.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert import_trace(packed).env.jobs == env.jobs
    assert [j.id for j in import_trace(path, selection=Selection(start=10, first=1)).env.jobs] == ["7"]


GOOD = {"id": "ok", "subtime": 0, "res": 2, "walltime": 100, "profile": "p50"}


@pytest.mark.parametrize(
    ("job", "profiles", "message"),
    [
        ({"id": "x", "res": 2, "walltime": 100, "profile": "p50"}, {}, "$.jobs[1].subtime: missing required field"),
        (
            {"id": "x", "subtime": 5, "res": -2, "walltime": 100, "profile": "p50"},
            {},
            "$.jobs[1].res: expected a whole number from 1 to 8 (the nodes), got -2",
        ),
        (
            {"id": "x", "subtime": 5, "res": 2, "walltime": 1e30, "profile": "p50"},
            {},
            "$.jobs[1].walltime: expected a number within ±1e+15, got 1e+30",
        ),
        (
            {"id": "x", "subtime": 5, "res": 2, "walltime": 100, "profile": "nope"},
            {},
            "$.jobs[1].profile: no profile 'nope' in $.profiles",
        ),
        (
            {"id": "x", "subtime": 5, "res": 2, "walltime": 100, "profile": "mpi"},
            {"mpi": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}},
            "$.profiles.mpi.type: expected delay or DelayProfile (the others need a platform), "
            "got 'parallel_homogeneous'",
        ),
        (
            {"id": "x", "subtime": 5, "res": 2, "profile": "long"},
            {"long": {"type": "delay", "delay": 1e30}},
            "$.profiles.long.delay: expected a number within ±1e+15, got 1e+30",
        ),
        (
            {"id": "x" * 300, "subtime": 5, "res": 2, "walltime": 100, "profile": "p50"},
            {},
            "$.jobs[1].id: 300 characters; the limit is 256",
        ),
        ({"id": "ok", "subtime": 5, "res": 2, "profile": "p50"}, {}, "$.jobs[1].id: duplicate job id 'ok'"),
        ("a job", {}, "$.jobs[1]: expected an object, got string 'a job'"),
    ],
)
def test_a_batsim_job_that_cannot_be_imported_is_left_out_with_its_json_path(tmp_path, job, profiles, message):
    """A missing field, a negative res, a 1e30 walltime, an unknown profile (or one of a type without a
    run time of its own) ... is reported with its JSON path and left out; the others import and load."""
    last = {"id": "last", "subtime": 9, "res": 1, "walltime": 50, "profile": "p80"}
    path = write_workload_file(tmp_path / "w.json", workload([GOOD, job, last], profiles))
    result = import_batsim(path)
    assert [j.id for j in result.env.jobs] == ["ok", "last"]
    assert result.skipped[0] == message
    out = tmp_path / "env.json"
    save_environment(result.env, out)
    assert load_environment(out) == result.env


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "$: expected an object, got a list"),
        ({"nb_res": 4, "profiles": {}}, "$.jobs: missing required field"),
        ({"jobs": [], "profiles": {}}, "--nodes: the workload gives no nb_res: give --nodes N"),
        ({"nb_res": 2.5, "jobs": []}, "$.nb_res: expected a whole number from 1 to 100,000, got 2.5"),
        ({"nb_res": 4, "jobs": {}}, "$.jobs: expected a list, got an object"),
        ({"nb_res": 4, "jobs": [], "profiles": []}, "$.profiles: expected an object of profiles"),
    ],
)
def test_a_workload_that_is_no_workload_is_one_clear_error(tmp_path, data, message):
    """A Batsim workload that is no workload (a list, no jobs, no nb_res, a fractional nb_res, jobs or profiles
    of the wrong type) is refused with one message naming where."""
    path = write_workload_file(tmp_path / "w.json", data)
    with pytest.raises(ValidationError) as caught:
        import_batsim(path)
    assert str(caught.value) == message


def test_swf_round_trip_export_a_schedule_and_import_it_back(tmp_path):
    """A schedule written as SWF imports back to the same jobs (ids, arrivals, widths, lengths, actual
    fractions, users) on the machine its header names; fields 3 and 4 are the schedule's wait and run
    time, and the header names the strategy and the machine."""
    env = import_swf(SAMPLE).env
    schedule = registry.run(env, "EASY")
    out = tmp_path / "easy.swf"
    write_schedule(env, schedule, out)
    text = out.read_text()
    assert "; Note: the schedule of EASY on SWF import of sample16.swf" in text
    assert "; Computer: Slot Workbench, 16 nodes, performance 1, price 1" in text
    back = import_swf(out)
    assert len(back.env.nodes) == 16 and not back.skipped
    for job, again in zip(env.jobs, back.env.jobs, strict=True):
        assert (again.id, again.arrival, again.node_count, again.volume, again.user) == (
            job.id,
            job.arrival,
            job.node_count,
            job.volume,
            job.user,
        )
        assert again.actual_fraction == pytest.approx(job.actual_fraction, rel=1e-12)
    rows = {line.split()[0]: line.split() for line in text.splitlines() if not line.startswith(";")}
    for window in schedule.windows:
        fields = rows[window.job]
        job = env.job(window.job)
        assert float(fields[2]) == pytest.approx(window.start - job.arrival)
        assert float(fields[3]) == pytest.approx(schedule.actual_end(env, window) - window.start)
        assert (int(fields[4]), fields[10]) == (len(window.nodes), "1")


def test_a_job_without_a_window_is_cancelled_in_the_swf_export(tmp_path):
    """CoP leaves a job of the default sample without a window: it is written with status 5 and wait, run
    and allocation -1, so --skip-status leaves it out on the way back; ids that are not numbers are
    numbered by position, and the header says so."""
    env = load_environment(ROOT / "sample_envs" / "default.json")
    schedule = registry.run(env, "CoP")
    (failed,) = schedule.unscheduled
    text = schedule_to_swf(env, schedule)
    assert "job numbers are positions in the job list" in text
    position = str([j.id for j in env.jobs].index(failed) + 1)
    (row,) = [line.split() for line in text.splitlines() if line.split()[0] == position]
    assert (row[2], row[3], row[4], row[10]) == ("-1", "-1", "-1", "5")
    out = tmp_path / "cop.swf"
    out.write_text(text)
    assert position not in [j.id for j in import_swf(out, selection=Selection(skip_status=True)).env.jobs]
    assert len(import_swf(out).env.jobs) == len(env.jobs)


# evalys calls pandas in ways pandas 3 deprecates (``rename(inplace=True)``): its warnings, not ours.
@pytest.mark.filterwarnings("ignore::DeprecationWarning:evalys", "ignore::FutureWarning:evalys")
def test_evalys_reads_the_batsim_jobs_csv_with_every_start_end_and_node(tmp_path):
    """evalys's JobSet.from_csv loads the exported jobs.csv: every placed job's start, finish and
    allocated resources (0-based node positions) are the schedule's; a job without a window is
    REJECTED with no resources; evalys draws its Gantt chart."""
    evalys_jobset = pytest.importorskip("evalys.jobset")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    env = load_environment(ROOT / "sample_envs" / "default.json")
    schedule = registry.run(env, "CoP")
    path = tmp_path / "jobs.csv"
    write_schedule(env, schedule, path, "batsim")
    jobs = evalys_jobset.JobSet.from_csv(str(path))
    frame = jobs.df.set_index("jobID")
    position = {node.id: k for k, node in enumerate(env.nodes)}
    assert list(frame.index) == [j.id for j in env.jobs]
    for window in schedule.windows:
        row = frame.loc[window.job]
        assert row.starting_time == pytest.approx(window.start, abs=1e-6)
        assert row.finish_time == pytest.approx(schedule.actual_end(env, window), abs=1e-6)
        assert set(row.allocated_resources) == {position[n] for n in window.nodes}
        assert row.final_state == "COMPLETED_SUCCESSFULLY" and row.success == 1
    for job_id in schedule.unscheduled:
        assert frame.loc[job_id].final_state == "REJECTED" and len(frame.loc[job_id].allocated_resources) == 0
    jobs.gantt()
    plt.close("all")


def test_batsim_jobs_csv_columns_and_interval_sets():
    """The header is Batsim's output columns in order; node sets are canonical interval sets."""
    env = import_swf(SAMPLE).env
    text = schedule_to_batsim_csv(env, registry.run(env, "EASY"))
    assert text.splitlines()[0] == (
        "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
        "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources"
    )
    assert interval_set([7, 0, 1, 2, 3]) == "0-3 7"
    assert interval_set([5, 9, 10, 12]) == "5 9-10 12"
    assert interval_set([]) == ""


def test_batsim_workload_round_trip(tmp_path):
    """An environment written as a Batsim workload imports back to the same jobs; each job's profile is a
    delay of its actual run and its walltime its length."""
    env = import_swf(SAMPLE).env
    out = tmp_path / "w.json"
    write_workload(env, out)
    data = json.loads(out.read_text())
    assert data["nb_res"] == 16 and len(data["jobs"]) == len(env.jobs)
    first = data["jobs"][0]
    assert first == {"id": "1", "subtime": 0, "res": 2, "walltime": 211, "profile": "job_1"}
    assert data["profiles"]["job_1"] == {"type": "delay", "delay": 198}
    back = import_batsim(out)
    assert not back.skipped and len(back.env.nodes) == 16
    for job, again in zip(env.jobs, back.env.jobs, strict=True):
        assert (again.id, again.arrival, again.node_count, again.volume) == (
            job.id,
            job.arrival,
            job.node_count,
            job.volume,
        )
        assert again.actual_fraction == pytest.approx(job.actual_fraction, rel=1e-12)


def test_a_workload_of_faster_nodes_reserves_the_slowest_run():
    """On mixed nodes the walltime is the job's length on the slowest node it may use, so Batsim never
    kills it early."""
    env = load_environment(ROOT / "sample_envs" / "default.json")
    data = environment_to_batsim(env)
    for job, entry in zip(env.jobs, data["jobs"], strict=True):
        slowest = min(n.performance for n in env.nodes if n.performance >= job.min_performance)
        assert entry["walltime"] == pytest.approx(job.volume / slowest)
        assert data["profiles"][entry["profile"]]["delay"] == pytest.approx(job.actual_fraction * entry["walltime"])


NUMBERS = st.one_of(
    st.integers(-3, 40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e30, -1e30, 1e15, 2**60, 0.5, -1]),
)
BATSIM_JOB = st.fixed_dictionaries(
    {
        "id": st.one_of(st.integers(0, 10**20), st.text(max_size=300)),
        "subtime": st.one_of(st.floats(0, 1e6), NUMBERS),
        "res": st.one_of(st.integers(1, 8), NUMBERS, st.booleans(), st.none()),
        "profile": st.sampled_from(["p50", "p80", "p50", "bad", "none", ""]),
    },
    optional={"walltime": st.one_of(st.floats(1, 1e4), NUMBERS)},
)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jobs=st.lists(st.one_of(BATSIM_JOB, st.integers(), st.text(max_size=5)), max_size=8), delay=NUMBERS)
def test_whatever_a_batsim_import_writes_loads_back_the_same(tmp_path, jobs, delay):
    """Any workload's jobs: each is imported or reported, and what is imported loads back unchanged."""
    data = workload(jobs, {"bad": {"type": "delay", "delay": delay}})
    result = import_batsim(write_workload_file(tmp_path / "w.json", data))
    assert len(result.env.jobs) + len([s for s in result.skipped if s.startswith("$.jobs")]) == len(jobs)
    out = tmp_path / "env.json"
    save_environment(result.env, out)
    assert load_environment(out) == result.env
