"""`lexprobe view`'s work: the paths sorted into sources, the case database for names, the viewer planned and served
(uvicorn on a socket bound first, so a port in use is one line); the command only prints."""

from __future__ import annotations

import json
import socket
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexprobe.engine.sqlite_util import connect_read_only
from lexprobe.engine.store import LEGACY_KIND_KEYS, RUN_DB_NAME
from lexprobe.errors import BadInputError, InputNotFoundError, LexprobeError
from lexprobe.hallucination.profile.results import RUN_KIND
from lexprobe.terminal import safe_text

__all__ = ["ViewSources", "serve", "view_sources"]


def store_kinds(run_dir: Path) -> list[str]:
    """Return the kinds of run the store of `run_dir` holds ([] when it has no store or records none).

    Reads the `meta` table read-only; a store that cannot be read counts as no run (the caller names the path)."""
    path = Path(run_dir) / RUN_DB_NAME
    if not path.is_file():
        return []
    try:
        conn = connect_read_only(path)
    except LexprobeError:
        return []
    try:
        rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    try:
        recorded = json.loads(rows["kinds"]) if "kinds" in rows else None
    except ValueError:
        recorded = None
    if isinstance(recorded, list) and all(isinstance(kind, str) for kind in recorded):
        return list(recorded)
    return [kind for key, kind in LEGACY_KIND_KEYS.items() if key in rows]


def is_hallucination_run(path: Path) -> bool:
    """Return whether `path` is a run directory whose store holds a hallucination run."""
    return Path(path).is_dir() and RUN_KIND in store_kinds(path)


def split_paths(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """Return (hallucination run directories, every other path), each in the order given."""
    hallucination = [path for path in paths if is_hallucination_run(path)]
    others = [path for path in paths if path not in hallucination]
    return hallucination, others


@dataclass(frozen=True)
class ViewSources:
    """What to show: hallucination run directories, every other path (part B's runs, check results), and the case
    database for case names (None: citations only)."""

    hallucination: list[Path]
    others: list[Path]
    case_db: Path | None


def _case_db(db: Path | None) -> Path | None:
    """Return the case database for case names: `--db` (which must exist), else the default one if built."""
    from lexprobe.caselaw.paths import default_db_path

    if db is not None:
        if not db.is_file():
            raise InputNotFoundError(safe_text(f"{db}: no such case database"))
        return db
    default = default_db_path()
    return default if default.is_file() else None


def view_sources(paths: list[Path], db: Path | None) -> ViewSources:
    """The sources of `paths`. BadInputError when the server packages are missing, InputNotFoundError for a path
    or `db` that does not exist."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise BadInputError(
            "lexprobe view needs starlette and uvicorn (pip install starlette==1.10.0 uvicorn==0.55.0, "
            "or the 'local' extra, which brings them)"
        ) from None
    for path in paths:
        if not path.exists():
            raise InputNotFoundError(safe_text(f"{path}: no such file or directory"))
    case_db = _case_db(db)
    return ViewSources(*split_paths(list(paths)), case_db)


def serve(app: Any, host: str, port: int, on_ready: Callable[[str], None], lifespan: bool = False) -> None:
    """Serve `app` with uvicorn until Ctrl-C; `on_ready(url)` once it accepts connections. `lifespan`: run the app's
    startup and shutdown (an app that starts tasks there, as `lexprobe mcp --http` does); open connections get 5
    seconds to finish on Ctrl-C (an MCP client's event stream never ends by itself)."""
    import uvicorn

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.should_exit:
                return
            bound = self.servers[0].sockets[0].getsockname()[1] if self.servers else port
            shown = f"[{host}]" if ":" in host else host
            on_ready(f"http://{shown}:{bound}/")

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on" if lifespan else "off",
        timeout_graceful_shutdown=5,
    )
    AnnouncingServer(config).run(sockets=[_listening_socket(host, port)])


def _listening_socket(host: str, port: int) -> socket.socket:
    """Return a socket bound to `host`:`port` (the server listens on it); `BadInputError` when it cannot be."""
    sock = None
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        if sock is not None:
            sock.close()
        raise BadInputError(safe_text(f"cannot listen on {host}:{port}: {exc.strerror or exc}")) from None
    return sock
