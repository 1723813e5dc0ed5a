"""A test's variants from a reviewed candidates file (`variants: {frozen: FILE}`): the generator is never asked.

Cases come only from accepted and edited candidates whose unit still has the content it had when they
were generated (`unit_hash`). A unit whose content changed, a unit the file does not know and a unit the
file knows but the source no longer has make the test's source out of date: `stale` says which and how to
update, and the run fails on it (never passes on a set nobody reviewed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from absa_checks.common.examples import Unit, Variant
from absa_checks.sources.base import LoadedSource
from absa_checks.suites.candidates import USED, Candidate, CandidatesError, unit_hash

SHOWN_UNITS = 5  # units named in the message; the rest are counted


@dataclass(frozen=True)
class Frozen:
    by_unit: dict[str, tuple[Variant, ...]]
    without_variant: tuple[tuple[str, str], ...]  # (unit id, why) for each unit with no accepted candidate
    stale: str = ""  # why the file no longer fits the source, with the command that updates it; "" when it does
    # the audit verdicts that count (judge.audit) of the accepted and edited candidates that fit the source's
    # present content, the pool the test's cases come from: candidate id -> [fluent, sentiment_ok]
    audits: dict[str, list[bool]] = field(default_factory=dict)


def of_source(candidates: tuple[Candidate, ...], source: str, strategy: str, shown: str) -> list[Candidate]:
    """The file's candidates for one source and strategy. A file that names a single source is that source's
    whatever the suite calls it (generate --input names it after the file)."""
    named = {c.source for c in candidates}
    wanted = source if source in named or len(named) != 1 else next(iter(named))
    found = [c for c in candidates if c.source == wanted and c.strategy == strategy]
    if not found:
        have = sorted({f"{c.strategy} on {c.source}" for c in candidates}) or ["nothing"]
        raise CandidatesError(f"{shown}: no {strategy} candidates for source '{source}' (the file has "
                              f"{', '.join(have)}); add them with `{update_command(shown, source, strategy)}`")
    return found


def update_command(shown: str, source: str, strategy: str, input_file: str | None = None) -> str:
    origin = f"--input {input_file}" if input_file else f"--source {source}"
    return f"absa-checks generate {origin} --strategies {strategy} --update {shown}"


def frozen_variants(candidates: list[Candidate], loaded: LoadedSource, units: tuple[Unit, ...], strategy: str,
                    shown: str, input_file: str | None = None) -> Frozen:
    """The accepted variants of `units`, and whether the file is out of date for any unit of the source."""
    current, changed, new, removed = _fit(candidates, loaded)
    of_unit: dict[str, list[Candidate]] = {}
    for c in candidates:
        of_unit.setdefault(c.unit, []).append(c)
    by_unit: dict[str, tuple[Variant, ...]] = {}
    without: list[tuple[str, str]] = []
    for unit in units:
        fit = [c for c in of_unit.get(unit.unit_id, ()) if c.unit_hash == current[unit.unit_id]]
        used = [c for c in fit if c.decision in USED]
        if used:
            by_unit[unit.unit_id] = tuple(Variant(strategy, c.example(), c.edits(), "frozen", c.provenance())
                                          for c in sorted(used, key=lambda c: c.line))
        elif fit:
            pending = sum(c.decision is None and c.status != "not_applicable" for c in fit)
            plural = "" if pending == 1 else "s"
            without.append((unit.unit_id, f"{pending} candidate{plural} not decided yet" if pending else
                            "no candidate accepted in the frozen file"))
    audits = {}
    for c in candidates:
        verdict = c.audit() if c.decision in USED and current.get(c.unit) == c.unit_hash else None
        if verdict is not None:
            audits[c.candidate_id] = [verdict["fluent"], verdict["sentiment_ok"]]
    return Frozen(by_unit, tuple(without), _stale(changed, new, removed, loaded.name, strategy, shown, input_file),
                  dict(sorted(audits.items())))


def audited_verdicts(candidates: list[Candidate], loaded: LoadedSource, runs: Mapping[str, tuple[Variant, ...]],
                     strategy: str, shown: str, input_file: str | None = None) -> tuple[str, dict[str, list[bool]]]:
    """An audited source (`variants: {audited: {source: FILE}}`): the test runs the source's own variants (`runs`,
    by unit) and the file holds audit verdicts on them. Why the file no longer fits the source ("" when it does,
    as for a frozen file), and the verdicts that count: of candidates whose unit still has the content they were
    made from and whose audited sentence is the text of a variant the test runs for that unit (a verdict never
    counts for a text it did not judge): candidate id -> [fluent, sentiment_ok]."""
    current, changed, new, removed = _fit(candidates, loaded)
    audits = {}
    for c in candidates:
        verdict = c.audit() if current.get(c.unit) == c.unit_hash else None
        texts = {variant.example.sentence for variant in runs.get(c.unit, ())}
        if verdict is not None and verdict.get("sentence") in texts:
            audits[c.candidate_id] = [verdict["fluent"], verdict["sentiment_ok"]]
    return (_stale(changed, new, removed, loaded.name, strategy, shown, input_file, audited=True),
            dict(sorted(audits.items())))


def _fit(candidates: list[Candidate], loaded: LoadedSource
         ) -> tuple[dict[str, str], list[str], list[str], list[str]]:
    """The source's units' content hashes (unit id -> unit_hash), and the units that do not fit the file: changed
    since their lines were made, new (no line), gone from the source (lines, no unit)."""
    current = {unit.unit_id: unit_hash(unit.original) for unit in loaded.units}
    hashes: dict[str, set[str]] = {}
    for c in candidates:
        hashes.setdefault(c.unit, set()).add(c.unit_hash)
    changed = sorted(u for u, h in current.items() if u in hashes and h not in hashes[u])
    new = sorted(u for u in current if u not in hashes)
    removed = sorted(u for u in hashes if u not in current)
    return current, changed, new, removed


def _stale(changed: list[str], new: list[str], removed: list[str], source: str, strategy: str, shown: str,
           input_file: str | None, audited: bool = False) -> str:
    if not (changed or new or removed):
        return ""
    parts = [f"{len(found)} unit{'' if len(found) == 1 else 's'} {what} ({_listed(found)})" for found, what in
             ((changed, "changed"), (new, "new"), (removed, "gone from the source")) if found]
    command = update_command(shown, source, strategy, input_file)
    fixes = [f"run `{command}` (adds candidates for them; decided ones are kept), review them, and run again"] \
        if changed or new else []
    if removed:
        fixes.append("delete the lines of the units gone from the source, or restore those units")
    fix = "; ".join(fixes)
    kind = "audited" if audited else "frozen"
    return (f"the {kind} variants {shown} no longer fit source '{source}' ({strategy}): {'; '.join(parts)}. "
            f"Fix: {fix}")


def _listed(units: list[str]) -> str:
    more = f", and {len(units) - SHOWN_UNITS} more" if len(units) > SHOWN_UNITS else ""
    return ", ".join(units[:SHOWN_UNITS]) + more
