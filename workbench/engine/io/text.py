"""Reading a file's text within the loader's limits: a regular file, UTF-8 (or gzip), not more than
its parsed objects may take in memory (``limits.py``), JSON nested at most ``MAX_DEPTH`` deep."""

from __future__ import annotations

import gzip
import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any

from workbench.engine.errors import ValidationError, WorkbenchError
from workbench.engine.io.limits import INT_DIGITS, MAX_DEPTH, json_bytes_limit


def parse_json(text: str) -> Any:
    """JSON text within the loader's limits (nesting, long integer literals), or an error at ``$``."""
    if not text.strip():  # json's own words for it are "Expecting value"
        raise ValidationError("$", "the file is empty (or only blank): expected a JSON object")
    try:
        data = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise ValidationError("$", f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ValidationError("$", f"nested too deeply (at most {MAX_DEPTH} levels)") from None
    _check_depth(data)
    return data


def _parse_int(literal: str) -> int | float:
    # Python refuses int literals over 4300 digits; past 18 none is exact as a float anyway.
    return int(literal) if len(literal) <= INT_DIGITS else float(literal)


def _check_depth(data: Any) -> None:
    level = [(data, 0)]
    while level:
        value, depth = level.pop()
        if depth > MAX_DEPTH:
            raise ValidationError("$", f"nested too deeply (at most {MAX_DEPTH} levels)")
        if isinstance(value, dict):
            level.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            level.extend((v, depth + 1) for v in value)


def read_text(path: str | os.PathLike[str], limit: int | None = None, gzipped: bool = False) -> str:
    """The text of a regular UTF-8 file of at most ``limit`` bytes (a pipe or device is refused
    at once, instead of blocking); ``gzipped``: of the gzip file at ``path``, at most ``limit``
    bytes once decompressed. The default limit is the text whose parsed objects fit in the memory
    one file may take (``limits.json_bytes_limit``)."""
    limit = json_bytes_limit() if limit is None else limit
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise WorkbenchError(f"{path}: {kind}; expected a file")
        if info.st_size > limit:
            raise WorkbenchError(
                f"{path}: {info.st_size / 2**20:.0f} MiB of text, which needs more memory to read than this "
                f"machine allows ({limit / 2**20:.0f} MiB of text); save it as a container (.npz)"
            )
        if not gzipped:
            return Path(path).read_text(encoding="utf-8")
        with gzip.open(path, "rb") as stream:
            data = stream.read(limit + 1)
        if len(data) > limit:
            raise WorkbenchError(f"{path}: over {limit / 2**20:.0f} MiB decompressed; the limit is that")
        return data.decode("utf-8")
    except FileNotFoundError:
        raise WorkbenchError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise WorkbenchError(f"{path}: not a UTF-8 text file") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise WorkbenchError(f"{path}: not a whole gzip file ({exc or 'it ends too soon'})") from None
    except OSError as exc:
        raise WorkbenchError(f"{path}: cannot read ({exc.strerror})") from None
