"""The `economic` study: seed 004 §4.5, Figs. 17–19, the economic scheduler against the conventional one.

The workload is the grid study's (engine/grid/lublin.py, 10,000 model jobs per seed at
offered load 0.6) under modification 3, so every configuration runs the same jobs and
no job needs co-allocation; the conventional scheduler is job sharing (EASY over the
grid, §3), the paper's "first-come-first-serve/backfilling".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from workbench.engine import registry
from workbench.engine.grid.configs import CONFIGS
from workbench.engine.grid.economic import MACHINE_FUNCTIONS, USER_FUNCTIONS
from workbench.lab.studies.grid import CONFIG, DEFINED, JOBS, LOAD, MEASURES, grid_measures, grid_workload
from workbench.lab.study import Claim, Factor, Lookup, RunSpec, Study, Sweep, checked

MODIFICATION = 3  # parts of at most 64 nodes: every Table 1 configuration can run every part
FIT = "Economic (fit ties)"  # MF1–UF1 with the ties UF1 leaves open decided by fit
FIG_19 = {"config": "m128-4", "user_function": "UF3"}
MFS, UFS = tuple(MACHINE_FUNCTIONS), tuple(USER_FUNCTIONS)


@lru_cache(maxsize=128)
def _measure(label: str, config: str, mf: str, uf: str, jobs: int, seed: int, load: float) -> dict:
    name, params = ECONOMIC_STUDY.strategy(label)
    env = grid_workload(config, MODIFICATION, False, jobs, seed, load)
    if name == "Economic":
        params = {**params, "machine_function": mf, "user_function": uf}
    return grid_measures(env, registry.run(env, name, dict(params)))


def _run(spec: RunSpec) -> dict[str, float]:
    f = dict(spec.factors)
    economic = spec.strategy != "Job sharing"
    # Job sharing has no machine or user function: run once per setting, read for every pair.
    mf, uf = (f["machine_function"], f["user_function"]) if economic else ("", "")
    return dict(_measure(spec.strategy, f["config"], mf, uf, int(f["jobs"]), spec.seed, float(f["load"])))


def _measured(mean: Lookup) -> Lookup:
    """``mean`` that raises for a setting the run did not cover (the report then says "not measured")."""

    def strict(*args: Any, **where: Any) -> float:
        value = mean(*args, **where)
        if math.isnan(value):
            raise ValueError(f"no runs for {args} {where}")
        return value

    return strict


def _best_economic(mean: Lookup, config: str) -> tuple[float, str]:
    """The lowest economic AWRT run on ``config`` and its MF–UF pair (Fig. 17 shows the best)."""
    found = []
    for mf in MFS:
        for uf in UFS:
            value = mean("Economic", "awrt", config=config, machine_function=mf, user_function=uf)
            if not math.isnan(value):
                found.append((value, mf, uf))
    if not found:
        raise ValueError(f"no economic runs on {config}")
    value, mf, uf = min(found)
    return value, f"{mf}–{uf}"


def _claims() -> tuple[Claim, ...]:
    def comparable_or_better(lookup: Lookup) -> tuple[bool | None, str]:
        mean = _measured(lookup)
        parts, ok = [], True
        for config in CONFIGS:
            best, pair = _best_economic(lookup, config)
            ratio = best / mean("Job sharing", "awrt", config=config)
            ok &= ratio <= 1.10
            parts.append(f"{config} {ratio:.3f} ({pair})")
        return ok, "best economic / job sharing: " + ", ".join(parts) + " (comparable: within 10 %)"

    def mf1_uf1_outperforms(label: str) -> Callable[[Lookup], tuple[bool | None, str]]:
        def check(lookup: Lookup) -> tuple[bool | None, str]:
            mean = _measured(lookup)
            ratios = {
                c: mean(label, "awrt", config=c, machine_function="MF1", user_function="UF1")
                / mean("Job sharing", "awrt", config=c)
                for c in ("m128-4", "m512-1")
            }
            holds = all(r < 1 for r in ratios.values())
            return holds, ", ".join(f"{c}: {r:.3f} of job sharing" for c, r in ratios.items())

        return check

    def mf2_best_with_uf3(lookup: Lookup) -> tuple[bool | None, str]:
        mean = _measured(lookup)
        values = {mf: mean("Economic", "awrt", machine_function=mf, **FIG_19) for mf in MFS}
        best = min(values, key=values.__getitem__)
        return best == "MF2", ", ".join(f"{mf} {v:,.0f}" for mf, v in values.items())

    def best_user_functions(mean: Lookup) -> dict[str, float]:
        return {
            uf: min(mean("Economic", "awrt", config="m128-4", machine_function=mf, user_function=uf) for mf in MFS)
            for uf in UFS
        }

    def uf1_best(lookup: Lookup) -> tuple[bool | None, str]:
        mean = _measured(lookup)
        values = best_user_functions(mean)
        ranked = sorted(values, key=values.__getitem__)
        return ranked[0] == "UF1", "best over MF1–MF6: " + ", ".join(f"{uf} {values[uf]:,.0f}" for uf in ranked)

    def uf3_second(lookup: Lookup) -> tuple[bool | None, str]:
        mean = _measured(lookup)
        values = best_user_functions(mean)
        ranked = sorted(values, key=values.__getitem__)
        return ranked[1] == "UF3", "ranking: " + " < ".join(ranked)

    return (
        Claim(
            "the economic method is comparable with or better than the conventional one on every configuration",
            "§4.5, Fig. 17",
            comparable_or_better,
        ),
        Claim(
            "MF1–UF1 outperforms the conventional scheduler on m128 and m512",
            "§4.5, Fig. 18",
            mf1_uf1_outperforms("Economic"),
        ),
        Claim(
            "the same, with the ties UF1 leaves open decided by fit (`ties=fit`: every MF then gives one schedule)",
            "§4.3, §4.5, Fig. 18",
            mf1_uf1_outperforms(FIT),
        ),
        Claim("with UF3, MF2 gives the best AWRT of MF1–MF6 on m128", "§4.5, Fig. 19", mf2_best_with_uf3),
        Claim("UF1 (earliest start only) gives the best AWRT of the user functions", "§4.5", uf1_best),
        Claim("UF3 gives the second best", "§4.5", uf3_second),
    )


ECONOMIC_STUDY = checked(
    Study(
        name="economic",
        title="Economic against conventional grid scheduling (Figs. 17–19)",
        source="Franke, Schwiegelshohn & Yahyapour, job scheduling for grids, §4.5",
        setup=(
            "The configurations of Table 1 (512 identical nodes) and the grid study's workload: 10,000 "
            "Lublin–Feitelson jobs per seed for a 256-node machine (the paper's W4 is a CTC-like model; W1–W3 "
            "are CTC traces, not shipped), exact runtime estimates, submitted round robin, arrivals scaled to "
            f"the offered load, modification {MODIFICATION} (parts ≤ 64 nodes) so every configuration runs the "
            "same jobs and none needs co-allocation. The conventional scheduler is job sharing (EASY over the "
            "grid). The economic scheduler books each job on arrival with the offer of highest user utility "
            "(README, Design decisions: before, after and parallel; StartTime as the wait; JobCost = MV; four "
            "feasible starts offered per machine). m128-4 runs every MF–UF pair (Fig. 19 and the user functions); "
            "the other configurations run MF1–UF1 (Fig. 18) and MF2–UF1, and Fig. 17's best is taken over the "
            "pairs run. Job sharing has no MF or UF: it runs once per setting and is drawn flat. Under UF1 the "
            "user's utility ignores MV, so the MF only breaks ties between offers at the same start (which nodes, "
            "which machine), and the paper names no rule (§4.3: the offer of highest utility). The default breaks "
            "them by the lowest MV, which with MF1 is the worst fit whenever the machine has more idle node-time "
            "beside the job than the job uses; 'Economic (fit ties)' runs MF1–UF1 on every configuration with "
            "ties=fit (the least idle node-time left, the best-fitting nodes)."
        ),
        strategies=(
            ("Job sharing", "Job sharing", {}),
            ("Economic", "Economic", {}),
            (FIT, "Economic", {"ties": "fit"}),
        ),
        factors=(
            CONFIG,
            Factor("machine_function", MFS, "machine function (§4.5)", label="machine function"),
            Factor("user_function", UFS, "user utility function (§4.5)", label="user utility function"),
            JOBS,
            LOAD,
        ),
        reps=3,
        measures=MEASURES,
        definitions=DEFINED,
        run=_run,
        claims=_claims(),
        units={
            "awrt": "s",
        },
        figures=(
            ("awrt", "config", {"machine_function": "MF1", "user_function": "UF1"}),
            ("awrt", "machine_function", FIG_19),
            ("awrt", "user_function", {"config": "m128-4", "machine_function": "MF2"}),
        ),
        # The fit ties only where UF1 leaves ties open (MF1–UF1); the others over the configurations
        # at MF1/MF2–UF1 (Fig. 18), and over every function at m128-4 (Figs. 19, 20).
        sweeps=(
            Sweep((FIT,), at={"machine_function": ("MF1",), "user_function": ("UF1",)}),
            Sweep(("Job sharing", "Economic"), at={"config": ("m128-4",)}),
            Sweep(("Job sharing", "Economic"), at={"user_function": ("UF1",), "machine_function": ("MF1", "MF2")}),
        ),
    )
)
