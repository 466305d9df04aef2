"""Background runs: debounced, cancellable, results delivered as Qt signals.

After an edit the strategy runs again in a worker thread. A newer request
cancels the older run through its ``should_stop`` callback (the engine checks
it between searches), and a result that arrives for an outdated version of the
document is dropped.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from shiboken6 import isValid as shiboken_valid

from workbench.engine import kernels, registry
from workbench.engine.errors import Cancelled, WorkbenchError
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.gui.prepared import prepare
from workbench.session.document import Document

YIELD_EVERY = 0.01  # seconds of work between hand-overs of the GIL to the GUI thread
YIELD_FOR = 0.0005  # seconds
# CPython's switch interval while the GUI runs. Painting a table calls back into Python thousands of
# times, and with the default 5 ms each call waited for a busy worker to let go of the GIL: the Jobs
# table's repaint took 0.4-0.9 s during a run on 28,000 jobs instead of 8 ms. At 0.1 ms each call
# still waited about 0.2 ms (a Jobs table repaint of ~500 callbacks: 120-145 ms); at 0.01 ms the
# waits are short. A worker alone (the GUI idle, asking for nothing) never switches, so it runs as fast.
GUI_SWITCH_INTERVAL = 1e-5


def share_the_gil() -> None:
    """Let the GUI thread's callbacks take the GIL from a busy worker within 0.01 ms."""
    sys.setswitchinterval(GUI_SWITCH_INTERVAL)


class Token:
    """The cancel flag of one background run; the engine calls it between searches.

    Each call is also where the worker lets the GUI thread in. A worker that calls numpy on small
    arrays drops and retakes the GIL so often that CPython's switch-interval hand-over never fires,
    and the GUI thread waited 100-190 ms for it on a 2,000-job EASY run. A short sleep every 10 ms of
    work hands the GIL over for certain (it costs the run under 5 %).
    """

    def __init__(self, report: Callable[[int, int], None] | None = None) -> None:
        self.cancelled = False
        self._yielded = time.perf_counter()
        self._report = report

    def report(self, done: int, total: int) -> None:
        """Progress of the call (done of total), shown only while the call is still wanted."""
        if self._report is not None and not self.cancelled:
            self._report(done, total)

    def __call__(self) -> bool:
        now = time.perf_counter()
        if now - self._yielded >= YIELD_EVERY:
            time.sleep(YIELD_FOR)
            self._yielded = time.perf_counter()
        return self.cancelled


def run_strategy(
    env: Environment,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Schedule | None, str | None]:
    """The environment's own strategy to the end: (schedule, None) or (None, error message)."""
    try:
        params = env.strategy.params_dict()
        schedule = registry.run(
            env, env.strategy.name, params, progress=progress, should_stop=should_stop, explain=True
        )
        return schedule, None
    except Cancelled:
        raise
    except WorkbenchError as exc:
        return None, str(exc)
    except Exception as exc:
        return None, f"internal error in {env.strategy.name}: {exc!r}"


_calls: weakref.WeakSet[BackgroundCall] = weakref.WeakSet()  # every BackgroundCall of the process


def stop_all_calls(timeout: float) -> bool:
    """Cancel every background call and wait up to ``timeout`` seconds for their threads to end (at a
    safe point: the engine checks the cancel flag between searches and between compiled chunks);
    True when none is left running."""
    threads = []
    for call in list(_calls):
        call.stop()
        if call.thread is not None and call.thread.is_alive():
            threads.append(call.thread)
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return not any(thread.is_alive() for thread in threads)


class KernelStatus(QObject):
    """What the compiled kernels' preparation is doing, as one line for the status bar (emitted on the
    GUI thread whichever thread prepares): only when they are compiled, which a machine does once."""

    changed = Signal(str, int)  # the line, how long to show it (ms; 0: until replaced)
    compiling = Signal(int, int)  # kernels made ready, of how many (a compile: the run's bar shows it)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        unlisten = kernels.listen(self._on_event)
        self._unlisten = unlisten
        # Destroyed with its window: it stops listening then (a closure, not a method of the object
        # being destroyed).
        self.destroyed.connect(lambda *_: unlisten())

    def _on_event(self, event: kernels.Preparing) -> None:
        if not event.compiling or not shiboken_valid(self):
            return
        if event.finished:
            self.changed.emit(f"Compiled kernels ready ({event.seconds:.0f} s, once per install)", 8000)
            self.compiling.emit(event.total, event.total)
        else:
            self.compiling.emit(event.done, event.total)
            self.changed.emit(
                f"Preparing the compiled kernels, once per install: {event.name} "
                f"({event.done + 1} of {event.total})…",
                0,
            )


