"""The run's timeline (engine/timeline.py): the overview's step functions against a count made job
by job, and the jumps of time navigation against their definitions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from workbench.engine import registry
from workbench.engine.files import load_environment
from workbench.engine.generate import generate
from workbench.engine.timeline import job_event_after, job_events, next_time, overview

DEFAULT = Path(__file__).resolve().parents[2] / "sample_envs" / "default.json"


def _state_at(env, schedule, t):
    """Busy share and queue length at time t, counted job by job (after every change at t)."""
    ends = schedule.actual_ends
    busy = sum(len(w.nodes) for w in schedule.windows if w.start <= t < ends.get(w.job, w.end))
    started = {w.job for w in schedule.windows if w.start <= t}
    queue = sum(1 for j in env.jobs if max(j.arrival, env.time.start) <= t and j.id not in started)
    return busy / len(env.nodes), queue


def _value_at(ov, t):
    k = int(np.searchsorted(ov.times, t, side="right")) - 1
    return float(ov.busy[k]), int(ov.queue[k])


@settings(max_examples=15, deadline=None)
@given(seed=hs.integers(0, 50), strategy=hs.sampled_from(["EASY", "FirstFit", "CoP"]))
def test_the_overview_matches_a_count_job_by_job(seed, strategy):
    """On generated flows under EASY, FirstFit and CoP, the overview's busy share and queue length equal a count
    made job by job at and between its times; at the end no node is busy and only the unplaced jobs are queued."""
    env = generate("backfill32", seed, jobs=40)
    from dataclasses import replace

    import numpy.random as npr

    rng = npr.default_rng(seed)
    arrivals = np.sort(rng.uniform(0, 2000, len(env.jobs)))
    env = replace(env, jobs=tuple(replace(j, arrival=float(a)) for j, a in zip(env.jobs, arrivals, strict=True)))
    schedule = registry.run(env, strategy)
    ov = overview(env, schedule)
    assert np.all(np.diff(ov.times) > 0)
    probes = np.unique(np.concatenate((ov.times, (ov.times[:-1] + ov.times[1:]) / 2)))
    for t in probes:
        busy, queue = _state_at(env, schedule, t)
        got_busy, got_queue = _value_at(ov, t)
        assert got_busy == pytest.approx(busy) and got_queue == queue, t
    assert ov.queue[-1] == len(schedule.unscheduled) and ov.busy[-1] == 0


def test_jumps_go_to_the_next_arrival_completion_job_event_and_head_start():
    """On the default sample under FirstFit, a job's events are its arrival, start and end, and jumps go to its
    next and previous event, the next completion and the head's start, with none past the last; there is no
    arrival after 0, and an unknown jump is refused."""
    env = load_environment(DEFAULT)
    schedule = registry.run(env, "FirstFit")
    w = max(schedule.windows, key=lambda x: x.start)
    end = schedule.actual_ends.get(w.job, w.end)
    assert [what for _, what in job_events(env, schedule, w.job)] == ["arrived", "started", "ended"]
    assert job_event_after(env, schedule, w.job, w.start) == end
    assert job_event_after(env, schedule, w.job, w.start, forward=False) == max(env.job(w.job).arrival, 0.0)
    assert job_event_after(env, schedule, w.job, end) is None
    ends = sorted(schedule.actual_ends.get(x.job, x.end) for x in schedule.windows)
    assert next_time(env, schedule, "completion", ends[0]) == next(e for e in ends if e > ends[0])
    assert next_time(env, schedule, "arrival", 0.0) is None  # default.json: every job arrives at 0
    assert next_time(env, schedule, "head", 0.0, head=w.job) == w.start
    assert next_time(env, schedule, "head", w.start, head=w.job) is None
    with pytest.raises(ValueError, match="unknown jump"):
        next_time(env, schedule, "sunrise", 0.0)


@settings(max_examples=12, deadline=None)
@given(seed=hs.integers(0, 50), strategy=hs.sampled_from(["EASY", "FirstFit", "CoP", "BFfinish"]))
def test_the_latest_plan_gives_every_earlier_steps_busy_share(seed, strategy):
    """Snapshot.busy_fractions (one sort for all steps, what the Cycles plot reads) equals each
    step's own busy_fraction, early completions and moved reservations included."""
    from dataclasses import replace

    import numpy.random as npr

    env = generate("backfill32", seed, jobs=30)
    rng = npr.default_rng(seed)
    arrivals = np.sort(rng.uniform(0, 1500, len(env.jobs)))
    fractions = rng.choice([1.0, 0.5, 0.2], len(env.jobs))
    env = replace(
        env,
        jobs=tuple(
            replace(j, arrival=float(a), actual_fraction=float(f))
            for j, a, f in zip(env.jobs, arrivals, fractions, strict=True)
        ),
    )
    sim = registry.simulator(env, strategy, {})
    while sim.step() is not None:
        pass
    snaps = [s for s in sim.snapshots if np.isfinite(s.time)]
    for latest in (sim.snapshots[-1], snaps[len(snaps) // 2]):
        earlier = [s for s in snaps if s.time <= latest.time]
        got = latest.busy_fractions([s.time for s in earlier])
        assert got == pytest.approx([s.busy_fraction for s in earlier])


@settings(max_examples=25, deadline=None)
@given(
    name=hs.sampled_from(["EASY", "FirstFit", "CoP"]),
    seed=hs.integers(0, 50),
    reads=hs.lists(hs.sampled_from(["next", "next", "next", "back", "skip"]), min_size=1, max_size=40),
)
def test_a_steps_plan_made_from_the_step_before_is_the_plan_made_afresh(name, seed, reads):
    """A step's windows and plan are made from the step before's when it has them (a step through a
    long run reads only the placements since) and the step before then lets go of its copy: in any
    order of reading, forwards, back or skipping, each step's windows, actual ends, distances and
    window index are those made from the whole log, and no window is longer than its ``longest``."""
    import dataclasses

    env = generate("backfill32", seed, jobs=14)
    env = dataclasses.replace(env, jobs=tuple(dataclasses.replace(j, actual_fraction=0.6) for j in env.jobs))
    sim = registry.simulator(env, name, {}, history=True)
    while not sim.done:
        sim.step()
    snaps = sim.snapshots
    at = 0
    for read in reads:
        at = max(0, at - 1) if read == "back" else min(len(snaps) - 1, at + (2 if read == "skip" else 1))
        snap = snaps[at]
        fresh = dataclasses.replace(snap, previous=None)
        assert snap.windows == fresh.windows
        assert dict(snap.actual_ends) == dict(fresh.actual_ends)
        assert snap.schedule.distances == fresh.schedule.distances
        assert all(snap.schedule.window_of(w.job) == w for w in fresh.windows)
        assert snap.longest >= max((w.length for w in fresh.windows), default=0.0)
