"""Why here? The candidate windows a strategy compared for one job, and why the chosen one won.

``explain_job`` runs the strategy again with the job *watched*: the flow hands the
recorder the slots the job's search saw when it was placed (or last tried), and,
for CSS, the job's alternatives and the combination's choice. On those slots
``candidates`` enumerates the normative search of docs/design.md ("Window search"):
at every performance level P and every eligible slot start t, the subset the
strategy's choice (lite or exact) would take, with its criterion value. The best
of them is the window the strategy chose (a test checks this against the engine
on random environments), so the list shows what it beat and by how much. For
CoP and PAST the value is split into the rule terms of seed 001 §4.1.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.engine import criteria as cr
from workbench.engine import registry
from workbench.engine.diagnose import explain_failure
from workbench.engine.errors import WorkbenchError
from workbench.engine.model import EPS, Environment, Job, Window
from workbench.engine.numbers import number, signed
from workbench.engine.schedule import Schedule
from workbench.engine.search import SearchSpec, budget_units, cost_units, knapsack_count
from workbench.engine.search.choice import n_best, with_level_item
from workbench.engine.selectors import BestOfAlternatives, SearchSelector
from workbench.engine.simulate import Watch, WatchSettled
from workbench.engine.slots import SlotTable, window_lengths
from workbench.engine.waits import Wait, explain_wait

MAX_STARTS = 3000  # candidate starts compared per level (the earliest ones) before the list is cut
SHOWN = 8


@dataclass(frozen=True)
class Candidate:
    """One window the strategy compared: where, how long, on which nodes, its cost and value."""

    start: float
    length: float
    nodes: tuple[str, ...]
    cost: float
    value: float
    terms: tuple[tuple[str, float], ...] = ()  # CoP/PAST: the value split into its rules

    @property
    def end(self) -> float:
        return self.start + self.length

    def same_window(self, window: Window) -> bool:
        return (
            abs(self.start - window.start) <= EPS
            and abs(self.length - window.length) <= EPS
            and set(self.nodes) == set(window.nodes)
        )


@dataclass(frozen=True)
class Explanation:
    job: str
    strategy: str
    rule: str  # what the strategy maximises, in words
    chosen: Window | None
    candidates: tuple[Candidate, ...]  # the best few, best first (the chosen one among them)
    compared: int  # how many candidate windows were compared in all
    summary: str  # why the chosen one won, or why the job failed
    over_budget: tuple[Candidate, ...] = ()  # failed jobs: the cheapest windows the budget ruled out
    notes: tuple[str, ...] = field(default_factory=tuple)


RULES = {
    "start": "the earliest start",
    "finish": "the earliest finish",
    "runtime": "the shortest runtime",
    "cost": "the lowest cost",
    "proc_time": "the least processor time (the sum of the parts' own run times V / p_i)",
    "attribute": "the largest total of the node attribute",
    "dep": "the largest min(L_left, L_right) over its slots: room on both sides",
    "coord": "the smallest max(L_left, L_right) over its slots: snug windows",
    "past": "the PAST rules: early finish, slower nodes, windows flush with their neighbours",
    "cop": "the CoP rules: early finish, slower nodes, snug windows, no awkward leftovers",
}


def rule_of(spec: SearchSpec) -> str:
    base = RULES.get(spec.criterion.name, getattr(spec.criterion, "rule", spec.criterion.name))
    choice = "exact subset choice within the budget" if spec.exact else "the cheapest n slots at each start"
    return f"{base}; {choice}"


def candidates(
    table: SlotTable, job: Job, spec: SearchSpec, earliest: float, budget: bool = True
) -> tuple[list[Candidate], int, bool]:
    """Every candidate of the normative search (the best subset at each level and start).

    Returns the candidates best first (value, then earlier start, shorter, cheaper),
    how many there were, and whether the starts were cut at ``MAX_STARTS`` per level.
    With ``budget`` False, the job's budget is ignored (what a failed job could not afford).
    """
    perf, price = table.perf, table.price
    levels = np.unique(perf[perf >= job.min_performance - EPS])[::-1]
    bu = budget_units(job.budget, spec.resolution) if budget else None
    n = job.node_count
    out: list[Candidate] = []
    cut = False
    for P in levels:
        T = float(window_lengths(job.volume, P, spec.length_factor, spec.quantum))
        node_perf = perf[table.node]
        begin = np.maximum(table.start, earliest)
        elig = np.flatnonzero((node_perf >= P - EPS) & (table.end - begin >= T - EPS))
        if elig.size < n:
            continue
        starts = np.unique(begin[elig])
        if starts.size > MAX_STARTS:
            starts, cut = starts[:MAX_STARTS], True
        s0, s1 = table.start[elig], table.end[elig]
        cover = (s0[None, :] <= starts[:, None] + EPS) & (s1[None, :] >= starts[:, None] + T - EPS)
        level = np.abs(node_perf[elig] - P) <= EPS
        rows = np.flatnonzero((cover.sum(axis=1) >= n) & (cover & level[None, :]).any(axis=1))
        pos_all = table.node[elig]
        units_all = cost_units(price[pos_all], T, spec.resolution)
        by_price = np.lexsort((pos_all, price[pos_all]))
        for r in rows:
            t = float(starts[r])
            members = np.flatnonzero(cover[r])
            z = _z(table, spec.criterion, job, t, T, elig[members])
            if spec.exact and bu is None:
                # No budget: the n best (ties: fewer units, lower position), one of level P, as the
                # search takes them; a knapsack over a trace's cost units would need gigabytes.
                zm, units, pos = z[None, :], units_all[members][None, :], pos_all[members]
                top = n_best(zm, units, pos, n)
                chosen = members[with_level_item(top, zm, units, pos, level[members][None, :])[0]]
            elif spec.exact:
                assert bu is not None
                pick = knapsack_count(z, units_all[members], n, bu, pos_all[members], level[members], spec.resolution)
                if pick is None:
                    continue
                chosen = members[pick]
            else:
                ordered = by_price[np.isin(by_price, members)]
                chosen = ordered[:n].copy()
                if not level[chosen].any():
                    chosen[-1] = ordered[level[ordered]][0]  # the dearest gives way to the cheapest of level P
                if bu is not None and units_all[chosen].sum() > bu:
                    continue
            slots = elig[chosen]
            zc = _z(table, spec.criterion, job, t, T, slots)
            out.append(
                Candidate(
                    start=t,
                    length=float(T),
                    nodes=tuple(table.node_ids[int(p)] for p in table.node[slots]),
                    cost=float(T * price[table.node[slots]].sum()),
                    value=float(zc.sum()),
                    terms=_terms(table, spec.criterion, t, float(T), slots),
                )
            )
    out.sort(key=lambda c: (-round(c.value, 9), c.start, c.length, c.cost))
    return out, len(out), cut


def _context(table: SlotTable, job: Job, t: float, T: float, slots: np.ndarray) -> cr.SlotContext:
    pos = table.node[slots]
    return cr.SlotContext(
        t=np.array([t]),
        T=np.array([T]),
        sstart=table.start[slots][None, :],
        send=table.end[slots][None, :],
        perf=table.perf[pos][None, :],
        price=table.price[pos][None, :],
        attributes={k: v[pos][None, :] for k, v in table.attrs.items()},
        volume=job.volume,
        node=pos[None, :],
    )


def _z(table: SlotTable, criterion: cr.Criterion, job: Job, t: float, T: float, slots: np.ndarray) -> np.ndarray:
    z = criterion.z(_context(table, job, t, T, slots))
    return np.broadcast_to(z, (1, slots.size))[0]


def _terms(table: SlotTable, criterion: cr.Criterion, t: float, T: float, slots: np.ndarray) -> tuple:
    """The rule terms of PAST and CoP (their sum is the value), summed over the window's slots."""
    if not isinstance(criterion, cr.Past | cr.CoordinatedPlacement):
        return ()
    k = criterion.k
    n = slots.size
    left = t - table.start[slots]
    right = table.end[slots] - (t + T)
    right = np.where(np.isinf(right), 0.0, right)
    perf = table.perf[table.node[slots]]
    terms = [("finish −(t+T) per slot", -(t + T) * n), ("slower nodes −α1·p", -k["alpha1"] * float(perf.sum()))]
    if isinstance(criterion, cr.Past):
        flush = int((np.abs(left) <= 1e-9).sum() + (np.abs(right) <= 1e-9).sum())
        terms += [
            ("flush sides +δ1", k["delta1"] * flush),
            ("gap after −α2·L_right", -k["alpha2"] * float(right.sum())),
        ]
    else:
        snug = int((right < k["eps1"] * T).sum() + (left < k["eps1"] * T).sum())
        awkward = int(
            ((right > k["eps2"] * T) & (right < k["eps3"] * T)).sum()
            + ((left > k["eps2"] * T) & (left < k["eps3"] * T)).sum()
        )
        roomy = int((right > T).sum() + (left > T).sum())
        terms += [
            (f"snug sides ({snug}) +δ1", k["delta1"] * snug),
            (f"awkward leftovers ({awkward}) −δ1", -k["delta1"] * awkward),
            (f"roomy sides ({roomy}) +δ2", k["delta2"] * roomy),
        ]
    return tuple((name, float(v)) for name, v in terms)


