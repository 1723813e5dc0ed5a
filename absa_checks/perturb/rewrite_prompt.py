"""The LLM rewriter's prompt: what one request asks for a unit and a strategy (pure).

A request is one chat-completions body: the instructions (system), four worked examples (written for
this project, not taken from any test set) and the unit. The model answers with a structured minimal
edit as JSON: the spans of the original it replaces (character offsets), their new text, the whole new
sentence and the sentiment of every aspect afterwards; absa_checks.perturb.rewrite_check verifies it.

The body is built here and only here: `absa-checks generate --export-requests` writes it, the openai
adapter sends it as it is, and its sha256 (absa_checks.common.llm_requests.request_key) keys the cache and
the recorded answers. Any change to this file's text changes every key (and PROMPT_SHA256).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from absa_checks.common.examples import Aspect, Example
from absa_checks.common.labels import POLAR, opposite

REWRITTEN_STRATEGIES = ("revtgt", "revnon")  # what the rewriter is asked for (ADDDIFF stays with the rules)
DEFAULT_REWRITER_MODEL = "rewriter"  # the model name of exported requests when no --rewriter is named
DEFAULT_TEMPERATURE = 0.0
DEFAULT_REWRITER_SEED = 0
DEFAULT_MAX_TOKENS = 1024
PROMPT_MAX_CHANGED_WORDS = 6  # what the prompt asks for; rewrite_check's bound is a little looser

SYSTEM = """\
You edit review sentences for behavioural tests of aspect-based sentiment analysis models.
You get one sentence, its aspect terms with their sentiment now, and the sentiment each aspect must have \
after your edit. Make the smallest edit after which a careful reader of the new sentence alone would give \
every aspect exactly its new sentiment.

