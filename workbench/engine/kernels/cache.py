"""The compiled kernels' machine code on disk: one file per kernel and signature, named by a key
of everything the code depends on, written whole or not at all, and checked before it is used
(docs/design.md "Compiled code and memory").

numba's own cache keeps an index file per function that maps signatures to numbered data files.
Two processes that compile different signatures of one function at once both read the index,
both take the first free number, and the last to write wins the data file while the other's
index entry points at it: a later process then runs machine code compiled for other argument
types (segmentation faults in every run, until the cache was deleted). Here there is no index:

* A file's name is a hash of its key: the kernel, its signature, the machine (numba's magic
  tuple: triple, CPU, features), the Python, numba, llvmlite and numpy versions, the compile
  options (bounds checking, optimisation level) and the source of the kernels package and of
  every module its kernels read constants from. Two processes that save the same key save the
  same code; different keys never share a file.
* A file is written to a temporary name and renamed into place, so a reader sees a whole file
  or none, and a process killed while compiling leaves only a stray temporary file.
* A file starts with a magic line and the SHA-256 of its payload; the payload repeats the key.
  A file that is truncated, damaged, of another format or of another key is deleted and the
  kernel compiled again, never run.
* Compiling happens under an inter-process lock (``compile_lock``), so that processes started
  together compile each kernel once between them instead of once each. Correctness does not
  rest on it: a lock that cannot be had in ``LOCK_WAIT`` seconds is gone without.

The directory is ``WORKBENCH_KERNEL_CACHE`` when set, else ``$NUMBA_CACHE_DIR/slot-workbench``
when that is set, else the user's cache directory; inside it, one folder per Python and numba
version. A directory that cannot be written leaves the cache off: every process compiles.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import llvmlite
import numba
import numpy as np
from numba.core import compiler, config, serialize, sigutils

log = logging.getLogger("workbench.kernels")

MAGIC = b"slot-workbench compiled kernel 1\n"
DIGEST = 32  # bytes of SHA-256
LOCK_WAIT = 900.0  # seconds: another process compiling every kernel on a slow machine takes less
STALE_TMP = 24 * 3600.0  # seconds after which a temporary file is a killed writer's, not a live one's
# Modules outside the kernels package whose constants or jitable code the kernels compile in.
DEPENDS = ("workbench.engine.model", "workbench.engine.units")

rejected: list[str] = []  # files found damaged or foreign and deleted (this process)


def cache_dir() -> Path:
    """Where the kernels' files go (read at every use, so a test or a process may point it elsewhere)."""
    own = os.environ.get("WORKBENCH_KERNEL_CACHE")
    if own:
        root = Path(own)
    elif os.environ.get("NUMBA_CACHE_DIR"):
        root = Path(os.environ["NUMBA_CACHE_DIR"]) / "slot-workbench"
    else:
        import platformdirs

        root = Path(platformdirs.user_cache_dir("slot-workbench", appauthor=False)) / "kernels"
    return root / f"{sys.implementation.cache_tag}-numba{numba.__version__}"


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return True


@cache
def sources_digest() -> str:
    """SHA-256 of the kernels package's source and of the modules it reads constants from."""
    here = Path(__file__).resolve().parent
    files = sorted(here.glob("*.py"))
    engine = here.parent
    files += [engine / (name.rsplit(".", 1)[1] + ".py") for name in DEPENDS]
    h = hashlib.sha256()
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _build() -> tuple[object, ...]:
    """What, besides the source and the signature, the machine code depends on."""
    return (
        numba.__version__,
        llvmlite.__version__,
        np.__version__,
        sys.implementation.cache_tag,
        getattr(sys, "abiflags", ""),
        bool(vars(config).get("BOUNDSCHECK")),
        str(vars(config).get("OPT")),
    )


