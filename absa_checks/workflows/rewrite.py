"""`absa-checks generate --rewriter NAME` and `--export-requests FILE`: the LLM rewriter in the run.

Which units are asked (by default those the rules did not ship: quarantined, or without opinion words;
`--rewriter-all`: every unit the strategy applies to), their requests (absa_checks.perturb.rewrite_prompt,
one body per unit and strategy, deduplicated by key), asking an entry of kind openai for them through the
models registry (cached by request key: a second run asks nothing), and every answer verified
(absa_checks.perturb.rewrite_check) before it becomes a candidate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any

from absa_checks.common.errors import AbsaChecksError, AdapterError
from absa_checks.common.examples import Unit, Variant
from absa_checks.common.labels import POLARITIES
from absa_checks.common.llm_requests import request_key, requests_lines
from absa_checks.models import adapters as registry
from absa_checks.models.cache import PredictionCache, query_key
from absa_checks.models.protocol import Query, QueryError
from absa_checks.perturb import rewrite_check, rewrite_prompt
from absa_checks.perturb.engine import Quarantined
from absa_checks.perturb.resources import Resources
from absa_checks.perturb.rewrite_prompt import BodySettings, RewriteRequest
from absa_checks.perturb.variants import VariantSet
from absa_checks.sources.base import LoadedSource
from absa_checks.workflows import asking
from absa_checks.workflows.asking import NOT_SENT, failures, kept

# Repair turns when --rewriter-repairs is not given, for every strategy (docs/perturbations.md, rounds 12 and 13:
# a REVTGT-only default chosen on round 12 did not hold on round 13)
DEFAULT_REPAIRS = 1
# The rules' not-applicable reasons that only say the opinion words are missing: the rewriter may still help
LACKS_OPINION_WORDS = frozenset({"the target has no opinion words", "no other aspect with sentiment and opinion words"})


@dataclass(frozen=True)
class Ask:
    """One unit and strategy the rewriter is asked about."""

    unit: Unit
    request: RewriteRequest

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
            if strategy not in rewrite_prompt.REWRITTEN_STRATEGIES or variants.mode != "generated":
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

    @property
    def endpoint(self) -> str:
        """The entry's endpoint as messages show it (credentials and key-shaped text hidden)."""
        return str(getattr(self.adapter, "shown_base_url", f"the endpoint of {self.name}"))


def openai_entry(name: str, models_file: Path | None, option: str) -> Any:
    """The models.yaml entry `name` of kind openai, built (nothing asked); one AbsaChecksError naming the
    option and the fix otherwise."""
    spec = registry.resolve(name, models_file, option)
    if spec.kind != "openai":
        raise AbsaChecksError(f"{option} {name}: a model of kind {spec.kind} cannot be asked this; name a models.yaml "
                              "entry of kind openai (an OpenAI-compatible endpoint), e.g. "
                              "rewriter: {kind: openai, base_url: 'http://127.0.0.1:8000/v1', model: rewriter}")
    return registry.build(spec)


def open_rewriter(name: str, models_file: Path | None, option: str = "--rewriter") -> Rewriter:
    """The entry `name` of kind openai, built; its model name, temperature, seed and max_tokens go in the body."""
    adapter = openai_entry(name, models_file, option)
    max_tokens = getattr(adapter, "max_tokens", None) or rewrite_prompt.DEFAULT_MAX_TOKENS
    settings = BodySettings(adapter.model, adapter.temperature, adapter.seed, max_tokens)
    return Rewriter(name, adapter, settings)


def open_verifier(name: str, models_file: Path | None, option: str = "--verifier") -> Verifier:
    """The entry `name` of kind openai in classify mode (it is asked each aspect's sentiment)."""
    adapter = openai_entry(name, models_file, option)
    if getattr(adapter, "task", "classify") != "classify":
        raise AbsaChecksError(f"{option} {name}: the verifier is asked each aspect's sentiment; give it mode: classify "
                              "(the default), not mode: extract")
    return Verifier(name, adapter)

@dataclass(frozen=True)
class Asking:
    """`generate --rewriter NAME`: the rewriter, the optional verifier, the cache, and whether every unit is asked."""

    rewriter: Rewriter
    cache: PredictionCache | None = None
    verifier: Verifier | None = None
    everything: bool = False
    repairs: int = DEFAULT_REPAIRS  # turns that send a refused answer back with the reason (--rewriter-repairs)


