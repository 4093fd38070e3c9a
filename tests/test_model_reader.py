"""The model reader (issue 45): `hallucination run --reader MODEL` sends the answers the rules leave unscored to a
model that says, as JSON, the value the answer gives, or that it declines, or that it gives no answer. End to end
with real run stores and scripted models (the model under test and the reader): run, report, the viewer's JSON and
page, export-labels and agreement; the reader's decisions cached; malformed replies; off by default."""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import expect
from playwright_support import watched_page
from starlette.testclient import TestClient
from test_view_fixtures import start_viewer, stop_viewer
from tool_requirements import needs_chromium

from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.profile.results import SKIPPED_ROLES
from lexprobe.hallucination.scorers.by_task import SCORERS
from lexprobe.hallucination.scorers.model_reader import (
    READER_ROLE,
    READER_SCHEMA,
    VALUE_WANTED,
    Reading,
    needs_reading,
    parse_reading,
    reader_prompt,
    reader_request,
    reader_score,
)
from lexprobe.hallucination.scorers.reader_sheet import parse_code, same_code
from lexprobe.hallucination.tasks.author import AuthorReference
from lexprobe.hallucination.tasks.base import TaskReference
from lexprobe.models.types import Request
from lexprobe.view.app import build_app, plan_view

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
TASKS = "existence,fake_existence,disposition,author,overruling_year"

#: What the model under test says to each task's zero-shot question: words no rule can read.
MODEL_SCRIPT = [
    {"when": "a real case", "text": "zorp-7: the ledger glows."},
    {"when": "affirm or reverse", "text": "qlux-3 fwee."},
    {"when": "first and the last name", "text": "vrem-9 blorp."},
    {"when": "overruled", "text": "krex-5 snid."},
]
#: What the reader reads in each: a value (scored by existence's and fake_existence's own rules), a decline, no
#: answer, and a reply that is not JSON.
READER_SCRIPT = [
    {"when": "zorp-7", "text": '{"decision": "answer", "value": "yes"}'},
    {"when": "qlux-3", "text": '```json\n{"decision": "declined", "value": null}\n```'},
    {"when": "vrem-9", "text": '{"decision": "no answer", "value": null}'},
    {"when": "krex-5", "text": "I think it is probably 1954."},
]
EXPECTED_COUNTS = {"read": 15, "answer": 6, "declined": 3, "no answer": 3, "unreadable": 3}


def cli(*args: str, cache: Path | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run the real `lexprobe` CLI (with the response cache in `cache` where given) and return what it did."""
    env = os.environ | ({"LEXPROBE_CACHE": str(cache)} if cache is not None else {})
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=env, timeout=timeout)


def _script(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return f"scripted:{path}"


def _run(
    model: str, run_dir: Path, case_db: Path, *extra: str, cache: Path | None = None
) -> subprocess.CompletedProcess:
    return cli("hallucination", "run", "--model", model, "--tasks", TASKS, "--levels", "scotus", "--n", "3",
               "--prompt-styles", "zero", "--complete-cases", "--samples", "2", "--run-dir", str(run_dir),
               "--db", str(case_db), "--json", *extra, cache=cache)  # fmt: skip


def _scores(run_dir: Path) -> dict[str, tuple[str, dict]]:
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        rows = conn.execute("SELECT request_id, label, detail FROM scores WHERE scorer = 'reference'").fetchall()
    return {request_id: (label, json.loads(detail)) for request_id, label, detail in rows}


def _reader_calls(run_dir: Path) -> dict[str, list[str]]:
    """Each reader request's telemetry events (`ok`: the model was called; `cache_hit`: it was not)."""
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        rows = conn.execute(
            "SELECT q.request_id, t.event FROM requests q JOIN telemetry t USING (request_id) "
            "WHERE json_extract(q.tags, '$.role') = 'reader' ORDER BY t.id"
        ).fetchall()
    calls: dict[str, list[str]] = {}
    for request_id, event in rows:
        calls.setdefault(request_id, []).append(event)
    return calls


@dataclass(frozen=True)
class ReaderRun:
    """A run read by a scripted reader, and what its command printed."""

    run_dir: Path
    case_db: Path
    model: str
    reader: str
    payload: dict
    cache: Path  # the response cache of the run (a module fixture is set up before `isolated_cache`)


@pytest.fixture(scope="module")
def reader_run(case_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> ReaderRun:
    folder = tmp_path_factory.mktemp("reader-run")
    model = _script(folder / "model.jsonl", MODEL_SCRIPT)
    reader = _script(folder / "reader.jsonl", READER_SCRIPT)
    result = _run(model, folder / "run", case_db_path, "--reader", reader, cache=folder / "cache")
    assert result.returncode == 0, result.stderr
    return ReaderRun(folder / "run", case_db_path, model, reader, json.loads(result.stdout), folder / "cache")


# --- the reader's parts, one by one -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"decision": "answer", "value": " Earl Warren "}', Reading("answer", "Earl Warren")),
        ('{"decision": "declined", "value": null}', Reading("declined", None)),
        ('{"decision": "no answer", "value": "ignored"}', Reading("no answer", None)),
        ('```json\n{"decision": "answer", "value": "1954"}\n```', Reading("answer", "1954")),
        ('Here it is: {"decision": "answer", "value": "reversed"} (done)', Reading("answer", "reversed")),
        ("", "empty reply"),
        ("The answer is 1954.", "not JSON"),
        ('["answer", "1954"]', "not a JSON object"),
        ('{"decision": "maybe", "value": "1954"}', "decision 'maybe' is not one of answer, declined, no answer"),
        ('{"decision": "answer", "value": null}', "an answer decision without a value"),
        ('{"decision": "answer", "value": 1954}', "an answer decision without a value"),
        ('{"decision": "answer", "value": "' + "x" * 2001 + '"}', "a value of 2,001 characters (at most 2,000)"),
        ("[" * 100_000, "not JSON"),
    ],
)
def test_a_reply_is_read_or_said_unreadable(reply: str, expected: Reading | str) -> None:
    assert parse_reading(reply) == expected


