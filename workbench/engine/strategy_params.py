"""The parameters strategies share (a cost resolution, window shapes, time quanta, dynamic
replanning, batch formation, the cyclic scheme's VO criterion, the grid's overhead), each with
its type, default, range and the paper it comes from."""

from __future__ import annotations

from workbench.engine import criteria as cr
from workbench.engine.flow import batching as bt
from workbench.engine.flow.backfill import REPLAN_MODES
from workbench.engine.flow.css import VO_CRITERIA
from workbench.engine.flow.cycles import DEFAULT_MAX_CYCLES
from workbench.engine.params import Param
from workbench.engine.references import cite
from workbench.engine.rough import SHAPES

RESOLUTION = Param(
    "resolution",
    float,
    1.0,
    "cost unit of the exact choice: costs are compared in whole units of this size (smaller is finer and "
    "slower); a choice that would need over 128 MiB of memory stops with an error",
    minimum=1e-6,  # finer steps drown in the 1e-9 rounding tolerance of the units
)

SHAPE = Param(
    "shape",
    str,
    "square",
    "square windows (every part V / P_min) or a rough right edge (each part V / p_i) " + cite("000", "§3"),
    choices=SHAPES,
)

ATTRIBUTE = Param("attribute", str, "q", "node attribute to maximise")

PAST_COP = tuple(
    Param(key, float, value, f"CoP/PAST rule weight {key} " + cite("001", "Table 1"))
    for key, value in cr.PAST_COP_DEFAULTS.items()
)

PICK = Param(
    "pick",
    str,
    "cheapest",
    "which n nodes at the earliest start: the cheapest, or the first found (the free slots that began "
    "first, as the paper's scan meets them; rough windows only) " + cite("000", "§5"),
    choices=("cheapest", "first"),
)

QUANTUM = Param(
    "quantum",
    float,
    0.0,
    "time quantum: every window's length rounded up to whole quanta (0: V / P exactly; the papers' "
    "simulators count whole units of time)",
    minimum=0.0,
)

ORDER = Param(
    "order",
    str,
    "time",
    "time: the earliest window; performance: the paper's literal scan, the first window of the fastest "
    "group of nodes that has one " + cite("002", "§3.2"),
    choices=("time", "performance"),
)

DYNAMIC = Param("dynamic", bool, True, "react to early completions (actual_fraction < 1) by planning again")

REPLAN = Param(
    "replan",
    str,
    "search",
    "how a waiting job moves up after an early completion: search, its window found again on any nodes; "
    "nodes, the same nodes at the earliest start they allow (the plan run on the chosen resources) "
    + cite("000", "§7.2"),
    choices=REPLAN_MODES,
)

MAX_CYCLES = Param(
    "max_cycles",
    int,
    DEFAULT_MAX_CYCLES,
    "most scheduling cycles when the horizon is unbounded",
    minimum=1,
    maximum=100_000,  # each cycle keeps a snapshot
)

BATCHING = (
    Param(
        "batching",
        str,
        "all",
        "how each cycle's batch is chosen from the queue " + cite("003"),
        choices=bt.METHODS,
    ),
    Param("batch_size", int, 10, "jobs per batch for random batching", minimum=1, maximum=1_000_000),
    Param("seed", int, 0, "random batching seed"),
    Param(
        "limit_coefficient",
        float,
        0.5,
        "Knapsack and MDq limit: fraction of the cycle's slot time or cost",
        minimum=0.0,
        maximum=1.0,
        exclusive_minimum=True,
    ),
    Param(
        "mdq_limit",
        str,
        "hard",
        "MDq: hard (the knapsack's cap) or soft (the paper's: C_v = limit_coefficient, no cap) " + cite("003", "§1.3"),
        choices=bt.MDQ_LIMITS,
    ),
    *(
        Param(
            key,
            float,
            value,
            f"weight {key} of the compatibility score Dq " + cite("003", "eqs. 1-5"),
            minimum=0.0 if key.startswith("c_") else None,
            exclusive_minimum=key.startswith("c_"),
        )
        for key, value in bt.DQ_DEFAULTS.items()
    ),
)

CSS_PARAMS = (
    Param(
        "vo_criterion",
        str,
        "cpu_time",
        "what the virtual organisation optimises when it picks one window per job " + cite("000", "eqs. 6-9"),
        choices=VO_CRITERIA,
    ),
    # An unbounded horizon offers endless alternatives: each one is a window held in memory.
    Param("max_alternatives", int, 20, "most alternatives per job and cycle", minimum=1, maximum=10_000),
    Param(
        "alternatives_by",
        str,
        "own",
        "how each job's alternatives are found: own, by the job's own criterion (AEP) "
        + cite("000", "§6.1")
        + "; or the name of a square-window selector (a plug-in's, say), whose search finds them",
    ),
    RESOLUTION,
    SHAPE,
)

OVERHEAD = Param(
    "overhead",
    float,
    0.25,
    "multi-site overhead p: a job split over machines runs (1 + p)·T; 0.25 is 25 % " + cite("004", "§3.1"),
    minimum=0.0,
    maximum=3.0,  # the paper's range, 0 … 300 %
)