@dataclass
class Rewritten:
    """What the rewriter gave for a source: the verified variants by (strategy, unit id), the quarantined
    answers, how many requests were sent or read from the cache, and the failed ones by the kind of failure."""

    variants: dict[tuple[str, str], Variant] = field(default_factory=dict)
    quarantined: list[Quarantined] = field(default_factory=list)
    sent: int = 0
    cached: int = 0
    failures: Counter = field(default_factory=Counter)  # QueryError.kind of each request that failed for good
    tally: Counter = field(default_factory=Counter)  # (strategy, reason or "shipped")
    keys: dict[tuple[str, str], str] = field(default_factory=dict)  # (strategy, unit id) -> its request's key

    @property
    def failed(self) -> int:
        return sum(self.failures.values())

    def incomplete(self, name: str, endpoint: str) -> str | None:
        """The one line saying the rewriter's work is incomplete (requests failed, counted by kind, the most
        frequent first) and how to finish it; None when every request was answered."""
        if not self.failures:
            return None
        kinds = sorted(self.failures.items(), key=lambda x: (-x[1], x[0]))
        asked = self.sent + self.cached + sum(n for kind, n in kinds if kind.startswith(NOT_SENT))
        return (f"incomplete: the rewriter {name} got no answer to {self.failed} of {asked} requests ("
                + ", ".join(f"{n} x {kind}" for kind, n in kinds) + "); everything else is written; run the same "
                f"command again once {endpoint} answers: only those requests are asked again (exit status 1)")

    def lines(self, name: str) -> list[str]:
        out = [f"rewriter {name}: {self.sent} requests sent, {self.cached} answers from the cache, "
               f"{self.failed} failed"]
        for strategy in sorted({s for s, _ in self.tally}):
            shipped = self.tally[(strategy, SHIPPED)]
            rejected = sorted(((r, n) for (s, r), n in self.tally.items() if s == strategy and r != SHIPPED),
                              key=lambda x: (-x[1], x[0]))
            out.append(f"{strategy} (rewriter): {shipped} variants, {sum(n for _, n in rejected)} quarantined")
            out += [f"    quarantined: {n} x {reason}" for reason, n in rejected]
        return out


SHIPPED = "shipped"


def cache_fingerprint(rewriter: Rewriter) -> str:
    """Whose answers the cache holds: the endpoint (the request key already holds the model and the prompt)."""
    return asking.cache_fingerprint(rewriter.adapter, "rewriter")


def answers(asks: list[Ask], rewriter: Rewriter, cache: PredictionCache | None) -> tuple[dict[str, str | QueryError],
                                                                                          int, int]:
    """Each distinct request's answer text (or QueryError), from the cache or asked (workflows.asking), with how
    many were sent and read from the cache."""
    return asking.ask({ask.key: ask.request.body for ask in asks}, rewriter.adapter, cache_fingerprint(rewriter),
                      cache)


def provenance(rewriter: Rewriter, key: str) -> dict:
    """What an LLM variant carries (and its candidate's `generator`): who wrote it, with which prompt and request."""
    return {"name": "absa-checks rewriter", "rewriter": rewriter.name, "model": rewriter.model,
            "prompt_sha256": rewrite_prompt.PROMPT_SHA256, "request_key": key}


def aspect_vocabulary(loaded: LoadedSource, resources: Resources, domain: str) -> frozenset[str]:
    """The aspect terms a rewrite may not add: the domain's aspect bank and every aspect term of the source."""
    terms = {entry.aspect.lower() for entry in resources.bank(domain)}
    terms |= {a.term.lower() for unit in loaded.units for a in (unit.original.target, *unit.original.others)}
    return frozenset(t for t in terms if len(t) >= 3)


