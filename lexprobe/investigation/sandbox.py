"""Run an agent's `shell` command safely: a bubblewrap sandbox over a read-only view of the extracted texts.

The sandbox (`bwrap`, Debian package `bubblewrap`): every namespace unshared (no network, own PIDs, IPC, UTS), the
corpus view bound read-only at /corpus (the working directory), /usr read-only for the tools, a small empty /tmp
(`TMP_BYTES`), nothing else of the host (no /etc, no /home, no /root), an environment holding only PATH, an
unprivileged uid, at most `MAX_PROCESSES` processes and `CPU_SECONDS` of CPU when started by root (see
`bwrap_command`), and a wall-clock timeout after which the whole sandbox is killed. Output is capped at
`MAX_OUTPUT_BYTES`.

Before anything runs, `refusal(command)` turns away what a read-only investigation never needs - writes and
redirections into files, network tools, privilege and process tricks - with a message for the model, so those
commands are never executed even where the sandbox would have stopped them. Without bwrap, `shell` is disabled:
`sandbox_available()` says so and callers record it.
"""

from __future__ import annotations

import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

TIMEOUT_S = 10.0
CPU_SECONDS = 10
MAX_PROCESSES = 64
MAX_OUTPUT_BYTES = 64 * 1024
SANDBOX_UID = 65534

_WRITE_TOOLS = {
    "rm", "rmdir", "mv", "cp", "touch", "mkdir", "dd", "chmod", "chown", "chgrp", "ln", "tee", "truncate", "shred",
    "install", "mkfifo", "mknod", "sed -i", "split", "csplit", "patch", "unlink",
}  # fmt: skip
_NETWORK_TOOLS = {
    "curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "ftp", "telnet", "ping", "socat", "nslookup",
    "dig", "host", "rsync", "git",
}  # fmt: skip
_PRIVILEGE_TOOLS = {"sudo", "su", "doas", "nsenter", "unshare", "chroot", "mount", "umount", "kill", "pkill", "nohup"}
_INTERPRETERS = {"python", "python3", "perl", "ruby", "node", "php", "lua", "bash", "sh", "dash", "zsh", "busybox"}
_REDIRECT = re.compile(r"(?<![<>&0-9])>{1,2}(?!&)|\d>{1,2}(?![&])|&>")
_SEPARATORS = re.compile(r"\|\||&&|[|;&\n`]|\$\(")


def sandbox_available() -> bool:
    """Return whether bubblewrap is installed (shell is disabled without it)."""
    return shutil.which("bwrap") is not None


def _words(segment: str) -> list[str]:
    try:
        return shlex.split(segment)
    except ValueError:
        return segment.split()


def refusal(command: str) -> str | None:
    """Return why `command` is refused (a message for the model), or None when it may run in the sandbox."""
    if not command.strip():
        return "empty command"
    if _REDIRECT.search(command.replace("2>&1", "").replace(">&2", "").replace("2>/dev/null", "")):
        return "refused: output redirection into files is not allowed (the corpus is read-only)"
    for segment in _SEPARATORS.split(command):
        words = _words(segment.strip())
        if not words:
            continue
        program = Path(words[0]).name
        if program in _WRITE_TOOLS or (program == "sed" and any(w.startswith("-i") for w in words[1:])):
            return f"refused: {program!r} changes files; the corpus is read-only"
        if program in _NETWORK_TOOLS:
            return f"refused: {program!r} uses the network; investigations use only the documents"
        if program in _PRIVILEGE_TOOLS:
            return f"refused: {program!r} is not available in the investigation shell"
        if program in _INTERPRETERS:
            return f"refused: {program!r} is not available; use read-only text tools (grep, sed -n, head, wc, ...)"
        if program == "find" and any(w in ("-delete", "-exec", "-execdir", "-fprint", "-fprintf") for w in words):
            return "refused: find may only list files here (no -delete / -exec)"
    if ":(){" in command.replace(" ", "") or re.search(r"(\w+)\s*\(\)\s*\{[^}]*\1\s*\|\s*\1", command):
        return "refused: that is a fork bomb"
    return None


@dataclass(frozen=True)
class ShellResult:
    """What a sandboxed command printed, and how it ended."""

    output: str
    exit_code: int | None
    timed_out: bool = False
    truncated: bool = False


TMP_BYTES = 8 * 1024 * 1024


def bwrap_command(view: Path, command: str) -> list[str]:
    """Return the argument list that runs `command` over the read-only `view` folder.

    Run as root, the sandbox starts as the unprivileged host user `nobody` (setpriv) under `prlimit` limits on
    processes and CPU time; RLIMIT_NPROC counts a host user's processes, so it only bounds a fork bomb for a user of
    its own. Run as an ordinary user, bwrap is already unprivileged and the wall-clock timeout (which kills the
    sandbox's whole PID namespace) bounds a fork bomb instead.
    """
    prefix: list[str] = []
    if os.geteuid() == 0 and shutil.which("setpriv") and shutil.which("prlimit"):
        prefix = [
            "prlimit", f"--nproc={MAX_PROCESSES}:{MAX_PROCESSES}", f"--cpu={CPU_SECONDS}:{CPU_SECONDS}",
            "setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups", "--inh-caps=-all",
        ]  # fmt: skip
    arguments = [
        *prefix, "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
    ]  # fmt: skip
    if Path("/usr/lib64").exists():
        arguments += ["--symlink", "usr/lib64", "/lib64"]
    arguments += [
        "--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
        "--ro-bind", str(view), "/corpus", "--chdir", "/corpus",
        "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LC_ALL", "C.UTF-8", "--setenv", "HOME", "/tmp",
        "--", "/bin/sh", "-c", command,
    ]  # fmt: skip
    return arguments


def run_sandboxed(view: Path, command: str, timeout: float = TIMEOUT_S) -> ShellResult:
    """Run `command` in the sandbox over `view` and return its combined output (capped) and exit code.

    Raises RuntimeError when bwrap is not installed (check `sandbox_available()` first)."""
    if not sandbox_available():
        raise RuntimeError("bubblewrap (bwrap) is not installed: shell is disabled")
    process = subprocess.Popen(
        bwrap_command(view, command),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env={"PATH": "/usr/bin:/bin"},  # nothing of the host's environment (API keys) reaches the sandbox
    )
    chunks: list[bytes] = []
    size = 0
    truncated = timed_out = False
    try:
        assert process.stdout is not None
        os.set_blocking(process.stdout.fileno(), True)
        deadline = time.monotonic() + timeout
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            if not selector.select(remaining):
                continue
            chunk = process.stdout.read1(65536)
            if not chunk:
                break
            if size < MAX_OUTPUT_BYTES:
                chunks.append(chunk[: MAX_OUTPUT_BYTES - size])
            size += len(chunk)
            if size > MAX_OUTPUT_BYTES:
                truncated = True
                break  # stop reading: a huge output is cut, and the command is stopped
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    output = b"".join(chunks).decode("utf-8", errors="replace")
    return ShellResult(output, None if timed_out or truncated else process.returncode, timed_out, truncated)
