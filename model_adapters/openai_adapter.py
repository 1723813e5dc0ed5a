"""A model behind an OpenAI-compatible endpoint (vLLM, TGI, Ollama, llama.cpp server, OpenAI, Azure, ...):
`kind: openai` in models.yaml.

- `mode: classify` (default): one chat request per query, the prompt template filled with the sentence
  and the aspect, answered with a polarity word (`guided: choice` or `json_schema` constrains the answer
  on servers that support it); with `logprobs: true`, probabilities from the first token's top log
  probabilities, else the label alone.
- `mode: extract`: one request per sentence, answered with the aspects and polarities as text (JSON,
  ASQP or `aspect: polarity`), read by absa_checks.extraction.text_output.

Requests run `max_concurrency` at a time, at most `requests_per_minute`, each within `timeout` seconds in
total (a wall deadline from connecting to the last byte: a server trickling its reply is cut off); 429, 5xx,
malformed replies and dropped connections are retried `retries` times with exponential backoff and
jitter (a 429's or 503's `Retry-After` is honoured); after `max_consecutive_failures` failed requests
in a row the adapter stops asking and says why, once. Temperature 0 and a fixed seed by default.

The API key is read from the environment variable `api_key_env` names; it is sent in the
Authorization header and nowhere else: not in describe(), the fingerprint, a cache key or a message; a
value of `api_key_env` that is not a variable's name (a pasted key) is refused without being repeated.

Every setting's type and range is checked when the entry is read (before the run). An interrupt (Ctrl-C,
SIGTERM) while requests are under way cuts their connections and ends the waits at once: no thread holds
the run on a server that does not answer. Answers are read for the polarity they assert
(absa_checks.answer_reading); malformed log probabilities make their own query an error.
"""

from __future__ import annotations

import functools
import hashlib
import http.client
import json
import math
import os
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from numbers import Real
from typing import Any, Sequence
from urllib.parse import urlsplit

from absa_checks.adapters import AdapterKind
from absa_checks.answer_reading import read_polarity
from absa_checks.errors import AdapterError
from absa_checks.labels import POLARITIES, polarity_word
from absa_checks.redaction import looks_secret, redact_text, redact_url, shown

from .protocol import Answer, Query, QueryError

MODES = ("classify", "extract")
GUIDED = ("none", "choice", "json_schema")
DEFAULT_PROMPT = ("What sentiment does this review sentence express towards the aspect \"{aspect}\"?\n"
                  "Sentence: {sentence}\nAnswer with one word: positive, negative or neutral.")
DEFAULT_EXTRACT_PROMPT = ("List every aspect term of this review sentence with the sentiment expressed towards it, "
                          "as a JSON list of objects with \"aspect\" and \"polarity\" (positive, negative or "
                          "neutral); [] when there is none.\nSentence: {sentence}")
RETRY_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_BACKOFF = 30.0
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PASTED_KEY = ("api_key_env must name an environment variable; it looks like a key was pasted there. Put the key "
              "in an environment variable (export OPENAI_API_KEY=...) and write that variable's name here, e.g. "
              "api_key_env: OPENAI_API_KEY")


def looks_like_a_key(value: str) -> bool:
    """Not a variable's name, or a name that reads like a secret: `sk_...`, or 20+ characters whose case and
    digits change as often as random text's do (`AbCdEf0123456789GhIj`, `a8Fk2LqP9zR4tY7uW1xC`; not
    `MyCompanyOpenAIKey2024` nor `AzureOpenAIKeyForTheEastUSRegion2`)."""
    if not ENV_NAME.fullmatch(value):
        return True
    runs = [m.group() for m in re.finditer(r"[a-z]+|[A-Z]+|[0-9]+|_+", value)]
    lone_lower = sum(len(r) == 1 and r.islower() for r in runs)  # camelCase words keep 2+ lower-case letters
    digit_runs = sum(r.isdigit() for r in runs)
    random_looking = len(runs) >= 0.4 * len(value) and (lone_lower >= 3 or digit_runs >= 2)
    return value.lower().startswith("sk_") or (len(value) >= 20 and random_looking)


