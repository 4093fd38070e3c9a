"""Issue #34, `check --online` opinion texts: quotations of cases whose text the case database lacks are checked
against opinions fetched from a CourtListener-like server on 127.0.0.1 (citation lookup, clusters, opinions in the
REST v4 shapes), through the courtlistener-api-client package pointed at it by base URL."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import typer
from http_support import send_json
from typer.testing import CliRunner

from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.quote_text import normalize, page_marks
from lexprobe.caselaw.sources.markup import html_to_text
from lexprobe.check.extract import extract_citations
from lexprobe.check.online import OnlineOpinionTexts, refine_online
from lexprobe.check.quote_verdicts import QuotationVerdict, check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations
from lexprobe.cli.check import register
from lexprobe.cli.handler import LexprobeGroup

pytest.importorskip("courtlistener")

TOKEN = "test-token-online-texts"
HARPER = "Harper v. Wallingford, 877 F.2d 728"
NIEMOTKO = "Niemotko v. Maryland, 340 U.S. 268"  # in the case database, without opinion text
HELD = "a district court must give the parties notice before it converts a motion to dismiss"
DISSENTED = "the majority reads into the rule a requirement that its drafters never wrote"
NIEMOTKO_SAID = "the use of the park was denied because of the City Council's dislike for or disagreement with"

LEAD_HTML = (
    '<div><p>KOZINSKI, Circuit Judge, wrote: the facts.</p><span class="star-pagination" label="729">*729</span>'
    "<p>Nothing here yet. &lt;script&gt;alert(1)&lt;/script&gt;</p>"
    '<p>More <span citation-index="2" class="star-pagination" label="5">*5</span>text.</p>'
    '<span class="star-pagination" number="730" label="F.2d">*730</span><p>We turn to the rule.</p>'
    '<p>We hold that <span class="star-pagination" label="731">*731</span>'
    f"{HELD.replace('notice', '<i>notice</i>')} into one for summary judgment.</p>"
    "<script>document.write('the hidden words of a script')</script></div>"
)
DISSENT_XML = (
    '<opinion type="dissent"><author>REINHARDT, Circuit Judge, dissenting.</author>'
    '<p>I dissent, because <page-number citation-index="1" label="733">*733</page-number>'
    f"{DISSENTED}.</p><p>So I would reverse.</p>"
    '<page-number citation-index="1" label="734">*734</page-number><p>The end.</p></opinion>'
)
CLUSTERS = {
    "877 F.2d 728": {
        "id": 507851,
        "absolute_url": "/opinion/507851/harper-v-wallingford/",
        "case_name": "Harper v. Wallingford",
        "case_name_short": "Harper",
        "case_name_full": "",
        "date_filed": "1989-06-22",
        "citations": [{"volume": 877, "reporter": "F.2d", "page": "728", "type": 1}],
    },
    "340 U.S. 268": {
        "id": 104880,
        "absolute_url": "/opinion/104880/niemotko-v-maryland/",
        "case_name": "Niemotko v. Maryland",
        "case_name_short": "Niemotko",
        "case_name_full": "",
        "date_filed": "1951-01-15",
        "citations": [{"volume": 340, "reporter": "U.S.", "page": "268", "type": 1}],
    },
}


def _opinion(ident: int, kind: str, author: str = "", **texts: str) -> dict[str, Any]:
    fields = dict.fromkeys(
        ("html_with_citations", "xml_harvard", "html_columbia", "html_lawbox", "html_anon_2020", "html", "plain_text"),
        "",
    )
    return {"id": ident, "type": kind, "author_str": author, "author_id": None, "per_curiam": False, **fields, **texts}


def _default_opinions() -> dict[int, dict[str, Any]]:
    return {
        9001: _opinion(9001, "020lead", "Kozinski", html_with_citations=LEAD_HTML),
        9002: _opinion(9002, "040dissent", "Reinhardt", xml_harvard=DISSENT_XML),
        9003: _opinion(9003, "030concurrence", "Noonan", html=""),  # no text at all: left out
        7001: _opinion(7001, "010combined", plain_text=f"Mr. Chief Justice Vinson: it is plain that {NIEMOTKO_SAID}"),
    }


class _FakeCourtListener(BaseHTTPRequestHandler):
    requests: ClassVar[list[str]] = []
    opinions: ClassVar[dict[int, dict[str, Any]]] = {}
    sub_opinions: ClassVar[dict[int, list[int]]] = {507851: [9001, 9002, 9003, 9404], 104880: [7001]}
    throttle = False

    def do_POST(self) -> None:
        if not self._authorized():
            return
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        text = urllib.parse.parse_qs(body)["text"][0]
        type(self).requests.append(f"lookup {text}")
        results, position = [], 0
        for line in text.split("\n"):
            cluster = CLUSTERS.get(line)
            status = 200 if cluster else 404
            results.append(
                {
                    "citation": line,
                    "start_index": position,
                    "end_index": position + len(line),
                    "status": status,
                    "error_message": "",
                    "clusters": [cluster] if cluster else [],
                }
            )
            position += len(line) + 1
        self._send(200, results)

    def do_GET(self) -> None:
        if not self._authorized():
            return
        url = urllib.parse.urlparse(self.path)
        type(self).requests.append(url.path)
        parts = url.path.strip("/").split("/")
        if type(self).throttle:
            self._send(429, {"detail": "Request was throttled."})
        elif parts[:3] == ["api", "rest", "v4"] and len(parts) == 5 and parts[4].isdigit():
            ident = int(parts[4])
            if parts[3] == "clusters" and ident in self.sub_opinions:
                base = f"http://127.0.0.1:{self.server.server_port}/api/rest/v4/opinions"
                links = [f"{base}/{o}/" for o in self.sub_opinions[ident]]
                self._send(200, {"id": ident, "case_name": "x", "sub_opinions": links})
            elif parts[3] == "opinions" and ident in self.opinions:
                wanted = urllib.parse.parse_qs(url.query).get("fields", [""])[0].split(",")
                self._send(200, {k: v for k, v in self.opinions[ident].items() if k in wanted})
            else:
                self._send(404, {"detail": "No Opinion matches the given query."})
        else:
            self._send(404, {"detail": "Not found."})

    def _authorized(self) -> bool:
        if self.headers.get("Authorization") != f"Token {TOKEN}":
            self._send(401, {"detail": "Invalid token."})
            return False
        return True

    def _send(self, status: int, payload: object) -> None:
        send_json(self, status, payload)

    def log_message(self, *args: object) -> None:
        pass


class Server:
    """The fake CourtListener, started on a free port of 127.0.0.1; `stop()` takes it down."""

    def __init__(self) -> None:
        _FakeCourtListener.requests = []
        _FakeCourtListener.opinions = _default_opinions()
        _FakeCourtListener.throttle = False
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _FakeCourtListener)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/api/rest/v4"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.running = True

    @property
    def requests(self) -> list[str]:
        return _FakeCourtListener.requests

    def stop(self) -> None:
        if self.running:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.running = False


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    running = Server()
    monkeypatch.setenv("COURTLISTENER_API_BASE_URL", running.base_url)
    monkeypatch.setenv("COURTLISTENER_API_TOKEN", TOKEN)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def check_online(text: str, db: CaseDatabase, **settings: Any) -> tuple[list[QuotationVerdict], OnlineOpinionTexts]:
    """What `check --online` does for one text: citation lookups, then quotations with online texts."""
    found = extract_citations(text)
    verdicts = refine_online(found, verify_citations(found, case_lookup_for(db))).verdicts
    texts = OnlineOpinionTexts(**settings)
    try:
        return check_quotations(text, found, verdicts, db, online_texts=texts), texts
    finally:
        texts.close()


BRIEF = (
    f"The rule is settled: “{HELD}.” {HARPER}, 731 (9th Cir. 1989). "
    f"And the Court of Appeals held that “{DISSENTED}.” {HARPER}, 733 (9th Cir. 1989). "
    f"Harper also said “{HELD}.” {HARPER}, 729 (9th Cir. 1989). "
    f"The Court found “{NIEMOTKO_SAID}” {NIEMOTKO}, 272 (1951)."
)


def test_fetched_texts_verify_quotations_with_pages_and_separate_opinions(db: CaseDatabase, server: Server) -> None:
    quotations, texts = check_online(BRIEF, db)
    held, dissent, wrong_pin, niemotko = quotations
    assert held.verdict == "verified" and held.page == 731 and held.pin_ok is True, held
    assert "CourtListener" in held.reason and f"{server.base_url}/opinions/9001/" in held.reason
    assert held.evidence is not None and held.evidence["source"] == "courtlistener"
    assert held.evidence["url"] == f"{server.base_url}/opinions/9001/" and held.evidence["author"] == "Kozinski"
    assert dissent.verdict == "separate_opinion" and dissent.page == 733 and dissent.pin_ok is True, dissent
    assert "Reinhardt" in dissent.reason and dissent.evidence is not None
    assert dissent.evidence["opinion_type"] == "dissent" and dissent.evidence["url"].endswith("/opinions/9002/")
    assert wrong_pin.verdict == "verified" and wrong_pin.page == 731 and wrong_pin.pin_ok is False
    # a case the database has, without text: its cluster comes from the citation lookup, asked for it alone
    assert niemotko.verdict == "verified" and niemotko.page is None and niemotko.pin_ok is None, niemotko
    assert niemotko.evidence is not None and niemotko.evidence["case_id"] == "scotus:340_U.S._268"
    assert "lookup 340 U.S. 268" in server.requests
    assert "/api/rest/v4/opinions/9404/" in server.requests  # a missing opinion (404) does not stop the rest
    assert texts.messages == [] and texts.fetched == 5 and texts.cached == 0


def test_the_cache_answers_a_rerun_with_the_server_stopped(db: CaseDatabase, server: Server) -> None:
    first, _ = check_online(BRIEF, db)
    server.stop()
    again, texts = check_online(BRIEF, db)
    assert [(q.verdict, q.page, q.pin_ok, q.evidence) for q in again] == [
        (q.verdict, q.page, q.pin_ok, q.evidence) for q in first
    ]
    assert texts.messages == [] and texts.fetched == 0 and texts.cached == 5


def test_a_quotation_the_fetched_opinion_lacks_is_not_found_and_a_script_is_no_text(
    db: CaseDatabase, server: Server
) -> None:
    (invented, hidden), _ = check_online(
        f"The court said “a rule of thumb that nobody ever wrote down in this opinion.” {HARPER}, 731 (9th Cir. "
        f"1989). It also said “the hidden words of a script” {HARPER}, 731 (9th Cir. 1989).",
        db,
    )
    assert invented.verdict == "not_found" and "CourtListener" in invented.reason
    assert invented.evidence is not None and invented.evidence["source"] == "courtlistener"
    assert hidden.verdict == "not_found"


def test_offline_evidence_says_database(db: CaseDatabase) -> None:
    text = "“Congress did intend municipalities” Monell v. Department of Social Services, 436 U.S. 658, 690 (1978)."
    found = extract_citations(text)
    (quotation,) = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    assert quotation.evidence is not None and quotation.evidence["source"] == "database"
    assert "url" not in quotation.evidence and "CourtListener" not in quotation.reason


def test_no_token_or_no_server_leaves_the_quotation_unverifiable_with_a_note(
    db: CaseDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = f"The Court found “{NIEMOTKO_SAID}” {NIEMOTKO}, 272 (1951)."
    monkeypatch.delenv("COURTLISTENER_API_TOKEN", raising=False)
    (quotation,), texts = check_online(text, db)
    assert quotation.verdict == "unverifiable" and "COURTLISTENER_API_TOKEN" in quotation.reason
    assert texts.messages == ["--online texts skipped: set COURTLISTENER_API_TOKEN to a CourtListener API token"]
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    (quotation,), texts = check_online(text, db, token=TOKEN, base_url=f"http://127.0.0.1:{port}/api/rest/v4")
    assert quotation.verdict == "unverifiable" and "cannot reach" in quotation.reason
    assert len(texts.messages) == 1 and "cannot reach" in texts.messages[0]


def test_throttling_is_not_cached(db: CaseDatabase, server: Server) -> None:
    text = f"“{HELD}.” {HARPER}, 731 (9th Cir. 1989)."
    _FakeCourtListener.throttle = True
    (quotation,), texts = check_online(text, db)
    assert quotation.verdict == "unverifiable" and "throttled" in texts.messages[0]
    _FakeCourtListener.throttle = False
    (quotation,), texts = check_online(text, db)
    assert quotation.verdict == "verified" and texts.fetched == 4


def test_an_oversized_opinion_is_cut_and_an_oversized_response_not_read(
    tmp_path: Path, db: CaseDatabase, server: Server
) -> None:
    filler = "<p>Filler words of the opinion go on and on.</p>" * 3_000
    _FakeCourtListener.opinions[9001]["html_with_citations"] = f"<p>First: {HELD}.</p>{filler}<p>{DISSENTED}</p>"
    _FakeCourtListener.sub_opinions = {**_FakeCourtListener.sub_opinions, 507851: [9001]}
    text = f"“{HELD}.” {HARPER} (9th Cir. 1989). But “{DISSENTED}.” {HARPER} (9th Cir. 1989)."
    try:
        (start, end), _ = check_online(text, db, max_opinion_chars=50_000)
        assert start.verdict == "verified" and "cut at 50,000 characters" in start.reason
        assert end.verdict == "not_found" and "cut at 50,000 characters" in end.reason
        (start, _end), _ = check_online(text, db, max_response_bytes=50_000, cache_folder=tmp_path / "other")
    finally:
        _FakeCourtListener.sub_opinions = {**_FakeCourtListener.sub_opinions, 507851: [9001, 9002, 9003, 9404]}
    assert start.verdict == "unverifiable" and "larger than 50,000 bytes" in start.reason, start.reason


def test_hostile_markup_is_only_text() -> None:
    markup = (
        "<p>One <b>bold<i> unclosed <span class='star-pagination' label='12'><span>*12</span></span> two"
        "<script>evil()</script><style>p{}</style> &amp; &#x202e; &bogus; <![CDATA[x]]> <!-- c --> "
        "<span class='star-pagination'>*Page 13</span><a href='javascript:x' onclick='y'>link</a>"
        "<page-number citation-index='2' label='999'>*999</page-number>" + "<div>" * 5_000 + "deep"
    )
    text = html_to_text(markup)
    assert "*12" in text and "*13" in text and "*999" not in text and "evil" not in text and "p{}" not in text
    assert text.startswith("One bold unclosed *12 two") and "link" in text and text.endswith("deep")
    assert "<" not in text and "javascript" not in text


app = typer.Typer(cls=LexprobeGroup)
register(app)


@app.callback()
def _main() -> None:
    """Test app: `check` registered as in lexprobe.cli."""


def test_cli_online_texts_json_notes_and_html(
    tmp_path: Path, case_db_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "brief.txt"
    doc.write_text(BRIEF)
    page = tmp_path / "brief.html"
    result = CliRunner().invoke(app, ["check", str(doc), "--db", str(case_db_path), "--online", "--json",
                                      "--html", str(page)])  # fmt: skip
    assert result.exit_code == 1, result.output  # the dissent given as the court's holding
    quotations = json.loads(result.stdout)["quotations"]
    assert [q["verdict"] for q in quotations] == ["verified", "separate_opinion", "verified", "verified"]
    assert quotations[0]["evidence"]["source"] == "courtlistener" and quotations[0]["page"] == 731
    assert "opinion texts from CourtListener: 5 fetched, 0 from the cache" in result.stderr
    html = page.read_text()
    assert "CourtListener" in html
    monkeypatch.delenv("COURTLISTENER_API_TOKEN")
    monkeypatch.setenv("LEXPROBE_CACHE", str(tmp_path / "fresh-cache"))
    result = CliRunner().invoke(app, ["check", str(doc), "--db", str(case_db_path), "--online", "--json"])
    assert result.exit_code == 0, result.output
    assert {q["verdict"] for q in json.loads(result.stdout)["quotations"]} == {"unverifiable"}
    assert "--online texts skipped: set COURTLISTENER_API_TOKEN" in result.stderr


RAW_CITED = data_root() / "opinions" / "scotus" / "raw_cited"


def test_real_courtlistener_html_keeps_the_words_and_the_star_paging(db: CaseDatabase) -> None:
    """CourtListener's own HTML of real opinions (the shipped `raw_cited` files), converted by `html_to_text`, has
    exactly the letters of the database's text of the same opinion, and its star paging gives the pages."""
    compared = 0
    for path in sorted(RAW_CITED.glob("*_010combined.txt.gz")):
        markup = gzip.decompress(path.read_bytes()).decode("utf-8")
        if "star-pagination" not in markup:
            continue
        opinion_id = path.name.split("_", 1)[0]
        row = db.conn.execute(
            "SELECT case_id, text FROM opinions WHERE opinion_id = ? AND text != ''", (opinion_id,)
        ).fetchone()
        if row is None:
            continue
        text = html_to_text(markup)
        assert normalize(text).letters == normalize(row[1]).letters, path.name
        first_page = int(row[0].rsplit("_", 1)[1]) if row[0].rsplit("_", 1)[1].isdigit() else None
        assert len(page_marks(text, first_page).pages) >= 2 or first_page is None, path.name
        compared += 1
        if compared == 25:
            break
    assert compared == 25
    carlisle = html_to_text(gzip.decompress((RAW_CITED / "100007_010combined.txt.gz").read_bytes()).decode("utf-8"))
    marks = page_marks(carlisle, 255)
    assert marks.pages == [256, 257, 258, 259, 260]
    assert marks.page_at(carlisle.index("The Supreme Court of Washington affirmed a judgment")) == 257


