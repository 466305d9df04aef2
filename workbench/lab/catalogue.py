"""The shipped studies by name: an explicit list of the study modules' studies.

Nothing registers itself on import: a study is a value its module defines, and this
catalogue names the ones ``workbench lab`` and the GUI's Lab dialog offer, in this order.
``added`` lends the catalogue more studies for a while (a test's, a user's plug-in).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from workbench.engine.errors import ParameterError
from workbench.lab.studies.aep import AEP
from workbench.lab.studies.backfilling import BACKFILLING
from workbench.lab.studies.batch_formation import BATCH_STUDY
from workbench.lab.studies.css import CSS_STUDY
from workbench.lab.studies.css_owner import CSS_OWNER_STUDY
from workbench.lab.studies.css_real import CSS_REAL_STUDY
from workbench.lab.studies.economic import ECONOMIC_STUDY
from workbench.lab.studies.grid import GRID_STUDY
from workbench.lab.studies.traces import TRACES_STUDY
from workbench.lab.studies.window_search import WINDOW_SEARCH
from workbench.lab.study import Study, checked

SHIPPED = (
    WINDOW_SEARCH,
    BACKFILLING,
    AEP,
    TRACES_STUDY,
    BATCH_STUDY,
    CSS_STUDY,
    CSS_OWNER_STUDY,
    CSS_REAL_STUDY,
    GRID_STUDY,
    ECONOMIC_STUDY,
)
_STUDIES: dict[str, Study] = {study.name: study for study in SHIPPED}


def get_study(name: str) -> Study:
    """The study called ``name``."""
    if name not in _STUDIES:
        known = ", ".join(_STUDIES)
        raise ParameterError("STUDY", f"unknown study {name!r}; `workbench lab list` names them: {known}")
    return _STUDIES[name]


def all_studies() -> list[Study]:
    """Every study in the catalogue, the shipped ones first."""
    return list(_STUDIES.values())


@contextlib.contextmanager
def added(*studies: Study) -> Iterator[None]:
    """The catalogue with ``studies`` too, until the block ends (in this process only: runs on other
    workers look a study up by name in their own catalogue)."""
    taken = [checked(study) for study in studies]
    clash = [study.name for study in taken if study.name in _STUDIES]
    if clash:
        raise ValueError(f"a study is already called {clash[0]!r}")
    _STUDIES.update((study.name, study) for study in taken)
    try:
        yield
    finally:
        for study in taken:
            _STUDIES.pop(study.name, None)
