"""CoP and PAST, fast: their exact search with no budget, on a profile's rows in compiled code; and
the finish-time criterion's exact search (BFfinish, BFshort), budget and all.

PAST and CoP (seed 001 §4.1) score every slot of a window by its finish time, its
node's performance and how snugly it fits its gap; the exact search takes the n best
slots of each candidate's S_W. With no budget that choice needs no knapsack, and
the criterion's bound (it falls with t) lets a later candidate win only within a few
time units of the earliest one. ``kernels.placement_in_rows`` does that search on the
rows in place: candidates in time order from FirstFit's start, each one's members
scored, sorted and summed exactly as ``search.search_profile`` does, so the answers
are the same window (the tests hold it to the general search on random profiles).
Dynamic backfilling with CoP makes hundreds of thousands of such searches on a
saturated flow; in numpy each costs about 0.8 ms of array calls.

The finish time -(t + T) scores every slot of a window alike: each level's best window is its
earliest affordable one on the cheapest nodes, which is FirstFit's search at that level
(``kernels.earliest_in_rows`` with ``finish``); the levels are then weighed by their finish.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.engine import criteria as cr
from workbench.engine import kernels
from workbench.engine.kernels import (
    PLACE_COORD,
    PLACE_COP,
    PLACE_DEP,
    PLACE_FINISH,
    PLACE_LMIN,
    PLACE_LSUM,
    PLACE_NONE,
    PLACE_PAST,
)
from workbench.engine.kernels.types import empty_lists
from workbench.engine.model import Job, Window
from workbench.engine.profile import NO_OWNER, Profile
from workbench.engine.search.facts import node_facts
from workbench.engine.search.firstfit import first_fit_in
from workbench.engine.search.spec import Found, SearchSpec

_KINDS: dict[type, int] = {
    cr.CoordinatedPlacement: PLACE_COP,
    cr.Past: PLACE_PAST,
    cr.FinishTime: PLACE_FINISH,
    cr.GapSum: PLACE_LSUM,
    cr.NearestGap: PLACE_LMIN,
    cr.Dependable: PLACE_DEP,
    cr.Coordinated: PLACE_COORD,
}


def _kind(spec: SearchSpec) -> int:
    return _KINDS.get(type(spec.criterion), PLACE_NONE) if spec.exact else PLACE_NONE


def placement_kind(spec: SearchSpec) -> tuple[int, np.ndarray]:
    """The kernel's kind of ``spec`` (PLACE_NONE unless it is the exact search of PAST, CoP, the
    finish time or a gap criterion) and the criterion's constants in the kernel's order (PAST's and
    CoP's; zeros for the others)."""
    kind = _kind(spec)
    if not isinstance(spec.criterion, cr.Placement):  # none, the finish time, a gap criterion: no constants
        return kind, np.zeros(7)
    crit = spec.criterion
    assert isinstance(crit, cr.Placement)
    return kind, np.array([crit.k[key] for key in cr.PAST_COP_DEFAULTS], dtype=np.float64)


# The compiled search scores every level at every candidate time, node by node; the general search
# handles hundreds of levels at once with difference arrays. Measured: 32 levels of 32 nodes (the
# backfill32 preset) 3-5× faster compiled; 700 levels of 1,000 nodes over ten times slower.
MAX_LEVELS = 64


def compiled_for(spec: SearchSpec, job: Job, profile: Profile) -> bool:
    """Does ``placement_in`` answer this search (the finish time, exact; or PAST, CoP or a gap
    criterion (MinLSum, MinLMinSum, DEP, COORD), exact, no budget, at most ``MAX_LEVELS``
    performance levels to choose from)? The cheap tests come first: every other search of a flow
    asks too."""
    kind = _kind(spec)
    if kind == PLACE_FINISH:
        return True
    if kind == PLACE_NONE or not math.isinf(job.budget):
        return False
    return node_facts(profile, job.min_performance).levels.size <= MAX_LEVELS


def placement_in(
    profile: Profile, job: Job, spec: SearchSpec, earliest: float, without: int = NO_OWNER
) -> Found | None:
    """``search_profile``'s window for a search ``compiled_for`` answers; the ``Found`` carries no table."""
    if _kind(spec) == PLACE_FINISH:
        return first_fit_in(
            profile, job, earliest, spec.length_factor, spec.resolution, math.inf, spec.quantum, without, finish=True
        )
    asked = kernel_shape(profile, job, spec)
    if asked is None:
        return None
    by_price, shape = asked
    rows, gaps, none = profile.rows, profile.scratch(), np.empty(0, dtype=np.int64)
    k, first, _ = kernels.earliest_in_rows(
        *rows, *by_price, *shape, float(earliest), math.inf, int(without), *gaps, False
    )
    if k < 0:
        return None
    kind, consts = placement_kind(spec)
    k, t, positions, value = kernels.placement_in_rows(
        rows, by_price, shape, kind, consts, float(earliest), first, int(without), gaps, empty_lists(), False, none,
        math.inf,
    )  # fmt: skip
    return found_window(profile, job, shape, k, t, positions, value)


Shape = tuple[np.ndarray, np.ndarray, np.ndarray, int, int, float]


def kernel_shape(
    profile: Profile, job: Job, spec: SearchSpec
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], Shape] | None:
    """The nodes and the job's search as the compiled searches take them (``kernels.types.Nodes``
    and ``Shape``, as plain tuples); None when fewer than n nodes are fast enough."""
    nodes = node_facts(profile, job.min_performance)
    if nodes.count < job.node_count:
        return None
    lengths = nodes.lengths(job.volume, spec.length_factor, spec.quantum)
    by_price = (profile.perf, profile.price, nodes.col_of)
    return by_price, (nodes.columns, nodes.levels, lengths, job.node_count, -1, float(spec.resolution))


def found_window(
    profile: Profile, job: Job, shape: Shape, k: int, t: float, positions: np.ndarray, value: float
) -> Found | None:
    """A compiled search's answer (level index ``k``, -1: none) as the window it names."""
    if k < 0:
        return None
    T = float(shape[2][k])
    nodes = tuple(profile.node_ids[x] for x in positions)
    return Found(Window(job.id, float(t), T, nodes, T * float(profile.price[positions].sum())), float(value))
