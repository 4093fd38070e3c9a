"""Issue 29, items 4-7 and two of item 10: damaged stores and bad input end in one line, never a traceback.

- Item 4: a run store whose rows were damaged with sqlite3 (a meta value that is not JSON or not the shape written,
  a response, request or score that is not what lexprobe stored) is one line naming the table, row and column, exit
  2; a damaged answer in the response cache is dropped with a warning and asked again.
- Item 5: a scripted model file that is binary, nested 100,000 deep or holds a lone surrogate is `FILE:LINE: reason`.
- Item 6: `score-answers` names a line with a NUL or a lone surrogate and scores the rest.
- Item 7: a server that refuses the connection before it ever answered fails at once naming the URL; after it has
  answered, a refused connection (a restart) is retried.
- Item 10: `score-answers` reads a unique case name; a UTF-8-corrupt `run.sqlite` says to move it aside.

Everything goes through the installed `lexprobe` console script on real SQLite files, except the mid-run restart,
which runs the engine against a loopback HTTP server that answers once and then stops listening.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import free_port

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import run_requests
from lexprobe.engine.store import RunStore
from lexprobe.models.types import Request

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
ANSWER = "Yes, it is a real case."


def run_cli(*args: str | Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = os.environ.copy() | {"COLUMNS": "200"}
    return subprocess.run([LEXPROBE, *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout)


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single error line of a refused command (exit 2, no traceback), rich's wrapping undone."""
    assert result.returncode == 2, (result.returncode, result.stderr[-3000:])
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    lines = result.stderr.strip().splitlines()
    assert lines and lines[0].startswith("error:"), result.stderr
    return " ".join(result.stderr.split())


def profile(model: str, run_dir: Path, db: Path) -> subprocess.CompletedProcess[str]:
    """A small hallucination run: existence questions about two Supreme Court cases, both prompt styles."""
    return run_cli("hallucination", "run", "--model", model, "--tasks", "existence", "--levels", "scotus", "--n", "2",
                   "--samples", "0", "--seed", "5", "--run-dir", run_dir, "--db", db, "--json")  # fmt: skip


