"""The Parallel Workloads Archive's best-known cleaned logs, by name, and a checked download of one.

``workbench traces list`` shows the catalogue; ``workbench traces get NAME`` downloads a log into
the user's cache, checks its SHA-256 where one is known, and unpacks it beside the download as
the ``.swf`` file the benchmarks and studies read (``workbench bench --traces DIR``).

What is known and what is not: each log's jobs, processors and period are the archive's listing
for the cleaned version, written down here without a copy to check them against, except KTH-SP2
and NASA-iPSC (``confirmed``), whose header and job count match the copies in ``shared/traces``.
No SHA-256 here is verified: the archive's downloads are gzip files and the copies here are
unpacked, so none is the archive's file byte for byte. ``get`` then says "no checksum known" and
prints the sum it computed, so a user can record it, or check one they trust with ``--sha256``.

The archive asks every user of a log to cite it (Feitelson, Tsafrir & Krakov, "Experience with
using the Parallel Workloads Archive", JPDC 74(10), 2014) and to acknowledge the installation.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import shutil
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workbench.engine.errors import ParameterError, WorkbenchError

ARCHIVE = "https://www.cs.huji.ac.il/labs/parallel/workload"
ARCHIVE_CITATION = (
    'Feitelson, Tsafrir & Krakov, "Experience with using the Parallel Workloads Archive", JPDC 74(10), 2014'
)
URL_VARIABLE = "SLOT_WORKBENCH_TRACES_URL"  # a base URL (file:// too) that holds the files by name
CACHE_VARIABLE = "SLOT_WORKBENCH_CACHE"  # the cache folder (default: $XDG_CACHE_HOME/slot-workbench)
HEADER = "acknowledge the installation its header names"
CHUNK = 1 << 16
TIMEOUT = 30.0  # seconds without an answer before a download fails

Progress = Callable[[int, int], None]  # (bytes done, bytes in all; 0 when the server does not say)


@dataclass(frozen=True)
class Trace:
    name: str
    file: str  # the archive's file name (gzip)
    folder: str  # its folder in the archive (l_...)
    jobs: int  # in the cleaned log, as the archive lists it
    processors: int
    machine: str
    period: str
    citation: str  # besides the archive's own, which every log asks for
    sha256: str | None = None  # of the archive's file; None: not verified (see the module's notes)
    confirmed: bool = False  # jobs and processors checked against a copy of the log (its header)

    @property
    def url(self) -> str:
        base = os.environ.get(URL_VARIABLE)
        return f"{base.rstrip('/')}/{self.file}" if base else f"{ARCHIVE}/{self.folder}/{self.file}"

    @property
    def swf(self) -> str:
        """The unpacked file's name, as the benchmarks and studies read it."""
        return self.file.removesuffix(".gz")


CATALOGUE: tuple[Trace, ...] = (
    Trace(
        "NASA-iPSC", "NASA-iPSC-1993-3.1-cln.swf.gz", "l_nasa_ipsc", 18_239, 128, "Intel iPSC/860, NASA Ames",
        "Oct-Dec 1993", "Feitelson & Nitzberg, JSSPP 1995 (LNCS 949)", confirmed=True,
    ),
    Trace(
        "LANL-CM5", "LANL-CM5-1994-4.1-cln.swf.gz", "l_lanl_cm5", 122_060, 1_024, "TMC CM-5, Los Alamos",
        "Oct 1994-Sep 1996", "Feitelson & Jette, JSSPP 1997 (LNCS 1291)",
    ),
    Trace(
        "SDSC-Par-1995", "SDSC-Par-1995-3.1-cln.swf.gz", "l_sdsc_par", 53_970, 416, "Intel Paragon, SDSC",
        "Jan-Dec 1995", "Windisch, Lo, Moore, Feitelson & Nitzberg, Frontiers 1996",
    ),
    Trace(
        "SDSC-Par-1996", "SDSC-Par-1996-3.1-cln.swf.gz", "l_sdsc_par", 32_135, 416, "Intel Paragon, SDSC",
        "Jan-Dec 1996", "Windisch, Lo, Moore, Feitelson & Nitzberg, Frontiers 1996",
    ),
    Trace(
        "CTC-SP2", "CTC-SP2-1996-3.1-cln.swf.gz", "l_ctc_sp2", 77_222, 512, "IBM SP2, Cornell Theory Center",
        "Jun 1996-May 1997", "Hotovy, JSSPP 1996 (LNCS 1162)",
    ),
    Trace(
        "KTH-SP2", "KTH-SP2-1996-2.1-cln.swf.gz", "l_kth_sp2", 28_476, 100, "IBM SP2, KTH Stockholm",
        "Sep 1996-Aug 1997", "acknowledge Lars Malinowsky (KTH), as its header asks", confirmed=True,
    ),
    Trace(
        "SDSC-SP2", "SDSC-SP2-1998-4.2-cln.swf.gz", "l_sdsc_sp2", 59_715, 128, "IBM SP2, SDSC",
        "Apr 1998-Apr 2000", HEADER,
    ),
    Trace(
        "SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz", "l_sdsc_blue", 223_407, 1_152, "IBM SP Blue Horizon, SDSC",
        "Apr 2000-Jan 2003", HEADER,
    ),
    Trace(
        "HPC2N", "HPC2N-2002-2.2-cln.swf.gz", "l_hpc2n", 202_871, 240, "Linux cluster Seth, HPC2N Umeå",
        "Jul 2002-Jan 2006", HEADER,
    ),
)  # fmt: skip