def _verified(asks: list[Ask], found: dict[str, str | QueryError], rewriter: Rewriter, resources: Resources,
              vocabulary: frozenset[str], turn: int) -> list[Variant | Quarantined]:
    """Each ask's answer verified (a failed request: quarantined "no answer")."""
    outcomes: list[Variant | Quarantined] = []
    for ask in asks:
        answer, unit = found[ask.key], ask.unit
        if isinstance(answer, QueryError):
            outcomes.append(Quarantined(unit.source, unit.unit_id, ask.request.strategy, rewrite_check.NO_ANSWER,
                                        answer.message, unit.original.sentence))
        else:
            made = provenance(rewriter, ask.key) | ({"repair_turn": turn} if turn else {})
            outcomes.append(rewrite_check.verify(unit, ask.request, answer, resources, vocabulary, made))
    return outcomes


def repair_asks(asks: list[Ask], found: dict[str, str | QueryError], outcomes: list[Variant | Quarantined]
                ) -> list[tuple[int, Ask]]:
    """(index, follow-up) for each answer a check refused that a second turn may mend (rewrite_check.repairable):
    the conversation, the answer, and the reason sent back (absa_checks.perturb.rewrite_prompt.repair)."""
    follow = []
    for index, (ask, outcome) in enumerate(zip(asks, outcomes)):
        answer = found.get(ask.key)
        if isinstance(outcome, Quarantined) and isinstance(answer, str) and rewrite_check.repairable(outcome.reason):
            why = outcome.reason.removeprefix(rewrite_check.P)
            follow.append((index, Ask(ask.unit, rewrite_prompt.repair(ask.request, answer, why, outcome.detail))))
    return follow


def pending(loaded: LoadedSource, asks: list[Ask], asking: Asking, resources: Resources) -> list[dict]:
    """The bodies a run would send that the cache holds no answer for: the first turns, then, turn by turn, the
    repair turns of the kept answers the checks refuse (nothing is asked)."""
    rewriter, cache = asking.rewriter, asking.cache
    fingerprint = cache_fingerprint(rewriter)
    vocabulary = aspect_vocabulary(loaded, resources, loaded.domain or "restaurant")
    found: dict[str, str | QueryError] = dict(kept([a.key for a in asks], fingerprint, cache))
    bodies = [a.request.body for a in asks if a.key not in found]
    answered = [a for a in asks if a.key in found]
    for turn in range(1, asking.repairs + 1):
        follow = [ask for _, ask in repair_asks(answered, found, _verified(answered, found, rewriter, resources,
                                                                             vocabulary, turn - 1))]
        found.update(kept([a.key for a in follow], fingerprint, cache))
        bodies += [a.request.body for a in follow if a.key not in found]
        answered = [a for a in follow if a.key in found]
    return bodies


def rewrite(loaded: LoadedSource, asks: list[Ask], rewriter: Rewriter, resources: Resources,
            cache: PredictionCache | None, verifier: Verifier | None = None, repairs: int = DEFAULT_REPAIRS
            ) -> Rewritten:
    """Ask (or read from the cache) every request, verify every answer, and send each answer a check refused back
    once more with the reason, up to `repairs` turns; nothing unverified is returned."""
    found, sent, cached = answers(asks, rewriter, cache)
    domain = loaded.domain or "restaurant"
    vocabulary = aspect_vocabulary(loaded, resources, domain)
    failed = failures(found)
    outcomes = _verified(asks, found, rewriter, resources, vocabulary, 0)
    current = list(asks)  # the ask whose answer each outcome is (a repair turn's, once repaired)
    for turn in range(1, repairs + 1):
        follow = repair_asks(current, found, outcomes)
        if not follow:
            break
        more, more_sent, more_cached = answers([ask for _, ask in follow], rewriter, cache)
        found.update(more)
        sent, cached, failed = sent + more_sent, cached + more_cached, failed + failures(more)
        for (index, ask), outcome in zip(follow, _verified([a for _, a in follow], found, rewriter, resources,
                                                           vocabulary, turn)):
            current[index], outcomes[index] = ask, outcome
    out = Rewritten(sent=sent, cached=cached, failures=failed)
    checked: list[tuple[Ask, Variant]] = []
    for ask, first, outcome in zip(current, asks, outcomes):
        unit, strategy = ask.unit, ask.request.strategy
        out.keys[(strategy, unit.unit_id)] = first.key
        if isinstance(outcome, Variant):
            checked.append((ask, outcome))
        else:
            out.quarantined.append(outcome)
            out.tally[(strategy, outcome.reason)] += 1
    readings = verifier.read([variant for _, variant in checked], cache) if verifier and checked else {}
    for ask, variant in checked:
        unit, strategy = ask.unit, ask.request.strategy
        failure = verifier.unanswered(variant, readings) if verifier else None
        if verifier and failure:  # not measured: pending work, as a failed request of the rewriter's
            out.quarantined.append(Quarantined(unit.source, unit.unit_id, strategy, rewrite_check.NO_ANSWER,
                                               failure.message, variant.example.sentence))
            out.tally[(strategy, rewrite_check.NO_ANSWER)] += 1
            out.failures[f"the verifier {verifier.name}: {failure.kind}"] += 1
            continue
        disagreement = verifier.disagreement(variant, readings) if verifier else None
        if disagreement:
            out.quarantined.append(Quarantined(unit.source, unit.unit_id, strategy, rewrite_check.VERIFIER,
                                               disagreement, variant.example.sentence))
            out.tally[(strategy, rewrite_check.VERIFIER)] += 1
            continue
        if verifier:
            variant = dc_replace(variant, provenance={**(variant.provenance or {}), "verifier": verifier.name})
        out.variants[(strategy, unit.unit_id)] = variant
        out.tally[(strategy, SHIPPED)] += 1
    return out


