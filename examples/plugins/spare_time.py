"""A criterion plug-in: the window whose nodes keep the most free time after their parts.

Load it with ``workbench --plugin examples/plugins/spare_time.py`` (GUI or any sub-command), or
Strategy ▸ Load plug-in… in the GUI, then pick "Most spare time" like any selector::

    workbench schedule sample_envs/default.json --plugin examples/plugins/spare_time.py \\
        --strategy "Most spare time" --out spare.json

Each candidate slot of a window start is worth its free time beyond the window's length; the
exact choice takes the n slots worth the most within the job's budget. Slots open to an
unbounded horizon end with the window (no spare time), as the built-in criteria count them.
"""

from workbench.api import Param, criterion


@criterion(
    "Most spare time",
    direction="max",
    params=[Param("weight_left", float, 1.0, "weight of the free time before the window", minimum=0.0)],
    description="the window whose slots keep the most free time around it (a plug-in example)",
)
def spare(c):
    before = c.t - c.start  # free time on the node before the window starts
    after = c.end - (c.t + c.length)  # and after it ends
    return c.params["weight_left"] * before + after
