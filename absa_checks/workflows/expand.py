"""`absa-checks expand`: Zoom In-N-Out for a gold source (docs/extraction.md, "Expanded ground truth").

For every sentence with an explicit term: a ZOOM-IN and a ZOOM-OUT request (absa_checks.expansion.prompt), each
answer read and every form it proposes checked (absa_checks.expansion.checks; rejections counted by reason),
then one JUDGE request holding the sentence's candidates that passed; a candidate JUDGE calls valid is an
accepted alternative. Requests go to a models.yaml entry of kind openai, through the cache (by request key: a
second run asks nothing, workflows.asking). A request that failed, or whose answer is not the JSON asked for (not
kept in the cache: asked again next run), leaves its sentence marked incomplete in the file (provenance.status)
and the run incomplete (exit status 1): nothing is lost, nothing passes for expanded that was not.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from absa_checks.common.llm_requests import request_key, requests_lines
from absa_checks.common.tuples import AnnotatedSentence
from absa_checks.expansion import checks, prompt
from absa_checks.expansion.prompt import ExpanderSettings, FormCandidate
from absa_checks.models.cache import PredictionCache
from absa_checks.models.protocol import QueryError
from absa_checks.sources import expanded_gold
from absa_checks.workflows import asking
from absa_checks.workflows.rewrite import openai_entry

ZOOMS = ("zoom-in", "zoom-out")
MALFORMED = "malformed answer"  # the kind of a request whose answer is not the JSON object its step asks for


@dataclass(frozen=True)
class Expander:
    """A models.yaml entry of kind openai, built (nothing is asked until `expand`)."""

    name: str
    adapter: Any  # model_adapters.openai_adapter.OpenAIAdapter, reached through the registry only
    settings: ExpanderSettings

    @property
    def endpoint(self) -> str:
        return str(getattr(self.adapter, "shown_base_url", f"the endpoint of {self.name}"))

    @property
    def fingerprint(self) -> str:
        return asking.cache_fingerprint(self.adapter, "expander")


def open_expander(name: str, models_file: Path | None, option: str = "--expander") -> Expander:
    adapter = openai_entry(name, models_file, option)
    max_tokens = getattr(adapter, "max_tokens", None) or prompt.EXPANDER_MAX_TOKENS
    return Expander(name, adapter, ExpanderSettings(adapter.model, adapter.temperature, adapter.seed, max_tokens))


def zoom_bodies(sentence: AnnotatedSentence, settings: ExpanderSettings) -> dict[str, dict]:
    """The sentence's ZOOM-IN and ZOOM-OUT bodies by step (none when all its terms are NULL)."""
    if not prompt.has_terms(sentence.gold):
        return {}
    return {step: prompt.zoom_body(step, sentence.sentence, sentence.gold, settings) for step in ZOOMS}


@dataclass
class SentenceOutcome:
    """What the requests gave for one sentence."""

    keys: dict[str, str] = field(default_factory=dict)    # step -> request key
    candidates: tuple[FormCandidate, ...] = ()                 # passed the checks, in the order JUDGE sees them
    accepted: tuple[FormCandidate, ...] = ()
    problems: list[str] = field(default_factory=list)      # "zoom-in: timeout", "judge: malformed answer"

    @property
    def status(self) -> str:
        if not self.keys:
            return "nothing to expand"
        return "incomplete: " + "; ".join(self.problems) if self.problems else "expanded"


def candidates(sentence: AnnotatedSentence, answers: dict[str, str | QueryError], tally: Counter,
               problems: list[str]) -> tuple[FormCandidate, ...]:
    """The forms the two ZOOM answers propose that pass the checks (ZOOM-IN's first); each rejection counted in
    `tally` as (step, reason), each failed or malformed answer said in `problems`."""
    seen: set[tuple[int, str, str]] = set()
    found: list[FormCandidate] = []
    for step in ZOOMS:
        answer = answers.get(step)
        if answer is None:
            continue
        if isinstance(answer, QueryError):
            problems.append(f"{step}: {answer.kind}")
            continue
        try:
            proposals = checks.read_zoom(answer, len(sentence.gold))
        except checks.AnswerError as err:
            problems.append(f"{step}: {MALFORMED} ({err})")
            continue
        for proposal in proposals:
            made = checks.check(proposal, step, sentence.sentence, sentence.gold, seen)
            if isinstance(made, FormCandidate):
                found.append(made)
            else:
                tally[(step, made)] += 1
    return tuple(found)


