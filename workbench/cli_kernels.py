"""The ``workbench`` command's side of the compiled kernels: it says when they are compiled, makes
them all ready (``workbench warm``), and ends with no thread inside compiled code (docs/design.md
"Compiled code and memory")."""

from __future__ import annotations

import argparse
import os
import sys

from workbench.cli_progress import KernelNotice

EXIT_WAIT = 10.0  # seconds the command waits at exit for a thread inside compiled code


def exit_safely(code: int) -> None:
    """Wait (up to ``EXIT_WAIT`` s) for the threads inside compiled code to leave it; if one is still
    there, end the process now, without finalising the interpreter under it (which can crash)."""
    if "workbench.engine.kernels" not in sys.modules:
        return
    from workbench.engine import kernels
    from workbench.engine.warmup import stop_warming

    stop_warming(0.0)
    if not kernels.quiesce(EXIT_WAIT):
        print("workbench: a compiled call did not end in time; leaving without cleanup", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


_notices: list[KernelNotice] = []


def announce_compiles() -> None:
    """Say on stderr when the kernels are compiled (once a process, however often ``main`` runs)."""
    if not _notices:
        from workbench.engine import kernels

        _notices.append(KernelNotice())
        kernels.listen(_notices[0])


def cmd_warm(args: argparse.Namespace) -> int:
    """Make every compiled kernel ready: compiled once per install, loaded afterwards."""
    from workbench.engine import kernels
    from workbench.engine.kernels.cache import cache_dir
    from workbench.engine.warmup import warm

    seconds = warm()
    counts = kernels.signature_counts()
    print(f"{len(kernels.ENTRIES)} compiled kernels ready in {seconds:.1f} s ({cache_dir()})")
    if args.verbose:
        for name, count in counts.items():
            print(f"  {name}: {count} signature{'s' if count != 1 else ''} in this process")
    return 0
