"""Run directories, locks and damaged stores (issue 12, items 9-11), through real `lexprobe` subprocesses.

- One run directory holds one kind of run of one model; other settings are refused naming what differs.
- One process at a time runs in a run directory (`run.lock`); a stale lock of a dead process is taken over.
- A damaged cache is moved aside and the run goes on; a damaged run store or case database, or a read-only run
  directory, is one line naming the file and exit 2; `hallucination report` reads a read-only run directory.

Tests run as root, where `chmod` does not stop writes. A read-only run directory is therefore made with a
read-only bind mount in a private mount namespace (`unshare -m` + `mount --bind -o ro`), inside which the
`lexprobe` subprocess runs; the test skips where the kernel refuses that (unless CI=true, where it must work).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from tool_requirements import require_read_only_mounts, run_with_read_only

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.lock import LOCK_NAME, RunDirLock
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.models.types import Request, Response, Usage

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
VERDICT_KEY = "give your view on each hypothesis"


def run_cli(*args: str | Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *map(str, args)], capture_output=True, text=True, env=os.environ.copy(),
                          timeout=timeout)  # fmt: skip


def one_line(result: subprocess.CompletedProcess) -> str:
    """The single error line of a refused command (no traceback), with rich's wrapping undone."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines and lines[0].startswith("error:"), result.stderr
    return " ".join(result.stderr.split())


def script(path: Path, *lines: dict) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return f"scripted:{path}"


def profile(
    model: str, run_dir: Path, db: Path, *options: str, flags: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    """A small hallucination run (existence questions about two Supreme Court cases, both prompt styles: four
    requests); `options` are (flag, value) pairs replacing those settings."""
    base = {"--tasks": "existence", "--levels": "scotus", "--n": "2", "--samples": "0", "--seed": "5"}
    for flag, value in zip(options[::2], options[1::2], strict=True):
        base[flag] = value
    args = [item for pair in base.items() for item in pair]
    return run_cli("hallucination", "run", "--model", model, *args, *flags, "--run-dir", run_dir, "--db", db, "--json")


@pytest.fixture(scope="module")
def env_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "merits")


def agent(tmp_path: Path) -> str:
    """A scripted investigator: one summary, then verdicts."""
    verdicts = '[{"label": "H1", "verdict": "A"}, {"label": "H2", "verdict": "B"}]'
    return script(tmp_path / "agent.jsonl", {"text": "Summary: nothing found."},
                  {"when": VERDICT_KEY, "text": verdicts})  # fmt: skip


# --- item 9: one kind of run and one model per run directory ---------------------------------------------------


def test_investigation_in_a_hallucination_run_dir_is_refused_naming_the_kinds(
    case_db_path: Path, env_dir: Path, tmp_path: Path
) -> None:
    yes = script(tmp_path / "yes.jsonl", {"text": "Yes"})
    run_dir = tmp_path / "run"
    assert profile(yes, run_dir, case_db_path).returncode == 0
    other = agent(tmp_path)
    refused = run_cli("investigation", "run", env_dir, "--model", other, "--run-dir", run_dir)
    message = one_line(refused)
    assert "kind hallucination vs investigation" in message and f"model {yes} vs {other}" in message
    assert not (run_dir / "episodes").exists()
    report = run_cli("hallucination", "report", run_dir, "--json")
    assert report.returncode == 0 and json.loads(report.stdout)["models"][0]["model"] == yes


