"""Issue #44, items 8 and 9: `check --online` against CourtListener-like servers on 127.0.0.1 that misbehave.

- A server that drips one byte every 0.2 s never trips a read timeout: one deadline (`--online-timeout`) bounds all
  of --online's requests, then "--online skipped: ... took too long" and the offline verdicts (item 8).
- A 200 answer that is not JSON, or JSON of another shape, is no crash: "--online skipped: CourtListener's answer is
  not a citation-lookup result (...)" and the offline verdicts; the same for the opinion-text fetches (item 9).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest
import typer
from http_support import send_json, serving
from typer.testing import CliRunner

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations
from lexprobe.check.online import Deadline, OnlineOpinionTexts, refine_online
from lexprobe.check.quote_verdicts import check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations
from lexprobe.cli.check import register
from lexprobe.cli.handler import LexprobeGroup

pytest.importorskip("courtlistener")

TOKEN = "test-token-i44"
ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"
HARPER = {
    "id": 507851,
    "absolute_url": "/opinion/507851/harper-v-wallingford/",
    "case_name": "Harper v. Wallingford",
    "case_name_short": "Harper",
    "case_name_full": "",
    "date_filed": "1989-06-22",
    "citations": [{"volume": 877, "reporter": "F.2d", "page": "728", "type": 1}],
}
TEXT = (
    "The court held that “a district court must give the parties notice before it converts a motion to dismiss.” "
    "Harper v. Wallingford, 877 F.2d 728, 731 (9th Cir. 1989). Brown v. Board of Education, 347 U.S. 483 (1954)."
)
OFFLINE = ["unverifiable", "verified"]

app = typer.Typer(cls=LexprobeGroup)
register(app)


@app.callback()
def _main() -> None:
    """Test app: `check` registered as in lexprobe.cli."""


class _Misbehaving(BaseHTTPRequestHandler):
    """Answers the citation lookup (POST) and the clusters (GET) as `lookup` and `cluster` say: "good" (a real
    answer), "drip" (a 200 whose body comes one byte every 0.2 s until the test ends), "html" (a 200 that is not
    JSON), or any other JSON value to send as it is."""

    lookup: ClassVar[object] = "good"
    cluster: ClassVar[object] = "good"
    stop: ClassVar[threading.Event] = threading.Event()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        text = urllib.parse.parse_qs(body)["text"][0]
        results, position = [], 0
        for line in text.split("\n"):
            found = line == "877 F.2d 728"
            results.append(
                {
                    "citation": line,
                    "start_index": position,
                    "end_index": position + len(line),
                    "status": 200 if found else 404,
                    "error_message": "",
                    "clusters": [HARPER] if found else [],
                }
            )
            position += len(line) + 1
        self._answer(type(self).lookup, results)

    def do_GET(self) -> None:
        self._answer(type(self).cluster, {"id": 507851, "case_name": "Harper", "sub_opinions": []})

    def _answer(self, how: object, good: object) -> None:
        if how == "good":
            send_json(self, 200, good)
        elif how == "drip":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            while not type(self).stop.wait(0.2):
                self.wfile.write(b" ")
                self.wfile.flush()
        elif how == "html":
            data = b"<html><body>Service temporarily replaced by a portal</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            send_json(self, 200, how)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[type[_Misbehaving]]:
    _Misbehaving.lookup, _Misbehaving.cluster = "good", "good"
    _Misbehaving.stop = threading.Event()
    with serving(_Misbehaving) as httpd:
        monkeypatch.setenv("COURTLISTENER_API_BASE_URL", f"http://127.0.0.1:{httpd.server_port}/api/rest/v4")
        monkeypatch.setenv("COURTLISTENER_API_TOKEN", TOKEN)
        monkeypatch.setenv("LEXPROBE_CACHE", str(tmp_path / "cache"))
        try:
            yield _Misbehaving
        finally:
            _Misbehaving.stop.set()


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def run_command(doc: Path, db_path: Path, *options: str) -> subprocess.CompletedProcess:
    """`lexprobe check DOC --online --json` in its own process, killed (failing the test) after 90 s."""
    return subprocess.run(
        [sys.executable, "-c", ENTRY, "check", str(doc), "--db", str(db_path), "--online", "--json", *options],
        capture_output=True,
        text=True,
        timeout=90,
        env=dict(os.environ),
        cwd=doc.parent,
    )


@pytest.mark.parametrize("slow", ["lookup", "cluster"])
def test_a_dripping_server_is_given_up_at_the_deadline(
    server: type[_Misbehaving], tmp_path: Path, case_db_path: Path, slow: str
) -> None:
    setattr(server, slow, "drip")
    doc = tmp_path / "brief.txt"
    doc.write_text(TEXT, encoding="utf-8")
    began = time.monotonic()
    done = run_command(doc, case_db_path, "--online-timeout", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    assert time.monotonic() - began < 90  # (the subprocess timeout is the real bound)
    payload = json.loads(done.stdout)
    what = "--online" if slow == "lookup" else "--online texts"
    assert f"{what} skipped: CourtListener took too long" in done.stderr, done.stderr
    assert "--online-timeout" in done.stderr
    if slow == "lookup":  # the offline verdicts stand
        assert [c["verdict"] for c in payload["citations"]] == OFFLINE
    else:  # the lookup answered: Harper verified online; its quotation's text never came
        assert [c["verdict"] for c in payload["citations"]] == ["verified", "verified"]
        (quotation,) = payload["quotations"]
        assert quotation["verdict"] == "unverifiable" and "took too long" in quotation["reason"]


def test_the_deadline_is_for_all_requests_together(server: type[_Misbehaving], db: CaseDatabase) -> None:
    server.lookup = "drip"
    found = extract_citations(TEXT)
    offline = verify_citations(found, case_lookup_for(db))
    deadline = Deadline(2)
    first = refine_online(found, offline, deadline=deadline)
    assert first.message is not None and "took too long" in first.message and first.verdicts == offline
    assert deadline.expired
    began = time.monotonic()
    again = refine_online(found, offline, deadline=deadline)  # nothing left: no request waits again
    assert again.message == first.message and time.monotonic() - began < 1.5


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("html", "not JSON"),
        ({"detail": "Request was throttled."}, "not a list"),
        ([1, 2, 3], "a list whose items are not lookup results (status, start_index)"),
        ([{"citation": "877 F.2d 728"}], "a list whose items are not lookup results (status, start_index)"),
    ],
)
def test_a_lookup_answer_that_is_not_a_lookup_result(
    server: type[_Misbehaving], db: CaseDatabase, case_db_path: Path, tmp_path: Path, answer: object, why: str
) -> None:
    server.lookup = answer
    found = extract_citations(TEXT)
    offline = verify_citations(found, case_lookup_for(db))
    result = refine_online(found, offline)
    assert result.message == f"--online skipped: CourtListener's answer is not a citation-lookup result ({why})"
    assert result.verdicts == offline
    doc = tmp_path / "brief.txt"
    doc.write_text(TEXT, encoding="utf-8")
    done = CliRunner().invoke(app, ["check", str(doc), "--db", str(case_db_path), "--online", "--json"])
    assert done.exit_code == 0, done.output
    assert [c["verdict"] for c in json.loads(done.stdout)["citations"]] == OFFLINE
    assert "is not a citation-lookup result" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(("answer", "why"), [("html", "not JSON"), ([1], "a JSON list, not an object")])
def test_an_opinion_text_answer_that_is_not_an_api_object(
    server: type[_Misbehaving], db: CaseDatabase, answer: object, why: str
) -> None:
    server.cluster = answer
    found = extract_citations(TEXT)
    verdicts = refine_online(found, verify_citations(found, case_lookup_for(db))).verdicts
    texts = OnlineOpinionTexts()
    try:
        (quotation,) = check_quotations(TEXT, found, verdicts, db, online_texts=texts)
    finally:
        texts.close()
    message = f"--online texts skipped: CourtListener's answer is not an API object (clusters/507851/: {why})"
    assert texts.messages == [message]
    assert quotation.verdict == "unverifiable" and "not an API object" in quotation.reason


def test_the_cli_default_online_timeout_is_the_library_default() -> None:
    from lexprobe.check.online import DEFAULT_ONLINE_TIMEOUT_S
    from lexprobe.cli import check as check_cli

    assert check_cli.DEFAULT_ONLINE_TIMEOUT_S == DEFAULT_ONLINE_TIMEOUT_S
