"""Environment files read with their strategy checked against the catalogue.

The file parser (``io/envfile.py``) sits below the strategy catalogue and takes the
check as an argument; this module hands it the registry's. The command line, the
session and the GUI read files through here, so a file that names an unknown
strategy or a wrong parameter is refused at its JSON path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from workbench.engine import registry
from workbench.engine.io import container, envfile
from workbench.engine.model import Environment


def default_environment_path() -> Path:
    """The bundled default sample (``sample_envs/default.json`` beside the package)."""
    return Path(__file__).resolve().parents[2] / "sample_envs" / "default.json"


def is_bundled_sample(path: str | os.PathLike[str]) -> bool:
    """Is ``path`` one of the samples that come with the workbench (``sample_envs/``)?"""
    return Path(path).resolve().parent == default_environment_path().parent


def load_environment(path: str | os.PathLike[str]) -> Environment:
    """Read and validate an environment file, its strategy included: a container (``.npz``, an
    environment's or a result's) by its suffix, JSON otherwise."""
    if container.is_container(path):
        return container.load_environment_container(path, registry.check_strategy)
    return envfile.load_environment(path, registry.check_strategy)


def save_environment(env: Environment, path: str | os.PathLike[str]) -> None:
    """Write ``env`` atomically as its suffix asks (``writer_suffix``)."""
    if container.writer_suffix(path) == container.SUFFIX:
        container.save_environment_container(env, path)
    else:
        envfile.save_environment(env, path)


def environment_from_json(text: str) -> Environment:
    """Parse and validate an environment file's text, its strategy included."""
    return envfile.environment_from_json(text, registry.check_strategy)


def environment_from_dict(data: Any) -> Environment:
    """Validate a parsed environment document, its strategy included."""
    return envfile.environment_from_dict(data, registry.check_strategy)
