"""A pass of dynamic backfilling in compiled code (``kernels.replan_pass``) for a ``Replanner``:
what the kernel needs of every job as flat arrays, and Python's side of the moves it made."""

from __future__ import annotations

import math
import time
from typing import Protocol

import numpy as np

from workbench.engine import kernels
from workbench.engine.kernels import PLACE_NONE
from workbench.engine.kernels.types import JobShapes, Lists, Moves
from workbench.engine.model import Job, Window
from workbench.engine.profile import Profile
from workbench.engine.search import Found, SearchSpec, budget_units, node_facts
from workbench.engine.search.placement import compiled_for, placement_kind
from workbench.engine.selectors import SearchSelector, Selector
from workbench.engine.simulate import Recorder, collection_paused
from workbench.engine.slots import Distances


class Replanner(Protocol):
    """What the pass reads and calls of dynamic backfilling's replanner (``backfill.Replanner``)."""

    rec: Recorder
    selector: Selector
    jobs: list[Job]
    profile: Profile
    feasibility: SearchSpec
    plan: dict[str, Window]
    current: dict[str, Window]
    fastest: np.ndarray
    first_fit_answers: np.ndarray
    start: np.ndarray
    factor: float
    now: float

    def queue(self) -> tuple[np.ndarray, ...]: ...
    def check(self, i: int) -> bool: ...
    def choose(self, i: int, first: Found) -> bool: ...
    def follow(self, job_id: str, end: float, planned_end: float) -> None: ...
    def compact(self) -> None: ...


