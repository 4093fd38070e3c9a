"""`lexprobe mcp`: serve `lexprobe check` to AI assistants as a Model Context Protocol server (docs/service.md, "MCP:
connect an assistant"). Parses the options, opens the warm check service once and hands it to
`lexprobe.service.mcp_server`; stdio by default, streamable HTTP with `--http PORT`.

On stdio, stdout carries the protocol and nothing else: every word of this command goes to stderr.
"""

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
from lexprobe.cli.options import DbOpt
from lexprobe.cli.output import err
from lexprobe.errors import BadInputError
from lexprobe.terminal import safe_text

__all__ = ["mcp", "register"]

#: The environment variable `--token` is read from when not given (a token on the command line is visible to every
#: user of the machine in the process list).
TOKEN_ENV = "LEXPROBE_MCP_TOKEN"


def register(app: typer.Typer) -> None:
    """Add the top-level `mcp` command to `app`."""
    app.command("mcp")(mcp)


HttpOpt = Annotated[
    int | None,
    typer.Option(
        "--http",
        metavar="PORT",
        min=0,
        max=65535,
        help="Serve streamable HTTP on this port (0: any free port; the URL is printed) instead of stdio.",
    ),
]
HostOpt = host_option("With --http: address to listen on; anything but loopback needs --token.")
TokenOpt = token_option(TOKEN_ENV)


def mcp(
    db: DbOpt = None,
    http: HttpOpt = None,
    host: HostOpt = "127.0.0.1",
    token: TokenOpt = None,
    allow_hosts: AllowHostsOpt = None,
) -> None:
    """Serve the citation check to an AI assistant (Claude Desktop, an IDE, any MCP client) as a Model Context
    Protocol server: tools check_text, verify_quotation, lookup_case and case_text, and the case database's
    coverage as resources. The database and the opinion index are loaded once and stay warm.

    Over stdio by default (the client starts this command); with --http PORT, streamable HTTP at
    http://127.0.0.1:PORT/mcp. Binds 127.0.0.1; any other --host needs --token. Stop it with Ctrl-C.

    Examples: `lexprobe mcp --db caselaw.sqlite` (in a client's config), `lexprobe mcp --http 8767`,
    `LEXPROBE_MCP_TOKEN=s3cret lexprobe mcp --http 8767 --host 0.0.0.0`.
    """
    if http is None and (allow_hosts or host != "127.0.0.1"):
        raise BadInputError("--host and --allow-host go with --http PORT (stdio has no network)")
    if http is not None:
        require_token_off_loopback(host, token, TOKEN_ENV)
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise BadInputError("lexprobe mcp needs the MCP SDK: pip install 'lexprobe[service]' (mcp==2.3.0)") from None
    from lexprobe.service.mcp_server import build_server, http_app, run_stdio, start_service

    service = start_service(db)
    try:
        server = build_server(service)
        if http is None:
            run_stdio(server)
        else:
            _serve_http(http_app(server, host, token, tuple(allow_hosts or ())), host, http, token is not None)
    finally:
        service.close()


def _serve_http(app: object, host: str, port: int, with_token: bool) -> None:
    """Serve the MCP app over HTTP until Ctrl-C, printing `{"url": ...}` on stdout once it listens."""
    from lexprobe.view.launch import serve

    warn_if_reachable(host, "and holds the token can check documents and read the case database through it")

    def ready(url: str) -> None:
        print(json.dumps({"url": f"{url}mcp"}), flush=True)
        auth = " (bearer token required)" if with_token else ""
        err.print(safe_text(f"lexprobe mcp: MCP endpoint {url}mcp{auth}; Ctrl-C stops it"), highlight=False)

    serve(app, host, port, ready, lifespan=True)