def explain_choice(
    strategy: str,
    table: SlotTable,
    job: Job,
    spec: SearchSpec,
    earliest: float,
    chosen: Window | None,
    show: Callable[[float], str] = number,
) -> Explanation:
    """The explanation of one search on ``table`` (the slots the strategy saw)."""
    found, compared, cut = candidates(table, job, spec, earliest)
    notes = (f"only the first {MAX_STARTS} starts of each level were compared",) if cut else ()
    rule = rule_of(spec)
    if chosen is None:
        reason = explain_failure(table, job, earliest)
        dear: list[Candidate] = []
        if math.isfinite(job.budget):
            # The cheapest windows there are (exact choice by cost), which the budget ruled out;
            # their value under the strategy's rule is not what made them lose, so it is left blank.
            cheapest = SearchSpec(cr.Cost(), True, spec.length_factor, spec.resolution)
            every, _, _ = candidates(table, job, cheapest, earliest, budget=False)
            dear = [dataclasses.replace(c, value=math.nan) for c in sorted(every, key=lambda c: (c.cost, c.start))]
            dear = dear[:SHOWN]
        return Explanation(job.id, strategy, rule, None, tuple(found[:SHOWN]), compared, reason, tuple(dear), notes)
    shown = found[:SHOWN]
    mine = next((c for c in found if c.same_window(chosen)), None)
    if mine is not None and mine not in shown:
        shown = [*shown[: SHOWN - 1], mine]
    why = _why(mine, found, rule, show)
    return Explanation(job.id, strategy, rule, chosen, tuple(shown), compared, why, (), notes)


