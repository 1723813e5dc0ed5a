"""The three requests of Zoom In-N-Out (pure): ZOOM-IN, ZOOM-OUT and JUDGE, one body per sentence and step.

"Single Ground Truth Is Not Enough" (Yang et al., NAACL 2025) expands every gold aspect and opinion term
into the other surface forms a careful annotator would accept: ZOOM-IN proposes forms inside the gold span
("n't worth" -> "not worth"), ZOOM-OUT forms that take in adjacent words ("n't worth waiting"), and JUDGE
checks, reasoning first, that each candidate keeps the quad's meaning. Here each step is one
chat-completions body per sentence, holding all of its quads (a sentence's quads are read together, as an
annotator reads them): the instructions (system), two worked examples written for this project (not taken
from any test set) and the sentence. Answers are one JSON object; absa_checks.expansion.checks reads them.

A candidate is {"term": T, "span": S}: S the exact words of the sentence it comes from, T the same words
or a declared normalisation of them (a contraction written out, a spelling): "n't worth" -> {"term": "not
worth", "span": "n't worth"}.

The bodies are built here and only here: `absa-checks expand --export-requests` writes them, the openai
adapter sends them as they are, and their sha256 (absa_checks.common.llm_requests.request_key) keys the
cache and the recorded answers. Any change to this file's text changes every key (and EXPAND_PROMPT_SHA256).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from absa_checks.common.tuples import IMPLICIT, AspectTuple

STEPS = ("zoom-in", "zoom-out", "judge")
DEFAULT_EXPANDER_MODEL = "expander"  # the model name of exported requests when no --expander is named
EXPANDER_TEMPERATURE = 0.0
EXPANDER_SEED = 0
EXPANDER_MAX_TOKENS = 1024
TERM_FIELDS = ("aspect", "opinion")

_COMMON = """\
You help build an expanded ground truth for aspect-sentiment quad extraction. Each review sentence comes \
with its gold quads (aspect term, category, sentiment, opinion term); the terms are spans of the sentence \
as annotated. "NULL" means the sentence names no such term: it has no forms. The sentence is tokenised: \
words and punctuation are separated by spaces ("do n't", "food ."), and you copy its words exactly so."""

EXPAND_SYSTEM = {
    "zoom-in": _COMMON + """

Task ZOOM-IN: for every quad, list the other forms of its aspect term and of its opinion term that lie \
INSIDE the gold term and that a careful annotator would accept as the same aspect, or the same opinion with \
the same sentiment:
- a shorter part of the gold term that still names the same thing or says the same thing ("the pizza" -> \
"pizza"; "really friendly" -> "friendly" only if the intensity does not matter to the sentiment);
- the gold term with a contraction written out or a spelling normalised ("n't worth" -> "not worth").
Never drop a negation ("n't worth" -> "worth" reverses it), never cut a term down to a word that names \
something else or something more general ("battery life" -> "life" is not the same aspect), never \
propose the gold term itself.

Each form is {"term": T, "span": S}: S the exact words of the sentence it comes from (copied as written), \
T equal to S, or S with a contraction written out or a spelling normalised. Propose only forms you are \
confident of; an empty list is a good answer.

Answer with one JSON object and nothing else: {"quads": [{"quad": 1, "aspect": [...], "opinion": [...]}, \
...]} with one entry per quad, in the order given.""",
    "zoom-out": _COMMON + """

Task ZOOM-OUT: for every quad, list the forms of its aspect term and of its opinion term that take in \
ADJACENT words of the sentence (before or after the gold term, the gold term kept whole) and that a careful \
annotator would still accept as the same aspect, or the same opinion with the same sentiment: a \
determiner, a modifier or a complement that belongs to the term ("pizza" -> "the pizza", "worth" -> \
"worth the wait"). Never take in another quad's aspect or opinion term, the quad's own other term (an \
aspect form may not swallow its opinion, nor the reverse), a negation that is not in the gold opinion, or \
words that change what is named or said; never propose the gold term itself.

