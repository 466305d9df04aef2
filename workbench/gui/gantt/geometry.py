"""What a Gantt picture shows, as numpy arrays in data coordinates (time, row).

The interactive chart and the exported figure draw from the same geometry, so
an exported figure can never disagree with the screen. Nothing here paints.

Rows: node k of the environment occupies [k, k + ROW_HEIGHT) on the row axis.
A window has one *part* per node. What ran is solid up to the job's actual end;
once a job has finished early, the rest of its window is *released* (drawn
apart), so no two solid parts ever share a node at the same time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.engine.model import EPS, Environment, Window
from workbench.engine.schedule import WindowArrays

# View ▸ Time unit lives with the number formatting; the chart and the figure read it from here too.
from workbench.gui.numbers import TIME_UNITS as TIME_UNITS
from workbench.gui.numbers import in_unit as in_unit
from workbench.gui.numbers import number
from workbench.gui.numbers import time_label as time_label
from workbench.gui.numbers import unit_menu_text as unit_menu_text

ROW_HEIGHT = 0.8


@dataclass(frozen=True)
class Parts:
    """One entry per (window, node); ``released_*`` is the given-back tail of early finishes."""

    window: np.ndarray  # index into the window list
    x: np.ndarray
    y: np.ndarray  # row of the node
    width: np.ndarray  # up to the solid end
    planned: np.ndarray  # reserved but not started at ``now``
    solid_end: np.ndarray  # per window
    released_x: np.ndarray
    released_y: np.ndarray
    released_width: np.ndarray
    node: np.ndarray  # the node position of each part
    released_node: np.ndarray

    def parts_at(self, index: np.ndarray) -> Parts:
        """Only the window parts ``index`` picks (a mask, or an order), the tails as they are."""
        return self._taking(("window", "x", "y", "width", "planned", "node"), index)

    def tails_at(self, index: np.ndarray) -> Parts:
        """Only the released tails ``index`` picks, the window parts as they are."""
        return self._taking(("released_x", "released_y", "released_width", "released_node"), index)

    def _taking(self, names: tuple[str, ...], index: np.ndarray) -> Parts:
        return dataclasses.replace(self, **{name: getattr(self, name)[index] for name in names})


def paint_order(group: np.ndarray) -> np.ndarray:
    """The order a layer paints rectangles in: by colour group, stably. Group numbers that fit in
    16 bits sort as such, which numpy sorts by radix (218,000 parts: 1 ms, not 17)."""
    small = group.size == 0 or int(group.max()) < np.iinfo(np.int16).max
    return np.argsort(group.astype(np.int16) if small else group, kind="stable")


def solid_end(window: Window, actual_end: float, now: float | None) -> float:
    """Where a window's solid part ends: its actual end once its job has finished early.

    ``now`` is the time of a simulation step (None: the run is over).
    """
    finished = now is None or actual_end <= now + EPS
    return actual_end if finished and actual_end < window.end - EPS else window.end


def window_parts(
    env: Environment,
    windows: Sequence[Window],
    actual_ends: Mapping[str, float],
    now: float | None,
    row_of: np.ndarray | None = None,
    arrays: WindowArrays | None = None,
) -> Parts:
    """``row_of[k]``: where the k-th node of the environment is drawn (default: its own position;
    ``RowLayout.y`` for a layout's, collapsed machines' lanes included). ``arrays``: the windows as
    columns (``Schedule.arrays``, square windows), read instead of the windows one by one."""
    from_arrays = arrays is not None and now is None
    if arrays is not None and from_arrays:
        owner, starts, positions = arrays.part_window, arrays.start, arrays.part_node
        ends = arrays.start + arrays.length
        solid = np.where(arrays.actual < ends - EPS, arrays.actual, ends)  # ``solid_end`` once finished
    else:
        index = env.node_index
        counts = np.fromiter((len(w.nodes) for w in windows), np.int64, len(windows))
        owner = np.repeat(np.arange(len(windows)), counts)
        starts = np.fromiter((w.start for w in windows), float, len(windows))
        ends = np.fromiter((w.end for w in windows), float, len(windows))
        solid = np.fromiter((solid_end(w, actual_ends.get(w.job, w.end), now) for w in windows), float, len(windows))
        positions = np.fromiter((index[n] for w in windows for n in w.nodes), np.int64, int(counts.sum()))
    rows = (row_of[positions] if row_of is not None else positions).astype(float)
    x = starts[owner]
    part_end, part_solid = ends[owner], solid[owner]
    if not from_arrays and any(w.lengths for w in windows):
        # A rough right edge: each part ends on its own, and finishes early in the same proportion.
        lengths = np.fromiter((length for w in windows for length in w.part_lengths), float, x.size)
        share = lengths / np.maximum((ends - starts)[owner], EPS)
        part_end = x + lengths
        part_solid = x + (part_solid - x) * share
    planned = x > now + EPS if now is not None else np.zeros(x.size, dtype=bool)
    cut = part_solid < part_end - EPS
    return Parts(
        window=owner,
        x=x,
        y=rows,
        width=part_solid - x,
        planned=planned,
        solid_end=solid,
        released_x=part_solid[cut],
        released_y=rows[cut],
        released_width=(part_end - part_solid)[cut],
        node=positions,
        released_node=positions[cut],
    )


def uncovered_tails(parts: Parts) -> Parts:
    """``parts`` without the released tails that later windows' parts cover whole on their node.

    The tails lie under the windows (lower, and inside their bars), so a covered one changes no
    pixel; on a saturated trace most are covered (the whole KTH trace under EASY: 215,000 tails
    beside 218,000 window parts). A tail [a, b) on a node is covered when a run of that node's
    window parts, each starting where the one before ends, starts by a and ends at b or later."""
    if parts.released_x.size == 0 or parts.x.size == 0:
        return parts
    order = np.lexsort((parts.x, parts.node))
    node, start = parts.node[order], parts.x[order]
    end = start + parts.width[order]
    # Runs of touching parts on a node: a run begins where the node changes or a gap opens.
    begins = np.ones(node.size, dtype=bool)
    begins[1:] = (node[1:] != node[:-1]) | (start[1:] > end[:-1] + EPS)
    first = np.flatnonzero(begins)
    run_node, run_start, run_end = node[first], start[first], np.maximum.reduceat(end, first)
    # Runs and tails in one order (node, time, runs first at a tie): each tail's last run before it.
    runs, tails = run_node.size, parts.released_x.size
    a = parts.released_x
    b = a + parts.released_width
    key_node = np.concatenate([run_node, parts.released_node])
    key_time = np.concatenate([run_start, a + EPS])
    kind = np.concatenate([np.zeros(runs, np.int8), np.ones(tails, np.int8)])
    merged = np.lexsort((kind, key_time, key_node))
    last_run = np.where(merged < runs, merged, -1)
    np.maximum.accumulate(last_run, out=last_run)
    at_tail = merged >= runs
    tail = merged[at_tail] - runs
    run = last_run[at_tail]
    found = run >= 0
    covered = np.zeros(tails, dtype=bool)
    covered[tail[found]] = (run_node[run[found]] == parts.released_node[tail[found]]) & (
        run_end[run[found]] >= b[tail[found]] - EPS
    )
    return parts.tails_at(~covered)


def visible_end(env: Environment, windows: Sequence[Window]) -> float:
    """The right edge of the picture: the horizon, or a little past the last thing drawn."""
    if env.time.horizon is not None:
        return env.time.horizon
    ends = [w.end for w in windows] + [t.end for t in env.local_tasks] + [env.time.start + 1.0]
    return max(ends) * 1.05


def cycle_marks(env: Environment, end: float, limit: int = 500) -> list[float]:
    """The cycle boundaries inside the picture (at most ``limit``)."""
    t = env.time
    if not t.cycle_length:
        return []
    stop = t.horizon if t.horizon is not None else end
    out: list[float] = []
    k = 1
    while t.start + k * t.cycle_length < stop - EPS and k < limit:
        out.append(t.start + k * t.cycle_length)
        k += 1
    return out


def nice_ticks(lo: float, hi: float, most: int) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) inside [lo, hi], at most ``most``."""
    span = hi - lo
    if not np.isfinite(span) or span <= 0 or most < 1:
        return [lo]
    raw = span / most
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw - 1e-12 * raw)
    first = np.ceil(lo / step - 1e-9) * step
    ticks = np.arange(first, hi + step * 1e-9, step)
    return [float(round(v / step) * step) for v in ticks]