@dataclass
class Verifier:
    """A second openai entry asked, without the intent, the sentiment of each aspect in a variant."""

    name: str
    adapter: Any

    def read(self, variants: list[Variant], cache: PredictionCache | None = None) -> dict[Query, Any]:
        """Each aspect's answer: from the prediction cache (as the suites keep the model's), else asked; only
        answers are kept."""
        queries = sorted({q for v in variants for q in _queries(v)}, key=lambda q: q.text_key())
        fingerprint = self.adapter.fingerprint()
        keys = {q: query_key(q, self.adapter) for q in queries}
        kept = cache.get_many(fingerprint, keys.values()) if cache is not None else {}
        found: dict[Query, Any] = {q: dict(zip(POLARITIES, kept[k])) for q, k in keys.items() if k in kept}
        missing = [q for q in queries if q not in found]
        if missing:
            try:
                answers = self.adapter.predict(missing)
            except AdapterError as err:  # it stopped asking (max_consecutive_failures): each query unanswered
                answers = [QueryError(str(err)) for _ in missing]
            found.update(zip(missing, answers))
            fresh = {keys[q]: _probabilities(a) for q, a in zip(missing, answers) if not isinstance(a, QueryError)}
            if cache is not None and fresh:
                cache.put_many(fingerprint, fresh)
        return found

    def unanswered(self, variant: Variant, readings: dict[Query, Any]) -> QueryError | None:
        """The first failure among the readings of the variant's aspects with a sentiment (None: all read)."""
        for query, aspect in zip(_queries(variant), (variant.example.target, *variant.example.others)):
            answer = readings.get(query)
            if aspect.polarity in ("positive", "negative", "neutral") and isinstance(answer, QueryError):
                return answer
        return None

    def disagreement(self, variant: Variant, readings: dict[Query, Any]) -> str | None:
        """The first aspect whose gold sentiment the verifier does not read (or could not answer for)."""
        for query, aspect in zip(_queries(variant), (variant.example.target, *variant.example.others)):
            if aspect.polarity not in ("positive", "negative", "neutral"):
                continue
            answer = readings.get(query)
            if isinstance(answer, QueryError):
                return f"'{aspect.term}': {answer.message}"
            read = answer if isinstance(answer, str) or not answer else max(answer, key=lambda k: answer[k])
            if read != aspect.polarity:
                return f"'{aspect.term}': {self.name} reads {read}, the variant says {aspect.polarity}"
        return None


def _probabilities(answer: Any) -> tuple[float, float, float]:
    """An answer (a label, or probabilities by label) as the cache keeps it: (negative, neutral, positive)."""
    if isinstance(answer, str):
        return tuple(float(label == answer) for label in POLARITIES)  # type: ignore[return-value]
    return tuple(float(answer.get(label, 0.0)) for label in POLARITIES)  # type: ignore[return-value]


def _queries(variant: Variant) -> list[Query]:
    e = variant.example
    return [Query(e.sentence, a.term, a.start, a.end) for a in (e.target, *e.others)]

