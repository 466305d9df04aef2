"""Which search answers: the general one, or a fast one that gives the same window.

FirstFit (z = -t, Lite) on few levels is ``firstfit.first_fit``; on a profile's rows in place,
``firstfit.first_fit_in``; PAST, CoP and the gap criteria (MinLSum, MinLMinSum, DEP, COORD) exact
with no budget on a profile, and the finish time exact, ``placement.placement_in``; any other
per-slot criterion with no bound (a plug-in's), exact with no budget, ``members.members_in``. Every
other search is the general one (``general``). The tests hold each fast search to the general one.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from workbench.engine.criteria import StartTime
from workbench.engine.model import Job
from workbench.engine.profile import Profile
from workbench.engine.search.facts import node_facts
from workbench.engine.search.firstfit import first_fit, first_fit_in
from workbench.engine.search.general import general_search, run_search
from workbench.engine.search.members import members_for, members_in
from workbench.engine.search.placement import compiled_for, placement_in
from workbench.engine.search.spec import Found, SearchSpec
from workbench.engine.slots import SlotTable


def find_window(
    table: SlotTable,
    job: Job,
    spec: SearchSpec,
    earliest: float,
    should_stop: Callable[[], bool] | None = None,
) -> Found | None:
    """The best window for ``job`` on ``table`` starting at or after ``earliest``, or None."""
    if _is_first_fit(spec) and node_facts(table, job.min_performance).levels.size <= FEW_LEVELS:
        return first_fit(table, job, earliest, spec.length_factor, spec.resolution, quantum=spec.quantum)
    return general_search(table, job, spec, earliest, should_stop)


# first_fit loops over performance levels in Python; the general search handles many at once.
FEW_LEVELS = 6


def _is_first_fit(spec: SearchSpec) -> bool:
    return not spec.exact and type(spec.criterion) is StartTime


def search_profile(
    profile: Profile,
    job: Job,
    spec: SearchSpec,
    earliest: float,
    should_stop: Callable[[], bool] | None = None,
    before: float = math.inf,
    without: int = -1,
) -> Found | None:
    """``find_window`` on the profile's full table, looking at no more of it than it must.

    For a criterion whose bound falls with t the search reads the slots of
    [earliest, earliest + span] and widens the span fourfold until the answer is
    proven. With ``before`` (FirstFit-like criteria) it gives up at that time: the
    caller only asks whether a window starts earlier. ``without``: a profile owner
    whose intervals count as free (the job's own reservation, when it is planned again).
    """
    if math.isinf(before) and compiled_for(spec, job, profile):
        return placement_in(profile, job, spec, earliest, without)
    if math.isinf(before) and members_for(spec, job, profile):
        return members_in(profile, job, spec, earliest, without)
    if not spec.criterion.monotone_in_t:
        return find_window(profile.search_table(earliest, without=without), job, spec, earliest, should_stop)
    if _is_first_fit(spec):
        return first_fit_in(profile, job, earliest, spec.length_factor, spec.resolution, before, spec.quantum, without)
    count, slowest, _levels = profile.capable(job.min_performance)
    if count < job.node_count:
        return None
    span = 4.0 * job.volume / slowest * spec.length_factor
    end = min(before, profile.iend)
    settled = profile.last_busy_end()  # no slot starts after it: a range to there holds every candidate
    while True:
        limit = earliest + span
        if limit >= settled:
            limit = math.inf
        if limit >= end:
            limit = before if before < profile.iend else math.inf
        table = profile.search_table(earliest, limit, without)
        found, proven = run_search(table, job, spec, earliest, should_stop, limit)
        if proven or limit >= end:
            return found
        span *= 4.0