class BackgroundCall(QObject):
    """The one way the GUI runs long work: one cancellable call at a time in a worker thread.

    ``start(call)`` runs ``call(token)``: the token is the engine's ``should_stop`` and carries
    ``report(done, total)`` for progress. Every exception is caught and reported: ``Cancelled``
    ends the call quietly, a ``WorkbenchError`` gives its message and anything else an "internal
    error" line, so no failure leaves a panel saying "running". Only the latest call's answer
    and progress are delivered (``finished`` and ``progress``, on the GUI thread).
    """

    finished = Signal(int, object, object)  # ticket, result, error text (None when it worked)
    progress = Signal(int, int)  # done, total of the latest call
    _answered = Signal(int, object, object)  # from the worker thread: queued to the GUI thread

    def __init__(self) -> None:
        super().__init__()
        self._token: Token | None = None
        self.ticket = 0
        self.thread: threading.Thread | None = None
        self._answered.connect(self._deliver)
        _calls.add(self)

    @property
    def busy(self) -> bool:
        return self._token is not None

    def start(self, call: Callable[[Token], Any]) -> int:
        """Run ``call(token)``; a later ``start`` or ``stop`` makes this one's answer void."""
        self.stop()
        token = Token(self.progress.emit)
        self._token = token
        self.ticket += 1
        ticket = self.ticket

        # What exists now (the documents, the results on screen) is long-lived: the cyclic collector
        # leaves it alone from here on. A full collection walks every tracked object while holding
        # the GIL, and on a 28,000-job document it stopped the window for 80-115 ms in the middle of
        # a run; now it walks only what the call makes. The collection first frees the cycles that
        # earlier calls left (it walks only what they made), so that none is kept for good. It runs
        # here on the GUI thread: a collection may delete Qt objects, which only this thread may.
        gc.collect()
        gc.freeze()

        def work() -> None:
            try:
                result, error = call(token), None
            except Cancelled:
                return
            except WorkbenchError as exc:
                result, error = None, str(exc)
            except Exception as exc:  # reported to the user, never lost with the thread
                result, error = None, f"internal error: {exc!r}"
            if not token.cancelled:
                self._answered.emit(ticket, result, error)

        # A daemon thread, so that a hung call cannot keep the process alive; the window's close stops
        # it and waits for it (``stop_all_calls``), and the command waits for compiled code to return.
        self.thread = threading.Thread(target=work, daemon=True)
        self.thread.start()
        return ticket

    def stop(self) -> None:
        """Cancel the call; its answer, even one already on its way, is not delivered."""
        if self._token is not None:
            self._token.cancelled = True
        self._token = None
        self.ticket += 1

    def _deliver(self, ticket: int, result: object, error: object) -> None:
        # The worker's answer waits in the GUI thread's queue: a ``stop`` or ``start`` in between
        # (a window closed, a newer run) makes it void. A closed window's late result reached
        # panels whose widgets Qt had already deleted.
        if ticket != self.ticket:
            return
        self._token = None
        # A call that made a great many objects (a result of 200,000 jobs: millions, none in a cycle)
        # has them frozen now, so that no collection walks them: left to the collector, one came on
        # the GUI thread moments later and held the GIL for a second. A smaller call's objects are
        # left to the next call's collection, which frees any cycles it left (``start``).
        if sum(gc.get_count()) > FREEZE_AT_DELIVERY:
            gc.freeze()
        self.finished.emit(ticket, result, error)


FREEZE_AT_DELIVERY = 200_000  # objects not yet collected, past which an answer is frozen at once


