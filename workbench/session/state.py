"""What every view of a document shares besides the environment: the selected job and what the
result on screen is worth.

The chart, the Jobs table, Why here?, the exports, the Metrics panel and the status bar all show
these two things, so they live here once and the views watch them (docs/style.md point 5). The
selection is a job id, so it survives the runs and edits that rebuild the tables, and it ends with
its document (open, import, new). The status says whether the result on screen is the current
environment's, and what happens to it:

- ``fresh``: the result on screen is the current environment's;
- ``running``: a run is going (the result on screen, if any, may be an earlier environment's);
- ``stale``: the environment changed and no run of it is going (auto-run off, or cancelled);
- ``failed``: the current environment's run failed, and no result is on screen.
"""

from __future__ import annotations

from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.session.document import Document, Event

FRESH = "fresh"
RUNNING = "running"
STALE = "stale"
FAILED = "failed"


class ViewState:
    """The selected job (by id) and the status of the result on screen, with plain-callback events."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.job: str | None = None
        self.status = STALE  # nothing has run yet
        self.shown: Schedule | None = None  # the last result delivered for this document
        self._shown_version = -1
        self.selection_changed = Event()  # (job id or None)
        self.status_changed = Event()  # (status)
        document.events.replaced.connect(self._on_replaced)
        document.events.environment.connect(self._on_environment_changed)
        document.events.result.connect(self._on_result_changed)

    @property
    def stale(self) -> bool:
        """Is a result on screen that is not the current environment's (an earlier version's)?"""
        return self.shown is not None and self._shown_version != self.document.version

    def select(self, job_id: str | None) -> None:
        if job_id != self.job:
            self.job = job_id
            self.selection_changed.emit(job_id)

    def run_started(self) -> None:
        self._set(RUNNING)

    def run_stopped(self) -> None:
        """The run was cancelled: what is on screen stays, current or not."""
        doc = self.document
        if doc.error is not None:
            self._set(FAILED)
        else:
            self._set(FRESH if doc.result is not None and not self.stale else STALE)

    def _set(self, status: str) -> None:
        self.status = status
        self.status_changed.emit(status)  # also when unchanged: stale-ness may have changed

    def _on_replaced(self, _env: Environment) -> None:
        """Another document: nothing of the old one stays selected or on screen."""
        self.shown = None
        self.select(None)

    def _on_environment_changed(self, env: Environment) -> None:
        if self.job is not None and self.job not in env.job_index:
            self.select(None)
        self._set(STALE)

    def _on_result_changed(self, schedule: Schedule | None, error: str | None) -> None:
        self.shown, self._shown_version = schedule, self.document.version
        self._set(FAILED if error is not None else FRESH)


def find_job(env: Environment, text: str) -> str | None:
    """Edit ▸ Find job: the job whose id is ``text``, else the first whose name holds it (case-insensitive);
    None when nothing matches (or ``text`` is blank)."""
    text = text.strip()
    if not text:
        return None
    if text in env.job_index:
        return text
    folded = text.casefold()
    return next((job.id for job in env.jobs if folded in job.name.casefold()), None)