def test_only_answers_the_rules_leave_unread_go_to_the_reader() -> None:
    assert needs_reading(Score("unscored", "no yes/no found in answer 'hm'"), "hm")
    assert needs_reading(Score("unscored", "not English (Spanish): no decisive phrase read"), "quizás")
    assert not needs_reading(Score("unscored", "reference missing: no 'author' in the reference"), "Warren")
    assert not needs_reading(Score("unscored", "empty answer"), "  ")
    assert not needs_reading(Score("unscored", "no yes/no found"), "   ")
    assert not needs_reading(Score("correct", "answer says the case exists; it is real"), "Yes")
    assert READER_ROLE in SKIPPED_ROLES  # a reader's reply is never counted as a unit


def test_the_reader_is_asked_the_question_the_answer_and_the_value_wanted() -> None:
    assert set(VALUE_WANTED) == set(SCORERS)  # every reference-based task says what it wants
    unit = Request.from_prompt("scripted:m.jsonl", "Who wrote the majority opinion in Brown v. Board?", id="u1",
                               tags={"task": "author"})  # fmt: skip
    request = reader_request("openai/gpt-4o-mini", unit, "author", "Hmm, I'd say the Chief wrote it: Earl Warren.")
    prompt = request.messages[-1].content
    assert "Who wrote the majority opinion in Brown v. Board?" in prompt
    assert "Hmm, I'd say the Chief wrote it: Earl Warren." in prompt
    assert VALUE_WANTED["author"] in prompt and "Do not answer the question yourself" in prompt
    assert request.temperature == 0.0 and request.schema_ == READER_SCHEMA and request.model == "openai/gpt-4o-mini"
    assert request.tags == {"role": "reader", "of": "u1", "task": "author"}
    assert request.request_id == f"u1|reader|{request.cache_key()[:12]}"
    other = reader_request(
        "anthropic/claude-sonnet-4-5", unit, "author", "Hmm, I'd say the Chief wrote it: Earl Warren."
    )
    assert other.request_id != request.request_id  # another reader is another request, not a conflict
    assert len(reader_prompt("author", "Q?", "a" * 50_000)) < 12_000  # a long answer is cut


