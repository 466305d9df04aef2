"""css-owner: seed 000 §6.4, Table 2 and Fig. 8, on the css set-up (one vo24 cycle per run, the
css study's load levels). One resource owner proposes the unit price c of one node; batch-slicer
schedules the batch; the owner's node is used for L_c units of the interval (U = L_c / 600) and
earns P = c · L_c; Y is the share of cycles where some job failed."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable

from workbench.engine import registry
from workbench.engine.generate import generate
from workbench.engine.model import Environment
from workbench.lab.studies.css import LEVELS, PRICE_SCALE
from workbench.lab.study import Claim, Factor, Lookup, Published, RunSpec, Study, checked

SLICES = 5  # the paper's best k (§6.3), used by both tables
OWNER_PERFORMANCE = 6.0  # the owner's node: the middle of U[2, 10], whose market price is about 6
PRICES = (2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0)
TABLE_2 = {  # c -> (L_c, U, P, Y)
    2.0: (256.6, 0.44, 527.1, 0.0),
    4.0: (234.9, 0.39, 939.6, 0.001),
    6.0: (185.4, 0.31, 1112.3, 0.013),
    8.0: (109.8, 0.18, 878.7, 0.024),
    10.0: (71.0, 0.12, 710.3, 0.025),
}


# css-owner's batch-slicer under two VO criteria for the combination: §6.3's least CPU time
# (eq. 7), or the least cost (eq. 8), under which the owners' prices steer the choice; each with
# square windows and with seed 000's rough-edged ones (on the css study's prices for them).
OWNER_STRATEGIES = {
    "Batch-slicer": {"slices": SLICES},
    "Batch-slicer (min cost)": {"slices": SLICES, "vo_criterion": "cost"},
    "Rough batch-slicer": {"slices": SLICES, "shape": "rough"},
    "Rough batch-slicer (min cost)": {"slices": SLICES, "vo_criterion": "cost", "shape": "rough"},
}
OWNER_LABELS = tuple(OWNER_STRATEGIES)
# The css levels, and the preset's own budgets (x 1) at the medium local load: tight enough for price to matter.
ALL_LEVELS = {**LEVELS, "preset": (1.0, LEVELS["medium"][1])}

LEVEL = Factor(
    "level", ("medium",), "load level (budget scale, local load)", extra=("high", "low", "preset"), label="load level"
)


def vo24(level: str, seed: int, price_scale: float = 1.0) -> Environment:
    scale, load = ALL_LEVELS[level]
    return generate("vo24", seed, budget_scale=scale, max_load=load, price_scale=price_scale)


def _price_scale(label: str) -> float:
    """The other nodes' price level for a css-owner strategy: the css study's for its window shape."""
    return PRICE_SCALE[str(OWNER_STRATEGIES[label].get("shape", "square"))]


def owner_environment(level: str, seed: int, price: float, price_scale: float = 1.0) -> Environment:
    """The css cycle with the first node made the owner's: performance 6, unit price ``price``."""
    env = vo24(level, seed, price_scale)
    owner = dataclasses.replace(env.nodes[0], performance=OWNER_PERFORMANCE, price=float(price))
    return dataclasses.replace(env, nodes=(owner, *env.nodes[1:]))


def _owner_run(spec: RunSpec) -> dict[str, float]:
    f = dict(spec.factors)
    env = owner_environment(f["level"], spec.seed, f["price"], _price_scale(spec.strategy))
    name, params = CSS_OWNER_STUDY.strategy(spec.strategy)
    result = registry.run(env, name, dict(params))
    owner, interval = env.nodes[0].id, env.time.cycle_length
    # The owner's node is reserved for its part of each window that holds it, within the interval.
    used = sum(
        min(end, interval) - max(w.start, 0.0)
        for w in result.windows
        for node, end in w.part_ends()
        if node == owner and end > w.start
    )
    return {
        "l_c": used,
        "u": used / interval,
        "p": float(f["price"]) * used,
        "y": 1.0 if result.unscheduled else 0.0,
    }


def per_level(
    check: Callable[[Lookup, str], tuple[bool, str]], labels: tuple[str, ...] = ("Batch-slicer",)
) -> Callable[[Lookup], tuple[bool | None, str]]:
    """A claim checked at every load level that was run (a default run has one), each level named:
    the levels where one of ``labels`` recorded Y (every run of both studies does)."""

    def at_levels(mean: Lookup) -> tuple[bool | None, str]:
        verdicts, texts = [], []
        for level in ALL_LEVELS:
            if all(math.isnan(mean(label, "y", level=level)) for label in labels):
                continue
            ok, text = check(mean, level)
            verdicts.append(ok)
            texts.append(f"{level}: {text}")
        return (all(verdicts) if verdicts else None), "; ".join(texts) or "not measured"

    return at_levels


