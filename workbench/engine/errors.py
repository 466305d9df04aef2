"""Domain exceptions. Each one carries where the mistake is, for a person to fix it."""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base of every error the workbench reports to a user as one line."""


class ValidationError(WorkbenchError):
    """An environment (file or edit) is malformed or inconsistent.

    ``path`` is the JSON path of the mistake, e.g. ``$.jobs[2].budget``.
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class ParameterError(WorkbenchError):
    """A strategy name or parameter is unknown or out of range."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


class Cancelled(WorkbenchError):
    """A long run was stopped by its ``should_stop`` callback."""
