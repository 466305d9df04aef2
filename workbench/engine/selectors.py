"""Slot-selection strategies: a criterion plus lite or exact choice (seed 002 §4, seed 001 §4.1).

A selector answers one question: the best window for one job on the current
slots. ``flow/backfill.py`` turns any selector into conservative backfilling
over a whole queue.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from workbench.engine import criteria as cr
from workbench.engine.errors import ParameterError
from workbench.engine.model import Job, Window
from workbench.engine.profile import Profile
from workbench.engine.search import Found, SearchSpec, find_window, search_profile
from workbench.engine.slots import SlotTable

StopFn = Callable[[], bool] | None


class Selector:
    """Chooses one window for one job: ``select(table, job, earliest)``."""

    name: str

    def select(self, table: SlotTable, job: Job, earliest: float, should_stop: StopFn = None) -> Found | None:
        raise NotImplementedError

    def select_in(
        self, profile: Profile, job: Job, earliest: float, should_stop: StopFn = None, without: int = -1
    ) -> Found | None:
        """The same choice on a profile's slots (long flows keep a profile, not a table).

        ``without``: the owner whose intervals count as free (the job's own reservation).
        """
        return self.select(profile.table(earliest, without=without), job, earliest, should_stop)

    @property
    def feasibility(self) -> SearchSpec:
        """FirstFit with this selector's window lengths and cost units: the earliest feasible window."""
        return SearchSpec(cr.StartTime())

    @property
    def picks_earliest(self) -> bool:
        """Is the chosen window always one of the earliest feasible ones?"""
        return False

    @property
    def first_fit_at_one_level(self) -> bool:
        """For a job with one performance level to choose from, is the chosen window FirstFit's (the
        earliest, on the cheapest nodes)?"""
        return False


@dataclass
class SearchSelector(Selector):
    """The normative square-window search with one criterion."""

    name: str
    spec: SearchSpec

    def select(self, table: SlotTable, job: Job, earliest: float, should_stop: StopFn = None) -> Found | None:
        return find_window(table, job, self.spec, earliest, should_stop)

    def select_in(
        self, profile: Profile, job: Job, earliest: float, should_stop: StopFn = None, without: int = -1
    ) -> Found | None:
        return search_profile(profile, job, self.spec, earliest, should_stop, without=without)

    @property
    def feasibility(self) -> SearchSpec:
        return SearchSpec(cr.StartTime(), False, self.spec.length_factor, self.spec.resolution, self.spec.quantum)

    @property
    def picks_earliest(self) -> bool:
        return isinstance(self.spec.criterion, cr.StartTime)

    @property
    def first_fit_at_one_level(self) -> bool:
        # Every slot of a window scores value(t, T), which never grows with t: at one level (one T)
        # the earliest window wins, and among its equal-valued subsets the cheapest (lite or exact).
        return isinstance(self.spec.criterion, cr.WindowWide)


# Criteria by the short names that parameters use (MultipleBest's ``by``, CSS's AEP).
CRITERIA: dict[str, Callable[[], cr.Criterion]] = {
    "start": cr.StartTime,
    "finish": cr.FinishTime,
    "cost": cr.Cost,
    "runtime": cr.RunTime,
    "proc_time": cr.ProcTime,
    "q": cr.Attribute,
    "dep": cr.Dependable,
    "coord": cr.Coordinated,
    "lsum": cr.GapSum,
    "lmin": cr.NearestGap,
    "past": cr.Past,
    "cop": cr.CoordinatedPlacement,
}


def window_value(table: SlotTable, window: Window, criterion: cr.Criterion, job: Job) -> float:
    """The criterion value of an existing window, measured on ``table``'s slots."""
    index = {node_id: i for i, node_id in enumerate(table.node_ids)}
    pos = np.array([index[node_id] for node_id in window.nodes], dtype=np.int64)
    sstart, send = table.slot_bounds(pos, window.start, window.length)
    ctx = cr.SlotContext(
        t=np.array([window.start]),
        T=np.array([window.length]),
        sstart=sstart[None, :],
        send=send[None, :],
        perf=table.perf[pos][None, :],
        price=table.price[pos][None, :],
        attributes={key: v[pos][None, :] for key, v in table.attrs.items()},
        volume=job.volume,
        node=pos[None, :],
    )
    z = np.broadcast_to(criterion.z(ctx), (1, pos.size))
    return float(z.sum())


class BestOfAlternatives(Selector):
    """Collect disjoint alternatives with a finder, then keep the best by ``value`` (MultipleBest, CSA)."""

    max_alternatives: int
    finder_name = "FirstFit"  # what finds each alternative (named in explanations)

    def finder(self) -> Selector:
        raise NotImplementedError

    def value(self, table: SlotTable, window: Window, job: Job) -> float:
        raise NotImplementedError

    @property
    def rule(self) -> str:
        """The short name of the criterion that picks the best alternative."""
        raise NotImplementedError

    def alternatives(self, table: SlotTable, job: Job, earliest: float, should_stop: StopFn = None) -> list[Window]:
        return disjoint_alternatives(self.finder(), table, job, earliest, self.max_alternatives, should_stop)

    def select(self, table: SlotTable, job: Job, earliest: float, should_stop: StopFn = None) -> Found | None:
        best: Found | None = None
        for window in self.alternatives(table, job, earliest, should_stop):
            value = self.value(table, window, job)
            # Ties keep the earlier alternative, which the finder found first.
            if best is None or value > best.value + 1e-9:
                best = Found(window, value, table)
        return best


@dataclass
class MultipleBest(BestOfAlternatives):
    """All non-intersecting FirstFit alternatives, then the best by a criterion (seed 002 §4.2)."""

    name: str
    by: cr.Criterion
    max_alternatives: int = 50
    resolution: float = 1.0

    def finder(self) -> Selector:
        return SearchSelector("FirstFit", SearchSpec(cr.StartTime(), exact=False, resolution=self.resolution))

    def value(self, table: SlotTable, window: Window, job: Job) -> float:
        return window_value(table, window, self.by, job)

    @property
    def rule(self) -> str:
        return self.by.name

    @property
    def feasibility(self) -> SearchSpec:
        return SearchSpec(cr.StartTime(), resolution=self.resolution)


def disjoint_alternatives(
    finder: Selector, table: SlotTable, job: Job, earliest: float, limit: int, should_stop: StopFn = None
) -> list[Window]:
    """Up to ``limit`` windows that share no slot: each found on what the ones before left free."""
    found: list[Window] = []
    work = table
    while len(found) < limit:
        hit = finder.select(work, job, earliest, should_stop)
        if hit is None:
            break
        found.append(hit.window)
        work = work.reserve([hit.window])
    return found


def past_cop_params(params: Mapping[str, object]) -> dict[str, float]:
    return {key: float(params[key]) for key in cr.PAST_COP_DEFAULTS if key in params}  # type: ignore[arg-type]


def make_criterion(name: str, params: Mapping[str, object] | None = None) -> cr.Criterion:
    """A criterion by short name; PAST/CoP take their constants, ``q`` its attribute."""
    params = params or {}
    if name not in CRITERIA:
        raise ParameterError("criterion", f"unknown criterion {name!r}; expected one of {', '.join(CRITERIA)}")
    if name in ("past", "cop"):
        return CRITERIA[name](**past_cop_params(params))  # type: ignore[call-arg]
    if name == "q":
        return cr.Attribute(str(params.get("attribute", "q")))
    return CRITERIA[name]()
