"""backfilling: seed 001's backfilling with heuristic criteria (§4.2, Tables 2-3, Figs. 3-4): the
mean job finish time of BFstart, BFfinish, BFshort, PAST and CoP over the queue length N_Q."""

from __future__ import annotations

from functools import cache

import numpy as np

from workbench.engine import registry
from workbench.engine.generate import generate
from workbench.engine.metrics import flow_metrics
from workbench.engine.model import Environment
from workbench.lab.study import Claim, Factor, Lookup, Ordering, Published, RunSpec, Study, Sweep, checked

BACKFILL_SOURCE = "Toporkov & Yemelyanov, backfilling with heuristic criteria, §4.2, Tables 2-3, Figs. 3-4"

PAPER_BACKFILL = {  # mean job finish time; N_Q -> BFstart, BFfinish, BFshort, PAST, CoP
    "static": {
        50: (318.8, 302.1, 298.8, 300.1, 298.0),
        100: (579.2, 555.0, 549.2, 556.1, 550.7),
        150: (836.8, 805.6, 796.8, 809.0, 800.6),
        200: (1112.0, 1072.7, 1060.3, 1083.3, 1072.2),
    },
    "arrivals": {
        50: (381.7, 375.4, 371.8, 371.8, 369.5),
        100: (672.5, 662.6, 656.9, 657.9, 653.4),
        150: (942.4, 922.6, 915.8, 921.0, 914.9),
        200: (1208.2, 1184.2, 1173.2, 1184.1, 1173.8),
    },
}
BACKFILL_LABELS = ("BFstart", "BFfinish", "BFshort", "PAST", "CoP")


def _backfill_env(seed: int, jobs: int, scenario: str, load: float, p_max: float) -> Environment:
    """backfill32 with N_Q jobs, local load up to ``load`` and job performance requirements up to
    ``p_max`` (0: none); with ``arrivals``, each job arrives at U[0, makespan/2) of the static BFfinish
    schedule of the same environment (seed 001: "up to half of the makespan obtained during the first
    experiment")."""
    env = generate("backfill32", seed, jobs=jobs, max_load=load, job_perf_max=p_max)
    if scenario == "static":
        return env
    return _with_arrivals(env, seed, load, p_max)


@cache
def _static_makespan(seed: int, jobs: int, load: float, p_max: float) -> float:
    env = generate("backfill32", seed, jobs=jobs, max_load=load, job_perf_max=p_max)
    return flow_metrics(env, registry.run(env, "BFfinish")).makespan


def _with_arrivals(env: Environment, seed: int, load: float, p_max: float) -> Environment:
    import dataclasses

    half = _static_makespan(seed, len(env.jobs), load, p_max) / 2
    rng = np.random.default_rng([seed, 1])
    arrivals = rng.uniform(0.0, half, len(env.jobs))
    jobs = tuple(dataclasses.replace(j, arrival=float(round(a, 6))) for j, a in zip(env.jobs, arrivals, strict=True))
    return dataclasses.replace(env, jobs=jobs)


def _backfill_run(spec: RunSpec) -> dict[str, float]:
    f = dict(spec.factors)
    env = _backfill_env(spec.seed, int(f["n_q"]), str(f["scenario"]), float(f["local_load"]), float(f["job_perf_max"]))
    name, params = BACKFILLING.strategy(spec.strategy)
    result = registry.run(env, name, {**params, "quantum": float(spec.factor("quantum"))})
    m = flow_metrics(env, result)
    return {
        "mean_finish": m.mean_finish,
        "makespan": m.makespan,
        "mean_start": m.mean_start,
        "utilisation": m.utilisation,
        "placed": float(m.placed),
        "ms": result.elapsed_ms,
    }


