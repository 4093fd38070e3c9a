"""The options and checks of the commands that listen on a port (`view`, `serve`, `mcp --http`), written once.

Each binds 127.0.0.1 unless `--host` says otherwise; `serve` and `mcp` refuse any other address without a bearer
token (`--token`, or an environment variable so the token stays out of the process list), and every command warns on
stderr, before it listens, when it is reachable from the network.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from lexprobe.cli.output import err
from lexprobe.errors import BadInputError
from lexprobe.terminal import safe_text

__all__ = ["AllowHostsOpt", "host_option", "require_token_off_loopback", "token_option", "warn_if_reachable"]

AllowHostsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-host",
        help="Also answer requests addressed to this host name (repeatable); by default only the --host address, "
        "localhost, 127.0.0.1 and [::1] are answered.",
    ),
]


def host_option(help_text: str) -> Any:
    """A `--host` option (the address to listen on) with the command's own `help_text`."""
    return Annotated[str, typer.Option("--host", help=help_text)]


def token_option(envvar: str) -> Any:
    """A `--token` option, also read from the environment variable `envvar`."""
    return Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar=envvar,
            show_envvar=True,
            help="Answer only requests with `Authorization: Bearer TOKEN` (required off loopback).",
        ),
    ]


def require_token_off_loopback(host: str, token: str | None, envvar: str) -> None:
    """Raise `BadInputError` when `host` is not a loopback address and no `token` is given."""
    from lexprobe.local_server import is_loopback

    if not is_loopback(host) and not token:
        raise BadInputError(safe_text(f"--host {host} is not loopback: give --token (or set {envvar})"))


def warn_if_reachable(host: str, exposure: str) -> None:
    """Print a warning on stderr when `host` is not loopback: `exposure` says what anyone reaching it can do."""
    from lexprobe.local_server import is_loopback

    if not is_loopback(host):
        warning = f"warning: listening on {host}: anyone who can reach this machine {exposure}"
        err.print(safe_text(warning), style="bold yellow", highlight=False, markup=False)