class LiveRunner(QObject):
    """Runs the document's strategy after edits, in the background (a ``BackgroundCall``)."""

    started = Signal()
    finished = Signal(int, object, object, float)  # version, schedule, error, wall-clock ms
    progress = Signal(int, int)  # done, total
    stopped = Signal()  # the user cancelled the run; the last result stays

    def __init__(self, document: Document, delay_ms: int = 10) -> None:
        super().__init__()
        self.document = document
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self._launch)
        self.call = BackgroundCall()
        self.call.progress.connect(self.progress.emit)
        self.call.finished.connect(self._on_answer)
        self.busy = False
        self.finished.connect(self._deliver)

    @property
    def thread(self) -> threading.Thread | None:
        return self.call.thread

    def request(self) -> None:
        """Run soon (edits within the delay are folded into one run)."""
        self.timer.start()

    def run_now(self) -> None:
        """Run at once (F5): a pending or running run gives way."""
        self.timer.stop()
        self._launch()

    def cancel(self) -> None:
        """Stop the pending and the running run (a newer run is about to start)."""
        self.timer.stop()
        self.call.stop()

    def stop(self) -> None:
        """The user's Cancel: stop the run and keep the last result on screen."""
        was_running = self.busy or self.timer.isActive()
        self.cancel()
        self.busy = False
        if was_running:
            self.stopped.emit()

    def _launch(self) -> None:
        env, version = self.document.env, self.document.version
        self.busy = True
        self.started.emit()
        self.call.start(lambda token: _live_run(env, version, token))

    def _on_answer(self, _ticket: int, answer: Any, error: Any) -> None:
        if error is not None:  # the run itself failed outside the strategy (e.g. drawing its measures)
            self.finished.emit(self.document.version, None, error, 0.0)
            return
        self.finished.emit(*answer)

    def _deliver(self, version: int, schedule: Any, error: Any, _ms: float) -> None:
        if not self.busy:
            return  # stopped by the user after the worker had finished
        self.busy = False
        self.document.set_result(version, schedule, error)


def _live_run(env: Environment, version: int, token: Token) -> tuple[int, Schedule | None, str | None, float]:
    """The live run of ``env``'s strategy, with its free slots and measures prepared off the GUI thread."""
    began = time.perf_counter()
    schedule, error = run_strategy(env, token, token.report)
    if schedule is not None and not token.cancelled:
        prepare(env, schedule)
    return version, schedule, error, (time.perf_counter() - began) * 1000.0


class CompareRunner(QObject):
    """Runs several strategies on one environment in the background, one after another."""

    progress = Signal(int, int)  # strategies done, strategies in all
    finished = Signal(object, object, object)  # results {name: Schedule}, metrics {name: FlowMetrics}, errors

    def __init__(self) -> None:
        super().__init__()
        self.call = BackgroundCall()
        self.call.progress.connect(self.progress.emit)
        self.call.finished.connect(self._on_answer)
        self.busy = False

    @property
    def thread(self) -> threading.Thread | None:
        return self.call.thread

    def start(self, env: Environment, runs: list[tuple[str, dict[str, Any]]]) -> None:
        self.busy = True
        self.call.start(lambda token: _compare(env, runs, token))

    def stop(self) -> None:
        self.call.stop()
        self.busy = False

    def _on_answer(self, _ticket: int, answer: Any, error: Any) -> None:
        if error is not None:
            self.finished.emit({}, {}, [error])
            return
        self.finished.emit(*answer)


def _compare(
    env: Environment, runs: list[tuple[str, dict[str, Any]]], token: Token
) -> tuple[dict[str, Schedule], dict[str, Any], list[str]]:
    """Each strategy of ``runs`` on ``env`` in turn; one that fails is an error line, the rest go on."""
    results: dict[str, Schedule] = {}
    metrics: dict[str, Any] = {}
    errors: list[str] = []
    for done, (name, params) in enumerate(runs):
        token.report(done, len(runs))
        try:
            result = registry.run(env, name, params, should_stop=token, explain=True)
            metrics[name] = prepare(env, result).metrics
        except Cancelled:
            raise
        except WorkbenchError as exc:
            errors.append(f"{name}: {exc}")
            continue
        except Exception as exc:  # one strategy's fault must not lose the others' results
            errors.append(f"{name}: internal error: {exc!r}")
            continue
        results[name] = result
    return results, metrics, errors
