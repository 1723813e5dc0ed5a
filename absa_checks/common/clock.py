"""The time a command writes into a file it changes (a decision's `decided_at`, an audit's `scored_at`).

`SOURCE_DATE_EPOCH` (the reproducible-builds convention: whole seconds since 1970, UTC) fixes it, so that a
documented sequence of commands rebuilds a reviewed, audited file byte for byte (docs/frozen-sets.md); without it,
the current time. A value that is not a whole number is one clear error naming the variable.
"""

from __future__ import annotations

import datetime
import os

from absa_checks.common.errors import AbsaChecksError

VARIABLE = "SOURCE_DATE_EPOCH"


def now_iso() -> str:
    """ISO 8601 UTC time to the second: SOURCE_DATE_EPOCH's when set, else now."""
    fixed = os.environ.get(VARIABLE, "").strip()
    if fixed:
        try:
            when = datetime.datetime.fromtimestamp(int(fixed), datetime.timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise AbsaChecksError(f"{VARIABLE}={fixed!r}: not a time; give whole seconds since 1970-01-01 UTC "
                                  f"(e.g. {VARIABLE}=1764417600), or unset it") from None
        return when.isoformat()
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