def test_hallucination_in_an_investigation_run_dir_is_refused_and_qa_may_join(
    case_db_path: Path, env_dir: Path, tmp_path: Path
) -> None:
    model = agent(tmp_path)
    run_dir = tmp_path / "run"
    investigation = run_cli("investigation", "run", env_dir, "--model", model, "--run-dir", run_dir,
                            "--tool-budget", "2")  # fmt: skip
    assert investigation.returncode == 0, investigation.stderr
    message = one_line(profile(model, run_dir, case_db_path))
    assert "kind investigation vs hallucination" in message and "model" not in message.split("(")[-1]
    assert "not a hallucination run" in one_line(run_cli("hallucination", "report", run_dir))
    # factual QA of the same model is a companion of its investigation episodes ...
    judge = script(tmp_path / "judge.jsonl", {"text": "[true, true]"})
    qa_model = script(tmp_path / "agent.jsonl", {"text": "ANSWER: nothing"})
    assert qa_model == model
    qa = run_cli("investigation", "qa", env_dir, "--model", model, "--judge", judge, "--run-dir", run_dir, "--json")
    assert qa.returncode == 0, qa.stderr
    assert list((run_dir / "qa").glob("*.qa.json")) and list((run_dir / "episodes").glob("*.json"))
    # ... but not QA of another model
    other = script(tmp_path / "other.jsonl", {"text": "ANSWER: x"})
    message = one_line(run_cli("investigation", "qa", env_dir, "--model", other, "--judge", judge,
                               "--run-dir", run_dir))  # fmt: skip
    assert f"model {model} vs {other}" in message


def test_another_model_in_a_run_dir_is_refused_naming_both(case_db_path: Path, tmp_path: Path) -> None:
    yes = script(tmp_path / "yes.jsonl", {"text": "Yes"})
    no = script(tmp_path / "no.jsonl", {"text": "No"})
    run_dir = tmp_path / "run"
    assert profile(yes, run_dir, case_db_path).returncode == 0
    message = one_line(profile(no, run_dir, case_db_path))
    assert f"model {yes} vs {no}" in message and "kind" not in message.split("(")[-1]
    assert f"holds a hallucination run of {yes}" in message
    # a dry run is refused the same way, and so is `ask` in a profile's run directory
    assert f"model {yes} vs {no}" in one_line(profile(no, run_dir, case_db_path, flags=("--dry-run",)))
    message = one_line(run_cli("ask", "--model", yes, "--run-dir", run_dir, "hi"))
    assert "kind hallucination vs ask" in message


def test_other_settings_name_each_difference_and_the_order_of_tasks_does_not_matter(
    case_db_path: Path, tmp_path: Path
) -> None:
    yes = script(tmp_path / "yes.jsonl", {"text": "Yes"})
    run_dir = tmp_path / "run"
    first = profile(yes, run_dir, case_db_path, "--tasks", "existence,fake_existence", "--prompt-styles", "zero,few")
    assert first.returncode == 0, first.stderr
    message = one_line(profile(yes, run_dir, case_db_path, "--tasks", "existence,fake_existence",
                               "--prompt-styles", "zero,few", "--n", "3", "--samples", "2"))  # fmt: skip
    assert "holds a run with other settings" in message
    assert "n: 2 -> 3" in message and "samples: 0 -> 2" in message
    assert "tasks" not in message and "seed" not in message
    reordered = profile(
        yes, run_dir, case_db_path, "--tasks", "fake_existence,existence", "--prompt-styles", "few,zero"
    )
    assert reordered.returncode == 0, reordered.stderr
    assert " 0 sent" in reordered.stderr
    assert json.loads(reordered.stdout)["rows"] == json.loads(first.stdout)["rows"]


def test_ask_run_dir_holds_one_model(tmp_path: Path) -> None:
    yes = script(tmp_path / "yes.jsonl", {"text": "Yes"})
    no = script(tmp_path / "no.jsonl", {"text": "No"})
    run_dir = tmp_path / "asks"
    assert run_cli("ask", "--model", yes, "--run-dir", run_dir, "one").returncode == 0
    assert run_cli("ask", "--model", yes, "--run-dir", run_dir, "two").returncode == 0
    assert f"model {yes} vs {no}" in one_line(run_cli("ask", "--model", no, "--run-dir", run_dir, "three"))


# --- item 10: the run-directory lock -----------------------------------------------------------------------------

HOLDER = """
import sys, time
from lexprobe.engine.lock import RunDirLock
RunDirLock(sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(120)
"""


