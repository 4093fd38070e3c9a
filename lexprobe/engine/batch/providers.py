"""Each provider's batch endpoints through its official SDK: build the entries, create, find again (OpenAI by the local
id in the batch's metadata; Anthropic, which has none, by its count and creation time, verified by the custom ids of
its results: docs/scale.md, "Provider batch APIs"), poll, read results, and turn a result into the same `Response` the
synchronous backend would have stored.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from lexprobe.models.errors import ModelConfigError, ModelError
from lexprobe.models.pricing import Price, batch_price, cost_usd
from lexprobe.models.spec import ModelSpec, parse_model_spec
from lexprobe.models.types import Request, Response, Usage

#: Backends whose requests `--batch` sends through a batch API.
BATCH_BACKENDS = ("openai", "openai-compatible", "anthropic")
#: Batches created this long before their intent was written still count as candidates when one is found again
#: (clock skew between this machine and the provider).
FIND_SLACK_S = 600.0


@dataclass(frozen=True)
class BatchPoll:
    """What the provider says of a batch: its status, whether it has ended, (succeeded, failed) counts so far, and
    a note (a batch cancelled by hand, a batch that failed validation)."""

    status: str
    ended: bool
    counts: tuple[int, int]
    note: str = ""
    raw: Any = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ItemResult:
    """One request's outcome in a batch: `succeeded` with the provider's payload (its JSON, checked when it is
    read: `response`), or `errored` / `expired` / `canceled` with a reason; `where` names its line ("line 3 of file
    file-abc"). A line that is not a result is `errored` ("unreadable result line N of ..."), under its custom id
    when that can still be read, else under the empty custom id: the runner then counts it against the batch's
    items that have no result."""

    custom_id: str
    outcome: str
    payload: Any = None
    reason: str | None = None
    where: str = ""


class BatchProvider:
    """The batch API of one model spec. Subclasses implement the provider's calls."""

    max_requests: int = 50_000
    max_bytes: int = 200 * 1024 * 1024

    client: Any  # the SDK's async client

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.price: Price | None = batch_price(spec.backend, spec.name)

    def entry(self, custom_id: str, request: Request) -> dict[str, Any]:
        """Return the provider's batch entry for one request."""
        raise NotImplementedError

    async def submit(self, local_id: str, entries: list[dict[str, Any]]) -> tuple[str, str]:
        """Create a batch of `entries`; return (provider batch id, its status)."""
        raise NotImplementedError

    async def find(self, local_id: str, created_after: float, count: int, known: set[str]) -> str | None:
        """Return the provider id of the batch created for `local_id` when the provider has it, else None."""
        raise NotImplementedError

    async def poll(self, provider_id: str) -> BatchPoll:
        """Return the batch's current status."""
        raise NotImplementedError

    def results(self, provider_id: str, poll: BatchPoll) -> AsyncIterator[ItemResult]:
        """Yield the outcome of every request the ended batch reports (in the provider's order)."""
        raise NotImplementedError

    def response(self, payload: Any, request: Request, latency_s: float) -> Response:
        """Return the `Response` of one succeeded item, priced at the batch price."""
        raise NotImplementedError

    def classify(self, exc: Exception) -> ModelError:
        """Map an SDK exception onto a retryable or a final lexprobe error."""
        return ModelError(f"{type(exc).__name__}: {exc}")

    async def aclose(self) -> None:
        """Close the SDK client."""
        await self.client.close()

    def _response(
        self, text: str, calls: tuple, finish: Any, usage: Usage, latency_s: float, served_by: str | None
    ) -> Response:
        """The same `Response` as `base.finished_response`, with the cost at the batch price."""
        return Response(
            text=text,
            tool_calls=calls,
            finish_reason=finish,
            usage=usage,
            latency_s=latency_s,
            cost_usd=cost_usd(self.price, usage),
            model=served_by or self.spec.name,
        )


class OpenAIBatches(BatchProvider):
    """`openai/MODEL` and `openai-compatible/MODEL@URL`: the Batch API (files + batches), at the default limits."""

    terminal = frozenset({"completed", "expired", "cancelled", "failed"})

    def __init__(self, spec: ModelSpec) -> None:
        import openai

        super().__init__(spec)
        self.hosted = spec.backend == "openai"
        base_url = spec.base_url if not self.hosted else os.environ.get("OPENAI_BASE_URL") or None
        api_key = os.environ.get("OPENAI_API_KEY") or ("not-needed" if not self.hosted else None)
        # the SDK retries a failed call twice; after that the runner tries again at the next poll
        self.client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=2)

    def entry(self, custom_id: str, request: Request) -> dict[str, Any]:
        """A line of the batch input file: the same body the synchronous backend posts."""
        from lexprobe.models.openai_chat import build_openai_params

        body = build_openai_params(request, self.spec.name, hosted=self.hosted)
        return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}

    async def submit(self, local_id: str, entries: list[dict[str, Any]]) -> tuple[str, str]:
        """Upload the JSONL input file, then create the batch naming the local id in its metadata."""
        data = "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in entries).encode()
        upload = await self.client.files.create(file=(f"{local_id}.jsonl", data, "application/jsonl"), purpose="batch")
        batch = await self.client.batches.create(
            input_file_id=upload.id,
            endpoint="/v1/chat/completions",
            completion_window="24h",
            metadata={"lexprobe_batch": local_id},
        )
        return batch.id, batch.status

    async def find(self, local_id: str, created_after: float, count: int, known: set[str]) -> str | None:
        """The batch whose metadata names `local_id` (the list is newest first: stop at older ones)."""
        async for batch in self.client.batches.list(limit=100):
            if batch.created_at < created_after - FIND_SLACK_S:
                return None
            if (batch.metadata or {}).get("lexprobe_batch") == local_id:
                return batch.id
        return None

    async def poll(self, provider_id: str) -> BatchPoll:
        """`batches.retrieve`: validating / in_progress / finalizing / completed / expired / cancelling /
        cancelled / failed."""
        batch = await self.client.batches.retrieve(provider_id)
        counts = batch.request_counts
        done = (counts.completed, counts.failed) if counts is not None else (0, 0)
        note = ""
        if batch.status in ("cancelling", "cancelled"):
            note = "cancelled by hand (lexprobe never cancels a batch)"
        elif batch.status == "failed":
            errors = [error.message or error.code or "" for error in (batch.errors.data or [])] if batch.errors else []
            note = "failed: " + ("; ".join(e for e in errors if e) or "no reason given")
        elif batch.status == "expired":
            note = "expired: the 24 h window ended"
        return BatchPoll(batch.status, batch.status in self.terminal, done, note, batch)

    async def results(self, provider_id: str, poll: BatchPoll) -> AsyncIterator[ItemResult]:
        """Every line of the output file and the error file (a line that is not a result is that item's error)."""
        batch = poll.raw
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await self.client.files.content(file_id)
            for number, line in enumerate(content.content.split(b"\n"), 1):
                if line.strip():
                    yield _openai_line(line, f"line {number} of file {file_id}")

    def response(self, payload: Any, request: Request, latency_s: float) -> Response:
        """Parse the `ChatCompletion` body as the synchronous backend does (its shape checked first:
        `answer_shape.chat_completion`)."""
        from lexprobe.models.answer_shape import chat_completion
        from lexprobe.models.openai_chat import parse_openai_completion

        completion = chat_completion(payload, "the result")
        text, calls, finish, usage = parse_openai_completion(completion)
        return self._response(text, calls, finish, usage, latency_s, completion.model)

    def classify(self, exc: Exception) -> ModelError:
        """`openai_chat.classify_openai_error`."""
        from lexprobe.models.openai_chat import classify_openai_error

        return classify_openai_error(exc)


