"""Issue 36's first step: the rules plus the rewriter (one repair turn) on the whole public test sets, with the
stand-in's recorded answers replayed. Coverage per source and strategy over the populations the issue names.

    python benchmarks/quality/test_sets_rewriter.py export --out DIR            # the first turns, and the stand-ins' shares
    python benchmarks/quality/test_sets_rewriter.py run --out DIR --answers benchmarks/recorded/rewriter-answers/test-sets.jsonl

`export` runs `absa-checks generate --source S --variants generated --strategies revtgt,revnon --export-requests`
for semeval14-laptop, semeval14-restaurant and mams-restaurant (the default prompt and settings: model "rewriter",
temperature 0, seed 0) and writes the stand-ins' shares of 50: the common system message and example turns once
(`shares/COMMON.md`; the script checks every request starts with them) and each request's turns after them.

`run` serves ANSWERS with `absa-checks serve-replay`, runs `generate --rewriter stand-in --candidates` on each source
(the candidates files quote the data: keep DIR out of git), then `--export-requests` for what a run would still
send (the repair turns the kept answers need, when ANSWERS lacks them: `shares-pending/`), and counts, per source
and strategy, the units with a shipped variant among
- REVTGT: the polar targets (gold positive or negative),
- REVNON: the polar targets whose sentence has another polar aspect,
by the rules alone and by rules + rewriter (`coverage.json`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from absa_checks.sources import load_dataset  # noqa: E402
from absa_checks.suites import strategies  # noqa: E402

SHARED = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared"))
SOURCES = ("semeval14-laptop", "semeval14-restaurant", "mams-restaurant")
SHARE = 50
PORT = 18731  # the rewriter's cache is kept by endpoint: every run asks the same one


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=3600)


def _generate(source: str, *more: str) -> subprocess.CompletedProcess:
    return _cli("generate", "--source", source, "--data", str(SHARED / "data"), "--variants", "generated",
                "--strategies", "revtgt,revnon", *more)


def _shares(requests: list[dict], folder: Path) -> int:
    """Shares of SHARE requests: the turns common to every request once, then each request's turns after them."""
    folder.mkdir(parents=True, exist_ok=True)
    common = requests[0]["request"]["messages"][:-1]  # the turns every request starts with (system, examples)
    for r in requests:
        messages = r["request"]["messages"]
        while messages[:len(common)] != common:
            common = common[:-1]
    (folder / "COMMON.md").write_text("".join(f"## {m['role']}\n\n{m['content']}\n\n" for m in common))
    count = 0
    for start in range(0, len(requests), SHARE):
        count += 1
        part = requests[start:start + SHARE]
        text = [f"# Share {count:03d}: {len(part)} requests (each: COMMON.md, then the turns below)\n"]
        for r in part:
            text.append(f"## key: {r['key']}\n")
            text += [f"### {m['role']}\n\n{m['content']}\n" for m in r["request"]["messages"][len(common):]]
        (folder / f"share-{count:03d}.md").write_text("\n".join(text))
    return count


def export(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    requests: list[dict] = []
    for source in SOURCES:
        target = out / f"requests-{source}.jsonl"
        target.unlink(missing_ok=True)
        done = _generate(source, "--export-requests", str(target))
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        print(done.stderr.strip().splitlines()[-1])
        requests += [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    print(f"{len(requests)} requests, {_shares(requests, out / 'shares')} shares in {out / 'shares'}")


def _serve(answers: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "absa_checks.cli", "serve-replay", str(answers), "--port",
                               str(PORT)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if not re.search(r"http://127\.0\.0\.1:\d+/v1", line):
        server.kill()
        raise SystemExit(f"serve-replay did not start: {line}{server.stderr.read() if server.stderr else ''}")
    return server


def populations(source: str) -> dict[str, set[str]]:
    """The units each strategy applies to: polar targets (REVTGT), polar targets with another polar aspect (REVNON)."""
    loaded = load_dataset(source, SHARED / "data")  # the populations as the run's coverage counts them
    return {strategy: {u.unit_id for u in loaded.units if strategies.population(strategy).applies(u.original)}
            for strategy in ("revtgt", "revnon")}


def run(out: Path, answers: Path, repairs: int = 1) -> dict:
    models = out / "models.yaml"
    models.write_text(f"models:\n  stand-in:\n    kind: openai\n    base_url: http://127.0.0.1:{PORT}/v1\n"
                      "    model: rewriter\n    max_concurrency: 4\n    retries: 0\n", encoding="utf-8")
    asking = ("--rewriter", "stand-in", "--models-file", str(models), "--cache", str(out / "cache"),
              "--rewriter-repairs", str(repairs))
    server = _serve(answers)
    result: dict = {"answers": str(answers.relative_to(ROOT) if answers.is_relative_to(ROOT) else answers),
                    "repair_turns": repairs}
    pending: list[dict] = []
    try:
        for source in SOURCES:
            candidates = out / f"candidates-{source}.jsonl"
            done = _generate(source, *asking, "--candidates", "--out", str(candidates))
            if done.returncode not in (0, 1):  # 1: written, but some requests had no answer (said on stderr)
                raise SystemExit(done.stderr)
            said = done.stderr.strip().splitlines()
            print(said[-1] if said else "", file=sys.stderr)
            left = out / f"pending-{source}.jsonl"
            left.unlink(missing_ok=True)
            if _generate(source, *asking, "--export-requests", str(left)).returncode == 0:
                pending += [json.loads(line) for line in left.read_text(encoding="utf-8").splitlines()]
            wanted = populations(source)
            made: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
            for line in candidates.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                if row.get("status") == "shipped":
                    made[row["strategy"]][row["unit"]].add("rewriter" if row.get("origin") == "rewriter" else "rules")
            result[source] = {}
            for strategy, units in wanted.items():
                by = Counter("rules" if "rules" in made[strategy][u] else "rewriter" for u in units if made[strategy][u])
                result[source][strategy] = {
                    "population": len(units), "rules": by["rules"], "rewriter": by["rewriter"],
                    "coverage_rules": round(by["rules"] / len(units), 4) if units else None,
                    "coverage": round((by["rules"] + by["rewriter"]) / len(units), 4) if units else None}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    result["pending_requests"] = len(pending)
    if pending:
        print(f"{len(pending)} requests still unanswered: {_shares(pending, out / 'shares-pending')} shares in "
              f"{out / 'shares-pending'}", file=sys.stderr)
    (out / "coverage.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("export", "run"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--answers", type=Path)
    parser.add_argument("--repairs", type=int, default=1, help="repair turns (--rewriter-repairs; default 1)")
    args = parser.parse_args()
    if args.step == "export":
        export(args.out)
    else:
        if args.answers is None:
            parser.error("run needs --answers FILE")
        run(args.out, args.answers.resolve(), args.repairs)


if __name__ == "__main__":
    main()
