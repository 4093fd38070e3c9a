"""`python -m llama_cpp.server`, unchanged, with one ASGI layer that records when each HTTP request arrived and when
its last response byte left, so the bench can see the client's side of every exchange from the network.

Usage: python bench/peers_server_timed.py REQUEST_LOG [the llama_cpp.server arguments...]

Each completed request appends a JSON line to REQUEST_LOG: {"path", "arrived", "done"} in seconds of the system-wide
monotonic clock (`time.monotonic()`, the same clock in every process on the machine). The gap between one reply's
`done` and the next request's `arrived`, one connection at a time, is the client's own time per request: reading
the answer, storing it, drawing progress, building the next request. The layer adds two clock reads and a line
write per request, the same for every client.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]


class RequestTimes:
    """ASGI middleware: one line per HTTP request with its arrival and completion times."""

    def __init__(self, app: ASGIApp, log_path: str) -> None:
        self.app = app
        self.log = open(log_path, "a", buffering=1)  # noqa: SIM115 - open for the server's lifetime, line-buffered

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Message]], send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        arrived = time.monotonic()

        async def timed_send(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                done = time.monotonic()
                self.log.write(json.dumps({"path": scope["path"], "arrived": arrived, "done": done}) + "\n")

        await self.app(scope, receive, timed_send)


def main() -> None:
    """Build the server exactly as `python -m llama_cpp.server` does, wrap it, serve it."""
    import argparse

    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
    from llama_cpp.server.settings import ModelSettings, ServerSettings, Settings

    log_path = sys.argv.pop(1)
    parser = argparse.ArgumentParser()
    add_args_from_model(parser, Settings)
    args = parser.parse_args()
    server_settings = parse_model_from_args(ServerSettings, args)
    app = create_app(server_settings=server_settings, model_settings=[parse_model_from_args(ModelSettings, args)])
    uvicorn.run(
        RequestTimes(app, log_path),
        host=os.getenv("HOST", server_settings.host),
        port=int(os.getenv("PORT", server_settings.port)),
    )


if __name__ == "__main__":
    main()