def node_label(node_name: str, performance: str, price: str) -> str:
    return f"{node_name}  p={performance}  c={price}"


# View ▸ Sort node rows: the environment's own order, or by performance or price.
ROW_ORDERS = {
    "list": "Environment order",
    "performance": "Performance, fastest first",
    "price": "Price, cheapest first",
}


@dataclass(frozen=True)
class RowLayout:
    """Which row each node is drawn on, and the header rows of a grid's sites (seed 004).

    Without sites every row is a node. With sites the nodes are grouped by site, in the
    environment's site order, each group under a header row that names the site; inside
    a group the View ▸ Sort node rows choice applies.
    """

    row_of: np.ndarray  # node position -> row (a collapsed site's nodes: its header row)
    node_at: np.ndarray  # row -> node position; -1 on a header row
    headers: tuple[tuple[int, str], ...] = ()  # (row, label) of each site header
    header_sites: tuple[str, ...] = ()  # the site of each header, in the same order
    # Where each node's bar is drawn and how tall: its row and ROW_HEIGHT, or, on a collapsed
    # machine's lane, a thin strip of it (the k-th of N nodes at row + k·ROW_HEIGHT/N), so that the
    # lane shows how much of the machine is busy, not only whether any of it is.
    y: np.ndarray = field(default_factory=lambda: np.empty(0))
    h: np.ndarray = field(default_factory=lambda: np.empty(0))

    @property
    def count(self) -> int:
        return int(self.node_at.size)

    def node(self, row: int) -> int | None:
        """The node position drawn on ``row``, or None (a header, or outside the chart)."""
        if 0 <= row < self.node_at.size and self.node_at[row] >= 0:
            return int(self.node_at[row])
        return None

    def nearest_node_row(self, row: int) -> int | None:
        """The node row closest to ``row`` (a drag over a header lands on a node); None when every
        site is collapsed."""
        rows = np.flatnonzero(self.node_at >= 0)
        return int(rows[np.argmin(np.abs(rows - row))]) if rows.size else None

    def site_at(self, row: int) -> str | None:
        """The site whose header is ``row``, or None."""
        return next((site for (r, _), site in zip(self.headers, self.header_sites, strict=True) if r == row), None)


