"""Every compiled kernel made ready early (docs/design.md "Compiled code and memory").

numba loads a kernel's cached machine code at its first use in a process: 0.1-0.2 s of Python
work each, holding the GIL, and on a machine's first run it compiles them (tens of seconds). In
the GUI that first use came in the middle of what a user did (opening the 28,000-job KTH trace,
the window stalled while EASY's kernel loaded). ``warm`` makes them ready at start instead
(``kernels.prepare``): it loads or compiles each declared signature and runs no compiled code,
so a thread doing it holds no kernel's frames, and it stops between kernels when asked.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from workbench.engine import kernels

_lock = threading.Lock()
_thread: threading.Thread | None = None
_stop = threading.Event()


def warm(should_stop: Callable[[], bool] | None = None) -> float:
    """Make every kernel ready in this process (loaded, or compiled once per install); the seconds."""
    return kernels.prepare(kernels.ENTRIES, should_stop)


def warm_in_background() -> threading.Thread:
    """``warm`` in a daemon thread, once a process; ``stop_warming`` ends it between kernels (a
    process waits for the kernel being made ready through ``kernels.quiesce``)."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_warm_quietly, name="warm kernels", daemon=True)
            _thread.start()
        return _thread


def stop_warming(timeout: float) -> bool:
    """Ask the warm-up to stop and wait up to ``timeout`` seconds for it: True when it has ended."""
    _stop.set()
    thread = _thread
    if thread is None:
        return True
    thread.join(timeout)
    return not thread.is_alive()


def _warm_quietly() -> None:
    from workbench.engine.errors import Cancelled

    with contextlib.suppress(Cancelled):  # the process is ending, or asked the warm-up to stop
        warm(_stop.is_set)