def test_hostile_answers_reach_no_other_path_and_no_terminal(
    tmp_path: Path, case_db_path: Path, db: CaseDatabase, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cluster id that is not a number is not put in a URL; an author name with terminal escapes and a bidi
    override is shown escaped in the table."""
    evil_cluster = {**CLUSTERS["877 F.2d 728"], "id": "../../users", "case_name": "Evil v. Corp"}
    monkeypatch.setitem(CLUSTERS, "1 F.4th 1", evil_cluster)
    (quotation,), _ = check_online(f"“{HELD}.” Evil v. Corp, 1 F.4th 1 (9th Cir. 2021).", db)
    assert quotation.verdict == "unverifiable" and "no usable cluster id" in quotation.reason
    assert not any("users" in request for request in server.requests)
    _FakeCourtListener.opinions[9002]["author_str"] = "\x1b[31mReinhardt\u202e"
    doc = tmp_path / "brief.txt"
    doc.write_text(f"The court held “{DISSENTED}.” {HARPER}, 733 (9th Cir. 1989).")
    result = CliRunner().invoke(app, ["check", str(doc), "--db", str(case_db_path), "--online"])
    assert result.exit_code == 1, result.output
    assert "separate_opinion" in result.stdout and "Reinhardt" in result.stdout
    assert "\x1b[31m" not in result.stdout and "\u202e" not in result.stdout
