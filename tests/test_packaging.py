"""pyproject.toml lists the packages by hand (resources/ is mapped in): none may be forgotten."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed_and_resources_are_shipped():
    """pyproject.toml lists exactly the packages that have an __init__.py, plus workbench.resources mapped to
    resources/, whose icon and desktop files exist and are shipped."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "workbench").rglob("__init__.py")} | {
        "workbench.resources"
    }
    assert set(config["packages"]) == found
    assert config["package-dir"]["workbench.resources"] == "resources"
    shipped = config["package-data"]["workbench.resources"]
    for name in ("slot-workbench.svg", "slot-workbench.png", "slot-workbench.desktop"):
        assert (ROOT / "resources" / name).is_file()
        assert any(Path(name).match(pattern) for pattern in shipped)
