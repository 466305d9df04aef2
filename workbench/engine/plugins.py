"""Strategies from outside the engine: criteria and flow rules in plain Python files or installed
packages (docs/plugins.md). ``workbench.api`` is their public face; this module checks, registers,
runs and loads them.

A *criterion* is the papers' additive form (seed 002 §3.3): a window's value is the sum over its
slots of z_i, which the user's function gives for the candidate slots of one window start. It
becomes a selector strategy like the built-in ones (``strategies.add_selector``): static and
dynamic backfilling, BSF's selector, MultipleBest's ``by``, the lab, Why here?. A *flow rule*
orders the waiting jobs and says how many of them get a reservation (``flow.listing``).

Whatever a plug-in does wrong (fails to import, raises, returns the wrong shape, NaN) is a
``PluginError``: one line naming the plug-in, the strategy and the problem. Nothing it registered
stays behind, and the built-in strategies are untouched.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import importlib.metadata
import importlib.util
import math
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from workbench.engine import criteria as cr
from workbench.engine import registry
from workbench.engine import strategies as st
from workbench.engine.errors import ParameterError, WorkbenchError, one_line, show, text_problem
from workbench.engine.flow.listing import list_scheduling
from workbench.engine.model import Environment, Job
from workbench.engine.params import Param
from workbench.engine.search import SearchSpec
from workbench.engine.selectors import SearchSelector, Selector
from workbench.engine.simulate import FlowRun, Recorder
from workbench.engine.strategy_params import DYNAMIC, MAX_CYCLES, QUANTUM, REPLAN, RESOLUTION

ENTRY_POINT_GROUP = "workbench.strategies"
MAX_NAME = 64  # characters of a plug-in strategy's name
# Parameters every plug-in selector gets from the engine; a plug-in may not declare its own of these names.
ENGINE_PARAMS = (*(p.name for p in (RESOLUTION, QUANTUM, DYNAMIC, REPLAN, MAX_CYCLES)), "reservations")


class PluginError(WorkbenchError):
    """A plug-in was refused: which one, which strategy (if known) and what is wrong."""

    def __init__(self, plugin: str, strategy: str | None, problem: str) -> None:
        self.plugin, self.strategy, self.problem = plugin, strategy, one_line(problem)
        where = f"plug-in {plugin}" + (f", strategy {strategy!r}" if strategy else "")
        super().__init__(f"{where}: {self.problem}")


@dataclass(frozen=True)
class _Source:
    label: str  # what messages call the plug-in: its file name or entry point
    key: str  # what identifies it for reloading: its resolved path or entry point


_LOADING: contextvars.ContextVar[_Source | None] = contextvars.ContextVar("plugin", default=None)
_ADDED: dict[str, list[str]] = {}  # plug-in key -> the strategies it added, in order
_FILES: list[str] = []  # plug-in files loaded, in order (for worker processes)


def _source_of(func: Callable[..., Any]) -> _Source:
    """The plug-in being loaded, or (a decorator run from a user's own script) the function's module."""
    source = _LOADING.get()
    if source is not None:
        return source
    module = getattr(func, "__module__", None) or "__main__"
    return _Source(module, f"module:{module}")


# ---------------------------------------------------------------------------------------------
# Criteria


@dataclass
class Candidates:
    """The candidate slots of one window start, as a criterion plug-in sees them (``c``).

    One entry per candidate slot: ``start`` and ``end`` (the free slot; a slot open to an
    unbounded horizon ends with the window, t + length, as L_right = 0 in the built-in criteria),
    ``node`` (its node's
    index in the environment), ``performance``, ``price``, ``attributes`` (attribute name ->
    array). Scalars: ``t`` (the window start), ``length`` (the window length at this level),
    ``volume`` (the job's volume per part) and ``params`` (the strategy's parameters).

    With ``per_slot=True`` (the default) every array is 2-D (window starts × slots), ``t`` and ``length``
    are columns, and ``member`` says which cells are candidate slots (the others hold
    start = end = 0 and are ignored).
    """

    start: np.ndarray
    end: np.ndarray
    node: np.ndarray
    performance: np.ndarray
    price: np.ndarray
    attributes: Mapping[str, np.ndarray]
    t: Any
    length: Any
    volume: float
    params: Mapping[str, Any] = field(default_factory=dict)
    member: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.start.shape[-1])

    @classmethod
    def of(
        cls,
        slots: Sequence[np.ndarray],
        attributes: Mapping[str, np.ndarray],
        t: Any,
        length: Any,
        volume: float,
        params: Mapping[str, Any],
        member: np.ndarray | None = None,
    ) -> Candidates:
        """From ``slots``: start, end, node, performance and price, in that order."""
        start, end, node, performance, price = slots
        return cls(start, end, node, performance, price, attributes, t, length, volume, params, member)


@dataclass(frozen=True)
class CriterionPlugin:
    """A criterion plug-in as declared by ``workbench.api.criterion``."""

    name: str
    func: Callable[[Candidates], Any]
    direction: str  # "max" or "min"
    choice: str  # "exact" or "lite"
    bound: Callable[..., Any] | None
    params: tuple[Param, ...]
    description: str
    per_slot: bool  # called with 2-D fields, many window starts at once
    source: _Source

    def fail(self, problem: str) -> PluginError:
        return PluginError(self.source.label, self.name, problem)


class PluginCriterion(cr.Criterion):
    """A plug-in's function as a per-slot criterion z (``direction='min'``: z is minus its value)."""

    def __init__(self, plugin: CriterionPlugin, params: Mapping[str, Any]) -> None:
        self.plugin, self.params = plugin, dict(params)
        self.name = plugin.name
        self.sign = 1.0 if plugin.direction == "max" else -1.0
        most = "largest" if plugin.direction == "max" else "smallest"
        self.rule = f"the {most} sum of {plugin.name}'s values (plug-in {plugin.source.label})"
        # With a bound (valid for every window starting at t or later) the search may stop early.
        self.monotone_in_t = plugin.bound is not None
        self.per_slot = plugin.per_slot

    def z(self, ctx: cr.SlotContext) -> np.ndarray:
        shape = ctx.shape
        member = ctx.member
        # (The search of members scores tens of thousands of small sets a run: no call here is spared.)
        arrays = [
            a if a.shape == shape else np.broadcast_to(a, shape)
            for a in (ctx.sstart, ctx.send, ctx.node, ctx.perf, ctx.price)
        ]
        # An open-ended slot (unbounded horizon) leaves no gap behind the window (L_right = 0).
        open_ended = np.isinf(arrays[1])
        if open_ended.any():
            arrays[1] = np.where(open_ended, (ctx.t + ctx.T)[:, None], arrays[1])
        attrs = {key: np.broadcast_to(value, shape) for key, value in ctx.attributes.items()}
        if self.plugin.per_slot:
            c = Candidates.of(arrays, attrs, ctx.t[:, None], ctx.T[:, None], ctx.volume, self.params, member)
            values = self._checked(c, shape)
            if member is not None:
                values = np.where(member, values, 0.0)
            return values if self.sign > 0 else -values
        out = np.zeros(shape)
        for i in range(shape[0]):
            cols = slice(None) if member is None else np.flatnonzero(member[i])
            row = [a[i, cols] for a in arrays]
            own = {k: v[i, cols] for k, v in attrs.items()}
            c = Candidates.of(row, own, float(ctx.t[i]), float(ctx.T[i]), ctx.volume, self.params)
            out[i, cols] = self._checked(c, (row[0].size,))
        return self.sign * out

    def _checked(self, c: Candidates, shape: tuple[int, ...]) -> np.ndarray:
        values = _call(self.plugin, self.plugin.func, c)
        return _finite_array(self.plugin, values, shape, "slot", c)

    def slot_bound(self, t: np.ndarray, T: np.ndarray, P: np.ndarray, ctx_env: cr.BoundEnv) -> np.ndarray:
        if self.plugin.bound is None:
            return np.full(t.shape, np.inf)
        values = _call(self.plugin, self.plugin.bound, t, T, P, self.params)
        bound = _number_array(self.plugin, values, t.shape, "bound")
        if np.isnan(bound).any():
            raise self.plugin.fail("its bound returned NaN")
        return self.sign * bound


def _call(plugin: CriterionPlugin | FlowPlugin, func: Callable[..., Any], *args: Any) -> Any:
    try:
        return func(*args)
    except WorkbenchError:
        raise
    except Exception as exc:
        raise plugin.fail(f"raised {_where(exc)}") from exc


def _where(exc: BaseException) -> str:
    """'ZeroDivisionError: division by zero (spare.py line 7)': the error and the plug-in's line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "workbench" not in Path(f.filename).parts[-3:-1]]
    at = f" ({Path(frames[-1].filename).name} line {frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{at}"


def _number_array(plugin: CriterionPlugin, values: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise plugin.fail(f"its {what} values are not numbers: {show(values)}") from None
    if array.shape != shape:
        raise plugin.fail(f"returned shape {array.shape}; expected {shape}, one value per {what}")
    return array


def _finite_array(
    plugin: CriterionPlugin, values: Any, shape: tuple[int, ...], what: str, c: Candidates, probe: bool = False
) -> np.ndarray:
    array = _number_array(plugin, values, shape, what)
    bad = ~np.isfinite(array)
    if c.member is not None:
        bad &= c.member
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        where = "a made-up slot (the check when it loads)" if probe else f"the slot on node index {int(c.node[at])}"
        raise plugin.fail(f"returned {array[at]} for {where}; every value must be finite")
    return array


def criterion(
    name: str,
    direction: str = "max",
    *,
    choice: str = "exact",
    bound: Callable[..., Any] | None = None,
    params: Sequence[Param] = (),
    description: str = "",
    per_slot: bool = True,
    vectorized: bool | None = None,
) -> Callable[[Callable[[Candidates], Any]], Callable[[Candidates], Any]]:
    """Make the decorated function a selector strategy called ``name`` (``workbench.api.criterion``).
    ``per_slot`` (the default): a slot's value depends on that slot alone, so the engine may score
    many window starts in one call, with 2-D fields; False: one call per start, with 1-D fields and
    scalar ``t`` and ``length``, for a function that reduces over the slots. ``vectorized`` is its
    older name."""

    def decorate(func: Callable[[Candidates], Any]) -> Callable[[Candidates], Any]:
        source = _source_of(func)
        batched = per_slot if vectorized is None else vectorized
        plugin = CriterionPlugin(name, func, direction, choice, bound, tuple(params), description, batched, source)
        _check_declaration(plugin, {"direction": ("max", "min"), "choice": ("exact", "lite")})
        _probe(plugin)
        defaults = {p.name: p.default for p in plugin.params}
        most = "largest" if direction == "max" else "smallest"
        text = description or f"the window whose slots' values sum to the {most} ({choice} choice)"
        _register(
            source,
            name,
            lambda: st.add_selector(
                name,
                f"{text} [plug-in {source.label}]",
                (*plugin.params, RESOLUTION, QUANTUM),
                _selector_builder(plugin),
                criterion=lambda: PluginCriterion(plugin, defaults),
            ),
        )
        return func

    return decorate


def _selector_builder(plugin: CriterionPlugin) -> Callable[[dict[str, Any]], Selector]:
    def build(params: dict[str, Any]) -> Selector:
        own = {p.name: params[p.name] for p in plugin.params}
        spec = SearchSpec(
            PluginCriterion(plugin, own), plugin.choice == "exact", 1.0, params["resolution"], params["quantum"]
        )
        return SearchSelector(plugin.name, spec)

    return build


def _probe(plugin: CriterionPlugin) -> None:
    """Call a new criterion once on three made-up slots, so a broken one is refused when loaded."""
    start, end = np.array([0.0, 0.0, 5.0]), np.array([100.0, 50.0, 80.0])
    arrays = (start, end, np.arange(3), np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]))
    attrs = _Zeros(3)
    defaults = {p.name: p.default for p in plugin.params}
    if plugin.per_slot:
        # Two window starts over the three slots, then each (start, slot) alone: a per-slot function
        # gives each slot the same value both ways; one that reduces over its arrays does not.
        rows = [np.vstack([a, a]) for a in arrays]
        member = np.ones((2, 3), dtype=bool)
        t, length = np.array([[10.0], [12.0]]), np.array([[20.0], [15.0]])
        c = Candidates.of(rows, _Zeros(3, 2, 2), t, length, 60.0, defaults, member)
        try:
            together = _finite_array(plugin, _call(plugin, plugin.func, c), (2, 3), "slot", c, probe=True)
        except PluginError as exc:
            raise plugin.fail(
                f"{exc.problem} (per slot, the default, its fields are 2-D and c.t a column: "
                "write it elementwise or declare per_slot=False)"
            ) from None
        cells = [a.reshape(6, 1) for a in rows]
        alone = Candidates.of(
            cells, _Zeros(1, 2, 6), np.repeat(t, 3, axis=0), np.repeat(length, 3, axis=0), 60.0, defaults
        )
        apart = _finite_array(plugin, _call(plugin, plugin.func, alone), (6, 1), "slot", alone, probe=True)
        if not np.allclose(together.reshape(6), apart.reshape(6), rtol=1e-12, atol=0.0):
            raise plugin.fail(
                "a slot's value depends on the other slots it is scored with (it reduces over its arrays); "
                "declare per_slot=False to be called once per window start"
            )
    else:
        c = Candidates.of(arrays, attrs, 10.0, 20.0, 60.0, defaults)
        _finite_array(plugin, _call(plugin, plugin.func, c), (3,), "slot", c, probe=True)


class _Zeros(Mapping[str, np.ndarray]):
    """The probe's attributes: zeros under any name."""

    def __init__(self, size: int, ndim: int = 1, rows: int = 1) -> None:
        self.shape = (size,) if ndim == 1 else (rows, size)

    def __getitem__(self, key: str) -> np.ndarray:
        return np.zeros(self.shape)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


# ---------------------------------------------------------------------------------------------
# Flow rules


@dataclass(frozen=True)
class FlowPlugin:
    """A flow-rule plug-in as declared by ``workbench.api.flow_rule``."""

    name: str
    key: Callable[..., Any]
    reservations: int
    params: tuple[Param, ...]
    description: str
    source: _Source

    def fail(self, problem: str) -> PluginError:
        return PluginError(self.source.label, self.name, problem)


def flow_rule(
    name: str, *, reservations: int = 1, params: Sequence[Param] = (), description: str = ""
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make the decorated key function a flow strategy called ``name`` (``workbench.api.flow_rule``)."""

    def decorate(key: Callable[..., Any]) -> Callable[..., Any]:
        source = _source_of(key)
        plugin = FlowPlugin(name, key, reservations, tuple(params), description, source)
        _check_declaration(plugin, {})
        if not isinstance(reservations, int) or reservations < 0:
            raise plugin.fail(f"reservations must be a whole number ≥ 0, got {show(reservations)}")
        count = Param(
            "reservations",
            int,
            reservations,
            "waiting jobs, in the rule's order, that get a reservation when they cannot start now "
            "(0: none, 1: EASY's rule)",
            minimum=0,
            maximum=1_000_000,
        )
        _probe_flow(plugin)
        text = description or f"jobs in the order of {key.__name__}, {reservations} reservation(s)"
        info = st.StrategyInfo(name, "flow", f"{text} [plug-in {source.label}]", (*plugin.params, count), _flow(plugin))
        _register(source, name, lambda: st.add_flow(info))
        return key

    return decorate


def _flow(plugin: FlowPlugin) -> st.Flow:
    def flow(env: Environment, params: dict[str, Any], rec: Recorder) -> FlowRun:
        own = {p.name: params[p.name] for p in plugin.params}

        def order(jobs: Sequence[Job], now: float) -> list[int]:
            key = functools.partial(plugin.key, **own)
            keys = [_sort_key(plugin, _call(plugin, key, job, now), job) for job in jobs]
            return sorted(range(len(jobs)), key=lambda i: (keys[i], i))

        return list_scheduling(env, rec, order, params["reservations"])

    return flow


def _probe_flow(plugin: FlowPlugin) -> None:
    """Call a new flow rule's key once on a made-up job with the default parameters, so that a key
    of the wrong kind (text, NaN, a list) is refused when the file is loaded, in the GUI as in the
    CLI, not at its first run."""
    job = Job(id="sample", name="a sample job", node_count=2, min_performance=1.0, volume=10.0, arrival=0.0)
    own = {p.name: p.default for p in plugin.params}
    _sort_key(plugin, _call(plugin, functools.partial(plugin.key, **own), job, 5.0), job)


def _sort_key(plugin: FlowPlugin, value: Any, job: Job) -> tuple[float, ...]:
    """A key as a tuple of finite numbers (a number, or a tuple of numbers)."""
    items = value if isinstance(value, tuple) else (value,)
    try:
        out = tuple(float(v) for v in items)
    except (TypeError, ValueError):
        raise plugin.fail(f"key of job {job.id} is {show(value)}; expected a number or a tuple of numbers") from None
    if not all(math.isfinite(v) for v in out):
        raise plugin.fail(f"key of job {job.id} is {show(value)}; keys must be finite")
    return out


# ---------------------------------------------------------------------------------------------
# Registration and loading


def _check_declaration(plugin: CriterionPlugin | FlowPlugin, choices: Mapping[str, tuple[str, ...]]) -> None:
    problem = text_problem(plugin.name, MAX_NAME) if isinstance(plugin.name, str) else "a name must be text"
    if problem is not None or not str(plugin.name).strip():
        raise plugin.fail(f"bad strategy name: {problem or 'empty'}")
    for attr, allowed in choices.items():
        if getattr(plugin, attr) not in allowed:
            raise plugin.fail(f"{attr} must be one of {', '.join(allowed)}, got {show(getattr(plugin, attr))}")
    for p in plugin.params:
        if not isinstance(p, Param):
            raise plugin.fail(f"params must be workbench.api.Param, got {show(p)}")
        if p.name in ENGINE_PARAMS:
            raise plugin.fail(f"parameter {p.name!r} is the engine's own; choose another name")
        try:
            p.coerce(p.default)
        except ParameterError as exc:
            raise plugin.fail(f"the default of parameter {p.name!r} is not valid: {exc.message}") from None
    callables = [plugin.func if isinstance(plugin, CriterionPlugin) else plugin.key]
    if isinstance(plugin, CriterionPlugin) and plugin.bound is not None:
        callables.append(plugin.bound)
    if not all(callable(f) for f in callables):
        raise plugin.fail("the decorated object and the bound must be functions")


def _register(source: _Source, name: str, add: Callable[[], Any]) -> None:
    try:
        taken = registry.get(name)
    except ParameterError:
        taken = None
    if taken is not None:
        if taken.name in _ADDED.get(source.key, []):
            raise PluginError(source.label, name, f"the name is declared twice in this file ({taken.name})")
        owner = "a built-in strategy" if taken.name in st.BUILT_IN else "a strategy another plug-in loaded"
        raise PluginError(source.label, name, f"the name is taken by {owner} ({taken.name})")
    add()
    _ADDED.setdefault(source.key, []).append(name)


def forget(key: str) -> None:
    """Take out every strategy the plug-in ``key`` (a resolved path or entry point) added."""
    for name in _ADDED.pop(key, []):
        st.remove(name)
    if key in _FILES:
        _FILES.remove(key)


def added() -> dict[str, list[str]]:
    """Plug-in -> the strategies it added (what `workbench strategies` and the GUI show)."""
    return {key: list(names) for key, names in _ADDED.items()}


def loaded_files() -> list[str]:
    return list(_FILES)


def load_file(path: str | Path) -> list[str]:
    """Load the plug-in file ``path`` (again: its strategies are replaced); the strategies it adds.

    ``PluginError`` when it cannot be read or imported, or defines nothing; then nothing it
    defined stays registered."""
    file = Path(path).expanduser()
    label = file.name or str(path)
    if not file.is_file():
        raise PluginError(label, None, f"no such file: {file}")
    key = str(file.resolve())
    forget(key)
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    stem = re.sub(r"\W", "_", file.stem)
    module_name = f"workbench_plugin_{stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise PluginError(label, None, "not a Python file")
    module = importlib.util.module_from_spec(spec)
    names = _run_loading(_Source(label, key), lambda: _exec(spec, module, module_name))
    _FILES.append(key)
    return names


def _exec(spec: Any, module: Any, name: str) -> None:
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise


def _run_loading(source: _Source, run: Callable[[], None]) -> list[str]:
    token = _LOADING.set(source)
    try:
        run()
    except PluginError:
        forget(source.key)
        raise
    except SyntaxError as exc:
        forget(source.key)
        problem = f"cannot be imported: SyntaxError: {exc.msg} (line {exc.lineno})"
        raise PluginError(source.label, None, problem) from exc
    except Exception as exc:
        forget(source.key)
        raise PluginError(source.label, None, f"cannot be imported: {_where(exc)}") from exc
    finally:
        _LOADING.reset(token)
    names = _ADDED.get(source.key, [])
    if not names:
        problem = "defines no strategy (decorate a function with workbench.api.criterion or flow_rule)"
        raise PluginError(source.label, None, problem)
    return list(names)


def load_entry_points(group: str = ENTRY_POINT_GROUP) -> list[PluginError]:
    """Load every installed package's plug-ins (entry point group ``workbench.strategies``); the
    refusals, each also leaving nothing behind."""
    errors = []
    for ep in importlib.metadata.entry_points(group=group):
        source = _Source(f"{ep.name} ({ep.value})", f"entry:{ep.value}")
        forget(source.key)
        try:
            _run_loading(source, ep.load)  # importing the module runs its decorators
        except PluginError as exc:
            errors.append(exc)
    return errors


def load_files(paths: Sequence[str]) -> list[PluginError]:
    """Load each file; the refusals (for worker processes and start-up, which must not stop)."""
    errors = []
    for path in paths:
        try:
            load_file(path)
        except PluginError as exc:
            errors.append(exc)
    return errors