def test_a_decision_becomes_a_label_by_the_tasks_own_rules() -> None:
    context, rules = ScoringContext(None), Score("unscored", "no yes/no found in answer 'zorp'")
    reader = "scripted:reader.jsonl"
    score, keys = reader_score(reader, "existence", '{"decision": "answer", "value": "yes"}', rules,
                               TaskReference(), context)  # fmt: skip
    assert score.label == "correct"
    assert score.detail == "read by scripted:reader.jsonl: value 'yes' -> answer says the case exists; it is real"
    assert keys == {"reader": reader, "reader_decision": "answer", "reader_value": "yes", "rules": rules.detail}
    score, _ = reader_score(reader, "author", '{"decision": "answer", "value": "Hugo Black"}', rules,
                            AuthorReference(author="Earl Warren"), context)  # fmt: skip
    assert score.label == "hallucination" and score.detail.startswith("read by scripted:reader.jsonl: value 'Hugo")
    score, keys = reader_score(reader, "author", '{"decision": "declined", "value": null}', rules, {}, context)
    assert score == Score("abstain", "read by scripted:reader.jsonl: the answer declines to answer")
    score, keys = reader_score(reader, "author", '{"decision": "no answer", "value": null}', rules, {}, context)
    assert score.label == "unscored" and "gives no answer" in score.detail and rules.detail in score.detail
    score, keys = reader_score(reader, "author", "Earl Warren, I think.", rules, {}, context)
    assert score.label == "unscored" and keys["reader_decision"] == "unreadable"
    assert "the reader's reply is unreadable (not JSON): 'Earl Warren, I think.'" in score.detail


def test_a_coders_code_agrees_with_the_readers_value_in_its_words() -> None:
    assert parse_code("  Declined ") == "declined" and parse_code("NO ANSWER") == "no answer"
    assert parse_code("") is None and parse_code("'=1954") == "=1954"
    assert same_code("Warren", "Earl Warren") and same_code("347 U.S. 483", "347 US 483")
    assert same_code("yes", "Yes, it is real") and not same_code("1954", "1955")
    assert not same_code("declined", "no answer") and not same_code("no answer", "no")


# --- end to end ----------------------------------------------------------------------------------------------------


def test_run_labels_what_the_reader_read_and_counts_it(reader_run: ReaderRun) -> None:
    payload = reader_run.payload
    assert payload["reader"] == reader_run.reader
    [counts] = payload["readers"]
    assert counts == {"model": reader_run.model, "reader": reader_run.reader, **EXPECTED_COUNTS}
    rows = {row["task"]: row for row in payload["rows"]}
    assert rows["existence"]["n"] == 3 and rows["existence"]["rate"] == 0.0  # "yes" about a real case
    assert rows["fake_existence"]["n"] == 3 and rows["fake_existence"]["rate"] == 1.0  # and about a fabricated one
    assert rows["disposition"]["n"] == 3 and rows["disposition"]["abstain_rate"] == 1.0  # declined: abstain
    assert rows["author"]["unscored"] == 3 and rows["overruling_year"]["unscored"] == 3
    scores = _scores(reader_run.run_dir)
    by = f"read by {reader_run.reader}:"
    for request_id, (label, detail) in scores.items():
        assert detail["detail"].startswith(by) and detail["reader"] == reader_run.reader, request_id
        task = request_id.split("|")[0]
        if task == "overruling_year":  # malformed: unscored, saying so, with what the rules said
            assert label == "unscored" and detail["reader_decision"] == "unreadable"
            assert "the reader's reply is unreadable (not JSON)" in detail["detail"]
            assert detail["rules"] == "no year found in answer 'krex-5 snid.'"
        elif task == "author":
            assert label == "unscored" and detail["reader_decision"] == "no answer"
    with sqlite3.connect(reader_run.run_dir / "run.sqlite") as conn:
        confidence = conn.execute(
            "SELECT label, detail FROM scores WHERE scorer = 'confidence' AND request_id LIKE 'existence|%'"
        ).fetchall()
    # the greedy answer's value is the reader's "yes"; its samples (read by the rules only) give none
    assert [(label, json.loads(detail)["agree"]) for label, detail in confidence] == [("measured", 0)] * 3


def test_report_counts_the_answers_read(reader_run: ReaderRun, tmp_path: Path) -> None:
    report = cli("hallucination", "report", str(reader_run.run_dir), "--json")
    assert report.returncode == 0, report.stderr
    reported = json.loads(report.stdout)
    assert reported["rows"] == reader_run.payload["rows"] and reported["readers"] == reader_run.payload["readers"]
    text = cli("hallucination", "report", str(reader_run.run_dir), "--html", str(tmp_path / "report.html"))
    assert text.returncode == 0, text.stderr
    line = f"15 answers read by {reader_run.reader} (6 an answer, 3 declined, 3 no answer, 3 reply unreadable)"
    assert line in " ".join(text.stdout.split())
    assert line in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_a_rerun_asks_the_reader_nothing_again(reader_run: ReaderRun, tmp_path: Path) -> None:
    calls = _reader_calls(reader_run.run_dir)
    assert len(calls) == 15 and all(events == ["ok"] for events in calls.values())
    again = _run(reader_run.model, reader_run.run_dir, reader_run.case_db, "--reader", reader_run.reader,
                 cache=reader_run.cache)  # fmt: skip
    assert again.returncode == 0, again.stderr
    payload = json.loads(again.stdout)
    assert payload.pop("summary")["sent"] == 0
    assert payload == {key: value for key, value in reader_run.payload.items() if key != "summary"}
    assert _reader_calls(reader_run.run_dir) == calls  # no reader request was sent again
    # another run directory: the reader's decisions come from the response cache
    elsewhere = _run(reader_run.model, tmp_path / "other", reader_run.case_db, "--reader", reader_run.reader,
                     cache=reader_run.cache)  # fmt: skip
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert json.loads(elsewhere.stdout)["summary"]["sent"] == 0
    assert {tuple(events) for events in _reader_calls(tmp_path / "other").values()} == {("cache_hit",)}


