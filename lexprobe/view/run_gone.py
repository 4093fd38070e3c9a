"""A run the viewer serves that was deleted, moved, replaced or changed since the viewer started (docs/viewer.md):
every route answers one error naming the run and what to do, made by `error_response` (JSON `{"error": ...}` for
API routes, a short page otherwise).
"""

from __future__ import annotations

import html
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from lexprobe.errors import StoreError
from lexprobe.terminal import safe_text


class RunChangedError(StoreError):
    """A run was replaced or changed since the viewer started (HTTP 409)."""

    status = 409


class RunGoneError(RunChangedError):
    """A run directory or store no longer exists (HTTP 410)."""

    status = 410


def run_gone_message(run_dir: Path) -> str:
    """The message for a run directory (or its store) deleted or moved while served."""
    return (
        f"run {run_dir} is gone: it was deleted or moved after lexprobe view started; "
        "restart lexprobe view with the runs to show"
    )


def run_changed_message(run_dir: Path, what: str) -> str:
    """The message for a run whose store or index is no longer the one the viewer indexed (`what` says how)."""
    return f"run {run_dir} changed after lexprobe view started ({what}); restart lexprobe view to index it again"


def error_response(request: Request, exc: Exception) -> Response:
    """The answer to a request that met `exc` (a `RunChangedError`): JSON for an API route, a page otherwise."""
    status = getattr(exc, "status", 409)
    message = safe_text(str(exc))
    if "/api/" in request.url.path:
        return JSONResponse({"error": message}, status_code=status)
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Run not available</title></head>'
        f"<body><h1>Run not available</h1><p>{html.escape(message)}</p></body></html>"
    )
    return HTMLResponse(page, status_code=status)
