"""How a kernel is compiled: ``compiled`` is ``numba.njit`` (without the GIL, bounds checked when
``NUMBA_BOUNDSCHECK=1``) with the package's own disk cache (``kernels.cache``) in place of numba's,
and every kernel listed in ``KERNELS`` so that tests and ``workbench bench`` can count signatures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit, types

from workbench.engine.kernels.cache import KernelCache

KERNELS: list[Any] = []  # every dispatcher of the package, in definition order


def compiled(fn: Callable[..., Any]) -> Any:
    """``fn`` as a compiled kernel, compiled at its first signature and cached on disk."""
    dispatcher = njit(nogil=True)(fn)
    dispatcher._cache = KernelCache(dispatcher.py_func)  # type: ignore[attr-defined]  # asked before compiling
    # A call from compiled code with a constant (``row_gaps(..., 0)``, ``first_start(..., True)``)
    # would compile a signature of that literal value: the callee is typed as for any value instead.
    typed = dispatcher.get_call_template

    def get_call_template(args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
        return typed(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template  # type: ignore[method-assign, assignment]
    KERNELS.append(dispatcher)
    return dispatcher


def signature_counts() -> dict[str, int]:
    """How many signatures each kernel holds in this process (loaded or compiled)."""
    return {f"{d.py_func.__module__.rsplit('.', 1)[-1]}.{d.__name__}": len(d.signatures) for d in KERNELS}
