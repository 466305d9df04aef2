"""window-search: seed 002's slot selection on window100 (§4.1, Table 1 and Fig. 3): how much
each criterion gains over FirstFit, and the time its search takes."""

from __future__ import annotations

import time

import numpy as np

from workbench.engine import registry
from workbench.engine.generate import generate
from workbench.engine.slots import SlotTable, window_distances
from workbench.lab.study import Factor, Ordering, Published, RunSpec, Study, checked

WINDOW_SOURCE = "Toporkov et al., slot selection and co-allocation, §4.1, Table 1 and Fig. 3"
LOAD_MODELS = (0, 1)  # window100's tasks_per_node: the hypergeometric count, or one block per node


def _window_run(spec: RunSpec) -> dict[str, float]:
    """One window search on a fresh window100 environment (seed 002 §4.1): its time and quality."""
    env = generate("window100", spec.seed, tasks_per_node=int(spec.factor("tasks_per_node")))
    table = SlotTable.from_environment(env)
    name, params = WINDOW_SEARCH.strategy(spec.strategy)
    selector = registry.selector(name, params)
    job = env.jobs[0]
    best = float("inf")
    found = None
    for _ in range(3):  # the fastest of three tries: the machine's noise only ever adds time
        began = time.perf_counter()
        found = selector.select(table, job, env.time.start)
        best = min(best, time.perf_counter() - began)
    out = {"ms": best * 1000.0, "failed": float(found is None)}
    if found is not None:
        w = found.window
        left, right = window_distances(table, w)
        q = {node.id: node.attribute("q") for node in env.nodes}
        out.update(
            q=float(sum(q[n] for n in w.nodes)),
            l_min=float(np.minimum(left, right).mean()),
            l_max=float(np.maximum(left, right).mean()),
            start=w.start,
            cost=w.cost,
        )
    return out


def _paper_window() -> tuple[Published, ...]:
    rows = {  # Table 1 (ms, Java on the authors' machine; L_minΣ, L_maxΣ) and Fig. 3 (Q)
        "FirstFit": (4.2, 35, 85, 342),
        # Table 1's MultipleBest pair comes from two alternatives, "selected to match the criteria:
        # L_minΣ maximization and L_maxΣ minimization" (§4.3), hence min > max.
        "MultipleBest": (103, 52, None, None),
        "MultipleBest (DEP)": (None, None, 253, None),
        "MultipleBest (COORD)": (None, None, None, 159),
        "MaxQ": (None, 61.8, None, None),
        "MaxQ Lite": (None, 52, None, None),
        "DEP": (1695, None, 369, 480),
        "DEP Lite": (4.5, None, 275, 440),
        "COORD": (1694, None, 9, 52),
        "COORD Lite": (4.5, None, 31, 148),
    }
    rows["FirstFit (scan)"] = (None, *rows["FirstFit"][1:])  # the paper's FirstFit, read literally
    out = []
    for load in LOAD_MODELS:
        for strategy, values in rows.items():
            for measure, value in zip(("ms", "q", "l_min", "l_max"), values, strict=True):
                if value is not None:
                    source = "Fig. 3" if measure == "q" else "Table 1"
                    where = {"tasks_per_node": load}
                    out.append(Published(measure, strategy, float(value), where, source, compare=measure != "ms"))
    return tuple(out)


def _window_orderings() -> tuple[Ordering, ...]:
    out = []
    for load in LOAD_MODELS:
        at = {"tasks_per_node": load}
        out += [
            Ordering("q", ("MaxQ", "MaxQ Lite", "MultipleBest", "FirstFit"), "max", at, "Fig. 3"),
            Ordering(
                "l_min",
                ("DEP", "DEP Lite", "MultipleBest (DEP)", "FirstFit"),
                "max",
                at,
                "Table 1: DEP keeps the most room",
            ),
            Ordering(
                "l_max",
                ("COORD", "COORD Lite", "MultipleBest (COORD)", "DEP"),
                "min",
                at,
                "Table 1: COORD is the snuggest",
            ),
        ]
    return tuple(out)


WINDOW_SEARCH = checked(
    Study(
        name="window-search",
        title="Window search: time and quality of the slot-selection algorithms",
        source=WINDOW_SOURCE,
        setup=(
            "Given by the paper: 100 nodes of performance U[2, 10], one job of n = 7 parts, V = 800, budget "
            "C = 644, a scheduling interval of 1200 with local tasks, 2000 runs; Q is an extra node attribute "
            "U[0, 10]. Left open, and chosen here: node prices 0.1·p·(1 + N(0, 0.2)) so that C binds; L_min/L_max "
            "are the mean over the window's slots of min/max(L_left, L_right); MultipleBest chooses by q for Fig. "
            "3, and by each L criterion for Table 1 (MultipleBest (DEP), the alternative of the greatest L_minΣ; "
            "MultipleBest (COORD), the least L_maxΣ: the paper took each column from its own alternative). "
            "Two readings of the load, 'distributed hyper-geometrically, up to 30 % "
            "utilisation', both run (factor tasks_per_node): 0, a hypergeometric number of local tasks per "
            "node (several on most), and 1, one block of busy time per node at the same utilisation, which "
            "leaves the long gaps the paper's L values suggest. FirstFit (scan) is the paper's FirstFit read "
            "literally (§3.2, step 3: groups from the fastest, the first window found); FirstFit is the earliest "
            "window of any group. Times are this machine's Python+numpy, shown beside the paper's Java figures "
            "but not judged."
        ),
        strategies=(
            ("FirstFit", "FirstFit", {}),
            ("FirstFit (scan)", "FirstFit", {"order": "performance"}),
            ("MultipleBest", "MultipleBest", {"by": "q"}),
            ("MultipleBest (DEP)", "MultipleBest", {"by": "dep"}),
            ("MultipleBest (COORD)", "MultipleBest", {"by": "coord"}),
            ("MaxQ", "MaxQ", {}),
            ("MaxQ Lite", "MaxQ Lite", {}),
            ("DEP", "DEP", {}),
            ("DEP Lite", "DEP Lite", {}),
            ("COORD", "COORD", {}),
            ("COORD Lite", "COORD Lite", {}),
        ),
        factors=(
            Factor(
                "tasks_per_node",
                LOAD_MODELS,
                "local tasks per node: 0 a hypergeometric number (several), 1 one block at the same utilisation",
                words={0: "several local tasks per node (hypergeometric)", 1: "one block of local tasks per node"},
            ),
        ),
        reps=200,
        measures={
            "ms": "time of one search, fastest of three tries (ms)",
            "q": "sum of the chosen nodes' attribute q",
            "l_min": "mean over the window's slots of min(L_left, L_right)",
            "l_max": "mean over the window's slots of max(L_left, L_right)",
            "start": "window start",
            "cost": "window cost",
            "failed": "1 when no window was found",
        },
        run=_window_run,
        published=_paper_window(),
        orderings=_window_orderings(),
        units={
            "ms": "ms",
            "q": "attribute units",
            "l_min": "time units",
            "l_max": "time units",
            "start": "time units",
            "cost": "cost units",
        },
        figures=tuple(
            (measure, "strategy", {"tasks_per_node": load})
            for load in LOAD_MODELS
            for measure in ("q", "l_min", "l_max", "ms")
        ),
    )
)
