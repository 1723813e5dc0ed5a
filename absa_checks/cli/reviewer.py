"""Who decides: `--reviewer NAME`, else the login name as `getpass.getuser` finds it ($LOGNAME, $USER, $LNAME,
$USERNAME, then the password database), so `review`, `decide` and `labelstudio import` work where $USER is
unset. Where there is no name at all (a container's user id without a passwd entry), one line asks for
`--reviewer NAME`."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from dataclasses import dataclass

from absa_checks.common.errors import AbsaChecksError

NO_NAME = "no login name (no $LOGNAME, $USER, $LNAME or $USERNAME, and this user id has no passwd entry)"


@dataclass(frozen=True)
class Reviewer:
    name: str
    defaulted: bool  # True: the login name, not --reviewer (said on stderr where it signs decisions)


def login_name(lookup: Callable[[], str] | None = None) -> str:
    """The login name (`lookup`, default `getpass.getuser`), '' where there is none: getpass raises KeyError or
    OSError then, ImportError without pwd."""
    try:
        return (lookup or getpass.getuser)().strip()
    except (KeyError, OSError, ImportError):
        return ""


def reviewer(given: str | None, command: str, lookup: Callable[[], str] | None = None) -> Reviewer:
    """`--reviewer NAME` as given, else the login name; neither: one line naming `--reviewer NAME`."""
    if given is not None and given.strip():  # an empty one is refused by the command line first
        return Reviewer(given.strip(), False)
    found = login_name(lookup)
    if not found:
        raise AbsaChecksError(f"{command}: --reviewer NAME is needed: {NO_NAME}")
    return Reviewer(found, True)


def said(who: Reviewer, command: str) -> str:
    """The stderr line where the login name signs the decisions ('' for --reviewer)."""
    return (f"{command}: decisions signed '{who.name}' (the login name; --reviewer NAME signs another)"
            if who.defaulted else "")