# The upper bounds of the numeric settings: beyond them a value is a typo (or overflows a timer), not a choice.
MAX_TIMEOUT = 3600.0             # seconds for one request: an hour
MIN_REQUESTS_PER_MINUTE = 1 / 60  # one request an hour
MAX_REQUESTS_PER_MINUTE = 1e6
MAX_BACKOFF_SETTING = 600.0      # seconds before the first retry (later waits are capped at MAX_BACKOFF anyway)
MAX_TEMPERATURE = 2.0            # the OpenAI API's own bound
UPPER = {"max_concurrency": 256, "retries": 100, "max_consecutive_failures": 1_000_000, "seed": 2 ** 63 - 1,
         "max_tokens": 1_000_000}


def _whole(name: str, key: str, value: object, low: int) -> int:
    """A whole number from `low` to UPPER[key] (a `${VAR}` gives it as text: "8" is 8)."""
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
        value = int(value)
    high = UPPER[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise AdapterError(f"model '{name}': {key} {shown(value)} must be a whole number of at least {low} and at most "
                           f"{high}, "
                           f"e.g. {key}: {max(low, 1) if key != 'retries' else 4}")
    return value


def _number(name: str, key: str, value: object, low: float, above: bool, example: str, high: float) -> float:
    """A finite number at least (or, with `above`, greater than) `low`, and at most `high`."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            pass
    ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value)) and \
        (float(value) > low if above else float(value) >= low) and float(value) <= high
    if not ok:
        bound = f"above {low:g}" if above else f"at least {low:g}"
        raise AdapterError(f"model '{name}': {key} {shown(value)} must be a number {bound} and at most {high:g}, "
                           f"e.g. {key}: {example}")
    return float(value)


def _flag(name: str, key: str, value: object) -> bool:
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise AdapterError(f"model '{name}': {key} {shown(value)} must be true or false")
    return value


def _base_url(name: str, value: str) -> str:
    """http(s)://host[:port][/path], with a host, without credentials, a query or a fragment (the adapter
    appends /chat/completions to it). The value is never repeated when it holds credentials."""
    example = "e.g. base_url: http://127.0.0.1:8000/v1"
    text = value.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise AdapterError(f"model '{name}': base_url {shown(redact_url(text))} is not a URL "
                           f"(http(s)://host[:port][/path]), {example}") from None
    if parts.scheme not in ("http", "https") or not text.lower().startswith(parts.scheme + "://"):
        raise AdapterError(f"model '{name}': base_url must start with http:// or https://, {example}")
    if "@" in parts.netloc:
        raise AdapterError(f"model '{name}': base_url holds credentials (user:password@); they are not shown and "
                           "not sent. Put the key in an environment variable and name it with api_key_env (e.g. "
                           "api_key_env: OPENAI_API_KEY); base_url keeps only http(s)://host[:port][/path]")
    if parts.query or parts.fragment or text.rstrip("/").endswith(("?", "#")):
        raise AdapterError(f"model '{name}': base_url {redact_url(text)} has a query string or a fragment, which "
                           "cannot take /chat/completions after it; a key there (?api-key=...) belongs in an "
                           "environment variable named by api_key_env; base_url keeps only "
                           "http(s)://host[:port][/path]")
    if not parts.hostname or port == 0 or any(c.isspace() for c in text):
        raise AdapterError(f"model '{name}': base_url {shown(text)} names no host (or has a space or port 0), "
                           f"{example}")
    return text


def _text(name: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise AdapterError(f"model '{name}': {key} must be a non-empty text, e.g. {key}: "
                           f"{'http://127.0.0.1:8000/v1' if key == 'base_url' else '...'}")
    return value


class _Halted(Exception):
    """The run stopped (an interrupt) while this request was under way."""


class _Exchange:
    """One HTTP exchange's socket, cut (shut down) at its deadline or when the run stops: a blocked read
    then returns at once, whatever the server does."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self.cut = ""  # "deadline" or "stopped" once cut

    def attach(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            cut = self.cut
        if cut:
            _shut(sock)

    def cut_off(self, why: str) -> None:
        with self._lock:
            if self.cut:
                return
            self.cut = why
            sock = self._sock
        if sock is not None:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class _Tracked:
    """A connection that hands its socket to its exchange as soon as it is connected."""

    def __init__(self, exchange: _Exchange, *args, **kwargs):
        self._exchange = exchange
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self._exchange.attach(self.sock)  # type: ignore[attr-defined]


class _TrackedHTTP(_Tracked, http.client.HTTPConnection):
    pass


class _TrackedHTTPS(_Tracked, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, exchange: _Exchange):
        super().__init__()
        self._exchange = exchange

    def http_open(self, req):
        return self.do_open(functools.partial(_TrackedHTTP, self._exchange), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, exchange: _Exchange):
        super().__init__()
        self._exchange = exchange

    def https_open(self, req):
        kwargs = {"context": self._context}
        if hasattr(self, "_check_hostname"):  # Python < 3.12
            kwargs["check_hostname"] = self._check_hostname
        return self.do_open(functools.partial(_TrackedHTTPS, self._exchange), req, **kwargs)


class OpenAIAdapter:
    cacheable = True

    def __init__(self, name: str, base_url: str, model: str, mode: str = "classify", prompt: str | None = None,
                 api_key_env: str | None = None, guided: str = "none", logprobs: bool = False,
                 max_concurrency: int = 4, timeout: float = 30.0, retries: int = 4,
                 requests_per_minute: float | None = None, max_consecutive_failures: int = 8,
                 temperature: float = 0.0, seed: int = 0, max_tokens: int | None = None, backoff: float = 0.5):
        base_url, model = _base_url(name, _text(name, "base_url", base_url)), _text(name, "model", model)
        if looks_secret(model):
            raise AdapterError(f"model '{name}': model looks like an API key (not shown); model: is the name the "
                               f"server knows the model by (e.g. model: gpt-4o-mini). {PASTED_KEY.split('; ', 1)[1]}")
        if mode not in MODES:
            raise AdapterError(f"model '{name}': mode {shown(mode)} is not one of {', '.join(MODES)}")
        if guided not in GUIDED:
            raise AdapterError(f"model '{name}': guided {shown(guided)} is not one of {', '.join(GUIDED)}")
        if prompt is not None and not isinstance(prompt, str):
            raise AdapterError(f"model '{name}': prompt must be text holding {{sentence}} (and {{aspect}})")
        max_concurrency = _whole(name, "max_concurrency", max_concurrency, 1)
        retries = _whole(name, "retries", retries, 0)
        max_consecutive_failures = _whole(name, "max_consecutive_failures", max_consecutive_failures, 1)
        seed = _whole(name, "seed", seed, 0)
        if max_tokens is not None:
            max_tokens = _whole(name, "max_tokens", max_tokens, 1)
        timeout = _number(name, "timeout", timeout, 0.0, True, "30 (seconds for the whole request)", MAX_TIMEOUT)
        if requests_per_minute is not None:
            requests_per_minute = _number(name, "requests_per_minute", requests_per_minute, 0.0, True, "60",
                                          MAX_REQUESTS_PER_MINUTE)
            if requests_per_minute < MIN_REQUESTS_PER_MINUTE:
                raise AdapterError(f"model '{name}': requests_per_minute {requests_per_minute:g} is less than one "
                                   "request an hour (at least 0.0167); leave it out for no limit, e.g. "
                                   "requests_per_minute: 60")
        temperature = _number(name, "temperature", temperature, 0.0, False, "0", MAX_TEMPERATURE)
        backoff = _number(name, "backoff", backoff, 0.0, False, "0.5 (seconds before the first retry)",
                          MAX_BACKOFF_SETTING)
        logprobs = _flag(name, "logprobs", logprobs)
        template = prompt or (DEFAULT_EXTRACT_PROMPT if mode == "extract" else DEFAULT_PROMPT)
        needed = ("{sentence}",) if mode == "extract" else ("{sentence}", "{aspect}")
        missing = [field for field in needed if field not in template]
        if missing:
            raise AdapterError(f"model '{name}': the prompt must contain {' and '.join(missing)}")
        self.key = ""
        if api_key_env == "":
            raise AdapterError(f"model '{name}': api_key_env is empty; write the name of the environment variable "
                               "that holds the key (api_key_env: OPENAI_API_KEY), or leave it out")
        if api_key_env is not None:
            if not isinstance(api_key_env, str) or looks_like_a_key(api_key_env.strip()):
                raise AdapterError(f"model '{name}': {PASTED_KEY}")
            api_key_env = api_key_env.strip()
            self.key = os.environ.get(api_key_env, "")
            if not self.key:
                raise AdapterError(f"model '{name}': the environment variable {api_key_env} (api_key_env) is not set; "
                                   "export the API key there")
            if not re.fullmatch(r"[\x21-\x7e]+", self.key):
                what = "a line break" if re.search(r"[\r\n]", self.key) else \
                    "a space or tab" if re.search(r"[ \t]", self.key) else "a character an HTTP header cannot carry"
                raise AdapterError(f"model '{name}': the key in the environment variable {api_key_env} (api_key_env) "
                                   f"contains {what} (the key is not shown); export it again without it, e.g. "
                                   f"export {api_key_env}=\"$(tr -d '[:space:]' < keyfile)\"")
        self.name = name
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.base_url = base_url
        self.shown_url = redact_url(self.url)  # what every message and report shows (absa_checks.redaction)
        self.shown_base_url = redact_url(base_url)
        self.model = model
        self.mode = mode
        self.task = "extract" if mode == "extract" else "classify"
        self.prompt = template
        self.guided = guided
        self.logprobs = bool(logprobs)
        self.max_concurrency = max_concurrency
        self.timeout = float(timeout)
        self.retries = retries
        self.interval = 60.0 / float(requests_per_minute) if requests_per_minute else 0.0
        self.max_consecutive_failures = max_consecutive_failures
        self.temperature = float(temperature)
        self.seed = int(seed)
        self.max_tokens = max_tokens
        self.backoff = float(backoff)
        self.requests = 0  # sent, retries included (for reports and tests)
        self._lock = threading.Lock()
        self._jitter = random.Random(seed)  # seeded: the waits are reproducible, the answers never depend on them
        self._next_slot = 0.0
        self._failures_in_a_row = 0
        self._stopped = ""
        self._halt = threading.Event()  # set by an interrupt: every wait ends, every connection is cut
        self._live: set[_Exchange] = set()

    # ------------------------------------------------------------------ what it is

    def describe(self) -> dict[str, object]:
        return {"kind": "openai", "base_url": self.shown_base_url, "model": redact_text(self.model), "mode": self.mode,
                "prompt_sha256": hashlib.sha256(self.prompt.encode()).hexdigest()[:12], "guided": self.guided,
                "logprobs": self.logprobs, "temperature": self.temperature, "seed": self.seed,
                "max_concurrency": self.max_concurrency}

    def fingerprint(self) -> str:
        """Endpoint, model, prompt and the settings that change answers; never the key."""
        settings = [self.base_url, self.model, self.mode, self.prompt, self.guided, self.logprobs, self.temperature,
                    self.seed, self.max_tokens]
        return hashlib.sha256(json.dumps(settings).encode()).hexdigest()[:16]

    # ------------------------------------------------------------------ answers

    def predict(self, queries: Sequence[Query]) -> list[Answer]:
        return self._all([self.prompt.replace("{aspect}", q.aspect).replace("{sentence}", q.sentence)
                          for q in queries], self._label)

    def extract(self, sentences: Sequence[str]) -> list[object]:
        return self._all([self.prompt.replace("{sentence}", s) for s in sentences], lambda reply: reply["content"])

    def _all(self, prompts: list[str], read) -> list:
        pool = ThreadPoolExecutor(max_workers=min(self.max_concurrency, max(len(prompts), 1)))
        try:
            futures = [pool.submit(self._one, prompt) for prompt in prompts]
            replies = [future.result() for future in futures]
        except BaseException:  # Ctrl-C or SIGTERM (as KeyboardInterrupt) in the waiting thread: stop at once
            self.halt()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        if self._stopped:  # one clear message for the whole batch (and every later one)
            raise AdapterError(self._stopped)
        return [reply if isinstance(reply, QueryError) else read(reply) for reply in replies]

    def halt(self) -> None:
        """Stop: every wait (backoff, rate limit) ends and every connection under way is cut, so the worker
        threads end within moments instead of holding the process on a server that does not answer."""
        self._halt.set()
        with self._lock:
            live = list(self._live)
        for exchange in live:
            exchange.cut_off("stopped")

    def _label(self, reply: dict) -> Answer:
        content = reply["content"].strip()
        shown = self._hide(content[:60] + ("..." if len(content) > 60 else ""))
        if self.guided == "json_schema":
            try:
                content = str(json.loads(content).get("polarity", ""))
            except (ValueError, AttributeError):
                return QueryError(f"model '{self.name}' answered {shown!r}, not the JSON object asked for")
        reading = read_polarity(content)
        if reading.polarity is None:
            return QueryError(f"model '{self.name}' answered {shown!r}, which {reading.problem}")
        try:
            probs = self._probabilities(reply.get("logprobs"))
        except ValueError as err:
            return QueryError(f"model '{self.name}': the log probabilities in its reply cannot be read ({err}); "
                              "set logprobs: false for this server, or fix what it sends")
        return probs if probs and max(probs, key=probs.get) == reading.polarity else reading.polarity

    def _hide(self, text: str) -> str:
        """A server's text for a message: the key (a server may echo the Authorization header) and anything
        key-shaped hidden (absa_checks.redaction)."""
        return redact_text(text.replace(self.key, "***") if self.key else text)

    @staticmethod
    def _probabilities(logprobs: Any) -> dict[str, float] | None:
        """From the first token's top log probabilities, when the server sent them (None when it did not);
        ValueError naming what is wrong when they are there but malformed."""
        if logprobs is None or (isinstance(logprobs, dict) and logprobs.get("content") is None):
            return None
        if not isinstance(logprobs, dict) or not isinstance(logprobs["content"], list) or not logprobs["content"]:
            raise ValueError("'logprobs' is not an object with a non-empty 'content' list")
        first = logprobs["content"][0]
        top = first.get("top_logprobs") if isinstance(first, dict) else None
        if not isinstance(top, list):
            raise ValueError("the first token has no 'top_logprobs' list")
        found: dict[str, float] = {}
        for entry in top:
            if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
                raise ValueError(f"a top_logprobs entry {str(entry)[:40]!r} has no 'token' text")
            value = entry.get("logprob")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or \
                    value > 1e-6:
                raise ValueError(f"the logprob {str(value)[:20]!r} of {entry['token'][:20]!r} is not a log "
                                 "probability (a finite number at most 0)")
            label = polarity_word(entry["token"].strip())
            if label in POLARITIES:
                found[label] = found.get(label, 0.0) + math.exp(min(0.0, float(value)))
        return found or None

    # ------------------------------------------------------------------ one request, politely

    def _body(self, prompt: str) -> dict:
        body: dict[str, Any] = {"model": self.model, "messages": [{"role": "user", "content": prompt}],
                                "temperature": self.temperature, "seed": self.seed}
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        if self.logprobs:
            body.update(logprobs=True, top_logprobs=5)
        if self.mode == "classify" and self.guided == "choice":
            body["guided_choice"] = list(POLARITIES)
        elif self.mode == "classify" and self.guided == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "polarity", "schema": {
                "type": "object", "properties": {"polarity": {"enum": list(POLARITIES)}}, "required": ["polarity"]}}}
        return body

    def _wait_for_slot(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next_slot)
            self._next_slot = slot + self.interval
        self._halt.wait(max(0.0, slot - time.monotonic()))

    def _post(self, data: bytes, headers: dict[str, str]) -> bytes:
        """One POST, its whole reply read within `timeout` seconds from the start (connecting, headers and
        body together): a timer cuts the socket at the deadline, so a server trickling bytes cannot hold
        it. Raises TimeoutError at the deadline, _Halted when the run stops."""
        exchange = _Exchange()
        with self._lock:
            self._live.add(exchange)
        if self._halt.is_set():
            exchange.cut_off("stopped")
        timer = threading.Timer(self.timeout, exchange.cut_off, ("deadline",))
        timer.daemon = True
        timer.start()
        opener = urllib.request.build_opener(_HTTPHandler(exchange), _HTTPSHandler(exchange))
        try:
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            with opener.open(request, timeout=self.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError:
            if not exchange.cut:
                raise
            body = b""
        except (urllib.error.URLError, http.client.HTTPException, OSError):
            if not exchange.cut:
                raise
            body = b""
        finally:
            timer.cancel()
            with self._lock:
                self._live.discard(exchange)
        if exchange.cut == "stopped":
            raise _Halted()
        if exchange.cut == "deadline":
            raise TimeoutError(f"no complete reply within timeout {self.timeout:g} s")
        return body

    def _one(self, prompt: str) -> dict | QueryError:
        """A reply {content, logprobs}, or QueryError when this request failed for good."""
        if self._stopped:
            return QueryError(self._stopped)
        if self._halt.is_set():
            return QueryError(f"model '{self.name}': not asked, the run was interrupted")
        data = json.dumps(self._body(prompt)).encode()
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {self.key}"} if self.key else {})}
        problem = ""
        for attempt in range(self.retries + 1):
            self._wait_for_slot()
            if self._halt.is_set():
                return QueryError(f"model '{self.name}': not asked, the run was interrupted")
            with self._lock:
                self.requests += 1
            wait = None
            try:
                reply = json.loads(self._post(data, headers).decode("utf-8"))
                choice = reply["choices"][0]
                content = choice["message"]["content"]
                if not isinstance(content, str):
                    raise ValueError("no text in the reply")
                self._succeeded()
                return {"content": content, "logprobs": choice.get("logprobs")}
            except urllib.error.HTTPError as err:
                problem = f"HTTP {err.code} from {self.shown_url}"
                if err.code not in RETRY_STATUSES:
                    self._failed(problem)
                    return QueryError(f"model '{self.name}': {problem}; the request was refused, not retried")
                wait = _retry_after(err.headers.get("Retry-After"))
            except _Halted:
                return QueryError(f"model '{self.name}': not answered, the run was interrupted")
            except TimeoutError:  # socket.timeout is TimeoutError
                problem = f"no complete reply within timeout {self.timeout:g} s from {self.shown_url}"
            except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
                problem = f"{type(err).__name__} talking to {self.shown_url}"
            except (ValueError, KeyError, IndexError, TypeError):
                problem = f"a malformed reply from {self.shown_url} (not an OpenAI chat completion)"
            if attempt < self.retries:
                with self._lock:
                    jitter = 0.5 + self._jitter.random() / 2
                if self._halt.wait(wait if wait is not None else min(MAX_BACKOFF, self.backoff * 2 ** attempt) * jitter):
                    return QueryError(f"model '{self.name}': not answered, the run was interrupted")
        self._failed(problem)
        return QueryError(f"model '{self.name}': {problem}, after {self.retries + 1} tries")

    def _succeeded(self) -> None:
        with self._lock:
            self._failures_in_a_row = 0

    def _failed(self, problem: str) -> None:
        with self._lock:
            self._failures_in_a_row += 1
            if self._failures_in_a_row >= self.max_consecutive_failures and not self._stopped:
                self._stopped = (f"model '{self.name}': stopped after {self._failures_in_a_row} failed requests in a "
                                 f"row (the last: {problem}); check the server at {self.shown_base_url}")


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (a number of seconds), at most MAX_BACKOFF; None without one."""
    try:
        return min(MAX_BACKOFF, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None


def _build(spec) -> OpenAIAdapter:
    settings = {key: value for key, value in spec.settings.items() if key != "kind"}
    given = settings.get("api_key_env")
    via = [variable for variable, value in spec.from_env if isinstance(given, str) and value == given]
    if via and not (ENV_NAME.fullmatch(given.strip()) and os.environ.get(given.strip())):
        # `api_key_env: ${MYK}` hands over MYK's value (the key itself), not the variable's name
        raise AdapterError(f"model '{spec.name}': api_key_env names the variable that holds the key, it does not "
                           f"take its value: write api_key_env: {via[0]}, not api_key_env: ${{{via[0]}}}")
    return OpenAIAdapter(spec.name, str(settings.pop("base_url")), str(settings.pop("model")), **settings)


KEYS = ("base_url", "model", "mode", "prompt", "api_key_env", "guided", "logprobs", "max_concurrency", "timeout",
        "retries", "requests_per_minute", "max_consecutive_failures", "temperature", "seed", "max_tokens", "backoff")
# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("openai", keys=KEYS, required=("base_url", "model"), build=_build)
