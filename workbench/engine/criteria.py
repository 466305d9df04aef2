"""Per-slot criteria z(s, t, T), vectorised over candidate windows and nodes.

A window's value is the sum of z over its slots and is maximised
(docs/design.md, "Per-slot criteria"; seed 002 §3.3 eq. 1; seed 001 §4.1).

Each criterion also gives a per-slot *upper bound* that depends only on the
window (t, T) and its performance level P. The search uses it to visit the
candidate windows best-first and stop early (branch and bound); a criterion
that can give no useful bound returns +inf.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from workbench.engine.errors import ParameterError

# Table 1 of seed 001.
PAST_COP_DEFAULTS: dict[str, float] = {
    "alpha1": 0.1,
    "alpha2": 0.0001,
    "delta1": 1.0,
    "delta2": 0.1,
    "eps1": 0.03,
    "eps2": 0.2,
    "eps3": 0.35,
}


def _given(name: str) -> functools.cached_property[np.ndarray]:
    """A SlotContext value given as an array, or as a function made into one when first read."""

    def made(self: SlotContext) -> np.ndarray:
        value = self._given[name]
        return value() if callable(value) else value

    made.__name__ = name
    return functools.cached_property(made)


Given = np.ndarray | Callable[[], np.ndarray]


class SlotContext:
    """The candidate windows of one evaluation block.

    Shapes: ``t`` and ``T`` are (C,); ``sstart``/``send`` are (C, X), the bounds of
    the slot of the x-th node considered for window c (any value where it has none);
    ``perf``, ``price``, ``node`` (each slot's node position in the environment) and every
    attribute broadcast to (C, X): (1, N) when every node is considered, (C, n) when only
    the chosen ones are; ``shape`` is (C, X).
    The slot bounds, ``perf`` and ``price`` may be given as functions that make them
    (then with ``shape``): only a criterion that reads them pays for them (the search
    gathers them at thousands of chosen slots).
    """

    sstart = _given("sstart")
    send = _given("send")
    perf = _given("perf")
    price = _given("price")
    node = _given("node")

    def __init__(
        self,
        t: np.ndarray,
        T: np.ndarray,
        sstart: Given,
        send: Given,
        perf: Given,
        price: Given,
        attributes: Mapping[str, np.ndarray] | None = None,
        volume: float = 1.0,
        shape: tuple[int, ...] | None = None,
        node: Given | None = None,
        member: np.ndarray | None = None,
    ) -> None:
        self.t, self.T = t, T
        self.member = member  # (C, X): which cells are candidate slots (None: all); the rest are ignored
        self._given: dict[str, Given] = {"sstart": sstart, "send": send, "perf": perf, "price": price}
        self.attributes: Mapping[str, np.ndarray] = {} if attributes is None else attributes
        self.volume = volume
        if shape is None:
            assert isinstance(sstart, np.ndarray), "give the shape with slot bounds made by functions"
            shape = sstart.shape
        self.shape = shape
        self._given["node"] = node if node is not None else (lambda: np.full(shape, -1))

    def l_left(self) -> np.ndarray:
        return self.t[:, None] - self.sstart

    def l_right(self) -> np.ndarray:
        # An open-ended slot (unbounded horizon) leaves no gap behind the window.
        right = self.send - (self.t + self.T)[:, None]
        return np.where(right == np.inf, 0.0, right)


class Criterion:
    """Base class: ``z`` gives (C, N) values, ``slot_bound`` a (C,) per-slot upper bound."""

    name = "criterion"
    # z depends only on the node and the level (not on t or the slot's bounds):
    # equal S_W sets at one level then give equal answers, and the earliest wins.
    time_invariant = False
    # slot_bound never grows with t: later times can be skipped once beaten.
    monotone_in_t = False
    # z of a slot depends on that slot alone (with t and T), not on the other slots it is scored
    # with: every slot of every candidate may then be scored in one call (``search.members``).
    per_slot = True

    def z(self, ctx: SlotContext) -> np.ndarray:
        raise NotImplementedError

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        return np.full(t.shape, np.inf)


@dataclass(frozen=True)
class BoundEnv:
    """What bounds may use besides (t, T, P): interval bounds and node extremes."""

    istart: float
    iend: float
    max_attr: Mapping[str, float]
    min_price_at_level: np.ndarray  # per candidate (C,)
    max_perf: float = 0.0


class WindowWide(Criterion):
    """A criterion with the same value for every slot of a window: z = value(t, T), exactly its bound."""

    monotone_in_t = True

    def value(self, t: np.ndarray, T: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def z(self, ctx: SlotContext) -> np.ndarray:
        return np.broadcast_to(self.value(ctx.t, ctx.T)[:, None], ctx.shape)

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        return self.value(t, T)


class StartTime(WindowWide):
    """FirstFit / BFstart / AMP: z = -t."""

    name = "start"

    def value(self, t: np.ndarray, T: np.ndarray) -> np.ndarray:
        return -t


class FinishTime(WindowWide):
    """BFfinish / MinFinish (and BFshort with its shortened T): z = -(t + T)."""

    name = "finish"

    def value(self, t: np.ndarray, T: np.ndarray) -> np.ndarray:
        return -(t + T)


class RunTime(WindowWide):
    """MinRunTime: z = -T."""

    name = "runtime"
    time_invariant = True

    def value(self, t: np.ndarray, T: np.ndarray) -> np.ndarray:
        return -T


class Cost(Criterion):
    """MinCost: z = -c_i * T."""

    name = "cost"
    monotone_in_t = True
    time_invariant = True

    def z(self, ctx: SlotContext) -> np.ndarray:
        return -ctx.price * ctx.T[:, None]

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        return -ctx_env.min_price_at_level * T


class ProcTime(Criterion):
    """MinProcTime: z = -V / p_i, the time node i itself needs for its part."""

    name = "proc_time"
    time_invariant = True

    def z(self, ctx: SlotContext) -> np.ndarray:
        return np.broadcast_to(-ctx.volume / ctx.perf, ctx.shape)


class Attribute(Criterion):
    """MaxQ: z = the node attribute (``q`` by default), seed 002 §4.2."""

    name = "attribute"
    time_invariant = True

    def __init__(self, attribute: str = "q") -> None:
        self.attribute = attribute

    def z(self, ctx: SlotContext) -> np.ndarray:
        values = ctx.attributes.get(self.attribute)
        if values is None:
            values = np.zeros(ctx.perf.shape)
        return np.broadcast_to(values, ctx.shape)

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        return np.full(t.shape, ctx_env.max_attr.get(self.attribute, 0.0))


class Dependable(Criterion):
    """DEP: z = min(L_left, L_right), seed 002 §3.4 (L_minΣ maximised)."""

    name = "dep"

    def z(self, ctx: SlotContext) -> np.ndarray:
        return np.minimum(ctx.l_left(), ctx.l_right())

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        left = t - ctx_env.istart
        right = np.zeros(t.shape) if np.isinf(ctx_env.iend) else ctx_env.iend - (t + T)
        return np.maximum(np.minimum(left, right), 0.0)


class Coordinated(Criterion):
    """COORD: z = -max(L_left, L_right), seed 002 §3.4 (L_maxΣ minimised)."""

    name = "coord"

    def z(self, ctx: SlotContext) -> np.ndarray:
        return -np.maximum(ctx.l_left(), ctx.l_right())

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        return np.zeros(t.shape)


class GapSum(Criterion):
    """L_Σ → min: z = -(L_left + L_right), seed 001 §3 (the idle time left beside the window)."""

    name = "lsum"

    def z(self, ctx: SlotContext) -> np.ndarray:
        return -(ctx.l_left() + ctx.l_right())

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        return np.zeros(t.shape)


class NearestGap(Criterion):
    """L_minΣ → min: z = -min(L_left, L_right), seed 001 §3 (its preliminary experiment's strategy,
    the opposite of DEP's)."""

    name = "lmin"

    def z(self, ctx: SlotContext) -> np.ndarray:
        return -np.minimum(ctx.l_left(), ctx.l_right())

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        return np.zeros(t.shape)


def _constants(params: Mapping[str, float]) -> dict[str, float]:
    out = dict(PAST_COP_DEFAULTS)
    for key, value in params.items():
        if key not in out:
            raise ParameterError(key, f"unknown constant; expected one of {', '.join(out)}")
        out[key] = float(value)
    return out


class Placement(Criterion):
    """Finish time with a node-performance amendment, items (a)-(b) of PAST and CoP (seed 001 §4.1)."""

    monotone_in_t = True

    def __init__(self, **params: float) -> None:
        self.k = _constants(params)

    def base(self, ctx: SlotContext) -> np.ndarray:
        return -(ctx.t + ctx.T)[:, None] - self.k["alpha1"] * ctx.perf


class Past(Placement):
    """PAST-like rules, seed 001 §4.1 item 2 (a)-(e)."""

    name = "past"

    def z(self, ctx: SlotContext) -> np.ndarray:
        k = self.k
        left, right = ctx.l_left(), ctx.l_right()
        z = self.base(ctx) + k["delta1"] * (np.abs(right) <= 1e-9) + k["delta1"] * (np.abs(left) <= 1e-9)
        return z - k["alpha2"] * right

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        k = self.k
        if k["alpha2"] < 0:
            return np.full(t.shape, np.inf)  # a reward for long gaps has no useful bound
        bonus = 2 * max(k["delta1"], 0.0)
        return -(t + T) + _perf_term(k["alpha1"], P, ctx_env) + bonus


class CoordinatedPlacement(Placement):
    """CoP rules, seed 001 §4.1 item 3 (a)-(h)."""

    name = "cop"

    def z(self, ctx: SlotContext) -> np.ndarray:
        k = self.k
        left, right = ctx.l_left(), ctx.l_right()
        T = ctx.T[:, None]
        # How many sides meet each rule (0, 1 or 2), then one multiply per constant.
        snug = (right < k["eps1"] * T).astype(np.int8) + (left < k["eps1"] * T)
        awkward = ((right > k["eps2"] * T) & (right < k["eps3"] * T)).astype(np.int8)
        awkward += (left > k["eps2"] * T) & (left < k["eps3"] * T)
        roomy = (right > T).astype(np.int8) + (left > T)
        return self.base(ctx) + k["delta1"] * (snug - awkward) + k["delta2"] * roomy

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
        k = self.k
        per_side = abs(k["delta1"]) + max(k["delta2"], 0.0)
        return -(t + T) + _perf_term(k["alpha1"], P, ctx_env) + 2 * per_side


def _perf_term(alpha1: float, P: np.ndarray, ctx_env: BoundEnv) -> np.ndarray:
    """Upper bound of -alpha1 * p_i over the nodes of performance >= P."""
    if alpha1 >= 0:
        return -alpha1 * P
    return np.full(P.shape, -alpha1 * ctx_env.max_perf)
