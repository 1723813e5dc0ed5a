"""What every source produces, and the error for data that is not on this machine."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import AbsaChecksError
from ..examples import DataIssue, Unit


@dataclass(frozen=True)
class LoadedSource:
    name: str
    units: tuple[Unit, ...]
    issues: tuple[DataIssue, ...] = ()
    domain: str | None = None  # "laptop" or "restaurant" when known: picks the ADDDIFF aspect bank


class DataMissing(AbsaChecksError):
    """A source's data is not on this machine; tests over it are skipped with this message."""
