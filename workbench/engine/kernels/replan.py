"""A whole pass of dynamic conservative backfilling (``flow.backfill._Replanner._pass``) in one
call: every re-check in queue order, and the moves FirstFit's, PAST's or CoP's search decides."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from workbench.engine.kernels.placement import PLACE_FINISH, PLACE_NONE, placement_in_rows
from workbench.engine.kernels.rows import (
    EPS,
    FINISH_SLACK,
    _holding_gap,
    delete_rows,
    earliest_in_lists,
    insert_rows,
    unverify,
)

PASS_DONE, PASS_SELECTOR, PASS_WIDEN, PASS_PYTHON = 0, 1, 2, 3
RANGE_SLACK = 4 * EPS  # a re-check's range reaches this far past the freed gap's end (``unverify``'s EPS)


@njit(cache=True, nogil=True)
def replan_pass(
    rows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    nodes: tuple[np.ndarray, np.ndarray, np.ndarray],
    shapes: tuple[np.ndarray, ...],
    queue: tuple[np.ndarray, ...],
    moves: tuple[np.ndarray, ...],
    scratch: tuple[np.ndarray, np.ndarray],
    istart: float,
    iend: float,
    factor: float,
    resolution: float,
    now: float,
    cursor: int,
    move: np.ndarray,
    place: np.ndarray,
    consts: np.ndarray,
    explain: bool,
    stop_at: int,
    lists: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> tuple[int, int, int, int, int, int, int, int, float, np.ndarray]:
    """``backfill._Replanner._pass`` from the job after ``cursor``: every active job whose
    certificate is cleared is searched again (FirstFit, its own intervals given back, before its
    reservation); one with no earlier window gets its certificate. A job j that has one moves there
    at once when ``move[j]`` (FirstFit's window is the selector's), as ``_move`` does, and the move
    is written to ``moves``. A job whose selector is PAST's or CoP's exact search with no budget
    (``place[j]``, their constants ``consts``) gets that search here (``placement_in_rows``), as
    does one under the finish-time criterion (PLACE_FINISH: ``earliest_in_lists`` with ``finish``), and
    moves if its window starts earlier, as ``_choose`` decides; for any other, the pass stops at
    it for the selector.

    ``rows``: the profile's (bs, be, owner, count); ``nodes``: (perf, price, rank);
    ``shapes``: per job (n, budget units or -1, column offset, column count, the columns,
    level offset, level count, the levels, length offset, the lengths, node offset, the nodes
    of its window, its part length); ``queue``: (live, active, verified, arrival, volume,
    min_perf, start, and the range [lower, upper) where a job not verified is searched,
    ``unverify``'s); ``moves``: (job, level, start, the nodes of each move in turn, and with
    ``explain`` each part's L_left and L_right, as ``slots.window_distances`` measures them on
    the gaps the search saw). The pass stops before job ``stop_at`` (-1: none). ``lists``: room
    for each row's gaps (a row's width plus one) and (the shortest window of any job, a number of
    intervals per row): where the rows hold that many intervals or more on average, the re-checks
    read each row's gaps that long (``gaps_in_lists``), listed when first read and again after a
    move edits the row.

    Returns (what it stopped at, moves written, nodes written, checks, certificates cleared,
    PAST and CoP searches, the job, its level index, its start, its nodes).
    """
    bs, be, owner, count = rows
    perf, price, rank = nodes
    n_of, budget, col_off, col_cnt, cols, lvl_off, lvl_cnt, levels, len_off, lengths, jn_off, jnodes, jlen = shapes[:13]
    short = shapes[13]  # each job's shortest window (``rows._shortest``)
    live, active, verified, arrival, volume, min_perf, top, start, lower, upper = queue
    mv_job, mv_level, mv_start, mv_nodes, mv_left, mv_right = moves
    scratch_i, scratch_f = scratch
    none = np.empty(0, dtype=np.int64)
    written = 0
    nodes_written = 0
    checks = 0
    cleared = 0
    placed = 0
    width = bs.shape[1]
    gcount = lists[2]
    gcount[:] = -1  # every row is listed when first read (``gaps_in_lists``)
    # Lists pay where rows are long and mostly abut (a saturated plan), not where they are short.
    listed = count.sum() >= lists[3][1] * count.size
    for idx in range(live.size):
        j = live[idx]
        if j <= cursor or not active[j] or verified[j]:
            continue
        if j == stop_at:
            return PASS_PYTHON, written, nodes_written, checks, cleared, placed, j, -1, 0.0, none
        checks += 1
        n = n_of[j]
        earliest = max(arrival[j], now)
        before = start[j]
        if short[j] == math.inf:  # fewer than n nodes
            verified[j] = True
            continue
        my_levels = levels[lvl_off[j] : lvl_off[j] + lvl_cnt[j]]
        my_lengths = lengths[len_off[j] : len_off[j] + lvl_cnt[j]]
        # The rows, the nodes and the job's shape: what every search of job j reads.
        where = (bs, be, owner, count, istart, iend, perf, price, rank, cols[col_off[j] : col_off[j] + col_cnt[j]])
        shape = (my_levels, my_lengths, n)
        scratch = (scratch_i, scratch_f)
        # Only where a freed gap could have opened a window (``unverify``'s range): none started
        # before ``before`` when the job was last verified.
        low = max(earliest, lower[j])
        high = min(before, upper[j] + RANGE_SLACK)
        own = jnodes[jn_off[j] : jn_off[j] + n].copy() if before < math.inf else none  # its rows
        reader = (rows, lists, listed, own, istart, iend, perf, price, rank, where[-1])
        k, t, chosen = earliest_in_lists(
            *reader, *shape, budget[j], resolution, low, high, j, before, *scratch, short[j]
        )
        if k < 0 or t >= before - EPS:
            verified[j] = True  # no feasible window starts earlier
            continue
        # FirstFit's window is the earliest there is: a move there is checked for good.
        settled = True
        if not move[j]:
            if place[j] == PLACE_NONE:
                return PASS_SELECTOR, written, nodes_written, checks, cleared, placed, j, k, t, chosen
            first = t
            placed += 1
            # No window starts before FirstFit's (none before ``low`` either: the certificate), so the
            # criterion's search reads the rows from there on, not from the job's earliest start.
            if place[j] == PLACE_FINISH:
                # FirstFit's window is one of the candidates: none that finishes later can win,
                # so none starts after its finish less the shortest length (and a margin for rounding).
                finish = t + my_lengths[k]
                reach = finish - short[j] + FINISH_SLACK * (1.0 + abs(finish))
                k, t, chosen = earliest_in_lists(
                    *reader, *shape, budget[j], resolution, first, reach, j, before, *scratch, short[j], True
                )
            else:
                k, t, chosen, _ = placement_in_rows(
                    *where, *shape, place[j], consts, resolution, first, first, j, *scratch,
                    (lists, listed, own, before),
                )  # fmt: skip
            if k < 0 or t >= before - EPS:
                verified[j] = False  # an earlier window exists but the criterion prefers this one
                lower[j], upper[j] = -math.inf, math.inf
                continue
            settled = t <= first + EPS
        new = np.sort(chosen)
        for x in new:
            if count[x] + 1 >= width:
                return PASS_WIDEN, written, nodes_written, checks - 1, cleared, placed - (not move[j]), j, k, t, none
        length = my_lengths[k]
        if explain:
            for q in range(n):
                gs, ge = _holding_gap(bs, be, owner, count, istart, iend, new[q], t, t + length, j)
                mv_left[nodes_written + q] = t - gs
                mv_right[nodes_written + q] = 0.0 if ge == math.inf else ge - (t + length)
        if before < math.inf:  # give back the old window; test its gaps before the new one takes any
            old = jnodes[jn_off[j] : jn_off[j] + n].copy()
            ends = np.full(n, before + jlen[j])
            if delete_rows(bs, be, owner, count, old, before, ends) >= 0:
                raise ValueError("a moved window is not in the profile")
            gcount[old] = -1  # their lists are listed again when next read
            cleared += unverify(
                bs,
                be,
                owner,
                count,
                istart,
                iend,
                perf,
                old,
                np.full(n, before),
                ends,
                live,
                active,
                verified,
                arrival,
                volume,
                min_perf,
                top,
                start,
                lower,
                upper,
                factor,
                now,
                j,
            )
        insert_rows(bs, be, owner, count, new, t, np.full(n, t + length), j)
        gcount[new] = -1
        jnodes[jn_off[j] : jn_off[j] + n] = new
        jlen[j] = length
        start[j] = t
        active[j] = t > earliest + EPS
        verified[j] = settled
        if not settled:
            lower[j], upper[j] = -math.inf, math.inf
        mv_job[written] = j
        mv_level[written] = k
        mv_start[written] = t
        mv_nodes[nodes_written : nodes_written + n] = new
        written += 1
        nodes_written += n
    return PASS_DONE, written, nodes_written, checks, cleared, placed, -1, -1, 0.0, none
