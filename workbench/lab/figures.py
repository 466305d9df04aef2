"""A study's figures, drawn to go into a paper as they are.

Each figure is written three ways: SVG (text kept as text, so it can be edited) and PDF for the
paper, and a PNG at the DPI the user chose (300 by default) for a page or a slide. Axes carry
words and units, never raw factor names; a y axis whose positive values span two orders of
magnitude or more is logarithmic (this tool's 0.5 ms searches beside the paper's 1,695 ms); a
95 % confidence interval is drawn only where there were repetitions to make one. Every strategy
the runs measured is drawn, a plug-in's given with ``--set strategy=`` included, each in one
colour across the figures. The papers' values are overlaid as black diamonds (bars) or dashed
lines (curves). Drawn with matplotlib's Agg backend (no display needed).
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from workbench.lab.cells import Cell, Table, matches
from workbench.lab.study import Factor, Study

PANELS_PER_ROW = 4  # a figure of more panels wraps onto further rows
DEFAULT_DPI = 300
SUFFIXES = ("svg", "pdf", "png")
LOG_SPAN = 100.0  # a y axis is logarithmic when its positive values span this ratio or more


def draw_figures(
    study: Study, table: Table, target: Path, dpi: int = DEFAULT_DPI, progress: Callable[[int], None] | None = None
) -> list[str]:
    """Every figure the study declares, into ``target``; their file stems (a figure with nothing
    measured is left out). ``progress(k)`` before the k-th."""
    import matplotlib

    matplotlib.use("Agg")
    stems = []
    for k, spec in enumerate(study.figures):
        if progress is not None:
            progress(k)
        with matplotlib.rc_context({"svg.fonttype": "none", "pdf.fonttype": 42}):
            stem = _figure(study, table, spec[0], spec[1], target, dpi, *spec[2:])
        if stem:
            stems.append(stem)
    return stems


def strategies(study: Study, table: Table) -> list[str]:
    """The strategies to draw: the study's own in its order, then any other the runs measured (a
    plug-in's, given with ``--set strategy=``), in name order, so every figure shows every one and
    each keeps one colour across the figures."""
    own = list(study.labels)
    return own + sorted({k[0] for k in table} - set(own))


def _factor(study: Study, name: str) -> Factor:
    return next((f for f in study.factors if f.name == name), Factor(name, ()))


def _at_words(study: Study, at: Iterable[tuple[str, Any]]) -> str:
    return ", ".join(_factor(study, k).says(v) for k, v in at)


def measure_label(study: Study, measure: str) -> str:
    """"what it is (unit)": the study's description of ``measure`` with its unit (not twice)."""
    unit = study.units.get(measure, "")
    text = study.measures.get(measure, measure)
    if unit and text.endswith(f"({unit})"):
        return text
    return f"{text} ({unit})" if unit else text


def _figure(
    study: Study, table: Table, measure: str, x: str, target: Path, dpi: int, where: Mapping[str, Any] | None = None
) -> str | None:
    """One figure like the paper's, ours with 95 % CIs, the paper's values overlaid. Returns its file stem."""
    import matplotlib.pyplot as plt

    at = dict(where or {})
    if x == "cycle":  # per-cycle measures ("batch_c1", "batch_c2", …) drawn over the cycle number
        return _cycle_figure(study, table, measure, target, dpi, at)
    if x in study.measures:  # over another measure (seed 003 Fig. 1: over the node load)
        return _measure_figure(study, table, measure, x, target, dpi, at)
    entries = {k: v for k, v in table.items() if k[2] == measure and matches(at, k[1])}
    if not entries:
        return None
    stem = f"{study.name}-{measure}-by-{x}"
    if sum(1 for spec in study.figures if spec[:2] == (measure, x)) > 1:  # two figures of one measure: name both
        stem += "".join(f"-{k}-{v}" for k, v in at.items())
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    shown: list[float] = []
    if x == "strategy":
        labels = [s for s in strategies(study, entries) if any(k[0] == s for k in entries)]
        means = [next(v for k, v in entries.items() if k[0] == s) for s in labels]
        fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(labels)), 4.0))
        repeated = any(c.n > 1 for c in means)
        ours = "this workbench (mean, 95 % CI)" if repeated else "this workbench (one run)"
        ax.bar(range(len(labels)), [c.mean for c in means], yerr=_errors(means), capsize=3, color=colours[0],
               label=ours)  # fmt: skip
        paper = [
            next(
                (
                    p.value
                    for p in study.published
                    if p.strategy == s and p.measure == measure and all(at.get(k, v) == v for k, v in p.where.items())
                ),
                math.nan,
            )
            for s in labels
        ]
        if any(math.isfinite(v) for v in paper):
            ax.scatter(range(len(labels)), paper, marker="D", color="black", zorder=3, label="paper")
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        shown += [c.mean for c in means] + paper
        axes_used = [ax]
    else:
        axes_used, shown, common = _panels(study, entries, table, measure, x, colours)
        fig = axes_used[0].figure
        at = common
    _log_if_wide(axes_used, shown)
    return _save(study, fig, axes_used, measure, target, stem, dpi, at)


