"""A study's report: tables of mean ± 95 % CI beside the papers' values, orderings checked, figures.

``write_report(folder)`` reads the results database and writes ``report.md``,
``report.html`` and, per figure of the study, an SVG and a PNG drawn with
matplotlib (no display needed), with the published values overlaid as black
diamonds (bars) or dashed lines (curves). A deviation within ±15 % of a value the
paper fully specifies counts as ✓; an ordering holds when the measured means run
in the stated order.
"""

from __future__ import annotations

import html
import itertools
import math
import re
import textwrap
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from workbench.engine.io.envfile import write_text_atomic
from workbench.lab.catalogue import get_study
from workbench.lab.database import Database, Row
from workbench.lab.study import TOLERANCE, Ordering, Published, Study

PANELS_PER_ROW = 4  # a figure of more panels wraps onto further rows
# Student's t, 97.5 % quantile, for 1..30 degrees of freedom (beyond: the normal 1.96).
T975 = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13,
        2.12, 2.11, 2.10, 2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04]  # fmt: skip


@dataclass(frozen=True)
class Cell:
    mean: float
    half_width: float  # of the 95 % confidence interval (0 with one value)
    n: int


def summarise(values: list[float]) -> Cell:
    a = np.array([v for v in values if math.isfinite(v)], dtype=float)
    if a.size == 0:
        return Cell(math.nan, math.nan, 0)
    if a.size == 1:
        return Cell(float(a[0]), 0.0, 1)
    t = T975[a.size - 2] if a.size - 1 <= len(T975) else 1.96
    return Cell(float(a.mean()), float(t * a.std(ddof=1) / math.sqrt(a.size)), int(a.size))


def _key(factors: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(factors.items()))


def cells(rows: list[Row]) -> dict[tuple[str, tuple[tuple[str, Any], ...], str], Cell]:
    """(strategy, factors, measure) -> summary over the seeds."""
    values: dict[tuple[str, tuple[tuple[str, Any], ...], str], list[float]] = defaultdict(list)
    for r in rows:
        if r.status != "ok":
            continue
        for measure, value in r.measures.items():
            values[(r.strategy, _key(r.factors), measure)].append(value)
    return {k: summarise(v) for k, v in values.items()}


def _matches(where: Mapping[str, Any], factors: tuple[tuple[str, Any], ...]) -> bool:
    got = dict(factors)
    return all(got.get(k) == v for k, v in where.items())


def _number(x: float) -> str:
    if not math.isfinite(x):
        return "—"
    return f"{x:.3g}" if abs(x) < 10 else f"{x:,.1f}"


def check_ordering(
    order: Ordering, table: Mapping[tuple[str, tuple[tuple[str, Any], ...], str], Cell]
) -> tuple[bool, str]:
    """Whether the measured means run in the stated order (each combination of factors it covers)."""
    combos = sorted({f for (s, f, m) in table if m == order.measure and _matches(order.where, f)})
    verdicts, texts = [], []
    for combo in combos:
        means = [table.get((s, combo, order.measure), Cell(math.nan, 0, 0)).mean for s in order.order]
        if any(math.isnan(x) for x in means):
            continue
        signed = [x if order.better == "min" else -x for x in means]  # smaller is better from here on
        slack = 1e-9 * max(1.0, *(abs(x) for x in means))  # ties, for a non-strict claim
        ok = all(a < b if order.strict else a <= b + slack for a, b in itertools.pairwise(signed))
        verdicts.append(ok)
        texts.append(" vs ".join(_number(x) for x in means))
    if not verdicts:
        return None, "not measured"
    return all(verdicts), "; ".join(texts)


def lookup(table: Mapping[tuple[str, tuple[tuple[str, Any], ...], str], Cell]) -> Callable[..., float]:
    """mean(strategy, measure, **factors): the mean of the cells that match (NaN when none does)."""

    def mean(strategy: str, measure: str, **where: Any) -> float:
        values = [c.mean for (s, f, m), c in table.items() if s == strategy and m == measure and _matches(where, f)]
        return float(np.mean(values)) if values else math.nan

    return mean


def write_report(
    folder: Path, target: Path | None = None, progress: Callable[[int, int], None] | None = None
) -> Path:
    """Write report.md, report.html and the figures into ``target`` (default: the run folder);
    ``progress(done, total)`` after each figure (a study's figures take seconds)."""
    folder = Path(folder)
    with Database(folder, "", create=False) as db:
        rows = list(db.rows())
        study = get_study(db.study)
        definitions = db.definitions() or study.measure_definitions()
    target = Path(target) if target is not None else folder
    target.mkdir(parents=True, exist_ok=True)
    table = cells(rows)
    failed = [r for r in rows if r.status != "ok"]
    figures = []
    for k, spec in enumerate(study.figures):
        if progress is not None:
            progress(k, len(study.figures) + 1)
        figures.append(_figure(study, table, spec[0], spec[1], target, *spec[2:]))
    if progress is not None:
        progress(len(study.figures), len(study.figures) + 1)
    md = _markdown(study, rows, table, failed, [f for f in figures if f], definitions)
    write_text_atomic(md, target / "report.md")
    write_text_atomic(_html(study, md), target / "report.html")
    return target / "report.md"