@pytest.fixture(scope="module")
def done_run(case_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A finished run directory (answers of a scripted model) and that model's spec; tests damage copies of it."""
    folder = tmp_path_factory.mktemp("done")
    script = folder / "yes.jsonl"
    script.write_text(json.dumps({"text": ANSWER}) + "\n")
    model = f"scripted:{script}"
    result = profile(model, folder / "run", case_db_path)
    assert result.returncode == 0, result.stderr
    return folder / "run", model


def damaged_copy(done_run: tuple[Path, str], tmp_path: Path, sql: str) -> Path:
    run_dir = tmp_path / "run"
    shutil.copytree(done_run[0], run_dir)
    conn = sqlite3.connect(run_dir / "run.sqlite")
    with conn:
        assert conn.execute(sql).rowcount == 1
    conn.close()
    return run_dir


# --- item 4: a damaged run store --------------------------------------------------------------------------------

FIRST = "(SELECT MIN(rowid) FROM {table})"
#: (damage, SQL, what the message names, the commands that read the damaged row)
RUN_STORE_DAMAGE = [
    ("model not JSON", "UPDATE meta SET value = 'not json' WHERE key = 'model'", "meta row 'model', column value",
     ("report", "run")),
    ("model not a string", "UPDATE meta SET value = '42' WHERE key = 'model'", "meta row 'model', column value",
     ("report", "run")),
    ("kinds not a list", "UPDATE meta SET value = '{}' WHERE key = 'kinds'", "meta row 'kinds', column value",
     ("report", "run")),
    ("coverage not a list", "UPDATE meta SET value = '42' WHERE key = 'coverage'", "meta row 'coverage', column value",
     ("report",)),
    ("settings not JSON", "UPDATE meta SET value = '{' WHERE key = 'settings'", "meta row 'settings', column value",
     ("report", "run")),
    ("response body", f"UPDATE responses SET body = 'garbage' WHERE rowid = {FIRST.format(table='responses')}",
     "responses row", ("report", "run")),
    ("response body not text", f"UPDATE responses SET body = x'ff00' WHERE rowid = {FIRST.format(table='responses')}",
     "responses row", ("report", "run")),
    ("request body", f"UPDATE requests SET body = 'garbage' WHERE rowid = {FIRST.format(table='requests')}",
     "requests row", ("report", "run")),
    ("score detail", f"UPDATE scores SET detail = 'garbage' WHERE rowid = {FIRST.format(table='scores')}",
     "scores row", ("report",)),
    ("score detail a list", f"UPDATE scores SET detail = '[1]' WHERE rowid = {FIRST.format(table='scores')}",
     "scores row", ("report",)),
]  # fmt: skip


@pytest.mark.parametrize(("damage", "sql", "names", "commands"), RUN_STORE_DAMAGE, ids=[r[0] for r in RUN_STORE_DAMAGE])
def test_a_damaged_run_store_row_is_one_line_naming_table_row_and_column(
    done_run: tuple[Path, str], case_db_path: Path, tmp_path: Path, damage: str, sql: str, names: str,
    commands: tuple[str, ...],
) -> None:  # fmt: skip
    run_dir = damaged_copy(done_run, tmp_path, sql)
    column = names.rsplit(" ", 1)[-1] if "column" in names else ""
    runs = {"report": lambda: run_cli("hallucination", "report", run_dir),
            "run": lambda: profile(done_run[1], run_dir, case_db_path)}  # fmt: skip
    for command in commands:
        message = one_line(runs[command]())
        assert f"{run_dir / 'run.sqlite'} is damaged" in message, (command, message)
        assert names in message and "new --run-dir" in message, (command, message)
        if not column:  # the row's key and the column are named too
            assert re.search(r"row '[^']+', column (body|detail)", message), (command, message)


def test_run_rewrites_damaged_scores_and_coverage_it_recomputes(
    done_run: tuple[Path, str], case_db_path: Path, tmp_path: Path
) -> None:
    """A rerun recomputes scores and coverage from the answers: damage there is replaced, not read."""
    run_dir = damaged_copy(done_run, tmp_path, "UPDATE meta SET value = '42' WHERE key = 'coverage'")
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        conn.execute(f"UPDATE scores SET detail = 'garbage' WHERE rowid = {FIRST.format(table='scores')}")
    conn.close()
    result = profile(done_run[1], run_dir, case_db_path)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert run_cli("hallucination", "report", run_dir, "--json").returncode == 0


def test_a_utf8_corrupt_run_store_says_to_move_it_aside(case_db_path: Path, tmp_path: Path) -> None:  # item 10
    marker = "MARKER-" * 8
    script = tmp_path / "marked.jsonl"
    script.write_text(json.dumps({"text": f"Yes. {marker}"}) + "\n")
    run_dir = tmp_path / "run"
    assert profile(f"scripted:{script}", run_dir, case_db_path).returncode == 0
    store = run_dir / "run.sqlite"
    data = store.read_bytes()
    assert marker.encode() in data
    store.write_bytes(data.replace(marker.encode(), b"\xff\xfe" * (len(marker) // 2)))
    message = one_line(run_cli("hallucination", "report", run_dir))
    assert f"{store} is damaged" in message and "move it aside or use a new --run-dir" in message
    assert len(message) < 600  # the undecodable text is not poured out


# --- item 4: a damaged answer in the response cache -------------------------------------------------------------


def damage_cache(cache: Path) -> int:
    conn = sqlite3.connect(cache / "responses.sqlite")
    with conn:
        damaged = conn.execute("UPDATE responses SET body = 'garbage'").rowcount
    conn.close()
    return damaged


def test_ask_drops_a_damaged_cached_answer_and_asks_again(isolated_cache: Path, tmp_path: Path) -> None:
    script = tmp_path / "answer.jsonl"
    script.write_text(json.dumps({"text": "forty-two"}) + "\n")
    ask = ("ask", "--model", f"scripted:{script}", "--json", "What is the answer?")
    first = run_cli(*ask)
    assert first.returncode == 0, first.stderr
    assert damage_cache(isolated_cache) == 1
    again = run_cli(*ask)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert json.loads(again.stdout) | {"latency_s": 0} == json.loads(first.stdout) | {"latency_s": 0}
    assert "damaged" in again.stderr and "asked again" in " ".join(again.stderr.split())
    cached = run_cli(*ask)  # the fresh answer went back into the cache
    assert cached.returncode == 0 and json.loads(cached.stdout)["cached"] is True
    assert "damaged" not in cached.stderr


def test_a_run_drops_damaged_cached_answers_and_asks_again(
    done_run: tuple[Path, str], case_db_path: Path, isolated_cache: Path, tmp_path: Path
) -> None:
    assert profile(done_run[1], tmp_path / "first", case_db_path).returncode == 0
    assert damage_cache(isolated_cache) == 4
    result = profile(done_run[1], tmp_path / "second", case_db_path)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "4 damaged answer(s)" in " ".join(result.stderr.split())
    answers = RunStore.open_read_only(tmp_path / "second").responses()
    assert [response.text for response in answers.values()] == [ANSWER] * 4
    assert not any(response.cached for response in answers.values())  # asked again, not served from the cache
    cache = ResponseCache(isolated_cache)
    assert len(cache) == 4
    cache.close()


# --- item 5: malformed scripted model files ---------------------------------------------------------------------

SCRIPTS = [
    ("binary", b"\xff\xfe\x00\x01\x89PNG binary", "not valid UTF-8"),
    ("deep nesting", b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
    ("lone surrogate in text", b'{"text": "\\ud800"}', "lone surrogate"),
    ("lone surrogate in a tool call", b'{"tool_calls": [{"name": "grep", "arguments": {"q": "\\udfff"}}]}',
     "lone surrogate"),
    ("lone surrogate in when", b'{"when": "\\ud83d", "text": "x"}', "lone surrogate"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "line", "reason"), SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_a_malformed_script_line_is_file_line_reason(tmp_path: Path, kind: str, line: bytes, reason: str) -> None:
    script = tmp_path / "model.jsonl"
    script.write_bytes(b'{"text": "fine"}\n' + line + b"\n")
    message = one_line(run_cli("ask", "--model", f"scripted:{script}", "hello"))
    assert f"{script}:2: " in message and reason in message, message


# --- item 6: score-answers with fields that are not text ----------------------------------------------------------


def test_score_answers_names_nul_and_surrogate_lines_and_scores_the_rest(case_db_path: Path, tmp_path: Path) -> None:
    good = {"task": "existence", "case": "347 U.S. 483", "answer": "Yes, it is a real case."}
    lines = [
        json.dumps(good),
        json.dumps(good | {"case": "347 U.S.\u0000 483"}),
        json.dumps(good | {"case": "347 U.S. 483\ud800"}),  # json.dumps writes the escape \ud800
        json.dumps(good | {"answer": "Yes\u0000"}),
        json.dumps(good | {"dissenter": "\udfff"}),
        json.dumps(good | {"case": "163 U.S. 537"}),
    ]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(lines) + "\n")
    result = run_cli("hallucination", "score-answers", answers, "--db", case_db_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    named = dict(re.findall(rf"^{re.escape(str(answers))}:(\d+): (.*)$", result.stderr, re.M))
    assert set(named) == {"2", "3", "4", "5"}, result.stderr
    assert "NUL" in named["2"] and "NUL" in named["4"]
    assert "lone surrogate" in named["3"] and "lone surrogate" in named["5"]
    assert [json.loads(line)["case"] for line in result.stdout.splitlines()] == ["347 U.S. 483", "163 U.S. 537"]
    assert "4 bad line(s)" in result.stderr and "2 line(s) scored" in result.stderr


# --- item 10: a case given by its name ---------------------------------------------------------------------------


def score_one(case_db_path: Path, tmp_path: Path, record: dict) -> dict:
    answers = tmp_path / "one.jsonl"
    answers.write_text(json.dumps(record) + "\n")
    result = run_cli("hallucination", "score-answers", answers, "--db", case_db_path)
    assert result.returncode == 0, result.stderr
    (scored,) = [json.loads(line) for line in result.stdout.splitlines()]
    return scored


def test_score_answers_reads_a_unique_case_name(case_db_path: Path, tmp_path: Path) -> None:
    by_name = score_one(case_db_path, tmp_path, {"task": "existence", "case": "Miranda v. Arizona", "answer": "Yes."})
    by_cite = score_one(case_db_path, tmp_path, {"task": "existence", "case": "384 U.S. 436", "answer": "Yes."})
    assert "not in the case database" not in by_name["detail"], by_name
    assert (by_name["label"], by_name["detail"]) == (by_cite["label"], by_cite["detail"])
    assert by_name["label"] != "unscored"


def test_score_answers_lists_the_cases_an_ambiguous_name_names(case_db_path: Path, tmp_path: Path) -> None:
    conn = sqlite3.connect(case_db_path)
    (name,) = conn.execute(
        "SELECT c.name FROM cases c JOIN facts f ON f.case_id = c.case_id AND f.field = 'name'"
        " AND f.value = c.name WHERE c.level = 'scotus' AND c.citation IS NOT NULL GROUP BY c.name"
        " HAVING COUNT(DISTINCT c.case_id) BETWEEN 2 AND 5 ORDER BY c.name LIMIT 1"
    ).fetchone()
    conn.close()
    scored = score_one(case_db_path, tmp_path, {"task": "existence", "case": name, "answer": "Yes."})
    assert scored["label"] == "unscored", scored
    assert "give a citation or id" in scored["detail"] and "cases:" in scored["detail"], scored


def test_score_answers_help_says_what_the_case_field_takes() -> None:
    result = run_cli("hallucination", "score-answers", "--help")
    text = " ".join(result.stdout.split())
    assert "citation" in text and "full name" in text and "Miranda v. Arizona" in text


# --- item 7: an unreachable endpoint ----------------------------------------------------------------------------


def refused_url() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there once the probe socket is closed


def test_ask_on_a_refused_endpoint_fails_at_once_naming_the_url() -> None:
    url = refused_url()
    started = time.monotonic()
    message = one_line(run_cli("ask", "--model", f"openai-compatible/x@{url}", "hello", timeout=60))
    assert time.monotonic() - started < 20
    assert url in message and "cannot connect" in message
    assert "retrying" not in message


def test_a_run_on_a_refused_endpoint_fails_at_once_naming_the_url(case_db_path: Path, tmp_path: Path) -> None:
    url = refused_url()
    started = time.monotonic()
    result = profile(f"openai-compatible/x@{url}", tmp_path / "run", case_db_path)
    message = one_line(result)
    assert time.monotonic() - started < 30
    assert url in message and "cannot connect" in message
    assert result.stderr.count("retrying") == 0


def completion(text: str) -> bytes:
    body = json.dumps({
        "id": "c1", "object": "chat.completion", "created": 0, "model": "x",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }).encode()  # fmt: skip
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close"
    return head.encode() + b"\r\n\r\n" + body


def answer_once(listener: socket.socket) -> None:
    """Answer one chat completion, then stop listening: later connections are refused (a server gone down)."""
    conn, _ = listener.accept()
    with conn:
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
        while len(body) < length:
            body += conn.recv(65536)
        conn.sendall(completion("first"))
    listener.close()


def test_a_refused_connection_after_an_answer_is_retried_as_transient(tmp_path: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    server = threading.Thread(target=answer_once, args=(listener,), daemon=True)
    server.start()
    spec = f"openai-compatible/x@{url}"
    requests = [Request.from_prompt(spec, f"question {i}", temperature=0.0, id=f"q{i}") for i in range(2)]
    config = EngineConfig(max_retries=2, backoff_initial_s=0.01, backoff_max_s=0.02, jitter_s=0.0, timeout_s=10,
                          concurrency=1, use_cache=False, progress=False)  # fmt: skip
    store = RunStore.open(tmp_path / "run")
    try:
        summary = run_requests(requests, store, None, config)  # no exception: the run is not ended
        assert summary.sent == 1 and summary.failed == 1 and summary.failed_permanent == 0
        assert summary.retries == 2
        events = [row.event for row in store.telemetry("q1")]
        assert events == ["retry", "retry", "failed"]
        assert url in store.telemetry("q1")[-1].error
    finally:
        store.close()
        server.join(5)
