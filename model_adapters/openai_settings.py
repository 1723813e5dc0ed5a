"""An `kind: openai` entry's settings checked when the entry is read (before the run), each error one line
naming the model and the setting, with an example (model_adapters.openai_adapter takes them): whole numbers and
numbers within their bounds, flags (a `${VAR}` gives them as text), the base URL (no credentials, query or
fragment; never repeated when it holds credentials), and `api_key_env` that reads like a pasted key.
"""

from __future__ import annotations

import math
import re
from numbers import Real
from urllib.parse import urlsplit

from absa_checks.common.errors import AdapterError
from absa_checks.common.redaction import redact_url, shown

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PASTED_KEY = ("api_key_env must name an environment variable; it looks like a key was pasted there. Put the key "
              "in an environment variable (export OPENAI_API_KEY=...) and write that variable's name here, e.g. "
              "api_key_env: OPENAI_API_KEY")


def looks_like_a_key(value: str) -> bool:
    """Not a variable's name, or a name that reads like a secret: `sk_...`, or 20+ characters whose case and
    digits change as often as random text's do (`AbCdEf0123456789GhIj`, `a8Fk2LqP9zR4tY7uW1xC`; not
    `MyCompanyOpenAIKey2024` nor `AzureOpenAIKeyForTheEastUSRegion2`)."""
    if not ENV_NAME.fullmatch(value):
        return True
    runs = [m.group() for m in re.finditer(r"[a-z]+|[A-Z]+|[0-9]+|_+", value)]
    lone_lower = sum(len(r) == 1 and r.islower() for r in runs)  # camelCase words keep 2+ lower-case letters
    digit_runs = sum(r.isdigit() for r in runs)
    random_looking = len(runs) >= 0.4 * len(value) and (lone_lower >= 3 or digit_runs >= 2)
    return value.lower().startswith("sk_") or (len(value) >= 20 and random_looking)


# The upper bounds of the numeric settings: beyond them a value is a typo (or overflows a timer), not a choice.
MAX_TIMEOUT = 3600.0             # seconds for one request: an hour
MIN_REQUESTS_PER_MINUTE = 1 / 60  # one request an hour
MAX_REQUESTS_PER_MINUTE = 1e6
MAX_BACKOFF_SETTING = 600.0      # seconds before the first retry (later waits are capped at MAX_BACKOFF anyway)
MAX_TEMPERATURE = 2.0            # the OpenAI API's own bound
UPPER = {"max_concurrency": 256, "retries": 100, "max_consecutive_failures": 1_000_000, "seed": 2 ** 63 - 1,
         "max_tokens": 1_000_000}


def whole(name: str, key: str, value: object, low: int) -> int:
    """A whole number from `low` to UPPER[key] (a `${VAR}` gives it as text: "8" is 8)."""
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
        value = int(value)
    high = UPPER[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise AdapterError(f"model '{name}': {key} {shown(value)} must be a whole number of at least {low} and at most "
                           f"{high}, "
                           f"e.g. {key}: {max(low, 1) if key != 'retries' else 4}")
    return value


def number(name: str, key: str, value: object, low: float, above: bool, example: str, high: float) -> float:
    """A finite number at least (or, with `above`, greater than) `low`, and at most `high`."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, Real) and not isinstance(value, bool):
        number = float(value)
        if math.isfinite(number) and (number > low if above else number >= low) and number <= high:
            return number
    bound = f"above {low:g}" if above else f"at least {low:g}"
    raise AdapterError(f"model '{name}': {key} {shown(value)} must be a number {bound} and at most {high:g}, "
                       f"e.g. {key}: {example}")


def flag(name: str, key: str, value: object) -> bool:
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise AdapterError(f"model '{name}': {key} {shown(value)} must be true or false")
    return value


def base_url(name: str, value: str) -> str:
    """http(s)://host[:port][/path], with a host, without credentials, a query or a fragment (the adapter
    appends /chat/completions to it). The value is never repeated when it holds credentials."""
    example = "e.g. base_url: http://127.0.0.1:8000/v1"
    text = value.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise AdapterError(f"model '{name}': base_url {shown(redact_url(text))} is not a URL "
                           f"(http(s)://host[:port][/path]), {example}") from None
    if parts.scheme not in ("http", "https") or not text.lower().startswith(parts.scheme + "://"):
        raise AdapterError(f"model '{name}': base_url must start with http:// or https://, {example}")
    if "@" in parts.netloc:
        raise AdapterError(f"model '{name}': base_url holds credentials (user:password@); they are not shown and "
                           "not sent. Put the key in an environment variable and name it with api_key_env (e.g. "
                           "api_key_env: OPENAI_API_KEY); base_url keeps only http(s)://host[:port][/path]")
    if parts.query or parts.fragment or text.rstrip("/").endswith(("?", "#")):
        raise AdapterError(f"model '{name}': base_url {redact_url(text)} has a query string or a fragment, which "
                           "cannot take /chat/completions after it; a key there (?api-key=...) belongs in an "
                           "environment variable named by api_key_env; base_url keeps only "
                           "http(s)://host[:port][/path]")
    if not parts.hostname or port == 0 or any(c.isspace() for c in text):
        raise AdapterError(f"model '{name}': base_url {shown(text)} names no host (or has a space or port 0), "
                           f"{example}")
    return text


def text(name: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise AdapterError(f"model '{name}': {key} must be a non-empty text, e.g. {key}: "
                           f"{'http://127.0.0.1:8000/v1' if key == 'base_url' else '...'}")
    return value
