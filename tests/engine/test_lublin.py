"""The Lublin–Feitelson workload generator against the statistics its published parameters fix."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.engine.errors import ParameterError
from workbench.engine.grid.lublin import (
    BUCKETS,
    CLASSES,
    TYPELESS,
    bucket_weights,
    generate_workload,
    summary,
    workload_environment,
)


def truncated_mean_exp(shape: float, scale: float, limit: float = 13.0) -> float:
    """E[exp(G) | G ≤ limit] for G ~ gamma(shape, scale): the model's mean inter-arrival seconds."""
    x = np.linspace(1e-9, limit, 200_001)
    pdf = np.exp((shape - 1) * np.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale))
    return float(np.trapezoid(pdf * np.exp(x), x) / np.trapezoid(pdf, x))


@pytest.fixture(scope="module")
def work():
    return generate_workload(20_000, 128, seed=1)


def test_job_sizes_follow_the_published_shares(work):
    """Over 20,000 jobs on 128 nodes, each class's share of serial jobs, of powers of two among parallel ones
    and of sizes up to the two-stage uniform's middle match the published parameters."""
    assert work.size.min() >= 1 and work.size.max() <= 128
    for k, cls in enumerate(CLASSES):
        sizes = work.size[work.kind == k]
        assert abs(np.mean(sizes == 1) - cls.serial) < 0.02
        parallel = sizes[sizes > 1]
        pow2 = np.mean((parallel & (parallel - 1)) == 0)
        # the pow2 share is rounded to a power of two; others may land on one by chance
        assert pow2 >= cls.pow2 / (1 - cls.serial) - 0.03
        # two-stage uniform: log2 size of a parallel job below u_med with probability about u_prob
        assert abs(np.mean(np.log2(parallel) <= cls.u_med + 0.5) - cls.u_prob) < 0.1


def test_runtimes_follow_the_hyper_gamma(work):
    """Each class's mean log runtime is the hyper-gamma's mean for its jobs' sizes (within 0.15), and no runtime
    exceeds e^12."""
    for k, cls in enumerate(CLASSES):
        mask = work.kind == k
        p = np.clip(cls.pa * work.size[mask] + cls.pb, 0, 1)
        expected = float(np.mean(p * cls.a1 * cls.b1 + (1 - p) * cls.a2 * cls.b2))
        # whole seconds (floor) pull short runtimes' logs down a little
        assert abs(np.log(work.runtime[mask]).mean() - expected) < 0.15
        assert work.runtime[mask].max() <= math.exp(12)


def test_arrivals_follow_the_gamma_and_the_daily_cycle(work):
    """Arrivals are in time order; each class's mean gap matches the truncated gamma's mean and its share of
    arrivals in the busier half of the day matches the daily cycle; batch jobs are 8-25 % of all."""
    assert np.all(np.diff(work.arrival) >= 0)
    for k, cls in enumerate(CLASSES):
        times = work.arrival[work.kind == k]
        ratio = np.diff(times).mean() / truncated_mean_exp(cls.aarr * cls.arar, cls.barr)
        assert 0.8 < ratio < 1.2  # heavy-tailed gaps: the sample mean is noisy
        weights = bucket_weights(cls)
        busy = np.argsort(weights)[-BUCKETS // 2 :]
        share = np.isin(((times % 86400) // 1800).astype(int), busy).mean()
        assert abs(share - weights[busy].sum() / BUCKETS) < 0.05
    # interactive jobs come about every 1,000 s, batch jobs far more rarely
    assert 0.08 < summary(work)["batch_share"] < 0.25


def test_typeless_variant_and_scaling():
    """The typeless variant has one class with its serial share and reaches the machine size (256); sizes stay
    within a 64-node machine; the same seed gives the same runtimes and arrivals."""
    w = generate_workload(10_000, 256, seed=2, typed=False)
    assert set(np.unique(w.kind)) == {0}
    assert abs(np.mean(w.size == 1) - TYPELESS.serial) < 0.02
    assert w.size.max() == 256  # u_hi = log2 256: the widest jobs reach the machine size
    assert generate_workload(500, 64, seed=5).size.max() <= 64
    a, b = generate_workload(300, 128, seed=7), generate_workload(300, 128, seed=7)
    assert np.array_equal(a.runtime, b.runtime) and np.array_equal(a.arrival, b.arrival)


def test_environment_and_bad_arguments():
    """A workload becomes an environment of its jobs on the given nodes, the volumes its runtimes; zero jobs or
    a one-node machine are refused naming --jobs or --nodes."""
    w = generate_workload(50, 32, seed=3)
    env = workload_environment(w, 32, 3)
    assert len(env.jobs) == 50 and len(env.nodes) == 32
    assert [j.volume for j in env.jobs] == list(w.runtime)
    with pytest.raises(ParameterError, match="--jobs"):
        generate_workload(0, 32, 1)
    with pytest.raises(ParameterError, match="--nodes"):
        generate_workload(10, 1, 1)
