"""A strategy parameter: its type, default, range or choices and help line, and how a value from a
file or the command line becomes one (``Param.coerce``, whose errors name the parameter)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from workbench.engine.errors import ParameterError, show, text_problem

MAX_INT_PARAM = 10**9  # no count a strategy takes needs more
MAX_TEXT_PARAM = 256


@dataclass(frozen=True)
class Param:
    """One strategy parameter: its type, default, range or choices, and a help line."""

    name: str
    kind: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    exclusive_minimum: bool = False

    def coerce(self, value: Any) -> Any:
        """``value`` (a JSON value or a command-line string) as this parameter's type, checked."""
        try:
            if self.kind is bool:
                if isinstance(value, str):
                    lowered = value.strip().lower()
                    if lowered not in ("true", "false", "1", "0", "yes", "no"):
                        raise ValueError(value)
                    out: Any = lowered in ("true", "1", "yes")
                else:
                    out = bool(value)
            elif self.kind is int:
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError(value)
                out = int(value)
                if abs(out) > MAX_INT_PARAM:
                    raise ValueError(value)
            elif self.kind is float:
                out = float(value)
                if not math.isfinite(out):
                    raise ValueError(value)
            else:
                out = str(value)
                problem = text_problem(out, MAX_TEXT_PARAM)
                if problem is not None:
                    raise ParameterError(self.name, problem)
        except (TypeError, ValueError, OverflowError):
            what = "a finite number" if self.kind is float else f"a whole number of at most {MAX_INT_PARAM:,}"
            expected = what if self.kind in (int, float) else self.kind.__name__
            raise ParameterError(self.name, f"expected {expected}, got {show(value)}") from None
        if self.choices is not None and out not in self.choices:
            raise ParameterError(self.name, f"expected one of {', '.join(self.choices)}, got {show(out)}")
        below = self.minimum is not None and (out < self.minimum or (self.exclusive_minimum and out == self.minimum))
        if below:
            relation = ">" if self.exclusive_minimum else "≥"
            raise ParameterError(self.name, f"must be {relation} {self.minimum:g}, got {show(out)}")
        if self.maximum is not None and out > self.maximum:
            raise ParameterError(self.name, f"must be ≤ {self.maximum:g}, got {show(out)}")
        return out