class CompiledPass:
    """``Replanner._pass`` in compiled code (``kernels.replan_pass``), with what the kernel needs of
    every job as flat arrays: its node count and budget, the columns and levels of its minimum
    performance, its window lengths, and the nodes and part length of its window now."""

    HELD_LIMIT = 5_000_000  # lengths held (jobs × levels): beyond it the pass stays in Python
    # Busy intervals per row on average from which a pass reads gap lists: where rows are long and
    # mostly abut (a saturated plan) the lists pay; where rows are short a call per row costs more.
    LIST_FROM = 32

    def __init__(
        self, rp: Replanner, shapes: JobShapes, rank: np.ndarray, place: tuple[np.ndarray, np.ndarray]
    ) -> None:
        self.rp = rp
        self.shapes = shapes
        self.rank = rank
        self.place = place
        self.index = {job.id: i for i, job in enumerate(rp.jobs)}
        self.prices = rp.profile.price.tolist()  # the nodes never change
        self.job_ids = [job.id for job in rp.jobs]
        # Every job's shortest window is at least this long: the re-checks read each row's gaps this long.
        firsts = shapes.lengths[shapes.len_off[shapes.lvl_cnt > 0]]
        self.theta = firsts.min() if firsts.size else math.inf
        self.lists: tuple[np.ndarray | float, ...] | None = None
        env = rp.rec.env  # what ``Recorder.actual_end`` reads
        self.fractions = np.array([env.job(job.id).actual_fraction for job in rp.jobs], dtype=np.float64)
        m, held = len(rp.jobs), int(shapes.n.sum())
        # Jobs the kernel moved since their Window was last made, and their actual ends: a run that
        # keeps no history makes each window once it is read (``settle``), not at every move.
        self.stale = np.zeros(m, dtype=bool)
        self.actual = np.zeros(m)
        self.eager = rp.rec.history or rp.rec.explain
        self.moves = Moves(
            np.empty(m, dtype=np.int64),
            np.empty(m, dtype=np.int64),
            np.empty(m),
            np.empty(held, np.int64),
            np.empty(held if rp.rec.explain else 0),
            np.empty(held if rp.rec.explain else 0),
        )
        # What the kernel takes: plain tuples of the same arrays (``kernels.calls``).
        self.plain_shapes, self.plain_moves = tuple(shapes), tuple(self.moves)
        self.nodes = (rp.profile.perf, rp.profile.price, rank)  # a ``kernels.types.Nodes``

    @classmethod
    def build(cls, rp: Replanner, jobs: list[Job], profile: Profile) -> CompiledPass | None:
        spec = rp.feasibility
        m = len(jobs)
        n_of = np.array([job.node_count for job in jobs], dtype=np.int64)
        units = [budget_units(job.budget, spec.resolution) for job in jobs]
        budget = np.array([-1 if u is None else u for u in units], dtype=np.int64)
        at = {name: np.zeros(m, dtype=np.int64) for name in ("col_off", "col_cnt", "lvl_off", "lvl_cnt", "len_off")}
        cols: list[np.ndarray] = []
        levels: list[np.ndarray] = []
        lengths: list[np.ndarray] = []
        seen: dict[float, tuple[int, int, int, int]] = {}
        used = [0, 0, 0]  # columns, levels and lengths so far
        for i, job in enumerate(jobs):
            facts = node_facts(profile, job.min_performance)
            if job.min_performance not in seen:
                seen[job.min_performance] = (used[0], facts.columns.size, used[1], facts.levels.size)
                cols.append(facts.columns)
                levels.append(facts.levels)
                used[0] += facts.columns.size
                used[1] += facts.levels.size
            at["col_off"][i], at["col_cnt"][i], at["lvl_off"][i], at["lvl_cnt"][i] = seen[job.min_performance]
            at["len_off"][i] = used[2]
            lengths.append(facts.lengths(job.volume, spec.length_factor, spec.quantum))
            used[2] += facts.levels.size
            if used[2] > cls.HELD_LIMIT:
                return None
        jn_off = np.zeros(m, dtype=np.int64)
        np.cumsum(n_of[:-1], out=jn_off[1:])
        flat = [np.concatenate(part) if part else np.empty(0) for part in (cols, levels, lengths)]
        # Each job's shortest window: at its fastest level (``kernels.earliest.shortest``).
        shortest = np.full(m, math.inf)
        some = rp.fastest >= 0
        shortest[some] = flat[2][at["len_off"][some] + rp.fastest[some]]
        shapes = JobShapes(
            n=n_of,
            budget=budget,
            col_off=at["col_off"],
            col_cnt=at["col_cnt"],
            cols=flat[0].astype(np.int64),
            lvl_off=at["lvl_off"],
            lvl_cnt=at["lvl_cnt"],
            levels=flat[1].astype(np.float64),
            len_off=at["len_off"],
            lengths=flat[2].astype(np.float64),
            node_off=jn_off,
            nodes=np.zeros(int(n_of.sum()), dtype=np.int64),
            length=np.zeros(m),
            shortest=shortest,
        )
        return cls(
            rp, shapes, node_facts(profile, 0.0).col_of.astype(np.int64), placements(rp.selector, jobs, profile)
        )

    def track(self, window: Window) -> None:
        """Keep the kernel's copy of a job's window (its nodes and part length) up to date."""
        i = self.index.get(window.job)
        if i is None:  # a fixed window: it never moves
            return
        jn_off, jnodes, jlen = self.shapes.node_off, self.shapes.nodes, self.shapes.length
        index = self.rp.profile.index
        jnodes[jn_off[i] : jn_off[i] + len(window.nodes)] = sorted(index[node] for node in window.nodes)
        jlen[i] = window.length

    def run_pass(self) -> list[str]:
        rp = self.rp
        profile, rec, spec = rp.profile, rp.rec, rp.feasibility
        moved: list[str] = []
        cursor = -1
        while True:
            began = time.perf_counter()
            kind, written, checks, cleared, placed, j, k, t, chosen = kernels.replan_pass(
                profile.rows,
                self.nodes,
                self.plain_shapes,
                rp.queue(),
                self.plain_moves,
                profile.scratch(),
                self._lists(profile.bs.shape),
                float(rp.factor),
                float(spec.resolution),
                float(rp.now),
                cursor,
                rp.first_fit_answers,
                *self.place,
                rec.explain,
                self.index.get(rec.watch.job, -1) if rec.watch is not None else -1,
            )
            rec.counts["search_s"] += time.perf_counter() - began  # the moves it made are in it too
            rec.counts["checks"] += checks
            rec.counts["certificates_cleared"] += cleared
            rec.counts["searches"] += checks + placed
            rec.counts["selector_searches"] += placed
            if written:
                profile.changed()
                moved.extend(self._replay(written))
            if kind == kernels.PASS_DONE:
                return moved
            rec.check_stop()
            if kind == kernels.PASS_WIDEN:
                profile.widen()
                cursor = j - 1
                continue
            cursor = j
            if kind == kernels.PASS_PYTHON:
                if rp.check(j):
                    moved.append(rp.jobs[j].id)
                continue
            if rp.choose(j, Found(self._window(j, float(t), self._length(j, k), np.sort(chosen).tolist()), 0.0)):
                moved.append(rp.jobs[j].id)

    def _lists(self, shape: tuple[int, ...]) -> tuple[np.ndarray | float, ...]:
        """Room for the pass's gap lists (``kernels.replan_pass``), made again when the rows widen."""
        rows, width = shape
        if self.lists is None or self.lists[0].shape != (rows, width + 1):  # type: ignore[union-attr]
            room = (np.empty((rows, width + 1)), np.empty((rows, width + 1)))
            self.lists = tuple(Lists(*room, np.empty(rows, np.int64), float(self.theta), float(self.LIST_FROM)))
        return self.lists

    def _length(self, j: int, k: int) -> float:
        """Job j's window length at level index k."""
        return float(self.shapes.lengths[self.shapes.len_off[j] + k])

    def _window(self, j: int, t: float, T: float, positions: list[int]) -> Window:
        """The window of length T job j gets from t on the node ``positions`` (sorted), as
        ``first_fit_in`` builds it: its cost summed as numpy sums (in order below eight terms)."""
        if len(positions) < 8:
            total = 0.0
            for x in positions:
                total += self.prices[x]
        else:
            total = float(self.rp.profile.price[positions].sum())
        ids = self.rp.profile.node_ids
        return Window(self.job_ids[j], t, T, tuple([ids[x] for x in positions]), T * total)

    def settle(self, job_id: str) -> None:
        """Make the window of a job the kernel moved (``_replay``) and record it."""
        j = self.index.get(job_id, -1)
        if j >= 0 and self.stale[j]:
            self._settle(j)

    def settle_all(self) -> None:
        with collection_paused():
            for j in np.flatnonzero(self.stale).tolist():
                self._settle(j)

    def _settle(self, j: int, distances: Distances | None = None) -> None:
        rp = self.rp
        self.stale[j] = False
        at = int(self.shapes.node_off[j])
        positions = self.shapes.nodes[at : at + int(self.shapes.n[j])].tolist()
        window = self._window(j, float(rp.start[j]), float(self.shapes.length[j]), positions)
        old = rp.current.get(window.job)
        if old is not None:
            rp.profile.forget(old)
        rp.plan[window.job] = rp.current[window.job] = window
        rp.rec.place(window, distances, float(self.actual[j]))

    def _replay(self, written: int) -> list[str]:
        """Follow the moves the kernel made, in its order, as ``_Replanner._move`` follows one: each
        job's actual end (for the events to come) and, when the run keeps its history or explains
        itself, its window (else made when read, ``settle``).

        A saturated flow makes hundreds of thousands of moves, so this works out every move's
        length and actual end in numpy and does in Python only what each move must."""
        rp = self.rp
        mv_job, mv_level, mv_start, _, mv_left, mv_right = self.moves
        moved = mv_job[:written]
        lengths_now = self.shapes.lengths[self.shapes.len_off[moved] + mv_level[:written]]
        # rec.actual_end's sum: start + actual_fraction * length
        actual = mv_start[:written] + self.fractions[moved] * lengths_now
        self.actual[moved] = actual
        self.stale[moved] = True
        js = moved.tolist()
        ids = [self.job_ids[j] for j in js]
        planned_ends = mv_start[:written] + lengths_now
        for job_id, end, planned_end in zip(ids, actual.tolist(), planned_ends.tolist(), strict=True):
            rp.follow(job_id, end, planned_end)
        if self.eager:
            offset = 0
            for j in js:
                n = int(self.shapes.n[j])
                distances = None
                if rp.rec.explain:
                    distances = (
                        tuple(mv_left[offset : offset + n].tolist()),
                        tuple(mv_right[offset : offset + n].tolist()),
                    )
                offset += n
                self._settle(j, distances)
        rp.compact()
        rp.rec.counts["moves"] += written
        return ids


def placements(selector: Selector, jobs: list[Job], profile: Profile) -> tuple[np.ndarray, np.ndarray]:
    """Per job, the compiled pass's kind of its selector's search (``placement.placement_kind``:
    PAST's or CoP's exact search with no budget, else none), and the criterion's constants."""
    kinds = np.zeros(len(jobs), dtype=np.int64)
    if not isinstance(selector, SearchSelector):
        return kinds, np.zeros(7)
    kind, consts = placement_kind(selector.spec)
    kinds[:] = [kind if compiled_for(selector.spec, job, profile) else PLACE_NONE for job in jobs]
    return kinds, consts
