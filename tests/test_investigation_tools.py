"""The agent tools over a small environment: paging, glob, grep, and the sandboxed shell against confinement attacks
(path traversal, symlinks, absolute paths, /etc/passwd, writes, network, fork bombs, huge outputs)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tool_requirements import needs_bwrap

from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.tools import MAX_GREP_HITS, MAX_OUTPUT_CHARS, Toolbox, tool_specs
from lexprobe.investigation.environment.format import (
    CaseInfo,
    Document,
    Environment,
    Fact,
    Hypothesis,
    HypothesisKind,
    Role,
    save_environment,
)
from lexprobe.investigation.shell.sandbox import refusal

TEXTS = {
    "emails/0001.txt": "From: Dana Reyes\nTo: Sam Ortiz\nSubject: shipment\n\nThe pallets left Reno on March 3.\n",
    "emails/0002.txt": "From: Sam Ortiz\nTo: Dana Reyes\n\nReceived, but 40 units were damaged.\n",
    "contracts/supply.txt": "\n".join(f"Section {i}. Clause text {i}." for i in range(1, 301)) + "\n",
    "notes/chaff.txt": "Lunch order: 3 sandwiches.\n",
}


@pytest.fixture
def env_dir(tmp_path: Path) -> Path:
    env = tmp_path / "env"
    for path, text in TEXTS.items():
        target = env / "corpus" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    roles = {"emails/0001.txt": Role.merits, "emails/0002.txt": Role.signal, "contracts/supply.txt": Role.merits,
             "notes/chaff.txt": Role.chaff}  # fmt: skip
    documents = [Document(doc_id=f"d{i}", path=path, format="txt", doc_type="email", role=role)
                 for i, (path, role) in enumerate(roles.items())]  # fmt: skip
    save_environment(env, Environment(
        case=CaseInfo(case_id="t", name="Test v. Case (fictional)", dispositive_question="Was it damaged?",
                      fictional=True),
        facts=[Fact(fact_id="f1", text="40 units were damaged")],
        hypotheses=[Hypothesis(hypothesis_id="h1", kind=HypothesisKind.court_adopted, claim="Damaged.")],
        documents=documents,
    ))  # fmt: skip
    (tmp_path / "secret.txt").write_text("TOP SECRET\n")
    return env


@pytest.fixture
def toolbox(env_dir: Path):
    box = Toolbox(CorpusView.open(env_dir))
    yield box
    box.close()


def test_read_pages_with_line_numbers(toolbox: Toolbox) -> None:
    result = toolbox.call("read", {"path": "contracts/supply.txt", "offset": 100, "limit": 3})
    assert result.output.splitlines()[:3] == [f"{n:>6}\tSection {n}. Clause text {n}." for n in (100, 101, 102)]
    assert "lines 100-102 of 300" in result.output and result.documents == ["contracts/supply.txt"]
    default = toolbox.call("read", {"path": "./contracts//supply.txt"})
    assert "lines 1-200 of 300" in default.output
    past = toolbox.call("read", {"path": "contracts/supply.txt", "offset": 999})
    assert "past the end" in past.output


def test_glob_and_grep(toolbox: Toolbox) -> None:
    assert toolbox.call("glob", {"pattern": "emails/*"}).output.splitlines() == ["emails/0001.txt", "emails/0002.txt"]
    assert toolbox.call("glob", {"pattern": "**/*.txt"}).output.count("\n") == 3
    assert "no documents match" in toolbox.call("glob", {"pattern": "*.pdf"}).output
    hit = toolbox.call("grep", {"pattern": r"\d+ units"})
    assert "emails/0002.txt:4: Received, but 40 units were damaged." in hit.output
    assert hit.documents == ["emails/0002.txt"]
    assert "emails/0002.txt-3- " in hit.output  # context line before
    many = toolbox.call("grep", {"pattern": "Section", "path": "contracts"})
    assert many.output.count("contracts/supply.txt:") == MAX_GREP_HITS and "stopped at" in many.output
    assert toolbox.call("grep", {"pattern": "("}).error


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read", {"path": "../secret.txt"}),
        ("read", {"path": "/etc/passwd"}),
        ("read", {"path": "emails/../../secret.txt"}),
        ("grep", {"pattern": "SECRET", "path": ".."}),
        ("glob", {"pattern": "../*"}),
        ("read", {"path": "C:/Windows/win.ini"}),
    ],
)
def test_paths_outside_the_corpus_are_refused(toolbox: Toolbox, tool: str, arguments: dict) -> None:
    result = toolbox.call(tool, arguments)
    assert result.refused and "outside the corpus" in result.output and "TOP SECRET" not in result.output


def test_symlinks_out_of_the_corpus_are_not_followed(env_dir: Path) -> None:
    os.symlink(env_dir.parent / "secret.txt", env_dir / "corpus" / "emails" / "link.txt")
    box = Toolbox(CorpusView.open(env_dir))
    try:
        assert "link.txt" not in box.call("glob", {"pattern": "**"}).output
        assert "TOP SECRET" not in box.call("read", {"path": "emails/link.txt"}).output
        assert "TOP SECRET" not in box.call("grep", {"pattern": "SECRET"}).output
    finally:
        box.close()


def test_bad_calls_come_back_as_text(toolbox: Toolbox) -> None:
    assert toolbox.call("read", {}).error and "needs the argument" in toolbox.call("read", {}).output
    assert "unknown tool" in toolbox.call("write", {"path": "x"}).output
    assert toolbox.call("read", {"path": "emails/0001.txt", "offset": "x"}).error


@pytest.mark.parametrize(
    "command",
    ["rm -rf /corpus", "echo x > emails/0001.txt", "cat a >> b", "curl http://127.0.0.1", "wget example.com",
     "python3 -c 'print(1)'", "sed -i s/a/b/ emails/0001.txt", "find . -delete", ":(){ :|:& };:", "sudo cat x",
     "ls | tee out.txt", "bash -c 'id'"],
)  # fmt: skip
def test_dangerous_commands_are_refused_before_running(command: str) -> None:
    assert refusal(command) is not None


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn units .",
        "sed -n 1,5p emails/0001.txt",
        "wc -l */*",
        "ls -R",
        "head -3 emails/0001.txt 2>&1",
        "grep -c x emails/0001.txt 2>/dev/null",
    ],
)
def test_read_only_commands_are_allowed(command: str) -> None:
    assert refusal(command) is None


@needs_bwrap
@pytest.mark.slow
def test_shell_runs_confined(toolbox: Toolbox) -> None:
    listing = toolbox.call("shell", {"command": "grep -rn 'units' ."})
    assert "./emails/0002.txt:4:Received, but 40 units were damaged." in listing.output
    assert listing.documents == ["emails/0002.txt"]
    passwd = toolbox.call("shell", {"command": "cat /etc/passwd; ls /; cat ../secret.txt"})
    assert "root:" not in passwd.output and "TOP SECRET" not in passwd.output
    assert "home" not in passwd.output.split()
    environment = toolbox.call("shell", {"command": "cat /proc/1/environ; env"})
    assert "API_KEY" not in environment.output and "LEXPROBE" not in environment.output
    network = toolbox.call("shell", {"command": "cat < /dev/tcp/127.0.0.1/80 2>&1; ls /sys/class/net 2>&1"})
    assert "lo" not in network.output.split()  # no network devices in the sandbox (and no /sys at all)
    touch = toolbox.call("shell", {"command": "ls -la /corpus/emails && : > /corpus/x 2>&1"})
    assert touch.refused or "Read-only" in touch.output or "Permission denied" in touch.output


@needs_bwrap
@pytest.mark.slow
def test_shell_stops_fork_bombs_long_commands_and_floods(toolbox: Toolbox) -> None:
    bomb = toolbox.call("shell", {"command": "for i in $(seq 500); do sleep 20 & done; echo spawned"})
    assert "Cannot fork" in bomb.output or "time limit" in bomb.output
    slow = toolbox.call("shell", {"command": "sleep 60"})
    assert "time limit" in slow.output
    flood = toolbox.call("shell", {"command": "yes lexprobe"})
    assert flood.truncated and len(flood.output) <= MAX_OUTPUT_CHARS + 200


def test_shell_is_disabled_without_a_sandbox(env_dir: Path) -> None:
    box = Toolbox(CorpusView.open(env_dir), shell=False)
    assert [spec.name for spec in tool_specs(box.shell_enabled)] == ["read", "glob", "grep"]
    result = box.call("shell", {"command": "ls"})
    assert result.refused and "disabled" in result.output