def _panels(
    study: Study, entries: Table, table: Table, measure: str, x: str, colours: list[str]
) -> tuple[list[Any], list[float], dict[str, Any]]:
    """One panel per combination of the other factors, a line per strategy over ``x``: the axes
    drawn on, every value shown, and the factor values all panels share (for the figure's title;
    a panel's title names only what differs between panels)."""
    import matplotlib.pyplot as plt

    ranks = {f.name: {v: i for i, v in enumerate((*f.values, *f.extra))} for f in study.factors}
    rank = ranks.get(x, {})
    others = sorted(  # the panels in the factors' own order too (high, medium, low; not alphabetical)
        {tuple((k, v) for k, v in combo if k != x) for (_, combo, _) in entries},
        key=lambda other: [(ranks.get(k, {}).get(v, len(ranks.get(k, {}))), str(v)) for k, v in other],
    )
    common = {k: v for k, v in others[0] if all(dict(o).get(k) == v for o in others)}
    drew_paper = False
    drawn: dict[str, str] = {}  # label -> colour, for the legend (in the first panel, of every panel)
    shown: list[float] = []
    cols = min(len(others), PANELS_PER_ROW)
    rows = -(-len(others) // cols)
    _, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4.0 * rows), squeeze=False)
    for ax in axes.flat[len(others) :]:
        ax.set_visible(False)
    for ax, other in zip(axes.flat, others, strict=False):  # the spare panels are hidden above
        for i, label in enumerate(strategies(study, table)):
            points = sorted(  # in the factor's own order (Table 1's configurations, MF1…MF6, …)
                (
                    (dict(combo)[x], cell)
                    for (s, combo, _), cell in entries.items()
                    if s == label and all(dict(combo).get(k) == v for k, v in other)
                ),
                key=lambda p: (rank.get(p[0], len(rank)), p[0]),
            )
            if not points:
                continue
            colour = colours[i % len(colours)]
            cells_ = [p[1] for p in points]
            ax.errorbar([p[0] for p in points], [c.mean for c in cells_], yerr=_errors(cells_), marker="o",
                        color=colour, capsize=2)  # fmt: skip
            shown += [c.mean for c in cells_]
            drawn.setdefault(label, colour)
            paper = [
                (p.where.get(x), p.value)
                for p in study.published
                if p.strategy == label and p.measure == measure and all(p.where.get(k, v) == v for k, v in other)
            ]
            if paper:
                px, py = zip(*sorted(paper), strict=True)
                ax.plot(px, py, linestyle="--", marker="D", fillstyle="none", color=colour, alpha=0.8)
                shown += list(py)
                drew_paper = True
        ax.set_xlabel(_factor(study, x).text())
        values = {dict(combo)[x] for (_, combo, _) in entries}
        if all(isinstance(v, int) for v in values) and len(values) <= 12:  # series 1…5: no ticks at 1.5
            ax.set_xticks(sorted(values))
        own = [(k, v) for k, v in other if k not in common]
        ax.set_title(textwrap.fill(_at_words(study, own), 70), fontsize=10)
    first = axes[0][0]
    for label, colour in drawn.items():  # every strategy of every panel, in the study's order
        first.plot([], [], marker="o", color=colour, label=label)
    if drew_paper:
        first.plot([], [], linestyle="--", marker="D", fillstyle="none", color="grey", label="paper (dashed)")
    return [ax for ax in axes.flat[: len(others)]], shown, common


def _errors(cells_: list[Cell]) -> list[float] | None:
    """The CI half-widths to draw, or None where no cell had repetitions (no interval to show)."""
    if not any(c.n > 1 for c in cells_):
        return None
    return [c.half_width if c.n > 1 else 0.0 for c in cells_]


def _log_if_wide(axes: list[Any], values: Iterable[float]) -> None:
    """A log y axis where the positive values span ``LOG_SPAN`` or more and none is ≤ 0."""
    finite = [v for v in values if math.isfinite(v)]
    if finite and min(finite) > 0 and max(finite) / min(finite) >= LOG_SPAN:
        for ax in axes:
            ax.set_yscale("log")