def _why(mine: Candidate | None, found: list[Candidate], rule: str, show: Callable[[float], str] = number) -> str:
    if mine is None:
        return "The chosen window is not among the candidates of this search (the strategy chose it another way)."
    others = [c for c in found if c is not mine]
    if not others:
        return f"It was the only feasible window: no other start or level had {len(mine.nodes)} nodes free long enough."
    runner = others[0]
    versus = (
        f"the next best starts at {show(runner.start)} ({_later(runner.start - mine.start, show)}), "
        f"ends at {show(runner.end)} ({_later(runner.end - mine.end, show)}) and costs {number(runner.cost)} "
        f"({_signed(runner.cost - mine.cost)})"
    )
    if mine.value > runner.value + 1e-9:
        return (
            f"Best of {len(found)} candidates by {rule.split(';')[0]}: value {number(mine.value)} (the sum "
            f"of its slots' scores by that rule; larger is better), {number(mine.value - runner.value)} better "
            f"than the next best; {versus}."
        )
    return (
        f"Tied with the next best at value {number(mine.value)} ({len(found)} candidates); ties go to the earlier "
        f"start, then the shorter and cheaper window, then the lower node positions; {versus}."
    )


def _signed(x: float) -> str:
    return signed(x)


def _later(dt: float, show: Callable[[float], str]) -> str:
    """A difference of times as ``show`` writes it, with its sign: +1.5 h, −20 s, same."""
    if abs(dt) <= 1e-9:
        return "same"
    return ("+" if dt > 0 else "−") + show(abs(dt))


def explain_job(
    env: Environment,
    strategy: str,
    params: Mapping[str, Any] | None,
    job_id: str,
    should_stop: Any = None,
    show: Callable[[float], str] = number,
    schedule: Schedule | None = None,
) -> Explanation:
    """Run ``strategy`` on ``env`` with ``job_id`` watched, and explain where it went (``show``
    writes the summary's times).

    The run stops once the job can never move again (``WatchSettled``): nothing after that changes
    the answer. A strategy that keeps no per-job candidates (``StrategyInfo.explains`` False)
    is not run at all when its ``schedule`` on ``env`` is given (made by it): its answer is read from it.
    """
    job = env.job(job_id)
    info = registry.get(strategy)
    if schedule is None or info.explains or registry.name_key(schedule.strategy) != registry.name_key(info.name):
        sim = registry.simulator(env, strategy, params, should_stop, history=False)
        watch = Watch(job_id)
        sim.recorder.watch = watch
        try:
            schedule = sim.run()
            chosen, reason = schedule.window_of(job_id), schedule.reasons.get(job_id, "")
        except WatchSettled:
            chosen, reason = sim.recorder.windows.get(job_id), sim.recorder.failed.get(job_id, "")
        if watch.alternatives:
            return _explain_alternatives(info.name, job, watch, chosen)
        search = watch.placed_by or watch.seen
        if search is not None:
            table, earliest, selector = search
            if isinstance(selector, BestOfAlternatives):
                return _explain_alternatives_kept(info.name, table, job, selector, earliest, chosen)
            if isinstance(selector, SearchSelector):
                return explain_choice(info.name, table, job, selector.spec, earliest, chosen, show)
    else:
        chosen, reason = schedule.window_of(job_id), schedule.reasons.get(job_id, "")
    text = reason or (
        f"{info.name} started it at {show(chosen.start)}" if chosen is not None else f"{info.name} did not place it"
    )
    return Explanation(
        job_id, info.name, "", chosen, (), 0, text, (), ("this strategy keeps no per-job candidates",)
    )


