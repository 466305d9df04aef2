"""Strategies by name: look one up, check its parameters, run it (docs/design.md "Named strategies").

The catalogue itself (``strategies.CATALOGUE``) lists every strategy with its parameters
and paper; this module is how the rest of the project reaches it: ``get`` and
``strategies`` (case, spaces, '-' and '_' do not matter in a name), ``check_strategy`` for
environment files, ``simulator`` and ``run``, and ``selector`` for tools that place one job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.engine.errors import ParameterError, show
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.engine.selectors import Selector
from workbench.engine.simulate import Progress, Simulator, StopFn
from workbench.engine.strategies import CATALOGUE, SELECTOR_BUILDERS, StrategyInfo, css_spec, name_key

__all__ = ["StrategyInfo", "check_strategy", "css_spec", "get", "run", "selector", "simulator", "strategies"]


def get(name: str) -> StrategyInfo:
    """The strategy called ``name`` (case, spaces, '-' and '_' do not matter)."""
    key = name_key(name)
    info = next((info for info in CATALOGUE if name_key(info.name) == key), None)
    if info is None:
        raise ParameterError("strategy", f"unknown strategy {show(name)}; {_hint(name)}")
    return info


def _hint(name: str) -> str:
    """The nearest known name, or where a strategy that is nowhere may come from (a plug-in file)."""
    import difflib

    by_key = {name_key(info.name): info.name for info in CATALOGUE}
    near = difflib.get_close_matches(name_key(str(name)), list(by_key), n=1, cutoff=0.75)
    if near:
        return f"did you mean {by_key[near[0]]!r}? `workbench strategies` lists them"
    return (
        "`workbench strategies` lists them; a plug-in's strategy is known once its file is loaded "
        "(`workbench --plugin FILE ...`, or Strategy ▸ Load plug-in in the window)"
    )


def strategies() -> list[StrategyInfo]:
    """Every strategy, built-in ones first, then those plug-ins added (``strategies.add_selector``)."""
    return list(CATALOGUE)


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


def selector(name: str, params: Mapping[str, Any] | None = None) -> Selector:
    """The selector behind a registry entry, for flow strategies and tools that place one job."""
    info = get(name)
    if info.family != "selector":
        raise ParameterError("selector", f"{info.name} is a {info.family} strategy, not a selector")
    resolved = info.resolve(params)
    return SELECTOR_BUILDERS[info.name](resolved)
