"""Each job's numbers as arrays, made once per environment and kept with it.

A compiled run, the measures and the writers each read a few numbers of every job (its width,
volume, arrival, …). Reading them off a million ``Job`` records costs about 0.1 s a field, and
each reader did it again. An environment is immutable, so the arrays made from its jobs stay
true for it; ``dataclasses.replace`` makes a new environment, which starts with none. The
container reader, which has the columns already, hands them over (``seed``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from workbench.engine.model import Environment

FIELDS = ("node_count", "min_performance", "volume", "budget", "arrival", "priority", "actual_fraction")
_CACHE = "_job_arrays"  # the key in the environment's ``__dict__`` (as ``functools.cached_property`` keeps)


def job_array(env: Environment, name: str) -> np.ndarray:
    """``name`` (one of ``FIELDS``) of every job of ``env``, in job order, read-only: int64 for
    ``node_count``, float64 otherwise."""
    if name not in FIELDS:
        raise KeyError(name)
    cache = env.__dict__.setdefault(_CACHE, {})
    got = cache.get(name)
    if got is None:
        got = np.fromiter((job.__dict__[name] for job in env.jobs), dtype=_dtype(name), count=len(env.jobs))
        got.flags.writeable = False
        cache[name] = got
    return got


def _dtype(name: str) -> type:
    return np.int64 if name == "node_count" else np.float64


def seed(env: Environment, columns: Mapping[str, np.ndarray]) -> None:
    """Keep ``columns`` (arrays of ``FIELDS``, made from the same values as ``env.jobs``) as its
    job arrays."""
    cache = env.__dict__.setdefault(_CACHE, {})
    for name in FIELDS:
        if name in columns:
            got: np.ndarray = np.array(columns[name], dtype=_dtype(name))  # a copy: the caller's may change
            got.flags.writeable = False
            cache[name] = got


def share(old: Environment, new: Environment) -> Environment:
    """``new``, holding ``old``'s job arrays when it holds the same jobs (a change of its name or
    strategy only)."""
    if new.jobs is old.jobs and _CACHE in old.__dict__:
        new.__dict__[_CACHE] = old.__dict__[_CACHE]
    return new


def longest_run(env: Environment) -> float:
    """The longest any job can run: its volume on the slowest node it may use (a job that names no
    least performance, 0, may use the slowest of all); 0 without jobs or nodes."""
    if not env.jobs or not env.nodes:
        return 0.0
    slowest = min(node.performance for node in env.nodes)
    least = np.maximum(job_array(env, "min_performance"), slowest)
    return float((job_array(env, "volume") / least).max())
