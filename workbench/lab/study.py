"""Studies: the papers' experiments as named, registered sweeps (no Qt).

A study is like a strategy in the registry: a name, the set-up it runs on (a
generator preset with overrides), its factors (strategies, parameter values,
sizes), how many repetitions (seeds) by default, the measures one run records,
and the values and orderings the paper publishes, to be compared with. One run
is a pure function of (strategy, factor values, seed), so a sweep gives the same
numbers whatever runs it, in whatever order.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.engine import registry
from workbench.engine.errors import ParameterError
from workbench.engine.metrics import DEFINITIONS, definition

# A measured value is "within" the paper's when it deviates by at most this share of it.
TOLERANCE = 0.15


@dataclass(frozen=True)
class Factor:
    name: str
    values: tuple[Any, ...]
    help: str = ""
    extra: tuple[Any, ...] = ()  # values ``--set`` may choose that the default sweep leaves out
    label: str = ""  # the factor in words, for a figure's axis and titles (default: its name, spaced)
    unit: str = ""  # of its values, on a figure's axis ("" when they have none)
    words: Mapping[Any, str] = field(default_factory=dict)  # a value in words, where a number says little

    def text(self) -> str:
        """The factor in words, with its unit: "scheduling interval (time units)"."""
        label = self.label or self.name.replace("_", " ")
        return f"{label} ({self.unit})" if self.unit else label

    def says(self, value: Any) -> str:
        """``value`` of this factor as a figure's title says it: "jobs in the queue N_Q = 50", or its words."""
        if value in self.words:
            return self.words[value]
        return f"{self.label or self.name.replace('_', ' ')} = {value}{' ' + self.unit if self.unit else ''}"

    def parse(self, text: str) -> tuple[Any, ...]:
        """``--set name=a,b,c``: a subset of this factor's values (typed like them)."""
        out = []
        for item in filter(None, (p.strip() for p in text.split(","))):
            match = [v for v in (*self.values, *self.extra) if str(v) == item]
            if not match:
                kinds = ", ".join(str(v) for v in (*self.values, *self.extra))
                raise ParameterError("--set", f"{self.name}: {item!r} is not one of {kinds}")
            out.append(match[0])
        if not out:
            raise ParameterError("--set", f"{self.name}: give at least one value")
        return tuple(out)


@dataclass(frozen=True)
class Published:
    """A value the paper gives: ``measure`` of ``strategy`` where the factors are ``where``."""

    measure: str
    strategy: str
    value: float
    where: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    compare: bool = True  # False: shown beside ours but not judged (e.g. Java times on other hardware)


@dataclass(frozen=True)
class Ordering:
    """A claim of the paper: under ``measure``, ``order`` runs best first (``better`` is min or max)."""

    measure: str
    order: tuple[str, ...]
    better: str  # "min" or "max"
    where: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    strict: bool = True  # False: "at least as good" (ties hold), for claims like "best by its own criterion"


Lookup = Callable[..., float]  # mean(strategy, measure, **factors): the mean over the matching cells


@dataclass(frozen=True)
class Claim:
    """A stated result that is not an ordering of strategies at one setting: a ratio ("over 50 %
    better"), or a comparison across factor values ("bigger machines do better"). ``check`` reads
    the measured means through a lookup and returns (holds, the numbers it compared); None: not
    measured."""

    text: str
    source: str
    check: Callable[[Lookup], tuple[bool | None, str]]


@dataclass(frozen=True)
class RunSpec:
    """One run of a study: a strategy (its label), the factor values and the seed."""

    study: str
    strategy: str
    factors: tuple[tuple[str, Any], ...]
    seed: int

    @property
    def key(self) -> str:
        """A stable identity: the same run always has the same key (the database's primary key)."""
        return json.dumps([self.study, self.strategy, dict(self.factors), self.seed], sort_keys=True)

    def factor(self, name: str) -> Any:
        return dict(self.factors)[name]


