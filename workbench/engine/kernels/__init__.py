"""The engine's compiled loops (numba): a ``Profile``'s rows (the earliest window, the row edits of a
move, the certificate test), the exact searches with no budget on them (PAST's, CoP's and the gap
criteria's; the candidates and members of any per-slot criterion's, a plug-in's, and its choice), a
whole pass of dynamic backfilling and history-free EASY, and the chart's level of detail (docs/design.md
"The compiled kernels").

Dynamic conservative backfilling on a saturated flow asks hundreds of thousands of
small questions ("does job j have a window before its reservation?") and makes a
hundred thousand small edits (a job moves: its intervals leave one place in each
row and enter another). Each question reads a few dozen gaps; in numpy every one
still costs some twenty array calls, so the calls, not the work, set the time
(measured on the first 5,000 KTH jobs compressed 3×: 685,000 checks at 285 µs,
`workbench bench --only saturation`). These loops do the same work in compiled code.
EASY on identical hosts is one loop over events; in Python it cannot be twice as fast
as a careful Python EASY (``lab/baseline.py``) that records nothing.

Python calls them only through the entries below (``boundary.Entry``): each declares its one
signature (``types``), is made ready once per process from the package's own disk cache
(``cache``) or compiled under its lock, and can be waited for at exit. The groups say which
entries a kind of run uses, so that a run prepares (and announces) just those before it starts.

Each kernel is held by a test to code that does not use it (tests/engine/test_kernels.py):
``earliest_in_rows`` to ``firstfit.first_fit`` on ``Profile.gaps``; the row edits to a full
rebuild of the slot table; ``unverify`` to its definition; ``replan_pass`` to
``tests/support/reference_backfill.py``; ``easy_hosts`` and ``easy_nodes`` to the stepped EASY;
``window_parts`` and ``window_rows`` to the numpy they replaced.
"""

from workbench.engine.kernels import calls
from workbench.engine.kernels.boundary import Entry, Preparing, listen, prepare, prepared_seconds, quiesce
from workbench.engine.kernels.easy import EVENTS, HEAP, NFREE, NXT, QLEN, SEQ
from workbench.engine.kernels.freegaps import node_gaps as _node_gaps
from workbench.engine.kernels.jit import KERNELS, signature_counts
from workbench.engine.kernels.parts import window_parts as _window_parts
from workbench.engine.kernels.parts import window_rows as _window_rows
from workbench.engine.kernels.placement import (
    PLACE_COORD,
    PLACE_COP,
    PLACE_DEP,
    PLACE_FINISH,
    PLACE_LMIN,
    PLACE_LSUM,
    PLACE_NONE,
    PLACE_PAST,
)
from workbench.engine.kernels.raster import thin_cells as _thin_cells
from workbench.engine.kernels.raster import topmost_at as _topmost_at
from workbench.engine.kernels.replan import PASS_DONE, PASS_PYTHON, PASS_SELECTOR, PASS_WIDEN
from workbench.engine.kernels.types import (
    B1,
    BOOL1,
    EASY_ARRIVALS,
    EASY_JOBS,
    EASY_NODES,
    EASY_RUN,
    F1,
    F8,
    FREED,
    H1,
    I1,
    I8,
    JOB_SHAPES,
    LISTS,
    MOVES,
    NODES,
    QUEUE,
    ROWS,
    SCRATCH,
    SHAPE,
    EasyArrivals,
    EasyJobs,
    EasyNodes,
    EasyRun,
    Freed,
    JobShapes,
    Lists,
    Moves,
    Nodes,
    Queue,
    Rows,
    Scratch,
    Shape,
    as_tuple,
    spread,
)

