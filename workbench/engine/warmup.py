"""Every compiled kernel called once, early, on tiny inputs (docs/design.md "Compiled code and memory").

numba loads a kernel's cached machine code at its first call in a process: 0.1-0.2 s of Python
work each, holding the GIL. In the GUI that first call came in the middle of what a user did
(opening the 28,000-job KTH trace, the window stalled while EASY's kernel loaded). ``warm`` makes
the first calls at start instead, on runs of a few jobs that take every compiled path: EASY on
identical hosts and on mixed nodes, and dynamic backfilling moved by FirstFit's and by CoP's
compiled searches.
"""

from __future__ import annotations

import threading

from workbench.engine import registry
from workbench.engine.model import Environment, Job, Node, TimeSettings

_started = threading.Event()


def warm() -> None:
    """Run the tiny flows that load every kernel (a few milliseconds once loaded)."""
    identical = tuple(Node(f"h{i}", f"h{i}", 1.0, 1.0) for i in range(4))
    mixed = tuple(Node(f"m{i}", f"m{i}", float(1 + i % 2), float(1 + i % 3)) for i in range(4))
    jobs = tuple(
        Job(f"j{i}", f"j{i}", 1 + i % 3, 0.0, float(4 + 3 * i), arrival=float(i), actual_fraction=0.5 + 0.1 * (i % 4))
        for i in range(12)
    )
    for nodes, strategies in ((identical, ("EASY",)), (mixed, ("EASY", "FirstFit", "CoP"))):
        env = Environment(nodes=nodes, jobs=jobs, time=TimeSettings(0.0, None, None))
        for name in strategies:
            registry.run(env, name)


def warm_in_background() -> None:
    """``warm`` in a daemon thread, once a process."""
    if not _started.is_set():
        _started.set()
        threading.Thread(target=warm, name="warm kernels", daemon=True).start()
