"""`absa-checks serve-replay ANSWERS`: an OpenAI-compatible endpoint on 127.0.0.1 that answers recorded
requests, so a pipeline that asks an LLM runs without one (issue 29; docs/served.md, "Replaying recorded
answers").

`POST /v1/chat/completions` (or any path ending in `/chat/completions`): the JSON body's key (`common.llm_requests.request_key`,
the sha256 of the canonical body, model name included) looks up the answers file, read once at start. A
recorded answer is a chat.completion built around its text (fixed id and `created`, usage zeros), or the
recorded whole response, verbatim. An unknown key is HTTP 404 with an OpenAI-style error naming the key
and how to get an answer for it, and one log line; a body that is not a chat request, a streaming request
or one too large is 400 / 413. 4xx replies are not retried by the openai adapter (only 429 is), so an
unknown request fails at once instead of spending retries. `GET /v1/models` lists the model names the
recorded whole responses carry. Nothing is written; the server holds no state but two counters.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any

from absa_checks.common.llm_requests import Answer, request_key
from absa_checks.common.redaction import redact_text
from absa_checks.common.serving import HOST, serve_until_stopped

MAX_REQUEST_BODY = 4 * 1024 * 1024  # a chat request with a few-shot prompt is tens of KB
DRAIN = 64 * 1024 * 1024  # an oversized body is read and dropped up to this much before the 413
CHAT_PATH = "/chat/completions"
MODELS_PATHS = ("/v1/models", "/models")
PROGRAM = "absa-checks serve-replay"


@dataclass(frozen=True)
class Reply:
    """What the server answers: an HTTP status and a JSON body; `log` is the line to print, if any."""

    status: int
    body: dict[str, Any]
    log: str = ""


def error(status: int, message: str, code: str, kind: str = "invalid_request_error") -> Reply:
    """An OpenAI-style error reply."""
    return Reply(status, {"error": {"message": message, "type": kind, "param": None, "code": code}})


def completion(answer: Answer, body: dict[str, Any]) -> dict[str, Any]:
    """The reply to a recorded request: the recorded whole response verbatim, or a chat.completion around
    the recorded text (id from the key, `created` 0, the request's model, usage zeros)."""
    if answer.response is not None:
        return answer.response
    return {"id": f"chatcmpl-replay-{answer.key[:24]}", "object": "chat.completion", "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.content},
                         "logprobs": None, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def answer_request(raw: bytes, answers: dict[str, Answer]) -> Reply:
    """One `POST /v1/chat/completions` body answered from the recorded answers (pure)."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return error(HTTPStatus.BAD_REQUEST, "the request body is not UTF-8 text; send the chat request as JSON",
                     "invalid_body")
    except (ValueError, RecursionError) as err:
        where = f" ({err.msg} at line {err.lineno} column {err.colno})" if isinstance(err, json.JSONDecodeError) \
            else ""
        return error(HTTPStatus.BAD_REQUEST, f"the request body is not JSON{where}; send the chat request as one "
                                             "JSON object", "invalid_body")
    if not isinstance(body, dict):
        return error(HTTPStatus.BAD_REQUEST, f"the request body is a JSON {type(body).__name__}, not an object; "
                                             'send {"model": ..., "messages": [...]}', "invalid_body")
    if not isinstance(body.get("model"), str) or not isinstance(body.get("messages"), list) or not body["messages"]:
        return error(HTTPStatus.BAD_REQUEST, 'a chat request needs "model" (text) and "messages" (a non-empty '
                                             'list); send {"model": ..., "messages": [...]}', "invalid_body")
    if body.get("stream"):
        return error(HTTPStatus.BAD_REQUEST, 'the replay server does not stream; send the request without '
                                             '"stream": true', "stream_unsupported")
    try:
        key = request_key(body)
    except ValueError:  # a lone surrogate (\ud800) has no UTF-8 form, so no key
        return error(HTTPStatus.BAD_REQUEST, "the request body holds text that is not valid Unicode (a lone "
                                             "surrogate escape such as \\ud800); send valid text", "invalid_body")
    found = answers.get(key)
    if found is not None:
        return Reply(HTTPStatus.OK, completion(found, body))
    model = redact_text(body["model"])[:80]
    message = (f"no recorded answer for request {key[:12]} (model {model!r}): this request was not in the "
               "exported requests, or it changed since (prompt, model or a setting); export the requests again "
               "(absa-checks generate ... --export-requests FILE), answer them, and restart serve-replay with "
               "the answers")
    return replace(error(HTTPStatus.NOT_FOUND, message, "unknown_request"),
                   log=f"{PROGRAM}: refused request {key[:12]} (model {model!r}): no recorded answer; export the requests "
                       "again (--export-requests) and answer them")


def model_names(answers: dict[str, Answer]) -> list[str]:
    """The model names the recorded whole responses carry (an answer given as text names none)."""
    return sorted({a.response["model"] for a in answers.values()
                   if a.response is not None and isinstance(a.response.get("model"), str)})


@dataclass
class Replay:
    """The answers served (read once, never changed) and what was asked: counters under a lock."""

    answers: dict[str, Answer]
    shown: str
    log: IO[str]
    answered: int = 0
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def counted(self, reply: Reply) -> Reply:
        with self.lock:
            if reply.status == HTTPStatus.OK:
                self.answered += 1
            elif reply.status == HTTPStatus.NOT_FOUND:
                self.refused += 1
            if reply.log:
                print(reply.log, file=self.log, flush=True)
        return reply


class ReplayServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, replay: Replay, port: int) -> None:
        self.replay = replay
        super().__init__((HOST, port), ReplayHandler)


class ReplayHandler(BaseHTTPRequestHandler):
    server: ReplayServer
    protocol_version = "HTTP/1.1"  # keep-alive, as the openai SDK's client expects; every reply has a length
    timeout = 60  # a connection that sends nothing for a minute is closed (no thread waits for ever)
    server_version = "absa-checks-replay"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        return  # one line per refused request (Replay.counted); answered ones are counted

    def _json(self, reply: Reply) -> None:
        data = json.dumps(reply.body, ensure_ascii=True).encode("ascii")  # any recorded text, lone surrogates too
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def _host_ok(self) -> bool:
        """Only requests addressed to this server by name: a page that rebinds its own name to 127.0.0.1
        sends its own Host and is refused."""
        port = self.server.server_address[1]
        if self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}"):
            return True
        self.close_connection = True
        self._json(error(HTTPStatus.FORBIDDEN, f"this server answers only http://{HOST}:{port}/ (Host refused)",
                         "host_refused"))
        return False

    def _path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    def _drain(self, length: int) -> None:
        """Read and drop an oversized body (up to DRAIN bytes), so the client reads the 413 instead of a
        broken pipe it would retry."""
        left = min(length, DRAIN)
        while left > 0:
            chunk = self.rfile.read(min(left, 64 * 1024))
            if not chunk:
                return
            left -= len(chunk)

    def do_GET(self) -> None:  # noqa: N802 (the base class's name)
        if not self._host_ok():
            return
        if self._path() in MODELS_PATHS:
            names = model_names(self.server.replay.answers)
            self._json(Reply(HTTPStatus.OK, {"object": "list", "data": [
                {"id": name, "object": "model", "created": 0, "owned_by": "replay"} for name in names]}))
        else:
            self._json(error(HTTPStatus.NOT_FOUND, f"no page {self._path() or '/'}; the replay server answers POST "
                                                   "/v1/chat/completions and GET /v1/models", "not_found"))

    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok():
            return
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True  # the body is not read: the connection cannot be reused
            self._json(error(HTTPStatus.LENGTH_REQUIRED, "send the request with a Content-Length, not chunked",
                             "length_required"))
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.close_connection = True
            self._json(error(HTTPStatus.LENGTH_REQUIRED, "a POST needs a Content-Length", "length_required"))
            return
        if length < 0 or length > MAX_REQUEST_BODY:
            self.close_connection = True
            self._drain(length)
            self._json(error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the request body is {length} bytes; the replay "
                                                                  f"server takes at most {MAX_REQUEST_BODY}", "too_large"))
            return
        raw = self.rfile.read(length)
        if not self._path().endswith(CHAT_PATH):  # /v1/chat/completions, or a base_url with another prefix
            self._json(error(HTTPStatus.NOT_FOUND, f"no endpoint POST {self._path() or '/'}; the replay server "
                                                   "answers POST /v1/chat/completions", "not_found"))
            return
        self._json(self.server.replay.counted(answer_request(raw, self.server.replay.answers)))


def serve(replay: Replay, port: int, out: IO[str]) -> int:
    """Serve until Ctrl-C or SIGTERM (exit 0): the one start line (the base_url) goes to `out` before
    serving, the counts when it ends."""

    def started(server: ReplayServer) -> str:
        count = len(replay.answers)
        return (f"{PROGRAM}: base_url http://{HOST}:{server.server_address[1]}/v1 answers {count} recorded "
                f"request{'s' if count != 1 else ''} from {replay.shown} (Ctrl-C stops)")

    def stopped(server: ReplayServer) -> None:
        server.server_close()
        with replay.lock:
            print(f"{PROGRAM}: stopped; {replay.answered} answered, {replay.refused} refused (no recorded answer)",
                  file=out, flush=True)

    return serve_until_stopped("serve-replay", port, lambda: ReplayServer(replay, port), started, stopped, out)
