"""User-facing errors: each carries one clear message that names the place and the fix."""

from __future__ import annotations


class AbsaChecksError(Exception):
    """A user's mistake or missing input; shown as its message, never as a traceback."""


class SpecError(AbsaChecksError):
    """A suite file that does not validate."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")


class DataError(AbsaChecksError):
    """A dataset that is missing or cannot be read."""


class AdapterError(AbsaChecksError):
    """A model adapter that failed or answered something unusable."""
