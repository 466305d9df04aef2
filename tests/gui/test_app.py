"""The window draws the engine's own result, and --screenshot renders a real PNG."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from workbench.engine import registry
from workbench.engine.io.envfile import load_environment

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"


@pytest.mark.parametrize("strategy", ["FirstFit", "MinCost", "CoP", "PAST"])
def test_chart_windows_equal_the_engine_result(qtbot, strategy):
    """Every rectangle of the window layer is a part of a window of the direct engine run."""
    from workbench.gui.main_window import MainWindow

    env = load_environment(DEFAULT)
    window = MainWindow(env, DEFAULT)
    qtbot.addWidget(window)
    window.strategy_combo.setCurrentText(strategy)
    window.run_strategy()
    direct = registry.run(env, strategy)
    assert window.schedule.windows == direct.windows
    index = env.node_index
    drawn = sorted(zip(window.chart.windows._x, window.chart.windows._y, window.chart.windows._w, strict=True))
    expected = sorted((w.start, float(index[n]), w.length) for w in direct.windows for n in w.nodes)
    assert drawn == expected


def test_clicking_a_window_selects_its_job(qtbot):
    from workbench.gui.main_window import MainWindow

    env = load_environment(DEFAULT)
    window = MainWindow(env, DEFAULT)
    qtbot.addWidget(window)
    window.run_strategy()
    target = window.schedule.windows[0]
    window.chart.job_clicked.emit(target.job)
    rows = {i.row() for i in window.jobs_table.selectedIndexes()}
    assert rows == {env.job_index[target.job]}
    assert window.chart.selection.count == len(target.nodes)


def test_screenshot_writes_a_png(tmp_path):
    """`workbench ENV --screenshot out.png` exits 0 with a real, non-empty PNG."""
    out = tmp_path / "shot.png"
    env = {"QT_QPA_PLATFORM": "offscreen", **{k: v for k, v in __import__("os").environ.items()}}
    result = subprocess.run(
        [sys.executable, "-m", "workbench", str(DEFAULT), "--strategy", "CoP", "--screenshot", str(out)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_screenshot_error_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = subprocess.run(
        [sys.executable, "-m", "workbench", str(bad), "--screenshot", str(tmp_path / "x.png")],
        capture_output=True,
        text=True,
        timeout=180,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "not valid JSON" in result.stderr
