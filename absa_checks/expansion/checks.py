"""What a ZOOM answer and a JUDGE answer say, read and checked (pure).

Before JUDGE's verdict counts, every candidate passes deterministic checks (the reasons, counted, are the
REJECT_* constants):
- its span is words of the sentence (token for token, case aside), and its term is those words or a declared
  normalisation of them: a contraction written out ("n't worth" -> "not worth", "didnt" -> "did not"), a
  spelling (hyphens, apostrophes and accents, "wi-fi" -> "wifi", "pizza ' s" -> "pizzas"; letters held long,
  "looove" -> "love"; a letter added or dropped in a word of four letters or more, "coffe" -> "coffee"; one
  edit in a word of six or more, two in one of eight or more, "restaraunt" -> "restaurant");
- at one of its places it overlaps or touches a place of the gold term;
- there it takes in no term of another quad (unless the gold term itself holds it: "wine" in "wine list")
  and not the quad's own other term (an aspect form swallowing the opinion, or the reverse);
- an opinion form keeps the gold opinion's negation (an even count of negators stays even, contractions
  written any way: "worth" is not "n't worth", "does not work" is "doesn 't work");
- it is not the gold term itself (up to case, spacing and tokenisation), nor the whole sentence (every word of it:
  that is no term, and a file holding it would hold the sentence), nor proposed twice.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from absa_checks.common.tuples import IMPLICIT, AspectTuple
from absa_checks.expansion.prompt import TERM_FIELDS, FormCandidate
from absa_checks.judge.matching import content_words, negations, surface

REJECT_MALFORMED = "not a candidate (no term and span as text)"
REJECT_NO_QUAD = "names no quad of the sentence, or a NULL term"
REJECT_NOT_IN_SENTENCE = "its span is not words of the sentence"
REJECT_NOT_NORMALISATION = "its term is neither its span nor a declared normalisation of it"
REJECT_NOT_ADJACENT = "neither overlaps nor touches the gold term"
REJECT_SWALLOWS_OTHER = "takes in a term of another quad"
REJECT_SWALLOWS_OWN = "takes in the quad's own other term"
REJECT_NEGATION = "drops or adds a negation of the gold opinion"
REJECT_GOLD_ITSELF = "the gold term itself"
REJECT_WHOLE_SENTENCE = "the whole sentence"
REJECT_TWICE = "proposed twice"
REJECT_NO_VERDICT = "JUDGE gave it no verdict"
REJECT_JUDGE = "JUDGE: not the same"
REJECTIONS = (REJECT_MALFORMED, REJECT_NO_QUAD, REJECT_NOT_IN_SENTENCE, REJECT_NOT_NORMALISATION, REJECT_NOT_ADJACENT,
           REJECT_SWALLOWS_OTHER, REJECT_SWALLOWS_OWN, REJECT_NEGATION, REJECT_GOLD_ITSELF, REJECT_WHOLE_SENTENCE,
           REJECT_TWICE,
           REJECT_NO_VERDICT, REJECT_JUDGE)

_TOKEN = re.compile(r"n't|\w+(?:['\u2019.-]\w+)*|'\w+|[^\w\s]")


class AnswerError(ValueError):
    """An answer that is not the JSON object the step asks for (the whole request counts as failed)."""


def tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text.casefold().replace("\u2019", "'")))


def places(words: Sequence[str], sentence: Sequence[str]) -> list[tuple[int, int]]:
    """Every (start, end) token range of `sentence` that is `words`."""
    n = len(words)
    return [(i, i + n) for i in range(len(sentence) - n + 1) if n and tuple(sentence[i:i + n]) == tuple(words)]


def _edits(a: str, b: str) -> int:
    """Levenshtein distance with adjacent transpositions (optimal string alignment)."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y)))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _squeezed(word: str, keep: int) -> str:
    return re.sub(r"(\w)\1{2,}", lambda m: m.group(1) * keep, word)


