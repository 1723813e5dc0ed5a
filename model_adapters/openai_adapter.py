"""A model behind an OpenAI-compatible endpoint (vLLM, TGI, Ollama, llama.cpp server, OpenAI, Azure, ...):
`kind: openai` in models.yaml.

- `mode: classify` (default): one chat request per query, the prompt template filled with the sentence
  and the aspect, answered with a polarity word (`guided: choice` or `json_schema` constrains the answer
  on servers that support it); with `logprobs: true`, probabilities from the first token's top log
  probabilities, else the label alone.
- `mode: extract`: one request per sentence, answered with the aspects and polarities as text (JSON,
  ASQP or `aspect: polarity`), read by absa_checks.extraction.text_output.

Requests run `max_concurrency` at a time, at most `requests_per_minute`, each with a `timeout`; 429, 5xx,
malformed replies and dropped connections are retried `retries` times with exponential backoff and
jitter (a 429's or 503's `Retry-After` is honoured); after `max_consecutive_failures` failed requests
in a row the adapter stops asking and says why, once. Temperature 0 and a fixed seed by default.

The API key is read from the environment variable `api_key_env` names; it is sent in the
Authorization header and nowhere else: not in describe(), the fingerprint, a cache key or a message.
"""

from __future__ import annotations

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
from typing import Any, Sequence

from absa_checks.adapters import AdapterKind
from absa_checks.errors import AdapterError
from absa_checks.labels import POLARITIES, canonical_label

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


class _Stopped(Exception):
    pass


class OpenAIAdapter:
    cacheable = True

    def __init__(self, name: str, base_url: str, model: str, mode: str = "classify", prompt: str | None = None,
                 api_key_env: str | None = None, guided: str = "none", logprobs: bool = False,
                 max_concurrency: int = 4, timeout: float = 30.0, retries: int = 4,
                 requests_per_minute: float | None = None, max_consecutive_failures: int = 8,
                 temperature: float = 0.0, seed: int = 0, max_tokens: int | None = None, backoff: float = 0.5):
        if mode not in MODES:
            raise AdapterError(f"model '{name}': mode '{mode}' is not one of {', '.join(MODES)}")
        if guided not in GUIDED:
            raise AdapterError(f"model '{name}': guided '{guided}' is not one of {', '.join(GUIDED)}")
        for key, value, low in (("max_concurrency", max_concurrency, 1), ("retries", retries, 0),
                                ("max_consecutive_failures", max_consecutive_failures, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise AdapterError(f"model '{name}': {key} {value!r} must be a whole number of at least {low}")
        template = prompt or (DEFAULT_EXTRACT_PROMPT if mode == "extract" else DEFAULT_PROMPT)
        needed = ("{sentence}",) if mode == "extract" else ("{sentence}", "{aspect}")
        missing = [field for field in needed if field not in template]
        if missing:
            raise AdapterError(f"model '{name}': the prompt must contain {' and '.join(missing)}")
        self.key = ""
        if api_key_env:
            self.key = os.environ.get(api_key_env, "")
            if not self.key:
                raise AdapterError(f"model '{name}': the environment variable {api_key_env} (api_key_env) is not set; "
                                   "export the API key there")
        self.name = name
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.base_url = base_url
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

    # ------------------------------------------------------------------ what it is

    def describe(self) -> dict[str, object]:
        return {"kind": "openai", "base_url": self.base_url, "model": self.model, "mode": self.mode,
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
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, max(len(prompts), 1))) as pool:
            replies = list(pool.map(self._one, prompts))
        if self._stopped:  # one clear message for the whole batch (and every later one)
            raise AdapterError(self._stopped)
        return [reply if isinstance(reply, QueryError) else read(reply) for reply in replies]

    def _label(self, reply: dict) -> Answer:
        content = reply["content"].strip()
        if self.guided == "json_schema":
            try:
                content = str(json.loads(content).get("polarity", ""))
            except (ValueError, AttributeError):
                return QueryError(f"model '{self.name}' answered {content[:80]!r}, not the JSON object asked for")
        words = re.findall(r"[A-Za-z]+", content)
        label = next((canonical_label(w) for w in words[:1] if canonical_label(w)), None) or \
            next((canonical_label(w) for w in words if canonical_label(w) in POLARITIES), None)
        if label is None:
            return QueryError(f"model '{self.name}' answered {content[:80]!r}, which names no polarity (positive, "
                              "negative, neutral)")
        probs = self._probabilities(reply.get("logprobs"))
        return probs if probs and max(probs, key=probs.get) == label else label

    @staticmethod
    def _probabilities(logprobs: Any) -> dict[str, float] | None:
        """From the first token's top log probabilities, when the server sent them."""
        try:
            top = logprobs["content"][0]["top_logprobs"]
        except (KeyError, IndexError, TypeError):
            return None
        found: dict[str, float] = {}
        for entry in top:
            label = canonical_label(str(entry.get("token", "")).strip())
            if label in POLARITIES:
                found[label] = found.get(label, 0.0) + math.exp(float(entry.get("logprob", -1e9)))
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
        time.sleep(max(0.0, slot - time.monotonic()))

    def _one(self, prompt: str) -> dict | QueryError:
        """A reply {content, logprobs}, or QueryError when this request failed for good."""
        if self._stopped:
            return QueryError(self._stopped)
        data = json.dumps(self._body(prompt)).encode()
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {self.key}"} if self.key else {})}
        problem = ""
        for attempt in range(self.retries + 1):
            self._wait_for_slot()
            with self._lock:
                self.requests += 1
            wait = None
            try:
                request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    reply = json.loads(response.read().decode("utf-8"))
                choice = reply["choices"][0]
                content = choice["message"]["content"]
                if not isinstance(content, str):
                    raise ValueError("no text in the reply")
                self._succeeded()
                return {"content": content, "logprobs": choice.get("logprobs")}
            except urllib.error.HTTPError as err:
                problem = f"HTTP {err.code} from {self.url}"
                if err.code not in RETRY_STATUSES:
                    self._failed(problem)
                    return QueryError(f"model '{self.name}': {problem}; the request was refused, not retried")
                wait = _retry_after(err.headers.get("Retry-After"))
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout,
                    TimeoutError) as err:
                problem = f"{type(err).__name__} talking to {self.url}"
            except (ValueError, KeyError, IndexError, TypeError):
                problem = f"a malformed reply from {self.url} (not an OpenAI chat completion)"
            if attempt < self.retries:
                with self._lock:
                    jitter = 0.5 + self._jitter.random() / 2
                time.sleep(wait if wait is not None else min(MAX_BACKOFF, self.backoff * 2 ** attempt) * jitter)
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
                                 f"row (the last: {problem}); check the server at {self.base_url}")


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (a number of seconds), at most MAX_BACKOFF; None without one."""
    try:
        return min(MAX_BACKOFF, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None


def _build(spec) -> OpenAIAdapter:
    settings = {key: value for key, value in spec.settings.items() if key != "kind"}
    return OpenAIAdapter(spec.name, str(settings.pop("base_url")), str(settings.pop("model")), **settings)


KEYS = ("base_url", "model", "mode", "prompt", "api_key_env", "guided", "logprobs", "max_concurrency", "timeout",
        "retries", "requests_per_minute", "max_consecutive_failures", "temperature", "seed", "max_tokens", "backoff")
# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("openai", keys=KEYS, required=("base_url", "model"), build=_build)