def each_label(
    labels: tuple[str, ...], check: Callable[[Lookup, str, str], tuple[bool, str]]
) -> Callable[[Lookup], tuple[bool | None, str]]:
    """``check`` at every level, for each of ``labels`` that was run there, each named with its
    verdict; the claim holds where every one does."""

    def at_level(mean: Lookup, level: str) -> tuple[bool, str]:
        verdicts, texts = [], []
        for label in labels:
            if not math.isnan(mean(label, "y", level=level)):
                ok, text = check(mean, level, label)
                verdicts.append(ok)
                texts.append(f"{label}: {text} {'✓' if ok else '✗'}")
        return all(verdicts), ", ".join(texts)

    return per_level(at_level, labels)


def _owner_claims() -> tuple[Claim, ...]:
    def l_c_falls(mean: Lookup, level: str, label: str) -> tuple[bool, str]:
        # Judged at Table 2's own prices (2, 4, …, 10); the odd ones between are drawn, not judged.
        values = [mean(label, "l_c", level=level, price=c) for c in PRICES]
        judged = [v for c, v in zip(PRICES, values, strict=True) if c in TABLE_2]
        ok = all(b <= a for a, b in itertools.pairwise(judged)) and judged[-1] < judged[0]
        return ok, " → ".join(f"{v:.3g}" for v in values) + (
            f" (c = {PRICES[0]:g} … {PRICES[-1]:g}; judged at Table 2's c = {', '.join(f'{c:g}' for c in TABLE_2)})"
        )

    def profit_peaks_near_market(mean: Lookup, level: str, label: str) -> tuple[bool, str]:
        values = {c: mean(label, "p", level=level, price=c) for c in PRICES}
        best = max(values, key=values.__getitem__)
        inner = PRICES[0] < best < PRICES[-1]
        market = OWNER_PERFORMANCE * _price_scale(label)
        return inner and abs(best - market) <= 2.0, (
            f"the most profit at c = {best:g} ({values[best]:,.0f}); market price about {market:g}"
        )

    def failures_grow(mean: Lookup, level: str, label: str) -> tuple[bool, str]:
        y0, y1 = (mean(label, "y", level=level, price=c) for c in (PRICES[0], PRICES[-1]))
        return y1 >= y0, f"Y {y0:.3f} at c = {PRICES[0]:g} → {y1:.3f} at c = {PRICES[-1]:g}"

    return (
        Claim("L_c falls as the price grows", "Table 2", each_label(OWNER_LABELS, l_c_falls)),
        Claim(
            "the owner's profit peaks near the average market price",
            "§6.4, Fig. 8",
            each_label(OWNER_LABELS, profit_peaks_near_market),
        ),
        Claim("a dearer node makes failures Y no rarer", "Table 2", each_label(OWNER_LABELS, failures_grow)),
    )


CSS_OWNER_STUDY = checked(
    Study(
        name="css-owner",
        title="A resource owner's price against its node's use and profit (§6.4, Table 2, Fig. 8)",
        source="Toporkov et al., metascheduling and co-allocation strategies, §6.4",
        setup=(
            "The css study's cycle (vo24 preset, one interval of 600, the css load levels; medium by "
            "default) scheduled by batch-slicer with k = 5 (the paper's best). The paper shows 'a single "
            "CPU node' priced at c = 2 … 10 and does not say which: here the first node is the owner's, "
            "with performance 6 (the middle of U[2, 10], so the vo24 market price of its kind is about 6) "
            "and unit price c; the other 23 nodes are as drawn. L_c is the time the owner's node is "
            "reserved by job windows within the interval, U = L_c / 600, P = c · L_c (what the windows pay "
            "for its part), Y = 1 when some job of the cycle found no window. The paper names the VO's "
            "criterion for §6.3 (the least CPU time, eq. 7) but not for §6.4: batch-slicer runs with it and "
            "with the least cost (eq. 8), under which a dear node loses its jobs as Table 2's does. Each "
            "runs with square windows and with seed 000's rough-edged ones ('Rough' labels: each part V / p_i on its "
            "own node, the other nodes' prices × 1.2 as in the css study, so the market price of the owner's "
            "kind is about 7.2)."
        ),
        strategies=tuple((label, "Batch-slicer", params) for label, params in OWNER_STRATEGIES.items()),
        factors=(
            LEVEL,
            Factor("price", PRICES, "the owner's unit price c", label="the owner's unit price c"),
        ),
        reps=100,
        measures={
            "l_c": "time the owner's node is reserved (L_c)",
            "u": "its utilisation L_c / 600 (U)",
            "p": "its owner's profit c · L_c (P)",
            "y": "cycles where some job failed (Y)",
        },
        run=_owner_run,
        published=tuple(
            Published(measure, label, value, {"level": "medium", "price": c}, "Table 2")
            for label in OWNER_LABELS
            for c, row in TABLE_2.items()
            for measure, value in zip(("l_c", "u", "p", "y"), row, strict=True)
            if measure != "y"  # a share of failed cycles near 0: compared, not judged, below
        )
        + tuple(
            Published("y", label, row[3], {"level": "medium", "price": c}, "Table 2", compare=False)
            for label in OWNER_LABELS
            for c, row in TABLE_2.items()
        ),
        claims=_owner_claims(),
        units={
            "l_c": "time units",
            "u": "share, 0–1",
            "p": "cost units",
            "y": "cycles",
        },
        figures=(("p", "price"), ("u", "price"), ("y", "price")),
    )
)
