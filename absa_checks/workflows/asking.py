"""Whole chat-completions bodies asked of a models.yaml entry of kind openai, with the prediction cache: what the
rewriter (workflows.rewrite) and the expander (workflows.expand) share.

Each body's answer text is read from the cache where it is there, asked otherwise, BATCH at a time, each batch
kept at once (only answers are kept, never failures: an interrupted run loses none it had). An adapter that
stops asking (`max_consecutive_failures`) gives the rest a QueryError each: nothing is raised, so the answers
had are used whatever the endpoint does.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from absa_checks.models.cache import PredictionCache
from absa_checks.models.protocol import QueryError

BATCH = 64  # requests asked (concurrently, as the entry allows) and cached together
NOT_SENT = "not sent"  # how the kind of a request the adapter never sent begins (protocol.QueryError.sent)


def cache_fingerprint(adapter: Any, role: str) -> str:
    """Whose answers the cache holds: the endpoint (the request key already holds the model and the prompt)."""
    return f"{role}:" + hashlib.sha256(str(adapter.base_url).encode()).hexdigest()[:16]


def ask(bodies: dict[str, dict], adapter: Any, fingerprint: str, cache: PredictionCache | None,
        keep: Callable[[str, str], bool] | None = None) -> tuple[dict[str, str | QueryError], int, int]:
    """Each body's answer text (or QueryError) by key, with how many were sent and read from the cache; `keep(key,
    text)` false: that answer is returned but not cached (asked again next run)."""
    found: dict[str, str | QueryError] = dict(kept(bodies, fingerprint, cache))
    cached = len(found)
    missing = [key for key in bodies if key not in found]
    for at in range(0, len(missing), BATCH):
        keys = missing[at:at + BATCH]
        # a server may echo the key: hidden before anything keeps or shows an answer
        replies = [reply if isinstance(reply, QueryError) else adapter.hide(reply)
                   for reply in adapter.complete([bodies[key] for key in keys])]
        fresh = {key: reply for key, reply in zip(keys, replies)
                 if isinstance(reply, str) and (keep is None or keep(key, reply))}
        if cache is not None and fresh:
            cache.put_extractions(fingerprint, fresh)
        found.update(zip(keys, replies))
    return found, sum(_sent(found[key]) for key in missing), cached


def kept(keys: Iterable[str], fingerprint: str, cache: PredictionCache | None) -> dict[str, str]:
    """The answers the cache holds for these request keys (nothing is asked)."""
    return dict(cache.get_extractions(fingerprint, keys)) if cache is not None else {}


def _sent(answer: str | QueryError) -> bool:
    return not isinstance(answer, QueryError) or answer.sent


def failures(found: dict[str, str | QueryError]) -> Counter:
    """The failed requests by kind (protocol.QueryError.kind): the one kind of a request never sent named so."""
    kinds: Counter = Counter()
    for answer in found.values():
        if isinstance(answer, QueryError):
            kind = answer.kind
            kinds[kind if answer.sent or kind.startswith(NOT_SENT) else f"{NOT_SENT}: {kind}"] += 1
    return kinds
