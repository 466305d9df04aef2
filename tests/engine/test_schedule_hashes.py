"""Every strategy's schedule on every shipped sample is the one recorded (refactoring changes none)."""

from __future__ import annotations

import json

import pytest

from tests.engine.schedule_hashes import HASHES, all_hashes


@pytest.mark.slow
def test_every_strategy_gives_the_recorded_schedule_on_every_sample():
    """The windows, failures and actual ends of all strategies on all samples hash as recorded in
    schedule_hashes.json; a change names the sample and the strategy (regenerate the file, with a
    reason in the commit, only when a change of schedules is meant)."""
    want = json.loads(HASHES.read_text())
    got = all_hashes()
    changed = [f"{env} / {name}" for env in want for name in want[env] if got.get(env, {}).get(name) != want[env][name]]
    assert not changed, "schedules changed: " + ", ".join(changed)
    assert set(got) == set(want) and all(set(got[env]) == set(want[env]) for env in want)