def _paper_backfill() -> tuple[Published, ...]:
    out = []
    for scenario, table in PAPER_BACKFILL.items():
        source = "Table 2" if scenario == "static" else "Table 3"
        for n_q, values in table.items():
            where = {"n_q": n_q, "scenario": scenario}
            for label, value in zip(BACKFILL_LABELS, values, strict=True):
                out.append(Published("mean_finish", label, value, where, source))
            out.append(Published("mean_finish", "BFstart (scan)", values[0], where, source + ", BFstart"))
    return tuple(out)


def _backfill_claims() -> tuple[Claim, ...]:
    def idle_space_costs_makespan(mean: Lookup) -> tuple[bool | None, str]:
        parts, ok = [], True
        for n_q in (50, 100, 150, 200):
            at = {"n_q": n_q, "scenario": "static", "quantum": 0.0, "local_load": PRESET_LOAD, "job_perf_max": 0.0}
            a, b = mean("MinLMinSum", "makespan", **at), mean("BFfinish", "makespan", **at)
            longer = 100 * (a / b - 1)
            ok &= 30 <= longer <= 100
            parts.append(f"N_Q={n_q}: {a:.0f} vs {b:.0f} ({longer:+.0f} %)")
        return ok, "; ".join(parts) + " (MinLMinSum vs BFfinish, static)"

    return (
        Claim(
            "L_minΣ → min gives a 30–100 % longer makespan than backfilling by finish time",
            "§3, preliminary experiments",
            idle_space_costs_makespan,
        ),
    )


def _backfill_orderings() -> tuple[Ordering, ...]:
    out = []
    for quantum, load, p_max in ((0.0, 0.0, P_MAX), (0.0, 0.0, 0.0), (0.0, PRESET_LOAD, 0.0), (1.0, PRESET_LOAD, 0.0)):
        for n_q in (50, 100, 150, 200):
            where = {"n_q": n_q, "scenario": "static", "quantum": quantum, "local_load": load, "job_perf_max": p_max}
            out.append(Ordering("mean_finish", ("BFshort", "BFfinish", "BFstart"), "min", where, "Table 2"))
            out.append(Ordering("mean_finish", ("CoP", "PAST"), "min", where, "§4.2: CoP 0.5-1 % ahead of PAST"))
            arrivals = {**where, "scenario": "arrivals"}
            out.append(Ordering("mean_finish", ("CoP", "BFfinish", "BFstart"), "min", arrivals, "Table 3"))
        at_50 = {**where, "n_q": 50}
        out.append(Ordering("mean_finish", ("CoP", "BFfinish"), "min", at_50, "§4.2: +1 % at 50"))
    return tuple(out)


QUANTA = (0.0, 1.0)  # window lengths V / P exactly, or rounded up to whole units of time
PRESET_LOAD = 0.1  # the backfill32 preset's local load (up to 10 % per node); the paper mentions none
P_MAX = 12.0  # jobs' performance requirement p ~ U[2, 12] (capped so every job can run): fits Table 2 best


# The paper's five strategies run without local load (its set-up) with and without performance
# requirements, and with the preset's load with and without whole quanta; the others (the scan-order
# BFstart, the L_Σ planners) at the preset's load only.
_OTHERS = ("BFstart (scan)", "MinLSum", "MinLMinSum")
BACKFILL_SWEEPS = (
    Sweep(BACKFILL_LABELS, at={"quantum": (0.0,), "local_load": (0.0,)}, besides={"job_perf_max": (0.0,)}),
    Sweep(BACKFILL_LABELS, at={"job_perf_max": (0.0,), "quantum": (0.0,)}),
    Sweep(BACKFILL_LABELS, at={"job_perf_max": (0.0,), "local_load": (PRESET_LOAD,)}),
    Sweep(_OTHERS, at={"quantum": (0.0,), "local_load": (PRESET_LOAD,), "job_perf_max": (0.0,)}),
)


