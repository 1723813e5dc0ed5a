"""Load any annotated ABSA file a user points `absa-checks generate --input` at.

- `*.xml`: SemEval-2014 (sentences with ids) or MAMS (without); opinions inferred;
- `*.json`: the ARTS generator input (`*_sent_towe.json`, sentence-grouped, opinion spans given;
  `*_sent.json` without them: inferred) or an ARTS test set (records keyed `<id>`, `<id>_adv1`, ...:
  its originals, opinions inferred);
- `*.txt`: the project's sentence markup (`[term|pos]`, `{words|term}`);
- `*.yaml` / `*.yml`: an examples file as written for inline suite sources.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from absa_checks.common import inputs
from absa_checks.common.errors import DataError
from absa_checks.common.examples import Aspect, DataIssue, Unit
from absa_checks.common.labels import canonical_label
from absa_checks.sources.arts import load_arts
from absa_checks.sources.base import LoadedSource, first_of_each, repeated_keys
from absa_checks.sources.infer import with_inferred_opinions
from absa_checks.sources.mams import load_mams
from absa_checks.sources.markup import examples_of, read_marked_file
from absa_checks.sources.semeval import SemevalSentence, build_units, read_semeval_xml
from absa_checks.sources.spans import repair_span


def guess_domain(path: Path) -> str:
    return "laptop" if "lap" in str(path).lower() else "restaurant"


def load_file(path: Path, domain: str | None = None) -> LoadedSource:
    try:
        inputs.check_regular(path)
    except inputs.NotARegularFile as err:
        raise DataError(f"--input {path}: {err}") from None
    if not path.is_file():
        raise DataError(f"--input {path}: no such file")
    name, domain = path.stem, domain or guess_domain(path)
    suffix = path.suffix.lower()
    if suffix == ".xml":
        try:
            first = ET.parse(path).getroot().find("sentence")
        except ET.ParseError as err:  # e.g. Latin-1 text without an encoding declaration
            raise DataError(f"{path}: not well-formed XML ({err}); if it is not UTF-8, add "
                            "<?xml version=\"1.0\" encoding=\"...\"?> or save it as UTF-8") from None
        if first is not None and first.get("id") is None:
            loaded = load_mams(path.parent, name, path.name)
        else:
            issues: list[DataIssue] = []
            loaded = LoadedSource(name, build_units(name, read_semeval_xml(path, name, issues), {}), tuple(issues))
    elif suffix == ".json":
        loaded = _load_json(path, name)
    elif suffix == ".txt":
        units = [Unit(name, f"{m.line}_{k}", example)
                 for m in read_marked_file(path) for k, example in enumerate(examples_of(m))]
        loaded = LoadedSource(name, tuple(units))
    elif suffix in (".yaml", ".yml"):
        from absa_checks.suites.examples_spec import parse_examples_file
        from absa_checks.suites.inline import load_inline

        loaded = load_inline(parse_examples_file(path, name))
    else:
        raise DataError(f"--input {path}: unknown format; use SemEval/MAMS .xml, ARTS .json, "
                        "markup .txt or an examples .yaml")
    return LoadedSource(loaded.name, loaded.units, loaded.issues, domain)


def _load_json(path: Path, name: str) -> LoadedSource:
    try:
        data = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=first_of_each)
    except ValueError as err:
        raise DataError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(data, dict) or not data:
        raise DataError(f"{path}: expected a JSON object of records")
    first = next(iter(data.values()))
    if isinstance(first, dict) and "term_list" in first:
        loaded = _load_sentence_grouped(data, name)
        repeated = tuple(DataIssue(name, sentence_id, "duplicate_id",
                                   f"{path.name}: sentence id {sentence_id!r} is used twice; the first entry is read "
                                   "and the second dropped: give each sentence its own id", "dropped")
                         for sentence_id in repeated_keys(data))
        return LoadedSource(name, loaded.units, repeated + loaded.issues)
    loaded = load_arts(path, name)
    # the records name aspect and polarity only: REVTGT/REVNON need opinion words, so they are inferred
    units = tuple(Unit(u.source, u.unit_id, with_inferred_opinions(u.original)) for u in loaded.units)
    return LoadedSource(name, units, loaded.issues)


def _load_sentence_grouped(data: dict, name: str) -> LoadedSource:
    """{sentence id: {sentence, term_list: {id: {term, from, to, polarity, opinion_position?}}}}."""
    sentences, gold, issues = [], {}, []
    for sentence_id, entry in data.items():
        text = entry["sentence"]
        aspects = []
        for term in entry.get("term_list", {}).values():
            fix = repair_span(text, term["term"], int(term["from"]), int(term["to"]))
            if fix is None:
                issues.append(DataIssue(name, str(term.get("id", sentence_id)), "span_mismatch",
                                        f"{term['term']!r} not found in the sentence", "dropped"))
                continue
            aspects.append(Aspect(fix.term, fix.start, fix.end, canonical_label(term.get("polarity"))))
            spans = tuple((int(s), int(e)) for s, e in term.get("opinion_position", []))
            if spans:
                gold[(sentence_id, len(aspects) - 1)] = spans
        sentences.append(SemevalSentence(sentence_id, text, tuple(aspects)))
    return LoadedSource(name, build_units(name, sentences, gold), tuple(issues))