R = spread("rows", Rows, ROWS)
insert_rows = Entry(calls.insert_rows, (*R, ("xs", I1), ("start", F8), ("ends", F1), ("who", I8)))
delete_rows = Entry(calls.delete_rows, (*R, ("xs", I1), ("start", F8), ("ends", F1)))
earliest_in_rows = Entry(
    calls.earliest_in_rows,
    (
        *R,
        *spread("nodes", Nodes, NODES),
        *spread("shape", Shape, SHAPE),
        ("earliest", F8),
        ("before", F8),
        ("without", I8),
        *spread("gaps", Scratch, SCRATCH),
        ("finish", B1),
    ),
)
fastest_level = Entry(calls.fastest_level, (("perf", F1), ("cols", I1), ("levels", F1), ("n", I8)))
placement_in_rows = Entry(
    calls.placement_in_rows,
    (
        *as_tuple("rows", Rows, ROWS),
        *as_tuple("nodes", Nodes, NODES),
        *as_tuple("shape", Shape, SHAPE),
        ("kind", I8),
        ("consts", F1),
        ("earliest", F8),
        ("first", F8),
        ("without", I8),
        *as_tuple("gaps", Scratch, SCRATCH),
        *as_tuple("lists", Lists, LISTS),
        ("listed", B1),
        ("own", I1),
        ("at", F8),
    ),
)
members_in_rows = Entry(
    calls.members_in_rows,
    (
        *as_tuple("rows", Rows, ROWS),
        *as_tuple("nodes", Nodes, NODES),
        *as_tuple("shape", Shape, SHAPE),
        ("earliest", F8),
        ("without", I8),
        *as_tuple("gaps", Scratch, SCRATCH),
    ),
)
choose_members = Entry(
    calls.choose_members,
    (
        ("count", I8),
        ("ct", F1),
        ("ck", I1),
        ("off", I1),
        ("mx", I1),
        ("z", F1),
        *as_tuple("nodes", Nodes, NODES),
        *as_tuple("shape", Shape, SHAPE),
    ),
)
unverify = Entry(
    calls.unverify,
    (
        *R,
        ("perf", F1),
        *spread("freed", Freed, FREED),
        *spread("queue", Queue, QUEUE),
        ("factor", F8),
        ("now", F8),
        ("mover", I8),
    ),
)
replan_pass = Entry(
    calls.replan_pass,
    (
        *as_tuple("rows", Rows, ROWS),
        *as_tuple("nodes", Nodes, NODES),
        *as_tuple("shapes", JobShapes, JOB_SHAPES),
        *as_tuple("queue", Queue, QUEUE),
        *as_tuple("moves", Moves, MOVES),
        *as_tuple("gaps", Scratch, SCRATCH),
        *as_tuple("lists", Lists, LISTS),
        ("factor", F8),
        ("resolution", F8),
        ("now", F8),
        ("cursor", I8),
        ("move", BOOL1),
        ("place", I1),
        ("consts", F1),
        ("explain", B1),
        ("stop_at", I8),
    ),
)
_EASY = (
    *as_tuple("arrivals", EasyArrivals, EASY_ARRIVALS),
    *as_tuple("jobs", EasyJobs, EASY_JOBS),
    *as_tuple("run", EasyRun, EASY_RUN),
)
easy_hosts = Entry(calls.easy_hosts, (*_EASY, ("max_events", I8)))
easy_nodes = Entry(
    calls.easy_nodes,
    (
        *_EASY,
        *as_tuple("nodes", EasyNodes, EASY_NODES),
        ("t0", F8),
        ("horizon", F8),
        ("reserved_at", F1),
        ("max_events", I8),
    ),
)
window_parts = Entry(
    _window_parts,
    (("ordered", I1), ("offset", I1), ("width", I1), ("hosts", I1), ("position", I1), ("part_node", I1)),
)
window_rows = Entry(_window_rows, (("width", I1), ("length", F1), ("part_window", I1), ("part_length", F1)))
# A slot table's gaps among millions of busy intervals (``slots.SlotTable.build``).
node_gaps = Entry(
    _node_gaps,
    (
        ("busy_node", I1),
        ("busy_start", F1),
        ("busy_end", F1),
        ("n_nodes", I8),
        ("istart", F8),
        ("iend", F8),
        ("gap_node", I1),
        ("gap_start", F1),
        ("gap_end", F1),
    ),
)

# The chart's level of detail (gui/gantt/layers.py): the pixels its slivers fill.
thin_cells = Entry(
    _thin_cells,
    (
        ("x", F1),
        ("w", F1),
        ("rows", I1),
        ("group", I1),
        ("pick", I1),
        ("every", B1),
        ("scale", F8),
        ("shift", F8),
        ("first", I8),
        ("columns", I8),
        ("cells", H1),
        ("wide", I1),
    ),
)

topmost_at = Entry(_topmost_at, (("x", F1), ("y", F1), ("w", F1), ("h", F1), ("px", F8), ("py", F8)))

# Which entries a kind of run uses (``prepare`` makes them ready before the run's clock starts).
SEARCH = (insert_rows, delete_rows, earliest_in_rows, placement_in_rows)  # any search on a profile
# A per-slot criterion's search outside the compiled kinds (a plug-in's): prepared when first asked.
MEMBERS = (members_in_rows, choose_members)
# Dynamic conservative backfilling: the pass first, whose compile compiles most of the others' code.
BACKFILL = (replan_pass, *SEARCH, fastest_level, unverify)
EASY = (easy_hosts, easy_nodes, window_parts, window_rows)
DRAWING = (thin_cells, topmost_at)
TABLES = (node_gaps,)  # large slot tables (opening a result, preparing one for the window)
ENTRIES = (*BACKFILL, *MEMBERS, *EASY, *DRAWING, *TABLES)

__all__ = [
    "BACKFILL",
    "DRAWING",
    "EASY",
    "ENTRIES",
    "EVENTS",
    "HEAP",
    "KERNELS",
    "MEMBERS",
    "NFREE",
    "NXT",
    "PASS_DONE",
    "PASS_PYTHON",
    "PASS_SELECTOR",
    "PASS_WIDEN",
    "PLACE_COORD",
    "PLACE_COP",
    "PLACE_DEP",
    "PLACE_FINISH",
    "PLACE_LMIN",
    "PLACE_LSUM",
    "PLACE_NONE",
    "PLACE_PAST",
    "QLEN",
    "SEARCH",
    "SEQ",
    "TABLES",
    "Entry",
    "Preparing",
    "choose_members",
    "delete_rows",
    "earliest_in_rows",
    "easy_hosts",
    "easy_nodes",
    "fastest_level",
    "insert_rows",
    "listen",
    "members_in_rows",
    "node_gaps",
    "placement_in_rows",
    "prepare",
    "prepared_seconds",
    "quiesce",
    "replan_pass",
    "signature_counts",
    "thin_cells",
    "topmost_at",
    "unverify",
    "window_parts",
    "window_rows",
]
