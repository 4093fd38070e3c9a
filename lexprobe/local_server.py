"""The rules every HTTP server lexprobe starts follows (today `lexprobe view`; any later server reuses them).

* `guard_hosts(app, host, extra)`: the app answers only requests whose `Host` header names the address it is bound
  to, `localhost`, `127.0.0.1` or `[::1]` (or a name in `extra`; for a wildcard address, this machine's own names).
  Anything else is a 400 with no data, so a DNS-rebinding page (its own domain resolving to 127.0.0.1) cannot read
  through the visitor's browser. Starlette's `TrustedHostMiddleware` does the check.
* `ID`: the path convertor of every numeric path parameter (`{run:id}`): one to 18 digits, so a number that does not
  fit SQLite's 64-bit integers is no route (404) rather than an `OverflowError`.
* `is_loopback(host)`: whether an address names only this machine (the CLI warns otherwise).

Starlette is imported only by the functions that need it (this module sits on the shared ground, layer 9).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

#: The names a local browser uses for this machine; always accepted.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
#: A bound address that listens on every interface: the machine's own names are accepted too.
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "[::]", "")
#: The convertor name of bounded numeric path parameters (`{uid:id}`) and its longest number of digits (18: every
#: such number is below 2**63, SQLite's largest integer).
ID = "id"
ID_DIGITS = 18


def is_loopback(host: str) -> bool:
    """Return whether `host` names only this machine (localhost, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(host: str) -> str:
    """Return `host` as a `Host` header names it (without port): an IPv6 address in brackets, lower case."""
    host = host.strip().lower()
    if ":" in host and not host.startswith("["):
        return f"[{host}]"
    return host


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> list[str]:
    """Return the `Host` names (no port) a server bound to `bound` answers: the bound address, the loopback names,
    `extra`, and for a wildcard address this machine's host name and fully qualified name."""
    names = [host_name(bound), *LOOPBACK_NAMES, *(host_name(name) for name in extra)]
    if bound.strip() in WILDCARD_ADDRESSES:
        names += [socket.gethostname().lower(), socket.getfqdn().lower()]
    return [name for position, name in enumerate(names) if name and name not in names[:position]]


def guard_hosts(app: Any, bound: str, extra: Iterable[str] = ()) -> Any:
    """Return `app` (ASGI) behind Starlette's `TrustedHostMiddleware`: a request whose `Host` (port aside; an IPv6
    literal in brackets) is not in `allowed_hosts(bound, extra)` gets 400 "Invalid host header" and never reaches
    `app`."""
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    return TrustedHostMiddleware(app, allowed_hosts=allowed_hosts(bound, extra), www_redirect=False)


def register_id_convertor() -> None:
    """Make `{name:id}` usable in Starlette routes (idempotent): 1 to `ID_DIGITS` digits, converted to int."""
    from starlette.convertors import CONVERTOR_TYPES, Convertor, register_url_convertor

    if ID in CONVERTOR_TYPES:
        return

    class BoundedInteger(Convertor):
        regex = f"[0-9]{{1,{ID_DIGITS}}}"

        def convert(self, value: str) -> int:
            return int(value)

        def to_string(self, value: int) -> str:
            return str(int(value))

    register_url_convertor(ID, BoundedInteger())
