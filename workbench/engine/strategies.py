"""The catalogue of named strategies (docs/design.md "Named strategies"; docs/style.md point 7).

Each entry is a ``StrategyInfo``: a name, a family (``selector``, ``flow`` or ``grid``), a
one-line description with its paper, a parameter schema with defaults (``params.Param``),
and the flow that runs it. Square-window selectors are keyword records (``_Selector``): a
criterion, Lite or exact choice, their own parameters. ``registry`` looks strategies up by
name; the CLI's ``strategies`` command, the GUI's strategy panel and the docs are built from
``CATALOGUE``, in its order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.engine import criteria as cr
from workbench.engine.errors import ParameterError
from workbench.engine.flow import batching as bt
from workbench.engine.flow.backfill import backfill_placer
from workbench.engine.flow.bsf import RULES, bsf_placer, check_bsf_params
from workbench.engine.flow.css import CssSpec, slicer_placer
from workbench.engine.flow.cycles import run_cycles
from workbench.engine.flow.easy import easy
from workbench.engine.model import Environment
from workbench.engine.params import Param
from workbench.engine.references import cite
from workbench.engine.rough import ROUGH_CRITERIA, CommonStatsAMP, RoughSelector
from workbench.engine.search import SearchSpec
from workbench.engine.selectors import CRITERIA, MultipleBest, SearchSelector, Selector, make_criterion
from workbench.engine.simulate import FlowRun, Recorder
from workbench.engine.strategy_params import (
    ATTRIBUTE,
    BATCHING,
    CSS_PARAMS,
    DYNAMIC,
    MAX_CYCLES,
    ORDER,
    OVERHEAD,
    PAST_COP,
    PICK,
    QUANTUM,
    REPLAN,
    RESOLUTION,
    SHAPE,
)

# Checks the parameters, then returns the run: a generator of snapshots (simulate.py).
Flow = Callable[[Environment, dict[str, Any], Recorder], FlowRun]


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    family: str
    description: str
    params: tuple[Param, ...]
    flow: Flow = field(repr=False)
    # Its runs record the search that placed each job, which "Why here?" replays; False: what it
    # says of a job is its schedule's (``explain.explain_job`` then reads it, not runs it again).
    explains: bool = True

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


AEP_CRITERIA = {
    "AMP": "start",
    "MinFinish": "finish",
    "MinCost": "cost",
    "MinRunTime": "runtime",
    "MinProcTime": "proc_time",
}


CATALOGUE: list[StrategyInfo] = []  # every strategy, in the order the lists show them


def name_key(name: str) -> str:
    """What identifies a strategy's name: case, spaces, '-' and '_' do not matter."""
    return re.sub(r"[\s_\-]+", "", name).lower()


def _add(info: StrategyInfo) -> StrategyInfo:
    CATALOGUE.append(info)
    return info


def selector_named(name: str, params: dict[str, Any]) -> Selector | None:
    """The selector of the catalogue's selector ``name`` (case, spaces, '-' and '_' do not matter)
    with ``params`` resolved; None when no selector has that name."""
    info = next((i for i in CATALOGUE if i.family == "selector" and name_key(i.name) == name_key(name)), None)
    return None if info is None else SELECTOR_BUILDERS[info.name](info.resolve(params))


def _selector_flow(build: Callable[[dict[str, Any]], Selector]) -> Flow:
    """Any selector as conservative backfilling, cycle by cycle."""

    def flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
        placer = backfill_placer(build(params), params["dynamic"], replan=params["replan"])
        return run_cycles(env, rec, placer, bt.AllJobs(), params["max_cycles"])

    return flow


SELECTOR_BUILDERS: dict[str, Callable[[dict[str, Any]], Selector]] = {}  # by strategy name


