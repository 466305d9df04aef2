"""The "Why here?" panel: for the selected job, the candidates its strategy compared and why one won.

The engine does the work (``engine/explain.py``: the strategy runs again with the
job watched), in a background thread, so the window never waits for it. The
candidates can be drawn on the chart as dashed outlines.

A replay can take seconds on a large trace, so the panel works only while it is on screen (its
dock's tab in front: ``set_on_screen``), and its outlines are on the chart only then too.
"""

from __future__ import annotations

import html
import math
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.engine.errors import Cancelled, WorkbenchError
from workbench.engine.explain import Candidate, Explanation, explain_job, explain_late
from workbench.engine.model import EPS, Environment, Window
from workbench.engine.waits import CAUSES, Wait
from workbench.gui.numbers import in_unit, number, time, unit_suffix
from workbench.gui.panels import scrolling
from workbench.gui.workers import BackgroundCall
from workbench.session.document import Document

COLUMNS = ["", "start", "end", "length", "cost", "value", "nodes"]
TIME_COLUMNS = ("start", "end", "length")
NEAR = 0.02  # starts closer than this share of the length (same nodes, length, cost) are one row


def merge_near(candidates: list[Candidate], chosen: Window | None = None) -> list[list[Candidate]]:
    """The candidates in groups the user cannot tell apart: the same nodes, length and cost, starts a
    sliver apart (a coarse grid's 328 and 329, a slot edge at 625.52 and 626), whose outlines on the chart
    coincide. Each group keeps its first member's place in the list; the chosen window leads its group."""
    groups: list[list[Candidate]] = []
    for c in candidates:
        nodes = set(c.nodes)
        tol = NEAR * max(c.length, EPS)
        home = next(
            (
                g
                for g in groups
                if set(g[0].nodes) == nodes
                and abs(g[0].length - c.length) <= EPS
                and abs(g[0].cost - c.cost) <= EPS * max(1.0, abs(c.cost))
                and any(abs(m.start - c.start) <= tol for m in g)
            ),
            None,
        )
        if home is None:
            groups.append([c])
        elif chosen is not None and c.same_window(chosen):
            home.insert(0, c)
        else:
            home.append(c)
    return groups


def node_names(env: Environment, ids: tuple[str, ...]) -> str:
    """The nodes as the chart's axis names them ("node 09"), not by id."""
    return ", ".join(env.nodes[env.node_index[n]].name if n in env.node_index else n for n in ids)


LATE_SHOWN = 8  # stretches of a wait listed in the panel
TAG_WIDTH = 84  # pixels of the candidates' first column (their rank, or a tag that wraps)
START_WIDTH = 96  # pixels of the start column (a merged row's "(2 starts, to 329)" wraps)