def verdicts(answer: str | QueryError, found: tuple[FormCandidate, ...], tally: Counter, problems: list[str]
             ) -> tuple[FormCandidate, ...]:
    """The candidates JUDGE accepted; each refused or left without a verdict counted in `tally`."""
    if isinstance(answer, QueryError):
        problems.append(f"judge: {answer.kind}")
        return ()
    try:
        said = checks.read_judge(answer, len(found))
    except checks.AnswerError as err:
        problems.append(f"judge: {MALFORMED} ({err})")
        return ()
    accepted = []
    for index, candidate in enumerate(found):
        if index not in said:
            tally[("judge", checks.REJECT_NO_VERDICT)] += 1
        elif not said[index]:
            tally[("judge", checks.REJECT_JUDGE)] += 1
        else:
            accepted.append(candidate)
    return tuple(accepted)


@dataclass
class ExpandedSource:
    """A source expanded: each sentence's outcome, the rejections by (step, reason), the requests sent, read
    from the cache and failed (by kind)."""

    source: str
    sentences: list[AnnotatedSentence]
    outcomes: dict[str, SentenceOutcome]
    tally: Counter = field(default_factory=Counter)
    sent: int = 0
    cached: int = 0
    failures: Counter = field(default_factory=Counter)

    @property
    def incomplete_sentences(self) -> int:
        return sum(o.status.startswith("incomplete") for o in self.outcomes.values())

    def counts(self) -> Counter:
        """proposed/candidates/accepted forms by field."""
        made: Counter = Counter()
        for outcome in self.outcomes.values():
            made.update(f"candidates {c.field}" for c in outcome.candidates)
            made.update(f"accepted {c.field}" for c in outcome.accepted)
        return made

    def lines(self, name: str) -> list[str]:
        made = self.counts()
        out = [f"expander {name}: {self.sent} requests sent, {self.cached} answers from the cache, "
               f"{sum(self.failures.values())} failed",
               f"{self.source}: {len(self.sentences)} sentences, {sum(len(s.gold) for s in self.sentences)} quads; "
               f"accepted {made['accepted aspect']} aspect and {made['accepted opinion']} opinion forms of "
               f"{made['candidates aspect'] + made['candidates opinion']} candidates that passed the checks"]
        for (step, reason), n in sorted(self.tally.items(), key=lambda x: (-x[1], x[0])):
            out.append(f"    rejected: {n} x {reason} ({step})")
        return out

    def incomplete(self, name: str, endpoint: str) -> str | None:
        """The one line saying the expansion is incomplete, and how to finish it; None when it is complete."""
        n = self.incomplete_sentences
        if not n:
            return None
        kinds = ", ".join(f"{k} x {kind}" for kind, k in sorted(self.failures.items(), key=lambda x: (-x[1], x[0])))
        return (f"incomplete: {n} of {len(self.sentences)} sentences of {self.source} are not fully expanded "
                f"({kinds}); their lines say so (provenance.status) and everything else is written; run the same "
                f"command again once {endpoint} answers: only the requests without an answer are asked again "
                "(exit status 1)")


def readable(body: dict, answer: str) -> bool:
    """Whether an answer is the JSON object its step asks for (one that is not is not kept in the cache: the next
    run asks again)."""
    try:
        checks.read_judge(answer, 0) if prompt.step_of(body) == "judge" else checks.read_zoom(answer, 0)
    except checks.AnswerError:
        return False
    return True


def _answers(bodies: dict[str, dict], expander: Expander, cache: PredictionCache | None, out: ExpandedSource
             ) -> dict[str, str | QueryError]:
    found, sent, cached = asking.ask(bodies, expander.adapter, expander.fingerprint, cache,
                                     lambda key, answer: readable(bodies[key], answer))
    out.sent += sent
    out.cached += cached
    out.failures += asking.failures(found)
    return found


def _zoom_requests(sentences: list[AnnotatedSentence], settings: ExpanderSettings
                   ) -> tuple[dict[str, dict[str, str]], dict[str, dict]]:
    """Each sentence's ZOOM request keys by step, and every ZOOM body by key."""
    keys: dict[str, dict[str, str]] = {}
    bodies: dict[str, dict] = {}
    for s in sentences:
        made = zoom_bodies(s, settings)
        keys[s.sentence_id] = {step: request_key(body) for step, body in made.items()}
        bodies.update((keys[s.sentence_id][step], body) for step, body in made.items())
    return keys, bodies


