"""The `grid` study: seed 004 §3.3, Figs. 5–7 and Table 3, on a Lublin–Feitelson workload.

The paper's W4 is a synthetic CTC-like workload of 10,000 jobs; here each seed draws
10,000 jobs of the Lublin–Feitelson model (engine/grid/lublin.py) for a 256-node
machine, and the arrival times are scaled to the offered ``load`` of the 512-node grid.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from workbench.engine import registry
from workbench.engine.grid.configs import CONFIGS, grid_environment, split_job
from workbench.engine.grid.lublin import generate_workload, workload_environment
from workbench.engine.grid.metrics import grid_metrics
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.lab.study import Claim, Factor, Lookup, Ordering, Published, RunSpec, Study, Sweep, checked

OVERHEADS = tuple(round(0.05 * k, 2) for k in range(13))  # p = 0 … 60 % (Fig. 5, Table 3)
MODEL_NODES = 256  # the workload model's machine size (docs/design.md, "Design decisions")
MOD2_PART = 128  # modification 2 as on m128-4: parts of at most its largest machine, for every config
GRID_TOTAL = 512
# Table 3, workload W4 (the synthetic one), m128-4: multi-site jobs for p = 0 … 60 %.
TABLE_3_W4 = (774, 769, 827, 906, 946, 1042, 1026, 1063, 1012, 1181, 1188, 1233, 1177)


@lru_cache(maxsize=8)
def _workload(jobs: int, seed: int, load: float) -> Environment:
    """The seed's model workload on 512 identical nodes, arrivals scaled to the offered load."""
    work = generate_workload(jobs, MODEL_NODES, seed)
    env = workload_environment(work, GRID_TOTAL, seed)
    span = float(work.arrival[-1] - work.arrival[0]) or 1.0
    natural = float((work.size * work.runtime).sum()) / (GRID_TOTAL * span)
    return dataclasses.replace(
        env, jobs=tuple(dataclasses.replace(j, arrival=j.arrival * natural / load) for j in env.jobs)
    )


@lru_cache(maxsize=64)
def grid_workload(config: str, modification: int, local: bool, jobs: int, seed: int, load: float) -> Environment:
    """The workload on ``config``: modification 2 (parts ≤ 128, as on m128-4) or 3 (parts ≤ 64);
    Local also splits to its machine (modification 1), the only way it can run every job."""
    env = _workload(jobs, seed, load)
    part = MOD2_PART if modification == 2 else 64
    split = dataclasses.replace(env, jobs=tuple(p for j in env.jobs for p in split_job(j, part)))
    grid, _ = grid_environment(split, config, 1 if local else None)
    return grid


@lru_cache(maxsize=256)
def _measure(label: str, config: str, modification: int, overhead: float, jobs: int, seed: int, load: float) -> dict:
    name, params = GRID_STUDY.strategy(label)
    env = grid_workload(config, modification, name == "Local", jobs, seed, load)
    run_params = {**params, "overhead": overhead} if name in ("Multi-site", "Adaptive multi-site") else dict(params)
    return grid_measures(env, registry.run(env, name, run_params))


MEASURES = {
    "awrt": "average weighted response time (s)",
    "awwt": "average weighted wait (s)",
    "bounded_slowdown": "mean bounded slowdown (10 s)",
    "multi_site_jobs": "jobs run over several machines",
    "multi_site_share": "share of jobs run multi-site",
    "multi_site_work_share": "share of the work run multi-site",
    "failed": "jobs no machine could take",
    "ms": "compute time of the run (ms)",
}
# The measures that follow a stated definition (docs/metrics.md); the shares are the study's own.
DEFINED = {
    "awrt": "awrt",
    "awwt": "awwt",
    "bounded_slowdown": "grid_bounded_slowdown",
    "multi_site_jobs": "multi_site_jobs",
    "failed": "failed",
}


def grid_measures(env: Environment, result: Schedule) -> dict[str, float]:
    """The ``MEASURES`` of one grid run (the grid and economic studies)."""
    m = grid_metrics(env, result)
    return {
        "awrt": m.awrt,
        "awwt": m.awwt,
        "bounded_slowdown": m.bounded_slowdown,
        "multi_site_jobs": float(m.multi_site_jobs),
        "multi_site_share": m.multi_site_share,
        "multi_site_work_share": m.multi_site_work_share,
        "failed": float(len(result.unscheduled)),
        "ms": result.elapsed_ms,
    }


