"""`absa-checks generate --rewriter NAME` and `--export-requests FILE`: the LLM rewriter in the run.

Which units are asked (by default those the rules did not ship: quarantined, or without opinion words;
`--rewriter-all`: every unit the strategy applies to), their requests (absa_checks.perturb.rewrite_prompt,
one body per unit and strategy, deduplicated by key), asking an entry of kind openai for them through the
models registry (cached by request key: a second run asks nothing), and every answer verified
(absa_checks.perturb.rewrite_check) before it becomes a candidate.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Unit
from absa_checks.common.llm_requests import request_key, requests_lines
from absa_checks.models import adapters as registry
from absa_checks.perturb import rewrite_prompt
from absa_checks.perturb.rewrite_prompt import BodySettings, Request
from absa_checks.perturb.variants import VariantSet
from absa_checks.sources.base import LoadedSource

# The rules' not-applicable reasons that only say the opinion words are missing: the rewriter may still help
LACKS_OPINION_WORDS = frozenset({"the target has no opinion words", "no other aspect with sentiment and opinion words"})


@dataclass(frozen=True)
class Ask:
    """One unit and strategy the rewriter is asked about."""

    unit: Unit
    request: Request

    @property
    def key(self) -> str:
        return request_key(self.request.body)


def unshipped(found: VariantSet) -> set[str]:
    """The units the rules did not ship that the rewriter is asked about by default: quarantined, or not
    applicable only for want of opinion words."""
    return {q.unit_id for q in found.quarantined} | {
        unit_id for unit_id, why in found.without_variant if why in LACKS_OPINION_WORDS}


def plan(loaded: LoadedSource, found: dict[str, VariantSet], settings: BodySettings, everything: bool = False
         ) -> list[Ask]:
    """The requests of a source, unit by unit and strategy by strategy in the order asked: only REVTGT and
    REVNON (single strategies, generated variants), only where the strategy applies (a polar target; for
    REVNON another polar aspect), and without `everything` only the units of `unshipped`."""
    asks = []
    asked = {s: unshipped(v) for s, v in found.items()}
    for unit in loaded.units:
        for strategy, variants in found.items():
            if strategy not in rewrite_prompt.STRATEGIES or variants.mode != "generated":
                continue
            if not everything and unit.unit_id not in asked[strategy]:
                continue
            made = rewrite_prompt.request(unit.original, strategy, settings)
            if made is not None:
                asks.append(Ask(unit, made))
    return asks


def export_text(asks: list[Ask]) -> str:
    """The requests file (absa_checks.common.llm_requests): each distinct body once."""
    return requests_lines([ask.request.body for ask in asks])


@dataclass
class Rewriter:
    """A models.yaml entry of kind openai, built (nothing is asked until `ask`)."""

    name: str
    adapter: Any  # model_adapters.openai_adapter.OpenAIAdapter, reached through the registry only
    settings: BodySettings

    @property
    def model(self) -> str:
        return self.settings.model


def open_rewriter(name: str, models_file: Path | None, option: str = "--rewriter") -> Rewriter:
    """The entry `name` of kind openai, built; one AbsaChecksError naming the option and the fix otherwise."""
    try:
        spec = registry.resolve(name, models_file)
    except AbsaChecksError as err:  # the registry names --absa-model: here it is this option
        raise AbsaChecksError(str(err).replace("--absa-model", f"{option} {name}", 1)) from None
    if spec.kind != "openai":
        raise AbsaChecksError(f"{option} {name}: a {spec.kind} model cannot rewrite sentences; name a models.yaml "
                              "entry of kind openai (an OpenAI-compatible endpoint: base_url, model), e.g. "
                              "rewriter: {kind: openai, base_url: 'http://127.0.0.1:8000/v1', model: rewriter}")
    adapter: Any = registry.build(spec)  # an OpenAIAdapter (kind openai)
    max_tokens = getattr(adapter, "max_tokens", None) or rewrite_prompt.DEFAULT_MAX_TOKENS
    settings = BodySettings(adapter.model, adapter.temperature, adapter.seed, max_tokens)
    return Rewriter(name, adapter, settings)
