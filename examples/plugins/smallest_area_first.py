"""A flow-rule plug-in: smallest area first, with ageing, and EASY's one reservation.

At every event the waiting jobs are tried smallest area (nodes × volume) first; a job that has
waited long moves up by ``ageing`` area units per unit of waiting time, so wide jobs are not
starved. The first job that cannot start now gets a reservation (``reservations=1``, EASY's rule;
``--param reservations=0`` drops it, a larger count protects more jobs)::

    workbench schedule sample_envs/default.json --plugin examples/plugins/smallest_area_first.py \\
        --strategy "Smallest area first" --param ageing=0.5 --out saf.json
"""

from workbench.api import Param, flow_rule


@flow_rule(
    "Smallest area first",
    reservations=1,
    params=[Param("ageing", float, 0.0, "area units a job gains per unit of waiting time", minimum=0.0)],
    description="the waiting job of the smallest area (nodes × volume) first, with ageing (a plug-in example)",
)
def smallest_area(job, now, ageing):
    return job.node_count * job.volume - ageing * (now - job.arrival)
