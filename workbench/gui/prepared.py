"""What the window shows of a result, computed in the worker thread so the GUI thread only draws.

After a run, the worker also builds the free slots left by the local tasks and the
windows (the chart draws them faintly), the windows' parts and the picture's right
edge (0.15 s of the GUI thread's time at 28,000 jobs; the released tails that later windows
cover whole are left out, as they change no pixel), each window's colour under Colour by ▸
Job (0.1 s more while the worker runs Python beside it), and the flow and per-job measures
(the Metrics panel) and the run's overview (the strip under the chart). The GUI thread looks
them up by the schedule object; anything not prepared (a step in Cycles mode, say) is computed on
the spot as before.
No Qt objects here.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.engine.metrics import FlowMetrics, JobMetrics, flow_metrics, job_rows, window_arrays
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.engine.simulate import collection_paused
from workbench.engine.slots import SlotTable
from workbench.engine.timeline import Overview, overview
from workbench.gui.gantt.geometry import (
    ROW_HEIGHT,
    LayerData,
    Parts,
    layer_data,
    paint_order,
    slot_bars,
    uncovered_tails,
    visible_end,
    window_parts,
)
from workbench.gui.gantt.overview import strip_curves
from workbench.gui.palette import job_groups

KEEP = 8  # results kept: the live one and a Compare of up to seven more
FREEZE_FROM = 10_000  # windows from which a prepared result's records are kept from the collector


@dataclass(frozen=True)
class Prepared:
    env: Environment
    schedule: Schedule
    free: SlotTable
    metrics: FlowMetrics
    jobs: Sequence[JobMetrics]
    actual_ends: dict[str, float]  # each window's job's actual end
    parts: Parts  # the windows' parts, on rows in the environment's node order, by colour (``by_colour``)
    visible_end: float  # the right edge of the picture
    by_job: np.ndarray  # each window's palette entry under Colour by ▸ Job (``palette.job_groups``)
    overview: Overview  # the whole run's busy share and queue (the overview strip)
    # The windows' and the free slots' layers on the default rows (node order, no sites) under
    # Colour by ▸ Job, worked out for the chart (``geometry.LayerData``); None on a grid with sites.
    window_layer: LayerData | None = None
    slot_layer: LayerData | None = None


_lock = threading.Lock()
_kept: list[Prepared] = []


def prepare(env: Environment, schedule: Schedule) -> Prepared:
    """Compute, keep and return what the window needs of ``schedule`` (call it off the GUI thread).

    A large result's records (its windows, made here from a compiled run's columns, and the jobs)
    are then moved out of the cycle collector's reach (``keep_from_collector``)."""
    with collection_paused():
        done = _prepare(env, schedule)
        if len(schedule.windows) >= FREEZE_FROM:
            keep_from_collector()
    return done


def keep_from_collector() -> None:
    """Move every object the collector tracks into its permanent generation (``gc.freeze``).

    A result of 200,000 jobs is millions of records that live as long as the document and form no
    cycles. Made while the collector was held off, they all sat in its youngest generation, and
    its next pass, in whichever thread allocated next, walked them all holding the GIL: 160 ms
    in which the window could not paint. Frozen, no pass walks them again; they are still freed
    by reference counting when the document goes. The cost: cyclic garbage alive at this moment
    is never collected (a finished run leaves a few generator frames)."""
    gc.freeze()


def _prepare(env: Environment, schedule: Schedule) -> Prepared:
    a = schedule.arrays
    base = SlotTable.from_environment(env)
    if a is not None:  # a compiled run's windows, as columns
        start = a.start[a.part_window]
        free = base.reserve_parts(a.part_node, start, start + a.part_length)
        ends = dict(schedule.actual_ends)
    else:
        free = base.reserve(schedule.windows)
        ends = {w.job: schedule.actual_end(env, w) for w in schedule.windows}
    columns = window_arrays(env, schedule)  # read once, for the flow's measures and the job rows
    per_job = job_rows(env, schedule, arrays=columns)  # made into rows as the Metrics table reads them
    by_job = job_groups(schedule.windows)
    schedule.window_of("")  # its windows by job, made here: the tables look them up (200,000: 30 ms)
    free.busy_by_node  # noqa: B018 (the busy intervals by node, for the tooltips: made here, kept)
    parts = by_colour(uncovered_tails(window_parts(env, schedule.windows, ends, None, arrays=a)), by_job)
    end = visible_end(env, schedule.windows)
    layers = (None, None) if env.site_ids else default_layers(parts, by_job, free, end)
    strip = overview(env, schedule)
    strip_curves(strip)  # the overview strip's curves, kept with it
    done = Prepared(
        env,
        schedule,
        free,
        flow_metrics(env, schedule, arrays=columns),
        per_job,
        ends,
        parts,
        end,
        by_job,
        strip,
        *layers,
    )
    with _lock:
        _kept.append(done)
        del _kept[:-KEEP]
    return done


def default_layers(parts: Parts, by_job: np.ndarray, free: SlotTable, end: float) -> tuple[LayerData, LayerData]:
    """The windows' and the free slots' layers as the chart draws a result on its default rows (each
    node its own row, in node order: y is the node's position) under Colour by ▸ Job."""
    n = parts.x.size
    windows = layer_data(parts.x, parts.y, parts.width, np.full(n, ROW_HEIGHT), by_job[parts.window], parts.node)
    m = free.size
    top, height = slot_bars(free.node.astype(float), np.full(m, ROW_HEIGHT))
    slots = layer_data(
        free.start, top, np.minimum(free.end, end) - free.start, height, np.zeros(m, dtype=np.int64),
        free.node.astype(np.int64),
    )  # fmt: skip
    return windows, slots


def by_colour(parts: Parts, by_job: np.ndarray) -> Parts:
    """The parts in the order the chart paints them under Colour by ▸ Job (``paint_order``). The
    layer then has nothing to sort and gathers nothing (at 218,000 parts the GUI thread's gathers in
    a shuffled order took 35 ms)."""
    return parts.parts_at(paint_order(by_job[parts.window]))


def lookup(env: Environment, schedule: Schedule | None, drawing: bool = False) -> Prepared | None:
    """What was prepared for exactly this schedule object on this environment, if anything. With
    ``drawing`` (what the chart draws of it: the windows' parts, the free slots, the colours), an
    environment of the same frame will do (``same_frame``): an edit of a job's fields, and its undo,
    leave the picture of the result on screen as it was."""
    if schedule is None:
        return None
    with _lock:
        for done in reversed(_kept):
            if done.schedule is schedule and (done.env is env or (drawing and same_frame(done.env, env))):
                return done
    return None


def same_frame(a: Environment, b: Environment) -> bool:
    """Do ``a`` and ``b`` have the same nodes, local tasks, time settings and sites, and the same job
    ids in the same order? Then a schedule of ``a`` draws on ``b`` exactly as on ``a``."""
    if a is b:
        return True
    if a.nodes != b.nodes or a.local_tasks != b.local_tasks or a.time != b.time or a.sites != b.sites:
        return False
    return a.jobs is b.jobs or a.job_index is b.job_index or a.job_index == b.job_index
