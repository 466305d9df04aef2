"""A whole pass of dynamic conservative backfilling (``flow.backfill._Replanner._pass``) in one
call: every re-check in queue order, and the moves FirstFit's, PAST's or CoP's search decides."""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.certificates import unverify
from workbench.engine.kernels.earliest import FINISH_SLACK, earliest_in_lists
from workbench.engine.kernels.edits import delete_listed, insert_listed
from workbench.engine.kernels.gaps import holding_gap
from workbench.engine.kernels.jit import compiled
from workbench.engine.kernels.placement import PLACE_FINISH, PLACE_NONE, placement_in_rows
from workbench.engine.kernels.types import Freed, JobShapes, Lists, Moves, Nodes, PassEnd, Queue, Rows, Scratch, Shape
from workbench.engine.model import EPS

# What ``replan_pass`` stopped at: the end of the queue, a job whose earlier feasible window the
# selector must judge (Python searches it), a row with no spare column for a move, or the job
# that Python checks itself (the one "Why here?" watches).
PASS_DONE, PASS_SELECTOR, PASS_WIDEN, PASS_PYTHON = 0, 1, 2, 3
RANGE_SLACK = 4 * EPS  # a re-check's range reaches this far past the freed gap's end (``unverify``'s EPS)


@compiled
def replan_pass(
    rows: Rows,
    nodes: Nodes,
    shapes: JobShapes,
    queue: Queue,
    moves: Moves,
    gaps: Scratch,
    lists: Lists,
    factor: float,
    resolution: float,
    now: float,
    cursor: int,
    move: np.ndarray,
    place: np.ndarray,
    consts: np.ndarray,
    explain: bool,
    stop_at: int,
) -> PassEnd:
    """``backfill._Replanner._pass`` from the job after ``cursor``: every active job whose
    certificate is cleared is searched again (FirstFit, its own intervals given back, before its
    reservation); one with no earlier window gets its certificate. A job j that has one moves there
    at once when ``move[j]`` (FirstFit's window is the selector's), as ``_move`` does, and the move
    is written to ``moves``. A job whose selector is PAST's or CoP's exact search with no budget
    (``place[j]``, their constants ``consts``) gets that search here (``placement_in_rows``), as
    does one under the finish-time criterion (PLACE_FINISH: ``earliest_in_lists`` with ``finish``), and
    moves if its window starts earlier, as ``_choose`` decides; for any other, the pass stops at
    it for the selector.

    ``moves`` gets each part's L_left and L_right too with ``explain``, as ``slots.window_distances``
    measures them on the gaps the search saw. The pass stops before job ``stop_at`` (-1: none).
    ``lists``: room for each row's gaps (a row's width plus one), the shortest window of any job and
    a number of intervals per row: where the rows hold that many intervals or more on average, the
    re-checks read each row's gaps that long (``gaps_in_lists``), listed when first read and again
    after a move edits the row.

    Returns where it stopped, the moves written, the counts (checks, certificates cleared, PAST
    and CoP searches) and the job it stopped at with its level index, start and nodes.
    """
    bs, count = rows.bs, rows.size
    live, active, verified, arrival, start, lower, upper = (
        queue.live, queue.active, queue.verified, queue.arrival, queue.start, queue.lower, queue.upper
    )
    none = np.empty(0, dtype=np.int64)
    written = 0
    nodes_written = 0
    checks = 0
    cleared = 0
    placed = 0
    width = bs.shape[1]
    lists.size[:] = -1  # every row is listed when first read (``gaps_in_lists``)
    # Lists pay where rows are long and mostly abut (a saturated plan), not where they are short.
    listed = count.sum() >= lists.list_from * count.size
    for idx in range(live.size):
        j = live[idx]
        if j <= cursor or not active[j] or verified[j]:
            continue
        if j == stop_at:
            return PassEnd(PASS_PYTHON, written, checks, cleared, placed, j, -1, 0.0, none)
        checks += 1
        n = shapes.n[j]
        earliest = max(arrival[j], now)
        before = start[j]
        short = shapes.shortest[j]
        if short == math.inf:  # fewer than n nodes
            verified[j] = True
            continue
        a, m = shapes.lvl_off[j], shapes.lvl_cnt[j]
        b = shapes.len_off[j]
        my_lengths = shapes.lengths[b : b + m]
        c0, cn = shapes.col_off[j], shapes.col_cnt[j]
        shape = Shape(shapes.cols[c0 : c0 + cn], shapes.levels[a : a + m], my_lengths, n, shapes.budget[j], resolution)
        # Only where a freed gap could have opened a window (``unverify``'s range): none started
        # before ``before`` when the job was last verified.
        low = max(earliest, lower[j])
        high = min(before, upper[j] + RANGE_SLACK)
        at = shapes.node_off[j]
        own = shapes.nodes[at : at + n].copy() if before < math.inf else none  # its rows
        k, t, chosen = earliest_in_lists(
            rows, lists, listed, own, nodes, shape, low, high, j, before, gaps, short, False
        )
        if k < 0 or t >= before - EPS:
            verified[j] = True  # no feasible window starts earlier
            continue
        # FirstFit's window is the earliest there is: a move there is checked for good.
        settled = True
        if not move[j]:
            if place[j] == PLACE_NONE:
                return PassEnd(PASS_SELECTOR, written, checks, cleared, placed, j, k, t, chosen)
            first = t
            placed += 1
            # No window starts before FirstFit's (none before ``low`` either: the certificate), so the
            # criterion's search reads the rows from there on, not from the job's earliest start.
            if place[j] == PLACE_FINISH:
                # FirstFit's window is one of the candidates: none that finishes later can win,
                # so none starts after its finish less the shortest length (and a margin for rounding).
                finish = t + my_lengths[k]
                reach = finish - short + FINISH_SLACK * (1.0 + abs(finish))
                k, t, chosen = earliest_in_lists(
                    rows, lists, listed, own, nodes, shape, first, reach, j, before, gaps, short, True
                )
            else:
                k, t, chosen, _ = placement_in_rows(
                    rows, nodes, shape, place[j], consts, first, first, j, gaps, lists, listed, own, before
                )
            if k < 0 or t >= before - EPS:
                verified[j] = False  # an earlier window exists but the criterion prefers this one
                lower[j], upper[j] = -math.inf, math.inf
                continue
            settled = t <= first + EPS
        new = np.sort(chosen)
        for x in new:
            if count[x] + 1 >= width:
                return PassEnd(PASS_WIDEN, written, checks - 1, cleared, placed - (not move[j]), j, k, t, none)
        length = my_lengths[k]
        if explain:
            for q in range(n):
                gs, ge = holding_gap(rows, new[q], t, t + length, j)
                moves.left[nodes_written + q] = t - gs
                moves.right[nodes_written + q] = 0.0 if ge == math.inf else ge - (t + length)
        if before < math.inf:  # give back the old window; test its gaps before the new one takes any
            old = shapes.nodes[at : at + n].copy()
            ends = np.full(n, before + shapes.length[j])
            if delete_listed(rows, lists, old, before, ends) >= 0:
                raise ValueError("a moved window is not in the profile")
            cleared += unverify(rows, nodes.perf, Freed(old, np.full(n, before), ends), queue, factor, now, j)
        insert_listed(rows, lists, new, t, np.full(n, t + length), j)
        shapes.nodes[at : at + n] = new
        shapes.length[j] = length
        start[j] = t
        active[j] = t > earliest + EPS
        verified[j] = settled
        if not settled:
            lower[j], upper[j] = -math.inf, math.inf
        moves.job[written] = j
        moves.level[written] = k
        moves.start[written] = t
        moves.nodes[nodes_written : nodes_written + n] = new
        written += 1
        nodes_written += n
    return PassEnd(PASS_DONE, written, checks, cleared, placed, -1, -1, 0.0, none)