@dataclass(frozen=True)
class _Selector:
    """A square-window selector of the catalogue: its criterion (made from the parameters), the
    choice (exact: the largest sum of z; else Lite, the n cheapest), its own parameters besides
    ``resolution`` and ``quantum``, and the share of V / P it reserves (BFshort: 0.99)."""

    name: str
    description: str
    criterion: Callable[[dict[str, Any]], cr.Criterion]
    exact: bool
    params: tuple[Param, ...] = ()
    length_factor: float = 1.0

    def build(self, params: dict[str, Any]) -> Selector:
        """The selector for resolved ``params``: the square-window search, or AEP's rough-edged one."""
        pick = params.get("pick", "cheapest")
        if params.get("shape") == "rough":
            if params["quantum"] > 0:
                raise ParameterError("quantum", "applies to square windows; a rough edge has no common length")
            return RoughSelector(self.name, AEP_CRITERIA[self.name], params["resolution"], pick)
        if pick != "cheapest":
            raise ParameterError("pick", "first applies to rough-edged windows (shape=rough)")
        spec = SearchSpec(
            self.criterion(params), self.exact, self.length_factor, params["resolution"], params["quantum"]
        )
        return SearchSelector(self.name, spec)


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

    table = [
        _Selector(
            name="FirstFit",
            description="the earliest window, on its cheapest free nodes " + cite("002", "§4.2"),
            criterion=start_or_scan,
            exact=False,
            params=(ORDER,),
        ),
        _Selector(
            name="AMP",
            description="the earliest window the budget allows, without optimising anything else " + cite("000", "§5"),
            criterion=simple(cr.StartTime),
            exact=False,
            params=(SHAPE, PICK),
        ),
        _Selector(
            name="MinFinish",
            description="the window that ends first (a user's own preference) " + cite("000", "§6.1"),
            criterion=simple(cr.FinishTime),
            exact=True,
            params=(SHAPE,),
        ),
        _Selector(
            name="MinCost",
            description="the cheapest window (a user's own preference) " + cite("000", "§6.1"),
            criterion=simple(cr.Cost),
            exact=True,
            params=(SHAPE,),
        ),
        _Selector(
            name="MinRunTime",
            description="the window on the fastest nodes, so the shortest run " + cite("000", "§6.1"),
            criterion=simple(cr.RunTime),
            exact=True,
            params=(SHAPE,),
        ),
        _Selector(
            name="MinProcTime",
            description="the least processor time, the sum of the parts' own run times " + cite("000", "§5"),
            criterion=simple(cr.ProcTime),
            exact=True,
            params=(SHAPE,),
        ),
        _Selector(
            name="MaxQ",
            description="the nodes with the most of an attribute (e.g. quality q), exactly within budget "
            + cite("002", "§4.2"),
            criterion=attribute,
            exact=True,
            params=(ATTRIBUTE,),
        ),
        _Selector(
            name="MaxQ Lite",
            description="the most of an attribute among the cheapest nodes (fast) " + cite("002", "§4.2"),
            criterion=attribute,
            exact=False,
            params=(ATTRIBUTE,),
        ),
        _Selector(
            name="DEP",
            description="dependable: the most room around the window, so a late task does not hurt it "
            + cite("002", "§4.3"),
            criterion=simple(cr.Dependable),
            exact=True,
        ),
        _Selector(
            name="DEP Lite",
            description="dependable among the cheapest nodes (fast) " + cite("002", "§4.3"),
            criterion=simple(cr.Dependable),
            exact=False,
        ),
        _Selector(
            name="COORD",
            description="coordinated: the window that fits its gaps most snugly, leaving little idle time "
            + cite("002", "§4.3"),
            criterion=simple(cr.Coordinated),
            exact=True,
        ),
        _Selector(
            name="COORD Lite",
            description="coordinated among the cheapest nodes (fast) " + cite("002", "§4.3"),
            criterion=simple(cr.Coordinated),
            exact=False,
        ),
        _Selector(
            name="BFstart",
            description="backfilling: each job in queue order at its earliest start " + cite("001", "§4.1"),
            criterion=start_or_scan,
            exact=True,
            params=(ORDER,),
        ),
        _Selector(
            name="BFfinish",
            description="backfilling: each job in queue order at its earliest finish " + cite("001", "§4.1"),
            criterion=simple(cr.FinishTime),
            exact=True,
        ),
        _Selector(
            name="BFshort",
            description="BFfinish with every run 1 % shorter, a reference point " + cite("001", "§4.1"),
            criterion=simple(cr.FinishTime),
            exact=True,
            length_factor=0.99,
        ),
        _Selector(
            name="MinLSum",
            description="the window that leaves the least idle time beside it, L_Σ = Σ (L_left + L_right) "
            + cite("001", "§3"),
            criterion=simple(cr.GapSum),
            exact=True,
        ),
        _Selector(
            name="MinLMinSum",
            description="the window nearest its neighbours, L_minΣ = Σ min(L_left, L_right) → min (the preliminary "
            "experiment of " + cite("001", "§3") + ")",
            criterion=simple(cr.NearestGap),
            exact=True,
        ),
        _Selector(
            name="PAST",
            description="earliest finish, preferring windows that touch their neighbours (PAST rules) "
            + cite("001", "§4.1"),
            criterion=past,
            exact=True,
            params=PAST_COP,
        ),
        _Selector(
            name="CoP",
            description="earliest finish, preferring snug windows and slower nodes (CoP rules) "
            + cite("001", "§3.2, §4.1"),
            criterion=cop,
            exact=True,
            params=PAST_COP,
        ),
    ]
    for entry in table:
        _register_selector(entry.name, entry.description, (*entry.params, RESOLUTION, QUANTUM), entry.build)

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
    _add(StrategyInfo(name, "selector", description, full, _selector_flow(build)))
    SELECTOR_BUILDERS[name] = build


