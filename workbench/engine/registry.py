"""The one list of named strategies (DESIGN.md "Named strategies"; STYLE.md point 7).

Each entry has a name, a family (``selector``, ``flow`` or ``grid``), a one-line
description, a parameter schema with defaults, and a factory. The CLI's
``strategies`` command, the GUI's strategy panel and the docs are all built
from this list.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.engine import criteria as cr
from workbench.engine.errors import ParameterError, show, text_problem
from workbench.engine.flow import batching as bt
from workbench.engine.flow.backfill import REPLAN_MODES, backfill_placer
from workbench.engine.flow.bsf import RULES, bsf_placer, check_bsf_params
from workbench.engine.flow.css import VO_CRITERIA, CssSpec, slicer_placer
from workbench.engine.flow.cycles import DEFAULT_MAX_CYCLES, run_cycles
from workbench.engine.flow.easy import easy
from workbench.engine.model import Environment
from workbench.engine.rough import ROUGH_CRITERIA, SHAPES, CommonStatsAMP, RoughSelector
from workbench.engine.schedule import Schedule
from workbench.engine.search import SearchSpec
from workbench.engine.selectors import CRITERIA, MultipleBest, SearchSelector, Selector, make_criterion
from workbench.engine.simulate import FlowRun, Progress, Recorder, Simulator, StopFn

# The papers behind the strategies (shared/seeds/); the texts carry no publication year.
REFERENCES = {
    "000": "Toporkov et al., metascheduling and co-allocation strategies",
    "001": "Toporkov & Yemelyanov, heuristic rules for coordinated allocation",
    "002": "Toporkov & Yemelyanov, dependable and coordinated allocation",
    "003": "Toporkov, Yemelyanov & Potekhin, forming job batches",
    "004": "Franke, Schwiegelshohn & Yahyapour, job scheduling for grids",
}


def cite(seed: str, where: str = "") -> str:
    """A reference a user can look up: authors, title, and the seed file (section)."""
    return f"[{REFERENCES[seed]}; seed {seed}{' ' + where if where else ''}]"


@dataclass(frozen=True)
class Param:
    """One strategy parameter: its type, default, range or choices, and a help line."""

    name: str
    kind: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    exclusive_minimum: bool = False

    def coerce(self, value: Any) -> Any:
        """``value`` (a JSON value or a command-line string) as this parameter's type, checked."""
        try:
            if self.kind is bool:
                if isinstance(value, str):
                    lowered = value.strip().lower()
                    if lowered not in ("true", "false", "1", "0", "yes", "no"):
                        raise ValueError(value)
                    out: Any = lowered in ("true", "1", "yes")
                else:
                    out = bool(value)
            elif self.kind is int:
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError(value)
                out = int(value)
                if abs(out) > MAX_INT_PARAM:
                    raise ValueError(value)
            elif self.kind is float:
                out = float(value)
                if not math.isfinite(out):
                    raise ValueError(value)
            else:
                out = str(value)
                problem = text_problem(out, MAX_TEXT_PARAM)
                if problem is not None:
                    raise ParameterError(self.name, problem)
        except (TypeError, ValueError, OverflowError):
            what = "a finite number" if self.kind is float else f"a whole number of at most {MAX_INT_PARAM:,}"
            expected = what if self.kind in (int, float) else self.kind.__name__
            raise ParameterError(self.name, f"expected {expected}, got {show(value)}") from None
        if self.choices is not None and out not in self.choices:
            raise ParameterError(self.name, f"expected one of {', '.join(self.choices)}, got {show(out)}")
        below = self.minimum is not None and (out < self.minimum or (self.exclusive_minimum and out == self.minimum))
        if below:
            relation = ">" if self.exclusive_minimum else "≥"
            raise ParameterError(self.name, f"must be {relation} {self.minimum:g}, got {show(out)}")
        if self.maximum is not None and out > self.maximum:
            raise ParameterError(self.name, f"must be ≤ {self.maximum:g}, got {show(out)}")
        return out