def test_a_second_process_is_refused_while_the_first_holds_the_run_dir(case_db_path: Path, tmp_path: Path) -> None:
    yes = script(tmp_path / "yes.jsonl", {"text": "Yes"})
    run_dir = tmp_path / "run"
    assert profile(yes, run_dir, case_db_path).returncode == 0
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(run_dir)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        held = json.loads((run_dir / LOCK_NAME).read_text())
        assert held["pid"] == holder.pid and held["host"] and held["started"]
        message = one_line(profile(yes, run_dir, case_db_path))
        assert f"is in use by process {holder.pid}" in message and LOCK_NAME in message
        assert f"process {holder.pid}" in one_line(run_cli("ask", "--model", yes, "--run-dir", run_dir, "hi"))
        # reading needs no lock
        report = run_cli("hallucination", "report", run_dir, "--json")
        assert report.returncode == 0, report.stderr
        # nor does this process get the lock while the child lives
        with pytest.raises(Exception, match=f"process {holder.pid}"):
            RunDirLock(run_dir).acquire()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # the kernel dropped the dead holder's lock: the next run takes it over, says so, and cleans up after itself
    again = profile(yes, run_dir, case_db_path)
    assert again.returncode == 0, again.stderr
    assert "stale lock" in again.stderr and str(holder.pid) in again.stderr
    assert not (run_dir / LOCK_NAME).exists()


def test_a_lock_file_of_a_dead_process_is_taken_over(case_db_path: Path, tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / LOCK_NAME).write_text(json.dumps({"pid": dead.pid, "host": "elsewhere", "started": "then"}))
    result = profile(script(tmp_path / "yes.jsonl", {"text": "Yes"}), run_dir, case_db_path)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stderr.split())
    assert "stale lock" in text and f"process {dead.pid}" in text and "no longer running" in text
    assert not (run_dir / LOCK_NAME).exists()


def test_the_lock_is_reentrant_within_a_process_and_released_by_the_last_holder(tmp_path: Path) -> None:
    first, second = RunDirLock(tmp_path / "run"), RunDirLock(tmp_path / "run")
    with first, second:
        assert json.loads((tmp_path / "run" / LOCK_NAME).read_text())["pid"] == os.getpid()
    assert not (tmp_path / "run" / LOCK_NAME).exists()


# --- item 11: damaged and read-only stores -----------------------------------------------------------------------


def fill_cache(folder: Path, count: int = 400) -> Path:
    """A real response cache with enough rows to span many pages; returns its file."""
    cache = ResponseCache(folder)
    for index in range(count):
        request = Request.from_prompt("scripted:/nowhere", f"question {index}")
        cache.put(request.cache_key(), request.model, Response(text="x" * 400, model="m", usage=Usage()))
    cache.close()
    return folder / "responses.sqlite"


def damage(path: Path, how: str) -> None:
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if how == "truncated" else os.urandom(len(data)))


