"""What the tests' small HTTP servers share."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: object) -> None:
    """Answer `handler`'s request with `status` and `payload` as a JSON body."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