def _openai_line(text: bytes, where: str) -> ItemResult:
    """One line of an OpenAI output or error file; a line that is not a result object is that item's error."""
    line = _json_object(text)
    custom = line.get("custom_id") if line is not None else None
    if line is None or not isinstance(custom, str) or not custom:
        return ItemResult(_readable_custom_id(text), "errored", None, f"unreadable result {where}", where)
    response = line.get("response")
    response = response if isinstance(response, dict) else {}
    status = response.get("status_code")
    body = response.get("body")
    if status == 200 and isinstance(body, dict):
        return ItemResult(custom, "succeeded", body, None, where)
    error = line.get("error") or (body.get("error") if isinstance(body, dict) else None) or {}
    error = error if isinstance(error, dict) else {"message": str(error)}
    code = str(error.get("code") or "")
    outcome = {"batch_expired": "expired", "batch_cancelled": "canceled"}.get(code, "errored")
    reason = str(error.get("message") or code or (f"HTTP {status}" if status else "no reason given"))
    return ItemResult(custom, outcome, None, f"{code}: {reason}" if code and code not in reason else reason, where)


def _anthropic_line(text: bytes, where: str) -> ItemResult:
    """One line of an Anthropic results stream; a line that is not a result object is that item's error."""
    line = _json_object(text)
    custom = line.get("custom_id") if line is not None else None
    result = line.get("result") if line is not None else None
    if not isinstance(custom, str) or not custom or not isinstance(result, dict):
        readable = custom if isinstance(custom, str) else _readable_custom_id(text)
        return ItemResult(readable, "errored", None, f"unreadable result {where}", where)
    kind = result.get("type")
    if kind == "succeeded":
        return ItemResult(custom, "succeeded", result.get("message"), None, where)
    if kind in ("canceled", "expired"):
        return ItemResult(custom, kind, None, kind, where)
    error = result.get("error")
    inner = error.get("error") if isinstance(error, dict) else None
    if kind == "errored" and isinstance(inner, dict):
        return ItemResult(custom, "errored", None, f"{inner.get('type')}: {inner.get('message')}", where)
    return ItemResult(custom, "errored", None, f"unreadable result {where} (result type {kind!r})", where)