# The factors seed 004's two studies share (this one and ``economic``).
CONFIG = Factor("config", tuple(CONFIGS), "grid configuration (Table 1)", label="grid configuration")
JOBS = Factor("jobs", (10_000,), "jobs per workload", extra=(500, 1000, 2000, 5000, 20_000), label="jobs")
LOAD = Factor(
    "load", (0.6,), "offered load of the 512-node grid", extra=(0.3, 0.4, 0.5, 0.7, 0.8, 0.9), label="offered load"
)


def _run(spec: RunSpec) -> dict[str, float]:
    f = dict(spec.factors)
    label = spec.strategy
    # Local and job sharing do not depend on the overhead: run once per setting, read it for every p.
    p = float(f["overhead"]) if label in ("Multi-site", "Adaptive") else 0.0
    return dict(_measure(label, f["config"], int(f["modification"]), p, int(f["jobs"]), spec.seed, float(f["load"])))


def _ratio(mean: Lookup, a: tuple, b: tuple) -> float:
    return mean(a[0], "awrt", **a[1]) / mean(b[0], "awrt", **b[1])


def _claims() -> tuple[Claim, ...]:
    fig5 = {"config": "m128-4", "modification": 2}

    def sharing_halves_local(mean: Lookup) -> tuple[bool | None, str]:
        ratio = _ratio(mean, ("Job sharing", fig5), ("Local", fig5))
        # Judged as an AWRT reduction of over half; the text does not say which base its "improvement" has.
        return 1 - ratio > 0.5, (
            f"job sharing {100 * (1 - ratio):.0f} % below local (local {100 * (1 / ratio - 1):.0f} % above job sharing)"
        )

    def multi_near_single_machine(mean: Lookup) -> tuple[bool | None, str]:
        r = _ratio(mean, ("Multi-site", {**fig5, "overhead": 0.0}), ("Job sharing", {**fig5, "config": "m512-1"}))
        return abs(r - 1) <= 0.10, f"multi-site p=0 / m512-1 = {r:.3f} (near: within 10 %)"

    def more_multi_site_jobs(mean: Lookup) -> tuple[bool | None, str]:
        at0 = mean("Multi-site", "multi_site_jobs", **fig5, overhead=0.0)
        at60 = mean("Multi-site", "multi_site_jobs", **fig5, overhead=0.6)
        return at60 >= 1.3 * at0, f"{at60:.0f} at p=60 % vs {at0:.0f} at p=0 % ({100 * (at60 / at0 - 1):+.0f} %)"

    def bigger_machines(mean: Lookup) -> tuple[bool | None, str]:
        mod3 = {"modification": 3}
        values = [mean("Job sharing", "awrt", config=c, **mod3) for c in ("m64-8", "m128-4", "m256-2")]
        return values[0] > values[1] > values[2], " > ".join(f"{v:,.0f}" for v in values) + " (m64-8, m128-4, m256-2)"

    def m64_8_beats_m64_18(mean: Lookup) -> tuple[bool | None, str]:
        pairs = []
        for p in OVERHEADS[1:]:
            a = mean("Multi-site", "awrt", config="m64-8", modification=3, overhead=p)
            b = mean("Multi-site", "awrt", config="m64-18", modification=3, overhead=p)
            pairs.append(1 - a / b)
        best = max(pairs)
        return all(x > 0 for x in pairs), f"m64-8 better by {100 * min(pairs):.0f}–{100 * best:.0f} % over p > 0"

    return (
        Claim("job sharing improves AWRT over local by over 50 % on m128-4", "§3.3, Fig. 5", sharing_halves_local),
        Claim(
            "multi-site without overhead is near the single 512-node machine", "§3.3, Fig. 5", multi_near_single_machine
        ),
        Claim("multi-site jobs at p = 60 % at least 30 % more than at p = 0 %", "§3.3, Table 3", more_multi_site_jobs),
        Claim("bigger machines schedule better (job sharing)", "§3.3, Fig. 6", bigger_machines),
        Claim("m64-8 better than m64-18 for every p > 0 (multi-site, up to 25 %)", "§3.3, Fig. 6", m64_8_beats_m64_18),
    )