def _explain_alternatives(name: str, job: Job, watch: Watch, chosen: Window | None) -> Explanation:
    rows = []
    for w, value in zip(watch.alternatives, watch.alternative_values, strict=True):
        rows.append(Candidate(w.start, w.length, w.nodes, w.cost, value))
    picked = next((i for i, w in enumerate(watch.alternatives) if chosen is not None and _same(w, chosen)), None)
    if picked is None:
        summary = f"{len(rows)} alternatives were found, but the combination kept none of them for this job."
    else:
        summary = (
            f"Alternative {picked + 1} of {len(rows)} was picked by the combination ({watch.combination}); "
            "the DP weighs every job's alternatives together, so a job may get a window that is not its own best."
        )
    notes = ("alternatives never intersect: each pass holds the slots of the earlier ones",)
    rule = f"its own criterion ({RULES.get(job.criterion, job.criterion)}) for each alternative"
    return Explanation(job.id, name, rule, chosen, tuple(rows), len(rows), summary, (), notes)


def _explain_alternatives_kept(
    name: str, table: SlotTable, job: Job, selector: BestOfAlternatives, earliest: float, chosen: Window | None
) -> Explanation:
    """MultipleBest and CSA: every alternative they collected, best first by their criterion."""
    alts = selector.alternatives(table, job, earliest)
    rows = [Candidate(w.start, w.length, w.nodes, w.cost, selector.value(table, w, job)) for w in alts]
    ranked = sorted(rows, key=lambda c: (-round(c.value, 9), c.start))
    by = RULES.get(selector.rule, selector.rule)
    summary = (
        f"{name} found {len(rows)} non-intersecting {selector.finder_name} alternatives and kept the one with {by}."
        if chosen is not None
        else explain_failure(table, job, earliest)
    )
    return Explanation(job.id, name, by, chosen, tuple(ranked[:SHOWN]), len(rows), summary)


def _same(a: Window, b: Window) -> bool:
    return abs(a.start - b.start) <= EPS and abs(a.length - b.length) <= EPS and set(a.nodes) == set(b.nodes)


def explanation_text(ex: Explanation) -> str:
    """Plain text of an explanation (the CLI's, and the GUI's copy)."""
    lines = [f"{ex.job} under {ex.strategy}"]
    if ex.rule:
        lines.append(f"rule: {ex.rule}")
    lines.append(ex.summary)
    for c in ex.candidates:
        mark = "*" if ex.chosen is not None and c.same_window(ex.chosen) else " "
        lines.append(
            f"{mark} start {number(c.start)} length {number(c.length)} cost {number(c.cost)} value {number(c.value)} "
            f"on {', '.join(c.nodes)}"
        )
    for note in ex.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def check_job(env: Environment, job_id: str) -> None:
    if job_id not in env.job_index:
        raise WorkbenchError(f"--job: no job {job_id!r} in the environment")


# Cycle-driven flows besides the selectors: their windows end within a cycle (engine/waits.py).
CYCLE_FLOWS = ("CSS", "Batch-slicer", "BSF")


def explain_late(
    env: Environment, schedule: Schedule, job_id: str, strategy: str, show: Callable[[float], str] = number
) -> Wait:
    """Why so late? for ``job_id`` under ``schedule``, the result of ``strategy`` (waits.py): read
    from the schedule, with whether the strategy places within cycles taken from the registry;
    ``show`` writes its times and lengths."""
    check_job(env, job_id)
    info = registry.get(strategy)
    cyclic = info.family == "selector" or info.name in CYCLE_FLOWS
    return explain_wait(env, schedule, job_id, info.name, cyclic, show)