@pytest.mark.parametrize("how", ["truncated", "garbage"])
def test_a_damaged_cache_is_moved_aside_and_the_run_goes_on(
    case_db_path: Path, tmp_path: Path, isolated_cache: Path, how: str
) -> None:
    cache_file = fill_cache(isolated_cache)
    damage(cache_file, how)
    result = profile(script(tmp_path / "yes.jsonl", {"text": "Yes"}), tmp_path / "run", case_db_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    text = " ".join(result.stderr.split())
    assert "response cache" in text and "damaged" in text and "moved it to" in text
    (aside,) = isolated_cache.glob("responses.sqlite.corrupt-*")
    assert aside.stat().st_size > 0
    assert len(ResponseCache(isolated_cache)) == 4  # the fresh cache holds this run's answers


@pytest.mark.parametrize("how", ["truncated", "garbage"])
def test_a_damaged_run_store_is_one_line_naming_it(case_db_path: Path, tmp_path: Path, how: str) -> None:
    yes = script(tmp_path / "yes.jsonl", {"text": "Yes"})
    run_dir = tmp_path / "run"
    assert profile(yes, run_dir, case_db_path).returncode == 0
    store = run_dir / "run.sqlite"
    damage(store, how)
    for result in (profile(yes, run_dir, case_db_path), run_cli("hallucination", "report", run_dir)):
        message = one_line(result)
        assert f"{store} is damaged" in message and "new --run-dir" in message


@pytest.mark.parametrize("how", ["truncated", "garbage", "other"])
def test_a_damaged_case_database_is_one_line_naming_it(case_db_path: Path, tmp_path: Path, how: str) -> None:
    db = tmp_path / "caselaw.sqlite"
    if how == "other":
        sqlite3.connect(db).execute("CREATE TABLE t (x)").connection.close()
    else:
        with case_db_path.open("rb") as handle:  # the first megabyte of the real database, or as much noise
            db.write_bytes(handle.read(1 << 20) if how == "truncated" else os.urandom(1 << 20))
    message = one_line(profile(script(tmp_path / "yes.jsonl", {"text": "Yes"}), tmp_path / "run", db))
    assert str(db) in message and "lexprobe data build" in message
    assert ("not a lexprobe case database" if how == "other" else "is damaged") in message


def in_read_only(folders: list[Path], *args: str | Path) -> subprocess.CompletedProcess:
    """Run `lexprobe ARGS` with each folder bind-mounted read-only over itself (private mount namespace)."""
    return run_with_read_only(folders, [LEXPROBE, *map(str, args)])


def test_read_only_run_directory_reports_and_refuses_to_run(case_db_path: Path, tmp_path: Path) -> None:
    require_read_only_mounts()
    yes = script(tmp_path / "yes.jsonl", {"text": "Yes"})
    run_dir = tmp_path / "run"
    first = profile(yes, run_dir, case_db_path)
    assert first.returncode == 0, first.stderr
    assert sorted(path.name for path in run_dir.iterdir()) == ["run.sqlite"]  # closed cleanly: no -wal file
    report = in_read_only([run_dir], "hallucination", "report", run_dir, "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["rows"] == json.loads(first.stdout)["rows"]
    refused = in_read_only([run_dir], "hallucination", "run", "--model", yes, "--tasks", "existence", "--levels",
                           "scotus", "--n", "2", "--samples", "0", "--seed", "5", "--run-dir", run_dir,
                           "--db", case_db_path)  # fmt: skip
    message = one_line(refused)
    assert f"run directory {run_dir} is not writable" in message
    # a read-only cache folder is one line too
    cache = Path(os.environ["LEXPROBE_CACHE"])
    cache.mkdir(parents=True, exist_ok=True)
    refused = in_read_only([cache], "hallucination", "run", "--model", yes, "--tasks", "existence", "--n", "2",
                           "--samples", "0", "--run-dir", tmp_path / "run2", "--db", case_db_path)  # fmt: skip
    assert str(cache / "responses.sqlite") in one_line(refused)
    # with a live -wal file (a run that was killed), the read-only report still reads every answer
    conn = sqlite3.connect(run_dir / "run.sqlite")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("UPDATE meta SET value = value")
    report = in_read_only([run_dir], "hallucination", "report", run_dir, "--json")
    conn.close()
    assert report.returncode == 0, report.stderr


def test_open_read_only_opens_a_store_without_touching_it(case_db_path: Path, tmp_path: Path) -> None:
    """`RunStore.open_read_only` neither locks nor writes: a run can hold the lock meanwhile."""
    from lexprobe.engine.store import RunStore

    yes = script(tmp_path / "yes.jsonl", {"text": "Yes"})
    run_dir = tmp_path / "run"
    assert profile(yes, run_dir, case_db_path).returncode == 0
    before = (run_dir / "run.sqlite").read_bytes()
    with RunDirLock(run_dir):
        store = RunStore.open_read_only(run_dir)
        assert store.counts()["completed"] == 4 and store.kinds() == ["hallucination"]
        with pytest.raises(Exception, match=r"readonly|read-only"):
            store.set_meta("x", 1)
        store.close()
    assert (run_dir / "run.sqlite").read_bytes() == before