def _spelled_alike(a: str, b: str) -> bool:
    """One word a spelling of the other: the same once letters held long are shortened ("looove", "slowwww"),
    a letter added or dropped in a word of four letters or more ("coffe", "bestt"), one edit of any kind in
    a word of six or more, two in one of eight or more ("restaraunt"); a short word with another letter is a
    word of its own ("food" is not "good")."""
    if a == b or any(_squeezed(a, k) == _squeezed(b, k) or _squeezed(a, k) == b or a == _squeezed(b, k)
                     for k in (1, 2)):
        return True
    shorter = min(len(a), len(b))
    if shorter >= 4 and len(a) != len(b) and _edits(a, b) == 1:
        return True
    return shorter >= 6 and _edits(a, b) <= (2 if shorter >= 8 else 1)


# contractions written without their apostrophe, or with the tokeniser's space before it ("didnt", "won 't")
_SPACED_NT = re.compile(r"\b(\w+n)\s+'\s*t\b")
_BARE_NT = re.compile(r"\b(do|does|did|is|was|were|are|could|would|should|has|have|had|ai|wo|ca|must|need)nt\b")
_SPACED_CLITIC = re.compile(r"\s+'\s*(s|re|ve|ll|d|m)\b")


def _spelled_out(text: str) -> str:
    """The text in lower case without accents, contractions as `content_words` reads them ("won 't", "didnt",
    "CANT", "DONOT" -> "won't", "didn't", "can't", "do not")."""
    text = unicodedata.normalize("NFKD", text.casefold().replace("\u2019", "'"))
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"\bdonot\b", "do not", text)
    text = _SPACED_NT.sub(lambda m: m.group(1) + "'t", text)
    text = _BARE_NT.sub(lambda m: m.group(1) + "n't", text)
    return _SPACED_CLITIC.sub(lambda m: "'" + m.group(1), text)


def normalisation_of(term: str, span: str) -> bool:
    """Whether `term` is `span` with contractions written out ("n't worth", "didnt", "won 't") or a spelling
    normalised (hyphens and apostrophes, letters held long, a slip of one or two letters in a long word)."""
    t, s = content_words(_spelled_out(term)), content_words(_spelled_out(span))
    strip = lambda words: tuple(re.sub(r"['.-]", "", w) for w in words)  # noqa: E731
    if t == s or strip(t) == strip(s) or "".join(strip(t)) == "".join(strip(s)):
        return True
    # "pizza ' s" -> pizzas
    plural = lambda text: content_words(re.sub(r"(\w)'s\b", r"\1s", _spelled_out(text)))  # noqa: E731
    if plural(term) == plural(span):
        return True
    return len(t) == len(s) and all(_spelled_alike(a, b) for a, b in zip(strip(t), strip(s)))


def _loads(answer: str) -> dict:
    text = answer.strip()
    if text.startswith("```"):
        text = re.sub(r"^```\w*\s*|\s*```$", "", text)
    try:
        found = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        start, end = text.find("{"), text.rfind("}")
        try:
            found = json.loads(text[start:end + 1]) if 0 <= start < end else None
        except (json.JSONDecodeError, RecursionError):
            found = None
    if not isinstance(found, dict):
        raise AnswerError("not a JSON object")
    return found


@dataclass(frozen=True)
class Proposal:
    """One form as a ZOOM answer gave it (quad 0-based), before the checks."""

    quad: int
    field: str
    term: object
    span: object


def read_zoom(answer: str, n_quads: int) -> list[Proposal]:
    """The forms a ZOOM answer proposes, in its order; AnswerError when it is not {"quads": [...]}."""
    found = _loads(answer)
    quads = found.get("quads")
    if not isinstance(quads, list):
        raise AnswerError('no "quads" list')
    proposals = []
    for position, entry in enumerate(quads):
        if not isinstance(entry, dict):
            raise AnswerError(f"quad entry {position + 1} is not an object")
        number = entry.get("quad", position + 1)
        quad = number - 1 if isinstance(number, int) and not isinstance(number, bool) else -1
        for field in TERM_FIELDS:
            forms = entry.get(field, [])
            if not isinstance(forms, list):
                raise AnswerError(f'quad {number}: "{field}" is not a list')
            for form in forms:
                if isinstance(form, str):
                    form = {"term": form, "span": form}
                term, span = (form.get("term"), form.get("span", form.get("term"))) if isinstance(form, dict) \
                    else (None, None)
                proposals.append(Proposal(quad if 0 <= quad < n_quads else -1, field, term, span))
    return proposals