_define_selectors()


def css_spec(params: dict[str, Any]) -> CssSpec:
    by = params.get("alternatives_by", "own")
    finder = None if by == "own" else _alternatives_finder(by, params["resolution"])
    return CssSpec(params["vo_criterion"], params["max_alternatives"], params["resolution"], params["shape"], finder)


def _alternatives_finder(name: str, resolution: float) -> SearchSelector:
    """The selector whose search finds CSS's alternatives (``alternatives_by``), at CSS's resolution."""
    chosen = selector_named(name, {"resolution": resolution})
    if not isinstance(chosen, SearchSelector):
        raise ParameterError(
            "alternatives_by", f"expected own or a square-window selector (FirstFit, CoP, a plug-in's…), got {name!r}"
        )
    return chosen


def _css_flow(slices_param: bool) -> Flow:
    def flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
        slices = params["slices"] if slices_param else 1
        placer = slicer_placer(css_spec(params), slices)
        return run_cycles(env, rec, placer, bt.make_batch_former(params), params["max_cycles"])

    return flow


def _bsf_flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
    check_bsf_params(params["rule"], params["n_high"], params["high_fraction"], params["slices"], len(env.jobs))
    chosen = selector_named(params["selector"], {"resolution": params["resolution"]})
    assert chosen is not None  # the parameter's choices are the selectors' names
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
    selector_names = tuple(info.name for info in CATALOGUE if info.family == "selector")
    _add(
        StrategyInfo(
            "EASY",
            "flow",
            "EASY backfilling: start what fits now without delaying the first job in the queue " + cite("004", "§3"),
            (Param("fast_path", bool, True, "host-level fast path when all nodes are identical"),),
            _easy_flow,
            explains=False,
        )
    )
    _add(
        StrategyInfo(
            "CSS",
            "flow",
            "cyclic scheme: several windows per job by its own preference, then the best combination " + cite("000"),
            (*CSS_PARAMS, *BATCHING, MAX_CYCLES),
            _css_flow(False),
        )
    )
    _add(
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
    _add(
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
        _add(StrategyInfo(name, "grid", f"{text} {cite('004', where)}", params, grid_flow(mode)))

    from workbench.engine.grid.economic import MACHINE_FUNCTIONS, USER_FUNCTIONS, economic_flow

    _add(
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


# Strategies from outside the catalogue (plug-ins, docs/plugins.md): added and removed here, so that
# the lists, the registry and the parameters that name strategies (BSF's ``selector``) or criteria
# (MultipleBest's ``by``) all see them.
BUILT_IN = frozenset(info.name for info in CATALOGUE)


def add_selector(
    name: str,
    description: str,
    params: tuple[Param, ...],
    build: Callable[[dict[str, Any]], Selector],
    criterion: Callable[[], cr.Criterion] | None = None,
) -> StrategyInfo:
    """A selector strategy from outside, run like the built-in ones (with ``dynamic``, ``replan``
    and ``max_cycles``); with ``criterion`` it is also one of MultipleBest's ``by`` choices."""
    _register_selector(name, description, params, build)
    _widen("BSF", "selector", name)
    if criterion is not None:
        CRITERIA[name] = criterion
        _widen("MultipleBest", "by", name)
    return CATALOGUE[-1]


def add_flow(info: StrategyInfo) -> StrategyInfo:
    """A flow strategy from outside."""
    return _add(info)


def remove(name: str) -> None:
    """Take an added strategy out again (a plug-in loaded anew, or refused)."""
    if name in BUILT_IN:
        raise ParameterError("strategy", f"{name} is built in")
    CATALOGUE[:] = [info for info in CATALOGUE if info.name != name]
    SELECTOR_BUILDERS.pop(name, None)
    if CRITERIA.pop(name, None) is not None:
        _narrow("MultipleBest", "by", name)
    _narrow("BSF", "selector", name)


def _widen(strategy: str, param: str, value: str) -> None:
    _edit_choices(strategy, param, lambda choices: (*choices, value) if value not in choices else choices)


def _narrow(strategy: str, param: str, value: str) -> None:
    _edit_choices(strategy, param, lambda choices: tuple(c for c in choices if c != value))


def _edit_choices(strategy: str, param: str, edit: Callable[[tuple[str, ...]], tuple[str, ...]]) -> None:
    at = next(i for i, info in enumerate(CATALOGUE) if info.name == strategy)
    info = CATALOGUE[at]
    params = tuple(
        replace(p, choices=edit(p.choices)) if p.name == param and p.choices is not None else p for p in info.params
    )
    CATALOGUE[at] = replace(info, params=params)