def _markdown(
    study: Study,
    rows: list[Row],
    table: Mapping[tuple[str, tuple[tuple[str, Any], ...], str], Cell],
    failed: list[Row],
    figures: list[str],
    definitions: Mapping[str, str],
) -> str:
    seeds = len({r.seed for r in rows})
    lines = [
        f"# {study.title}",
        "",
        f"Study `{study.name}`: {study.source}. {len(rows)} runs ({seeds} seeds), {len(failed)} failed.",
        "",
        "## Set-up",
        "",
        study.setup,
        "",
    ]
    if figures:
        lines += ["## Figures", ""] + [f"![{name}]({name}.svg)" for name in figures] + [""]
    lines += ["## Results against the paper", ""]
    lines += [
        "| measure | strategy | factors | mean ± 95 % CI (n) | paper | deviation | |",
        "|---|---|---|---|---|---|---|",
    ]
    most_specific_first = sorted(study.published, key=lambda p: -len(p.where))
    shown_measures = [m for m in study.measures if any(k[2] == m for k in table)]
    for measure in shown_measures:
        rank = {label: i for i, label in enumerate(study.labels)}
        ordered = sorted(table.items(), key=lambda kv: (kv[0][1], rank.get(kv[0][0], len(rank))))
        for (strategy, combo, m), cell in ordered:
            if m != measure:
                continue
            paper: Published | None = next(  # the most specific published value whose setting this is in
                (
                    p
                    for p in most_specific_first
                    if p.strategy == strategy and p.measure == measure and _matches(p.where, combo)
                ),
                None,
            )
            factors = ", ".join(f"{k}={v}" for k, v in combo) or "—"
            value = f"{_number(cell.mean)} ± {_number(cell.half_width)} ({cell.n})"
            if paper is None:
                lines.append(f"| {measure} | {strategy} | {factors} | {value} | | | |")
                continue
            deviation = (cell.mean - paper.value) / paper.value if paper.value else math.nan
            mark = ("✓" if abs(deviation) <= TOLERANCE else "✗") if paper.compare else "(not judged)"
            lines.append(
                f"| {measure} | {strategy} | {factors} | {value} | {_number(paper.value)} ({paper.source}) "
                f"| {100 * deviation:+.1f} % | {mark} |"
            )
    if study.orderings:
        lines += ["", "## Orderings the paper states", "", "| claim | where | measured | holds |", "|---|---|---|---|"]
        for order in study.orderings:
            ok, text = check_ordering(order, table)
            sign = (
                (" < " if order.better == "min" else " > ")
                if order.strict
                else (" ≤ " if order.better == "min" else " ≥ ")
            )
            where = ", ".join(f"{k}={v}" for k, v in order.where.items()) or "all"
            claim = f"{order.measure}: {sign.join(order.order)} ({order.source})"
            lines.append(f"| {claim} | {where} | {text} | {'—' if ok is None else '✓' if ok else '✗'} |")
    if study.claims:
        lines += ["", "## Other claims of the paper", "", "| claim | measured | holds |", "|---|---|---|"]
        for claim in study.claims:
            try:
                ok, text = claim.check(lookup(table))
            except (KeyError, ValueError, ZeroDivisionError):
                ok, text = None, "not measured"
            lines.append(f"| {claim.text} ({claim.source}) | {text} | {'—' if ok is None else '✓' if ok else '✗'} |")
    if failed:
        lines += ["", "## Failed runs", ""]
        lines += [f"- {r.strategy} seed {r.seed} {r.factors}: {r.error}" for r in failed[:50]]
        if len(failed) > 50:
            lines.append(f"- … and {len(failed) - 50} more")
    lines += ["", "## Measures and their definitions (docs/metrics.md)", ""]
    lines += [f"- `{k}`: {definitions.get(k, v)}" for k, v in study.measures.items()]
    lines.append("")
    return "\n".join(lines)


