"""`lexprobe serve`: the check as an HTTP API on this machine, and a page to drop a brief on
(`lexprobe.service.http_api`; docs/service.md). Binds 127.0.0.1; any other address needs `--token`."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from lexprobe.cli.network_options import (
    AllowHostsOpt,
    host_option,
    require_token_off_loopback,
    token_option,
    warn_if_reachable,
)
from lexprobe.cli.options import DbOpt, json_flag
from lexprobe.cli.output import err

__all__ = ["DEFAULT_PORT", "register", "serve"]

DEFAULT_PORT = 8790


def register(app: typer.Typer) -> None:
    """Add the top-level `serve` command to `app`."""
    app.command("serve")(serve)


#: The environment variable `--token` is read from when not given.
TOKEN_ENV = "LEXPROBE_SERVE_TOKEN"
HostOpt = host_option("Address to listen on; anything but loopback needs --token and shows a warning.")
TokenOpt = token_option(TOKEN_ENV)
SlotsOpt = Annotated[
    int, typer.Option("--concurrency", min=1, max=256, help="Checks at once; more get 503 until one ends.")
]
UploadOpt = Annotated[
    int, typer.Option("--max-upload-mb", min=1, max=50, help="Largest request body in MB (413 past it).")
]
TimeOpt = Annotated[
    float, typer.Option("--time-limit", min=1.0, metavar="SECONDS", help="Seconds one check may take (504 past it).")
]


def serve(
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port (0: any free port).")] = DEFAULT_PORT,
    host: HostOpt = "127.0.0.1",
    token: TokenOpt = None,
    allow_hosts: AllowHostsOpt = None,
    db: DbOpt = None,
    concurrency: SlotsOpt = 4,
    max_upload_mb: UploadOpt = 50,
    time_limit: TimeOpt = 120.0,
    as_json: json_flag('Print {"url": ...} as one JSON line once the server listens.') = False,
) -> None:
    """Serve the check on this machine: `POST /api/check` (a document upload in the field `file`, or JSON
    {"text": ...}) answers what `lexprobe check FILE --json` prints, `GET /api/case/CITATION` a case of the database,
    `/openapi.json` describes the API, and the page at `/` checks a dropped brief and highlights every citation and
    quotation by verdict. The database and the citation parser stay loaded between requests.

    Examples: `lexprobe serve` (then open the printed URL),
    `curl -F file=@brief.pdf http://127.0.0.1:8790/api/check`,
    `lexprobe serve --host 0.0.0.0 --token "$(openssl rand -hex 16)"`.
    """
    require_token_off_loopback(host, token, TOKEN_ENV)
    from lexprobe.service.check_service import CheckService
    from lexprobe.service.http_api import ServeSettings, build_app
    from lexprobe.view.launch import serve as serve_app

    settings = ServeSettings(host, tuple(allow_hosts or ()), token, max_upload_mb * 1024 * 1024, concurrency,
                             time_limit)  # fmt: skip
    service = CheckService(db)
    warn_if_reachable(host, "and holds the token can send documents to check")

    def ready(url: str) -> None:
        print(json.dumps({"url": url}) if as_json else url, flush=True)
        err.print("lexprobe serve: Ctrl-C stops the server", highlight=False)

    try:
        serve_app(build_app(service, settings), host, port, ready)
    finally:
        service.close()
