"""The one way Python calls a compiled kernel: an ``Entry`` declares the kernel's one signature,
makes it ready once per process (loaded from the disk cache, or compiled under the cache's lock)
and counts the threads inside compiled code, so that a process can wait for them to leave before
it ends (``quiesce``). docs/design.md "Compiled code and memory".

* **One signature.** The first call is checked against the declared signature (a mismatch names
  the argument); then the dispatcher may compile nothing more, so a call of any other type is an
  error, not a silent compile of a second signature outside the lock.
* **Preparing is announced and timed apart.** ``prepare`` tells the listeners (``listen``: the
  CLI's bar, the GUI's status bar) which kernel it compiles, and how many it has to; the seconds
  it takes are kept per thread (``prepared_seconds``) so that a run's ``elapsed_ms`` leaves them out.
* **A safe exit.** A thread inside a kernel (or compiling one) holds native frames; a process that
  finalises the interpreter meanwhile can crash as that thread returns. ``quiesce`` refuses new
  calls (they raise ``Cancelled``) and waits, within a bound, for the calls under way to return.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from numba import typeof
from numba.core.typing.typeof import Purpose

from workbench.engine.errors import Cancelled
from workbench.engine.kernels.cache import compile_lock


@dataclass(frozen=True)
class Preparing:
    """What ``prepare`` is doing: kernel ``name``, ``done`` of ``total`` to make ready, compiling or
    loading it; ``finished`` once all are ready (then ``seconds`` is the time they took)."""

    name: str
    done: int
    total: int
    compiling: bool
    finished: bool = False
    seconds: float = 0.0


Listener = Callable[[Preparing], None]
_listeners: list[Listener] = []
_prepare_lock = threading.RLock()  # one thread of the process prepares at a time


class _Local(threading.local):
    seconds = 0.0  # this thread's time spent preparing
    state: _Inside  # this thread's flag, set by ``_state`` at its first kernel call


_local = _Local()  # .state: this thread's ``_Inside`` flag, once it has called a kernel
_count_lock = threading.Lock()  # guards ``_threads``
_stopping = False


class Entry:
    """A kernel called from Python, with its declared parameters ((name, numba type), ...)."""

    def __init__(self, dispatcher: Any, params: Iterable[tuple[str, Any]]) -> None:
        self.dispatcher = dispatcher
        self.name = dispatcher.__name__
        pairs = tuple(params)
        self.names = tuple(name for name, _ in pairs)
        self.signature = tuple(kind for _, kind in pairs)
        self.ready = False
        self.checked = False

    def __call__(self, *args: Any) -> Any:
        if not self.checked:
            self.check(args)
            prepare((self,))
        try:
            state = _local.state
        except AttributeError:
            state = _state()
        state.inside = True  # before ``_stopping`` is read: see ``enter``
        try:
            if _stopping:
                raise Cancelled("the process is ending")
            return self.dispatcher(*args)
        finally:
            state.inside = False

    def check(self, args: tuple[Any, ...]) -> None:
        """Refuse arguments that do not have the declared types (each named)."""
        if len(args) != len(self.signature):
            raise TypeError(f"kernel {self.name} takes {len(self.signature)} arguments, got {len(args)}")
        for name, want, value in zip(self.names, self.signature, args, strict=True):
            got = typeof(value, Purpose.argument)
            if got != want:
                named = isinstance(value, tuple) and type(value) is not tuple
                hint = " (pass a named tuple as tuple(...))" if named else ""
                raise TypeError(f"kernel {self.name}: argument {name!r} is {got}, declared {want}{hint}")
        self.checked = True

    def saved(self) -> bool:
        """Is this kernel's machine code in the disk cache (so preparing it only loads it)?"""
        codegen = self.dispatcher.targetctx.codegen()
        return bool(self.dispatcher._cache.saved(self.signature, codegen))

    def make_ready(self) -> None:
        """Load or compile the declared signature, then allow no other (call under ``_prepare_lock``)."""
        enter()
        try:
            self.dispatcher.compile(self.signature)
        finally:
            leave()
        self.dispatcher.disable_compile()
        self.ready = True


def prepare(entries: Iterable[Entry], should_stop: Callable[[], bool] | None = None) -> float:
    """Make the kernels ready in this process, telling the listeners; the seconds it took (0 when all
    were ready). ``should_stop`` is asked between kernels (it raises ``Cancelled``)."""
    todo = [e for e in entries if not e.ready]
    if not todo:
        return 0.0
    began = time.perf_counter()
    try:
        with _prepare_lock:
            todo = [e for e in todo if not e.ready]
            if todo:
                _prepare_locked(todo, should_stop)
    finally:
        spent = time.perf_counter() - began
        _local.seconds = prepared_seconds() + spent
    return spent


def _prepare_locked(todo: list[Entry], should_stop: Callable[[], bool] | None) -> None:
    began = time.perf_counter()
    compiling = {e.name for e in todo if not e.saved()}
    with compile_lock():  # another process may have compiled them meanwhile: ask the disk again
        compiling = {e.name for e in todo if e.name in compiling and not e.saved()}
        for done, entry in enumerate(todo):
            if should_stop is not None and should_stop():
                raise Cancelled("preparing the compiled kernels was cancelled")
            _tell(Preparing(entry.name, done, len(todo), entry.name in compiling))
            entry.make_ready()
    _tell(Preparing("", len(todo), len(todo), bool(compiling), True, time.perf_counter() - began))


def prepared_seconds() -> float:
    """Seconds this thread has spent preparing kernels (waiting for another process's compile too)."""
    return _local.seconds


def listen(listener: Listener) -> Callable[[], None]:
    """Tell ``listener`` what ``prepare`` does, from the thread that prepares; returns the way to stop."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def _tell(event: Preparing) -> None:
    for listener in list(_listeners):
        listener(event)


class _Inside:
    """One thread's flag: is it inside compiled code (or compiling) now?"""

    inside = False


_threads: weakref.WeakSet[_Inside] = weakref.WeakSet()  # every live thread's flag


def _state() -> _Inside:
    try:
        return _local.state
    except AttributeError:
        state = _local.state = _Inside()
        with _count_lock:
            _threads.add(state)
        return state


def enter() -> None:
    """This thread is about to run compiled code (refused once the process is ending).

    No lock per call: the flag is set before ``_stopping`` is read, and ``quiesce`` sets
    ``_stopping`` before it reads the flags, so under the GIL either the caller sees that the
    process is ending or ``quiesce`` sees the caller inside."""
    state = _state()
    state.inside = True
    if _stopping:
        state.inside = False
        raise Cancelled("the process is ending")


def leave() -> None:
    _state().inside = False


def quiesce(timeout: float) -> bool:
    """Refuse new kernel calls and wait up to ``timeout`` seconds for those under way to return:
    True when no thread is inside compiled code any more."""
    global _stopping
    _stopping = True
    deadline = time.monotonic() + timeout
    while True:
        if inside() == 0:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)


def inside() -> int:
    """How many threads are inside compiled code now."""
    with _count_lock:
        return sum(state.inside for state in list(_threads))
