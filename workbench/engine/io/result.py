"""The schedule JSON of `workbench schedule` (DESIGN.md "Command line")."""

from __future__ import annotations

import math
from typing import Any

from workbench.engine.metrics import flow_metrics
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule


def _clean(value: Any) -> Any:
    """JSON has no NaN or infinity: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _clean(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def schedule_to_dict(env: Environment, schedule: Schedule) -> dict[str, Any]:
    return _clean(
        {
            "strategy": schedule.strategy,
            "windows": [
                {
                    "job": w.job,
                    "start": w.start,
                    "length": w.length,
                    "nodes": list(w.nodes),
                    "cost": w.cost,
                    "actual_end": schedule.actual_end(env, w),
                }
                for w in schedule.windows
            ],
            "unscheduled": list(schedule.unscheduled),
            "reasons": dict(schedule.reasons),
            "metrics": flow_metrics(env, schedule).as_dict(),
            "elapsed_ms": schedule.elapsed_ms,
        }
    )
