"""What the ``workbench`` command draws on stderr while it works: a run's progress bar, a download's,
and the notice of the compiled kernels' preparation (once per install)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.engine.kernels import Preparing


class ProgressBar:
    """A ``progress(done, total)`` callback drawing a tqdm bar on stderr once a run passes a second."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=self.label, delay=1.0, file=sys.stderr, leave=False, dynamic_ncols=True)
        if total != self.bar.total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


class ByteBar(ProgressBar):
    """A download's bar on stderr (bytes), drawn from the first bytes on: none when nothing came."""

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                desc=self.label, total=total or None, unit="B", unit_scale=True, file=sys.stderr, dynamic_ncols=True
            )
        if total and total != self.bar.total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)


class KernelNotice:
    """Says on stderr that the compiled kernels are being compiled (a machine's first run, or after an
    upgrade) and how far it is; silent when they are only loaded from the cache (a fraction of a second)."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.began = 0.0

    def __call__(self, event: Preparing) -> None:
        if not event.compiling:
            return
        if self.bar is None and not event.finished:
            from tqdm import tqdm

            self.began = time.perf_counter()
            print(
                "workbench: preparing the compiled kernels, once per install (usually under a minute)",
                file=sys.stderr,
            )
            self.bar = tqdm(total=event.total, desc="compiling", unit="kernel", file=sys.stderr, leave=False)
        if self.bar is None:
            return
        if event.finished:
            self.bar.close()
            self.bar = None
            print(f"workbench: compiled kernels ready in {event.seconds:.0f} s", file=sys.stderr)
            return
        self.bar.set_postfix_str(event.name)
        self.bar.update(event.done - self.bar.n)
