"""Run an agent's `shell` command safely: a bubblewrap sandbox over a read-only view of the extracted texts.

The sandbox (`bwrap`, Debian package `bubblewrap`): every namespace unshared (no network, own PIDs, IPC, UTS), the
corpus view bound read-only at /corpus (the working directory), /usr read-only for the tools with every script
interpreter but /bin/sh masked (`masked_interpreters`), a small empty /tmp (`TMP_BYTES`), nothing else of the host
(no /etc, no /home, no /root), an environment holding only PATH, at most `MAX_MEMORY_BYTES` of address space and
`CPU_SECONDS` of CPU per process (`prlimit`), when started by root an unprivileged uid and at most `MAX_PROCESSES`
processes (see `bwrap_command`), and a wall-clock timeout after which the whole sandbox is killed. Output is capped
at `MAX_OUTPUT_BYTES`. These limits are the security boundary.

Before anything runs, `refusal(command)` turns away what a read-only investigation never needs - writes and
redirections into files, network tools, privilege and process tricks, script interpreters (under any version suffix,
path or wrapper such as `env`, `timeout` or `xargs`) - with a message for the model, so those commands are never
executed; awk stays a text tool, but its `system()`, pipes and program files are refused (`awk_policy.py`). The
refusal is a policy with a helpful message, not the boundary: a command that slips past it (say, an
interpreter named through a variable) still meets the masked interpreters and the limits. Without bwrap, `shell` is
disabled: `sandbox_available()` says so and callers record it.
"""

from __future__ import annotations

import functools
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

from lexprobe.investigation.shell.awk_policy import awk_refusal

