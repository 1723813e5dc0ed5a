"""A model behind an OpenAI-compatible endpoint (vLLM, TGI, Ollama, llama.cpp server, OpenAI, Azure, ...):
`kind: openai` in models.yaml, on the official `openai` SDK (the optional extra `.[openai]`).

- `mode: classify` (default): one chat request per query, the prompt template filled with the sentence
  and the aspect, answered with a polarity word (`guided: choice` or `json_schema` constrains the answer
  on servers that support it); with `logprobs: true`, probabilities from the first token's top log
  probabilities, else the label alone.
- `mode: extract`: one request per sentence, answered with the aspects and polarities as text (JSON,
  ASQP or `aspect: polarity`), read by absa_checks.models.text_output.

The SDK's async client sends the requests, `max_concurrency` at a time (a semaphore), and is their only
retry owner: `max_retries` is the entry's `retries`; its two retry hooks are configured here: which replies
are retried (429, 408/409/425, 500/502/503/504, and what the HTTP layer raises: time-outs, dropped
connections, malformed replies) and how long to wait (a `Retry-After` of at most MAX_RETRY_AFTER seconds
is honoured; a longer one is not retried and says so in one message; else exponential backoff from
`backoff` seconds, at most 30 s, with seeded jitter). What the SDK does not do is ours, in the HTTP client
it is given (transport.http_client): each request waits for its `requests_per_minute` slot and is read whole
within `timeout` seconds (a wall deadline from connecting to the last byte, around the SDK's per-read
time-outs: a server trickling its reply is cut off), and a 2xx reply that is not a chat completion is a
malformed reply the SDK retries. After `max_consecutive_failures` failed requests in a row the adapter
stops asking and says why, once. Temperature 0 and a fixed seed by default.

The API key is read from the environment variable `api_key_env` names; it is sent in the
Authorization header and nowhere else: not in describe(), the fingerprint, a cache key or a message; a
value of `api_key_env` that is not a variable's name (a pasted key) is refused without being repeated.
What the SDK takes from its own environment (OPENAI_API_KEY, OPENAI_ORG_ID, OPENAI_PROJECT_ID) is not sent:
without `api_key_env` no Authorization header goes out.

Every setting's type and range is checked when the entry is read (before the run). An interrupt (Ctrl-C,
SIGTERM) while requests are under way cancels them (their connections closed, the retry and rate-limit
waits ended) at once: the event loop runs in a daemon thread, and nothing holds the run on a server that
does not answer. Answers are read for the polarity they assert (absa_checks.models.answer_reading); malformed
log probabilities make their own query an error.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import random
import re
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from absa_checks.common.errors import AdapterError
from absa_checks.common.labels import POLARITIES, polarity_word
from absa_checks.common.redaction import looks_secret, redact_text, redact_url, shown
from absa_checks.models.adapters import AdapterKind
from absa_checks.models.answer_reading import read_polarity
from model_adapters import openai_settings as checks
from model_adapters import openai_transport as transport
from model_adapters.protocol import Answer, Query, QueryError

MODES = ("classify", "extract")
GUIDED = ("none", "choice", "json_schema")
DEFAULT_PROMPT = ("What sentiment does this review sentence express towards the aspect \"{aspect}\"?\n"
                  "Sentence: {sentence}\nAnswer with one word: positive, negative or neutral.")
DEFAULT_EXTRACT_PROMPT = ("List every aspect term of this review sentence with the sentiment expressed towards it, "
                          "as a JSON list of objects with \"aspect\" and \"polarity\" (positive, negative or "
                          "neutral); [] when there is none.\nSentence: {sentence}")
RETRY_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_BACKOFF = 30.0      # seconds: the longest wait between tries of our backoff
MAX_RETRY_AFTER = 60.0  # seconds: the longest Retry-After a request waits for (the openai SDK's own cap in 1.x);
                        # a server asking for longer is not retried (one clear message): it is out for a while
class OpenAIAdapter:
    cacheable = True

    def __init__(self, name: str, base_url: str, model: str, mode: str = "classify", prompt: str | None = None,
                 api_key_env: str | None = None, guided: str = "none", logprobs: bool = False,
                 max_concurrency: int = 4, timeout: float = 30.0, retries: int = 4,
                 requests_per_minute: float | None = None, max_consecutive_failures: int = 8,
                 temperature: float = 0.0, seed: int = 0, max_tokens: int | None = None, backoff: float = 0.5):
        base_url = checks.base_url(name, checks.text(name, "base_url", base_url))
        model = checks.text(name, "model", model)
        if looks_secret(model):
            raise AdapterError(f"model '{name}': model looks like an API key (not shown); model: is the name the "
                               "server knows the model by (e.g. model: gpt-4o-mini). "
                               f"{checks.PASTED_KEY.split('; ', 1)[1]}")
        if mode not in MODES:
            raise AdapterError(f"model '{name}': mode {shown(mode)} is not one of {', '.join(MODES)}")
        if guided not in GUIDED:
            raise AdapterError(f"model '{name}': guided {shown(guided)} is not one of {', '.join(GUIDED)}")
        if prompt is not None and not isinstance(prompt, str):
            raise AdapterError(f"model '{name}': prompt must be text holding {{sentence}} (and {{aspect}})")
        max_concurrency = checks.whole(name, "max_concurrency", max_concurrency, 1)
        retries = checks.whole(name, "retries", retries, 0)
        max_consecutive_failures = checks.whole(name, "max_consecutive_failures", max_consecutive_failures, 1)
        seed = checks.whole(name, "seed", seed, 0)
        if max_tokens is not None:
            max_tokens = checks.whole(name, "max_tokens", max_tokens, 1)
        timeout = checks.number(name, "timeout", timeout, 0.0, True, "30 (seconds for the whole request)",
                                checks.MAX_TIMEOUT)
        if requests_per_minute is not None:
            requests_per_minute = checks.number(name, "requests_per_minute", requests_per_minute, 0.0, True, "60",
                                                checks.MAX_REQUESTS_PER_MINUTE)
            if requests_per_minute < checks.MIN_REQUESTS_PER_MINUTE:
                raise AdapterError(f"model '{name}': requests_per_minute {requests_per_minute:g} is less than one "
                                   "request an hour (at least 0.0167); leave it out for no limit, e.g. "
                                   "requests_per_minute: 60")
        temperature = checks.number(name, "temperature", temperature, 0.0, False, "0", checks.MAX_TEMPERATURE)
        backoff = checks.number(name, "backoff", backoff, 0.0, False, "0.5 (seconds before the first retry)",
                                checks.MAX_BACKOFF_SETTING)
        logprobs = checks.flag(name, "logprobs", logprobs)
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
            if not isinstance(api_key_env, str) or checks.looks_like_a_key(api_key_env.strip()):
                raise AdapterError(f"model '{name}': {checks.PASTED_KEY}")
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
        self.shown_url = redact_url(self.url)  # what every message and report shows (absa_checks.common.redaction)
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
        self._stopped_reason = ""  # what the requests not sent once stopped are counted by
        self._halt = threading.Event()  # set by an interrupt: every request under way is cancelled
        self._batches: set[transport.Batch] = set()  # the batches under way, for halt()

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
        return self._all([self._body(self.prompt.replace("{aspect}", q.aspect).replace("{sentence}", q.sentence))
                          for q in queries], self._label)

    def extract(self, sentences: Sequence[str]) -> list[object]:
        return self._all([self._body(self.prompt.replace("{sentence}", s)) for s in sentences],
                         lambda reply: reply["content"])

    def complete(self, bodies: Sequence[dict]) -> list[str | QueryError]:
        """Each whole chat-completions body sent as it is (the rewriter's requests, absa_checks.perturb.rewrite_prompt
        builds them) with this entry's client, concurrency, rate limit, retries, deadline and key: the reply's
        text, or QueryError when that request failed for good. Once the adapter has stopped asking
        (`max_consecutive_failures`), the requests not sent are each a QueryError saying so (`sent` False): the
        answers of the others are returned, never lost to one error for the whole batch."""
        return self._all([dict(body) for body in bodies], lambda reply: reply["content"], stop=False)

    def _all(self, bodies: list[dict], read, stop: bool = True) -> list:
        """Every request body's reply, asked on an event loop in a daemon thread while this thread waits: an
        interrupt here (Ctrl-C, SIGTERM as KeyboardInterrupt) cancels the requests and lets go at once. With
        `stop`, an adapter that stopped asking raises its one message for the whole batch."""
        sdk = transport.import_sdk(self.name)
        batch = transport.Batch()
        outcome: Future = Future()
        worker = threading.Thread(target=self._serve, args=(sdk, bodies, batch, outcome), daemon=True,
                                  name=f"absa-checks openai {self.name}")
        with self._lock:
            self._batches.add(batch)
        worker.start()
        try:
            replies = outcome.result()
        except BaseException:
            self.halt()
            worker.join(2.0)  # the cancelled requests end within moments; never wait longer than this
            raise
        finally:
            with self._lock:
                self._batches.discard(batch)
        if stop and self._stopped:  # one clear message for the whole batch (and every later one)
            raise AdapterError(self._stopped)
        return [reply if isinstance(reply, QueryError) else read(reply) for reply in replies]

    def halt(self) -> None:
        """Stop: every request under way is cancelled (its connection closed, its retry or rate-limit wait
        ended) and nothing more is sent, so the run ends within moments instead of waiting on a server that
        does not answer."""
        self._halt.set()
        with self._lock:
            batches = list(self._batches)
        for batch in batches:
            batch.cancel()

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
        return probs if probs and max(probs, key=probs.__getitem__) == reading.polarity else reading.polarity

    def hide(self, text: str) -> str:
        """A server's text with this entry's key and anything key-shaped hidden (the rewriter's answers)."""
        return self._hide(text)

    def _hide(self, text: str) -> str:
        """A server's text for a message: the key (a server may echo the Authorization header) and anything
        key-shaped hidden (absa_checks.common.redaction)."""
        return redact_text(text.replace(self.key, "***") if self.key else text)

    def _refusal(self, response: Any) -> str:
        """What a server said when refusing a request (an OpenAI-style error's message, at most 400
        characters, hidden as every server text is), or nothing."""
        try:
            said = json.loads(response.content)["error"]["message"]
        except (ValueError, KeyError, TypeError, AttributeError):
            return ""
        if not isinstance(said, str) or not said.strip():
            return ""
        said = " ".join(said.split())
        return f" ({self._hide(said[:400] + ('...' if len(said) > 400 else ''))})"

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
        total = sum(found.values())
        # the polarities' share of the top tokens' mass (the rest is other tokens): probabilities by design,
        # so not the renormalisation of a model's own probabilities that the run counts and shows
        return {label: value / total for label, value in found.items()} if total > 0 else None

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

    def _serve(self, sdk: transport.Sdk, bodies: list[dict], batch: transport.Batch, outcome: Future) -> None:
        """The worker thread: one event loop for this batch."""
        loop = asyncio.new_event_loop()
        try:
            outcome.set_result(loop.run_until_complete(self._ask_all(sdk, bodies, batch)))
        except BaseException as err:  # handed to the waiting thread, which raises it
            outcome.set_exception(err)
        finally:
            loop.close()

    async def _ask_all(self, sdk: transport.Sdk, bodies: list[dict], batch: transport.Batch) -> list:
        gate = asyncio.Semaphore(self.max_concurrency)
        client = transport.client(sdk, self)
        try:
            tasks = [asyncio.ensure_future(self._one(sdk, client, gate, body)) for body in bodies]
            batch.start(asyncio.get_running_loop(), tasks)
            if self._halt.is_set():  # halted before the tasks were known to halt()
                batch.cancel()
            done = await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            await client.close()
        for reply in done:  # a task cancelled before it started; anything else is a bug, raised
            if isinstance(reply, BaseException) and not isinstance(reply, asyncio.CancelledError):
                raise reply
        return [self._not_asked() if isinstance(reply, asyncio.CancelledError) else reply for reply in done]

    async def _one(self, sdk: transport.Sdk, client: Any, gate: asyncio.Semaphore, body: dict) -> dict | QueryError:
        """A reply {content, logprobs}, or QueryError when this request failed for good."""
        try:
            async with gate:
                if self._stopped:
                    return QueryError(self._stopped, self._stopped_reason, sent=False)
                if self._halt.is_set():
                    return self._not_asked()
                try:
                    return await self._ask(sdk, client, body)
                except asyncio.CancelledError:
                    return QueryError(f"model '{self.name}': not answered, the run was interrupted",
                                      "the run was interrupted")
        except asyncio.CancelledError:  # halted while waiting for its turn
            return self._not_asked()

    def _no_text(self, finish_reason: object) -> tuple[str, str]:
        """Why a well-formed chat completion has no text (`content: null`), from its finish_reason: the message
        and the reason counted; asking again would get the same."""
        if finish_reason == "length":
            limit = f" ({self.max_tokens})" if self.max_tokens else ""
            return (f"the answer was cut at max_tokens{limit} before any text (finish_reason length); raise "
                    "max_tokens in the model's entry", "cut at max_tokens before any text")
        if finish_reason == "content_filter":
            return (f"the answer was withheld by the content filter of {self.shown_url} (finish_reason "
                    "content_filter); this query has no answer", "withheld by the content filter")
        return (f"a chat completion with no text (content null, finish_reason {finish_reason!r}) from "
                f"{self.shown_url}; the model must answer in text", f"no text (finish_reason {finish_reason!r})")

    def _not_asked(self) -> QueryError:
        return QueryError(f"model '{self.name}': not asked, the run was interrupted", "not sent: the run was interrupted",
                          sent=False)

    async def _ask(self, sdk: transport.Sdk, client: Any, body: dict) -> dict | QueryError:
        """One chat completion through the SDK (its retries included); the reply was checked whole by the
        HTTP client (transport.http_client), so it is a chat completion here."""
        body = dict(body)  # the caller's body stays as it was
        extra = {key: body.pop(key) for key in ("guided_choice",) if key in body}  # not in the OpenAI API
        openai = sdk.openai
        try:
            raw = await client.chat.completions.with_raw_response.create(**body, extra_body=extra or None)
            choice = raw.http_response.json()["choices"][0]
            self._succeeded()
            if not isinstance(choice["message"]["content"], str):  # a completion without text (transport.is_completion)
                problem, reason = self._no_text(choice.get("finish_reason"))
                return QueryError(f"model '{self.name}': {problem}", reason)
            return {"content": choice["message"]["content"], "logprobs": choice.get("logprobs")}
        except openai.APIStatusError as err:
            problem = f"HTTP {err.status_code} from {self.shown_url}"
            reason = f"HTTP {err.status_code}"
            wait = transport.retry_after(err.response.headers)
            if err.status_code not in RETRY_STATUSES:
                message = f"{problem}{self._refusal(err.response)}; the request was refused, not retried"
            elif wait is not None and wait > MAX_RETRY_AFTER:
                message = (f"{problem} asking to wait {wait:g} s (Retry-After), more than the {MAX_RETRY_AFTER:g} s "
                           "a request waits, so it was not retried; lower requests_per_minute or run later")
            else:
                message = f"{problem}, after {self.retries + 1} tries"
        except openai.APITimeoutError:  # before APIConnectionError, which it is a kind of
            problem = f"no complete reply within timeout {self.timeout:g} s from {self.shown_url}"
            reason = f"no complete reply within timeout {self.timeout:g} s"
            message = f"{problem}, after {self.retries + 1} tries"
        except openai.APIConnectionError as err:
            cause = err.__cause__
            malformed = isinstance(cause, sdk.http.DecodingError)
            problem = (f"a malformed reply from {self.shown_url} (not an OpenAI chat completion)" if malformed else
                       f"{type(cause or err).__name__} talking to {self.shown_url}")
            reason = "a malformed reply (not an OpenAI chat completion)" if malformed else type(cause or err).__name__
            message = f"{problem}, after {self.retries + 1} tries"
        except openai.OpenAIError as err:  # anything else the SDK raises: named, never its text
            problem = f"{type(err).__name__} talking to {self.shown_url}"
            reason = type(err).__name__
            message = problem
        self._failed(problem)
        return QueryError(f"model '{self.name}': {message}", reason)

    # ------------------------------------------------------------------ the retry policy the SDK is given

    def _should_retry(self, status: int, headers: Any) -> bool:
        """A reply worth asking again: a status of RETRY_STATUSES, unless its Retry-After is too long to wait."""
        wait = transport.retry_after(headers)
        return status in RETRY_STATUSES and not (wait is not None and wait > MAX_RETRY_AFTER)

    def _wait_before_retry(self, retried: int, headers: Any) -> float:
        """Seconds before the next try after `retried` retries: the reply's Retry-After (at most
        MAX_RETRY_AFTER, see _should_retry), else `backoff` doubling, at most MAX_BACKOFF, times a seeded
        jitter in [0.5, 1)."""
        wait = transport.retry_after(headers)
        if wait is not None and wait <= MAX_RETRY_AFTER:
            return wait
        with self._lock:
            jitter = 0.5 + self._jitter.random() / 2
        return min(MAX_BACKOFF, self.backoff * 2.0 ** min(retried, 64)) * jitter

    # ------------------------------------------------------------------ what the HTTP client adds per try

    async def _start_try(self) -> None:
        """Wait for this try's `requests_per_minute` slot (every try counts, retries included), then count it."""
        if self.interval:
            with self._lock:
                slot = max(time.monotonic(), self._next_slot)
                self._next_slot = slot + self.interval
            await asyncio.sleep(max(0.0, slot - time.monotonic()))
        with self._lock:
            self.requests += 1

    def _succeeded(self) -> None:
        with self._lock:
            self._failures_in_a_row = 0

    def _failed(self, problem: str) -> None:
        with self._lock:
            self._failures_in_a_row += 1
            if self._failures_in_a_row >= self.max_consecutive_failures and not self._stopped:
                self._stopped_reason = (f"not sent: stopped after {self._failures_in_a_row} failed requests in a row "
                                        "(max_consecutive_failures)")
                self._stopped = (f"model '{self.name}': stopped after {self._failures_in_a_row} failed requests in a "
                                 f"row (the last: {problem}); check the server at {self.shown_base_url}")


def _build(spec) -> OpenAIAdapter:
    settings = {key: value for key, value in spec.settings.items() if key != "kind"}
    given = settings.get("api_key_env")
    via = [variable for variable, value in spec.from_env if isinstance(given, str) and value == given]
    named = isinstance(given, str) and checks.ENV_NAME.fullmatch(given.strip()) and os.environ.get(given.strip())
    if via and isinstance(given, str) and not named:
        # `api_key_env: ${MYK}` hands over MYK's value (the key itself), not the variable's name
        raise AdapterError(f"model '{spec.name}': api_key_env names the variable that holds the key, it does not "
                           f"take its value: write api_key_env: {via[0]}, not api_key_env: ${{{via[0]}}}")
    return OpenAIAdapter(spec.name, str(settings.pop("base_url")), str(settings.pop("model")), **settings)


KEYS = ("base_url", "model", "mode", "prompt", "api_key_env", "guided", "logprobs", "max_concurrency", "timeout",
        "retries", "requests_per_minute", "max_consecutive_failures", "temperature", "seed", "max_tokens", "backoff")
# Registered in pyproject.toml under the entry-point group absa_checks.adapters
KIND = AdapterKind("openai", keys=KEYS, required=("base_url", "model"), build=_build, needs=("openai",),
                   extra="openai")
