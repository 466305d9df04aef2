"""A compiled EASY run's windows as parts (``flow.easy``): each window's nodes in one pass.

EASY on a million Lublin jobs places some 30 million parts. Laying them out in the schedule's
order in numpy took six passes over them (a repeat for each column, an index, a gather, a sort
of each job's nodes by width class), 2–3 s, half of the run; here it is two.
``tests/engine/test_kernels.py`` holds it to that numpy.
"""

from __future__ import annotations

import numpy as np

from workbench.engine.kernels.jit import compiled


@compiled
def window_parts(
    ordered: np.ndarray, offset: np.ndarray, width: np.ndarray, hosts: np.ndarray, position: np.ndarray,
    part_node: np.ndarray,
) -> None:
    """For each window ``w`` (job ``ordered[w]``, its ``width`` columns at ``hosts[offset:]``): its
    nodes' positions (``position`` of each column), sorted, one row per part, window after window."""
    k = 0
    for w in range(ordered.size):
        j = ordered[w]
        first = k
        in_order = True
        for q in range(width[j]):
            node = position[hosts[offset[j] + q]]
            if k > first and node < part_node[k - 1]:
                in_order = False
            part_node[k] = node
            k += 1
        if not in_order:
            part_node[first:k].sort()


@compiled
def window_rows(width: np.ndarray, length: np.ndarray, part_window: np.ndarray, part_length: np.ndarray) -> None:
    """Each part's window and length, window after window (``width[w]`` parts of length ``length[w]``
    each): ``np.repeat`` twice in one pass, without the GIL (numpy's holds it, 100 ms and more
    for the 6 million parts of 200,000 windows, in which the window could not paint)."""
    k = 0
    for w in range(width.size):
        for _ in range(width[w]):
            part_window[k] = w
            part_length[k] = length[w]
            k += 1