def _orderings() -> tuple[Ordering, ...]:
    out = [
        Ordering("awrt", ("Job sharing", "Local"), "min", {"config": c}, "§3.3: job sharing better everywhere")
        for c in CONFIGS
        if c != "m512-1"
    ]
    out.append(
        Ordering(
            "awrt",
            ("Multi-site", "Job sharing"),
            "min",
            {"config": "m128-4", "modification": 2, "overhead": 0.25},
            "§3.3, Fig. 5: multi-site still better at about 25 % overhead",
        )
    )
    out += [
        Ordering(
            "awrt",
            ("Adaptive", "Multi-site"),
            "min",
            {"config": c, "modification": 3, "overhead": p},
            "Figs. 6–7: adaptive lowers AWRT",
        )
        for c in ("m64-18", "m64-8", "m128-4", "m256-2", "m256-5", "m384-6")
        for p in (0.3, 0.6)
    ]
    return tuple(out)


GRID_STUDY = checked(
    Study(
        name="grid",
        title="Local, job sharing and multi-site grid scheduling (Figs. 5–7, Table 3)",
        source="Franke, Schwiegelshohn & Yahyapour, job scheduling for grids, §3.3",
        setup=(
            "The configurations of Table 1 (512 identical nodes). Each seed draws 10,000 jobs of the "
            f"Lublin–Feitelson model for a {MODEL_NODES}-node machine (the paper's W4 is a CTC-like model "
            "workload; the CTC traces W1–W3 are not shipped), with exact runtime estimates, submitted round "
            "robin to the sites, arrivals scaled to the offered load. Modification 2 splits jobs into parts "
            f"of at most {MOD2_PART} nodes (m128-4's largest machine) for every configuration, so m512-1 is the "
            "reference on the same jobs (Fig. 5); modification 3 (parts ≤ 64) runs one workload on every "
            "configuration (Figs. 6–7). Local always splits to its own machine (modification 1), as the paper "
            "ran local scheduling. AWRT weighs each job by n × its runtime without overhead. The economic "
            "scheduler of §4 (Figs. 17–19) is not in this study yet. Local and job sharing do not depend on the "
            "overhead; they run once per setting and are drawn flat over p."
        ),
        strategies=(
            ("Local", "Local", {}),
            ("Job sharing", "Job sharing", {}),
            ("Multi-site", "Multi-site", {}),
            ("Adaptive", "Adaptive multi-site", {}),
        ),
        factors=(
            CONFIG,
            Factor("modification", (2, 3), "workload modification (§3.2)", label="workload modification"),
            Factor("overhead", OVERHEADS, "multi-site overhead p", label="multi-site overhead p", unit="share"),
            JOBS,
            LOAD,
        ),
        # Every stated ordering is already settled at 2 seeds (the README's results); 4 keep the
        # default run inside the 10-minute budget (5 took 609 s on 2 workers).
        reps=4,
        measures=MEASURES,
        definitions=DEFINED,
        run=_run,
        published=tuple(
            Published(
                "multi_site_jobs",
                "Multi-site",
                float(v),
                {"config": "m128-4", "modification": 2, "overhead": p},
                "Table 3, W4",
                compare=False,  # another workload (CTC-based): shown beside ours, not judged
            )
            for p, v in zip(OVERHEADS, TABLE_3_W4, strict=True)
        ),
        orderings=_orderings(),
        claims=_claims(),
        units={
            "awrt": "s",
            "multi_site_jobs": "jobs",
        },
        figures=(
            ("awrt", "overhead", {"config": "m128-4", "modification": 2}),
            ("multi_site_jobs", "overhead", {"config": "m128-4", "modification": 2}),
            ("awrt", "overhead", {"modification": 3}),
        ),
        # Fig. 5 and Table 3: m128-4 and its m512-1 reference under modification 2; Figs. 6-7: every
        # configuration under modification 3.
        sweeps=(Sweep(at={"modification": (3,)}), Sweep(at={"config": ("m128-4", "m512-1")})),
    )
)
