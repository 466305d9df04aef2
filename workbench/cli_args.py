"""What the ``workbench`` command's sub-commands share in reading their arguments."""

from __future__ import annotations

from collections.abc import Sequence

from workbench.engine.errors import ParameterError


def parse_params(items: Sequence[str], option: str = "--param") -> dict[str, str]:
    """``KEY=VALUE`` items as a dict; a malformed item names ``option`` and the item."""
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ParameterError(option, f"expected key=value, got {item!r}")
        params[key.strip()] = value.strip()
    return params
