"""A per-slot criterion's exact search with no budget on a profile, compiled around one call of
the criterion: a plug-in's above all (``kernels.members``; docs/design.md "Window search").

The general search scores candidates block by block in numpy, and on a trace each search costs
some twenty array calls for a few dozen candidates: 0.5 ms, whatever the criterion. Where a
criterion has no bound that falls with t, every candidate is read anyway; then the compiled code
lists them with their members, the criterion scores all members at once (shape (members, 1): a
plug-in sees its usual 2-D arrays), and the compiled code takes each candidate's n best and the
best window. The answer is the general search's, window and value (the tests hold it so).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.engine import kernels
from workbench.engine.criteria import SlotContext
from workbench.engine.model import Job
from workbench.engine.profile import NO_OWNER, Profile
from workbench.engine.search.facts import node_facts
from workbench.engine.search.placement import MAX_LEVELS, found_window, kernel_shape, placement_kind
from workbench.engine.search.spec import Found, SearchSpec


def members_for(spec: SearchSpec, job: Job, profile: Profile) -> bool:
    """Does ``members_in`` answer this search: exact, no budget, a per-slot criterion with no bound
    that falls with t and no compiled kind of its own, at most ``MAX_LEVELS`` levels?"""
    crit = spec.criterion
    if not spec.exact or not math.isinf(job.budget) or crit.monotone_in_t or not crit.per_slot:
        return False
    if placement_kind(spec)[0] != kernels.PLACE_NONE:
        return False
    return node_facts(profile, job.min_performance).levels.size <= MAX_LEVELS


def members_in(
    profile: Profile, job: Job, spec: SearchSpec, earliest: float, without: int = NO_OWNER
) -> Found | None:
    """``search_profile``'s window for a search ``members_for`` answers; the ``Found`` carries no table."""
    asked = kernel_shape(profile, job, spec)
    if asked is None:
        return None
    by_price, shape = asked
    rows, gaps = profile.rows, profile.scratch()
    # Every candidate is listed from ``earliest`` on: no FirstFit search first (placement_in's ``first``
    # only spares a bounded criterion the rows before it; here every candidate is read anyway).
    count, ct, ck, off, mx, gs, ge, mt, mT = kernels.members_in_rows(
        rows, by_price, shape, float(earliest), int(without), gaps
    )
    if count == 0:
        return None
    z = _scores(profile, job, spec, mt, mT, mx, gs, ge)
    k, t, positions, value = kernels.choose_members(count, ct, ck, off, mx, z, by_price, shape)
    return found_window(profile, job, shape, k, t, positions, value)


def _scores(
    profile: Profile,
    job: Job,
    spec: SearchSpec,
    mt: np.ndarray,
    mT: np.ndarray,
    mx: np.ndarray,
    gs: np.ndarray,
    ge: np.ndarray,
) -> np.ndarray:
    """z of every member of every candidate, in one call of the criterion: each member a row of one
    slot, with its candidate's t and T (``mt``, ``mT``)."""
    col = mx[:, None]
    ctx = SlotContext(
        t=mt,
        T=mT,
        sstart=gs[:, None],
        send=ge[:, None],
        perf=profile.perf[col],
        price=profile.price[col],
        attributes={key: values[col] for key, values in profile.attrs.items()},
        volume=job.volume,
        shape=(mx.size, 1),
        node=col,
    )
    z = spec.criterion.z(ctx)
    return np.array(np.broadcast_to(z, (mx.size, 1))[:, 0], dtype=np.float64)  # its own, writable
