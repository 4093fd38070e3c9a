"""`lexprobe check` and `lexprobe.check_text`: citations in briefs and model answers against the case database.

Real data throughout: the case database is built from the public data (`case_db_path`), the briefs are the
Marshall v. Northrop summary-judgment filings, the opinions are CourtListener's Supreme Court texts. The online path
talks to a small real HTTP server on 127.0.0.1 that answers like CourtListener's citation-lookup API.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest
import typer
from http_support import send_json, serving
from page_checks import render_page
from tool_requirements import needs_chromium
from typer.testing import CliRunner

from lexprobe.caselaw.case_names import name_score
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check import check_text
from lexprobe.check.extract import extract_citations, mask_line_numbers
from lexprobe.check.online import refine_online
from lexprobe.check.verify import CitationVerdict, case_lookup_for, verify_citations
from lexprobe.cli.check import register
from lexprobe.cli.handler import LexprobeGroup
from lexprobe.documents.extract import extract_text

SJ = data_root() / "sj_records" / "marshall_v_northrop"
OPINIONS = data_root() / "opinions" / "scotus" / "text"
MEMORANDUM = SJ / "gov.uscourts.cacd.657892.168.1_2.pdf"
REPLY = SJ / "gov.uscourts.cacd.657892.198.1.pdf"

app = typer.Typer(cls=LexprobeGroup)
register(app)


@app.callback()
def _main() -> None:
    """Test app: `check` registered as in lexprobe.cli."""


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def one(text: str, db: CaseDatabase) -> CitationVerdict:
    verdicts = check_text(text, db)
    assert len(verdicts) == 1, verdicts
    return verdicts[0]


def run_cli(*args: str) -> object:
    return CliRunner().invoke(app, ["check", *args])


# --- verdict rules ------------------------------------------------------------------------------------------------


def test_verified_full_citation_with_name_and_year(db: CaseDatabase) -> None:
    verdict = one("See Brown v. Board of Educ., 347 U.S. 483, 495 (1954).", db)
    assert verdict.verdict == "verified"
    assert verdict.case is not None and verdict.case.case_id == "scotus:347_U.S._483"
    assert verdict.case.year == 1954
    assert verdict.text == "Brown v. Board of Educ., 347 U.S. 483, 495 (1954)"
    start, end = verdict.span
    assert "See Brown v. Board of Educ., 347 U.S. 483, 495 (1954)."[start:end] == verdict.text


def test_fabricated_citation_in_the_papers_style_is_not_found(db: CaseDatabase) -> None:
    verdict = one("Columbia University v. Rodham, 564 U.S. 911 (2010), held that...", db)
    assert verdict.verdict == "not_found"
    assert verdict.case is None
    assert "no decision in the database begins at 564 U.S. 911" in verdict.reason
    assert "564 U.S. 873" in verdict.reason  # the decision whose pages 911 falls within


def test_fabricated_citation_on_a_real_first_page_is_a_mismatch(db: CaseDatabase) -> None:
    verdict = one("Columbia University v. Rodham, 564 U.S. 873 (2011).", db)
    assert verdict.verdict == "mismatch"
    assert "not “Columbia University v. Rodham”" in verdict.reason


def test_real_citation_with_another_cases_name_is_a_mismatch(db: CaseDatabase) -> None:
    verdict = one("Plessy v. Ferguson, 347 U.S. 483 (1954)", db)
    assert verdict.verdict == "mismatch"
    assert "Brown v. Board of Educ." in verdict.reason
    assert "163 U.S. 537" in verdict.reason  # where the database has the name given


def test_wrong_year_is_a_mismatch(db: CaseDatabase) -> None:
    verdict = one("Brown v. Board of Education, 347 U.S. 483 (1955)", db)
    assert verdict.verdict == "mismatch"
    assert "1955" in verdict.reason and "1954" in verdict.reason


def test_fowler_term_year_one_off_is_accepted_with_a_note(db: CaseDatabase) -> None:
    verdict = one("United States v. Cruikshank, 92 U.S. 542 (1876)", db)  # decided 1876; Fowler's year 1875
    assert verdict.verdict == "verified"
    assert any("accepted" in note for note in verdict.notes)


@pytest.mark.parametrize(
    "text",
    [
        "Marbury v. Madison, 5 U.S. (1 Cranch) 137 (1803)",
        "Marbury v. Madison, 1 Cranch 137 (1803)",
        "Marbury v. Madison, 5 U. S. 137, 177 (1803)",
    ],
)
def test_nominative_reporters(db: CaseDatabase, text: str) -> None:
    verdict = one(text, db)
    assert verdict.verdict == "verified", verdict.reason
    assert verdict.case is not None and verdict.case.case_id == "scotus:5_U.S._137"


def test_abbreviations_and_vs_are_tolerated() -> None:
    assert name_score("Brown v. Bd. of Educ.", "Brown v. Board of Education of Topeka") == 100
    assert name_score("Brown vs. Board of Education", "Brown v. Board of Educ.") == 100
    assert name_score("Ashwander v. TVA", "Ashwander v. Tennessee Valley Authority, Nos. 403 and 404") == 100
    assert name_score("Neal v. Delaware", "Neal v. Del.") == 100
    assert name_score("Plessy v. Ferguson", "Brown v. Board of Educ.") < 50
    assert name_score("United States v. Lopez", "United States v. Morrison") < 50


def test_short_forms_id_and_supra_resolve_to_their_full_citation(db: CaseDatabase) -> None:
    text = (
        "See Anderson v. Liberty Lobby, Inc., 477 U.S. 242, 248 (1986); Celotex Corp. v. Catrett, 477 U.S. 317, "
        "322 (1986). The movant bears the burden. Celotex, 477 U.S. at 323. Id. at 325. Evidence must be "
        "significantly probative. Anderson, 477 U.S. at 249. Anderson, supra, at 250. Id."
    )
    verdicts = check_text(text, db)
    by_text = {v.text: v for v in verdicts}
    assert [v.text for v in verdicts] == [
        "Anderson v. Liberty Lobby, Inc., 477 U.S. 242, 248 (1986)",
        "Celotex Corp. v. Catrett, 477 U.S. 317, 322 (1986)",
        "Celotex, 477 U.S. at 323",
        "Id. at 325",
        "Anderson, 477 U.S. at 249",
        "Anderson, supra, at 250",
        "Id.",
    ]
    celotex, anderson = "scotus:477_U.S._317", "scotus:477_U.S._242"
    assert by_text["Celotex, 477 U.S. at 323"].case.case_id == celotex
    assert by_text["Id. at 325"].case.case_id == celotex
    assert by_text["Anderson, 477 U.S. at 249"].case.case_id == anderson
    assert by_text["Anderson, supra, at 250"].case.case_id == anderson
    assert by_text["Id."].case.case_id == anderson
    assert all(v.verdict == "verified" for v in verdicts)
    assert "short form of Celotex Corp. v. Catrett" in by_text["Celotex, 477 U.S. at 323"].reason


def test_id_after_a_statute_or_a_record_cite_is_not_a_case_citation(db: CaseDatabase) -> None:
    text = "Brown v. Board of Education, 347 U.S. 483 (1954). See 42 U.S.C. § 1983. Id. § 1988. Id. ¶ 4."
    assert [v.text for v in check_text(text, db)] == ["Brown v. Board of Education, 347 U.S. 483 (1954)"]


def test_overruled_case_gets_the_note(db: CaseDatabase) -> None:
    verdict = one("Plessy v. Ferguson, 163 U.S. 537 (1896)", db)
    assert verdict.verdict == "verified"
    assert any(note.startswith("overruled by Brown v. Board of Educ., 347 U.S. 483 (1954)") for note in verdict.notes)


def test_pin_cite_outside_the_opinions_page_range(db: CaseDatabase) -> None:
    # Bolling v. Sharpe begins at 347 U.S. 497, so Brown (347 U.S. 483) ends by page 497.
    text = (
        "Brown v. Board of Education, 347 U.S. 483, 495 (1954). Brown, 347 U.S. at 510. "
        "Brown v. Board of Education, 347 U.S. 483, 900 (1954). Brown v. Board of Education, 347 U.S. 483, 480."
    )
    inside, short, far, before = check_text(text, db)
    assert not any(n.startswith("pin cite") for n in inside.notes)
    assert any("pin cite 510 is outside" in n and "347 U.S. 497" in n for n in short.notes)
    assert any("pin cite 900 is outside" in n for n in far.notes)
    assert any("pin cite 480 is before" in n for n in before.notes)
    assert {v.verdict for v in (inside, short, far, before)} == {"verified"}


def test_pin_page_given_as_first_page_is_a_mismatch(db: CaseDatabase) -> None:
    verdict = one("Public Utilities Comm'n v. Landon, 249 U.S. 239 (1919)", db)
    assert verdict.verdict == "mismatch"
    assert "begins at 249 U.S. 236" in verdict.reason


def test_parallel_citations(db: CaseDatabase) -> None:
    good = check_text("Brown v. Board of Educ., 347 U.S. 483, 74 S. Ct. 686, 98 L. Ed. 873 (1954)", db)
    assert [v.verdict for v in good] == ["verified"] * 3
    assert {v.case.case_id for v in good} == {"scotus:347_U.S._483"}
    bad = check_text("Brown v. Board of Educ., 347 U.S. 483, 74 S. Ct. 999 (1954)", db)
    assert [v.verdict for v in bad] == ["verified", "mismatch"]
    assert "74 S. Ct. 686" in bad[1].reason


def test_unverifiable_outside_coverage(db: CaseDatabase) -> None:
    lower = one("Harper v. Wallingford, 877 F.2d 728, 731 (9th Cir. 1989)", db)
    assert lower.verdict == "unverifiable" and "does not cover F.2d" in lower.reason
    recent = one("Ramos v. Louisiana, 590 U.S. 83 (2020)", db)  # SCDB 2024_01 has no U.S. pages for 2016-2021
    assert recent.verdict == "unverifiable"
    assert "Ramos v. Louisiana, 140 S. Ct. 1390 (2020)" in recent.reason
    orders = one("Smith v. Doe, 423 U.S. 1033 (1976)", db)  # after the volume's opinions: the orders section
    assert orders.verdict == "unverifiable" and "order lists" in orders.reason
    history = check_text("Smith v. Jones, 100 F.3d 1 (9th Cir. 1996), cert. denied, 520 U.S. 1001 (1997).", db)
    assert history[1].verdict == "unverifiable" and "cert. denied" in history[1].reason
    gap = one("Foo v. Bar, 126 U.S. 5 (1888)", db)  # the Fowler table lists one decision in 126 U.S.
    assert gap.verdict == "unverifiable" and "too few" in gap.reason


def test_volume_that_cannot_hold_the_year(db: CaseDatabase) -> None:
    verdict = one("Rosenberger v. Rector and Visitors of Univ. of Va., 615 U.S. 819 (1995)", db)
    assert verdict.verdict == "unverifiable"
    assert "cannot hold a decision of 1995" in verdict.reason
    assert "515 U.S. 819" in verdict.reason


def test_no_citations_and_empty_text(db: CaseDatabase) -> None:
    assert check_text("", db) == []
    assert check_text("No authorities are cited here. See the record.", db) == []


def test_lexprobe_exports_check_text_lazily() -> None:
    code = (
        "import sys, lexprobe; assert 'eyecite' not in sys.modules and 'lexprobe.check' not in sys.modules; "
        "f = lexprobe.check_text; assert 'eyecite' in sys.modules; print(f.__module__, lexprobe.CitationVerdict)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("lexprobe.check ")


def test_pleading_line_numbers_are_masked() -> None:
    lines = [f"{n} filler text on line {n} of the page." for n in range(1, 23)]
    lines.insert(20, "22 basis for the motion. Celotex, 477")
    lines[21] = "23 U.S. at 323. On an issue as to which"
    text = "## Page 4\n" + "\n".join(lines) + "\n"
    masked = mask_line_numbers(text)
    assert len(masked) == len(text)
    assert "Celotex, 477\n   U.S. at 323." in masked
    short = [c for c in extract_citations(text) if c.kind == "short"]
    assert [(c.volume, c.reporter, c.pin) for c in short] == [("477", "U.S.", 323)]


# --- the coverage rule against the data ---------------------------------------------------------------------------


def test_every_real_us_citation_of_the_courtlistener_metadata_is_found(db: CaseDatabase) -> None:
    """The 980 distinct U.S. Reports citations of real cases in CourtListener's cluster metadata are all in the
    database: the coverage rule never calls a real citation not_found there."""
    keys = set()
    for name in ("cited", "citing"):
        with open(data_root() / "opinions" / "scotus" / f"{name}_opinions_metadata.json", encoding="utf-8") as f:
            table = json.load(f)
        for citations in table[f"{name}_citations"].values():
            keys.update(c for c in citations if re.fullmatch(r"\d+ U\.S\. \d+", c))
    assert len(keys) > 950
    reference = case_lookup_for(db)
    missing = [key for key in keys if not reference.case_ids(key)]
    assert missing == []


def test_us_volume_coverage_rule(db: CaseDatabase) -> None:
    reference = case_lookup_for(db)
    assert reference.us_volume(347).covered and reference.us_volume(5).covered
    assert not reference.us_volume(126).covered  # Fowler lists one decision in it
    assert not reference.us_volume(590).covered  # no U.S. pages for the 2016-2021 terms
    assert not reference.us_volume(700).covered
    volume = reference.us_volume(423)  # opinions 1-411, then orders (Fowler's bare entries from 879)
    assert volume.section_end == 411


# --- real documents -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [MEMORANDUM, REPLY], ids=["memorandum-168.1", "reply-198.1"])
def test_real_briefs(db: CaseDatabase, path: Path) -> None:
    verdicts = check_text(extract_text(path), db)
    counts = Counter(v.verdict for v in verdicts)
    assert len(verdicts) > 80
    assert counts["not_found"] == 0
    us = [v for v in verdicts if " U.S. " in v.text and not v.text.startswith(("Id", "id"))]
    assert len(us) >= 4
    for verdict in us:
        assert verdict.verdict in ("verified", "mismatch"), verdict
        assert verdict.reason
    assert {v.case.case_id for v in us if v.case} >= {"scotus:530_U.S._211"}  # Pegram v. Herdrich
    lower = [v for v in verdicts if any(f" {r} " in v.text for r in ("F.3d", "F.2d", "F. Supp. 2d", "F. Supp. 3d"))]
    assert lower and all(v.verdict == "unverifiable" for v in lower)
    if path == MEMORANDUM:
        texts = {v.text for v in verdicts}
        assert "Celotex, 477 U.S. at 323" in texts  # "Celotex, 477 / 23 U.S. at 323": line number 23 masked
        assert counts["verified"] >= 14


def _opinion_sample() -> list[Path]:
    files = sorted(OPINIONS.glob("*.txt.gz"))
    return files[::6]


def test_real_opinions_mostly_verify(db: CaseDatabase) -> None:
    verdicts: list[CitationVerdict] = []
    for path in _opinion_sample():
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            verdicts += check_text(stream.read(), db)
    us_full = [v for v in verdicts if " U." in v.text and " S. " in v.text.replace("U.S.", "U. S. ") and "," in v.text]
    us_full = [v for v in us_full if not v.reason.startswith(("short form", "“Id.”", "“supra”"))]
    counts = Counter(v.verdict for v in us_full)
    judged = counts["verified"] + counts["mismatch"] + counts["not_found"]
    assert len(us_full) > 1000
    assert counts["verified"] / len(us_full) > 0.9
    assert counts["verified"] / judged > 0.97
    for verdict in us_full:
        assert verdict.reason


def test_a_typo_in_a_real_opinion_is_caught(db: CaseDatabase) -> None:
    """Justice Stevens' dissent in Pennsylvania v. Union Gas (CourtListener's text) cites Hoffman v. Connecticut
    Dept. of Income Maintenance as 392 U.S. 96 (1989); it is 492 U.S. 96."""
    with gzip.open(OPINIONS / "118011_010combined.txt.gz", "rt", encoding="utf-8") as stream:
        verdicts = check_text(stream.read(), db)
    hoffman = [v for v in verdicts if "392 U. S. 96" in v.text]
    assert hoffman and all(v.verdict == "not_found" for v in hoffman)
    assert "492 U.S. 96" in hoffman[0].reason and "392 U.S. holds decisions of 1968" in hoffman[0].reason


# --- command line ---------------------------------------------------------------------------------------------------


def test_cli_json_shape_and_exit_code(tmp_path: Path, case_db_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("Brown v. Board of Education, 347 U.S. 483 (1954). Id. at 495.\n", encoding="utf-8")
    bad = tmp_path / "answer.md"
    bad.write_text("# Answer\n\nSee *Columbia University v. Rodham*, 564 U.S. 911 (2010).\n", encoding="utf-8")
    result = run_cli(str(good), "--db", str(case_db_path), "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"schema_version", "citations", "quotations", "summary"}
    assert [set(c) for c in payload["citations"]] == [{"text", "span", "verdict", "case", "reason", "notes", "pin"}] * 2
    assert payload["citations"][0]["case"] == {
        "case_id": "scotus:347_U.S._483",
        "name": "Brown v. Board of Educ.",
        "citation": "347 U.S. 483",
        "year": 1954,
    }
    both = json.loads(run_cli(str(good), str(bad), "--db", str(case_db_path), "--json").stdout)
    assert both["summary"]["verified"] == 2 and both["summary"]["not_found"] == 1
    assert both["summary"]["files"] == [
        {"path": str(good), "first": 0, "count": 2, "verified": 2, "mismatch": 0, "not_found": 0, "unverifiable": 0},
        {"path": str(bad), "first": 2, "count": 1, "verified": 0, "mismatch": 0, "not_found": 1, "unverifiable": 0},
    ]
    assert both["citations"][2]["verdict"] == "not_found"
    assert both["citations"][2]["text"] == "*Columbia University v. Rodham*, 564 U.S. 911 (2010)"
    assert run_cli(str(bad), "--db", str(case_db_path), "--json").exit_code == 1


def test_cli_table(tmp_path: Path, case_db_path: Path) -> None:
    doc = tmp_path / "brief.txt"
    doc.write_text("As held in Plessy v. Ferguson, 163 U.S. 537 (1896), separate facilities were allowed.\n")
    result = run_cli(str(doc), "--db", str(case_db_path))
    assert result.exit_code == 0
    assert "verified" in result.stdout and "overruled by Brown" in result.stdout
    assert "As held in" in result.stdout  # the citation's context
    assert result.stdout.endswith("\n")  # the text report ends its last line


def test_cli_docx_input(tmp_path: Path, case_db_path: Path) -> None:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("MEMORANDUM OF POINTS AND AUTHORITIES")
    document.add_paragraph("Summary judgment is proper. Celotex Corp. v. Catrett, 477 U.S. 317, 322 (1986).")
    document.add_paragraph("The Court so held in Plessy v. Ferguson, 347 U.S. 483 (1954).")
    path = tmp_path / "brief.docx"
    document.save(path)
    result = run_cli(str(path), "--db", str(case_db_path), "--json")
    assert result.exit_code == 1
    verdicts = [c["verdict"] for c in json.loads(result.stdout)["citations"]]
    assert verdicts == ["verified", "mismatch"]


def test_cli_unreadable_documents_exit_2(tmp_path: Path, case_db_path: Path) -> None:
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.4 this is not really a pdf")
    result = run_cli(str(corrupt), "--db", str(case_db_path))
    assert result.exit_code == 2
    assert "corrupt.pdf" in result.stderr and "unreadable" in result.stderr
    unknown = tmp_path / "brief.rtf"
    unknown.write_text("{\\rtf1}")
    result = run_cli(str(unknown), "--db", str(case_db_path))
    assert result.exit_code == 2 and "unknown format" in result.stderr
    result = run_cli(str(tmp_path / "missing.pdf"), "--db", str(case_db_path))
    assert result.exit_code == 2 and "missing.pdf" in result.stderr
    result = run_cli(str(corrupt), "--db", str(tmp_path / "no-database.sqlite"))
    assert result.exit_code == 2


def test_cli_html(tmp_path: Path, case_db_path: Path) -> None:
    doc = tmp_path / "answer.txt"
    doc.write_text(
        "Brown v. Board of Education, 347 U.S. 483 (1954); Plessy v. Ferguson, 347 U.S. 483 (1954); "
        "Columbia University v. Rodham, 564 U.S. 911 (2010); Smith v. Jones, 100 F.3d 1 (9th Cir. 1996) <b>.\n"
    )
    page = tmp_path / "check.html"
    result = run_cli(str(doc), "--db", str(case_db_path), "--html", str(page))
    assert result.exit_code == 1
    html = page.read_text(encoding="utf-8")
    for verdict in ("verified", "mismatch", "not_found", "unverifiable"):
        assert f'<mark class="v-{verdict}"' in html
    assert "<script" not in html and "http://" not in html and "https://" not in html
    assert "&lt;b&gt;" in html  # the document's text is escaped
    assert 'title="not_found: no decision in the database begins at 564 U.S. 911' in html


@pytest.mark.slow
@needs_chromium
def test_html_renders_cleanly_in_chromium(tmp_path: Path, case_db_path: Path) -> None:
    page = tmp_path / "check.html"
    result = run_cli(str(MEMORANDUM), "--db", str(case_db_path), "--html", str(page))
    assert result.exit_code in (0, 1)
    rendered = render_page(page, screenshot=tmp_path / "check.png")
    assert rendered.ok, rendered.to_json()
    assert rendered.title == "Citation check"
    assert rendered.text_length > 50_000


# --- online (a fake CourtListener on 127.0.0.1) ---------------------------------------------------------------------

TOKEN = "test-token"
FAKE_CLUSTERS = {
    "877 F.2d 728": {
        "id": 507851,
        "absolute_url": "/opinion/507851/harper-v-wallingford/",
        "case_name": "Harper v. Wallingford",
        "case_name_short": "Harper",
        "case_name_full": "",
        "date_filed": "1989-06-22",
        "citations": [{"volume": 877, "reporter": "F.2d", "page": "728", "type": 1}],
    },
    "452 F.3d 174": {
        "id": 797080,
        "absolute_url": "/opinion/797080/chao-v-merino/",
        "case_name": "Chao v. Merino",
        "case_name_short": "Chao",
        "case_name_full": "Elaine L. Chao v. Merino",
        "date_filed": "2006-06-27",
        "citations": [{"volume": 452, "reporter": "F.3d", "page": "174", "type": 1}],
    },
}


class _FakeCourtListener(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        if self.path != "/api/rest/v4/citation-lookup/":
            self.send_error(404)
            return
        if self.headers.get("Authorization") != f"Token {TOKEN}":
            self._send(401, {"detail": "Invalid token."})
            return
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        text = urllib.parse.parse_qs(body)["text"][0]
        type(self).requests.append({"text": text})
        results, position = [], 0
        for line in text.split("\n"):
            cluster = FAKE_CLUSTERS.get(line)
            results.append(
                {
                    "citation": line,
                    "normalized_citations": [line],
                    "start_index": position,
                    "end_index": position + len(line),
                    "status": 200 if cluster else 404,
                    "error_message": "" if cluster else "Citation not found: '" + line + "'",
                    "clusters": [cluster] if cluster else [],
                }
            )
            position += len(line) + 1
        self._send(200, results)

    def _send(self, status: int, payload: object) -> None:
        send_json(self, status, payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fake_courtlistener(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict]]:
    pytest.importorskip("courtlistener")
    _FakeCourtListener.requests = []
    with serving(_FakeCourtListener) as server:
        monkeypatch.setenv("COURTLISTENER_API_BASE_URL", f"http://127.0.0.1:{server.server_port}/api/rest/v4")
        monkeypatch.setenv("COURTLISTENER_API_TOKEN", TOKEN)
        yield _FakeCourtListener.requests


ONLINE_TEXT = (
    "Harper v. Wallingford, 877 F.2d 728, 731 (9th Cir. 1989). Harper, 877 F.2d at 732. "
    "Chao v. Smith, 452 F.3d 174 (2d Cir. 2006). Doe v. Roe, 999 F.3d 1 (9th Cir. 2021). "
    "Brown v. Board of Education, 347 U.S. 483 (1954)."
)


def test_online_lookup_against_a_local_fake_server(db: CaseDatabase, fake_courtlistener: list[dict]) -> None:
    found = extract_citations(ONLINE_TEXT)
    offline = verify_citations(found, case_lookup_for(db))
    assert [v.verdict for v in offline] == ["unverifiable"] * 4 + ["verified"]
    result = refine_online(found, offline)
    assert result.message is None and result.asked == 3 and result.fetched == 3 and result.cached == 0
    verdicts = result.verdicts
    assert [v.verdict for v in verdicts] == ["verified", "verified", "mismatch", "not_found", "verified"]
    assert verdicts[0].case is not None and verdicts[0].case.case_id == "courtlistener:507851"
    assert verdicts[0].case.citation == "877 F.2d 728" and verdicts[0].case.year == 1989
    assert "short form of Harper v. Wallingford" in verdicts[1].reason
    assert "not “Chao v. Smith”" in verdicts[2].reason
    assert "CourtListener's citation lookup has no case at 999 F.3d 1" in verdicts[3].reason
    assert len(fake_courtlistener) == 1  # one request for all three citations
    assert fake_courtlistener[0]["text"] == "877 F.2d 728\n452 F.3d 174\n999 F.3d 1"
    again = refine_online(found, offline)  # answered from the cache (LEXPROBE_CACHE)
    assert again.cached == 3 and again.fetched == 0 and len(fake_courtlistener) == 1
    assert [v.verdict for v in again.verdicts] == [v.verdict for v in verdicts]


def test_online_cli_and_its_failures(
    tmp_path: Path, case_db_path: Path, fake_courtlistener: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "brief.txt"
    doc.write_text(ONLINE_TEXT)
    result = run_cli(str(doc), "--db", str(case_db_path), "--online", "--json")
    assert result.exit_code == 1  # a mismatch and a not_found
    assert [c["verdict"] for c in json.loads(result.stdout)["citations"]] == [
        "verified",
        "verified",
        "mismatch",
        "not_found",
        "verified",
    ]
    assert "3 from the API" in result.stderr
    monkeypatch.setenv("COURTLISTENER_API_TOKEN", "wrong")
    monkeypatch.setenv("LEXPROBE_CACHE", str(tmp_path / "fresh-cache"))
    result = run_cli(str(doc), "--db", str(case_db_path), "--online")
    assert "rejected the token" in result.stderr and result.exit_code == 0
    monkeypatch.delenv("COURTLISTENER_API_TOKEN")
    result = run_cli(str(doc), "--db", str(case_db_path), "--online", "--json")
    assert "COURTLISTENER_API_TOKEN" in result.stderr and result.exit_code == 0
    assert {c["verdict"] for c in json.loads(result.stdout)["citations"][:4]} == {"unverifiable"}


def test_online_without_network_is_skipped(db: CaseDatabase, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("courtlistener")
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    found = extract_citations(ONLINE_TEXT)
    offline = verify_citations(found, case_lookup_for(db))
    result = refine_online(found, offline, token=TOKEN, base_url=f"http://127.0.0.1:{port}/api/rest/v4", timeout_s=5)
    assert result.message is not None and "cannot reach" in result.message
    assert result.verdicts == offline


def test_an_overruled_case_without_a_settled_year_still_gets_its_overruling_note(db: CaseDatabase) -> None:
    """Hylton's only overruling link is the Fowler network's (no SCDB or LoC date): the note names it anyway."""
    verdict = one("Hylton v. United States, 3 U.S. 171 (1796).", db)
    assert any(note.startswith("overruled: Pollock") for note in verdict.notes), verdict.notes


def test_the_same_overruling_dated_by_two_sources_is_not_listed_twice(db: CaseDatabase) -> None:
    verdict = one("Hepburn v. Griswold, 75 U.S. 603 (1870).", db)
    (note,) = [note for note in verdict.notes if "overruled" in note]
    assert note.startswith("overruled by Legal Tender Cases") and "also listed" not in note, note
