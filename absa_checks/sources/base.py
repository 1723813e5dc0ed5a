"""What every source produces, and the error for data that is not on this machine."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from absa_checks.common import inputs
from absa_checks.common.errors import AbsaChecksError, DataError
from absa_checks.common.examples import DataIssue, Unit


@dataclass(frozen=True)
class LoadedSource:
    name: str
    units: tuple[Unit, ...]
    issues: tuple[DataIssue, ...] = ()
    domain: str | None = None  # "laptop" or "restaurant" when known: picks the ADDDIFF aspect bank
    files: tuple[Path, ...] = ()  # the files it was read from (their hashes are part of the run's fingerprint)


class DataMissing(AbsaChecksError):
    """A source's data is not on this machine; tests over it are skipped with this message."""


def read_json(path: Path, what: str, expected: type, shape: str) -> Any:
    """A dataset's JSON file, or one DataError naming the file and what was expected."""
    try:
        data = json.loads(inputs.read_text(path))
    except (OSError, ValueError) as err:
        raise DataError(f"{path}: not a readable {what} file ({err}); re-download it") from None
    if not isinstance(data, expected):
        raise DataError(f"{path}: expected {shape}")
    return data