def _json_object(text: bytes) -> dict[str, Any] | None:
    """The JSON object on a line, or None when the line is not one."""
    try:
        value = json.loads(text)
    except ValueError:  # not JSON, or not UTF-8
        return None
    return value if isinstance(value, dict) else None


#: A custom id as lexprobe writes them (`ledger.custom_id`), found in a line that is not JSON.
_CUSTOM_ID = re.compile(rb'"custom_id"\s*:\s*"([A-Za-z0-9_-]{1,64})"')


def _readable_custom_id(text: bytes) -> str:
    """The custom id named in a broken line, or "" when none can be read."""
    found = _CUSTOM_ID.search(text)
    return found.group(1).decode() if found else ""


async def _byte_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """The lines of a byte stream, split at newlines only (a JSON string may hold U+2028, which `splitlines` would
    split), in time linear in the stream however long a line is."""
    pending: list[bytes] = []
    async for chunk in chunks:
        parts = chunk.split(b"\n")
        if len(parts) == 1:
            pending.append(chunk)
            continue
        yield b"".join([*pending, parts[0]])
        for line in parts[1:-1]:
            yield line
        pending = [parts[-1]]
    if any(pending):
        yield b"".join(pending)


class AnthropicBatches(BatchProvider):
    """`anthropic/MODEL`: Message Batches."""

    max_requests = 100_000
    max_bytes = 256 * 1024 * 1024

    def __init__(self, spec: ModelSpec) -> None:
        import anthropic

        super().__init__(spec)
        self.client = anthropic.AsyncAnthropic(max_retries=2)  # then the runner tries again at the next poll

    def entry(self, custom_id: str, request: Request) -> dict[str, Any]:
        """`{"custom_id", "params"}`, the params those of the synchronous call (temperature in the body)."""
        from lexprobe.models.anthropic_messages import build_anthropic_params

        params = build_anthropic_params(request, self.spec.name)
        params |= params.pop("extra_body", {})
        return {"custom_id": custom_id, "params": params}

    async def submit(self, local_id: str, entries: list[dict[str, Any]]) -> tuple[str, str]:
        """`messages.batches.create`."""
        batch = await self.client.messages.batches.create(requests=entries)  # type: ignore[arg-type]
        return batch.id, batch.processing_status

    async def find(self, local_id: str, created_after: float, count: int, known: set[str]) -> str | None:
        """A batch created since the intent, of `count` requests, that no other local batch holds (the rule of
        docs/scale.md)."""
        found: list[tuple[float, str]] = []
        async for batch in self.client.messages.batches.list(limit=100):
            created = batch.created_at.timestamp()
            if created < created_after - FIND_SLACK_S:
                break
            counts = batch.request_counts
            total = counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired
            if total == count and batch.id not in known:
                found.append((abs(created - created_after), batch.id))
        return min(found)[1] if found else None

    async def poll(self, provider_id: str) -> BatchPoll:
        """`messages.batches.retrieve`: in_progress / canceling / ended."""
        batch = await self.client.messages.batches.retrieve(provider_id)
        counts = batch.request_counts
        failed = counts.errored + counts.canceled + counts.expired
        note = "cancelled by hand (lexprobe never cancels a batch)" if batch.cancel_initiated_at else ""
        return BatchPoll(batch.processing_status, batch.processing_status == "ended", (counts.succeeded, failed),
                         note, batch)  # fmt: skip

    async def results(self, provider_id: str, poll: BatchPoll) -> AsyncIterator[ItemResult]:
        """`messages.batches.results`: succeeded / errored / canceled / expired. The stream's lines are read here
        (not by the SDK's decoder, which stops at the first line that is not JSON), so a line that is not a result
        is that item's error."""
        decoder = await self.client.messages.batches.results(provider_id)
        try:
            number = 0
            async for line in _byte_lines(decoder.http_response.aiter_bytes()):
                number += 1
                if line.strip():
                    yield _anthropic_line(line, f"line {number} of the results of batch {provider_id}")
        finally:
            await decoder.close()

    def response(self, payload: Any, request: Request, latency_s: float) -> Response:
        """Parse the `Message` as the synchronous backend does (its shape checked first:
        `answer_shape.anthropic_message`)."""
        from lexprobe.models.answer_shape import anthropic_message
        from lexprobe.models.anthropic_messages import parse_anthropic_message

        message = anthropic_message(payload, "the result")
        text, calls, finish, usage = parse_anthropic_message(message, structured=request.schema_ is not None)
        return self._response(text, calls, finish, usage, latency_s, message.model)

    def classify(self, exc: Exception) -> ModelError:
        """`anthropic_messages.classify_anthropic_error`."""
        from lexprobe.models.anthropic_messages import classify_anthropic_error

        return classify_anthropic_error(exc)


