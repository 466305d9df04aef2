"""A window closed in its first seconds, or a process sent SIGTERM, while the kernels are being
compiled (the warm-up, on a cold cache) or while a run is inside compiled code, ends cleanly: no
crash, no "Fatal Python error", the exit code it should have (docs/design.md "Compiled code and
memory": no thread is inside compiled code when the interpreter shuts down)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.engine.generate import generate
from workbench.engine.io.envfile import save_environment

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"

# Opens the window as ``workbench ENV`` does, closes it after the delay, then exits as the command does.
CLOSE_AFTER = """
import sys
from pathlib import Path
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from workbench import cli
from workbench.gui.app import run_app

app = QApplication([sys.argv[0]])
QTimer.singleShot(int(sys.argv[3]), lambda: [w.close() for w in app.topLevelWidgets()])
code = run_app(Path(sys.argv[1]), sys.argv[2])
print("closed", code, flush=True)
cli.exit_safely(code)  # (may end the process here, without finalising, if a compile goes on)
"""


def _env(tmp_path: Path, cache: Path | None) -> dict[str, str]:
    """The child's environment: a fresh kernel cache (``cache``), or the suite's own (None: warm)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    if cache is not None:
        env["WORKBENCH_KERNEL_CACHE"] = str(cache)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # no autosave offered, no settings of the user's
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["PYTHONPATH"] = str(ROOT)
    env.pop("NUMBA_CACHE_DIR", None)
    return env


def _clean(err: str) -> None:
    assert "Fatal Python error" not in err and "Segmentation fault" not in err, err[-3000:]
    assert "Traceback" not in err, err[-3000:]


@pytest.fixture(scope="module")
def long_run(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """An environment whose CoP run takes seconds: the window is closed in the middle of it."""
    path = tmp_path_factory.mktemp("long") / "long.json"
    save_environment(generate("backfill32", 1, jobs=1500), path)
    return path


@pytest.mark.slow
@pytest.mark.parametrize(("when", "delay_ms"), [("warm-up", 300), ("warm-up", 1500), ("run", 800), ("run", 2500)])
def test_closing_the_window_at_once_ends_cleanly(tmp_path, long_run, when, delay_ms):
    """Closed during the warm-up's compile (an empty kernel cache) or during a long run (the user's
    cache, warm): the process ends with code 0, having waited a bounded time."""
    env = _env(tmp_path, tmp_path / "cache" if when == "warm-up" else None)
    target = DEFAULT if when == "warm-up" else long_run
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", CLOSE_AFTER, str(target), "CoP", str(delay_ms)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "closed 0" in done.stdout
    _clean(done.stderr)
    assert time.monotonic() - began < 120  # bounded: the command waits at most 10 s for compiled code


@pytest.mark.parametrize(("when", "delay_s"), [("warm-up", 1.0), ("run", 3.0)])
def test_sigterm_during_the_warm_up_or_a_run_ends_the_process_not_in_a_crash(tmp_path, long_run, when, delay_s):
    """SIGTERM ends the window's process at once, by the signal, during a compile or a run: never a
    crash of another kind (a fault while the interpreter shuts down would be SIGSEGV or SIGABRT)."""
    env = _env(tmp_path, tmp_path / "cache" if when == "warm-up" else None)
    target = DEFAULT if when == "warm-up" else long_run
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", str(target), "--strategy", "CoP"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay_s)
    assert proc.poll() is None, "the window ended before it was sent SIGTERM"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM, (proc.returncode, err[-3000:])
    _clean(err)
