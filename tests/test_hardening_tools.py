"""Hardening of the agent tools (issue 12): time limits and a linear-time regex engine (item 3), the shell's memory cap
and interpreter refusal (item 6), private view folders and the sweep of stale ones (item 14).

Calls that hung the old code run in a child process with a deadline, so a regression fails instead of hanging."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from tool_requirements import needs_bwrap

from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.tools import VIEW_PREFIX, Toolbox, make_private_view
from lexprobe.investigation.environment.format import CaseInfo, Document, Environment, Role, save_environment
from lexprobe.investigation.shell.sandbox import MAX_MEMORY_BYTES, SANDBOX_UID, refusal, sandbox_user

EVIL_LINE = "a" * 40 + "!"  # `(\w+\s?)*$` and `(a+)+b` backtrack exponentially on this in Python's re
TEXTS = {
    "emails/0001.txt": f"{EVIL_LINE}\nplain words here\n",
    "emails/0002.txt": "From: Sam Ortiz\nTo: Dana Reyes\n\nReceived, but 40 units were damaged.\n",
    "notes/" + "a" * 40 + ".txt": "Lunch order: 3 sandwiches.\n",
}


def make_env(root: Path, texts: dict[str, str]) -> Path:
    """Write a small environment whose corpus holds `texts` (plain-text documents) and return its folder."""
    env = root / "env"
    for path, text in texts.items():
        target = env / "corpus" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    documents = [Document(doc_id=f"d{i}", path=path, format="txt", doc_type="email", role=Role.merits)
                 for i, path in enumerate(texts)]  # fmt: skip
    case = CaseInfo(case_id="t", name="Test v. Case (fictional)", dispositive_question="Damaged?", fictional=True)
    save_environment(env, Environment(case=case, documents=documents))
    return env


@pytest.fixture
def env_dir(tmp_path: Path) -> Path:
    return make_env(tmp_path, TEXTS)


CHILD = """
import json, sys, time
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.tools import Toolbox
box = Toolbox(CorpusView.open(sys.argv[1]), shell=False)
for name, arguments in json.loads(sys.argv[2]):
    start = time.monotonic()
    result = box.call(name, arguments)
    print(json.dumps({"output": result.output, "error": result.error, "seconds": time.monotonic() - start}), flush=True)
