"""A small HTTP server for the batch tests: the chat, file, batch and result endpoints of OpenAI and the messages and
message-batch endpoints of Anthropic, with their real status values, on 127.0.0.1 (Starlette + uvicorn, in a thread).

Every request is answered by one rule (`answer_for`), synchronously or in a batch alike, so a batched run and a
synchronous one must store the same answers. A batch moves one status further on each retrieve (OpenAI validating ->
in_progress -> finalizing -> completed, or cancelling -> cancelled; Anthropic in_progress (-> canceling) -> ended),
stays in progress while `hold` is set, and can be scripted: `faults` (outcomes for the items of the next batch to
end, in input order: "ok", "errored", "expired", "canceled"; every later batch too with `sticky_faults`),
`expire_next` (the next batch expires: its second half unanswered), `cancel_next` (the next batch is cancelled by
hand), `failed_next` (OpenAI: the next batch fails validation), `content_errors` (result downloads answered 503
first), `mangle` (result lines of the next batch to end that are not what they should be, by input index:
"garbled" a line cut in half, its custom id still readable; "no_id" a line of garbage; "wrong_shape" a succeeded
result whose answer is not a chat completion / Messages answer; "duplicate" the line again at the end of the results,
with another answer). Results come in reverse input order. `submitted` records every item of every batch created:
(provider, custom id, body).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from datetime import UTC, datetime
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


def answer_for(body: dict[str, Any]) -> str:
    """The one answer rule: "Yes" or "No" by a hash of the messages (and seed), so answers vary but never change."""
    key = json.dumps([body.get("messages"), body.get("system"), body.get("seed")], sort_keys=True)
    return "Yes" if hashlib.sha256(key.encode()).digest()[0] % 3 else "No"


def _tokens(body: dict[str, Any]) -> int:
    return max(1, len(json.dumps(body.get("messages", ""))) // 4)


def completion(body: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """A Chat Completions answer."""
    prompt = _tokens(body)
    return {
        "id": f"chatcmpl-{index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "m"),
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": answer_for(body)}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": 1, "total_tokens": prompt + 1},
    }


def message(body: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """An Anthropic Messages answer."""
    return {
        "id": f"msg_{index}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "m"),
        "content": [{"type": "text", "text": answer_for(body)}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": _tokens(body), "output_tokens": 1},
    }


def _iso(at: float | None) -> str | None:
    return None if at is None else datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")


class BatchProviderServer:
    """The server and its script; `url` is http://127.0.0.1:PORT once `start` returned."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}  # id -> state (both providers)
        self.submitted: list[tuple[str, str, str]] = []
        self.sync_calls = 0
        self.hold = False
        self.hold_polls = 1
        self.faults: list[str] = []
        self.sticky_faults = False  # keep `faults` for every later batch too
        self.expire_next = self.cancel_next = self.failed_next = False
        self.content_errors = 0  # answer this many result-file downloads with a 503 first
        self.mangle: dict[int, str] = {}  # input index -> how its result line is spoiled (next batch to end)
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None
        self.url = ""

    # -- lifecycle -------------------------------------------------------------------------------------------------

    def start(self) -> BatchProviderServer:
        """Serve on a free loopback port in a daemon thread."""
        routes = [
            Route("/v1/chat/completions", self.chat, methods=["POST"]),
            Route("/v1/files", self.upload, methods=["POST"]),
            Route("/v1/files/{file_id}/content", self.file_content, methods=["GET"]),
            Route("/v1/batches", self.openai_create, methods=["POST"]),
            Route("/v1/batches", self.openai_list, methods=["GET"]),
            Route("/v1/batches/{batch_id}", self.openai_retrieve, methods=["GET"]),
            Route("/v1/messages", self.messages, methods=["POST"]),
            Route("/v1/messages/batches", self.anthropic_create, methods=["POST"]),
            Route("/v1/messages/batches", self.anthropic_list, methods=["GET"]),
            Route("/v1/messages/batches/{batch_id}", self.anthropic_retrieve, methods=["GET"]),
            Route("/v1/messages/batches/{batch_id}/results", self.anthropic_results, methods=["GET"]),
        ]
        config = uvicorn.Config(Starlette(routes=routes), host="127.0.0.1", port=0, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not (self.server.started and self.server.servers):
            if time.monotonic() > deadline:
                raise RuntimeError("the batch provider server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=10)

    def reset(self) -> None:
        """Forget the script (not the batches)."""
        with self.lock:
            self.hold, self.hold_polls, self.faults, self.sticky_faults = False, 1, [], False
            self.expire_next = self.cancel_next = self.failed_next = False
            self.content_errors = 0
            self.mangle = {}

    # -- synchronous calls -----------------------------------------------------------------------------------------

    async def chat(self, request: Request) -> JSONResponse:
        self.sync_calls += 1
        return JSONResponse(completion(await request.json(), self.sync_calls))

    async def messages(self, request: Request) -> JSONResponse:
        self.sync_calls += 1
        return JSONResponse(message(await request.json(), self.sync_calls))

    # -- batches, both providers -----------------------------------------------------------------------------------

    def _new_batch(self, provider: str, items: list[tuple[str, dict[str, Any]]], metadata: Any) -> dict[str, Any]:
        with self.lock:
            prefix = "batch_" if provider == "openai" else "msgbatch_"
            batch_id = f"{prefix}{len(self.batches) + 1:04d}"
            for custom_id, body in items:
                self.submitted.append((provider, custom_id, json.dumps(body, sort_keys=True)))
            state = {"id": batch_id, "provider": provider, "items": items, "metadata": metadata, "polls": 0,
                     "created_at": time.time(), "ended_at": None, "outcomes": None, "note": None}  # fmt: skip
            self.batches[batch_id] = state
            return state

    def _advance(self, state: dict[str, Any]) -> None:
        """One status further (called on each retrieve); at the end, fix every item's outcome from the script."""
        with self.lock:
            if state["outcomes"] is not None or self.hold:
                return
            state["polls"] += 1
            if state["polls"] <= self.hold_polls:
                return
            count = len(state["items"])
            outcomes = ["ok"] * count
            if self.faults:
                outcomes = [(self.faults[i] if i < len(self.faults) else "ok") for i in range(count)]
                self.faults = self.faults if self.sticky_faults else []
            note = None
            if self.expire_next:
                self.expire_next, note = False, "expired"
                outcomes = [o if i < count // 2 else "expired" for i, o in enumerate(outcomes)]
            elif self.cancel_next:
                self.cancel_next, note = False, "cancelled"
                outcomes = [o if i < count // 2 else "canceled" for i, o in enumerate(outcomes)]
            elif self.failed_next and state["provider"] == "openai":
                self.failed_next, note = False, "failed"
            state["outcomes"], state["note"], state["ended_at"] = outcomes, note, time.time()
            state["mangle"], self.mangle = self.mangle, {}

    # -- OpenAI ----------------------------------------------------------------------------------------------------

    async def upload(self, request: Request) -> JSONResponse:
        raw = await request.body()
        head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
        form = BytesParser(policy=HTTP).parsebytes(head + raw)
        data = b""
        for part in form.iter_parts():
            if part.get_param("name", header="content-disposition") == "file":
                data = part.get_payload(decode=True) or b""
        with self.lock:
            file_id = f"file-{len(self.files) + 1:04d}"
            self.files[file_id] = data
        return JSONResponse({"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                             "filename": "input.jsonl", "purpose": "batch", "status": "processed"})  # fmt: skip

    async def file_content(self, request: Request) -> Response:
        if self.content_errors:
            self.content_errors -= 1
            return JSONResponse({"error": {"message": "scripted outage", "type": "server_error"}}, 503)
        return Response(self.files[request.path_params["file_id"]], media_type="application/octet-stream")

    async def openai_create(self, request: Request) -> JSONResponse:
        body = await request.json()
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].decode().splitlines() if line.strip()]
        assert body["endpoint"] == "/v1/chat/completions" and body["completion_window"] == "24h", body
        state = self._new_batch("openai", [(line["custom_id"], line["body"]) for line in lines], body.get("metadata"))
        state["input_file_id"] = body["input_file_id"]
        return JSONResponse(self._openai_view(state))

    def _openai_view(self, state: dict[str, Any]) -> dict[str, Any]:
        outcomes, count = state["outcomes"], len(state["items"])
        if outcomes is None:
            status = "validating" if state["polls"] == 0 else "in_progress"
        else:
            status = {"expired": "expired", "cancelled": "cancelled", "failed": "failed"}.get(state["note"] or "",
                                                                                              "completed")  # fmt: skip
        view = {
            "id": state["id"], "object": "batch", "endpoint": "/v1/chat/completions", "completion_window": "24h",
            "input_file_id": state.get("input_file_id", ""), "status": status, "created_at": int(state["created_at"]),
            "metadata": state["metadata"],
            "request_counts": {"total": count, "completed": 0, "failed": 0},
        }  # fmt: skip
        if outcomes is not None and status != "failed":
            ok = sum(1 for o in outcomes if o == "ok")
            view["request_counts"] = {"total": count, "completed": ok, "failed": count - ok}
            view["output_file_id"], view["error_file_id"] = self._openai_files(state)
        if status == "failed":
            view["errors"] = {"object": "list", "data": [{"code": "invalid_request", "message": "scripted failure"}]}
        return view

    def _openai_files(self, state: dict[str, Any]) -> tuple[str | None, str | None]:
        if "output_file_id" in state:
            return state["output_file_id"], state["error_file_id"]
        good, bad, again = [], [], []
        for index, ((custom_id, body), outcome) in enumerate(zip(state["items"], state["outcomes"], strict=True)):
            line: dict[str, Any] = {"id": f"batch_req_{index}", "custom_id": custom_id}
            if outcome == "ok":
                answer = completion(body, index)
                how = state["mangle"].get(index)
                if how == "wrong_shape":
                    answer = {"id": answer["id"], "choices": "nope"}
                elif how == "duplicate":
                    other = answer | {
                        "choices": [answer["choices"][0] | {"message": {"role": "assistant", "content": "Maybe"}}]
                    }
                    again.append(line | {"response": {"status_code": 200, "body": other}, "error": None})
                line |= {"response": {"status_code": 200, "request_id": f"req_{index}", "body": answer}, "error": None}
                line = _spoiled(line, how)
                good.append(line)
            elif outcome == "errored":
                error = {"error": {"message": "scripted server error", "type": "server_error", "code": "server_error"}}
                line |= {"response": {"status_code": 500, "request_id": f"req_{index}", "body": error}, "error": None}
                bad.append(line)
            else:
                code = "batch_expired" if outcome == "expired" else "batch_cancelled"
                line |= {"response": None, "error": {"code": code, "message": f"This request was {outcome}."}}
                bad.append(line)
        ids: list[str | None] = []
        for lines in (good[::-1] + again, bad[::-1]):  # another order than the input
            if not lines:
                ids.append(None)
                continue
            with self.lock:
                file_id = f"file-{len(self.files) + 1:04d}"
                self.files[file_id] = "".join(_line_text(line) + "\n" for line in lines).encode()
            ids.append(file_id)
        state["output_file_id"], state["error_file_id"] = ids
        return ids[0], ids[1]

    async def openai_retrieve(self, request: Request) -> JSONResponse:
        state = self.batches.get(request.path_params["batch_id"])
        if state is None or state["provider"] != "openai":
            return JSONResponse({"error": {"message": "no such batch", "type": "invalid_request_error"}}, 404)
        self._advance(state)
        view = self._openai_view(state)
        step = {"completed": "finalizing", "cancelled": "cancelling"}.get(view["status"])
        if step and not state.get("stepped"):  # one retrieve in the status before the last
            state["stepped"] = True
            view = {key: value for key, value in view.items() if key not in ("output_file_id", "error_file_id")}
            view["status"] = step
        return JSONResponse(view)

    async def openai_list(self, request: Request) -> JSONResponse:
        views = [self._openai_view(s) for s in reversed(list(self.batches.values())) if s["provider"] == "openai"]
        return JSONResponse({"object": "list", "data": views, "has_more": False,
                             "first_id": views[0]["id"] if views else None,
                             "last_id": views[-1]["id"] if views else None})  # fmt: skip

    # -- Anthropic -------------------------------------------------------------------------------------------------

    async def anthropic_create(self, request: Request) -> JSONResponse:
        body = await request.json()
        state = self._new_batch("anthropic", [(item["custom_id"], item["params"]) for item in body["requests"]], None)
        return JSONResponse(self._anthropic_view(state))

    def _anthropic_view(self, state: dict[str, Any]) -> dict[str, Any]:
        outcomes, count = state["outcomes"], len(state["items"])
        counts = {"processing": count, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if outcomes is not None:
            counts = {"processing": 0, "succeeded": outcomes.count("ok"), "errored": outcomes.count("errored"),
                      "canceled": outcomes.count("canceled"), "expired": outcomes.count("expired")}  # fmt: skip
        return {
            "id": state["id"], "type": "message_batch",
            "processing_status": "in_progress" if outcomes is None else "ended",
            "request_counts": counts, "created_at": _iso(state["created_at"]), "ended_at": _iso(state["ended_at"]),
            "expires_at": _iso(state["created_at"] + 86400), "archived_at": None,
            "cancel_initiated_at": _iso(state["ended_at"]) if state["note"] == "cancelled" else None,
            "results_url": f"{self.url}/v1/messages/batches/{state['id']}/results" if outcomes is not None else None,
        }  # fmt: skip

    async def anthropic_retrieve(self, request: Request) -> JSONResponse:
        state = self.batches.get(request.path_params["batch_id"])
        if state is None or state["provider"] != "anthropic":
            return JSONResponse(
                {"type": "error", "error": {"type": "not_found_error", "message": "no such batch"}}, 404
            )
        self._advance(state)
        view = self._anthropic_view(state)
        if state["note"] == "cancelled" and not state.get("stepped"):  # canceling before ended
            state["stepped"] = True
            view |= {"processing_status": "canceling", "results_url": None, "ended_at": None}
        return JSONResponse(view)

    async def anthropic_list(self, request: Request) -> JSONResponse:
        views = [self._anthropic_view(s) for s in reversed(list(self.batches.values())) if s["provider"] == "anthropic"]
        return JSONResponse({"data": views, "has_more": False, "first_id": views[0]["id"] if views else None,
                             "last_id": views[-1]["id"] if views else None})  # fmt: skip

    async def anthropic_results(self, request: Request) -> Response:
        state = self.batches[request.path_params["batch_id"]]
        lines, again = [], []
        for index, ((custom_id, body), outcome) in enumerate(zip(state["items"], state["outcomes"], strict=True)):
            how = state["mangle"].get(index) if outcome == "ok" else None
            if outcome == "ok":
                answer = message(body, index)
                if how == "wrong_shape":
                    answer = {"id": answer["id"], "type": "message", "content": "nope"}
                elif how == "duplicate":
                    other = answer | {"content": [{"type": "text", "text": "Maybe"}]}
                    again.append(
                        json.dumps({"custom_id": custom_id, "result": {"type": "succeeded", "message": other}})
                    )
                result: dict[str, Any] = {"type": "succeeded", "message": answer}
            elif outcome == "errored":
                inner = {"type": "api_error", "message": "scripted error"}
                result = {"type": "errored", "error": {"type": "error", "error": inner}}
            else:
                result = {"type": outcome}
            lines.append(_line_text(_spoiled({"custom_id": custom_id, "result": result}, how)))
        return Response("\n".join(lines[::-1] + again) + "\n", media_type="application/binary")


def _spoiled(line: dict[str, Any], how: str | None) -> Any:
    """A result line spoiled as `mangle` asks: "garbled" (cut in half: its custom id still readable) and "no_id" (no
    JSON, no custom id) become the text of the line; anything else is left as it is."""
    text = json.dumps(line)
    if how == "garbled":
        return _Raw(text[: len(text) // 2])
    if how == "no_id":
        return _Raw('this line is not JSON {"answer": "Yes"')
    return line


class _Raw(str):
    """A result line written as it is (not JSON)."""


def _line_text(line: Any) -> str:
    return str(line) if isinstance(line, _Raw) else json.dumps(line)
