"""A study's figures go into a paper as they are: every strategy run (a plug-in's too) in every
figure, SVG + PDF + PNG at the chosen DPI, words and units on the axes, a log axis where values
span orders of magnitude, and no confidence interval without repetitions."""

from __future__ import annotations

import re
import struct
import textwrap
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.engine import plugins

pytestmark = pytest.mark.slow  # a study run and three reports

SNUG = """
from workbench.api import criterion

@criterion("Snug end", direction="min")
def snug(c):
    return c.end - (c.t + c.length)
"""


def _png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


def _svg_text(path: Path) -> str:
    """The words an SVG shows (its text elements, which the report keeps as text)."""
    return " ".join(re.findall(r">([^<>]+)</text>", path.read_text()))


@pytest.fixture
def window_report(tmp_path, capsys):
    """window-search with a plug-in beside two built-ins, one repetition, reported at 120 DPI."""
    path = tmp_path / "snug.py"
    path.write_text(textwrap.dedent(SNUG))
    runs = tmp_path / "runs"
    argv = ["--plugin", str(path), "lab", "run", "window-search", "--reps", "1", "--workers", "1"]
    try:
        assert main([*argv, "--set", "strategy=Snug end,FirstFit,DEP", "--out", str(runs)]) == 0
        assert main(["lab", "report", str(runs), "--dpi", "120"]) == 0
    finally:
        plugins.forget(str(path.resolve()))
    capsys.readouterr()
    return runs


def test_a_plugin_run_in_a_study_is_drawn_in_every_figure(window_report):
    """Issue 44 defect 1: "Snug end" ran and was listed, but no figure showed it."""
    svgs = sorted(window_report.glob("*.svg"))
    assert len(svgs) == 8  # q, l_min, l_max, ms at each of the two load models
    for svg in svgs:
        words = _svg_text(svg)
        for strategy in ("Snug end", "FirstFit", "DEP"):
            assert strategy in words, (svg.name, strategy)


def test_figures_are_fit_for_a_paper(window_report):
    """Issue 44 defect 5: SVG, PDF and PNG at the chosen DPI; words for factors; units on the
    axes; a log axis for the search time beside the paper's 1,695 ms; no CI from one run."""
    for svg in window_report.glob("*.svg"):
        assert svg.with_suffix(".pdf").read_bytes().startswith(b"%PDF")
        width, height = _png_size(svg.with_suffix(".png"))
        assert height == 4 * 120 and width >= 6 * 120  # 4 inches high at --dpi 120
        words = _svg_text(svg)
        assert "tasks_per_node" not in words and "local tasks per node" in words, words
        assert "± 0" not in words and "mean, 95 % CI" not in words and "one run" in words
    ms = _svg_text(window_report / "window-search-ms-by-strategy-tasks_per_node-0.svg")
    assert "(ms), log scale" in ms
    lmin = _svg_text(window_report / "window-search-l_min-by-strategy-tasks_per_node-0.svg")
    assert "(time units)" in lmin and "log scale" not in lmin
    report = (window_report / "report.md").read_text()
    rows = report.split("## Results against the paper")[1].split("## Orderings")[0].strip().splitlines()[2:]
    assert rows and all(" ± " not in row and "(1)" in row for row in rows)


def test_the_default_dpi_is_300_and_a_bad_one_is_one_line(window_report, capsys):
    """A report's PNG figures are drawn at 300 dpi unless told (4 inches high is 1,200 pixels); --dpi 5 is one
    line and exit code 2."""
    assert main(["lab", "report", str(window_report), "--out", str(window_report / "again")]) == 0
    assert _png_size(window_report / "again" / "window-search-q-by-strategy-tasks_per_node-1.png")[1] == 4 * 300
    assert main(["lab", "report", str(window_report), "--dpi", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--dpi" in err