def _html(study: Study, md: str) -> str:
    """The markdown report as simple HTML: headings, paragraphs, tables and the figures."""
    out = ["<!doctype html><meta charset='utf-8'>", f"<title>{html.escape(study.title)}</title>",
           "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}</style>"]  # fmt: skip
    in_table = False
    for line in md.splitlines():
        if line.startswith("|"):
            cells_ = [html.escape(c.strip()) for c in line.strip("|").split("|")]
            if set("".join(cells_)) <= set("-"):
                continue
            if not in_table:
                out.append("<table>")
                in_table = True
                out.append("<tr>" + "".join(f"<th>{c}</th>" for c in cells_) + "</tr>")
                continue
            out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells_) + "</tr>")
            continue
        if in_table:
            out.append("</table>")
            in_table = False
        if line.startswith("!["):
            name = line[line.index("(") + 1 : line.index(")")]
            out.append(f"<p><img src='{html.escape(name)}' alt='{html.escape(name)}'></p>")
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{html.escape(line.lstrip('#').strip())}</h{level}>")
        elif line.startswith("- "):
            out.append(f"<li>{html.escape(line[2:])}</li>")
        elif line.strip():
            out.append(f"<p>{html.escape(line)}</p>")
    if in_table:
        out.append("</table>")
    return "\n".join(out) + "\n"


