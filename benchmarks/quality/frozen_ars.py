"""Issue 36's table: ARS of the shared checkpoints on our audited, frozen sets beside ARTS's published sets, with
each set's coverage and audited validity; and, per source, the covered-versus-uncovered accuracy difference of
the aspect-first checkpoint over each strategy's population.

    python benchmarks/quality/frozen_ars.py --out DIR      # needs the public data and checkpoints (ABSA_SHARED_DIR)

Runs the stock REVTGT, REVNON and ADDDIFF suites (suites/directional/revtgt.yaml, suites/invariance/revnon.yaml
and adddiff.yaml, as shipped: frozen sets on SemEval-2014 and MAMS, ARTS's own variants on arts-*) on
semeval14-laptop, semeval14-restaurant, mams-restaurant, arts-laptop and arts-restaurant with each shared
checkpoint (bert-pt: minilm-absa-pair-rest, aspect first; bert-sent: minilm-absa-sent-rest, sentence only;
bert-e2e: minilm-absa-e2e-rest, a tagger), all restaurant-trained (`--absa-cross-domain`: the laptop rows are
report-only, out of the checkpoints' domain), and prints the Markdown table of docs/frozen-sets.md from the JSON
reports (DIR/<model>.json): ARS [exact 95% CI] per source, coverage per strategy (units with a case of the
strategy's population) and validity per strategy (audited: fluent and the intended sentiment, both judges).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared"))
SUITES = ("suites/directional/revtgt.yaml", "suites/invariance/revnon.yaml", "suites/invariance/adddiff.yaml")
SOURCES = ("semeval14-laptop", "arts-laptop", "semeval14-restaurant", "arts-restaurant", "mams-restaurant")
MODELS = {"bert-pt": ("ABSA_BERT_PT_PATH", "minilm-absa-pair-rest"),
          "bert-sent": ("ABSA_BERT_SENT_PATH", "minilm-absa-sent-rest"),
          "bert-e2e": ("ABSA_BERT_E2E_PATH", "minilm-absa-e2e-rest")}
STRATEGIES = ("revtgt", "revnon", "adddiff")


def run(model: str, out: Path) -> dict:
    report = out / f"{model}.json"
    variable, folder = MODELS[model]
    env = {**os.environ, "PYTHONPATH": str(ROOT), variable: str(SHARED / "models" / folder)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *SUITES, "-p", "no:cacheprovider", "-q", "--tb=no",
                           "-p", "no:randomly", "--model", model, "--absa-data", str(SHARED / "data"),
                           "--absa-sources", ",".join(SOURCES), "--absa-cross-domain", "--absa-report", str(report)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    said = (done.stdout.strip() or done.stderr.strip() or "(nothing printed)").splitlines()[-1]
    print(f"{model}: exit {done.returncode} in {time.perf_counter() - started:.0f} s; {said}", file=sys.stderr)
    if not report.is_file():
        raise SystemExit(f"{model}: no report written\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(report.read_text(encoding="utf-8"))


def _bounds(rate: dict) -> tuple[float, float]:
    return tuple(rate["ci95"]) if "ci95" in rate else (rate["low"], rate["high"])  # type: ignore[return-value]


def _pct(rate: dict | None) -> str:
    if not rate or rate.get("value") is None:
        return "-"
    low, high = _bounds(rate)
    return f"{100 * rate['value']:.1f} [{100 * low:.1f}, {100 * high:.1f}]"


def _find(report: dict, *keys: str):
    found = report
    for key in keys:
        if not isinstance(found, dict) or key not in found:
            return None
        found = found[key]
    return found


def table(reports: dict[str, dict]) -> list[str]:
    first = next(iter(reports.values()))
    lines = ["| source | variants | " + " | ".join(f"ARS {m}" for m in reports) + " | coverage REVTGT / REVNON / "
             "ADDDIFF | valid REVTGT / REVNON / ADDDIFF (n) |", "|" + "---|" * (4 + len(reports))]
    for source in SOURCES:
        ars = [_pct(_find(r, "models", m, "sources", source, "ars") or _find(r, "sources", source, "ars"))
               for m, r in reports.items()]
        coverage, validity = [], []
        for strategy in STRATEGIES:
            cov = _coverage(first, source, strategy)
            coverage.append(cov)
            one = _find(first, "validity", source, strategy) or {}
            both = one.get("both")
            validity.append(f"{100 * both['value']:.0f}% [{100 * _bounds(both)[0]:.0f}, {100 * _bounds(both)[1]:.0f}] "
                            f"({one['audited']})" if both else "not audited")
        kind = "ARTS published" if source.startswith("arts-") else "ours (frozen)"
        lines.append(f"| {source} | {kind} | " + " | ".join(ars) + f" | {' / '.join(coverage)} | "
                     f"{' / '.join(validity)} |")
    return lines


def _coverage(report: dict, source: str, strategy: str) -> str:
    for found in _coverage_rows(report):
        if found.get("source") == source and found.get("strategy") == strategy:
            units, covered = found.get("units"), found.get("with_case")
            if units:
                return f"{100 * covered / units:.1f}% ({covered}/{units})"
    return "-"


def _coverage_rows(report: dict) -> list[dict]:
    rows = []
    coverage = report.get("coverage") or {}
    for model_or_source, inner in coverage.items():
        if not isinstance(inner, dict):
            continue
        for key, value in inner.items():
            if isinstance(value, dict) and "with_case" in value:
                rows.append({"source": model_or_source, "strategy": key, **value})
            elif isinstance(value, dict):
                for strategy, cell in value.items():
                    if isinstance(cell, dict) and "with_case" in cell:
                        rows.append({"source": key, "strategy": strategy, **cell})
    return rows


def differences(report: dict) -> list[str]:
    lines = ["| source | strategy | population | with a case | accuracy covered | accuracy uncovered | difference "
             "[95% CI] | significant |", "|---|---|---|---|---|---|---|---|"]
    for row in _coverage_rows(report):
        if row["source"] in ("semeval14-laptop", "semeval14-restaurant", "mams-restaurant"):
            diff = row.get("difference") or {}
            covered, uncovered = row.get("accuracy_covered") or {}, row.get("accuracy_uncovered") or {}
            lines.append(f"| {row['source']} | {row['strategy']} | {row.get('population', '')} | "
                         f"{row.get('with_case')}/{row.get('units')} | {_pct(covered)} | {_pct(uncovered)} | "
                         f"{_pct(diff)} | {diff.get('significant', '-')} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--reuse", action="store_true", help="read DIR/<model>.json instead of running")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    reports = {m: (json.loads((args.out / f"{m}.json").read_text()) if args.reuse else run(m, args.out))
               for m in args.models.split(",")}
    print("\n".join(table(reports)))
    print()
    print("\n".join(differences(reports["bert-pt"] if "bert-pt" in reports else next(iter(reports.values())))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
