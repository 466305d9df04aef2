"""The engine's compiled loops (numba): a ``Profile``'s rows (the earliest window, the row edits of a
move, the certificate test) and host-level EASY.

Dynamic conservative backfilling on a saturated flow asks hundreds of thousands of
small questions ("does job j have a window before its reservation?") and makes a
hundred thousand small edits (a job moves: its intervals leave one place in each
row and enter another). Each question reads a few dozen gaps; in numpy every one
still costs some twenty array calls, so the calls, not the work, set the time
(measured on the first 5,000 KTH jobs compressed 3×: 685,000 checks at 285 µs,
`workbench bench --only saturation`). These loops do the same work in compiled code.
EASY on identical hosts is one loop over events; in Python it cannot be twice as fast
as a careful Python EASY (``lab/baseline.py``) that records nothing.

numba compiles them on first use and caches the machine code beside this file
(``cache=True``), so only the first run on a machine pays for the compilation.
Each kernel is held by a test to code that does not use it: ``earliest_in_rows`` to
``firstfit.first_fit`` on ``Profile.gaps``; the row edits to a full rebuild of the slot
table (``test_profile_gaps_are_the_full_tables_slots_in_range``); ``unverify`` and the
rest of dynamic backfilling to ``tests/engine/reference_backfill.py``; ``easy_hosts``
to the stepped EASY and the textbook ones.
"""

from workbench.engine.kernels.easy import EVENTS, HEAP, NFREE, NXT, QLEN, SEQ, easy_hosts, easy_nodes
from workbench.engine.kernels.placement import PLACE_COP, PLACE_FINISH, PLACE_NONE, PLACE_PAST, placement_in_rows
from workbench.engine.kernels.replan import PASS_DONE, PASS_PYTHON, PASS_SELECTOR, PASS_WIDEN, replan_pass
from workbench.engine.kernels.rows import EPS, UNITS_CAP, delete_rows, earliest_in_rows, insert_rows, unverify

__all__ = [
    "EPS",
    "EVENTS",
    "HEAP",
    "NFREE",
    "NXT",
    "PASS_DONE",
    "PASS_PYTHON",
    "PASS_SELECTOR",
    "PASS_WIDEN",
    "PLACE_COP",
    "PLACE_FINISH",
    "PLACE_NONE",
    "PLACE_PAST",
    "QLEN",
    "SEQ",
    "UNITS_CAP",
    "delete_rows",
    "earliest_in_rows",
    "easy_hosts",
    "easy_nodes",
    "insert_rows",
    "placement_in_rows",
    "replan_pass",
    "unverify",
]
