"""Secrets kept out of every message and report: the one place that decides what a secret looks like and how
it is hidden.

- `redact_url`: a URL without its userinfo (`http://alice:pw@host/v1` -> `http://***@host/v1`) and with every
  query-string value hidden (`?api-key=abc` -> `?api-key=***`);
- `redact_text`: every URL in a text so redacted, and every token that has the form of an API key
  (`looks_like_a_secret_token`: `sk-...`, `sk_...`, `ghp_...`, `hf_...`, `xoxb-...`, `AKIA...`, `AIza...`,
  `Bearer ...`) replaced by `***`;
- `looks_secret`: whether a setting's value reads like a key (the form above, or a run of 20+ letters and
  digits whose case and digits change as often as random text's do, or 32+ hex digits): such a value is
  refused where a name is expected (`model:`) and never repeated in a message (`shown`).

Adapters call these on every message they build and on what describe() returns; the runner calls
`redact_text` again on whatever reaches a report (absa_checks.models.adapters.ModelSpec.redact).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

HIDDEN = "***"
_KEY_FORM = re.compile(r"(?<![A-Za-z0-9])(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{12,}|(?<![A-Za-z0-9])(?:ghp|gho|ghs|ghu|github_pat|"
                       r"hf|glpat|xox[abpr])[-_][A-Za-z0-9_\-]{12,}|(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{12,}|"
                       r"(?<![A-Za-z0-9])AIza[A-Za-z0-9_\-]{20,}|(?i:bearer)\s+[A-Za-z0-9._\-~+/]{8,}=*")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>()\[\]{}]*")
_RUN = re.compile(r"[A-Za-z0-9]{20,}")
_HEX = re.compile(r"(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])")


def redact_url(url: str) -> str:
    """`url` without its userinfo and with its query-string values hidden (unchanged when it has neither)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return HIDDEN
    netloc = parts.netloc
    if "@" in netloc:
        netloc = HIDDEN + "@" + netloc.rpartition("@")[2]
    query = re.sub(r"=[^&;]*", "=" + HIDDEN, parts.query) if parts.query else parts.query
    if parts.query and "=" not in parts.query:
        query = HIDDEN
    fragment = HIDDEN if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def redact_text(text: str) -> str:
    """`text` with every URL redacted (redact_url) and every key-shaped token replaced by ***."""
    text = _URL.sub(lambda match: redact_url(match.group()), text)
    return _KEY_FORM.sub(HIDDEN, text)


def _random_looking(run: str) -> bool:
    pieces = re.findall(r"[a-z]+|[A-Z]+|[0-9]+", run)
    lone_lower = sum(len(p) == 1 and p.islower() for p in pieces)  # camelCase words keep 2+ lower-case letters
    digit_runs = sum(p.isdigit() for p in pieces)
    return len(pieces) >= 0.4 * len(run) and (lone_lower >= 3 or digit_runs >= 2)


def looks_secret(value: object) -> bool:
    """Whether a setting's value reads like an API key or a token (module docstring)."""
    if not isinstance(value, str):
        return False
    if _KEY_FORM.search(value) or _HEX.search(value):
        return True
    return any(_random_looking(run) for run in _RUN.findall(value))


def shown(value: object) -> str:
    """A setting's value for a message: repr'd and cut, or `(a value that looks like a key, not shown)`."""
    if isinstance(value, str) and (looks_secret(value) or redact_text(value) != value):
        return "(a value that looks like a key or holds credentials, not shown)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
