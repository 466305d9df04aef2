"""Atomic writes: a temporary file beside the target, flushed to disk, renamed over it, so that a
crash never leaves a half-written file (environments, results, exports, autosaves)."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from workbench.engine.errors import WorkbenchError


def write_json_atomic(data: Any, path: str | os.PathLike[str], indent: int | None = 2) -> None:
    write_text_atomic(json.dumps(data, indent=indent, ensure_ascii=False) + "\n", path)


def write_text_atomic(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` (UTF-8) atomically to ``path`` (``write_bytes_atomic``)."""
    data = text.encode("utf-8")
    write_bytes_atomic(lambda handle: handle.write(data), path)


def write_bytes_atomic(write: Callable[[BinaryIO], object], path: str | os.PathLike[str]) -> None:
    """Call ``write`` on a temporary file beside ``path``, flush it to disk, rename it over ``path``.

    A read-only target, or one that is not a regular file, is refused (as editors do);
    temporary files a killed save left for the same target are removed first.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.exists():
        if not target.is_file():
            raise WorkbenchError(f"{target}: not a regular file; choose a file name")
        writable = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
        if not target.stat().st_mode & writable or not os.access(target, os.W_OK):
            raise WorkbenchError(f"{target}: read-only; make it writable or save under another name")
    for stale in folder.glob(f".{glob.escape(target.name)}.*.tmp"):
        with contextlib.suppress(OSError):
            stale.unlink()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise WorkbenchError(f"{target}: cannot write ({exc.strerror})") from None
    try:
        # mkstemp makes the file private; give it the target's mode (or the usual one).
        try:
            mode = target.stat().st_mode & 0o777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise WorkbenchError(f"{target}: cannot write ({exc.strerror})") from None
        raise