BACKFILLING = checked(
    Study(
        name="backfilling",
        title="Backfilling with heuristic criteria: mean finish time by queue size",
        source=BACKFILL_SOURCE,
        setup=(
            "Given by the paper: 32 nodes of performance U[2, 16] (prices by performance), jobs of 1..8 "
            "nodes with volumes U[60, 1200] (§4.2), all in the queue at time 0 (Table 2) or "
            "arriving uniformly over half of the first experiment's makespan (Table 3); conservative "
            "backfilling with each criterion; 2000 simulations per cell; no local load is mentioned, so the "
            "five strategies run without it (local_load = 0, the paper's set-up) and with the backfill32 "
            "preset's (up to 10 % per node, local_load = 0.1). The request model has a minimum node performance "
            "p (§2.1) that §4.2 does not draw: job_perf_max = 12 draws p ~ U[2, 12] per job (at most its n-th "
            "fastest node's, so that it can run; without local load), 0 asks for none. Left open, and chosen "
            "here: arrivals drawn "
            "over half of the static BFfinish makespan of the same environment; static (not dynamic) "
            "planning, as every job runs its full length. BFstart (scan) is BFstart with the paper's "
            "literal window scan (the fastest group of nodes first, seed 002 §3.2). MinLSum and MinLMinSum "
            "plan by L_Σ → min and L_minΣ → min, the idle-space criteria of §3 (the preliminary experiment). "
            "quantum = 1 rounds every window's length up to whole units of time, as a simulator that counts "
            "whole time quanta would (then finish times tie more often, and the tie rules have more to do). "
            "Whole quanta and the three further strategies run at the preset's load."
        ),
        strategies=(
            *((label, label, {}) for label in BACKFILL_LABELS),
            ("BFstart (scan)", "BFstart", {"order": "performance"}),
            ("MinLSum", "MinLSum", {}),
            ("MinLMinSum", "MinLMinSum", {}),
        ),
        factors=(
            Factor("n_q", (50, 100, 150, 200), "jobs in the queue (N_Q)", label="jobs in the queue N_Q"),
            Factor(
                "scenario",
                ("static", "arrivals"),
                "all at time 0 (Table 2), or arrivals (Table 3)",
                words={"static": "all jobs queued at time 0 (Table 2)", "arrivals": "jobs arrive over time (Table 3)"},
            ),
            Factor(
                "quantum",
                QUANTA,
                "window lengths: 0 V / P exactly, 1 rounded up to whole units of time",
                words={0.0: "lengths V / P exactly", 1.0: "lengths rounded up to whole time units"},
            ),
            Factor(
                "local_load",
                (0.0, PRESET_LOAD),
                "local load per node up to: 0 (the paper's set-up), 0.1 (preset)",
                words={0.0: "no local tasks", PRESET_LOAD: f"local load up to {PRESET_LOAD:g} per node"},
            ),
            Factor(
                "job_perf_max",
                (P_MAX, 0.0),
                "jobs' performance requirement p ~ U[2, job_perf_max]; 0: none",
                words={P_MAX: f"jobs need performance p ~ U[2, {P_MAX:g}]", 0.0: "no performance requirement"},
            ),
        ),
        sweeps=BACKFILL_SWEEPS,
        reps=10,
        measures={
            "mean_finish": "mean job finish time",
            "makespan": "last finish",
            "mean_start": "mean job start time",
            "utilisation": "busy share of the nodes over the makespan",
            "placed": "jobs placed",
            "ms": "compute time of the run (ms)",
        },
        definitions={
            "mean_finish": "mean_finish",
            "makespan": "makespan",
            "mean_start": "mean_start",
            "utilisation": "utilisation",
            "placed": "placed",
        },
        run=_backfill_run,
        published=_paper_backfill(),
        orderings=_backfill_orderings(),
        claims=_backfill_claims(),
        units={
            "mean_finish": "time units",
            "makespan": "time units",
            "mean_start": "time units",
            "utilisation": "share, 0–1",
            "placed": "jobs",
            "ms": "ms",
        },
        figures=(("mean_finish", "n_q"),),
    )
)
