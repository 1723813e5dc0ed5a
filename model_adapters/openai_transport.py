"""The openai SDK under an OpenAIAdapter (model_adapters.openai_adapter): the SDK imported when a batch is first
asked for (`import_sdk`), one batch's event loop and tasks (`Batch`, cancelled from any thread), the client whose
two retry hooks call the adapter's policy (`client`), the HTTP client that sends our key only, waits for the
rate-limit slot and reads a reply whole within the deadline (`http_client`), and a reply's Retry-After read
(`retry_after`).
"""

from __future__ import annotations

import asyncio
import email.utils
import importlib
import json
import math
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from absa_checks.common.errors import AdapterError

if TYPE_CHECKING:  # only named in annotations: openai_adapter imports this module
    from model_adapters.openai_adapter import OpenAIAdapter

INSTALL = "pip install -e '.[openai]' in a checkout, or pip install 'absa-checks[openai]'"


def retry_after(headers: Any) -> float | None:
    """Seconds a reply's Retry-After header asks for (a number of seconds or an HTTP date; at least 0,
    inf for an endless wait); None without a readable one."""
    value = headers.get("retry-after") if headers is not None else None
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        date = email.utils.parsedate_tz(value)
        if date is None:
            return None
        try:
            seconds = email.utils.mktime_tz(date) - time.time()
        except (OverflowError, ValueError, OSError):
            return None
    return None if math.isnan(seconds) else max(0.0, seconds)


class Sdk:
    """The openai SDK and the HTTP library it is built on (httpx for openai 1.x, httpx2 later), imported
    when a batch is first asked for: the module can be listed and its settings checked without them."""

    def __init__(self, openai: Any):
        self.openai = openai
        base = next(c for c in openai.DefaultAsyncHttpxClient.__mro__ if c.__name__ == "AsyncClient")
        self.http = importlib.import_module(base.__module__.split(".")[0])


def import_sdk(name: str) -> Sdk:
    try:
        return Sdk(importlib.import_module("openai"))
    except ImportError as err:  # check_installed said it was there: a broken installation
        raise AdapterError(f"model '{name}' (kind openai) needs the openai SDK, which cannot be imported here "
                           f"({type(err).__name__}); {INSTALL}") from None


class Batch:
    """One predict()/extract() call's event loop and request tasks, which halt() cancels from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: Sequence[asyncio.Future] = []

    def start(self, loop: asyncio.AbstractEventLoop, tasks: Sequence[asyncio.Future]) -> None:
        with self._lock:
            self._loop, self._tasks = loop, tasks

    def cancel(self) -> None:
        with self._lock:
            loop, tasks = self._loop, list(self._tasks)
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(lambda: [task.cancel() for task in tasks])
        except RuntimeError:  # the loop has closed: the batch is over
            pass


def client(sdk: Sdk, adapter: OpenAIAdapter) -> Any:
    """An AsyncOpenAI client for one batch: the SDK's retries (`retries` of them) with our policy in its two
    retry hooks, over http_client (which sets the Authorization header: the api_key given here is not sent)."""
    base: Any = sdk.openai.AsyncOpenAI  # the SDK is imported when first needed (Sdk): its types are not known

    class Client(base):
        def _should_retry(self, response: Any) -> bool:
            return adapter._should_retry(response.status_code, response.headers)

        def _calculate_retry_timeout(self, remaining_retries: int, options: Any, response_headers: Any = None) -> float:
            return adapter._wait_before_retry(self.max_retries - remaining_retries, response_headers)

    return Client(api_key=adapter.key or "unused", base_url=adapter.base_url, max_retries=adapter.retries,
                  timeout=adapter.timeout, http_client=http_client(sdk, adapter))


def http_client(sdk: Sdk, adapter: OpenAIAdapter) -> Any:
    """The SDK's default async HTTP client, whose send() is one try: it carries our key and nothing the SDK
    took from its environment, waits for its rate-limit slot, and is read whole within `timeout` seconds
    (the per-read time-outs cannot cut off a server trickling its reply); a 2xx reply must be a chat
    completion. A passed deadline is the HTTP library's ReadTimeout and a malformed reply its DecodingError:
    errors the SDK retries like any other."""
    http = sdk.http
    base: Any = sdk.openai.DefaultAsyncHttpxClient  # imported when first needed (Sdk)

    class Client(base):
        async def send(self, request: Any, **kwargs: Any) -> Any:
            for name in ("Authorization", "OpenAI-Organization", "OpenAI-Project"):  # what the SDK may add
                if name in request.headers:  # from OPENAI_* variables: not this entry's to send
                    del request.headers[name]
            if adapter.key:
                request.headers["Authorization"] = f"Bearer {adapter.key}"
            await adapter._start_try()
            try:
                return await asyncio.wait_for(self._whole(request, **kwargs), adapter.timeout)
            except asyncio.TimeoutError:
                raise http.ReadTimeout(f"no complete reply within timeout {adapter.timeout:g} s",
                                       request=request) from None

        async def _whole(self, request: Any, **kwargs: Any) -> Any:
            response = await super().send(request, **kwargs)
            try:
                await response.aread()
            finally:
                await response.aclose()
            if response.is_success and not is_completion(response.content):
                raise http.DecodingError("not an OpenAI chat completion", request=request)
            return response

    return Client(timeout=adapter.timeout)


def is_completion(data: bytes) -> bool:
    """A chat completion: {"choices": [{"message": {"content": "..."}}, ...]}, or one whose content is null with
    the reason it has no text ("finish_reason": "length", "content_filter"; told by OpenAIAdapter._no_text)."""
    try:
        choice = json.loads(data)["choices"][0]
        content = choice["message"]["content"]
        return isinstance(content, str) or (content is None and isinstance(choice.get("finish_reason"), str))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return False
