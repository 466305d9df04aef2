"""The tables' filter: what the user types, read as terms that each keep some rows.

Terms are separated by spaces (quotes keep a value with spaces whole: ``name:"job 1"``) and must
all hold:

- the words that name no column, together as typed: they appear in some cell ("job 1"; "2906"
  also finds 7429062);
- ``column:value``: the column's cell reads exactly ``value`` (case aside); ``*`` and ``?`` are
  wildcards (``status:*budget*``);
- ``column:>x``, ``>=``, ``<``, ``<=``, and ``column:a..b`` (both ends kept): the cell's number,
  in the unit the column shows (a time column in View ▸ Time unit);
- a leading ``-`` keeps the rows the term does not (``-status:placed``: the jobs not placed).

A column is named by its title, in any case, or by the start of it when only one title starts so
("arr" for arrival). A term the filter cannot read raises ``FilterError`` naming it, and the table
shows that instead of guessing.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass

COMPARISONS = (">=", "<=", ">", "<")
RANGE = re.compile(r"^(-?[\d.,eE+-]*)\.\.(-?[\d.,eE+-]*)$")


class FilterError(ValueError):
    """A filter term that cannot be read; the message names the term."""


@dataclass(frozen=True)
class Term:
    column: int | None  # None: any column
    op: str  # "has" (a substring anywhere), "is" (the whole cell, wildcards allowed), a comparison or ".."
    text: str = ""  # lower case, for "has" and "is"
    low: float = -math.inf  # for comparisons and ranges: the numbers kept, [low, high] ...
    high: float = math.inf
    low_open: bool = False  # ... with an open end where the comparison is strict
    high_open: bool = False
    negate: bool = False


def parse_filter(text: str, headers: list[str]) -> list[Term]:
    """The terms of ``text`` over columns titled ``headers`` (as the table shows them, unit aside)."""
    try:
        words = shlex.split(text)
    except ValueError:
        raise FilterError(f"{text.strip()}: a quote is not closed") from None
    terms = [_term(word, headers) for word in words]
    phrase = " ".join(t.text for t in terms if t.op == "has" and not t.negate)
    kept = [t for t in terms if t.op != "has" or t.negate]
    return ([Term(None, "has", phrase)] if phrase else []) + kept


def _term(word: str, headers: list[str]) -> Term:
    negate = word.startswith("-") and len(word) > 1 and not _is_number(word)
    body = word[1:] if negate else word
    name, sep, value = body.partition(":")
    if not sep:
        return Term(None, "has", body.lower(), negate=negate)
    column = _column(name, headers, word)
    if not value:
        raise FilterError(f"{word}: give a value after the colon, e.g. {name}:5 or {name}:>5")
    for op in COMPARISONS:
        if value.startswith(op):
            x = _number(value[len(op) :], word)
            if op[0] == ">":
                return Term(column, op, low=x, low_open=op == ">", negate=negate)
            return Term(column, op, high=x, high_open=op == "<", negate=negate)
    span = RANGE.match(value)
    if span and (span.group(1) or span.group(2)):
        low = _number(span.group(1), word) if span.group(1) else -math.inf
        high = _number(span.group(2), word) if span.group(2) else math.inf
        if low > high:
            raise FilterError(f"{word}: the range runs from {span.group(1)} down to {span.group(2)}")
        return Term(column, "..", low=low, high=high, negate=negate)
    return Term(column, "is", value.lower(), negate=negate)


def _column(name: str, headers: list[str], word: str) -> int:
    titles = [_bare(h) for h in headers]
    key = name.lower()
    if key in titles:
        return titles.index(key)
    starting = [i for i, t in enumerate(titles) if t.startswith(key)]
    if len(starting) == 1:
        return starting[0]
    if starting:
        raise FilterError(f"{word}: '{name}' could be {' or '.join(titles[i] for i in starting)}")
    raise FilterError(f"{word}: no column '{name}'; the columns are {', '.join(dict.fromkeys(titles))}")


def _bare(header: str) -> str:
    """A column's title without the unit it is shown in: "arrival (h)" is "arrival"."""
    return re.sub(r"\s*\([^)]*\)$", "", header).strip().lower()


def _number(text: str, word: str) -> float:
    try:
        value = float(text.strip().replace(",", "."))
    except ValueError:
        raise FilterError(f"{word}: expected a number, got {text!r}") from None
    if math.isnan(value):
        raise FilterError(f"{word}: expected a number, got {text!r}")
    return value


def _is_number(word: str) -> bool:
    try:
        float(word.replace(",", "."))
    except ValueError:
        return False
    return True