def test_without_reader_nothing_changes(reader_run: ReaderRun, tmp_path: Path) -> None:
    result = _run(reader_run.model, tmp_path / "rules", reader_run.case_db)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["reader"] is None and payload["readers"] == []
    assert all(row["n"] == 0 for row in payload["rows"])  # the rules read none of these answers
    assert not _reader_calls(tmp_path / "rules")
    assert not any("reader" in detail for _, detail in _scores(tmp_path / "rules").values())
    text = cli("hallucination", "report", str(tmp_path / "rules"))
    assert text.returncode == 0 and "read by" not in text.stdout
    # the rules alone again on the reader's run: the labels are the rules', the readings stay stored
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "run.sqlite").write_bytes((reader_run.run_dir / "run.sqlite").read_bytes())
    again = _run(reader_run.model, copy, reader_run.case_db)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["readers"] == [] and len(_reader_calls(copy)) == 15


def test_the_viewer_shows_the_readers_label(reader_run: ReaderRun) -> None:
    client = TestClient(build_app(plan_view([reader_run.run_dir], [], reader_run.case_db)), base_url="http://127.0.0.1")
    units = client.get("/hallucination/api/units", params={"task": "existence"}).json()["rows"]
    assert len(units) == 3 and all(row["reason"].startswith(f"read by {reader_run.reader}:") for row in units)
    found = client.get(f"/hallucination/api/unit/{units[0]['run']}/{units[0]['uid']}").json()
    score, reader = found["detail"]["score"], found["detail"]["reader"]
    assert score["reader"] == reader_run.reader and score["reader_value"] == "yes"
    assert score["rules"] == "no yes/no found in answer 'zorp-7: the ledger glows.'"
    assert reader["answer"] == '{"decision": "answer", "value": "yes"}'
    assert "zorp-7: the ledger glows." in reader["prompt"] and "a real case" in reader["prompt"]
    rules_only = client.get("/hallucination/api/units", params={"task": "author"}).json()["rows"][0]
    detail = client.get(f"/hallucination/api/unit/{rules_only['run']}/{rules_only['uid']}").json()["detail"]
    assert detail["score"]["reader_decision"] == "no answer" and detail["reader"]["answer"].startswith("{")


@needs_chromium
def test_the_viewer_page_names_the_reader(reader_run: ReaderRun) -> None:
    started = start_viewer(str(reader_run.run_dir), "--db", str(reader_run.case_db))
    try:
        with watched_page(allowed=(started.url,)) as watched:
            page = watched.page
            page.goto(started.url + "hallucination/?task=existence")
            page.wait_for_selector("#rows tr")
            page.click("#rows tr >> nth=0")
            expect(page.locator("#detail")).to_contain_text("label read by")
            expect(page.locator("#detail")).to_contain_text("Reader's reply")
            expect(page.locator("#detail")).to_contain_text('{"decision": "answer", "value": "yes"}')
        assert watched.problems == []
    finally:
        stop_viewer(started)


