"""Issue 38: the expanded gold of the ASQP rest15 and rest16 test sets, made with `absa-checks expand` and the
stand-ins' recorded answers replayed (docs/extraction.md, "Expanded ground truth"; benchmarks/recorded/expansion/).

    python benchmarks/quality/expanded_gold.py export --out DIR       # every ZOOM request, and the stand-ins' shares
    python benchmarks/quality/expanded_gold.py run --out DIR --answers benchmarks/recorded/expansion/answers.jsonl
    python benchmarks/quality/expanded_gold.py run --out DIR --answers ... --check   # == suites/extraction/expanded/

`export` runs `absa-checks expand --source S --export-requests` for both sources (the default prompt and settings:
model "expander", temperature 0, seed 0) and writes shares of 50 requests: each step's system message and worked
example once (`shares/COMMON-<step>.md`; checked identical in every request of the step) and each request's user
message.

`run` serves ANSWERS with `absa-checks serve-replay`, runs `expand --expander stand-in --out DIR/S.expanded.jsonl`
for each source, then `--export-requests` for what a run would still send (the JUDGE requests, once the ZOOM
answers are there: `shares-pending/`). With --check it fails unless each file is byte for byte the shipped one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from absa_checks.expansion.prompt import step_of  # noqa: E402

SHARED = Path(os.environ.get("ABSA_SHARED_DIR", ROOT.parent / "shared"))
SOURCES = ("asqp-rest15", "asqp-rest16")
SHIPPED = ROOT / "suites" / "extraction" / "expanded"
SHARE = 50
PORT = 18733  # the cache is kept by endpoint: every run asks the same one


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=3600)


def shares(requests: list[dict], folder: Path) -> int:
    """Shares of SHARE requests: each step's common turns once, then each request's last user message."""
    folder.mkdir(parents=True, exist_ok=True)
    common: dict[str, list] = {}
    for r in requests:
        step, turns = step_of(r["request"]), r["request"]["messages"][:-1]
        if common.setdefault(step, turns) != turns:
            raise SystemExit(f"request {r['key']}: its {step} turns differ from the others'")
    for step, turns in common.items():
        (folder / f"COMMON-{step}.md").write_text("".join(f"## {m['role']}\n\n{m['content']}\n\n" for m in turns))
    count = 0
    for start in range(0, len(requests), SHARE):
        count += 1
        part = requests[start:start + SHARE]
        text = [f"# Share {count:03d}: {len(part)} requests. Each request = the COMMON file of its step (system "
                "message and worked example), then the user message below.\n"]
        for r in part:
            step = step_of(r["request"])
            text.append(f"## key: {r['key']}\nstep: {step} (COMMON-{step}.md)\n\n### user\n\n"
                        f"{r['request']['messages'][-1]['content']}\n")
        (folder / f"share-{count:03d}.md").write_text("\n".join(text))
    return count


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def export(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    requests: dict[str, dict] = {}
    for source in SOURCES:
        target = out / f"requests-{source}.jsonl"
        target.unlink(missing_ok=True)
        done = _cli("expand", "--source", source, "--data", str(SHARED / "data"), "--export-requests", str(target))
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        print(done.stderr.strip().splitlines()[-1])
        requests.update((r["key"], r) for r in _read(target))
    print(f"{len(requests)} requests, {shares(list(requests.values()), out / 'shares')} shares in {out / 'shares'}")


def serve(answers: Path, log: Path, port: int = PORT) -> subprocess.Popen:
    """serve-replay on `port`; what it says of each unknown request goes to `log` (a pipe nobody reads would fill
    and stop the server). Also llm_extractor.py's."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "absa_checks.cli", "serve-replay", str(answers), "--port",
                               str(port)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log.open("w"), text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if not re.search(r"http://127\.0\.0\.1:\d+/v1", line):
        server.kill()
        raise SystemExit(f"serve-replay did not start: {line}{log.read_text()}")
    return server


def run(out: Path, answers: Path, check: bool) -> int:
    out.mkdir(parents=True, exist_ok=True)
    models = out / "models.yaml"
    models.write_text(f"models:\n  stand-in:\n    kind: openai\n    base_url: http://127.0.0.1:{PORT}/v1\n"
                      "    model: expander\n    max_concurrency: 4\n    retries: 0\n    max_consecutive_failures: "
                      "100000\n", encoding="utf-8")
    asking = ("--expander", "stand-in", "--models-file", str(models), "--cache", str(out / "cache"))
    server = serve(answers, out / "serve-replay.log")
    pending: dict[str, dict] = {}
    differ = []
    try:
        for source in SOURCES:
            target = out / f"{source}.expanded.jsonl"
            target.unlink(missing_ok=True)
            done = _cli("expand", "--source", source, "--data", str(SHARED / "data"), *asking, "--out", str(target))
            print(done.stderr.strip(), file=sys.stderr)
            if done.returncode not in (0, 1):  # 1: written, but some requests had no answer (said on stderr)
                raise SystemExit(done.returncode)
            left = out / f"pending-{source}.jsonl"
            left.unlink(missing_ok=True)
            if _cli("expand", "--source", source, "--data", str(SHARED / "data"), *asking, "--export-requests",
                    str(left)).returncode == 0:
                pending.update((r["key"], r) for r in _read(left))
            if check and target.read_bytes() != (SHIPPED / target.name).read_bytes():
                differ.append(target.name)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    if pending:
        print(f"{len(pending)} requests still unanswered: {shares(list(pending.values()), out / 'shares-pending')} "
              f"shares in {out / 'shares-pending'}", file=sys.stderr)
    if check:
        print("identical to the shipped files" if not differ else f"differ from the shipped files: {differ}")
        return 1 if differ or pending else 0
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("export", "run"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--answers", type=Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.step == "export":
        export(args.out)
        return
    if args.answers is None:
        raise SystemExit("run: give --answers FILE")
    raise SystemExit(run(args.out, args.answers, args.check))


if __name__ == "__main__":
    main()
