"""The papers behind the strategies, and how a description cites one.

The texts carry no publication year; a citation names the authors, the title and the
paper's section, so a user can look it up.
"""

from __future__ import annotations

REFERENCES = {
    "000": "Toporkov et al., metascheduling and co-allocation strategies",
    "001": "Toporkov & Yemelyanov, heuristic rules for coordinated allocation",
    "002": "Toporkov & Yemelyanov, dependable and coordinated allocation",
    "003": "Toporkov, Yemelyanov & Potekhin, forming job batches",
    "004": "Franke, Schwiegelshohn & Yahyapour, job scheduling for grids",
}


def cite(seed: str, where: str = "") -> str:
    """A reference a user can look up: the authors and title of paper ``seed`` (its number in the
    project's sources), and the section."""
    return f"[{REFERENCES[seed]}{', ' + where if where else ''}]"


def paper(seed: str) -> str:
    """The authors and title of paper ``seed``, for messages."""
    return REFERENCES[seed]
