"""Extensions registered from outside the package: one entry point each, read once per process.

Every seam (strategies, gates, reporters, sources; adapter kinds read theirs in absa_checks.models.adapters,
lazily) is its built-in declarations plus whatever installed packages declare under the seam's entry-point
group, e.g. in a package's pyproject.toml:

    [project.entry-points."absa_checks.gates"]
    max_ambiguous_rate = "my_checks.ambiguous:GATE"

`merged` loads that group's declarations, checks each one, and returns them after the built-in ones. A broken
or misnamed declaration is one line naming the entry point, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import TypeVar

from absa_checks.common.errors import AbsaChecksError

T = TypeVar("T")


class ExtensionError(AbsaChecksError):
    """An installed package's declaration that cannot be used."""


def merged(group: str, kind: type[T], builtin: Mapping[str, T], name_of: Callable[[T], str],
           check: Callable[[T], str] = lambda declared: "") -> MappingProxyType[str, T]:
    """The built-in declarations, then those registered under the entry-point group `group` (each a `kind`
    whose name, `name_of`, is its entry point's name; `check` returns what is wrong with one, "" if nothing)."""
    found = dict(builtin)
    for point in sorted(entry_points(group=group), key=lambda p: p.name):
        where = f"the entry point '{point.name}' ({point.value}) of '{group}'"
        try:
            declared = point.load()
        except Exception as err:  # a broken third-party package: name it, do not crash the run
            raise ExtensionError(f"{where} cannot be loaded: {type(err).__name__}: {err}") from None
        if not isinstance(declared, kind) or name_of(declared) != point.name:
            raise ExtensionError(f"{where} is not a {kind.__name__} named '{point.name}'")
        if point.name in found:
            raise ExtensionError(f"{where}: '{point.name}' is already declared{' (built in)' * (point.name in builtin)}; "
                                 "give it another name")
        wrong = check(declared)
        if wrong:
            raise ExtensionError(f"{where}: {wrong}")
        found[point.name] = declared
    return MappingProxyType(found)