def _figure(
    study: Study,
    table: Mapping[tuple[str, tuple[tuple[str, Any], ...], str], Cell],
    measure: str,
    x: str,
    target: Path,
    where: Mapping[str, Any] | None = None,
) -> str | None:
    """One figure like the paper's, ours with 95 % CIs, the paper's values overlaid. Returns its file stem."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    at = dict(where or {})
    if x == "cycle":  # per-cycle measures ("batch_c1", "batch_c2", …) drawn over the cycle number
        return _cycle_figure(study, table, measure, target, at)
    if x in study.measures:  # over another measure (seed 003 Fig. 1: over the node load)
        return _measure_figure(study, table, measure, x, target, at)
    entries = {k: v for k, v in table.items() if k[2] == measure and _matches(at, k[1])}
    if not entries:
        return None
    stem = f"{study.name}-{measure}-by-{x}"
    if sum(1 for spec in study.figures if spec[:2] == (measure, x)) > 1:  # two figures of one measure: name both
        stem += "".join(f"-{k}-{v}" for k, v in at.items())
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    if x == "strategy":
        labels = [s for s in study.labels if any(k[0] == s for k in entries)]
        means = [next(v for k, v in entries.items() if k[0] == s) for s in labels]
        fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(labels)), 4.0))
        ax.bar(range(len(labels)), [c.mean for c in means], yerr=[c.half_width for c in means], capsize=3,
               color=colours[0], label="this workbench (mean, 95 % CI)")  # fmt: skip
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
    else:
        ranks = {f.name: {v: i for i, v in enumerate((*f.values, *f.extra))} for f in study.factors}
        rank = ranks.get(x, {})
        others = sorted(  # the panels in the factors' own order too (high, medium, low; not alphabetical)
            {tuple((k, v) for k, v in combo if k != x) for (_, combo, _) in entries},
            key=lambda other: [(ranks.get(k, {}).get(v, len(ranks.get(k, {}))), str(v)) for k, v in other],
        )
        drew_paper = False
        drawn: dict[str, str] = {}  # label -> colour, for the legend (in the first panel, of every panel)
        cols = min(len(others), PANELS_PER_ROW)
        rows = -(-len(others) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4.0 * rows), squeeze=False)
        for ax in axes.flat[len(others) :]:
            ax.set_visible(False)
        for ax, other in zip(axes.flat, others, strict=False):  # the spare panels are hidden above
            for i, label in enumerate(study.labels):
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
                xs = [p[0] for p in points]
                colour = colours[i % len(colours)]
                ax.errorbar(xs, [p[1].mean for p in points], yerr=[p[1].half_width for p in points], marker="o",
                            color=colour, capsize=2)  # fmt: skip
                drawn.setdefault(label, colour)
                paper = [
                    (p.where.get(x), p.value)
                    for p in study.published
                    if p.strategy == label and p.measure == measure and all(p.where.get(k, v) == v for k, v in other)
                ]
                if paper:
                    px, py = zip(*sorted(paper), strict=True)
                    ax.plot(px, py, linestyle="--", marker="D", fillstyle="none", color=colour, alpha=0.8)
                    drew_paper = True
            ax.set_xlabel(x)
            values = {dict(combo)[x] for (_, combo, _) in entries}
            if all(isinstance(v, int) for v in values) and len(values) <= 12:  # series 1…5: no ticks at 1.5
                ax.set_xticks(sorted(values))
            ax.set_title(", ".join(f"{k}={v}" for k, v in other) or study.name, fontsize=10)
        ax = axes[0][0]
        for label, colour in drawn.items():  # every strategy of every panel, in the study's order
            ax.plot([], [], marker="o", color=colour, label=label)
        if drew_paper:
            ax.plot([], [], linestyle="--", marker="D", fillstyle="none", color="grey", label="paper (dashed)")
    return _save(study, fig, ax, measure, target, stem, at if x == "strategy" else None)


def _save(
    study: Study, fig: Any, ax: Any, measure: str, target: Path, stem: str, at: Mapping[str, Any] | None = None
) -> str:
    """Label, title and write one figure as SVG and PNG; returns its file stem. ``at``: the factor
    values a figure by strategy is drawn at, named in its title."""
    import matplotlib.pyplot as plt

    label = f"{measure}: {study.measures.get(measure, '')}"
    ax.set_ylabel(textwrap.fill(label, int(11 * fig.get_figheight())))
    ax.legend(fontsize=8)
    title = study.title + (" (" + ", ".join(f"{k} = {v}" for k, v in at.items()) + ")" if at else "")
    # About 13 characters of 10-point text per inch: a long title wraps rather than running off the figure.
    fig.suptitle(textwrap.fill(title, int(13 * fig.get_figwidth())), fontsize=10)
    fig.tight_layout()
    fig.savefig(target / f"{stem}.svg")
    fig.savefig(target / f"{stem}.png", dpi=110)
    plt.close(fig)
    return stem


def _cycle_figure(
    study: Study,
    table: Mapping[tuple[str, tuple[tuple[str, Any], ...], str], Cell],
    measure: str,
    target: Path,
    at: Mapping[str, Any],
) -> str | None:
    """``measure`` cycle by cycle (seed 003 Fig. 2): one line per strategy, mean and 95 % CI."""
    import matplotlib.pyplot as plt

    pattern = re.compile(re.escape(measure) + r"_c(\d+)")
    lines: dict[str, list[tuple[int, Cell]]] = {}
    for (label, combo, name), cell in table.items():
        found = pattern.fullmatch(name)
        if found and _matches(at, combo):
            lines.setdefault(label, []).append((int(found.group(1)), cell))
    if not lines:
        return None
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    for i, label in enumerate(study.labels):  # each strategy in its colour of the other figures
        if label not in lines:
            continue
        points = sorted(lines[label], key=lambda p: p[0])
        ax.errorbar([p[0] for p in points], [p[1].mean for p in points], yerr=[p[1].half_width for p in points],
                    marker="o", color=colours[i % len(colours)], label=label, capsize=2)  # fmt: skip
    ax.set_xlabel("cycle")
    ax.set_title(", ".join(f"{k}={v}" for k, v in at.items()) or study.name, fontsize=10)
    return _save(study, fig, ax, measure, target, f"{study.name}-{measure}-by-cycle")


def _measure_points(
    table: Mapping[tuple[str, tuple[tuple[str, Any], ...], str], Cell],
    label: str,
    measure: str,
    x: str,
    at: Mapping[str, Any],
) -> list[tuple[Cell, Cell]]:
    """``label``'s (x, measure) cells at every factor combination matching ``at`` where both were
    measured, in the order of x."""
    return sorted(
        (
            (table[(label, combo, x)], cell)
            for (s, combo, name), cell in table.items()
            if s == label and name == measure and _matches(at, combo) and (label, combo, x) in table
        ),
        key=lambda p: p[0].mean,
    )


def _measure_figure(
    study: Study,
    table: Mapping[tuple[str, tuple[tuple[str, Any], ...], str], Cell],
    measure: str,
    x: str,
    target: Path,
    at: Mapping[str, Any],
) -> str | None:
    """``measure`` over the mean of another measure ``x``, one line per strategy through its cells
    (each point a mean with its 95 % CI both ways), as seed 003 draws its Fig. 1 over the node load."""
    import matplotlib.pyplot as plt

    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    drew = False
    for i, label in enumerate(study.labels):  # each strategy in its colour of the other figures
        points = _measure_points(table, label, measure, x, at)
        if not points:
            continue
        ax.errorbar([p[0].mean for p in points], [p[1].mean for p in points],
                    xerr=[p[0].half_width for p in points], yerr=[p[1].half_width for p in points],
                    marker="o", color=colours[i % len(colours)], label=label, capsize=2)  # fmt: skip
        drew = True
    if not drew:
        plt.close(fig)
        return None
    ax.set_xlabel(textwrap.fill(f"{x}: {study.measures[x]}", 60))
    ax.set_title(", ".join(f"{k}={v}" for k, v in at.items()) or study.name, fontsize=10)
    return _save(study, fig, ax, measure, target, f"{study.name}-{measure}-by-{x}")
