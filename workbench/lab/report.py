"""A study's report: tables of mean ± 95 % CI beside the papers' values, orderings checked, figures.

``write_report(folder)`` reads the results database and writes ``report.md``,
``report.html`` and, per figure of the study, an SVG, a PDF and a PNG (lab/figures.py),
with the published values overlaid. A deviation within ±15 % of a value the
paper fully specifies counts as ✓; an ordering holds when the measured means run
in the stated order.
"""

from __future__ import annotations

import html
import itertools
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from workbench.engine.errors import ParameterError
from workbench.engine.io.atomic import write_text_atomic
from workbench.lab.catalogue import get_study
from workbench.lab.cells import Cell, Table, cells, matches, number, with_interval
from workbench.lab.database import Database, Row
from workbench.lab.figures import DEFAULT_DPI, draw_figures
from workbench.lab.study import TOLERANCE, Ordering, Published, Study


def check_ordering(order: Ordering, table: Table) -> tuple[bool, str]:
    """Whether the measured means run in the stated order (each combination of factors it covers)."""
    combos = sorted({f for (s, f, m) in table if m == order.measure and matches(order.where, f)})
    verdicts, texts = [], []
    for combo in combos:
        means = [table.get((s, combo, order.measure), Cell(math.nan, 0, 0)).mean for s in order.order]
        if any(math.isnan(x) for x in means):
            continue
        signed = [x if order.better == "min" else -x for x in means]  # smaller is better from here on
        slack = 1e-9 * max(1.0, *(abs(x) for x in means))  # ties, for a non-strict claim
        ok = all(a < b if order.strict else a <= b + slack for a, b in itertools.pairwise(signed))
        verdicts.append(ok)
        texts.append(" vs ".join(number(x) for x in means))
    if not verdicts:
        return None, "not measured"
    return all(verdicts), "; ".join(texts)


def lookup(table: Table) -> Callable[..., float]:
    """mean(strategy, measure, **factors): the mean of the cells that match (NaN when none does)."""

    def mean(strategy: str, measure: str, **where: Any) -> float:
        values = [c.mean for (s, f, m), c in table.items() if s == strategy and m == measure and matches(where, f)]
        return float(np.mean(values)) if values else math.nan

    return mean


def write_report(
    folder: Path,
    target: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    dpi: int = DEFAULT_DPI,
) -> Path:
    """Write report.md, report.html and the figures (SVG, PDF, and PNG at ``dpi``) into ``target``
    (default: the run folder); ``progress(done, total)`` after each figure (they take seconds)."""
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not 50 <= dpi <= 1200:
        raise ParameterError("--dpi", f"expected a whole number from 50 to 1200, got {dpi!r}")
    folder = Path(folder)
    with Database(folder, "", create=False) as db:
        rows = list(db.rows())
        study = get_study(db.study)
        definitions = db.definitions() or study.measure_definitions()
    target = Path(target) if target is not None else folder
    target.mkdir(parents=True, exist_ok=True)
    table = cells(rows)
    failed = [r for r in rows if r.status != "ok"]
    total = len(study.figures) + 1
    figures = draw_figures(study, table, target, dpi, None if progress is None else lambda k: progress(k, total))
    if progress is not None:
        progress(len(study.figures), total)
    md = _markdown(study, rows, table, failed, figures, definitions)
    write_text_atomic(md, target / "report.md")
    write_text_atomic(_html(study, md), target / "report.html")
    return target / "report.md"


def _markdown(
    study: Study,
    rows: list[Row],
    table: Table,
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
        lines += ["## Figures", "", "Each as SVG (shown), PDF and PNG beside this report.", ""]
        lines += [f"![{name}]({name}.svg)" for name in figures] + [""]
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
                    if p.strategy == strategy and p.measure == measure and matches(p.where, combo)
                ),
                None,
            )
            factors = ", ".join(f"{k}={v}" for k, v in combo) or "—"
            value = with_interval(cell)
            if paper is None:
                lines.append(f"| {measure} | {strategy} | {factors} | {value} | | | |")
                continue
            deviation = (cell.mean - paper.value) / paper.value if paper.value else math.nan
            mark = ("✓" if abs(deviation) <= TOLERANCE else "✗") if paper.compare else "(not judged)"
            lines.append(
                f"| {measure} | {strategy} | {factors} | {value} | {number(paper.value)} ({paper.source}) "
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
