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


class JsonObject(dict):
    """A JSON object as read: the FIRST value of a key written twice kept (a plain JSON reader keeps the last
    without a word), and the keys written again in `repeated`, for the loader to report."""

    repeated: tuple[str, ...] = ()


def first_of_each(pairs: list[tuple[str, Any]]) -> JsonObject:
    """json's object_pairs_hook: a JsonObject that keeps every repeated key's first value and names it."""
    found, again = JsonObject(), []
    for key, value in pairs:
        if key in found:
            again.append(key)
        else:
            found[key] = value
    found.repeated = tuple(dict.fromkeys(again))
    return found


def repeated_keys(value: object) -> tuple[str, ...]:
    """The keys a JSON object read by `read_json` (or `first_of_each`) has more than once; () for anything else."""
    return value.repeated if isinstance(value, JsonObject) else ()


def read_json(path: Path, what: str, expected: type, shape: str) -> Any:
    """A dataset's JSON file, or one DataError naming the file and what was expected. Its objects are
    JsonObjects: a key written twice keeps its first value and is named by `repeated_keys`."""
    try:
        data = json.loads(inputs.read_text(path), object_pairs_hook=first_of_each)
    except (OSError, ValueError) as err:
        raise DataError(f"{path}: not a readable {what} file ({err}); re-download it") from None
    if not isinstance(data, expected):
        raise DataError(f"{path}: expected {shape}")
    return data