TIMEOUT_S = 10.0
CPU_SECONDS = 10
MAX_PROCESSES = 64
MAX_MEMORY_BYTES = 512 * 1024 * 1024  # address space per process (RLIMIT_AS): a 2 GB allocation fails
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
# Script interpreters, matched with any version suffix (python3.11, perl5.36.0, lua5.4, perl5.36-x86_64-linux-gnu).
_INTERPRETER_NAME = re.compile(
    r"(?:python|pypy|perl|ruby|irb|node|nodejs|deno|bun|php|lua|luajit|tclsh|wish|guile|Rscript|julia|"
    r"bash|rbash|sh|dash|ash|zsh|ksh|mksh|csh|tcsh|fish|busybox|toybox)(?:[\d.][\w.+-]*)?"
)
_SHELLS = {"sh", "dash"}  # the sandbox runs commands with /bin/sh: refused by name, never masked
# Commands that run another command: `env python3`, `timeout 5 perl`, `xargs -I{} node`; each with its options that
# take a separate value, and how many plain arguments come before the command (timeout's duration, chrt's priority).
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "env": (frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), 0),
    "command": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "builtin": (frozenset(), 0),
    "time": (frozenset({"-f", "--format", "-o", "--output"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0),
    "xargs": (frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args",
                         "--max-procs", "--max-chars", "--max-lines", "--process-slot-var"}), 0),
    "setsid": (frozenset(), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}), 0),
    "chrt": (frozenset(), 1),
    "taskset": (frozenset(), 1),
    "flock": (frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), 1),
    "watch": (frozenset({"-n", "--interval", "-d"}), 0),
    "unbuffer": (frozenset(), 0),
}  # fmt: skip
_KEYWORDS = {"!", "{", "}", "(", ")", "if", "then", "else", "elif", "do", "while", "until", "coproc"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_REDIRECT = re.compile(r"(?<![<>&0-9])>{1,2}(?!&)|\d>{1,2}(?![&])|&>")
_SEPARATORS = re.compile(r"\|\||&&|[|;&\n`]|\$\(|<\(")


#: Names the bubblewrap program when it is not `bwrap` on PATH (a path, or another name on PATH).
BWRAP_VARIABLE = "LEXPROBE_BWRAP"


def bwrap_program() -> str:
    """Return the bubblewrap program the sandbox runs: `$LEXPROBE_BWRAP` when set, else `bwrap` (found on PATH)."""
    return os.environ.get(BWRAP_VARIABLE, "").strip() or "bwrap"


def sandbox_available() -> bool:
    """Return whether bubblewrap is installed (shell is disabled without it)."""
    return shutil.which(bwrap_program()) is not None


def _words(segment: str) -> list[str]:
    try:
        return shlex.split(segment)
    except ValueError:
        return segment.split()


def is_interpreter(program: str) -> bool:
    """Return whether a program name (no folder) is a script interpreter, whatever its version suffix."""
    return _INTERPRETER_NAME.fullmatch(program) is not None


def _programs(words: list[str]) -> list[str]:
    """Return the programs one simple command runs: its command word and, through wrappers, the commands they run.

    Skips variable assignments (`X=1 python3`), shell keywords (`then python3`) and each wrapper's options
    (`env -i python3`, `timeout -s KILL 5 perl`, `xargs -I {} node`); `env -S 'python3 -c ...'` is read as a command.
    """
    programs: list[str] = []
    index = 0
    while index < len(words):
        word = words[index].strip("(){}")
        if not word or word in _KEYWORDS or _ASSIGNMENT.match(word):
            index += 1
            continue
        program = Path(word).name
        programs.append(program)
        if program not in _WRAPPERS:
            break
        options, positional = _WRAPPERS[program]
        index += 1
        while index < len(words) and words[index].startswith("-") and words[index] != "-":
            option = words[index]
            if option == "--":
                index += 1
                break
            split = _split_string(program, option, words[index + 1] if index + 1 < len(words) else "")
            if split is not None:
                programs.extend(_programs(_words(split)))
            index += 2 if option in options else 1
        while positional and index < len(words) and not _ASSIGNMENT.match(words[index]):
            index, positional = index + 1, positional - 1
    return programs


def _split_string(program: str, option: str, following: str) -> str | None:
    """Return the command line an `env -S STRING` / `--split-string=STRING` option carries, else None."""
    if program != "env":
        return None
    if option in ("-S", "--split-string"):
        return following
    for prefix in ("--split-string=", "-S"):
        if option.startswith(prefix):
            return option[len(prefix) :]
    return None


def refusal(command: str) -> str | None:
    """Return why `command` is refused (a message for the model), or None when it may run in the sandbox."""
    if not command.strip():
        return "empty command"
    if _REDIRECT.search(command.replace("2>&1", "").replace(">&2", "").replace("2>/dev/null", "")):
        return "refused: output redirection into files is not allowed (the corpus is read-only)"
    for segment in _SEPARATORS.split(command):
        words = _words(segment.strip())
        for program in _programs(words):
            reason = _program_refusal(program, words)
            if reason:
                return reason
    if ":(){" in command.replace(" ", "") or re.search(r"(\w+)\s*\(\)\s*\{[^}]*\1\s*\|\s*\1", command):
        return "refused: that is a fork bomb"
    return awk_refusal(command)  # awk stays, but not its system(), pipes or program files (awk_policy.py)


def _program_refusal(program: str, words: list[str]) -> str | None:
    """Return why one program of a command (with the words of its segment) is refused, or None."""
    if program in _WRITE_TOOLS or (program == "sed" and any(w.startswith("-i") for w in words[1:])):
        return f"refused: {program!r} changes files; the corpus is read-only"
    if program in _NETWORK_TOOLS:
        return f"refused: {program!r} uses the network; investigations use only the documents"
    if program in _PRIVILEGE_TOOLS:
        return f"refused: {program!r} is not available in the investigation shell"
    if is_interpreter(program):
        return f"refused: {program!r} is not available; use read-only text tools (grep, sed -n, head, wc, ...)"
    if program == "find" and any(w in ("-delete", "-exec", "-execdir", "-fprint", "-fprintf") for w in words):
        return "refused: find may only list files here (no -delete / -exec)"
    return None


@dataclass(frozen=True)
class ShellResult:
    """What a sandboxed command printed, and how it ended."""

    output: str
    exit_code: int | None
    timed_out: bool = False
    truncated: bool = False


TMP_BYTES = 8 * 1024 * 1024


@functools.cache
def masked_interpreters() -> tuple[str, ...]:
    """Return the interpreter executables under /usr that the sandbox hides (binds /dev/null over them).

    Every file named like an interpreter (`is_interpreter`) in the usual bin folders, resolved through symlinks to
    the regular file under /usr it runs; the shell behind /bin/sh is kept (commands run with it)."""
    masked: set[str] = set()
    keep = {os.path.realpath("/usr/bin/sh"), os.path.realpath("/bin/sh")}  # bash, where /bin/sh is bash
    for folder in ("/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not is_interpreter(name) or name in _SHELLS:
                continue
            target = os.path.realpath(os.path.join(folder, name))
            if target.startswith("/usr/") and os.path.isfile(target) and target not in keep:
                masked.add(target)
    return tuple(sorted(masked))


@functools.cache
def alternatives() -> tuple[tuple[str, str], ...]:
    """Return Debian's /etc/alternatives links (name, target under /usr) that the sandbox recreates.

    /etc is not mounted in the sandbox, so /usr/bin/awk (-> /etc/alternatives/awk -> /usr/bin/mawk) would dangle.
    Only links to files under /usr that are not hidden interpreters are recreated; no file of /etc is exposed."""
    folder = Path("/etc/alternatives")
    masked = set(masked_interpreters())
    links = []
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return ()
    for name in entries:
        target = os.path.realpath(folder / name)
        if target.startswith("/usr/") and os.path.isfile(target) and target not in masked and not is_interpreter(name):
            links.append((name, target))
    return tuple(links)


def limits_prefix() -> list[str]:
    """Return the `prlimit ... setpriv ...` words that start the sandbox under its resource limits.

    Address space and CPU time are capped for every caller (lowering one's own limits needs no privilege). Run as
    root, the sandbox also starts as the unprivileged host user `nobody` (setpriv) with at most `MAX_PROCESSES`
    processes; RLIMIT_NPROC counts a host user's processes, so it only bounds a fork bomb for a user of its own. Run
    as an ordinary user, bwrap is already unprivileged and the wall-clock timeout (which kills the sandbox's whole
    PID namespace) bounds a fork bomb instead."""
    if not shutil.which("prlimit"):
        return []
    prefix = ["prlimit", f"--as={MAX_MEMORY_BYTES}:{MAX_MEMORY_BYTES}", f"--cpu={CPU_SECONDS}:{CPU_SECONDS}"]
    if sandbox_user() is not None:
        prefix += [
            f"--nproc={MAX_PROCESSES}:{MAX_PROCESSES}",
            "setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups", "--inh-caps=-all",
        ]  # fmt: skip
    return prefix


def sandbox_user() -> int | None:
    """Return the uid (and gid) the sandbox runs as when it switches user (as root), or None when it keeps ours."""
    if os.geteuid() == 0 and shutil.which("setpriv") and shutil.which("prlimit"):
        return SANDBOX_UID
    return None


def bwrap_command(view: Path, command: str) -> list[str]:
    """Return the argument list that runs `command` over the read-only `view` folder (limits: `limits_prefix`)."""
    arguments = [
        *limits_prefix(), bwrap_program(), "--unshare-all", "--die-with-parent", "--new-session",
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
    ]  # fmt: skip
    if Path("/usr/lib64").exists():
        arguments += ["--symlink", "usr/lib64", "/lib64"]
    for interpreter in masked_interpreters():
        arguments += ["--ro-bind", "/dev/null", interpreter]
    for name, target in alternatives():
        arguments += ["--symlink", target, f"/etc/alternatives/{name}"]
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