@dataclass(frozen=True)
class Sweep:
    """One part of a study's plan: the cells where each factor named in ``at`` takes one of the
    listed values and none named in ``besides`` takes a listed one, for the strategies named
    (every one when None). The papers' figures vary one factor at a time: a study declares one
    sweep per figure, and its plan is every cell of the factors' product some sweep covers."""

    strategies: tuple[str, ...] | None = None
    at: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    besides: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)

    def covers(self, label: str, cell: Mapping[str, Any]) -> bool:
        if self.strategies is not None and label not in self.strategies:
            return False
        if any(cell[name] not in values for name, values in self.at.items()):
            return False
        return not any(cell[name] in values for name, values in self.besides.items())


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    source: str  # the paper and where in it
    setup: str  # the set-up the paper gives, and every choice it leaves open (shown in the report)
    strategies: tuple[tuple[str, str, Mapping[str, Any]], ...]  # (label, registry name, params)
    factors: tuple[Factor, ...]
    reps: int  # default repetitions
    measures: Mapping[str, str]  # name -> what it is
    run: Callable[[RunSpec], dict[str, float]]
    published: tuple[Published, ...] = ()
    orderings: tuple[Ordering, ...] = ()
    # (measure, x factor or "strategy"[, {factor: value} the figure is drawn at]) drawn in the report
    figures: tuple[tuple[Any, ...], ...] = ()
    # The parts of the factors' product that are run (none: all of it), for studies that vary one
    # factor at a time, as the papers' figures do.
    sweeps: tuple[Sweep, ...] = ()
    claims: tuple[Claim, ...] = ()
    # measure -> the name of the definition it follows in ``workbench.engine.metrics.DEFINITIONS``
    # (docs/metrics.md); a measure not named here is the study's own, as ``measures`` describes it
    # (a paper's definition, which the description states).
    definitions: Mapping[str, str] = field(default_factory=dict)
    # Called with the plan before any run: raises a WorkbenchError that says what is missing (a
    # trace not yet fetched), so a study does not fail every run one by one.
    needs: Callable[[Sequence[RunSpec]], None] | None = None
    # measure -> its unit, on the axis of every figure that draws it ("time units", "ms", "share");
    # ``checked`` refuses a study whose figures draw a measure without one
    units: Mapping[str, str] = field(default_factory=dict)

    def measure_definitions(self) -> dict[str, str]:
        """Every measure's definition on one line, as the study's database records it."""
        return {
            name: definition(self.definitions[name]).text()
            if name in self.definitions
            else f"this study's own: {description}"
            for name, description in self.measures.items()
        }

    def strategy(self, label: str) -> tuple[str, Mapping[str, Any]]:
        """The registry name and parameters of ``label``: one of the study's own, or any other
        strategy the registry knows (a plug-in's, say), with its defaults."""
        for name, registry_name, params in self.strategies:
            if name == label:
                return registry_name, params
        try:
            return registry.get(label).name, {}
        except ParameterError:
            pass
        known = ", ".join(self.labels)
        raise ParameterError(
            "--set", f"strategy: {label!r} is not one of {known}, nor a strategy `workbench strategies` lists"
        )

    @property
    def labels(self) -> list[str]:
        return [label for label, _, _ in self.strategies]

    def plan(self, reps: int | None = None, overrides: Mapping[str, str] | None = None) -> list[RunSpec]:
        """Every run of the sweep, in a fixed order: factors × strategies × seeds 1..reps."""
        reps = self.reps if reps is None else reps
        if reps < 1:
            raise ParameterError("--reps", f"must be at least 1, got {reps}")
        chosen = {f.name: f.values for f in self.factors}
        labels: Sequence[str] = self.labels
        for name, text in (overrides or {}).items():
            if name == "strategy":
                labels = [v.strip() for v in text.split(",") if v.strip()]
                for label in labels:
                    self.strategy(label)
                continue
            factor = next((f for f in self.factors if f.name == name), None)
            if factor is None:
                known = ", ".join(["strategy", *(f.name for f in self.factors)])
                raise ParameterError("--set", f"{self.name} has no factor {name!r}; its factors: {known}")
            chosen[name] = factor.parse(text)
        names = list(chosen)
        runs = []
        for values in itertools.product(*(chosen[n] for n in names)):
            cell = dict(zip(names, values, strict=True))
            for label in labels:
                # A strategy from outside the study (a plug-in) runs wherever one of the study's own does.
                own = [label] if label in self.labels else self.labels
                if self.sweeps and not any(sweep.covers(o, cell) for sweep in self.sweeps for o in own):
                    continue
                for seed in range(1, reps + 1):
                    runs.append(RunSpec(self.name, label, tuple(zip(names, values, strict=True)), seed))
        return runs


def checked(study: Study) -> Study:
    """``study``, once its labels and factor values are known to hold no comma (``--set strategy=a,b``
    and ``--set factor=a,b`` split on commas); ValueError otherwise."""
    names = [*study.labels, *(str(v) for f in study.factors for v in (*f.values, *f.extra))]
    if any("," in name for name in names):
        raise ValueError(f"study {study.name}: a strategy label or factor value holds a comma: {names}")
    factors = {f.name for f in study.factors}
    for sweep in study.sweeps:
        unknown = [n for n in (*sweep.at, *sweep.besides) if n not in factors]
        unknown += [label for label in sweep.strategies or () if label not in study.labels]
        if unknown:
            raise ValueError(f"study {study.name}: a sweep names what the study does not have: {unknown}")
    drawn = {spec[0] for spec in study.figures} | {spec[1] for spec in study.figures if spec[1] in study.measures}
    unitless = sorted(m for m in drawn if m not in study.units)
    if unitless:
        raise ValueError(f"study {study.name}: figures draw measures without a unit: {unitless}")
    known = {d.name for d in DEFINITIONS}
    wrong = [f"{m}={d}" for m, d in study.definitions.items() if m not in study.measures or d not in known]
    if wrong:
        raise ValueError(f"study {study.name}: definitions of unknown measures or unknown definitions: {wrong}")
    return study