def trace(name: str) -> Trace:
    """The catalogue's trace called ``name`` (case does not matter)."""
    for entry in CATALOGUE:
        if entry.name.lower() == name.strip().lower():
            return entry
    names = ", ".join(t.name for t in CATALOGUE)
    raise ParameterError("NAME", f"no trace {name!r} in the catalogue; `workbench traces list` shows {names}")


def cache_folder() -> Path:
    """Where downloaded traces go: $SLOT_WORKBENCH_CACHE/traces, else an XDG-style user cache."""
    base = os.environ.get(CACHE_VARIABLE) or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "slot-workbench"
    )
    return Path(base) / "traces"


@dataclass(frozen=True)
class Fetched:
    path: Path  # the unpacked SWF file
    sha256: str  # of the downloaded file
    checked: bool  # True: it matched a known sum; False: no sum was known
    downloaded: bool  # False: it was in the cache already


def fetch(name: str, sha256: str | None = None, progress: Progress | None = None) -> Fetched:
    """Download trace ``name`` into ``cache_folder()``, check it, unpack it; ``sha256`` overrides
    the catalogue's sum. A file whose sum differs is refused and nothing of it is kept."""
    entry = trace(name)
    expected = _expected(sha256 if sha256 is not None else entry.sha256)
    folder = cache_folder()
    download, swf = folder / entry.file, folder / entry.swf
    if download.is_file() and swf.is_file():
        digest = _digest(download)
        _compare(entry, expected, digest, download)
        return Fetched(swf, digest, expected is not None, False)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkbenchError(f"{folder}: cannot make the cache folder ({exc.strerror})") from None
    part = folder / f".{entry.file}.part"
    try:
        digest = _download(entry, part, progress)
        _compare(entry, expected, digest, None)
        _unpack(entry, part, swf)
        part.replace(download)
    except BaseException:
        for leftover in (part, folder / f".{entry.swf}.part"):
            with contextlib.suppress(OSError):
                leftover.unlink()
        raise
    return Fetched(swf, digest, expected is not None, True)


def _expected(text: str | None) -> str | None:
    if text is None:
        return None
    value = text.strip().lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ParameterError("--sha256", f"expected 64 hexadecimal digits, got {text!r}")
    return value


def _download(entry: Trace, part: Path, progress: Progress | None) -> str:
    url = entry.url
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response, open(part, "wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            done = 0
            while chunk := response.read(CHUNK):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
    except urllib.error.URLError as exc:
        reason = exc.reason.strerror if isinstance(exc.reason, OSError) and exc.reason.strerror else exc.reason
        raise WorkbenchError(f"cannot download {entry.name} from {url}: {reason}") from None
    except (OSError, ValueError) as exc:  # a refused connection, a timeout, a malformed URL
        raise WorkbenchError(f"cannot download {entry.name} from {url}: {exc}") from None
    return digest.hexdigest()


def _compare(entry: Trace, expected: str | None, digest: str, kept: Path | None) -> None:
    if expected is None or expected == digest:
        return
    where = f"the cached {kept} does not match; delete it and get it again" if kept else "nothing was kept"
    raise WorkbenchError(f"{entry.name}: SHA-256 mismatch: expected {expected}, got {digest}; {where}")


def _unpack(entry: Trace, part: Path, swf: Path) -> None:
    unpacked = swf.with_name(f".{swf.name}.part")
    try:
        with gzip.open(part, "rb") as source, open(unpacked, "wb") as target:
            shutil.copyfileobj(source, target, CHUNK)
    except (OSError, EOFError, zlib.error) as exc:
        raise WorkbenchError(f"{entry.name}: the download is not a readable gzip file ({exc})") from None
    unpacked.replace(swf)


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def listing() -> list[str]:
    """``workbench traces list``: one line per trace, its citation beneath, and where they go."""
    folder = cache_folder()
    lines = [f"{'name':14s} {'jobs':>8s} {'procs':>6s}  {'period':18s} machine; file"]
    for t in CATALOGUE:
        cached = (folder / t.swf).is_file()
        state = "cached" if cached else ("sha256 verified" if t.sha256 else "no checksum known")
        jobs = f"{t.jobs:,}" + ("" if t.confirmed else "*")
        lines.append(f"{t.name:14s} {jobs:>8s} {t.processors:>6,}  {t.period:18s} {t.machine}; {t.file} ({state})")
        lines.append(f"{'':14s} cite: {t.citation}; and the archive")
    lines.append("* the archive's listing, not checked against a copy of the log here.")
    lines.append(f"Every log: cite {ARCHIVE_CITATION}.")
    lines.append(f"From {ARCHIVE} (or ${URL_VARIABLE}); into {folder} (or ${CACHE_VARIABLE}).")
    return lines