def row_layout(env: Environment, order: str, collapsed: frozenset[str] | set[str] = frozenset()) -> RowLayout:
    """The rows of ``env`` under a View ▸ Sort node rows choice, grouped by site when it has sites.

    A site in ``collapsed`` keeps only its header row, and its nodes are drawn on it: one lane
    that shows when the machine is busy."""
    count = len(env.nodes)
    if order == "performance":
        ranked = sorted(range(count), key=lambda k: (-env.nodes[k].performance, k))
    elif order == "price":
        ranked = sorted(range(count), key=lambda k: (env.nodes[k].price, k))
    else:
        ranked = list(range(count))
    headers: list[tuple[int, str]] = []
    sites: list[str] = []
    folded: list[tuple[list[int], int]] = []  # a collapsed site's nodes and its header row
    if env.site_ids:
        groups: dict[str, list[int]] = {site: [] for site in env.site_ids}
        for k in ranked:
            groups.setdefault(env.nodes[k].site, []).append(k)  # "": nodes of no site, last
        node_at: list[int] = []
        for site, members in groups.items():
            if not members:
                continue
            name = env.site_name(site) if site else "no site"
            shut = site in collapsed
            # The triangle says what a click on the header does: collapse the machine, or open it.
            headers.append((len(node_at), f"{'▸' if shut else '▾'} {name} · {len(members)} nodes"))
            sites.append(site)
            if shut:
                folded.append((members, len(node_at)))
            node_at.append(-1)
            if not shut:
                node_at.extend(members)
        at = np.array(node_at, dtype=np.int64)
    else:
        at = np.array(ranked, dtype=np.int64)
    row_of = np.empty(count, dtype=np.int64)
    nodes = at >= 0
    row_of[at[nodes]] = np.flatnonzero(nodes)
    y = row_of.astype(float)
    h = np.full(count, ROW_HEIGHT)
    for members, header in folded:
        row_of[members] = header
        strip = ROW_HEIGHT / len(members)
        y[members] = header + strip * np.arange(len(members))
        h[members] = strip
    return RowLayout(row_of, at, tuple(headers), tuple(sites), y, h)


