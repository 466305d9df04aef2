"""The result of running a strategy on an environment."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from workbench.engine.model import Environment, Window


@dataclass(frozen=True)
class WindowArrays:
    """A schedule's windows as columns (``metrics.window_arrays``; the measures are array code over them).

    Per window: ``job_row`` (the job's position in the environment), ``start``, ``length``, ``cost``,
    ``actual`` (the actual end), ``arrival`` (its job's), ``width`` (n), ``overhead``; per part, in
    window order: ``part_node`` (the node's position), ``part_window`` and ``part_length``."""

    job_row: np.ndarray
    start: np.ndarray
    length: np.ndarray
    cost: np.ndarray
    actual: np.ndarray
    arrival: np.ndarray
    width: np.ndarray
    overhead: np.ndarray
    part_node: np.ndarray
    part_window: np.ndarray
    part_length: np.ndarray

    @property
    def cpu_time(self) -> np.ndarray:
        """Each window's reserved processor time: the sum of its parts' lengths."""
        return np.bincount(self.part_window, weights=self.part_length, minlength=self.start.size)


CHUNK = 65_536  # parts made into names per call while the windows are made into records


class LazyWindows(Sequence[Window]):
    """A compiled run's windows, made into ``Window`` records only when first read.

    A run that places every job at once (EASY's kernels) hands over its windows as columns
    (``WindowArrays``); the measures and the writers read those, and a caller that iterates,
    indexes or compares the windows gets the records, made once. It pickles as a plain tuple.
    """

    def __init__(self, arrays: WindowArrays, job_ids: Sequence[str], node_ids: Sequence[str]) -> None:
        self.arrays = arrays
        self._job_ids, self._node_ids = job_ids, node_ids
        self._made: tuple[Window, ...] | None = None

    def _records(self) -> tuple[Window, ...]:
        if self._made is None:
            a, ids, names = self.arrays, self._job_ids, self._node_ids
            parts: list[str] = []
            for at in range(0, a.part_node.size, CHUNK):  # a chunk at a time: the GIL is let go between
                parts.extend(map(names.__getitem__, a.part_node[at : at + CHUNK].tolist()))
            ends = np.cumsum(a.width).tolist()
            columns = (a.job_row.tolist(), a.start.tolist(), a.length.tolist(), a.cost.tolist(), a.width.tolist())
            self._made = tuple(
                Window(ids[j], t, T, tuple(parts[end - n : end]), c)
                for (j, t, T, c, n), end in zip(zip(*columns, strict=True), ends, strict=True)
            )
        return self._made

    def __len__(self) -> int:
        return int(self.arrays.start.size)

    def __getitem__(self, index: Any) -> Any:
        return self._records()[index]

    def __iter__(self) -> Iterator[Window]:
        return iter(self._records())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return self._records() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyWindows({len(self)} windows)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (self._records(),))


class LazyEnds(Mapping[str, float]):
    """Job id -> actual end of a compiled run's windows, made into a dict only when first read."""

    def __init__(self, arrays: WindowArrays, job_ids: Sequence[str]) -> None:
        self.arrays, self._job_ids = arrays, job_ids
        self._made: dict[str, float] | None = None

    def _dict(self) -> dict[str, float]:
        if self._made is None:
            jobs = [self._job_ids[j] for j in self.arrays.job_row.tolist()]
            self._made = dict(zip(jobs, self.arrays.actual.tolist(), strict=True))
        return self._made

    def __getitem__(self, key: str) -> float:
        return self._dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict())

    def __len__(self) -> int:
        return int(self.arrays.start.size)

    def __contains__(self, key: object) -> bool:
        return key in self._dict()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._dict() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (self._dict(),))


@dataclass(frozen=True)
class Schedule:
    """Windows placed, jobs left out with a reason a person understands, and the compute time.

    ``actual_ends`` maps a job id to the time its nodes are really released
    (start + actual_fraction * length; docs/design.md "Command line").
    """

    strategy: str
    windows: Sequence[Window]  # a tuple, or a compiled run's ``LazyWindows``
    unscheduled: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)
    elapsed_ms: float = 0.0
    # The compiled kernels made ready during the run (compiled on a machine's first run, else loaded):
    # a one-off of the process, left out of ``elapsed_ms`` and reported here.
    prepare_ms: float = 0.0
    actual_ends: Mapping[str, float] = field(default_factory=dict)
    alternatives: dict[str, int] = field(default_factory=dict)  # CSS: alternatives found per job
    # L_left and L_right of each part as the strategy saw them when it placed the window
    # (runs that explain themselves, e.g. the GUI's; tuples in the order of window.nodes).
    distances: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = field(default_factory=dict)
    # Batch-slicer and BSF: the part of its batch that placed each job ("slice 2 of 3", "backfilled").
    groups: dict[str, str] = field(default_factory=dict)
    # What the run had to do (Recorder.counts): benchmarks print it, nothing else reads it.
    counts: dict[str, float] = field(default_factory=dict, compare=False)
    # The windows as columns, in the order of ``windows``, when the run made them so (a compiled run):
    # the measures and the writers read them instead of the windows one by one.
    arrays: WindowArrays | None = field(default=None, compare=False)

    @cached_property
    def _by_job(self) -> dict[str, Window]:
        return {w.job: w for w in self.windows}

    def window_of(self, job_id: str) -> Window | None:
        return self._by_job.get(job_id)

    def actual_end(self, env: Environment, window: Window) -> float:
        if window.job in self.actual_ends:
            return self.actual_ends[window.job]
        return window.start + env.job(window.job).actual_fraction * window.length