# Checks the parameters, then returns the run: a generator of snapshots (simulate.py).
Flow = Callable[[Environment, dict[str, Any], Recorder], FlowRun]


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    family: str
    description: str
    params: tuple[Param, ...]
    flow: Flow = field(repr=False)

    def resolve(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with ``params``, each checked; unknown names are errors."""
        known = {p.name: p for p in self.params}
        out = {p.name: p.default for p in self.params}
        for key, value in (params or {}).items():
            if key not in known:
                expected = ", ".join(known) or "none"
                raise ParameterError(str(key), f"unknown parameter of {self.name}; it takes: {expected}")
            out[key] = known[key].coerce(value)
        return out


RESOLUTION = Param(
    "resolution",
    float,
    1.0,
    "cost resolution of the exact choice (DESIGN.md cost units); a DP over 128 MiB stops with an error",
    minimum=1e-6,  # finer steps drown in the 1e-9 rounding tolerance of the units
)
SHAPE = Param(
    "shape",
    str,
    "square",
    "square windows (every part V / P_min) or a rough right edge (each part V / p_i) " + cite("000", "§3"),
    choices=SHAPES,
)
AEP_CRITERIA = {
    "AMP": "start",
    "MinFinish": "finish",
    "MinCost": "cost",
    "MinRunTime": "runtime",
    "MinProcTime": "proc_time",
}
ATTRIBUTE = Param("attribute", str, "q", "node attribute to maximise")
PAST_COP = tuple(
    Param(key, float, value, f"CoP/PAST rule weight {key} " + cite("001", "Table 1"))
    for key, value in cr.PAST_COP_DEFAULTS.items()
)

_REGISTRY: dict[str, StrategyInfo] = {}
MAX_INT_PARAM = 10**9  # no count a strategy takes needs more
MAX_TEXT_PARAM = 256


def register(info: StrategyInfo) -> StrategyInfo:
    _REGISTRY[_key(info.name)] = info
    return info


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name).lower()


def get(name: str) -> StrategyInfo:
    """The strategy called ``name`` (case, spaces, '-' and '_' do not matter)."""
    info = _REGISTRY.get(_key(name))
    if info is None:
        raise ParameterError("strategy", f"unknown strategy {show(name)}; `workbench strategies` lists them")
    return info


def strategies() -> list[StrategyInfo]:
    return list(_REGISTRY.values())


def check_strategy(name: str, params: Mapping[str, Any]) -> str:
    """The canonical name of strategy ``name``, once ``params`` are known to be its own and valid
    (``ParameterError`` otherwise): what an environment file's strategy is checked by."""
    info = get(name)
    info.resolve(params)
    return info.name


def simulator(
    env: Environment,
    name: str,
    params: Mapping[str, Any] | None = None,
    should_stop: StopFn = None,
    history: bool = True,
    progress: Progress = None,
    explain: bool = False,
) -> Simulator:
    """A simulator of the named strategy on ``env``, ready to step (parameters already checked)."""
    info = get(name)
    resolved = info.resolve(params)
    return Simulator(env, info.name, info.flow, resolved, should_stop, history, progress, explain)


def run(
    env: Environment,
    name: str,
    params: Mapping[str, Any] | None = None,
    progress: Progress = None,
    should_stop: StopFn = None,
    explain: bool = False,
) -> Schedule:
    """Run the named strategy on ``env`` to the end and return its schedule.

    ``progress(done, total)`` is called as the run goes (at most every 50 ms), and
    ``should_stop()`` is honoured between searches: it raises ``Cancelled``. With ``explain`` the
    schedule keeps the L_left and L_right each placement saw (``Schedule.distances``).
    """
    return simulator(env, name, params, should_stop, history=False, progress=progress, explain=explain).run()


def _selector_flow(build: Callable[[dict[str, Any]], Selector]) -> Flow:
    """Any selector as conservative backfilling, cycle by cycle."""

    def flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
        placer = backfill_placer(build(params), params["dynamic"], replan=params["replan"])
        return run_cycles(env, rec, placer, bt.AllJobs(), params["max_cycles"])

    return flow


def selector(name: str, params: Mapping[str, Any] | None = None) -> Selector:
    """The selector behind a registry entry, for flow strategies and tools that place one job."""
    info = get(name)
    if info.family != "selector":
        raise ParameterError("selector", f"{info.name} is a {info.family} strategy, not a selector")
    resolved = info.resolve(params)
    return _SELECTOR_BUILDERS[_key(info.name)](resolved)


PICK = Param(
    "pick",
    str,
    "cheapest",
    "which n nodes at the earliest start: the cheapest, or the first found (the free slots that began "
    "first, as the paper's scan meets them; rough windows only) " + cite("000", "§5"),
    choices=("cheapest", "first"),
)
QUANTUM = Param(
    "quantum",
    float,
    0.0,
    "time quantum: every window's length rounded up to whole quanta (0: V / P exactly; the papers' "
    "simulators count whole units of time)",
    minimum=0.0,
)
ORDER = Param(
    "order",
    str,
    "time",
    "time: the earliest window; performance: the paper's literal scan, the first window of the fastest "
    "group of nodes that has one " + cite("002", "§3.2"),
    choices=("time", "performance"),
)
DYNAMIC = Param("dynamic", bool, True, "react to early completions (actual_fraction < 1) by planning again")
REPLAN = Param(
    "replan",
    str,
    "search",
    "how a waiting job moves up after an early completion: search, its window found again on any nodes; "
    "nodes, the same nodes at the earliest start they allow (the plan run on the chosen resources) "
    + cite("000", "§7.2"),
    choices=REPLAN_MODES,
)
MAX_CYCLES = Param(
    "max_cycles",
    int,
    DEFAULT_MAX_CYCLES,
    "most scheduling cycles when the horizon is unbounded",
    minimum=1,
    maximum=100_000,  # each cycle keeps a snapshot
)


_SELECTOR_BUILDERS: dict[str, Callable[[dict[str, Any]], Selector]] = {}


def _define_selectors() -> None:
    def simple(make: Callable[[], cr.Criterion]) -> Callable[[dict[str, Any]], cr.Criterion]:
        return lambda params: make()

    def attribute(params: dict[str, Any]) -> cr.Criterion:
        return cr.Attribute(params["attribute"])

    def past(params: dict[str, Any]) -> cr.Criterion:
        return cr.Past(**{key: params[key] for key in cr.PAST_COP_DEFAULTS})

    def cop(params: dict[str, Any]) -> cr.Criterion:
        return cr.CoordinatedPlacement(**{key: params[key] for key in cr.PAST_COP_DEFAULTS})

    def start_or_scan(params: dict[str, Any]) -> cr.Criterion:
        # The paper's literal scan returns the first window of the fastest group that has one:
        # the shortest T first, then (the search's tie rule) the earliest start, i.e. -T.
        return cr.StartTime() if params["order"] == "time" else cr.RunTime()

    table: list[tuple[str, str, Callable[[dict[str, Any]], cr.Criterion], bool, tuple[Param, ...], float]] = [
        (
            "FirstFit",
            "the earliest window, on its cheapest free nodes " + cite("002", "§4.2"),
            start_or_scan,
            False,
            (ORDER,),
            1.0,
        ),
        (
            "AMP",
            "the earliest window the budget allows, without optimising anything else " + cite("000", "§5"),
            simple(cr.StartTime),
            False,
            (SHAPE, PICK),
            1.0,
        ),
        (
            "MinFinish",
            "the window that ends first (a user's own preference) " + cite("000", "§6.1"),
            simple(cr.FinishTime),
            True,
            (SHAPE,),
            1.0,
        ),
        (
            "MinCost",
            "the cheapest window (a user's own preference) " + cite("000", "§6.1"),
            simple(cr.Cost),
            True,
            (SHAPE,),
            1.0,
        ),
        (
            "MinRunTime",
            "the window on the fastest nodes, so the shortest run " + cite("000", "§6.1"),
            simple(cr.RunTime),
            True,
            (SHAPE,),
            1.0,
        ),
        (
            "MinProcTime",
            "the least processor time, the sum of the parts' own run times " + cite("000", "§5"),
            simple(cr.ProcTime),
            True,
            (SHAPE,),
            1.0,
        ),
        (
            "MaxQ",
            "the nodes with the most of an attribute (e.g. quality q), exactly within budget " + cite("002", "§4.2"),
            attribute,
            True,
            (ATTRIBUTE,),
            1.0,
        ),
        (
            "MaxQ Lite",
            "the most of an attribute among the cheapest nodes (fast) " + cite("002", "§4.2"),
            attribute,
            False,
            (ATTRIBUTE,),
            1.0,
        ),
        (
            "DEP",
            "dependable: the most room around the window, so a late task does not hurt it " + cite("002", "§4.3"),
            simple(cr.Dependable),
            True,
            (),
            1.0,
        ),
        (
            "DEP Lite",
            "dependable among the cheapest nodes (fast) " + cite("002", "§4.3"),
            simple(cr.Dependable),
            False,
            (),
            1.0,
        ),
        (
            "COORD",
            "coordinated: the window that fits its gaps most snugly, leaving little idle time " + cite("002", "§4.3"),
            simple(cr.Coordinated),
            True,
            (),
            1.0,
        ),
        (
            "COORD Lite",
            "coordinated among the cheapest nodes (fast) " + cite("002", "§4.3"),
            simple(cr.Coordinated),
            False,
            (),
            1.0,
        ),
        (
            "BFstart",
            "backfilling: each job in queue order at its earliest start " + cite("001", "§4.1"),
            start_or_scan,
            True,
            (ORDER,),
            1.0,
        ),
        (
            "BFfinish",
            "backfilling: each job in queue order at its earliest finish " + cite("001", "§4.1"),
            simple(cr.FinishTime),
            True,
            (),
            1.0,
        ),
        (
            "BFshort",
            "BFfinish with every run 1 % shorter, a reference point " + cite("001", "§4.1"),
            simple(cr.FinishTime),
            True,
            (),
            0.99,
        ),
        (
            "MinLSum",
            "the window that leaves the least idle time beside it, L_Σ = Σ (L_left + L_right) " + cite("001", "§3"),
            simple(cr.GapSum),
            True,
            (),
            1.0,
        ),
        (
            "MinLMinSum",
            "the window nearest its neighbours, L_minΣ = Σ min(L_left, L_right) → min (the preliminary "
            "experiment of " + cite("001", "§3") + ")",
            simple(cr.NearestGap),
            True,
            (),
            1.0,
        ),
        (
            "PAST",
            "earliest finish, preferring windows that touch their neighbours (PAST rules) " + cite("001", "§4.1"),
            past,
            True,
            PAST_COP,
            1.0,
        ),
        (
            "CoP",
            "earliest finish, preferring snug windows and slower nodes (CoP rules) " + cite("001", "§3.2, §4.1"),
            cop,
            True,
            PAST_COP,
            1.0,
        ),
    ]
    for name, description, criterion, exact, extra, factor in table:

        def build(
            params: dict[str, Any],
            name: str = name,
            criterion: Any = criterion,
            exact: bool = exact,
            factor: float = factor,
        ) -> Selector:
            pick = params.get("pick", "cheapest")
            if params.get("shape") == "rough":
                if params["quantum"] > 0:
                    raise ParameterError("quantum", "applies to square windows; a rough edge has no common length")
                return RoughSelector(name, AEP_CRITERIA[name], params["resolution"], pick)
            if pick != "cheapest":
                raise ParameterError("pick", "first applies to rough-edged windows (shape=rough)")
            spec = SearchSpec(criterion(params), exact, factor, params["resolution"], params["quantum"])
            return SearchSelector(name, spec)

        _register_selector(name, description, (*extra, RESOLUTION, QUANTUM), build)

    mb_params = (
        Param(
            "by",
            str,
            "q",
            "criterion that picks the best alternative (the paper's: the most Q) " + cite("002", "§4.2"),
            choices=tuple(CRITERIA),
        ),
        Param("max_alternatives", int, 50, "most FirstFit alternatives to collect", minimum=1, maximum=10_000),
        RESOLUTION,
    )

    def build_mb(params: dict[str, Any]) -> Selector:
        return MultipleBest(
            "MultipleBest", make_criterion(params["by"]), params["max_alternatives"], params["resolution"]
        )

    _register_selector(
        "MultipleBest",
        "collects many earliest windows that do not overlap, then keeps the best by a criterion " + cite("002", "§4.2"),
        mb_params,
        build_mb,
    )

    csa_params = (
        Param("by", str, "cost", "criterion that picks the extreme alternative", choices=ROUGH_CRITERIA),
        Param("max_alternatives", int, 50, "most AMP alternatives to collect", minimum=1, maximum=10_000),
        SHAPE,
        RESOLUTION,
    )

    def build_csa(params: dict[str, Any]) -> Selector:
        return CommonStatsAMP("CSA", params["by"], params["shape"], params["max_alternatives"], params["resolution"])

    _register_selector(
        "CSA",
        "collects disjoint AMP windows, then keeps the extreme one by a criterion " + cite("000", "§5"),
        csa_params,
        build_csa,
    )


def _register_selector(
    name: str, description: str, params: tuple[Param, ...], build: Callable[[dict[str, Any]], Selector]
) -> None:
    full = (*params, DYNAMIC, REPLAN, MAX_CYCLES)
    register(StrategyInfo(name, "selector", description, full, _selector_flow(build)))
    _SELECTOR_BUILDERS[_key(name)] = build


_define_selectors()


BATCHING = (
    Param(
        "batching",
        str,
        "all",
        "how each cycle's batch is chosen from the queue " + cite("003"),
        choices=bt.METHODS,
    ),
    Param("batch_size", int, 10, "jobs per batch for random batching", minimum=1, maximum=1_000_000),
    Param("seed", int, 0, "random batching seed"),
    Param(
        "limit_coefficient",
        float,
        0.5,
        "Knapsack and MDq limit: fraction of the cycle's slot time or cost",
        minimum=0.0,
        maximum=1.0,
        exclusive_minimum=True,
    ),
    Param(
        "mdq_limit",
        str,
        "hard",
        "MDq: hard (the knapsack's cap) or soft (the paper's: C_v = limit_coefficient, no cap) " + cite("003", "§1.3"),
        choices=bt.MDQ_LIMITS,
    ),
    *(
        Param(
            key,
            float,
            value,
            f"weight {key} of the compatibility score Dq " + cite("003", "eqs. 1-5"),
            minimum=0.0 if key.startswith("c_") else None,
            exclusive_minimum=key.startswith("c_"),
        )
        for key, value in bt.DQ_DEFAULTS.items()
    ),
)
CSS_PARAMS = (
    Param(
        "vo_criterion",
        str,
        "cpu_time",
        "what the virtual organisation optimises when it picks one window per job " + cite("000", "eqs. 6-9"),
        choices=VO_CRITERIA,
    ),
    # An unbounded horizon offers endless alternatives: each one is a window held in memory.
    Param("max_alternatives", int, 20, "most alternatives per job and cycle", minimum=1, maximum=10_000),
    RESOLUTION,
    SHAPE,
)


def css_spec(params: dict[str, Any]) -> CssSpec:
    return CssSpec(params["vo_criterion"], params["max_alternatives"], params["resolution"], params["shape"])


def _css_flow(slices_param: bool) -> Flow:
    def flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
        slices = params["slices"] if slices_param else 1
        placer = slicer_placer(css_spec(params), slices)
        return run_cycles(env, rec, placer, bt.make_batch_former(params), params["max_cycles"])

    return flow


def _bsf_flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
    check_bsf_params(params["rule"], params["n_high"], params["high_fraction"], params["slices"], len(env.jobs))
    chosen = selector(params["selector"], {"resolution": params["resolution"]})
    placer = bsf_placer(
        chosen,
        params["rule"],
        params["n_high"],
        params["high_fraction"],
        params["slices"],
        css_spec(params),
        params["dynamic"],
        params["replan"],
    )
    return run_cycles(env, rec, placer, bt.make_batch_former(params), params["max_cycles"])


def _easy_flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
    return easy(env, params, rec)


def _define_flows() -> None:
    selector_names = tuple(info.name for info in strategies() if info.family == "selector")
    register(
        StrategyInfo(
            "EASY",
            "flow",
            "EASY backfilling: start what fits now without delaying the first job in the queue " + cite("004", "§3"),
            (Param("fast_path", bool, True, "host-level fast path when all nodes are identical"),),
            _easy_flow,
        )
    )
    register(
        StrategyInfo(
            "CSS",
            "flow",
            "cyclic scheme: several windows per job by its own preference, then the best combination " + cite("000"),
            (*CSS_PARAMS, *BATCHING, MAX_CYCLES),
            _css_flow(False),
        )
    )
    register(
        StrategyInfo(
            "Batch-slicer",
            "flow",
            "the cyclic scheme on k slices of the batch in turn " + cite("000", "§3"),
            (
                Param("slices", int, 5, "number of sub-batches k", minimum=1, maximum=1_000_000),
                *CSS_PARAMS,
                *BATCHING,
                MAX_CYCLES,
            ),
            _css_flow(True),
        )
    )
    register(
        StrategyInfo(
            "BSF",
            "flow",
            "batch-slicer for the high-priority jobs, backfilling for the rest " + cite("000", "§4"),
            (
                Param("rule", str, "order", "how high-priority jobs are chosen", choices=RULES),
                Param(
                    "n_high",
                    int,
                    -1,
                    "how many jobs get high priority; -1 means use the high_fraction share instead",
                    minimum=-1,
                ),
                Param(
                    "high_fraction", float, 0.5, "fraction of the batch that is high-priority", minimum=0.0, maximum=1.0
                ),
                Param("slices", int, 1, "sub-batches of the sliced part", minimum=1, maximum=1_000_000),
                Param("selector", str, "FirstFit", "selector of the backfilled part", choices=selector_names),
                DYNAMIC,
                REPLAN,
                *CSS_PARAMS,
                *BATCHING,
                MAX_CYCLES,
            ),
            _bsf_flow,
        )
    )


_define_flows()

OVERHEAD = Param(
    "overhead",
    float,
    0.25,
    "multi-site overhead p: a job split over machines runs (1 + p)·T; 0.25 is 25 % " + cite("004", "§3.1"),
    minimum=0.0,
    maximum=3.0,  # the paper's range, 0 … 300 %
)


def _define_grid() -> None:
    from workbench.engine.grid.sim import grid_flow

    entries = (
        ("Local", "local", "each site runs EASY on its own jobs, on its own machine", (), "§3 (1)"),
        (
            "Job sharing",
            "share",
            "one grid queue; each job on the machine it leaves fewest idle nodes on (BestFit), then EASY",
            (),
            "§3 (2)",
        ),
        (
            "Multi-site",
            "multi",
            "job sharing, and a job that fits no machine now runs over several, stretched by the overhead",
            (OVERHEAD,),
            "§3 (3)",
        ),
        (
            "Adaptive multi-site",
            "adaptive",
            "multi-site only when that completes sooner than the job's earliest single-machine run",
            (OVERHEAD,),
            "§3.1, Fig. 4",
        ),
    )
    for name, mode, text, params, where in entries:
        register(StrategyInfo(name, "grid", f"{text} {cite('004', where)}", params, grid_flow(mode)))

    from workbench.engine.grid.economic import MACHINE_FUNCTIONS, USER_FUNCTIONS, economic_flow

    register(
        StrategyInfo(
            "Economic",
            "grid",
            "each machine offers its idle intervals, the job books the offer of highest user utility "
            "UV = UF(MF); co-allocated over machines when none is wide enough " + cite("004", "§4"),
            (
                Param(
                    "machine_function",
                    str,
                    "MF1",
                    "the machines' value MF1–MF6 of an offer (its price) " + cite("004", "§4.5"),
                    choices=tuple(MACHINE_FUNCTIONS),
                ),
                Param(
                    "user_function",
                    str,
                    "UF1",
                    "the users' utility: UF1 −start, UF2 −cost, UF3 −(start + cost), UF4 −(start + 2·cost), "
                    "UF5 −(2·start + cost) " + cite("004", "§4.5"),
                    choices=tuple(USER_FUNCTIONS),
                ),
                Param(
                    "starts",
                    int,
                    4,
                    "feasible start times each machine offers (the fine selection's steps; UF1 needs only the first)",
                    minimum=1,
                    maximum=64,
                ),
                Param(
                    "ties",
                    str,
                    "value",
                    "how offers of equal user utility are decided (under UF1 every offer at one start; the paper "
                    "names no rule): value, the lowest machine value; fit, the least idle node-time left beside "
                    "the job (before + after + parallel), with the best-fitting nodes when UF1 leaves their choice "
                    "open " + cite("004", "§4.3"),
                    choices=("value", "fit"),
                ),
                OVERHEAD,
            ),
            economic_flow,
        )
    )


_define_grid()