Rules:
- Change as few words as possible (at most 6 words); keep everything else exactly as it is.
- Keep every aspect term exactly as written, as often as it occurs. Add no new aspect: no new dish, part, \
person, feature or other thing being judged.
- Fix every word whose sense depends on the old sentiment, so the sentence reads naturally: discourse words \
("even", "not only", "but", "although", "too", "still"), recommendations, comparisons, exclamations.
- Then read your whole new sentence once more: every word you did not change must still make sense with the \
new sentiments ("Even better", "of course", "finally", "so", "hoping", "the only", "ALL OF THIS", a \
recommendation, a reason, an exclamation). Change such words too, within the limit, or decline.
- An aspect that keeps its sentiment keeps its words (or has them strengthened, when asked); a neutral \
aspect stays neutral. The new sentiment must come from the words, not from world knowledge.
- The new sentence is fluent, grammatical English that a reviewer could have written.
- Each edit replaces original[start:end] (character offsets, from 0, end excluded) with "new"; "old" \
repeats original[start:end] exactly. The word offsets given help you count. Edits do not overlap; to \
insert, give start equal to end and "old": "".
- Answer with one JSON object and nothing else:
{"edits": [{"start": 0, "end": 0, "old": "...", "new": "..."}], "sentence": "the whole new sentence", \
"sentiments": [{"aspect": "term", "sentiment": "positive, negative or neutral"}]} with one sentiment per \
aspect, in the order the aspects are given.
- When no small, fluent edit can do it, answer {"edits": [], "sentence": null, "sentiments": [], \
"cannot": "why, in a few words"}."""

TASKS = {
    "revtgt": "REVTGT: reverse the target's sentiment; every other aspect keeps its sentiment.",
    "revnon": ("REVNON: the target keeps its sentiment; reverse every other aspect that shares the target's "
               "sentiment; strengthen (exaggerate) the other aspects whose sentiment opposes the target's; "
               "neutral aspects stay neutral."),
}


@dataclass(frozen=True)
class RewriteRequest:
    """What the rewriter is asked for one unit and strategy, and what its answer must say."""

    strategy: str
    example: Example
    intended: tuple[str | None, ...]  # each aspect's sentiment afterwards (target first); None: not checked
    body: dict

    @property
    def aspects(self) -> tuple[Aspect, ...]:
        return (self.example.target, *self.example.others)


def intended(example: Example, strategy: str) -> tuple[str | None, ...] | None:
    """Every aspect's sentiment after the edit (target first), or None when the strategy cannot apply
    (REVTGT: a target that is not positive or negative; REVNON: such a target, or no other polar aspect)."""
    if example.polarity not in POLAR:
        return None
    others = [a.polarity for a in example.others]
    if strategy == "revtgt":
        return (opposite(example.polarity), *others)
    if strategy == "revnon":
        if not any(p in POLAR for p in others):
            return None
        return (example.polarity, *(opposite(p) if p == example.polarity else p for p in others))
    raise ValueError(f"the rewriter does not make {strategy} variants")


_WORDS = re.compile(r"\w+(?:['\u2019-]\w+)*|[^\w\s]")


def word_offsets(sentence: str) -> str:
    return " ".join(f"{m.start()}:{m.group(0)}" for m in _WORDS.finditer(sentence))


def _describe(polarity: str | None, new: str | None, strategy: str, is_target: bool) -> str:
    now = polarity or "unlabelled"
    if new is None:
        return f"now {now}, leave its sentiment as it is"
    if new == polarity:
        strengthen = strategy == "revnon" and not is_target and polarity in POLAR
        return f"now {now}, must stay {new}" + (" (strengthen it)" if strengthen else "")
    return f"now {now}, must become {new}"


def user_message(example: Example, strategy: str, wanted: tuple[str | None, ...]) -> str:
    lines = [f"Task: {TASKS[strategy]}", f"Sentence: {example.sentence}",
             f"Word offsets: {word_offsets(example.sentence)}", "Aspects:"]
    for n, (aspect, new) in enumerate(zip((example.target, *example.others), wanted), 1):
        role = " (the target)" if n == 1 else ""
        lines.append(f"{n}. \"{aspect.term}\" at {aspect.start}-{aspect.end}{role}: "
                     f"{_describe(aspect.polarity, new, strategy, n == 1)}")
    lines.append("Answer with the JSON object only.")
    return "\n".join(lines)


# ---------------------------------------------------------------- the worked examples (written for this project)

@dataclass(frozen=True)
class _Shot:
    strategy: str
    sentence: str
    aspects: tuple[tuple[str, str], ...]    # (term, polarity), target first; each term's first occurrence
    replace: tuple[tuple[str, str], ...]    # (old text, new text): each old text's first occurrence


SHOTS = (
    _Shot("revtgt", "Even the desserts were delicious, and the staff was friendly.",
          (("desserts", "positive"), ("staff", "positive")),
          (("Even", "Sadly,"), ("delicious", "bland"), ("and", "but"))),
    _Shot("revtgt", "Great battery life for such a light machine.",
          (("battery life", "positive"),),
          (("Great", "Poor"),)),
    _Shot("revtgt", "The screen is not bright enough to use outdoors, but the keyboard is comfortable.",
          (("screen", "negative"), ("keyboard", "positive")),
          (("not ", ""), (", but", ", and"))),
    _Shot("revnon", "The pasta was fresh and the wine list was impressive, but our waiter was rude.",
          (("pasta", "positive"), ("wine list", "positive"), ("waiter", "negative")),
          ((" and", ", but"), ("impressive", "disappointing"), (", but", " and"), ("rude", "incredibly rude"))),
)


def _shot_example(shot: _Shot) -> Example:
    aspects = []
    for term, polarity in shot.aspects:
        start = shot.sentence.index(term)
        aspects.append(Aspect(term, start, start + len(term), polarity))
    return Example(shot.sentence, aspects[0], tuple(aspects[1:]))


def _shot_answer(shot: _Shot, wanted: tuple[str | None, ...]) -> str:
    spans: list[tuple[int, int, str, str]] = []
    taken = 0
    for old, new in shot.replace:  # each old text after the one before: the edits never overlap
        start = shot.sentence.index(old, taken)
        spans.append((start, start + len(old), old, new))
        taken = start + len(old)
    sentence = shot.sentence
    for start, end, _, new in reversed(spans):
        sentence = sentence[:start] + new + sentence[end:]
    edits = [{"start": start, "end": end, "old": old, "new": new} for start, end, old, new in spans]
    sentiments = [{"aspect": term, "sentiment": new} for (term, _), new in zip(shot.aspects, wanted)]
    return json.dumps({"edits": edits, "sentence": sentence, "sentiments": sentiments}, ensure_ascii=False)


def _shots() -> list[dict]:
    messages = []
    for shot in SHOTS:
        example = _shot_example(shot)
        wanted = intended(example, shot.strategy)
        assert wanted is not None, "every worked example applies"
        messages += [{"role": "user", "content": user_message(example, shot.strategy, wanted)},
                     {"role": "assistant", "content": _shot_answer(shot, wanted)}]
    return messages


FEW_SHOT = tuple(_shots())
# The repair turn: an answer the checks refused goes back once with the reason (absa_checks.workflows.rewrite)
REPAIR = ("Your edit was not accepted: {reason}{detail}. Give a corrected edit of the same original sentence that "
          "avoids this, following every rule, as one JSON object only; or decline as the rules say.")
# The prompt's fingerprint: the instructions, the worked examples and the task texts (each variant's provenance)
PROMPT_SHA256 = hashlib.sha256(json.dumps([SYSTEM, list(FEW_SHOT), TASKS, REPAIR], sort_keys=True,
                                          ensure_ascii=False).encode()).hexdigest()


@dataclass(frozen=True)
class BodySettings:
    """What a request body says besides the messages: the entry's model name, temperature, seed, max_tokens
    (the defaults are those of an export without --rewriter)."""

    model: str = DEFAULT_REWRITER_MODEL
    temperature: float = DEFAULT_TEMPERATURE
    seed: int = DEFAULT_REWRITER_SEED
    max_tokens: int = DEFAULT_MAX_TOKENS


def body(messages: list[dict], settings: BodySettings) -> dict:
    """The one place a rewriter request's body is built."""
    return {"model": settings.model, "messages": messages, "temperature": float(settings.temperature),
            "seed": int(settings.seed), "max_tokens": int(settings.max_tokens)}


def request(example: Example, strategy: str, settings: BodySettings) -> RewriteRequest | None:
    """The request for one unit's original and strategy; None when the strategy cannot apply to it."""
    wanted = intended(example, strategy)
    if wanted is None:
        return None
    messages = [{"role": "system", "content": SYSTEM}, *FEW_SHOT,
                {"role": "user", "content": user_message(example, strategy, wanted)}]
    return RewriteRequest(strategy, example, wanted, body(messages, settings))


def settings_of(sent: dict) -> BodySettings:
    """The settings a body was built with (a repair turn is sent with its first turn's)."""
    return BodySettings(sent["model"], sent["temperature"], sent["seed"], sent["max_tokens"])


def repair(first: RewriteRequest, answer: str, reason: str, detail: str) -> RewriteRequest:
    """The follow-up to a refused answer: the first turn's conversation, the answer as the assistant's, and the
    reason it was refused (the reason's category and its particulars, cut to 200 characters)."""
    shown = f" ({detail[:200]})" if detail else ""
    messages = [*first.body["messages"], {"role": "assistant", "content": answer},
                {"role": "user", "content": REPAIR.format(reason=reason, detail=shown)}]
    return RewriteRequest(first.strategy, first.example, first.intended, body(messages, settings_of(first.body)))