def row_labels(env: Environment, layout: RowLayout) -> list[str]:
    """The left axis text of every row: a node's name, performance and price, or a site header."""
    header = dict(layout.headers)
    labels = []
    for row, k in enumerate(layout.node_at):
        if k < 0:
            labels.append(header[row])
        else:
            node = env.nodes[int(k)]
            labels.append(node_label(node.name, number(node.performance), number(node.price)))
    return labels


def pixel_runs(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The runs of filled cells of each row of ``cells`` (rows × columns of codes, 0 for empty, its
    first and last columns empty): (row, first column less one, last column, code) of each run of
    one code, in row order. The level of detail of the chart and of the exported figure draws each
    run as one rectangle, in its code's colour."""
    rows, edges = np.nonzero(cells[:, 1:] != cells[:, :-1])  # a run starts or ends after each
    code = cells[rows, edges + 1]
    opens = np.flatnonzero(code)  # where a run starts; the next edge (in its row) ends it
    return rows[opens], edges[opens], edges[opens + 1], code[opens]


def slot_bars(y: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a free slot is drawn on a node's row (y, height of the node's bar): the middle half of
    the bar, faint (the chart's and the worker's prepared layer alike)."""
    return y + ((1 - ROW_HEIGHT) / 2 + 0.25 * ROW_HEIGHT) * h / ROW_HEIGHT, 0.5 * h


@dataclass(frozen=True)
class LayerData:
    """A ``RectLayer``'s rectangles worked out ahead, off the GUI thread: in paint order (``group``
    ascending), with their rows, each row's y and height, the bounds and the usual height, so that
    the layer only stores them (at 6 million window parts, working them out took the GUI thread
    about 0.3 s)."""

    x: np.ndarray
    y: np.ndarray
    w: np.ndarray
    h: np.ndarray
    group: np.ndarray
    row: np.ndarray
    row_y: np.ndarray
    row_h: np.ndarray
    bounds: tuple[float, float, float, float]  # left, top, right, bottom
    median_h: float


def layer_data(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, h: np.ndarray, group: np.ndarray, row: np.ndarray
) -> LayerData:
    """``LayerData`` of rectangles already in paint order whose rows (``row``: none, for a layer that
    has no level of detail) share their y and height."""
    rows = int(row.max()) + 1 if row.size else 0
    row_y, row_h = np.zeros(rows), np.zeros(rows)
    if row.size:
        row_y[row], row_h[row] = y, h
    if x.size:
        bounds = (float(x.min()), float(y.min()), float((x + w).max()), float((y + h).max()))
    else:
        bounds = (0.0, 0.0, 0.0, 0.0)
    median = float(np.median(h[:: max(1, h.size // 10_000)])) if h.size else 0.0
    return LayerData(x, y, w, h, group, row, row_y, row_h, bounds, median)