Each form is {"term": T, "span": S}: S the exact words of the sentence it comes from (copied as written), \
T equal to S, or S with a contraction written out or a spelling normalised. Propose only forms you are \
confident of; an empty list is a good answer.

Answer with one JSON object and nothing else: {"quads": [{"quad": 1, "aspect": [...], "opinion": [...]}, \
...]} with one entry per quad, in the order given.""",
    "judge": _COMMON + """

Task JUDGE: each candidate is another form proposed for one quad's aspect or opinion term. Decide for each \
whether a careful annotator reading this sentence would accept the candidate in place of the gold term \
without changing the quad's meaning: for an aspect, it names exactly the same thing (not a part of it, a \
larger thing or another thing); for an opinion, it expresses the same opinion about that aspect with the \
same sentiment (no negation added or lost, nothing of another quad taken in). Think first: give your \
reasoning in one or two sentences, then the verdict.

Answer with one JSON object and nothing else: {"verdicts": [{"candidate": 1, "reason": "...", "valid": \
true}, ...]} with one verdict per candidate, in the order given.""",
}


@dataclass(frozen=True)
class ExpanderSettings:
    """What a body says besides the messages: the entry's model name, temperature, seed, max_tokens (the
    defaults are those of an export without --expander)."""

    model: str = DEFAULT_EXPANDER_MODEL
    temperature: float = EXPANDER_TEMPERATURE
    seed: int = EXPANDER_SEED
    max_tokens: int = EXPANDER_MAX_TOKENS


@dataclass(frozen=True)
class FormCandidate:
    """A form proposed for one quad's field: `term` as proposed, `span` the sentence's words it comes from."""

    quad: int      # 0-based index of the gold tuple in the source's order
    field: str     # "aspect" or "opinion"
    term: str
    span: str
    step: str      # "zoom-in" or "zoom-out"


def _term(value: str | None) -> str:
    return "NULL" if value in (None, IMPLICIT) else str(value)


def quads_text(gold: tuple[AspectTuple, ...]) -> str:
    return "\n".join(f"{n}. aspect: \"{_term(g.aspect)}\"; category: {g.category or 'none'}; sentiment: "
                     f"{g.polarity or 'none'}; opinion: \"{_term(g.opinion)}\"" for n, g in enumerate(gold, 1))


def zoom_message(sentence: str, gold: tuple[AspectTuple, ...]) -> str:
    return f"Sentence: {sentence}\nQuads:\n{quads_text(gold)}\nAnswer with the JSON object only."


def judge_message(sentence: str, gold: tuple[AspectTuple, ...], candidates: tuple[FormCandidate, ...]) -> str:
    lines = [f"Sentence: {sentence}", "Quads:", quads_text(gold), "Candidates:"]
    for n, c in enumerate(candidates, 1):
        gold_term = getattr(gold[c.quad], c.field)
        lines.append(f"{n}. quad {c.quad + 1}, {c.field} (gold \"{_term(gold_term)}\"): \"{c.term}\"")
    lines.append("Answer with the JSON object only.")
    return "\n".join(lines)


# ---------------------------------------------------------------- the worked examples (written for this project)

_SHOT_SENTENCE = "The grilled salmon was n't worth the price , but our waiter was really friendly ."
_SHOT_GOLD = (AspectTuple("grilled salmon", "negative", opinion="n't worth", category="food prices"),
              AspectTuple("waiter", "positive", opinion="really friendly", category="service general"))
_SHOT_ANSWERS = {
    "zoom-in": {"quads": [
        {"quad": 1, "aspect": [], "opinion": [{"term": "not worth", "span": "n't worth"}]},
        {"quad": 2, "aspect": [], "opinion": [{"term": "friendly", "span": "friendly"}]}]},
    "zoom-out": {"quads": [
        {"quad": 1, "aspect": [{"term": "The grilled salmon", "span": "The grilled salmon"}],
         "opinion": [{"term": "n't worth the price", "span": "n't worth the price"}]},
        {"quad": 2, "aspect": [{"term": "our waiter", "span": "our waiter"}], "opinion": []}]},
}
_SHOT_CANDIDATES = (FormCandidate(0, "aspect", "The grilled salmon", "The grilled salmon", "zoom-out"),
                    FormCandidate(0, "opinion", "not worth", "n't worth", "zoom-in"),
                    FormCandidate(0, "opinion", "worth", "worth", "zoom-in"),
                    FormCandidate(1, "opinion", "friendly", "friendly", "zoom-in"),
                    FormCandidate(1, "aspect", "waiter was", "waiter was", "zoom-out"))
_SHOT_VERDICTS = {"verdicts": [
    {"candidate": 1, "reason": "The determiner adds nothing: the same dish is named.", "valid": True},
    {"candidate": 2, "reason": "The contraction written out; the same negative opinion.", "valid": True},
    {"candidate": 3, "reason": "Without the negation it says the salmon was worth the price: the opposite.",
     "valid": False},
    {"candidate": 4, "reason": "The opinion without its intensifier is still the positive opinion of the waiter.",
     "valid": True},
    {"candidate": 5, "reason": "The verb is no part of the aspect; it names no thing.", "valid": False}]}


def _dump(answer: dict) -> str:
    return json.dumps(answer, ensure_ascii=False)


def _shots(step: str) -> list[dict]:
    if step == "judge":
        return [{"role": "user", "content": judge_message(_SHOT_SENTENCE, _SHOT_GOLD, _SHOT_CANDIDATES)},
                {"role": "assistant", "content": _dump(_SHOT_VERDICTS)}]
    return [{"role": "user", "content": zoom_message(_SHOT_SENTENCE, _SHOT_GOLD)},
            {"role": "assistant", "content": _dump(_SHOT_ANSWERS[step])}]


EXPAND_SHOTS = {step: tuple(_shots(step)) for step in STEPS}
# The prompt's fingerprint: the instructions and the worked examples of the three steps (the files' provenance)
EXPAND_PROMPT_SHA256 = hashlib.sha256(json.dumps([EXPAND_SYSTEM, {s: list(m) for s, m in EXPAND_SHOTS.items()}],
                                                 sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _body(step: str, message: str, settings: ExpanderSettings) -> dict:
    return {"model": settings.model,
            "messages": [{"role": "system", "content": EXPAND_SYSTEM[step]}, *EXPAND_SHOTS[step],
                         {"role": "user", "content": message}],
            "temperature": settings.temperature, "seed": settings.seed, "max_tokens": settings.max_tokens}


def step_of(body: dict) -> str:
    """Which of STEPS a body built here asks (read from its system message)."""
    system = body["messages"][0]["content"]
    return next(step for step in STEPS if f"Task {step.upper()}:" in system)


def has_terms(gold: tuple[AspectTuple, ...]) -> bool:
    """Whether a sentence has any explicit term to expand (all NULL: nothing is asked)."""
    return any(_term(getattr(g, f)) != "NULL" for g in gold for f in TERM_FIELDS)


def zoom_body(step: str, sentence: str, gold: tuple[AspectTuple, ...], settings: ExpanderSettings) -> dict:
    """The ZOOM-IN or ZOOM-OUT request of one sentence."""
    if step not in ("zoom-in", "zoom-out"):
        raise ValueError(f"not a zoom step: {step}")
    return _body(step, zoom_message(sentence, gold), settings)


def judge_body(sentence: str, gold: tuple[AspectTuple, ...], candidates: tuple[FormCandidate, ...],
               settings: ExpanderSettings) -> dict:
    """The JUDGE request of one sentence's candidates that passed the checks (in their order)."""
    return _body("judge", judge_message(sentence, gold, candidates), settings)
