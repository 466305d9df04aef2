"""The `batch-formation` study: seed 003 §2 (Random, KnapsackT/C, MDqT/C over the paper's five series,
Figs. 1 and 2), a flow of jobs scheduled cycle by cycle by CSS, the jobs a cycle could not place
returning to the queue until the flow is done.

The paper gives the five series (Random batch sizes 6, 20, 30, 40, 50; limitCoefficient 0.1 … 0.9)
and the schemes; it gives no numbers for the environment or the jobs, and its figures have no
values to read off. The flow here is the vo24 preset stretched over many cycles (below); its
claims are the orderings and trends the text states.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from workbench.engine import registry
from workbench.engine.generate import generate
from workbench.engine.model import Environment
from workbench.engine.simulate import Snapshot
from workbench.lab.study import TOLERANCE, Claim, Factor, Lookup, RunSpec, Study, Sweep, checked

# series -> (Random's batch size, limitCoefficient of the other four), seed 003's table
SERIES = {1: (6, 0.1), 2: (20, 0.3), 3: (30, 0.5), 4: (40, 0.7), 5: (50, 0.9)}
SCHEMES = {"Random": "random", "KnapsackT": "knapsack_t", "KnapsackC": "knapsack_c", "MDqT": "mdq_t", "MDqC": "mdq_c"}
JOBS = 100  # the flow
CYCLES = 60  # the horizon, in cycles: a flow still waiting then counts its jobs as failed
BUDGET_SCALE = 2.0  # budgets twice the preset's, so that every job can afford some window (see setup)
FIG_2_SERIES = 3
FIG_2_CYCLES = 15  # the per-cycle measures of Fig. 2 are kept for this many cycles
PER_CYCLE = ("n_a", "batch", "returns")
# K_v of the soft MDq limit: with every K = 1 the volume term never outweighs the other three and the
# whole queue enters the batch (100 of 100 jobs in cycle 1 of series 3); at 20 it binds near C_v.
SOFT_K_V = 20.0
# "Job execution time (the VO's criterion)", Fig. 1a: the CPU time n × T that the CSS flow minimises
# (eq. 7), as seed 000 §7.2 calls its T_CPU figures "execution time".
EXECUTION = "t_cpu"
MDQ_GAIN = 0.15  # §2: MDq's advantage in execution time over Knapsack, "on average by 15 %"


def flow(seed: int, jobs: int = JOBS) -> Environment:
    """The study's flow: vo24 nodes and jobs, local load drawn again in every cycle."""
    return generate("vo24", seed, jobs=jobs, cycles=CYCLES, budget_scale=BUDGET_SCALE)


def cycle_rows(snapshots: list[Snapshot]) -> list[tuple[int, int, float, int]]:
    """(cycle, batch size, mean alternatives per batch job, returns) of every cycle that had a batch:
    the placer yields one snapshot per cycle, after it placed what it could of that cycle's batch."""
    rows = []
    for snap in snapshots:
        if snap.cycle is None or not snap.batch:
            continue
        placed = {w.job for w in snap.windows}
        alts = [snap.alternatives.get(j, 0) for j in snap.batch]
        rows.append((snap.cycle, len(snap.batch), float(np.mean(alts)), sum(j not in placed for j in snap.batch)))
    return rows


def _run(spec: RunSpec) -> dict[str, float]:
    series = int(spec.factor("series"))
    size, limit = SERIES[series]
    env = flow(spec.seed, int(spec.factor("jobs")))
    params = {
        "batching": SCHEMES[spec.strategy],
        "batch_size": size,
        "limit_coefficient": limit,
        "mdq_limit": spec.factor("mdq_limit"),
        "seed": spec.seed,
    }
    if spec.factor("mdq_limit") == "soft" and spec.strategy.startswith("MDq"):
        params["k_v"] = SOFT_K_V
    sim = registry.simulator(env, "CSS", params)
    result = sim.run()
    rows = cycle_rows(sim.snapshots)
    windows = result.windows
    out = {"failed_share": len(result.unscheduled) / len(env.jobs)}
    if not windows or not rows:
        return out
    interval = env.time.cycle_length or env.time.end
    used = max(k for k, *_ in rows) + 1  # cycles until the flow was done (or the horizon)
    span = used * interval
    busy = sum(w.length * len(w.nodes) for w in windows)
    busy += sum(min(t.end, span) - t.start for t in env.local_tasks if t.start < span)
    out.update(
        runtime=float(np.mean([w.length for w in windows])),
        t_cpu=float(np.mean([w.cpu_time for w in windows])),
        finish=float(np.mean([w.end for w in windows])),
        cost=float(np.mean([w.cost for w in windows])),
        n_a=float(np.mean([a for _, _, a, _ in rows])),
        cycles=float(used),
        utilisation=busy / (len(env.nodes) * span),
        batch=float(np.mean([b for _, b, _, _ in rows])),
        returns=float(np.mean([r for *_, r in rows])),
    )
    if series == FIG_2_SERIES:
        for k, size_k, alts, back in rows:
            if k < FIG_2_CYCLES:
                out.update({f"n_a_c{k + 1}": alts, f"batch_c{k + 1}": float(size_k), f"returns_c{k + 1}": float(back)})
    return out


