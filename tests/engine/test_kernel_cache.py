"""The compiled kernels' disk cache and their one signature each (docs/design.md "Compiled code and
memory"): a file that is damaged, foreign or of another key is rebuilt, never run; processes that
compile at once, on a cold cache, leave a cache every later run can trust."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from workbench.engine import kernels, registry
from workbench.engine.kernels import cache
from workbench.engine.kernels.jit import KERNELS, compiled
from workbench.engine.warmup import warm

ROOT = Path(__file__).resolve().parents[2]


def _fresh_kernel():  # type: ignore[no-untyped-def]
    """A new dispatcher of one small function with the package's cache (not listed in ``KERNELS``)."""

    def scaled(a, factor):  # type: ignore[no-untyped-def]
        total = 0.0
        for x in a:
            total += x * factor
        return total

    d = compiled(scaled)
    KERNELS.remove(d)
    return d


@pytest.fixture
def private_cache(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("WORKBENCH_KERNEL_CACHE", str(tmp_path / "cache"))
    return cache.cache_dir()


def test_a_saved_kernel_is_loaded_by_the_next_dispatcher(private_cache):
    """A kernel compiled once writes one cache file, and the next dispatcher of the same function loads it (one
    cache hit) and gives the same answer."""
    first = _fresh_kernel()
    assert first(np.arange(4.0), 2.0) == 12.0
    files = list(private_cache.glob("*.nbk"))
    assert len(files) == 1
    second = _fresh_kernel()
    assert second(np.arange(4.0), 2.0) == 12.0
    assert sum(second.stats.cache_hits.values()) == 1  # loaded, not compiled


@pytest.mark.parametrize(
    "damage",
    ["truncated", "garbage", "flipped byte", "empty", "foreign key"],
)
def test_a_damaged_or_foreign_file_is_rebuilt_never_run(private_cache, damage):
    """A cache file that is truncated, random, has a flipped byte, is empty or holds another signature's code is
    rejected: the kernel compiles again, answers right, and writes the file anew."""
    a = np.arange(5.0)
    _fresh_kernel()(a, 1.0)
    _fresh_kernel()(a.astype(np.int64), 1.0)  # a second signature: a second file
    f64, i64 = sorted(private_cache.glob("*.nbk"), key=lambda p: p.stat().st_mtime)
    blob = f64.read_bytes()
    if damage == "truncated":
        f64.write_bytes(blob[: len(blob) // 2])
    elif damage == "garbage":
        f64.write_bytes(os.urandom(len(blob)))
    elif damage == "flipped byte":
        f64.write_bytes(blob[:-100] + bytes([blob[-100] ^ 0xFF]) + blob[-99:])
    elif damage == "empty":
        f64.write_bytes(b"")
    else:  # the int64 signature's code under the float64 signature's name: what numba's own index race made
        f64.write_bytes(i64.read_bytes())
    before = len(cache.rejected)
    d = _fresh_kernel()
    assert d(a, 1.0) == 10.0  # compiled again, and right
    assert sum(d.stats.cache_hits.values()) == 0
    assert len(cache.rejected) == before + 1
    assert d._cache.load_overload(d.signatures[0], d.targetctx) is not None  # the file was written anew


def test_a_key_names_the_machine_the_versions_and_the_compile_options(private_cache, monkeypatch):
    """A cache file's name changes when bounds checking is turned on and when the build it was made with
    differs."""
    d = _fresh_kernel()
    sig = d.compile((kernels.types.F1, kernels.types.F8)) and d.signatures[0]
    codegen = d.targetctx.codegen()
    plain = d._cache.path(d._cache.key(sig, codegen))
    monkeypatch.setattr(cache.config, "BOUNDSCHECK", 1, raising=False)
    assert d._cache.path(d._cache.key(sig, codegen)) != plain  # bounds-checked code is kept apart
    monkeypatch.setattr(cache, "_build", lambda: ("another numba",))
    assert d._cache.path(d._cache.key(sig, codegen)) != plain


def test_every_kernel_has_one_signature_after_every_compiled_path():
    """Every compiled path, run, compiles one signature of every kernel (EASY on identical and on
    mixed nodes, FirstFit's, CoP's and the finish time's dynamic backfilling, a static search)."""
    from workbench.engine.model import Environment, Job, Node, TimeSettings

    identical = tuple(Node(f"h{i}", f"h{i}", 1.0, 1.0) for i in range(4))
    mixed = tuple(Node(f"m{i}", f"m{i}", float(1 + i % 2), float(1 + i % 3)) for i in range(4))
    jobs = tuple(
        Job(f"j{i}", f"j{i}", 1 + i % 3, 0.0, float(4 + 3 * i), arrival=float(i), actual_fraction=0.5 + 0.1 * (i % 4))
        for i in range(12)
    )
    for nodes, names in ((identical, ("EASY",)), (mixed, ("EASY", "FirstFit", "CoP", "BFfinish", "MinCost"))):
        env = Environment(nodes=nodes, jobs=jobs, time=TimeSettings(0.0, None, None))
        for name in names:
            registry.run(env, name, explain=True)
            registry.run(env, name)
    warm()
    counts = kernels.signature_counts()
    assert all(entry.ready for entry in kernels.ENTRIES)
    assert {name: n for name, n in counts.items() if n > 1} == {}
    for entry in kernels.ENTRIES:
        assert len(entry.dispatcher.signatures) == 1, entry.name


def test_a_call_of_another_signature_is_refused_not_compiled():
    """A prepared kernel refuses float32 or non-contiguous arrays with a TypeError instead of compiling another
    signature, and still answers for its own."""
    kernels.prepare((kernels.fastest_level,))
    perf = np.array([2.0, 1.0])
    with pytest.raises(TypeError):
        kernels.fastest_level(perf.astype(np.float32), np.array([0, 1]), np.array([2.0, 1.0]), 1)
    with pytest.raises(TypeError):
        kernels.fastest_level(perf[::-1], np.array([0, 1]), np.array([2.0, 1.0]), 1)  # not C-contiguous
    assert len(kernels.fastest_level.dispatcher.signatures) == 1
    assert kernels.fastest_level(perf, np.array([0, 1]), np.array([2.0, 1.0]), 2) == 1


def test_the_first_call_names_the_argument_of_the_wrong_type():
    """An entry's check names the argument of the wrong type and what it was given ('cols' is an int32 array)."""
    entry = kernels.Entry(kernels.earliest.fastest_level, (("perf", kernels.types.F1), ("cols", kernels.types.I1)))
    with pytest.raises(TypeError, match="'cols' is array\\(int32"):
        entry.check((np.ones(2), np.zeros(2, dtype=np.int32)))


def test_preparing_is_timed_apart_from_the_run(monkeypatch):
    """A run's ``elapsed_ms`` leaves the kernels' preparation out and reports it as ``prepare_ms``."""
    import time

    from workbench.engine.generate import generate
    from workbench.engine.kernels import boundary

    def slow_prepare(entries, should_stop=None):  # type: ignore[no-untyped-def]
        time.sleep(1.0)  # as if compiling took a second
        boundary._local.seconds = boundary.prepared_seconds() + 1.0
        return 1.0

    env = generate("vo24", 1)
    monkeypatch.setattr(kernels, "prepare", slow_prepare)
    result = registry.run(env, "FirstFit")
    assert result.prepare_ms == pytest.approx(1000.0)
    assert 0.0 < result.elapsed_ms < result.prepare_ms  # the run itself takes milliseconds


# -- several processes on one cold cache ----------------------------------------------------

HOLD = textwrap.dedent(
    """
    import os, sys, time, numpy as np
    from pathlib import Path
    from workbench.engine.kernels import cache
    from workbench.engine.kernels.jit import compiled

    barrier, mine, kind = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    real_replace = os.replace

    def held_replace(src, dst):  # hold between writing the data and putting it in place
        (barrier / f"{mine}.ready").touch()
        while not (barrier / "go").exists():
            time.sleep(0.01)
        real_replace(src, dst)

    cache.os.replace = held_replace if mine == "held" else real_replace

    @compiled
    def scaled(a, factor):
        total = 0.0
        for x in a:
            total += x * factor
        return total

    a = np.arange(6).astype(kind)
    print(scaled(a, 2.0))
    """
)


def test_a_forced_collision_of_two_writers_leaves_a_cache_that_runs_right(tmp_path):
    """Two processes save different signatures of one kernel at the same moment, one held between
    writing its data and putting it in place, with no lock between them (as when the lock is not to
    be had): each file is whole and of its own key, and a third process runs both signatures right."""
    env = {**os.environ, "WORKBENCH_KERNEL_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    script = tmp_path / "hold.py"
    script.write_text(HOLD)
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    held = subprocess.Popen([sys.executable, str(script), str(barrier), "held", "float64"], env=env, text=True,
                            stdout=subprocess.PIPE)  # fmt: skip
    for _ in range(6000):
        if (barrier / "held.ready").exists():
            break
        held.poll()
        assert held.returncode is None, "the held writer ended early"
        __import__("time").sleep(0.01)
    other = subprocess.run([sys.executable, str(script), str(barrier), "free", "int64"], env=env, text=True,
                           capture_output=True, timeout=600)  # fmt: skip
    assert other.returncode == 0, other.stderr
    (barrier / "go").touch()
    out, _ = held.communicate(timeout=600)
    assert held.returncode == 0
    assert float(out) == float(other.stdout) == 30.0
    files = list((tmp_path / "cache").rglob("*.nbk"))
    assert len(files) == 2 and not list((tmp_path / "cache").rglob("*.tmp"))
    for kind in ("float64", "int64"):
        again = subprocess.run([sys.executable, str(script), str(barrier), "free", kind], env=env, text=True,
                               capture_output=True, timeout=600)  # fmt: skip
        assert again.returncode == 0 and float(again.stdout) == 30.0, again.stderr
        assert "deleted" not in again.stderr  # loaded as saved: nothing was found damaged


def _schedule_hash(path: Path) -> list[tuple[str, float, list[str]]]:
    data = json.loads(path.read_text())
    return sorted((w["job"], w["start"], w["nodes"]) for w in data["windows"])


@pytest.mark.slow
def test_processes_started_together_on_a_cold_cache_all_run_and_leave_it_sound(tmp_path):
    """A lab run with two workers, ``schedule`` (FirstFit and CoP: dynamic backfilling), ``simulate``
    (EASY) and ``warm`` start at once on an empty kernel cache. Each ends well, and every run
    afterwards on that cache gives the schedule this process gives (its own cache)."""
    shared = tmp_path / "cache"
    env = {**os.environ, "WORKBENCH_KERNEL_CACHE": str(shared), "QT_QPA_PLATFORM": "offscreen"}
    env.pop("NUMBA_CACHE_DIR", None)
    sample = ROOT / "sample_envs" / "default.json"
    cli = [sys.executable, "-m", "workbench.cli"]
    lab = [*cli, "lab", "run", "backfilling", "--reps", "2", "--workers", "2", "--out", str(tmp_path / "lab")]
    lab += ["--set", "scenario=static", "--set", "n_q=50", "--set", "quantum=0.0", "--set", "local_load=0.1"]
    lab += ["--set", "job_perf_max=0.0", "--set", "strategy=BFstart,CoP"]
    commands = {
        "lab": lab,
        "firstfit": [*cli, "schedule", str(sample), "--strategy", "FirstFit", "--out", str(tmp_path / "ff.json")],
        "cop": [*cli, "schedule", str(sample), "--strategy", "CoP", "--out", str(tmp_path / "cop.json")],
        "easy": [*cli, "simulate", str(sample), "--strategy", "EASY", "--out", str(tmp_path / "easy.json")],
        "warm": [*cli, "warm"],
    }
    running = {name: subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name, cmd in commands.items()}  # fmt: skip
    for name, proc in running.items():
        _, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"{name} ended with {proc.returncode}: {err[-2000:]}"
    assert not list(shared.rglob("*.tmp"))
    # One signature per kernel after all of them, the lab's workers included: one file each.
    names = [path.name.rsplit("-", 1)[0] for path in shared.rglob("*.nbk")]
    assert len(names) == len(set(names)) == len(KERNELS)
    from workbench.engine.files import load_environment
    from workbench.engine.io.result import schedule_to_dict

    environment = load_environment(sample)
    for name, strategy in (("ff", "FirstFit"), ("cop", "CoP")):
        again = tmp_path / f"{name}-again.json"
        done = subprocess.run([*cli, "schedule", str(sample), "--strategy", strategy, "--out", str(again)],
                              env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "deleted" not in done.stderr
        mine = tmp_path / f"{name}-mine.json"
        mine.write_text(json.dumps(schedule_to_dict(environment, registry.run(environment, strategy))))
        assert _schedule_hash(again) == _schedule_hash(mine) == _schedule_hash(tmp_path / f"{name}.json")