def test_export_labels_and_agreement_check_the_reader(reader_run: ReaderRun, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    result = cli("hallucination", "export-labels", str(reader_run.run_dir), "--check", "reader", "--n", "100",
                 "--out", str(sheet))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "only 15 answer(s) read by the reader" in " ".join(result.stderr.split())
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    assert len(rows) == 15 and list(rows[0]) == ["row_id", "question", "answer", "wanted", "coder_label", "notes"]
    assert not any(reader_run.reader in value for row in rows for value in row.values())  # blinded
    key = json.loads((tmp_path / "sheet.csv.key.json").read_text(encoding="utf-8"))
    assert key["check"] == "reader" and key["reader"] == reader_run.reader
    codes = {row_id: entry["reader_code"] for row_id, entry in key["rows"].items()}
    assert sorted(map(str, codes.values())) == sorted(["yes"] * 6 + ["declined"] * 3 + ["no answer"] * 3 + ["None"] * 3)
    # alice codes as the reader read (in her own words for one value) and codes the unreadable ones; bob says the
    # answers to the existence questions give no answer
    coders = {
        "alice": lambda row: (
            "Yes, it says so" if row["row_id"] == _first(codes, "yes") else codes[row["row_id"]] or "no answer"
        ),
        "bob": lambda row: "no answer" if codes[row["row_id"]] == "yes" else codes[row["row_id"]] or "no answer",
    }
    for name, code in coders.items():
        with (tmp_path / f"{name}.csv").open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows([row | {"coder_label": code(row)} for row in rows])
    key_file = str(tmp_path / "sheet.csv.key.json")
    result = cli("hallucination", "agreement", str(tmp_path / "alice.csv"), str(tmp_path / "bob.csv"), "--key",
                 key_file, "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["check"] == "reader" and report["reader"] == reader_run.reader
    alice, bob, pair = report["rows"]
    assert (alice["agreement"], alice["kappa"], alice["n"]) == (1.0, 1.0, 12)
    assert alice["no_reader_decision"] == 3 and "3 coded row(s) without a reader decision" in alice["note"]
    assert bob["n"] == 12 and bob["agreement"] == 0.5 and bob["kappa"] < 0.5
    assert pair["n"] == 15 and pair["agreement"] == 0.6
    table = cli("hallucination", "agreement", str(tmp_path / "alice.csv"), "--key", key_file)
    assert table.returncode == 0 and f"intercoder reliability: reader {reader_run.reader}" in table.stdout


def _first(codes: dict[str, str | None], code: str) -> str:
    return next(row_id for row_id, value in codes.items() if value == code)


def test_score_answers_reads_with_the_reader_and_caches(case_db_path: Path, tmp_path: Path) -> None:
    reader = _script(tmp_path / "reader.jsonl", [
        {"when": "zorp-7", "text": '{"decision": "answer", "value": "yes"}'},
        # the question the line answered, from its task and case: "Who wrote the majority opinion in 347 U.S. 483?"
        {"when": "Who wrote the majority opinion in 347 U.S. 483?", "text": "not json"},
    ])  # fmt: skip
    answers = tmp_path / "answers.jsonl"
    lines = [
        {"task": "existence", "case": "347 U.S. 483", "answer": "zorp-7: the ledger glows."},
        {"task": "author", "case": "347 U.S. 483", "answer": "vrem-9 blorp."},
        {"task": "existence", "case": "347 U.S. 483", "answer": "Yes, it is a real case."},  # the rules read it
        {"task": "author", "case": "999 U.S. 999", "answer": "vrem-9 blorp."},  # no reference: not read
    ]
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    args = ("hallucination", "score-answers", str(answers), "--db", str(case_db_path), "--reader", reader)
    first = cli(*args, cache=tmp_path / "cache")
    assert first.returncode == 0, first.stderr
    scored = [json.loads(line) for line in first.stdout.splitlines()]
    assert [line["label"] for line in scored] == ["correct", "unscored", "correct", "unscored"]
    assert scored[0]["detail"].startswith(f"read by {reader}: value 'yes'") and scored[0]["reader_value"] == "yes"
    assert scored[1]["reader_decision"] == "unreadable" and "unreadable (not JSON)" in scored[1]["detail"]
    assert "reader" not in scored[2] and "reader" not in scored[3]
    assert "reader: 2 requests: 0 done before, 0 from cache, 2 sent" in first.stderr
    again = cli(*args, cache=tmp_path / "cache")
    assert again.returncode == 0 and again.stdout == first.stdout
    assert "2 from cache, 0 sent" in again.stderr
    plain = cli("hallucination", "score-answers", str(answers), "--db", str(case_db_path))
    assert [json.loads(line)["label"] for line in plain.stdout.splitlines()] == ["unscored", "unscored", "correct",
                                                                                 "unscored"]  # fmt: skip


def test_help_documents_the_options() -> None:
    run = cli("hallucination", "run", "--help")
    assert run.returncode == 0 and "--reader" in run.stdout and "read by MODEL" in " ".join(run.stdout.split())
    export = cli("hallucination", "export-labels", "--help")
    assert export.returncode == 0 and "--check" in export.stdout and "reader" in export.stdout
    score = cli("hallucination", "score-answers", "--help")
    assert score.returncode == 0 and "--reader" in score.stdout
