"""`workbench traces`: the archive's logs by name, and a checked download into the user cache."""

from __future__ import annotations

import hashlib
import re

import pytest

from tests.lab.conftest import KTH, SWF
from workbench.cli import main
from workbench.engine.io.swf import import_swf
from workbench.lab.archive import ARCHIVE, CACHE_VARIABLE, CATALOGUE, URL_VARIABLE, cache_folder


def test_list_shows_every_log_with_its_size_citation_and_checksum_state(capsys, tmp_path, monkeypatch):
    """`traces list` shows each log with its jobs, nodes and period, the archive's and the logs' citations, that
    no checksum is known, and the cache folder; each log's URL follows the archive's layout."""
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path))
    assert main(["traces", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N", "LANL-CM5", "NASA-iPSC"):
        assert re.search(rf"^{name} ", out, re.M), name
    assert re.search(r"^KTH-SP2 +28,476 +100 +Sep 1996-Aug 1997", out, re.M)  # as the local copy's header says
    assert "Feitelson, Tsafrir & Krakov" in out and "cite: Feitelson & Nitzberg" in out
    assert out.count("(no checksum known)") == len(CATALOGUE)  # none is verified: say so
    assert str(tmp_path / "traces") in out
    for t in CATALOGUE:
        assert (
            t.url == f"{ARCHIVE}/{t.folder}/{t.file}"
            and re.fullmatch(r"l_\w+", t.folder)
            and t.file.endswith(".swf.gz")
        )


def test_get_downloads_shows_progress_unpacks_and_computes_the_sum(archive, capsys):
    """`traces get` downloads a log with a progress bar, unpacks it into the cache and prints the SHA-256 it
    computed; asked again with that sum (in capitals), it checks the cached copy."""
    assert main(["traces", "get", "kth-sp2"]) == 0
    captured = capsys.readouterr()
    assert "100%" in captured.err  # the progress bar
    path = cache_folder() / KTH
    assert captured.out.strip() == f"{path} (downloaded); no checksum known; computed: {archive}"
    assert path.read_text() == SWF and import_swf(path, 4).env.jobs[1].node_count == 4
    assert hashlib.sha256((cache_folder() / f"{KTH}.gz").read_bytes()).hexdigest() == archive
    assert main(["traces", "get", "KTH-SP2", "--sha256", archive.upper()]) == 0
    assert capsys.readouterr().out.strip() == f"{path} (already in the cache); SHA-256 checked: {archive}"


def test_get_checks_a_known_sum(archive, capsys):
    """`traces get` with the right --sha256 downloads the log and reports the sum checked."""
    assert main(["traces", "get", "KTH-SP2", "--sha256", archive]) == 0
    assert f"(downloaded); SHA-256 checked: {archive}" in capsys.readouterr().out


def test_a_bad_checksum_is_refused_in_one_line_and_nothing_is_kept(archive, capsys):
    """A wrong --sha256 is refused in one line giving both sums, and nothing is kept in the cache."""
    wrong = "0" * 64
    assert main(["traces", "get", "KTH-SP2", "--sha256", wrong]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == f"workbench: error: KTH-SP2: SHA-256 mismatch: expected {wrong}, got {archive}; nothing was kept"
    assert list(cache_folder().iterdir()) == []


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://127.0.0.1:9", "cannot download KTH-SP2 from http://127.0.0.1:9/KTH-SP2-1996-2.1-cln.swf.gz"),
        ("file:///nonexistent/folder", "cannot download KTH-SP2 from file:///nonexistent/folder/"),
    ],
)
def test_without_a_network_it_fails_with_one_line_and_no_traceback(archive, monkeypatch, capsys, url, words):
    """An archive that cannot be reached fails the download in one line naming the URL, without a traceback, and
    nothing is kept."""
    monkeypatch.setenv(URL_VARIABLE, url)
    assert main(["traces", "get", "KTH-SP2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "Traceback" not in err
    assert list(cache_folder().iterdir()) == []


def test_bad_names_sums_and_files_are_one_line(archive, capsys, tmp_path, monkeypatch):
    """An unknown trace name or a malformed --sha256 is one line and exit code 2; a download that is not gzip is
    refused and nothing is kept."""
    for argv, words in (
        (["traces", "get", "nope"], "no trace 'nope' in the catalogue"),
        (["traces", "get", "KTH-SP2", "--sha256", "abc"], "--sha256: expected 64 hexadecimal digits"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / f"{KTH}.gz").write_bytes(b"not gzip at all")
    monkeypatch.setenv(URL_VARIABLE, broken.as_uri())
    assert main(["traces", "get", "KTH-SP2"]) == 2
    assert "not a readable gzip file" in capsys.readouterr().err.splitlines()[-1]
    assert list(cache_folder().iterdir()) == []


def test_a_sum_in_the_catalogue_is_checked_without_being_asked(archive, monkeypatch, capsys):
    """Where the catalogue knows a sum, `get` checks it by itself and refuses a file that differs."""
    import dataclasses

    from workbench.lab import archive as module

    def with_sum(value: str) -> tuple:
        return tuple(dataclasses.replace(t, sha256=value) if t.name == "KTH-SP2" else t for t in CATALOGUE)

    monkeypatch.setattr(module, "CATALOGUE", with_sum("f" * 64))
    assert main(["traces", "get", "KTH-SP2"]) == 2
    assert "SHA-256 mismatch: expected " + "f" * 64 in capsys.readouterr().err
    assert list(cache_folder().iterdir()) == []
    monkeypatch.setattr(module, "CATALOGUE", with_sum(archive))
    assert main(["traces", "get", "KTH-SP2"]) == 0
    assert f"SHA-256 checked: {archive}" in capsys.readouterr().out
