"""The public plug-in API of Slot Workbench: your own strategies in a plain Python file or an
installed package (docs/plugins.md). Qt-free; what it names here stays stable.

A criterion, in the papers' additive form (seed 002 §3.3: a window's value is the sum of its
slots' values z_i, maximised under the budget by the exact choice, or over the n cheapest by
the Lite choice)::

    from workbench.api import criterion

    @criterion("Most spare time", direction="max")   # or "min"
    def spare(c):          # c: the candidate slots of one window start, as numpy arrays
        return (c.end - c.start) - c.length

A flow rule (the queue order, and how many waiting jobs get a reservation)::

    from workbench.api import flow_rule

    @flow_rule("Smallest area first", reservations=1)
    def area(job, now):    # a sort key: smaller goes first; ties keep the queue order
        return job.node_count * job.volume

Load a file with ``workbench --plugin FILE.py`` (GUI and every sub-command), Strategy ▸ Load
plug-in… in the GUI, or from a package through the entry-point group ``workbench.strategies``.
"""

from __future__ import annotations

from workbench.engine.model import Job
from workbench.engine.params import Param
from workbench.engine.plugins import Candidates, PluginError, criterion, flow_rule, load_file

__all__ = ["Candidates", "Job", "Param", "PluginError", "criterion", "flow_rule", "load_file"]