def batchable(spec: str) -> bool:
    """True when `spec` names a model whose requests `--batch` sends through a batch API."""
    try:
        return parse_model_spec(spec).backend in BATCH_BACKENDS
    except ModelConfigError:
        return False


def open_provider(spec: str) -> BatchProvider:
    """Return the batch API of `spec` (a `batchable` one)."""
    parsed = parse_model_spec(spec)
    if parsed.backend == "anthropic":
        return AnthropicBatches(parsed)
    if parsed.backend in ("openai", "openai-compatible"):
        return OpenAIBatches(parsed)
    raise ModelError(f"{spec} has no batch API")


def entry_bytes(entry: dict[str, Any]) -> int:
    """The bytes an entry takes in the batch input."""
    return len(json.dumps(entry, ensure_ascii=False).encode())


def split_batches(sizes: list[int], max_requests: int, max_bytes: int, separator: int = 1) -> list[range]:
    """Split entries of the given byte sizes, in order, into consecutive batches of at most `max_requests` entries
    and `max_bytes` bytes (each entry plus `separator`); an entry larger than `max_bytes` alone raises
    `ModelError`."""
    batches: list[range] = []
    start, used = 0, 0
    for index, size in enumerate(sizes):
        cost = size + separator
        if cost > max_bytes:
            raise ModelError(f"request {index} takes {size:,} bytes, more than a batch may hold ({max_bytes:,})")
        if index > start and (index - start >= max_requests or used + cost > max_bytes):
            batches.append(range(start, index))
            start, used = index, 0
        used += cost
    if start < len(sizes):
        batches.append(range(start, len(sizes)))
    return batches
