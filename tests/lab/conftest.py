"""Fixtures of the lab's tests: a local stand-in for the Parallel Workloads Archive."""

from __future__ import annotations

import gzip
import hashlib

import pytest

from workbench.lab.archive import CACHE_VARIABLE, URL_VARIABLE

SWF = """; MaxNodes: 4
1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1
2 5 0 30 4 -1 -1 4 30 -1 1 2 2 -1 -1 -1 -1 -1
"""
KTH = "KTH-SP2-1996-2.1-cln.swf"


@pytest.fixture
def archive(tmp_path, monkeypatch):
    """A local archive holding KTH-SP2's file name (a tiny log), and an empty cache; returns the gzip's sum."""
    folder = tmp_path / "archive"
    folder.mkdir()
    data = gzip.compress(SWF.encode())
    (folder / f"{KTH}.gz").write_bytes(data)
    monkeypatch.setenv(URL_VARIABLE, folder.as_uri())
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    return hashlib.sha256(data).hexdigest()