def expand(source: str, sentences: list[AnnotatedSentence], expander: Expander, cache: PredictionCache | None
           ) -> ExpandedSource:
    """Ask (or read from the cache) the ZOOM requests of every sentence, check what they propose, then the JUDGE
    request of each sentence with candidates; nothing unjudged is accepted."""
    out = ExpandedSource(source, sentences, {})
    zoom_keys, bodies = _zoom_requests(sentences, expander.settings)
    found = _answers(bodies, expander, cache, out)
    judge_bodies: dict[str, dict] = {}
    for s in sentences:
        outcome = out.outcomes[s.sentence_id] = SentenceOutcome(dict(zoom_keys[s.sentence_id]))
        answers = {step: found[key] for step, key in outcome.keys.items()}
        outcome.candidates = candidates(s, answers, out.tally, outcome.problems)
        if outcome.candidates:
            body = prompt.judge_body(s.sentence, s.gold, outcome.candidates, expander.settings)
            outcome.keys["judge"] = request_key(body)
            judge_bodies[outcome.keys["judge"]] = body
    judged = _answers(judge_bodies, expander, cache, out)
    for s in sentences:
        outcome = out.outcomes[s.sentence_id]
        if outcome.candidates:
            outcome.accepted = verdicts(judged[outcome.keys["judge"]], outcome.candidates, out.tally,
                                        outcome.problems)
    malformed = sum(MALFORMED in p for o in out.outcomes.values() for p in o.problems)
    if malformed:
        out.failures[MALFORMED] += malformed
    return out


def pending(sentences: list[AnnotatedSentence], expander: Expander, cache: PredictionCache | None) -> list[dict]:
    """The bodies a run would send that the cache holds no answer for: ZOOM requests, then the JUDGE request of
    each sentence whose two ZOOM answers are kept (nothing is asked)."""
    zoom_keys, bodies = _zoom_requests(sentences, expander.settings)
    kept = asking.kept(bodies, expander.fingerprint, cache)
    wanted = [b for key, b in bodies.items() if key not in kept]
    judges: dict[str, dict] = {}
    for s in sentences:
        keys = zoom_keys[s.sentence_id]
        if not keys or any(key not in kept for key in keys.values()):
            continue
        found = candidates(s, {step: kept[key] for step, key in keys.items()}, Counter(), [])
        if found:
            body = prompt.judge_body(s.sentence, s.gold, found, expander.settings)
            judges[request_key(body)] = body
    judged = asking.kept(judges, expander.fingerprint, cache)
    return wanted + [b for key, b in judges.items() if key not in judged]


def export_all(sentences: list[AnnotatedSentence], settings: ExpanderSettings) -> str:
    """`expand --export-requests FILE` without --expander: every ZOOM request (JUDGE's depend on their answers)."""
    return requests_lines([b for s in sentences for b in zoom_bodies(s, settings).values()])


def file_text(expansion: ExpandedSource, expander: Expander, data_sha256: str) -> str:
    """The expanded-gold file (absa_checks.sources.expanded_gold): the header, then one line per gold quad."""
    made = expansion.counts()
    settings = expander.settings
    head = expanded_gold.header(
        expansion.source, made_by="absa-checks expand (Zoom In-N-Out: ZOOM-IN, ZOOM-OUT, JUDGE)",
        model=settings.model, temperature=settings.temperature, seed=settings.seed, max_tokens=settings.max_tokens,
        prompt_sha256=prompt.EXPAND_PROMPT_SHA256, data_sha256=data_sha256, sentences=len(expansion.sentences),
        quads=sum(len(s.gold) for s in expansion.sentences), accepted_aspect_forms=made["accepted aspect"],
        accepted_opinion_forms=made["accepted opinion"],
        incomplete_sentences=expansion.incomplete_sentences)
    lines = [expanded_gold.line(head)]
    for s in expansion.sentences:
        outcome = expansion.outcomes[s.sentence_id]
        digest = expanded_gold.sentence_sha256(s.sentence)
        provenance = {"status": outcome.status, **outcome.keys}
        for quad in range(len(s.gold)):
            row = {"id": s.sentence_id, "sha256": digest, "quad": quad, "provenance": provenance}
            for name in prompt.TERM_FIELDS:
                row[name] = [{"term": c.term, "step": c.step} for c in outcome.accepted
                             if c.quad == quad and c.field == name]
            lines.append(expanded_gold.line(row))
    return "".join(lines)