def read_judge(answer: str, n_candidates: int) -> dict[int, bool]:
    """FormCandidate (0-based) -> valid, from a JUDGE answer; AnswerError when it is not {"verdicts": [...]}."""
    found = _loads(answer)
    verdicts = found.get("verdicts")
    if not isinstance(verdicts, list):
        raise AnswerError('no "verdicts" list')
    out: dict[int, bool] = {}
    for position, verdict in enumerate(verdicts):
        if not isinstance(verdict, dict) or not isinstance(verdict.get("valid"), bool):
            continue  # a verdict without a true/false "valid" decides nothing: that candidate has no verdict
        number = verdict.get("candidate", position + 1)
        if isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= n_candidates:
            out.setdefault(number - 1, verdict["valid"])
    return out


def _term_places(term: str | None, sentence: Sequence[str]) -> list[tuple[int, int]]:
    return [] if term in (None, IMPLICIT, "NULL") else places(tokens(str(term)), sentence)


def check(proposal: Proposal, step: str, sentence: str, gold: Sequence[AspectTuple],
          seen: set[tuple[int, str, str]]) -> FormCandidate | str:
    """The proposal as a FormCandidate, or the reason it is rejected (REJECT_*); `seen` (quad, field, surface)
    collects the accepted ones, so a second proposal of the same form is rejected as proposed twice."""
    if not isinstance(proposal.term, str) or not isinstance(proposal.span, str) or not proposal.term.strip() \
            or not proposal.span.strip():
        return REJECT_MALFORMED
    if proposal.quad < 0 or getattr(gold[proposal.quad], proposal.field) in (None, IMPLICIT, "NULL"):
        return REJECT_NO_QUAD
    quad = gold[proposal.quad]
    gold_term = str(getattr(quad, proposal.field))
    term, span = " ".join(proposal.term.split()), " ".join(proposal.span.split())
    words = tokens(sentence)
    at = places(tokens(span), words)
    if not at:
        return REJECT_NOT_IN_SENTENCE
    if surface(term) != surface(span) and not normalisation_of(term, span):
        return REJECT_NOT_NORMALISATION
    if surface(term) == surface(gold_term):
        return REJECT_GOLD_ITSELF
    if [w for w in tokens(span) if w[0].isalnum()] == [w for w in words if w[0].isalnum()]:
        return REJECT_WHOLE_SENTENCE
    negated = lambda text: negations(content_words(_spelled_out(text))) % 2  # noqa: E731
    if proposal.field == "opinion" and negated(term) != negated(gold_term):
        return REJECT_NEGATION
    golds = _term_places(gold_term, words)
    touching = [(a, g) for a in at for g in golds if a[0] <= g[1] and g[0] <= a[1]]
    if not touching:
        return REJECT_NOT_ADJACENT
    other_field = "opinion" if proposal.field == "aspect" else "aspect"
    own = _term_places(getattr(quad, other_field), words)
    others = [p for i, g in enumerate(gold) if i != proposal.quad for f in TERM_FIELDS
              if surface(str(getattr(g, f) or "")) != surface(gold_term) for p in _term_places(getattr(g, f), words)]
    inside = lambda p, a: a[0] <= p[0] and p[1] <= a[1]  # noqa: E731
    reason = None
    for a, g in touching:
        if any(inside(p, a) and not inside(p, g) for p in others):
            reason = reason or REJECT_SWALLOWS_OTHER
        elif any(inside(p, a) and not inside(p, g) for p in own):
            reason = REJECT_SWALLOWS_OWN
        else:
            reason = None
            break
    if reason:
        return reason
    key = (proposal.quad, proposal.field, surface(term))
    if key in seen:
        return REJECT_TWICE
    seen.add(key)
    return FormCandidate(proposal.quad, proposal.field, term, span, step)
