"""The shipped plug-in examples (examples/plugins/), loaded the way the README says: --plugin
anywhere on the command line, their strategies listed with their parameters and run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from tests.support.brute import brute_window
from workbench.cli import main
from workbench.engine import plugins, registry
from workbench.engine.files import load_environment
from workbench.engine.model import Environment, Job, Node, TimeSettings
from workbench.engine.search import find_window
from workbench.engine.slots import SlotTable

ROOT = Path(__file__).resolve().parents[2]
SPARE = ROOT / "examples" / "plugins" / "spare_time.py"
SAF = ROOT / "examples" / "plugins" / "smallest_area_first.py"
DEFAULT = ROOT / "sample_envs" / "default.json"


@pytest.fixture(autouse=True)
def _no_plugins_after():
    yield
    for key in list(plugins.added()):
        plugins.forget(key)


def test_plugin_before_or_after_the_subcommand_runs_the_strategy(tmp_path, capsys):
    """--plugin before the subcommand, or --plugin=FILE after it, loads the strategy quietly; both runs give the
    same windows."""
    out = tmp_path / "s.json"
    args = ["--strategy", "Most spare time", "--out", str(out)]
    assert main(["--plugin", str(SPARE), "schedule", str(DEFAULT), *args]) == 0
    first = json.loads(out.read_text())
    assert first["strategy"] == "Most spare time" and first["windows"]
    assert "[plug-in spare_time.py]" not in capsys.readouterr().err  # loaded quietly
    plugins.forget(str(SPARE.resolve()))
    assert main(["schedule", str(DEFAULT), f"--plugin={SPARE}", *args]) == 0
    assert json.loads(out.read_text())["windows"] == first["windows"]


def test_strategies_lists_a_plugins_strategies_with_their_parameters(capsys):
    """`strategies -v` with two plug-ins lists their selector and flow strategies, the file each comes from,
    their parameters with defaults and help, in columns that line up."""
    assert main(["strategies", "-v", "--plugin", str(SPARE), "--plugin", str(SAF)]) == 0
    text = capsys.readouterr().out
    assert re.search(r"^Most spare time +selector ", text, re.M) and "[plug-in spare_time.py]" in text
    # The columns line up however long a plug-in's name is.
    starts = {
        line.index(" flow ") if " flow " in line[:30] else line.index(" selector ")
        for line in text.splitlines()
        if re.match(r"^\S", line) and (" selector " in line[:40] or " flow " in line[:40])
    }
    assert len(starts) == 1, starts
    assert "weight_left=1.0: weight of the free time before the window" in text
    assert re.search(r"^Smallest area first +flow ", text, re.M)
    assert "ageing=0.0: area units a job gains per unit of waiting time" in text
    assert "reservations=1" in text


def test_a_refused_plugin_is_the_commands_one_line_error(tmp_path, capsys):
    """A plug-in file the user names that cannot be loaded stops the command with one line and exit
    code 2 (a script must not go on without the strategy it asked for); without it, the built-ins run."""
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('no')\n")
    assert main(["schedule", str(DEFAULT), "--plugin", str(bad), "--strategy", "FirstFit"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "workbench: error: plug-in bad.py: cannot be imported: RuntimeError: no (bad.py line 1)\n"
    assert captured.out == ""
    assert main(["strategies", "--plugin", str(tmp_path / "nope.py")]) == 2
    assert capsys.readouterr().err == f"workbench: error: plug-in nope.py: no such file: {tmp_path / 'nope.py'}\n"
    assert main(["schedule", str(DEFAULT), "--strategy", "FirstFit"]) == 0
    assert json.loads(capsys.readouterr().out)["windows"]


def test_an_unknown_name_suggests_the_nearest_or_says_plugin(tmp_path, capsys):
    """Issue 44 defect 6: a near miss names the strategy meant; a name known nowhere says how a
    plug-in's strategy becomes known; one name declared twice in a file says so, not "another"."""
    assert main(["schedule", str(DEFAULT), "--strategy", "MinCots"]) == 2
    assert "unknown strategy 'MinCots'; did you mean 'MinCost'?" in capsys.readouterr().err
    assert main(["schedule", str(DEFAULT), "--strategy", "Snug End"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean" not in err and "--plugin FILE" in err
    twice = tmp_path / "twice.py"
    twice.write_text(
        "from workbench.api import criterion\n"
        "@criterion('Twice')\ndef a(c):\n    return c.end - c.start\n"
        "@criterion('Twice')\ndef b(c):\n    return c.end - c.start\n"
    )
    assert main(["strategies", "--plugin", str(twice)]) == 2
    err = capsys.readouterr().err
    assert "declared twice in this file" in err and "another plug-in" not in err


def test_the_spare_time_example_finds_what_brute_force_finds():
    """The spare-time example finds the same window and value as brute force for the default sample's first jobs
    that need at most 3 nodes (at least three of them)."""
    plugins.load_file(SPARE)
    env = load_environment(DEFAULT)
    table = SlotTable.from_environment(env)
    spec = registry.selector("Most spare time", {"weight_left": 0.5}).spec
    checked = 0
    for job in env.jobs[:8]:
        if job.node_count > 3:  # brute force enumerates subsets: keep it quick
            continue
        got = find_window(table, job, spec, job.arrival)
        want = brute_window(table, job, spec.criterion, True, job.arrival)
        assert (got is None) == (want is None)
        if want is not None:
            assert got.window == want[1] and got.value == pytest.approx(want[0], abs=1e-9)
            checked += 1
    assert checked >= 3


def test_smallest_area_first_runs_jobs_in_area_order_on_one_node():
    """On one node, Smallest area first runs five jobs in order of volume, back to back."""
    plugins.load_file(SAF)
    volumes = [30.0, 10.0, 50.0, 20.0, 40.0]
    env = Environment(
        nodes=(Node("n", "n", 1.0, 1.0),),
        jobs=tuple(Job(f"j{i}", f"j{i}", 1, 1.0, v) for i, v in enumerate(volumes)),
        time=TimeSettings(0.0, None, None),
    )
    windows = sorted(registry.run(env, "Smallest area first").windows, key=lambda w: w.start)
    assert [w.job for w in windows] == ["j1", "j3", "j0", "j4", "j2"]
    assert np.diff([w.start for w in windows]).tolist() == [10.0, 20.0, 30.0, 40.0]


def test_ageing_lets_a_long_waiting_wide_job_go_before_a_newer_small_one():
    """Without ageing a newer small job starts before a wide job that has waited since 0; with ageing=2 the wide
    job's key falls below the small one's and it starts first."""
    plugins.load_file(SAF)
    nodes = tuple(Node(f"n{i}", f"n{i}", 1.0, 1.0) for i in range(2))
    jobs = (
        Job("blocker", "blocker", 2, 1.0, 10.0),  # both nodes over [0, 10)
        Job("wide", "wide", 2, 1.0, 10.0),  # area 20, waits from 0
        Job("small", "small", 1, 1.0, 10.0, arrival=10.0),  # area 10, comes when the nodes free up
    )
    env = Environment(nodes=nodes, jobs=jobs, time=TimeSettings(0.0, None, None))
    plain = {w.job: w.start for w in registry.run(env, "Smallest area first", {"reservations": 0}).windows}
    assert plain == {"blocker": 0.0, "small": 10.0, "wide": 20.0}
    aged = registry.run(env, "Smallest area first", {"reservations": 0, "ageing": 2.0}).windows
    # At t = 10 the wide job's key is 20 - 2 × 10 = 0, below the small one's 10.
    assert {w.job: w.start for w in aged} == {"blocker": 0.0, "wide": 10.0, "small": 20.0}
