"""`--ray ADDRESS`: which Ray instance a run uses, checked before any work, and joining it.

This module is light on purpose (the command line imports it to check `--ray` even for a dry run): `ray` itself is
imported only by `join_ray`, when a run first sends a request. The model calls that then run on Ray's workers are
in `ray_executor.py`.

Addresses: `local` starts a private Ray instance inside this process's session (it ends with the command); `auto`
joins the cluster this machine belongs to (`ray start` ran here, or `RAY_ADDRESS` is set); `ray://HOST:PORT` joins
a remote cluster through the Ray Client; `HOST:PORT` joins a cluster's head node (its GCS port) directly.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import socket
from pathlib import Path

from lexprobe.errors import BadInputError
from lexprobe.models.errors import ModelConfigError

#: The one line `--ray` prints when the package is missing.
INSTALL_HINT = "pip install 'lexprobe[ray]'"
#: The address that starts a private local instance.
LOCAL = "local"
#: The addresses `--help` and errors name.
ADDRESS_FORMS = "local, auto, ray://HOST:PORT or HOST:PORT"

_HOST_PORT = re.compile(r"^(ray://)?[A-Za-z0-9._\-\[\]:]+:\d{1,5}$")
#: How long `probe_ray_address` waits for a TCP connection to a cluster's address before it gives up.
PROBE_TIMEOUT_S = 5.0


def check_ray_address(address: str) -> str:
    """Return `address` normalised (stripped, `local`/`auto` lower-cased) when it is one of `ADDRESS_FORMS` and the
    `ray` package is installed; raise `ModelConfigError` (one line: the forms, or `INSTALL_HINT`) otherwise.
    Imports nothing."""
    text = address.strip()
    if text.lower() in (LOCAL, "auto"):
        text = text.lower()
    elif not _HOST_PORT.match(text):
        raise ModelConfigError(f"--ray {address!r} is not a Ray address; use one of: {ADDRESS_FORMS}")
    if importlib.util.find_spec("ray") is None:
        raise ModelConfigError(f"--ray needs the Python package 'ray', which is not installed: {INSTALL_HINT}")
    return text


def probe_ray_address(address: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """For `HOST:PORT` and `ray://HOST:PORT`: open a TCP connection to the address (the head's GCS port, or its Ray
    Client port) within `timeout_s`, and raise `BadInputError` (one line naming the address) when nothing answers
    there. Ray would otherwise retry for minutes behind its own logs. `local` and `auto` are not probed."""
    if address in (LOCAL, "auto"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            pass
    except TimeoutError:
        reason = f"no answer within {timeout_s:g}s"
    except OSError as exc:
        reason = "connection refused" if isinstance(exc, ConnectionRefusedError) else exc.strerror or str(exc)
    else:
        return
    raise BadInputError(f"--ray {address}: no Ray cluster answers at that address ({reason}); start one there "
                        "(`ray start --head`) or check the address")  # fmt: skip


def join_ray(address: str) -> None:
    """Start (`local`) or join the Ray instance at `address`, once per process: a process that already has a Ray
    session (a test's, or an earlier run's) keeps it. Ray's own logs stay off stdout, which holds results: workers'
    output is not forwarded to the driver, and Ray logs warnings only, on stderr. Raises `BadInputError` when
    nothing answers at a `HOST:PORT` address (`probe_ray_address`), `ModelConfigError` naming the address when it
    cannot be joined."""
    address = check_ray_address(address)
    import ray

    if ray.is_initialized():
        return
    probe_ray_address(address)
    options: dict = {
        "log_to_driver": False,
        "logging_level": logging.WARNING,
        "include_dashboard": False,
    }
    if address == LOCAL:
        # The workers of a local instance start with the driver's environment; put this lexprobe's folder first
        # on their path too, so they import the same code as the driver even from a source checkout.
        package_root = str(Path(__file__).resolve().parents[2])
        path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
        options["runtime_env"] = {"env_vars": {"PYTHONPATH": path}}
    try:
        ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelConfigError(f"cannot join the Ray cluster at {address!r}: {first}") from None
    _cluster_messages_to_stderr()


def _cluster_messages_to_stderr() -> None:
    """Send the messages Ray prints in the driver to stderr. Ray 2.60 prints its raylet's error messages ("(raylet)
    A worker died or was killed ...") to stdout, which holds the command's results (`--json`); with
    `log_to_driver=False` they are the only thing it prints there. Its printing function is wrapped to mark every
    message as an error line, which Ray writes to stderr."""
    try:
        from ray._private import worker
    except ImportError:  # another layout of Ray's internals: nothing to redirect
        return
    printer = getattr(worker, "print_to_stdstream", None)
    if printer is None or getattr(printer, "lexprobe_stderr", False):
        return

    def to_stderr(data: dict, ignore_prefix: bool) -> None:
        printer({**data, "is_err": True}, ignore_prefix)

    to_stderr.lexprobe_stderr = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = to_stderr
