"""`absa-checks review` as a process and a server, without a browser: bound to 127.0.0.1 only, a POST
without the page's token (or from another Host, or too large) refused, a decision on disk before the answer
(SIGKILL loses nothing), Ctrl-C and SIGTERM end it with exit 0, a user's mistake is one line and exit 2."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from review_server import make_candidates, post, records, start, stop, token_of

from absa_checks.suites.candidates import CandidatesError
from conftest import REPO


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    return make_candidates(tmp_path_factory.mktemp("made"))


@pytest.fixture(scope="module")
def served(made, tmp_path_factory):
    path = tmp_path_factory.mktemp("served") / "reviewed.jsonl"
    path.write_bytes(made.read_bytes())
    proc, url = start(path, "--reviewer", "ann")
    try:
        yield url, path
    finally:
        assert stop(proc) == (0, "")


def undecided(path: Path) -> list[dict]:
    return [r for r in records(path) if r["status"] != "not_applicable" and r["decision"] is None]


def run_cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", "review", *args], capture_output=True, text=True,
                          env=environment, cwd=cwd, timeout=60)


def listeners(port: int) -> list[str]:
    """The local addresses listening on `port`, from /proc/net/tcp and tcp6 (hex, as the kernel writes them)."""
    found = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(name):
            continue
        for row in Path(name).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.append(address)
    return found


def test_the_server_listens_on_127_0_0_1_only(served):
    url, _ = served
    port = int(url.rsplit(":", 1)[1].strip("/"))
    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("no /proc/net/tcp to read the listening address from")
    assert listeners(port) == ["0100007F"]  # 127.0.0.1, and nothing on IPv6 or any other interface
    others = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)} - {"127.0.0.1"}
    for address in others:
        with pytest.raises(OSError), socket.create_connection((address, port), timeout=5):
            pass


def test_a_post_without_the_pages_token_or_from_another_host_is_refused_and_nothing_written(served):
    url, path = served
    before = path.read_bytes()
    wanted = undecided(path)[0]["id"]
    assert post(url, {"id": wanted, "decision": "accepted"})[0] == 403
    assert post(url, {"id": wanted, "decision": "accepted", "token": "guessed"})[0] == 403
    token = token_of(url)
    # a page elsewhere whose name was rebound to 127.0.0.1 sends its own Host
    assert post(url, {"id": wanted, "decision": "accepted", "token": token}, host="evil.example:80")[0] == 403
    # a form post (no preflight) is not JSON: refused
    assert post(url, None, content_type="text/plain", raw=json.dumps({"id": wanted, "decision": "accepted",
                                                                      "token": token}).encode())[0] == 415
    status, answer = post(url, None, raw=b"{" + b" " * (128 * 1024) + b"}")
    assert status == 413 and "at most" in answer["error"]
    assert post(url, None, raw=b"not json")[0] == 400
    assert path.read_bytes() == before
    with pytest.raises(urllib.error.HTTPError) as found:
        urllib.request.urlopen(url + "api/nothing", timeout=30)
    assert found.value.code == 404


def test_a_refused_decision_is_400_with_the_files_message_and_changes_nothing(served):
    url, path = served
    token, before = token_of(url), path.read_bytes()
    first = undecided(path)[0]
    status, answer = post(url, {"token": token, "id": first["id"], "decision": "edited",
                                "edited": {"sentence": "Nothing is left."}})
    assert status == 400 and f"the edit removes the target '{first['term']}'" in answer["error"]
    assert answer["error"].startswith(f"{path}:")  # names the file and line
    status, answer = post(url, {"token": token, "id": "000000000000", "decision": "accepted"})
    assert status == 400 and "no candidate '000000000000'" in answer["error"]
    status, answer = post(url, {"token": token, "id": first["id"], "decision": "maybe"})
    assert status == 400 and "unknown decision" in answer["error"]
    none = next(r for r in records(path) if r["status"] == "not_applicable")
    status, answer = post(url, {"token": token, "id": none["id"], "decision": "accepted"})
    assert status == 400 and "not_applicable" in answer["error"]
    assert path.read_bytes() == before


def test_a_decision_on_a_stale_view_is_refused_with_the_candidate_as_on_disk(served):
    url, path = served
    token = token_of(url)
    first = undecided(path)[0]
    status, answer = post(url, {"token": token, "id": first["id"], "decision": "accepted",
                                "was": {"decision": None, "decided_at": None}})
    assert status == 200 and answer["item"]["record"]["decision"] == "accepted"
    before = path.read_bytes()
    status, answer = post(url, {"token": token, "id": first["id"], "decision": "rejected",
                                "was": {"decision": None, "decided_at": None}})
    assert status == 409 and "meanwhile" in answer["error"]
    assert answer["item"]["record"]["decision"] == "accepted" and path.read_bytes() == before


def test_sigkill_after_a_decision_loses_nothing(made, tmp_path):
    path = tmp_path / "reviewed.jsonl"
    path.write_bytes(made.read_bytes())
    proc, url = start(path, "--reviewer", "bob")
    try:
        first = undecided(path)[0]
        status, answer = post(url, {"token": token_of(url), "id": first["id"], "decision": "rejected"})
        assert status == 200
    finally:
        proc.kill()  # SIGKILL: no handler runs
        proc.communicate(timeout=30)
    found = next(r for r in records(path) if r["id"] == first["id"])
    assert (found["decision"], found["reviewer"]) == ("rejected", "bob")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reviewed.jsonl"]  # no temporary file left


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_and_sigterm_end_it_with_exit_0_and_no_traceback(made, tmp_path, how):
    path = tmp_path / "reviewed.jsonl"
    path.write_bytes(made.read_bytes())
    proc, _ = start(path, "--reviewer", "ann")
    proc.send_signal(how)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out, err) == (0, "", "")


def test_the_start_line_counts_the_candidates_to_decide(made, tmp_path):
    path = tmp_path / "reviewed.jsonl"
    path.write_bytes(made.read_bytes())
    proc, url = start(path, "--reviewer", "ann")
    stop(proc)
    assert proc.start_line == f"absa-checks review: {path} at {url} ({len(undecided(path))} candidates to decide; " \
                              "every decision is saved at once; Ctrl-C stops)\n"


def bad_lines(made: Path) -> dict[str, tuple[str, str]]:
    first = json.loads(made.read_text().split("\n")[0])
    return {
        "not json": ("{oops\n", ":1: not a JSON line"),
        "unknown status": (json.dumps({**first, "status": "maybe"}) + "\n", ":1: unknown status 'maybe'"),
        "decision without reviewer": (json.dumps({**first, "decision": "accepted"}) + "\n", "needs 'reviewer'"),
        "empty": ("", "is empty, nothing to review"),
    }


@pytest.mark.parametrize("case", ["not json", "unknown status", "decision without reviewer", "empty"])
def test_a_bad_file_is_one_line_and_exit_2(made, tmp_path, case):
    text, words = bad_lines(made)[case]
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    done = run_cli(str(path), "--reviewer", "ann")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and words in done.stderr and str(path) in done.stderr


def test_a_missing_file_a_link_a_folder_and_no_reviewer_are_one_line_and_exit_2(made, tmp_path):
    done = run_cli(str(tmp_path / "absent.jsonl"), "--reviewer", "ann")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "absent.jsonl: not found" in done.stderr
    done = run_cli(str(tmp_path), "--reviewer", "ann")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    real = tmp_path / "real.jsonl"
    real.write_bytes(made.read_bytes())
    (tmp_path / "link.jsonl").symlink_to(real)
    done = run_cli(str(tmp_path / "link.jsonl"), "--reviewer", "ann")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--follow-symlinks" in done.stderr
    done = run_cli(str(real), "--reviewer", " ")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--reviewer was given an empty value" in done.stderr
    assert real.read_bytes() == made.read_bytes()


LOGIN_VARIABLES = ("LOGNAME", "USER", "LNAME", "USERNAME")


def test_review_works_where_user_and_every_login_variable_is_unset(made, tmp_path):
    """A container or CI job without $USER: the login name comes from the password database (getpass), the
    page signs decisions with it, and stderr says so and names --reviewer."""
    import pwd

    path = tmp_path / "reviewed.jsonl"
    path.write_bytes(made.read_bytes())
    env = {k: v for k, v in os.environ.items() if k not in LOGIN_VARIABLES}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.Popen([sys.executable, "-m", "absa_checks.cli", "review", str(path), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        line = proc.stdout.readline()
        url = re.search(r"at (http://127\.0\.0\.1:\d+/) ", line)
        assert url, (line, proc.stderr.readline() if proc.poll() is not None else "")
        first = undecided(path)[0]
        assert post(url[1], {"token": token_of(url[1]), "id": first["id"], "decision": "accepted"})[0] == 200
    finally:
        code, err = stop(proc)
    name = pwd.getpwuid(os.getuid()).pw_name
    assert code == 0 and f"decisions signed '{name}' (the login name; --reviewer NAME signs another)" in err
    assert next(r for r in records(path) if r["id"] == first["id"])["reviewer"] == name
    second = undecided(path)[0]
    done = subprocess.run([sys.executable, "-m", "absa_checks.cli", "decide", str(path), "--reject", second["id"]],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and f"rejected by {name} (the login name" in done.stderr
    assert next(r for r in records(path) if r["id"] == second["id"])["reviewer"] == name


def test_no_login_name_at_all_asks_for_the_reviewer_option_in_one_line(made, tmp_path, monkeypatch, capsys):
    """A user id without a passwd entry and no login variable: getpass raises; one line names --reviewer NAME."""
    import getpass

    from absa_checks.cli import main

    def no_entry() -> str:
        raise KeyError("getpwuid(): uid not found: 4242")

    monkeypatch.setattr(getpass, "getuser", no_entry)
    path = tmp_path / "reviewed.jsonl"
    path.write_bytes(made.read_bytes())
    assert main(["review", str(path), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "review: --reviewer NAME is needed: no login name" in err
    assert main(["decide", str(path), "--accept", undecided(path)[0]["id"]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "decide: --reviewer NAME is needed" in err
    assert path.read_bytes() == made.read_bytes()


def test_a_link_followed_when_asked_is_written_through_and_stays_a_link(made, tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_bytes(made.read_bytes())
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    proc, url = start(link, "--reviewer", "ann", "--follow-symlinks")
    try:
        first = undecided(real)[0]
        assert post(url, {"token": token_of(url), "id": first["id"], "decision": "accepted"})[0] == 200
    finally:
        stop(proc)
    assert link.is_symlink() and next(r for r in records(real) if r["id"] == first["id"])["decision"] == "accepted"


def test_a_port_in_use_is_one_line_and_exit_2(made, tmp_path):
    path = tmp_path / "reviewed.jsonl"
    path.write_bytes(made.read_bytes())
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_cli(str(path), "--reviewer", "ann", "--port", str(port))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and f"--port {port}" in done.stderr
    done = run_cli(str(path), "--reviewer", "ann", "--port", "70000")
    assert done.returncode == 2 and "not a port" in done.stderr


def test_a_crlf_file_with_a_byte_order_mark_keeps_both_and_every_other_line(made, tmp_path):
    path = tmp_path / "reviewed.jsonl"
    lines = made.read_text(encoding="utf-8").split("\n")
    path.write_bytes(("\ufeff" + "\r\n".join(lines)).encode("utf-8"))
    before = path.read_bytes().split(b"\r\n")
    proc, url = start(path, "--reviewer", "ann")
    try:
        first = json.loads(lines[0])
        wanted = first["id"] if first["status"] != "not_applicable" else undecided(made)[0]["id"]
        assert post(url, {"token": token_of(url), "id": wanted, "decision": "accepted"})[0] == 200
    finally:
        stop(proc)
    after = path.read_bytes().split(b"\r\n")
    assert after[0].startswith("\ufeff".encode()) and len(after) == len(before)
    assert sum(a != b for a, b in zip(before, after)) == 1


def test_an_edit_keeps_the_same_occurrence_of_a_target_the_sentence_holds_twice(made):
    """No span given, the target twice in the text the edit started from and twice in the edit: the same
    (second) occurrence; a count that changed is refused asking for the span (candidates.decide's message)."""
    from absa_checks.review import candidates_mode

    lines = made.read_text(encoding="utf-8").split("\n")
    index, record = next((i, json.loads(line)) for i, line in enumerate(lines)
                         if line.strip() and json.loads(line)["status"] == "shipped" and not json.loads(line)["other_aspects"])
    term = record["term"]
    sentence = f"{term} first, then {record['sentence']}"
    start_at = len(f"{term} first, then ") + record["from"]
    record.update(sentence=sentence, **{"from": start_at, "to": start_at + len(term)})
    lines[index] = json.dumps(record)
    text = "\n".join(lines)
    edited = sentence.replace(" first,", " at first,")
    _, item = candidates_mode.apply(text, "f.jsonl", {"id": record["id"], "decision": "edited",
                                                      "edited": {"sentence": edited}}, "ann", "2026-01-01T00:00:00+00:00")
    span = item["record"]["edited"]
    assert edited[span["from"]:span["to"]] == term and span["from"] == start_at + len(" at first,") - len(" first,")
    with pytest.raises(CandidatesError, match="holds the target .* 3 times, not as often as before; give its span"):
        candidates_mode.apply(text, "f.jsonl", {"id": record["id"], "decision": "edited",
                                                "edited": {"sentence": f"{edited} And {term}."}}, "ann", "now")
