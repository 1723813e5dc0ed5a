"""An OpenAI-compatible chat-completions server on 127.0.0.1 for the tests, backed by a real local model
(absa-checks' lexicon model, which reads the target's own clause), with faults injected on request.

The prompt is read back with the adapter's default templates (aspect between quotes after "aspect", the
sentence after "Sentence: "). Faults are taken from `server.faults`, one per request, in order:
"429" (with Retry-After: 1), "500", any status with a Retry-After header as "<status>:<value>" ("429:120",
"503:Wed, 21 Oct 2037 07:28:00 GMT") or without one ("404", "503"), "malformed" (not JSON), "drop" (the
connection closed without a reply), "slow" (answers after `slow_seconds`), "unknown" (answers "delicious"), "trickle" (the whole reply,
status line and headers included, one byte every `trickle_seconds`: never a socket timeout, but far past any
deadline), "hang" (no reply, the connection held open for at most `hang_seconds`, ended early when the
server closes), "answer:<text>" (answers <text>), "logprobs:<json>" (the right answer with that `logprobs`
object), "notext:<finish_reason>" (a chat completion whose content is null, with that finish_reason). When the list is empty, `always` is the fault (e.g. "hang" for a server that never answers).
A rewriter's request (absa_checks.perturb.rewrite_prompt) gets the answer `rewrites` holds for its sentence, or
a refusal, and an expander's (absa_checks.expansion.prompt) the answer `expansions` holds for its step and sentence,
or a refusal; its repair turn the answer `repairs` holds (else the first answer again). Every request is counted, with its Authorization header kept for the secret test and all its headers in
`headers` (the SDK's retry count, what the environment could add).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from absa_checks.common.labels import POLARITIES
from absa_checks.models.protocol import Query
from model_adapters.lexicon import LexiconAdapter


class FakeOpenAI(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, delay: float = 0.0):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.delay = delay            # seconds every answer takes (the throughput benchmark's 50 ms)
        self.slow_seconds = 5.0
        self.trickle_seconds = 0.5
        self.hang_seconds = 60.0
        self.always = ""
        self.closing = threading.Event()  # set on exit: a hanging or trickling handler stops at once
        self.faults: list[str] = []
        self.requests = 0
        self.authorizations: list[str] = []
        self.headers: list[dict[str, str]] = []  # every request's headers, names in lower case
        self.bodies: list[dict] = []  # the requests' JSON bodies that got an answer
        self.lock = threading.Lock()
        self.model = LexiconAdapter()
        self.vocabulary: set[str] = set()  # the aspect terms extraction answers look for
        self.rewrites: dict[str, str] = {}  # a rewriter's answer by the request's sentence (reply_to)
        self.repairs: dict[str, str] = {}  # its answer to the repair turn, by sentence (else it repeats itself)
        self.expansions: dict[tuple[str, str], str] = {}  # an expander's answer by (step, sentence), else a refusal
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    def handle_error(self, request, client_address) -> None:
        """A client that gave up (its deadline passed, the test ended) is no error of the server's: the handler's
        write to the closed connection is not printed, where it would land in a later test's captured stderr."""
        import sys

        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            return
        super().handle_error(request, client_address)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closing.set()
        self.shutdown()
        self.server_close()

    def next_fault(self) -> str:
        with self.lock:
            self.requests += 1
            return self.faults.pop(0) if self.faults else self.always

    def reply_to(self, messages: list[dict]) -> str:
        """A rewriter's request (its last message starts with "Task: "): the answer `rewrites` holds for its
        sentence, else a refusal; any other request: the lexicon's answer to the first message."""
        last = messages[-1]["content"]
        if messages[0]["content"].startswith("You help build an expanded ground truth"):  # absa-checks expand
            step = re.search(r"Task (ZOOM-IN|ZOOM-OUT|JUDGE):", messages[0]["content"]).group(1).lower()
            sentence = last.split("Sentence: ", 1)[1].split("\n", 1)[0]
            return self.expansions.get((step, sentence), "I'm sorry, but I can't help with that.")
        if last.startswith("Your edit was not accepted"):  # a repair turn: the task is the last "Task: " message
            task = next(m["content"] for m in reversed(messages) if m["content"].startswith("Task: "))
            sentence = task.split("\nSentence: ", 1)[1].split("\n", 1)[0]
            return self.repairs.get(sentence, self.rewrites.get(sentence, "I'm sorry, but I can't help with that."))
        if last.startswith("Task: "):
            sentence = last.split("\nSentence: ", 1)[1].split("\n", 1)[0]
            return self.rewrites.get(sentence, "I'm sorry, but I can't help with that.")
        return self.answer(messages[0]["content"])

    def answer(self, prompt: str) -> str:
        sentence = prompt.split("Sentence: ", 1)[1].split("\n", 1)[0]
        aspect = re.search(r'aspect "([^"]*)"', prompt)
        if aspect is None:  # extraction: every known aspect term in the sentence, with the lexicon's polarity
            found = [{"aspect": term, "polarity": self._polarity(sentence, term)} for term in sorted(self.vocabulary)
                     if re.search(rf"\b{re.escape(term)}\b", sentence)]
            return "Here are the aspects:\n" + json.dumps(found)
        return self._polarity(sentence, aspect.group(1))

    def _polarity(self, sentence: str, term: str) -> str:
        start = sentence.find(term)
        found = self.model.predict([Query(sentence, term, start, start + len(term))])[0]
        return max(found, key=found.get) if isinstance(found, dict) else str(found)


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        with self.server.lock:
            self.server.authorizations.append(self.headers.get("Authorization", ""))
            self.server.headers.append({name.lower(): value for name, value in self.headers.items()})
        fault = self.server.next_fault()
        if self.server.delay:
            time.sleep(self.server.delay)
        if fault == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if fault == "slow":
            time.sleep(self.server.slow_seconds)
        if fault == "hang":
            self.server.closing.wait(self.server.hang_seconds)
            self.close_connection = True
            return
        status = re.fullmatch(r"(\d{3})(?::(.+))?", fault)
        if status:
            self.send_response(int(status.group(1)))
            retry_after = status.group(2) or ("1" if fault == "429" else None)
            if retry_after:
                self.send_header("Retry-After", retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with self.server.lock:
            self.server.bodies.append(body)
        content = "delicious" if fault == "unknown" else fault[len("answer:"):] if fault.startswith("answer:") \
            else self.server.reply_to(body["messages"])
        if body.get("response_format", {}).get("type") == "json_schema":  # structured output, as servers give it
            content = json.dumps({"polarity": content})
        reply = {"id": "x", "object": "chat.completion", "model": body["model"],
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                              "finish_reason": "stop"}]}
        if body.get("logprobs") and content in POLARITIES:
            reply["choices"][0]["logprobs"] = {"content": [{"token": content, "logprob": -0.1, "top_logprobs": [
                {"token": content, "logprob": -0.1}, {"token": "neutral" if content != "neutral" else "positive",
                                                      "logprob": -2.5}]}]}
        if fault.startswith("notext:"):  # a well-formed completion without text, and why (length, content_filter)
            reply["choices"][0]["message"]["content"] = None
            reply["choices"][0]["finish_reason"] = fault[len("notext:"):]
        if fault.startswith("logprobs:"):
            reply["choices"][0]["logprobs"] = json.loads(fault[len("logprobs:"):])
        data = b"{not json" if fault == "malformed" else json.dumps(reply).encode()
        if fault == "trickle":
            self._trickle(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _trickle(self, data: bytes) -> None:
        """The whole reply, one byte at a time, `trickle_seconds` apart (until sent, the client hangs up or
        the server closes)."""
        whole = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(data)) + data
        self.close_connection = True
        for byte in whole:
            if self.server.closing.wait(self.server.trickle_seconds):
                return
            try:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            except OSError:  # the client hung up (its deadline)
                return
