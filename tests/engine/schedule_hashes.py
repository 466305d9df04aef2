"""The windows every strategy gives on every shipped sample, as one hash each.

Refactoring the engine must not change a schedule. ``test_schedule_hashes.py`` holds each
strategy's hash on each sample (``tests/engine/schedule_hashes.json``) and fails when one
changes. When a change of schedules is intended, regenerate the file and say why in the
commit:  python -m tests.engine.schedule_hashes --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from workbench.engine import registry
from workbench.engine.errors import WorkbenchError
from workbench.engine.files import load_environment
from workbench.engine.io.swf import import_swf

ROOT = Path(__file__).resolve().parents[2]  # the samples of this checkout
SAMPLES = ROOT / "sample_envs"
HASHES = Path(__file__).with_name("schedule_hashes.json")


def environments() -> dict[str, object]:
    envs: dict[str, object] = {p.stem: load_environment(p) for p in sorted(SAMPLES.glob("*.json"))}
    envs["sample16.swf"] = import_swf(SAMPLES / "sample16.swf", 16).env
    return envs


def schedule_hash(env: object, strategy: str) -> str:
    """A hash of the strategy's windows (job, start, length, nodes, cost) and failures, or of its error."""
    try:
        schedule = registry.run(env, strategy)  # type: ignore[arg-type]
        text = json.dumps(
            [
                sorted((w.job, repr(w.start), repr(w.length), list(w.nodes), repr(w.cost)) for w in schedule.windows),
                sorted(schedule.unscheduled),
                sorted(schedule.actual_ends.items()),
            ]
        )
    except WorkbenchError as exc:
        text = f"error: {exc}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def all_hashes() -> dict[str, dict[str, str]]:
    envs = environments()
    names = [info.name for info in registry.strategies()]
    return {env_name: {name: schedule_hash(env, name) for name in names} for env_name, env in envs.items()}


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        HASHES.write_text(json.dumps(all_hashes(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {HASHES}")
    else:
        print(json.dumps(all_hashes(), indent=1, sort_keys=True))