class KernelCache:
    """A dispatcher's cache (set by ``jit.compiled``): ``load_overload`` and ``save_overload`` are
    what numba's dispatcher asks of its cache when it compiles a signature."""

    def __init__(self, py_func: Any) -> None:
        self.name = f"{py_func.__module__}.{py_func.__qualname__}"
        qualname = py_func.__qualname__.replace("<", "").replace(">", "")  # (``<locals>``: not in file names)
        self.short = f"{py_func.__module__.rsplit('.', 1)[-1]}.{qualname}"
        self.code = hashlib.sha256(py_func.__code__.co_code).hexdigest()
        self.enabled = True

    # -- what numba's dispatcher calls ---------------------------------------------------

    @property
    def cache_path(self) -> str:
        return str(cache_dir())

    def enable(self) -> None:
        self.enabled = True

    def disable(self) -> None:
        self.enabled = False

    def flush(self) -> None:
        """Forget every saved signature of this kernel."""
        directory = cache_dir()
        for path in directory.glob(f"{self.short}-*.nbk"):
            path.unlink(missing_ok=True)

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The compile result saved for ``sig``, or None (none saved, or the file failed its checks)."""
        if not self.enabled:
            return None
        target_context.refresh()
        key = self.key(sig, target_context.codegen())
        path = self.path(key)
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        reduced = self._payload(blob, key, path)
        if reduced is None:
            return None
        try:
            cres = compiler.CompileResult._rebuild(target_context, *reduced)
        except Exception as exc:  # a payload of the right key that numba cannot rebuild
            self._reject(path, f"cannot be rebuilt ({exc!r})")
            return None
        args, _ = sigutils.normalize_signature(sig)
        if tuple(cres.signature.args) != tuple(args):
            self._reject(path, f"holds {cres.signature.args}, not {args}")
            return None
        return cres

    def save_overload(self, sig: Any, cres: Any) -> None:
        if not self.enabled or cres.lifted or cres.library.has_dynamic_globals:
            return
        directory = cache_dir()
        if not _writable(directory):
            return
        key = self.key(sig, cres.library.codegen)
        payload = serialize.dumps((key, cres._reduce()))
        blob = MAGIC + hashlib.sha256(payload).digest() + payload
        write_atomic(self.path(key), blob)

    # -- the files -------------------------------------------------------------------------

    def key(self, sig: Any, codegen: Any) -> tuple[object, ...]:
        args, _ = sigutils.normalize_signature(sig)
        return (self.name, str(tuple(args)), codegen.magic_tuple(), _build(), sources_digest(), self.code)

    def path(self, key: tuple[object, ...]) -> Path:
        digest = hashlib.sha256(repr(key).encode()).hexdigest()[:24]
        return cache_dir() / f"{self.short}-{digest}.nbk"

    def saved(self, sig: Any, codegen: Any) -> bool:
        """Is a file for ``sig`` on disk (checked only when loaded)?"""
        return self.enabled and self.path(self.key(sig, codegen)).exists()

    def _payload(self, blob: bytes, key: tuple[object, ...], path: Path) -> tuple[Any, ...] | None:
        head = len(MAGIC) + DIGEST
        if len(blob) <= head or not blob.startswith(MAGIC):
            self._reject(path, "is not a kernel file of this format (truncated or foreign)")
            return None
        digest, payload = blob[len(MAGIC) : head], blob[head:]
        if hashlib.sha256(payload).digest() != digest:
            self._reject(path, "fails its checksum (damaged)")
            return None
        try:
            stored, reduced = pickle.loads(payload)
        except Exception as exc:
            self._reject(path, f"cannot be read ({exc!r})")
            return None
        if stored != key:
            self._reject(path, "was saved for another key (foreign)")
            return None
        return tuple(reduced)

    def _reject(self, path: Path, why: str) -> None:
        log.warning("compiled kernel file %s %s: deleted, the kernel is compiled again", path, why)
        rejected.append(f"{path.name}: {why}")
        with contextlib.suppress(OSError):
            path.unlink()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: a temporary file in the same folder, renamed into place."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def compile_lock() -> Iterator[None]:
    """Hold the cache directory's inter-process lock (or go on without it: see the module's note)."""
    import filelock

    directory = cache_dir()
    if not _writable(directory):
        yield
        return
    lock = filelock.FileLock(str(directory / "compile.lock"), timeout=LOCK_WAIT)
    try:
        lock.acquire()
    except filelock.Timeout:
        log.warning("the kernel cache's lock %s was held over %.0f s: compiling without it", lock.lock_file, LOCK_WAIT)
        yield
        return
    try:
        _sweep(directory)
        yield
    finally:
        lock.release()


def _sweep(directory: Path) -> None:
    """Delete temporary files that writers killed long ago left behind."""
    now = time.time()
    for tmp in directory.glob("*.tmp"):
        with contextlib.suppress(OSError):
            if now - tmp.stat().st_mtime > STALE_TMP:
                tmp.unlink()
