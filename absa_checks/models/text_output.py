"""What a generative model or an LLM answers, as extracted tuples: JSON, ASQP or pair text (docs/extraction.md).

The three formats, tried in this order:

1. JSON: a list of objects with `aspect` (or `term`, `target`), `polarity` (or `sentiment`), and
   optionally `opinion` and `category`; or an object holding such a list under any key. Text around the
   JSON (an LLM's "Here are the aspects:") is ignored.
2. ASQP: the paraphrase of Zhang et al. (EMNLP 2021), `<category> is <great|ok|bad> because <aspect> is
   <opinion>` joined by ` [SSEP] ` ("it" for an implicit aspect), or its tag form
   `[A] <aspect> [O] <opinion> [S] <sentiment> [C] <category>` joined by ` [SSEP] `.
3. Pairs: `aspect: polarity` joined by `;` or new lines ("fries: negative; burgers: positive").

An empty answer, "none" or "[]" means no aspect. Anything else that none of the formats reads raises
AnswerUnreadable, which the caller turns into an error of the cases of that sentence, never a crash.
"""

from __future__ import annotations

import json
import re

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.labels import polarity_word
from absa_checks.common.tuples import IMPLICIT, AspectTuple
from absa_checks.models.answer_reading import read_polarity

ASQP_SENTIMENT = {"great": "positive", "ok": "neutral", "bad": "negative"}
NONE_ANSWERS = frozenset({"", "none", "[]", "{}", "no aspects", "null"})
IMPLICIT_WORDS = frozenset({"null", "it", "implicit", "none", ""})


class AnswerUnreadable(AbsaChecksError):
    """A model's text answer could not be read as tuples."""


def _polarity(value: object, where: str) -> str:
    polarity = polarity_word(value) or ASQP_SENTIMENT.get(str(value).strip().lower())
    if polarity is not None:
        return polarity
    reading = read_polarity(str(value)) if isinstance(value, str) else None  # "mostly positive", "not negative"
    if reading is not None and reading.polarity is not None:
        return reading.polarity
    why = f"; it {reading.problem}" if reading is not None and "no polarity" not in reading.problem else ""
    raise AnswerUnreadable(f"{where}: {str(value)[:60]!r} is not a polarity (positive, negative, neutral, or a word "
                      f"such as pos/neg/neu){why}")


def _aspect(value: object) -> str:
    text = str(value).strip()
    return IMPLICIT if text.lower() in IMPLICIT_WORDS else text


def _from_json(found: object) -> list[AspectTuple]:
    if isinstance(found, dict):
        lists = [v for v in found.values() if isinstance(v, list)]
        if len(lists) != 1:
            raise AnswerUnreadable("the JSON answer is an object without exactly one list of aspects in it")
        found = lists[0]
    if not isinstance(found, list):
        raise AnswerUnreadable(f"the JSON answer is {type(found).__name__}, not a list of aspect objects")
    tuples = []
    for n, item in enumerate(found, 1):
        if not isinstance(item, dict):
            raise AnswerUnreadable(f"item {n} of the JSON answer is {type(item).__name__}, not an object with "
                              "'aspect' and 'polarity'")
        keys = {k.lower(): v for k, v in item.items()}
        aspect = next((keys[k] for k in ("aspect", "term", "target") if k in keys), None)
        polarity = next((keys[k] for k in ("polarity", "sentiment") if k in keys), None)
        if aspect is None or polarity is None:
            raise AnswerUnreadable(f"item {n} of the JSON answer needs 'aspect' and 'polarity', has "
                              f"{', '.join(sorted(keys)) or 'nothing'}")
        opinion, category = keys.get("opinion"), keys.get("category")
        tuples.append(AspectTuple(_aspect(aspect), _polarity(polarity, f"item {n} of the JSON answer"),
                                  opinion=None if opinion is None else str(opinion).strip(),
                                  category=None if category is None else str(category).strip()))
    return tuples


def _json_part(text: str) -> str | None:
    """The JSON in the answer: from the first [ or { to its last ] or }; None when there is none."""
    starts = [i for i in (text.find("["), text.find("{")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    end = max(text.rfind("]"), text.rfind("}"))
    return text[start:end + 1] if end > start else text[start:]


PARAPHRASE = re.compile(r"^\s*(?P<category>.+?) is (?P<sentiment>great|ok|bad) because (?P<aspect>.+?) is "
                        r"(?P<opinion>.+?)\s*$", re.IGNORECASE)
TAGGED = re.compile(r"\[A\]\s*(?P<aspect>.*?)\s*\[O\]\s*(?P<opinion>.*?)\s*\[S\]\s*(?P<sentiment>.*?)\s*"
                    r"\[C\]\s*(?P<category>.*?)\s*$", re.IGNORECASE)


def _from_asqp(text: str) -> list[AspectTuple] | None:
    parts = [p for p in re.split(r"\s*\[SSEP\]\s*", text.strip()) if p.strip()]
    found = []
    for n, part in enumerate(parts, 1):
        match = TAGGED.match(part) or PARAPHRASE.match(part)
        if match is None:
            return None if n == 1 else _fail(f"quad {n} of the ASQP answer, {part!r}, is neither "
                                               "'<category> is <great|ok|bad> because <aspect> is <opinion>' "
                                               "nor '[A] .. [O] .. [S] .. [C] ..'")
        found.append(AspectTuple(_aspect(match["aspect"]), _polarity(match["sentiment"], f"quad {n} of the ASQP "
                                                                                            "answer"),
                                 opinion=match["opinion"].strip(), category=match["category"].strip().lower()))
    return found


def _fail(message: str):
    raise AnswerUnreadable(message)


def _from_pairs(text: str) -> list[AspectTuple]:
    found = []
    for n, part in enumerate((p.strip() for p in re.split(r"[;\n]", text)), 1):
        if not part:
            continue
        aspect, colon, polarity = part.rpartition(":")
        if not colon:
            raise AnswerUnreadable(f"part {n} of the answer, {part!r}, is not 'aspect: polarity' (nor JSON, nor ASQP)")
        found.append(AspectTuple(_aspect(aspect.strip(" -*\"'")), _polarity(polarity.strip(" .\"'"),
                                                                           f"part {n} of the answer")))
    return found


def parse(text: str) -> list[AspectTuple]:
    """The tuples in a model's text answer (module docstring); AnswerUnreadable when it cannot be read."""
    if not isinstance(text, str):
        raise AnswerUnreadable(f"the answer is {type(text).__name__}, not text")
    stripped = text.strip()
    if stripped.lower().rstrip(".") in NONE_ANSWERS:
        return []
    # a JSON list or object, possibly inside prose ("Here are the aspects: [...]"); not ASQP's "[A] ... [SSEP]"
    looks_json = (stripped.startswith(("[", "{")) and not stripped.upper().startswith("[A]")) or "{" in stripped \
        or re.search(r"\[\s*\]\s*$", stripped) is not None
    if looks_json:
        part = _json_part(stripped) or stripped
        try:
            return _from_json(json.loads(part))
        except json.JSONDecodeError as err:
            raise AnswerUnreadable(f"the answer looks like JSON but is not valid JSON ({err.msg} at character "
                              f"{err.pos} of the JSON part)") from None
    asqp = _from_asqp(stripped)
    if asqp is not None:
        return asqp
    return _from_pairs(stripped)