def _mean_over_series(mean: Lookup, label: str, measure: str) -> float:
    """The mean over the series that were run (a ValueError, "not measured", when none was)."""
    values = [v for s in SERIES if np.isfinite(v := mean(label, measure, series=s, mdq_limit="soft"))]
    if not values:
        raise ValueError(f"{label} {measure}: not measured")
    return float(np.mean(values))


def _curve(mean: Lookup, label: str, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """``label``'s series as points (node load, ``measure``), sorted by load: Fig. 1's curve."""
    points = sorted(
        (u, mean(label, measure, series=s, mdq_limit="soft"))
        for s in SERIES
        if np.isfinite(u := mean(label, "utilisation", series=s, mdq_limit="soft"))
    )
    return np.array([p[0] for p in points]), np.array([p[1] for p in points])


def gain_at_equal_load(mean: Lookup, better: str, other: str, measure: str) -> float:
    """How much lower ``better``'s ``measure`` is than ``other``'s at the same node load, as Fig. 1
    compares the curves: ``other``'s curve interpolated at each of ``better``'s points inside its
    load range, the relative differences averaged (nan where the ranges do not overlap)."""
    bu, by = _curve(mean, better, measure)
    ou, oy = _curve(mean, other, measure)
    inside = (bu >= ou.min()) & (bu <= ou.max()) if len(ou) > 1 else np.zeros(len(bu), bool)
    if not inside.any():
        return math.nan
    return float(np.mean(1 - by[inside] / np.interp(bu[inside], ou, oy)))


def _at_equal_load(
    mean: Lookup, pairs: tuple[tuple[str, str], ...], measure: str, holds: Callable[[float], bool]
) -> tuple[bool | None, str]:
    """Fig. 1 compares the schemes' curves over the node load: each pair's ``measure`` at equal load,
    judged by ``holds`` (given 1 - first / second); the means over the series (at equal
    limitCoefficient) are shown beside."""
    verdicts, parts = [], []
    for first, second in pairs:
        at_load = gain_at_equal_load(mean, first, second, measure)
        by_series = 1 - _mean_over_series(mean, first, measure) / _mean_over_series(mean, second, measure)
        parts.append(f"{first} vs {second} {-100 * at_load:+.1f} % at equal load ({-100 * by_series:+.1f} % by series)")
        if math.isfinite(at_load):
            verdicts.append(holds(at_load))
    return (all(verdicts) if verdicts else None), ", ".join(parts)


MDQ_KNAPSACK = (("MDqT", "KnapsackT"), ("MDqC", "KnapsackC"))
BETTER = 0.01  # "better" at equal load: by at least 1 %, not a tie that rounding decides


def _claims() -> tuple[Claim, ...]:
    # The claims on Fig. 1's measures compare the curves at equal load, as the figure draws them.
    def mdq_faster(mean: Lookup) -> tuple[bool | None, str]:
        ok, text = _at_equal_load(mean, MDQ_KNAPSACK, EXECUTION, lambda g: g >= (1 - TOLERANCE) * MDQ_GAIN)
        return ok, text + f" (paper about −{100 * MDQ_GAIN:.0f} %)"

    def mdq_more_alternatives(mean: Lookup) -> tuple[bool | None, str]:
        return _at_equal_load(mean, MDQ_KNAPSACK, "n_a", lambda g: g <= -BETTER)

    def equal_cycles(mean: Lookup) -> tuple[bool | None, str]:
        ok, text = _at_equal_load(mean, MDQ_KNAPSACK, "cycles", lambda g: abs(g) <= TOLERANCE)
        return ok, text + " (within 15 %)"

    def knapsack_cost_limit_better(mean: Lookup) -> tuple[bool | None, str]:
        pair = (("KnapsackC", "KnapsackT"),)
        faster, t_text = _at_equal_load(mean, pair, EXECUTION, lambda g: g >= BETTER)
        richer, a_text = _at_equal_load(mean, pair, "n_a", lambda g: g <= -BETTER)
        ok = None if faster is None or richer is None else faster and richer
        return ok, f"CPU time: {t_text}; alternatives: {a_text} (better: by at least 1 %)"

    def mdq_limits_alike(mean: Lookup) -> tuple[bool | None, str]:
        ok, text = _at_equal_load(mean, (("MDqT", "MDqC"),), EXECUTION, lambda g: abs(g) <= 0.05)
        return ok, f"CPU time: {text} (within 5 %)"

    def random_wastes(mean: Lookup) -> tuple[bool | None, str]:
        others = [label for label in SCHEMES if label != "Random"]
        u = {label: _mean_over_series(mean, label, "utilisation") for label in SCHEMES}
        k = {label: _mean_over_series(mean, label, "cycles") for label in SCHEMES}
        ok = all(u["Random"] < u[o] and k["Random"] > k[o] for o in others)
        return ok, f"Random: utilisation {100 * u['Random']:.1f} %, {k['Random']:.1f} cycles; " + ", ".join(
            f"{o} {100 * u[o]:.1f} %, {k[o]:.1f}" for o in others
        )

    def knapsack_batches_shrink(mean: Lookup) -> tuple[bool | None, str]:
        parts, ok = [], True
        for label in ("KnapsackT", "KnapsackC", "MDqT", "MDqC"):
            first = mean(label, "batch_c1", series=FIG_2_SERIES, mdq_limit="soft")
            later = [mean(label, f"batch_c{k}", series=FIG_2_SERIES, mdq_limit="soft") for k in range(4, 7)]
            if not np.isfinite(first) or not np.isfinite(later).any():
                raise ValueError(f"{label}: Fig. 2 not measured")
            later_mean = float(np.nanmean(later))
            ratio = first / later_mean if later_mean > 0 else float("inf")
            ok &= ratio >= 2 if label.startswith("Knapsack") else ratio < 2
            parts.append(f"{label} {first:.1f} → {later_mean:.1f}")
        return ok, "; ".join(parts) + " (cycle 1 → cycles 4-6; Knapsack: several times smaller, MDq: steadier)"

    return (
        Claim("MDqT/C schedule jobs faster than KnapsackT/C, by about 15 % on average", "§2, Fig. 1a", mdq_faster),
        Claim("MDqT/C find more alternatives per job than KnapsackT/C", "§2, Fig. 1b", mdq_more_alternatives),
        Claim("MDq and Knapsack need about the same number of cycles", "§2, Fig. 1c", equal_cycles),
        Claim("Knapsack does better with the cost limit than with the time limit", "§2", knapsack_cost_limit_better),
        Claim("MDq: no real difference between the time and the cost limit", "§2", mdq_limits_alike),
        Claim("Random loads the nodes less and needs more cycles than the other four", "§2", random_wastes),
        Claim(
            "Knapsack's batches shrink several times after the first cycles; MDq's stay steadier",
            "§2, Fig. 2b",
            knapsack_batches_shrink,
        ),
    )


BATCH_STUDY = checked(
    Study(
        name="batch-formation",
        title="Forming batches for cyclic scheduling: Random, KnapsackT/C, MDqT/C (Figs. 1-2)",
        source="Toporkov, Yemelyanov, Potekhin, forming and scheduling job batches, §2",
        setup=(
            f"A flow of {JOBS} jobs, all queued at time 0, on the vo24 preset's 24 nodes (p ~ U[2, 10], priced by "
            f"performance), in cycles of 600 units, each with its own local load of up to 30 %, for at most "
            f"{CYCLES} cycles. Each cycle a scheme picks a batch from the queue, CSS schedules it (alternatives by "
            "each job's own criterion, then the combination with the least total CPU time under the batch's "
            "budget), and the jobs it could not place return to the queue. The paper's five series: Random "
            "takes 6, 20, 30, 40 or 50 jobs; Knapsack and MDq take limitCoefficient 0.1, 0.3, 0.5, 0.7 or 0.9 of "
            "the cycle's total slot time (T) or slot cost (C); the Dq constants are the engine's defaults "
            "(every K = 1, C_q = C_n = C_l = 1, C_v = 0.5). Open choices: the paper names no environment or job "
            f"distribution (the vo24 preset's, with budgets × {BUDGET_SCALE:g} so that every job can afford a "
            "window; at × 1 about a sixth of the jobs never can, and a flow never ends); MDq's limit is "
            "the paper's soft one (C_v = limitCoefficient, no cap: §1.3) with K_v = 20 (the paper tunes its K and C "
            "from statistics and prints none; with K_v = 1 the volume term never binds and the whole queue enters "
            "the batch), and also run with the knapsack's hard cap at the default K_v = 1; 'execution time' is "
            "the placed jobs' mean CPU time n × T (the CSS flow's criterion; their runtime T is measured too); "
            "node load counts local tasks and jobs over the cycles the flow took. Fig. 1 plots over the mean "
            "load, and so do the first three figures here (the soft MDq limit), whose curves the 15 % claim "
            "compares at equal load; the figures over the series show both MDq limits. Fig. 2 is series 3, "
            "cycle by cycle."
        ),
        strategies=tuple((label, "CSS", {"batching": method}) for label, method in SCHEMES.items()),
        factors=(
            Factor("series", tuple(SERIES), "the paper's series: Random size and limitCoefficient", label="series"),
            Factor(
                "mdq_limit",
                ("soft", "hard"),
                "MDq's limit: the paper's soft one, or the knapsack's cap",
                words={"soft": "MDq's soft limit (the paper's)", "hard": "MDq capped by the knapsack"},
            ),
            Factor("jobs", (JOBS,), "jobs in the flow", extra=(20, 50, 200), label="jobs in the flow"),
        ),
        # Random and Knapsack have no MDq limit: they run once, under "soft".
        sweeps=(
            Sweep(at={"mdq_limit": ("soft",)}),
            Sweep(tuple(label for label in SCHEMES if label.startswith("MDq"))),
        ),
        reps=20,
        measures={
            "runtime": "mean runtime of the placed jobs",
            "t_cpu": "mean CPU time of the placed jobs, n × T (the VO's criterion, eq. 7: execution time)",
            "finish": "mean finish",
            "cost": "mean cost",
            "n_a": "alternatives per batch job and cycle",
            "cycles": "cycles until the flow was done",
            "utilisation": "node load over those cycles (local tasks and jobs)",
            "batch": "jobs per batch",
            "returns": "batch jobs returned to the queue per cycle",
            "failed_share": "jobs still waiting at the horizon",
            # Fig. 2, cycle by cycle: drawn, exported, left out of the report's table
            **{f"{m}_cK": f"{m} in cycle K = 1…{FIG_2_CYCLES} (series {FIG_2_SERIES})" for m in PER_CYCLE},
        },
        run=_run,
        claims=_claims(),
        units={
            "runtime": "time units",
            "t_cpu": "time units",
            "finish": "time units",
            "cost": "cost units",
            "n_a": "alternatives",
            "cycles": "cycles",
            "utilisation": "share, 0–1",
            "batch": "jobs",
            "returns": "jobs per cycle",
            "failed_share": "share, 0–1",
        },
        figures=(
            (EXECUTION, "utilisation", {"mdq_limit": "soft"}),  # Fig. 1a-c, over the node load
            ("n_a", "utilisation", {"mdq_limit": "soft"}),
            ("cycles", "utilisation", {"mdq_limit": "soft"}),
            (EXECUTION, "series"),
            ("n_a", "series"),
            ("cycles", "series"),
            ("utilisation", "series"),
            ("n_a", "cycle", {"series": FIG_2_SERIES, "mdq_limit": "soft"}),
            ("batch", "cycle", {"series": FIG_2_SERIES, "mdq_limit": "soft"}),
            ("returns", "cycle", {"series": FIG_2_SERIES, "mdq_limit": "soft"}),
        ),
    )
)
