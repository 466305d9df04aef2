"""Square-window search and subset choice (seed 002 §3.2-3.3; docs/design.md "Window search").

One search answers one question: the best window for one job on the current slots. The
package is cut along its seams, each module owning one part:

* ``spec``: what a search is asked (``SearchSpec``) and answers (``Found``), and cost units;
* ``facts``: what it needs of the nodes alone (levels, column order), shared by searches;
* ``candidates``: the candidate (time, level) pairs and their S_W, chunk by chunk;
* ``lite`` and ``choice``: the Lite choice (n cheapest) and the exact one (the knapsack with a
  count constraint, and its bounds);
* ``general``: the normative search over all candidates, best bound first;
* ``firstfit`` and ``placement``: fast searches that give the general search's window for
  FirstFit, and for PAST and CoP without a budget;
* ``dispatch``: which of them answers (``find_window`` on a slot table, ``search_profile``
  on a profile's rows).

The names below are the package's public face; its modules import one another directly.
"""

from workbench.engine.search.choice import knapsack_count, lagrangian_bound
from workbench.engine.search.dispatch import find_window, search_profile
from workbench.engine.search.facts import node_facts, sorted_unique
from workbench.engine.search.general import general_search
from workbench.engine.search.spec import FIRST_FIT, Found, SearchSpec, cost_units
from workbench.engine.units import UNITS_CAP, budget_units, budget_units_of

__all__ = [
    "FIRST_FIT",
    "UNITS_CAP",
    "Found",
    "SearchSpec",
    "budget_units",
    "budget_units_of",
    "cost_units",
    "find_window",
    "general_search",
    "knapsack_count",
    "lagrangian_bound",
    "node_facts",
    "search_profile",
    "sorted_unique",
]