def _save(
    study: Study,
    fig: Any,
    axes: list[Any],
    measure: str,
    target: Path,
    stem: str,
    dpi: int,
    at: Mapping[str, Any] | None = None,
) -> str:
    """Label, title and write one figure as SVG, PDF and PNG; returns its file stem. ``at``: the
    factor values a figure by strategy is drawn at, named in its title."""
    import matplotlib.pyplot as plt

    label = measure_label(study, measure)
    for ax in axes:
        ax.set_ylabel(textwrap.fill(label, int(11 * fig.get_figheight())))
        if ax.get_yscale() == "log":
            ax.set_ylabel(ax.get_ylabel() + ", log scale")
    axes[0].legend(fontsize=8)
    title = study.title + (f" — {_at_words(study, at.items())}" if at else "")
    # About 13 characters of 10-point text per inch: a long title wraps rather than running off the figure.
    fig.suptitle(textwrap.fill(title, int(13 * fig.get_figwidth())), fontsize=10)
    fig.tight_layout()
    for suffix in SUFFIXES:
        fig.savefig(target / f"{stem}.{suffix}", dpi=dpi if suffix == "png" else None)
    plt.close(fig)
    return stem


def _cycle_figure(
    study: Study, table: Table, measure: str, target: Path, dpi: int, at: Mapping[str, Any]
) -> str | None:
    """``measure`` cycle by cycle (seed 003 Fig. 2): one line per strategy, mean and 95 % CI."""
    import matplotlib.pyplot as plt

    pattern = re.compile(re.escape(measure) + r"_c(\d+)")
    lines: dict[str, list[tuple[int, Cell]]] = {}
    for (label, combo, name), cell in table.items():
        found = pattern.fullmatch(name)
        if found and matches(at, combo):
            lines.setdefault(label, []).append((int(found.group(1)), cell))
    if not lines:
        return None
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    shown: list[float] = []
    for i, label in enumerate(strategies(study, table)):  # each strategy in its colour of the other figures
        if label not in lines:
            continue
        points = sorted(lines[label], key=lambda p: p[0])
        ax.errorbar([p[0] for p in points], [p[1].mean for p in points], yerr=_errors([p[1] for p in points]),
                    marker="o", color=colours[i % len(colours)], label=label, capsize=2)  # fmt: skip
        shown += [p[1].mean for p in points]
    ax.set_xlabel("scheduling cycle")
    ax.set_title(_at_words(study, at.items()) or study.title, fontsize=10)
    _log_if_wide([ax], shown)
    return _save(study, fig, [ax], measure, target, f"{study.name}-{measure}-by-cycle", dpi)


def _measure_points(table: Table, label: str, measure: str, x: str, at: Mapping[str, Any]) -> list[tuple[Cell, Cell]]:
    """``label``'s (x, measure) cells at every factor combination matching ``at`` where both were
    measured, in the order of x."""
    return sorted(
        (
            (table[(label, combo, x)], cell)
            for (s, combo, name), cell in table.items()
            if s == label and name == measure and matches(at, combo) and (label, combo, x) in table
        ),
        key=lambda p: p[0].mean,
    )


def _measure_figure(
    study: Study, table: Table, measure: str, x: str, target: Path, dpi: int, at: Mapping[str, Any]
) -> str | None:
    """``measure`` over the mean of another measure ``x``, one line per strategy through its cells
    (each point a mean with its 95 % CI both ways), as seed 003 draws its Fig. 1 over the node load."""
    import matplotlib.pyplot as plt

    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    shown: list[float] = []
    for i, label in enumerate(strategies(study, table)):  # each strategy in its colour of the other figures
        points = _measure_points(table, label, measure, x, at)
        if not points:
            continue
        ax.errorbar([p[0].mean for p in points], [p[1].mean for p in points],
                    xerr=_errors([p[0] for p in points]), yerr=_errors([p[1] for p in points]),
                    marker="o", color=colours[i % len(colours)], label=label, capsize=2)  # fmt: skip
        shown += [p[1].mean for p in points]
    if not shown:
        plt.close(fig)
        return None
    ax.set_xlabel(textwrap.fill(measure_label(study, x), 60))
    ax.set_title(_at_words(study, at.items()) or study.title, fontsize=10)
    _log_if_wide([ax], shown)
    return _save(study, fig, [ax], measure, target, f"{study.name}-{measure}-by-{x}", dpi)

