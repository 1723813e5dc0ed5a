"""Domains: which sources a model is tested (and gated) on.

A models.yaml entry (or group) may declare `domains: [restaurant]`. By default a run then tests that
checkpoint only on sources of its domains; the others are left out for domain (one summary line says which,
and the run manifest records them: not requested, so not a failure). `--absa-cross-domain` runs them
report-only: reported, never gated. A source's domain (absa_checks.sources.catalog.source_domain): the
built-in fixtures and every dataset source declare theirs; a suite's own source says `domain:`; any other source
is of no known domain and always tested.
"""

from __future__ import annotations

import difflib
from typing import Any

DOMAINS = ("restaurant", "laptop")
CROSS_DOMAIN_OPTION = "--absa-cross-domain"


def parse(raw: Any, where: str) -> tuple[str, ...]:
    """`domains: [restaurant]` (or one name) checked; ValueError naming `where` and the fix."""
    values = [raw] if isinstance(raw, str) else raw
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise ValueError(f"{where}: 'domains' must be a non-empty list of domains, e.g. domains: [restaurant] "
                         f"(known domains: {', '.join(DOMAINS)})")
    found = []
    for value in values:
        name = value.strip().lower()
        if name not in DOMAINS:
            hint = difflib.get_close_matches(name, DOMAINS, n=1, cutoff=0.5)
            fix = f"did you mean '{hint[0]}'? " if hint else ""
            raise ValueError(f"{where}: unknown domain '{value}'; {fix}known domains: {', '.join(DOMAINS)}")
        if name not in found:
            found.append(name)
    return tuple(found)


def in_domain(model_domains: tuple[str, ...], domain: str | None) -> bool:
    """Whether a checkpoint of `model_domains` is tested and gated on a source of `domain` (no declared
    domains, or a source of no known domain: always)."""
    return not model_domains or domain is None or domain in model_domains


def left_out_line(left_out: dict[str, tuple[tuple[str, ...], list[str]]], cross_domain: bool) -> str:
    """ONE line: per checkpoint, its domains and the sources left out (or run report-only) for domain.
    `left_out`: checkpoint -> (its domains, the sources of other domains)."""
    if not left_out:
        return ""
    parts = []
    for model, (domains, sources) in left_out.items():
        declared = f" ({'/'.join(domains)})" if domains else ""  # a merge of shards knows only the names
        parts.append(f"{model}{declared}: {', '.join(sorted(sources))}")
    if cross_domain:
        return (f"domains: run report-only ({CROSS_DOMAIN_OPTION}: reported, never gated), sources of another "
                f"domain than the checkpoint's: {'; '.join(parts)}")
    return (f"domains: left out, sources of another domain than the checkpoint's (models.yaml 'domains'): "
            f"{'; '.join(parts)}; {CROSS_DOMAIN_OPTION} runs them report-only")
