"""Gold tuples for extraction quality: SemEval-2014 XML (aspect terms with spans and polarities) and the
ASQP quads (rest15, rest16); their expanded ground truth is read by absa_checks.sources.expanded_gold."""

from __future__ import annotations

import ast
import xml.etree.ElementTree as ET
from pathlib import Path

from absa_checks.common import inputs
from absa_checks.common.errors import DataError
from absa_checks.common.labels import canonical_label
from absa_checks.common.tuples import IMPLICIT, AnnotatedSentence, AspectTuple


def semeval_sentences(path: Path) -> list[AnnotatedSentence]:
    """Every sentence of a SemEval-2014 Task 4 file with its aspect terms; `conflict` terms are left out
    (a tagger predicts one polarity), as in the usual (aspect, polarity) scoring."""
    try:
        inputs.check_regular(path)
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as err:
        raise DataError(f"{path}: cannot be read as SemEval-2014 XML ({err})") from None
    found: list[AnnotatedSentence] = []
    first_of: dict[str, int] = {}  # sentence id -> its 1-based <sentence>
    for sentence in root.iter("sentence"):
        sentence_id = sentence.get("id", str(len(found)))
        if sentence_id in first_of:  # predictions and alternatives are matched to a sentence by its id
            raise DataError(f"{path}: sentence id {sentence_id!r} is used twice, by <sentence> {first_of[sentence_id]} "
                            f"and <sentence> {len(found) + 1}; give each sentence its own id")
        first_of[sentence_id] = len(found) + 1
        text = sentence.findtext("text") or ""
        gold = tuple(AspectTuple(term.get("term", ""), canonical_label(term.get("polarity")), int(term.attrib["from"]),
                                 int(term.attrib["to"]))
                     for term in sentence.iter("aspectTerm") if term.get("polarity") != "conflict")
        found.append(AnnotatedSentence(sentence_id, text, gold, spans=True))
    return found


def asqp_sentences(path: Path) -> list[AnnotatedSentence]:
    """`SENTENCE####[[aspect, category, sentiment, opinion], ...]` a line (Zhang et al., 2021)."""
    found = []
    for n, line in _lines(path):
        sentence, sep, quads = line.partition("####")
        try:
            parsed = ast.literal_eval(quads) if sep else None
        except (ValueError, SyntaxError):
            parsed = None
        if not isinstance(parsed, list):
            raise DataError(f"{path}:{n}: not 'SENTENCE####[[aspect, category, sentiment, opinion], ...]'")
        gold = tuple(AspectTuple(IMPLICIT if a == "NULL" else a, canonical_label(s),
                                 opinion=IMPLICIT if o == "NULL" else o, category=c)
                     for a, c, s, o in parsed)
        found.append(AnnotatedSentence(f"{path.parent.name}-{n}", sentence.strip(), gold, spans=False))
    return found


def _lines(path: Path) -> list[tuple[int, str]]:
    """(line number, line) for the file's non-blank lines; DataError when it cannot be read."""
    try:
        lines = inputs.read_text(path).splitlines()
    except OSError as err:
        raise DataError(f"{path}: cannot be read ({err.strerror})") from None
    return [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