class WhyPanel(QWidget):
    """Explains the placement (or failure) of one job under the document's strategy."""

    ghosts_changed = Signal(object)  # [(start, length, nodes)] to outline on the chart

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.job_id: str | None = None
        self.time_unit = "model"  # View ▸ Time unit
        self.explanation: Explanation | None = None
        self.shown_groups: list[list[Candidate]] = []  # the table's rows: near-identical candidates merged
        self._asked: tuple[object, ...] | None = None  # (environment, job, result, unit) of the last request
        self.on_screen = False  # a docked tab behind another is "visible" to Qt, so its dock tells
        self.call = BackgroundCall()
        self.call.finished.connect(self._on_finished)
        self.title = QLabel("Select a job (in the chart or the Jobs table) to see why it went where it did.")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Why so late? What held the job from its arrival to its start (engine/waits.py).
        self.late = QLabel("")
        self.late.setWordWrap(True)
        self.late.setTextFormat(Qt.TextFormat.RichText)
        self.late.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.wait: Wait | None = None
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The row's tag ("over budget (free then)") wraps in a narrow first column: as wide as it, it
        # pushed the cost column past the dock's edge.
        for column, width in ((0, TAG_WIDTH), (1, START_WIDTH)):  # "328 (2 starts, to 329)" wraps too
            self.table.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            self.table.horizontalHeader().resizeSection(column, width)
        self.table.setWordWrap(True)
        # Rows of two lines: a wrapped tag fits, and a long list of nodes is cut, not a tall row.
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(2 * self.table.fontMetrics().lineSpacing() + 8)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setMinimumHeight(150)  # room for the chosen window and the next three
        self.show_ghosts = QCheckBox("Outline these candidates on the chart")
        self.show_ghosts.setChecked(True)
        self.show_ghosts.toggled.connect(lambda _: self._emit_ghosts())
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        inner = QVBoxLayout()
        inner.addWidget(self.title)
        inner.addWidget(self.summary)
        inner.addWidget(self.late)
        inner.addWidget(self.table, 1)
        inner.addWidget(self.show_ghosts)
        inner.addWidget(self.notes)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scrolling(inner))  # a short dock scrolls rather than overlapping its parts
        document.events.result.connect(lambda *_: self.refresh())

    def show_job(self, job_id: str | None) -> None:
        """Explain ``job_id`` (None clears the panel)."""
        self.job_id = job_id
        self.refresh()

    def set_on_screen(self, shown: bool) -> None:
        """The panel came on screen (explain the current job) or went (and its outlines with it)."""
        self.on_screen = shown
        if shown:
            self.refresh()
        self._emit_ghosts()

    def refresh(self) -> None:
        """Ask again if the environment or the job changed (and the panel is on screen)."""
        env = self.document.env
        if self.job_id is None or self.job_id not in env.job_index:
            self.call.stop()
            self._asked = None
            self._show(None)
            return
        result = self.document.result
        unit = self.time_unit
        if self._asked == (env, self.job_id, result, unit):
            return
        if not self.on_screen:
            self.call.stop()  # an answer about an earlier job or environment is not wanted any more
            self._asked = None
            return
        self._asked = (env, self.job_id, result, unit)
        job, name, params = self.job_id, env.strategy.name, env.strategy.params_dict()
        # Nothing of the last answer stays beside the new question (it was another job's).
        self._show(None)
        self.title.setText(f"<b>{env.job(job).name}</b> under {name}: working it out…")

        def show(t: float) -> str:
            return time(t, unit)

        def work(stop: Any) -> tuple[Explanation | None, Wait | None, str]:
            late = explain_late(env, result, job, name, show) if result is not None else None
            try:
                return explain_job(env, name, params, job, stop, show, result), late, ""
            except Cancelled:
                raise
            except WorkbenchError as exc:  # Why here? cannot answer; Why so late? still can
                return None, late, str(exc)

        self.call.start(work)

    def _on_finished(self, ticket: int, result: object, error: object) -> None:
        if ticket != self.call.ticket:
            return
        if error is not None:
            self._cannot(str(error), None)
            return
        assert isinstance(result, tuple)
        explanation, self.wait, problem = result
        if explanation is None:
            self._cannot(problem, self.wait)
            return
        self._show(explanation)

    def _cannot(self, problem: str, wait: Wait | None) -> None:
        """Why here? has no answer (``problem`` says why); Why so late? is shown if there is one."""
        self.explanation = None
        self.title.setText("Cannot explain where this job went")
        self.summary.setText(problem)
        self.notes.setText("")
        self._rows(0)
        self._offer_outlines(False)
        self._show_late(wait)
        self._emit_ghosts()

    def _rows(self, count: int) -> None:
        """The candidates' table holds ``count`` rows, and is hidden without any (EASY's placements
        and a job with no window searched for have none: an empty table read as a fault)."""
        self.table.setRowCount(count)
        self.table.setVisible(count > 0)

    def _show(self, ex: Explanation | None) -> None:
        self.explanation = ex
        if ex is None:
            self.title.setText("Select a job (in the chart or the Jobs table) to see why it went where it did.")
            self.summary.setText("")
            self.notes.setText("")
            self._rows(0)
            self._offer_outlines(False)
            self._show_late(None)
            self._emit_ghosts()
            return
        env = self.document.env
        job = env.job(ex.job)
        where = (
            f"placed at {time(ex.chosen.start, self.time_unit)} on {len(ex.chosen.nodes)} nodes"
            if ex.chosen is not None
            else "not placed"
        )
        self.title.setText(
            f"<b>{job.name}</b> under {ex.strategy}: {where}" + (f"<br>Rule: {ex.rule}" if ex.rule else "")
        )
        self.summary.setText(ex.summary)  # its times in the unit it was asked in (``refresh``)
        self._show_late(self.wait if self.wait is not None and self.wait.job == ex.job else None)
        failed = ex.chosen is None
        rows: list[tuple[str, list[Candidate]]] = [("", g) for g in merge_near(list(ex.candidates), ex.chosen)]
        if ex.over_budget:
            tag = "over budget (free then)" if failed else "over budget"
            rows += [(tag, g) for g in merge_near(list(ex.over_budget))]
        self.shown_groups = [g for _, g in rows]
        self._rows(len(rows))
        bold = QFont()
        bold.setBold(True)
        for r, (tag, group) in enumerate(rows):
            c = group[0]
            chosen = ex.chosen is not None and c.same_window(ex.chosen)
            budget = job.budget
            cost = number(c.cost) + ("" if not math.isfinite(budget) else f" of {number(budget)}")
            starts = sorted(m.start for m in group)
            start = number(in_unit(c.start, self.time_unit))
            if len(group) > 1:
                start += f" ({len(group)} starts, to {number(in_unit(starts[-1], self.time_unit))})"
            cells = [
                "★ chosen" if chosen else tag or str(r + 1),
                start,
                number(in_unit(c.end, self.time_unit)),
                number(in_unit(c.length, self.time_unit)),
                cost,
                number(c.value) if math.isfinite(c.value) else "—",
                node_names(env, c.nodes),
            ]
            tip = "<br>".join(f"{name}: {number(v)}" for name, v in c.terms)
            if len(group) > 1:
                tip += ("<br>" if tip else "") + (
                    f"{len(group)} windows on the same nodes, starts "
                    + ", ".join(number(in_unit(t, self.time_unit)) for t in starts)
                    + ": one outline on the chart"
                )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if chosen:
                    item.setFont(bold)
                    item.setBackground(QBrush(QColor("#d9f2d9")))
                    item.setForeground(QBrush(QColor("#000000")))
                if col == len(cells) - 1:
                    item.setToolTip("ids: " + ", ".join(c.nodes))
                elif tip:
                    item.setToolTip(f"<b>value {number(c.value)}</b> =<br>{tip}")
                self.table.setItem(r, col, item)
        listed = len(ex.candidates)
        notes = [f"{ex.compared} candidate windows compared."] if ex.compared else []
        if ex.compared > listed:
            notes[0] = f"{ex.compared} candidate windows compared; the best {listed} are listed."
        notes += list(ex.notes)
        if any(len(g) > 1 for _, g in rows):
            notes.append("A row with several starts stands for windows a sliver apart on the same nodes.")
        if ex.over_budget and failed:
            notes.append(
                "Rows marked 'over budget (free then)' are the cheapest windows the budget ruled out; they were "
                "free when the job was planned, and jobs planned later may occupy them on the chart now."
            )
        elif ex.over_budget:
            notes.append("Rows marked 'over budget' are the cheapest windows the budget ruled out.")
        if any(c.terms for c in ex.candidates):
            notes.append("Hover a row for the rule terms that make up its value.")
        self.notes.setText(" ".join(notes))
        self._offer_outlines(bool(rows))
        self._emit_ghosts()

    def _offer_outlines(self, rows: bool) -> None:
        """The candidates' table and "Outline these candidates" only where there are candidates (a
        flow such as EASY keeps none per job)."""
        self.table.setHidden(not rows)
        self.show_ghosts.setHidden(not rows)

    def _show_late(self, wait: Wait | None) -> None:
        """Why so late?, in View ▸ Time unit: each stretch of the wait with its cause, what let the
        job start, and under EASY whether it started as the head or was backfilled."""
        # A job never placed has its reason in the summary already.
        self.late.setVisible(wait is not None and wait.start is not None)
        if wait is None or wait.start is None:
            self.late.setText("")
            return
        t = lambda x: html.escape(time(x, self.time_unit))  # noqa: E731
        if not wait.stretches:
            lines = [f"<b>Why so late?</b> It did not wait: it started when it arrived, at {t(wait.start)}."]
        else:
            lines = [
                f"<b>Why so late?</b> It waited {t(wait.waited)}, from its arrival at {t(wait.arrival)} "
                f"to its start at {t(wait.start)}:"
            ]
            for stretch in wait.stretches[:LATE_SHOWN]:
                lines.append(
                    f"• {t(stretch.start)} – {t(stretch.end)}: <i>{html.escape(CAUSES[stretch.cause])}</i>. "
                    f"{html.escape(stretch.text)}"
                )
            if len(wait.stretches) > LATE_SHOWN:
                lines.append(f"… and {len(wait.stretches) - LATE_SHOWN} more stretches (workbench explain lists them)")
            lines.append(f"It started on {html.escape(wait.released)}.")
        if wait.role:
            lines.append(f"Under EASY it {html.escape(wait.role)}.")
        self.late.setText("<br>".join(lines))

    def set_time_unit(self, unit: str) -> None:
        """View ▸ Time unit: the columns' times and the placement's start."""
        self.time_unit = unit
        suffix = unit_suffix(unit)
        self.table.setHorizontalHeaderLabels([c + suffix if c in TIME_COLUMNS else c for c in COLUMNS])
        # The sentences were written in the unit they were asked in: ask again (in the background).
        self.refresh()

    def _emit_ghosts(self) -> None:
        ex = self.explanation
        if ex is None or ex.job != self.job_id or not self.on_screen or not self.show_ghosts.isChecked():
            self.ghosts_changed.emit([])
            return
        groups = [*merge_near(list(ex.candidates), ex.chosen), *merge_near(list(ex.over_budget))]
        out = [
            (g[0].start, g[0].length, g[0].nodes)
            for g in groups
            if ex.chosen is None or not any(c.same_window(ex.chosen) for c in g)
        ]
        self.ghosts_changed.emit(out)