"""


def call_in_child(env_dir: Path, calls: list[tuple[str, dict]], deadline_s: float = 60.0) -> list[dict]:
    """Run tool calls in a fresh Python process; fail (rather than hang) when it is still running after the deadline."""
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(env_dir), json.dumps(calls)], capture_output=True,
                              text=True, timeout=deadline_s, check=True)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"the tool calls {calls} were still running after {deadline_s:g} s")
    return [json.loads(line) for line in done.stdout.splitlines()]


# Item 3: every tool has a time limit; grep and glob use a linear-time engine


def test_catastrophic_patterns_return_promptly_with_correct_results(env_dir: Path) -> None:
    calls = [
        ("grep", {"pattern": r"(\w+\s?)*$"}),
        ("grep", {"pattern": r"(a+)+b"}),
        ("glob", {"pattern": "**/" + "*a" * 25 + "*b"}),
        ("glob", {"pattern": "notes/*a*a*a*a*a*a*a*a*a*a*a*a*.txt"}),
    ]
    anything, nothing, bad_glob, good_glob = call_in_child(env_dir, calls)
    for result in (anything, nothing, bad_glob, good_glob):
        # No wall-clock bound (load moves it): a backtracking engine would need ~2^40 steps here, so the tool's own
        # time limit would fire and the call would come back as an error naming it; the child's deadline catches a
        # tool whose limit failed too.
        assert not result["error"], result
        assert "time limit" not in result["output"], result
    # `(\w+\s?)*$` matches every line (the empty repetition at the end): the same lines Python's re would report
    assert f"emails/0001.txt:1: {EVIL_LINE}" in anything["output"]
    assert "emails/0001.txt:2: plain words here" in anything["output"]
    assert "emails/0002.txt:4: Received, but 40 units were damaged." in anything["output"]
    assert nothing["output"] == "no matches for '(a+)+b'"
    assert bad_glob["output"].startswith("no documents match")
    assert good_glob["output"] == "notes/" + "a" * 40 + ".txt"


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?=units)", r"(?<=40 )units", r"units\Z", "(?x) units", "(", "\ud800"])
def test_patterns_re2_cannot_run_are_an_error_for_the_model(
    env_dir: Path, pattern: str, capfd: pytest.CaptureFixture[str]
) -> None:
    box = Toolbox(CorpusView.open(env_dir), shell=False)
    capfd.readouterr()
    result = box.call("grep", {"pattern": pattern})
    assert result.error and result.output.startswith("error: bad regular expression")
    assert "Error parsing" not in capfd.readouterr().err  # RE2 does not log on stderr


def test_glob_with_a_bad_class_is_an_error_for_the_model(env_dir: Path) -> None:
    result = Toolbox(CorpusView.open(env_dir), shell=False).call("glob", {"pattern": "emails/[z-a]*"})
    assert result.error and "bad pattern" in result.output


def test_grep_past_its_time_limit_returns_an_error(tmp_path: Path) -> None:
    big = {f"big/{n}.txt": "".join(f"Section {n}.{i}: clause text\n" for i in range(40_000)) for n in range(5)}
    view = CorpusView.open(make_env(tmp_path, big))
    box = Toolbox(view, shell=False, time_limit_s=0.02)
    start = time.monotonic()
    result = box.call("grep", {"pattern": "no such clause"})
    assert time.monotonic() - start < 5.0  # a wide margin for a loaded machine; the message shows the limit fired
    assert result.error and "time limit of 0.02 s" in result.output and "narrow the pattern" in result.output
    unlimited = Toolbox(view, shell=False).call("grep", {"pattern": r"Section 4\.39999:"})
    assert "big/4.txt:40000: Section 4.39999: clause text" in unlimited.output  # the same search completes in time


def test_grep_stops_inside_a_huge_line_with_a_heavy_pattern(tmp_path: Path) -> None:
    letters = random.Random(1).choices("abcdefghijklmnopqrstuvwxyz ", k=2_000_000)
    words = "".join(letters)  # one 2 MB line
    box = Toolbox(CorpusView.open(make_env(tmp_path, {"dump.txt": words + "\n"})), shell=False, time_limit_s=1.0)
    start = time.monotonic()
    result = box.call("grep", {"pattern": r"(\w{1,10}\s?){90}Q"})  # RE2's NFA: ~40 us per byte, minutes in one call
    assert time.monotonic() - start < 30.0  # far below the minutes the search needs, wide for a loaded machine
    assert result.error and "time limit of 1 s" in result.output


def test_grep_in_long_lines_keeps_anchors_and_matches_across_windows(tmp_path: Path) -> None:
    line = "start_" + "x" * (1 << 20) + "y" * (1 << 20) + " needle end"  # longer than any search window
    box = Toolbox(CorpusView.open(make_env(tmp_path, {"long.txt": line + "\n"})), shell=False)
    for pattern in ["^start", "needle end$", r"\bneedle\b", "x{100}y{100}"]:  # the last one across windows
        assert box.call("grep", {"pattern": pattern}).output.startswith("long.txt:1: start"), pattern
    for pattern in ["^x", "x$", r"\bx", "^needle", "yx"]:
        assert box.call("grep", {"pattern": pattern}).output.startswith("no matches"), pattern


@needs_bwrap
@pytest.mark.slow
def test_shell_past_its_time_limit_returns_an_error(env_dir: Path) -> None:
    box = Toolbox(CorpusView.open(env_dir), time_limit_s=1.0)
    try:
        start = time.monotonic()
        result = box.call("shell", {"command": "echo started; sleep 30"})
        assert time.monotonic() - start < 20.0  # killed well before the 30 s sleep ends, wide for a loaded machine
        assert result.error and "started" in result.output and "time limit of 1 s" in result.output
    finally:
        box.close()


# Item 6: the shell's memory cap and the interpreter refusal


@pytest.mark.parametrize(
    "command",
    ["python3.11 -c 'print(1)'", "env python3 -c 1", "perl5.36.0 -e 1", "/usr/bin/python3 -c 1", "env -i X=1 perl",
     "timeout -s KILL 5 python3 x.py", "ls | xargs -I {} python3 {}", "X=1 python3", "nice -n 5 ruby -e 1",
     "command python3", "env -S 'python3 -c 1'", "(python3 -c 1)", "if true; then python3; fi",
     "echo $(python3 -c 1)", "cat <(perl -e 1)", "busybox sh", "perl5.36-x86_64-linux-gnu -e 1", "nodejs -e 1",
     "lua5.4 -e 1", "sh -c id", "/bin/bash -c id"],
)  # fmt: skip
def test_interpreters_are_refused_under_any_name(command: str) -> None:
    reason = refusal(command)
    assert reason is not None and "is not available" in reason


@pytest.mark.parametrize(
    "command",
    ["grep -rn python .", "grep -c perl emails/0001.txt", "timeout 5 grep -rn units .", "ls | xargs grep -l units",
     "env", "sed -n 1p python3.txt", "find . -name '*perl*'", "X=1 grep x ."],
)  # fmt: skip
def test_text_tools_naming_interpreters_are_allowed(command: str) -> None:
    assert refusal(command) is None


@needs_bwrap
@pytest.mark.slow
def test_shell_caps_memory_and_hides_interpreters(env_dir: Path) -> None:
    box = Toolbox(CorpusView.open(env_dir))
    try:
        limits = box.call("shell", {"command": "grep 'Max address space' /proc/self/limits"}).output.split()
        assert limits[3] != "unlimited" and int(limits[3]) <= MAX_MEMORY_BYTES
        awk = Path(shutil.which("mawk") or shutil.which("gawk") or "awk").name  # /usr/bin/awk may be dangling
        grow = f"{awk} 'BEGIN {{ s = \"x\"; while (length(s) < 1000000000) s = s s; print length(s) }}'"
        allocation = box.call("shell", {"command": grow})  # a 1 GiB string (1.5 GiB while doubling)
        assert "1073741824" not in allocation.output and allocation.error
        sneaky = box.call("shell", {"command": "p=python3; $p -c 'print(6 * 7)'; q=perl; $q -e 'print 6 * 7'"})
        assert "42" not in sneaky.output  # past the refusal, the interpreters are masked in the sandbox
        assert "units" in box.call("shell", {"command": "grep -rn units . | sort | head -3"}).output
    finally:
        box.close()


@needs_bwrap
def test_awk_through_debian_alternatives_works_without_exposing_etc(env_dir: Path) -> None:
    box = Toolbox(CorpusView.open(env_dir))
    try:
        result = box.call("shell", {"command": "awk '{print $2}' emails/0002.txt | head -1; ls /etc"})
        assert result.output.splitlines() == ["Sam", "alternatives"], result.output
    finally:
        box.close()


# Item 14: private view folders, and stale ones swept


def _modes_under(folder: Path) -> list[tuple[Path, int]]:
    return [(path, path.lstat().st_mode) for path in [folder, *folder.rglob("*")]]


def _assert_private(folder: Path) -> None:
    assert folder.name.startswith(f"{VIEW_PREFIX}{os.getpid()}-")
    for path, mode in _modes_under(folder):
        assert mode & 0o007 == 0, f"{path} is open to other users ({stat.filemode(mode)})"
        assert not stat.S_ISLNK(mode)
        if sandbox_user() is not None:
            assert path.lstat().st_gid == SANDBOX_UID  # the sandbox's user reads through the group, nobody else
        else:
            assert mode & 0o070 == 0


def test_private_view_is_closed_to_other_users(env_dir: Path) -> None:
    old_umask = os.umask(0)  # a permissive umask must not open the files
    try:
        folder = make_private_view(CorpusView.open(env_dir))
    finally:
        os.umask(old_umask)
    try:
        _assert_private(folder)
        assert (folder / "corpus" / "emails" / "0002.txt").read_text() == TEXTS["emails/0002.txt"]
    finally:
        shutil.rmtree(folder)


@needs_bwrap
@pytest.mark.slow
def test_shell_view_is_closed_to_other_users(env_dir: Path) -> None:
    before = set(Path(tempfile.gettempdir()).glob(f"{VIEW_PREFIX}*"))
    box = Toolbox(CorpusView.open(env_dir))
    try:
        assert "40 units" in box.call("shell", {"command": "cat emails/0002.txt"}).output
        made = set(Path(tempfile.gettempdir()).glob(f"{VIEW_PREFIX}*")) - before
        assert len(made) == 1
        _assert_private(made.pop())
    finally:
        box.close()


KILLED_CHILD = """
import sys, time
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.tools import make_private_view
print(make_private_view(CorpusView.open(sys.argv[1])), flush=True)
time.sleep(60)
"""


def test_views_of_killed_runs_are_swept_by_the_next_toolbox(
    env_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    child = subprocess.Popen([sys.executable, "-c", KILLED_CHILD, str(env_dir)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        killed = Path(child.stdout.readline().strip())
        assert killed.parent == tmp and (killed / "corpus" / "emails" / "0001.txt").is_file()
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    live = tmp / f"{VIEW_PREFIX}{os.getpid()}-live"
    old_legacy, new_legacy = tmp / f"{VIEW_PREFIX}oldstyle", tmp / f"{VIEW_PREFIX}newstyle"
    for folder in (live, old_legacy, new_legacy):
        folder.mkdir()
    os.utime(old_legacy, (time.time() - 2 * 86400, time.time() - 2 * 86400))
    not_ours = tmp / f"{VIEW_PREFIX}999999999-link"
    not_ours.symlink_to(live)

    Toolbox(CorpusView.open(env_dir), shell=False)  # the next run

    assert not killed.exists() and not old_legacy.exists()
    assert live.is_dir() and new_legacy.is_dir() and not_ours.is_symlink()
