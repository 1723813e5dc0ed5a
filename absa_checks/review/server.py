"""`absa-checks review FILE`: a local page (127.0.0.1 only, one HTML document, no external assets) over a
candidates file or an audit sheet, where each decision is written to the file at once.

Every POST reads the file fresh from disk under the server's lock, applies the one decision with the
mode's `apply` (candidates: `suites.candidates.decide`), and writes it with the one atomic writer
(`common.outputs`) before answering: two tabs, or a tab and `absa-checks decide`, never lose each other's
work, and a killed server loses nothing. A POST carries the page's per-server token (a page elsewhere
cannot post), a JSON body of bounded size, and a Host naming this server (a DNS-rebinding page cannot
read the token).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import IO, Any

from absa_checks.common import clock, outputs
from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.outputs import Named
from absa_checks.common.serving import HOST, serve_until_stopped
from absa_checks.review import audit_mode, candidates_mode
from absa_checks.suites import candidates

MAX_DECISION_BODY = 64 * 1024  # a decision with an edited sentence is well under 1 KB
REVIEW_FILE_NOT_FOUND = ("not found; name a candidates file (`absa-checks generate --candidates --out FILE`) or an audit sheet "
             "(`absa-checks audit draw`)")


@dataclass(frozen=True)
class Mode:
    """What the page serves: candidates (decide) or an audit sheet (answer); each a module of pure functions."""

    name: str
    check: Callable[[str, str], None]
    items: Callable[[str, str], list[dict[str, Any]]]
    to_do: Callable[[list[dict[str, Any]]], str]
    apply: Callable[[str, str, dict[str, Any], str, str], tuple[str, dict[str, Any]]]


CANDIDATES = Mode(candidates_mode.NAME, candidates_mode.check, candidates_mode.items, candidates_mode.to_do,
                  candidates_mode.apply)
AUDIT = Mode(audit_mode.NAME, audit_mode.check, audit_mode.items, audit_mode.to_do, audit_mode.apply)


@dataclass
class Review:
    """The file served and how; `lock` serialises read-decide-write so no decision overwrites another."""

    path: Path
    shown: str
    mode: Mode
    reviewer: str
    follow_symlinks: bool
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def read(self) -> str:
        return _read(self.path, self.shown)

    def page(self) -> bytes:
        config = json.dumps({"token": self.token, "mode": self.mode.name, "file": self.shown,
                             "reviewer": self.reviewer}, ensure_ascii=True).replace("<", "\\u003c")
        text = resources.files("absa_checks.review").joinpath("page.html").read_text(encoding="utf-8")
        return text.replace("/*CONFIG*/null", config).encode("utf-8")

    def decide(self, body: dict[str, Any]) -> dict[str, Any]:
        """One decision: read fresh, applied, written atomically; the item as the page shows it now."""
        now = clock.now_iso()
        with self.lock:
            text, item = self.mode.apply(self.read(), self.shown, body, self.reviewer, now)
            outputs.write_text(Named("FILE", self.path), text, self.follow_symlinks, outputs.CLI_FOLLOW_OPTION)
        return item


def _read(path: Path, shown: str) -> str:
    """The file served, read by the candidates file's one reader (suites.candidates.read_text); its messages
    say `review:` and what a missing file should have been."""
    return candidates.read_text(path, f"review: {shown}", REVIEW_FILE_NOT_FOUND)


def open_review(path: Path, reviewer: str, follow_symlinks: bool) -> Review:
    """The file checked as the page will use it (every line read; the path writable as `decide` writes it)."""
    shown = str(path)
    text = _read(path, shown)
    mode = AUDIT if audit_mode.is_sheet(text) else CANDIDATES
    mode.check(text, shown)
    if not text.strip():
        raise AbsaChecksError(f"review: {shown}: is empty, nothing to review; write candidates with `absa-checks "
                              "generate --candidates --out FILE`")
    outputs.check([Named("FILE", path)], [], [], follow_symlinks, outputs.CLI_FOLLOW_OPTION)
    folder = outputs.target(Named("FILE", path), follow_symlinks, outputs.CLI_FOLLOW_OPTION).parent
    if not os.access(folder, os.W_OK | os.X_OK):  # the atomic writer puts a temporary file beside it
        raise AbsaChecksError(f"review: {shown}: its folder {folder} is not writable, so no decision could be saved; "
                              "make it writable for this user, or copy the file somewhere writable")
    return Review(path, shown, mode, reviewer, follow_symlinks)


class ReviewServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, review: Review, port: int) -> None:
        self.review = review
        super().__init__((HOST, port), ReviewHandler)


class ReviewHandler(BaseHTTPRequestHandler):
    server: ReviewServer
    timeout = 60  # a connection that sends nothing for a minute is closed (no thread waits for ever)
    server_version = "absa-checks-review"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        return  # the terminal keeps the one start line; decisions are in the file

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; "
                         "style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

    def _host_ok(self) -> bool:
        """Only requests addressed to this server by name: a page that rebinds its own name to 127.0.0.1
        sends its own Host and is refused."""
        port = self.server.server_address[1]
        if self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}"):
            return True
        self._json(HTTPStatus.FORBIDDEN, {"error": "this server answers only http://127.0.0.1:PORT/ (Host refused)"})
        return False

    def do_GET(self) -> None:  # noqa: N802 (the base class's name)
        if not self._host_ok():
            return
        review = self.server.review
        path = self.path.split("?", 1)[0]
        if path == "/":
            self._send(HTTPStatus.OK, review.page(), "text/html; charset=utf-8")
        elif path == "/api/candidates":
            try:
                found = review.mode.items(review.read(), review.shown)
            except AbsaChecksError as err:
                self._json(HTTPStatus.CONFLICT, {"error": str(err)})
                return
            self._json(HTTPStatus.OK, {"mode": review.mode.name, "file": review.shown, "reviewer": review.reviewer,
                                       "items": found})
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {path}"})

    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok():
            return
        review = self.server.review
        if self.path != "/api/decide":
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {self.path}"})
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._json(HTTPStatus.LENGTH_REQUIRED, {"error": "a POST needs a Content-Length"})
            return
        if length < 0 or length > MAX_DECISION_BODY:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": f"a decision is at most {MAX_DECISION_BODY} bytes"})
            return
        raw = self.rfile.read(length)
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "a decision is sent as application/json"})
            return
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._json(HTTPStatus.BAD_REQUEST, {"error": "a decision is one JSON object"})
            return
        token = body.get("token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not secrets.compare_digest(token, review.token):
            self._json(HTTPStatus.FORBIDDEN, {"error": "missing or wrong token: decide from the page this server "
                                                       "serves (reload it if the server was restarted)"})
            return
        try:
            item = review.decide(body)
        except outputs.OutputError as err:
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": str(err)})
            return
        except candidates_mode.DecidedMeanwhile as err:
            self._json(HTTPStatus.CONFLICT, {"error": str(err), "item": err.item})
            return
        except AbsaChecksError as err:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(err)})
            return
        self._json(HTTPStatus.OK, {"item": item})


def serve(review: Review, port: int, out: IO[str]) -> int:
    """Serve until Ctrl-C or SIGTERM (exit 0); the one start line goes to `out` before serving."""

    def started(server: ReviewServer) -> str:
        found = review.mode.items(review.read(), review.shown)
        return (f"absa-checks review: {review.shown} at http://{HOST}:{server.server_address[1]}/ "
                f"({review.mode.to_do(found)}; Ctrl-C stops)")

    def stopped(server: ReviewServer) -> None:
        with review.lock:  # a decision being written is finished first
            server.server_close()

    return serve_until_stopped("review", port, lambda: ReviewServer(review, port), started, stopped, out)
