"""CourtListener Supreme Court opinions loader: the real files, both markup paths, and malformed fixtures."""

from __future__ import annotations

import gzip
import html
import json
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree

from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.records import LoadResult, OpinionRecord
from lexprobe.caselaw.sources import markup, opinions

REAL = data_root() / "opinions" / "scotus"
SOURCE_TAG_WORDS = (
    "p div span a em i b br center h1 h2 sup blockquote pre page-number footnote footnotemark author opinion "
    "cross_reference footnote_body strong img judges attorneys otherdate bracketnum decisiondate headnotes"
)
TAG_NAMES = "|".join(re.escape(tag) for tag in SOURCE_TAG_WORDS.split())
TAG = re.compile(rf"</?(?:{TAG_NAMES})(?:\s[^<>]*)?/?>")


@pytest.fixture(scope="module")
def real() -> tuple[LoadResult, float]:
    """Load the real opinions folder once for the whole module, with the time it took."""
    if not REAL.is_dir():
        pytest.skip(f"real data not found at {REAL}")
    started = time.perf_counter()
    result = opinions.load(REAL)
    return result, time.perf_counter() - started


@pytest.fixture(scope="module")
def by_file(real: tuple[LoadResult, float]) -> dict[str, OpinionRecord]:
    return {record.source_file: record for record in real[0].opinions}


def issues_matching(result: LoadResult, text: str) -> list:
    return [issue for issue in result.issues if text in issue.message]


# ------------------------------------------------------------------------------------------------ real data


def test_real_counts(real: tuple[LoadResult, float]) -> None:
    result, _ = real
    plain = [record for record in result.opinions if record.source_file.startswith("text/")]
    raw = [record for record in result.opinions if record.source_file.startswith("raw_cited/")]
    assert result.rows_read == 357 + 1448
    assert len(plain) == 357
    assert len({record.cluster_id for record in plain}) == 133
    assert len(raw) == 1448 - 23  # 23 files the metadata does not list are skipped, each with an issue
    assert Counter(record.opinion_type for record in plain) == {
        "combined": 133,
        "lead": 92,
        "dissent": 71,
        "concurrence": 53,
        "concurrence_in_part": 8,
    }
    assert Counter(record.opinion_type for record in raw) == {"combined": 944, "lead": 481}


def test_real_issues(real: tuple[LoadResult, float]) -> None:
    result, _ = real
    orphans = issues_matching(result, "not listed in the metadata")
    assert len(orphans) == 23
    assert any(issue.location.endswith("raw_cited/4727363_010combined.txt.gz") for issue in orphans)  # Nebraska
    absent = issues_matching(result, "listed but absent")
    assert len(absent) == 1 and "106761_020lead" in absent[0].message
    assert absent[0].location.startswith(str(REAL / "cited_opinions_metadata.json"))
    no_text = issues_matching(result, "lists no combined/lead opinion")
    assert len(no_text) == 1 and "8985546" in no_text[0].message
    shared = issues_matching(result, "share this file name")
    assert len(shared) == 41
    assert all(issue.location.startswith(str(REAL / "text")) for issue in shared)
    recovered = issues_matching(result, "CAP XML not well-formed")
    assert [Path(issue.location).name for issue in recovered] == ["108375_020lead.txt.gz"]
    assert len(result.issues) == 23 + 1 + 1 + 41 + 1


def test_one_majority_text_per_cluster_and_folder(real: tuple[LoadResult, float]) -> None:
    result, _ = real
    majority = Counter(
        (record.source_file.split("/")[0], record.cluster_id) for record in result.opinions if record.is_majority
    )
    clusters = {(record.source_file.split("/")[0], record.cluster_id) for record in result.opinions}
    assert set(majority) == clusters
    assert set(majority.values()) == {1}
    assert all(
        record.is_majority == (record.opinion_type == "lead")
        for record in result.opinions
        if record.opinion_type != "combined"
    )


def test_well_known_opinions(by_file: dict[str, OpinionRecord]) -> None:
    lead = by_file["text/107252_020lead.txt.gz"]
    assert (lead.case_name, lead.year, lead.is_majority, lead.author) == ("Miranda v. Arizona", 1966, True, "Warren")
    assert "86 S. Ct. 1602" in lead.citations
    assert (lead.opinion_id, lead.cluster_id) == ("9423233", "107252")
    combined = by_file["text/107252_010combined.txt.gz"]  # not the majority text: the cluster has a lead opinion
    assert (combined.opinion_id, combined.is_majority, combined.author) == (
        "107252",
        False,
        "WARREN",
    )  # the cluster has a lead opinion
    dissent = by_file["text/106285_040dissent.txt.gz"]
    assert (dissent.case_name, dissent.opinion_type, dissent.is_majority, dissent.author) == (
        "Mapp v. Ohio",
        "dissent",
        False,
        "Harlan",
    )
    brown = by_file["raw_cited/105221_010combined.txt.gz"]  # no lead opinion: the combined text is the majority
    assert (brown.case_name, brown.year, brown.is_majority, brown.author) == (
        "Brown v. Board of Education",
        1954,
        True,
        "WARREN",
    )
    assert "347 U.S. 483" in brown.citations
    sullivan = by_file["raw_cited/106761_010combined.txt.gz"]  # its lead file is missing: combined stands in
    assert (sullivan.is_majority, sullivan.author) == (True, "BRENNAN")
    texas = by_file["raw_cited/88061_020lead.txt.gz"]
    assert (texas.case_name, texas.is_majority, texas.author) == ("Texas v. White", True, "The CHIEF JUSTICE")
    assert by_file["raw_cited/88061_010combined.txt.gz"].is_majority is False
    per_curiam = by_file["text/107965_020lead.txt.gz"]
    assert (per_curiam.case_name, per_curiam.is_majority, per_curiam.author) == ("Brandenburg v. Ohio", True, None)
    taft = by_file["raw_cited/100567_010combined.txt.gz"]  # "Mr. Chief Justice TAFT, after stating the case ..."
    assert taft.author == "TAFT"


def test_shared_file_name_takes_the_first_opinion(by_file: dict[str, OpinionRecord]) -> None:
    reed = by_file["text/103831_040dissent.txt.gz"]
    assert reed.opinion_id == "9419339"
    assert reed.text.startswith("Me. Justice Reed, dissenting")
    assert reed.author == "Reed"


def test_clean_text_has_no_markup(real: tuple[LoadResult, float]) -> None:
    result, _ = real
    for record in result.opinions:
        assert TAG.search(record.text) is None, record.source_file
        assert html.unescape(record.text) == record.text, record.source_file
        assert re.search(r"[\x00-\x08\x0b-\x1f\x80-\x9f\ue000\ue001]", record.text) is None, record.source_file
        assert "  " not in record.text and record.text == record.text.strip(), record.source_file
    converted = [record for record in result.opinions if record.source_file.startswith("raw_cited/")]
    assert sum("\n\n" in record.text for record in converted) > 0.95 * len(converted)


def test_page_markers_removed_only_where_markup_says_so(by_file: dict[str, OpinionRecord]) -> None:
    html_text = by_file["raw_cited/88924_010combined.txt.gz"].text  # <span class="star-pagination">*82</span>
    assert "his office and information received" in html_text and "*82" not in html_text
    assert "Mr. Justice MILLER delivered the opinion of the court." in html_text
    cap_text = by_file["raw_cited/88061_020lead.txt.gz"].text  # de<page-number>*718</page-number>livered
    assert "The bonds thus delivered were dated" in cap_text and "*718" not in cap_text
    assert "Commentaries *134" in by_file["raw_cited/109635_020lead.txt.gz"].text  # a cite to Blackstone's page
    assert " *118 " in by_file["text/103831_040dissent.txt.gz"].text  # plain text keeps its star paging


def test_real_files_take_both_markup_paths() -> None:
    if not REAL.is_dir():
        pytest.skip(f"real data not found at {REAL}")

    def raw(name: str) -> bytes:
        return gzip.decompress((REAL / "raw_cited" / f"{name}.txt.gz").read_bytes())

    assert markup.is_cap_xml(raw("88061_020lead"))  # bare <opinion>
    assert markup.is_cap_xml(raw("102164_010combined"))  # <?xml ...?> then <opinion>
    assert not markup.is_cap_xml(raw("88924_010combined"))  # CourtListener <div>
    assert not markup.is_cap_xml(raw("100567_010combined"))  # Public.Resource.org <p class="case_cite">
    assert markup.cap_xml_to_text(raw("88061_020lead")).startswith("The CHIEF JUSTICE\n\ndelivered the opinion")
    assert markup.convert_markup(raw("88924_010combined"))[0].startswith("87 U.S. 72 (____)\n\n20 Wall. 72")


# -------------------------------------------------------------------------------------------------- fixtures

HTML_FIXTURE = (
    '<div><center><b><span class="citation no-link">347 U.S. 483</span></b></center>\n'
    "<p>MR. JUSTICE HARLAN delivered the opinion of the Court.</p>\n"
    '<p>First &amp; second&nbsp;part <span class="star-pagination">*483</span> con'
    '<span class="star-pagination">*484</span>tinued<br>next   line.</p>\n'
    "<!-- a comment -->\n<p>Section &amp;sect; 1 of Blackstone *134.</p></div>"
)
CAP_FIXTURE = (
    '<?xml version="1.0" encoding="utf-8"?>\n<opinion type="majority">\n'
    '<author id="a1">Mr. Justice Holmes</author>\n<p id="p1">delivered the opinion of the Court.</p>\n'
    '<p id="p2">The bonds thus de<page-number citation-index="1" label="718">*718</page-number>livered'
    "<footnotemark>1</footnotemark> were\n   dated.</p>\n"
    '<footnote label="1"><p>A note &#8212; here.</p></footnote>\n</opinion>'
)


def test_html_fixture_conversion() -> None:
    data = HTML_FIXTURE.encode()
    assert not markup.is_cap_xml(data)
    text = markup.convert_markup(data)[0]
    assert text == (
        "347 U.S. 483\n\n"
        "MR. JUSTICE HARLAN delivered the opinion of the Court.\n\n"
        "First & second part continued\nnext line.\n\n"
        "Section § 1 of Blackstone *134."
    )
    assert opinions.find_author(text, "combined") == "HARLAN"


def test_cap_xml_fixture_conversion() -> None:
    data = CAP_FIXTURE.encode()
    assert markup.is_cap_xml(data)
    text = markup.cap_xml_to_text(data)
    assert text == (
        "Mr. Justice Holmes\n\ndelivered the opinion of the Court.\n\n"
        "The bonds thus delivered1 were dated.\n\n1 A note — here."
    )
    assert opinions.find_author(text, "lead") == "Holmes"
    broken = data.replace(b"</p>\n<footnote", b"\n<footnote")
    with pytest.raises(etree.XMLSyntaxError):
        markup.cap_xml_to_text(broken)
    text, note = markup.convert_markup(broken)
    assert "The bonds thus delivered1 were dated." in text and note and "not well-formed" in note


@pytest.mark.parametrize(
    ("text", "kind", "author"),
    [
        ("MR. JUSTICE HARLAN delivered the opinion of the Court.", "lead", "HARLAN"),
        ("Mr. Chief Justice Warren delivered the opinion of the Court.", "lead", "Warren"),
        ("Chief Justice Warren delivered the opinion", "lead", "Warren"),
        ("JUSTICE GINSBURG delivered the opinion of the Court.", "lead", "GINSBURG"),
        ("Opinion of the Court by Justice Kennedy. The question", "lead", "Kennedy"),
        ("MR. JUSTICE VAN DEVANTER delivered the opinion of the Court.", "lead", "VAN DEVANTER"),
        ("JUSTICE O'CONNOR announced the judgment of the Court", "lead", "O'CONNOR"),
        ("The CHIEF JUSTICE delivered the opinion of the Court.", "combined", "The CHIEF JUSTICE"),
        ("MARSHALL, Chief Justice, delivered the opinion of the court.", "combined", "MARSHALL"),
        ("Mr. Justice Story, in delivering the opinion", "lead", None),
        ("Per Curiam. Affirmed. Mr. Justice Black delivered a statement.", "combined", None),
        ("Me. Justice Reed, dissenting: These cases", "dissent", "Reed"),
        ("Justice Scalia, with whom Justice Thomas joins, concurring.", "concurrence", "Scalia"),
        ("L. HAND, Chief Judge.\n\nThe Gulf Oil Corporation appeals", "combined", "L. HAND"),
    ],
)
def test_find_author(text: str, kind: str, author: str | None) -> None:
    assert opinions.find_author(text, kind) == author


def test_normalize_opinion_type() -> None:
    assert opinions.normalize_opinion_type("010combined") == "combined"
    assert opinions.normalize_opinion_type("035concurrenceinpart") == "concurrence_in_part"
    assert opinions.normalize_opinion_type("015unamimous") == "unanimous"
    assert opinions.normalize_opinion_type("080onthemerits") == "on_the_merits"
    assert opinions.normalize_opinion_type("099newtype") == "newtype"


def write_gz(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode()))


def metadata(side: str, rows: list[dict]) -> str:
    """Write rows as pandas column-oriented JSON, the shape of the real metadata files."""
    columns = [f"{side}_{name}" for name in ("cluster_id", "decision_name", "name", "citations", "opinions")]
    return json.dumps({column: {str(i): row.get(column) for i, row in enumerate(rows)} for column in columns})


def opinion(cluster: int, opinion_id: int, kind: str) -> dict:
    return {"opinion_id": opinion_id, "opinion_type": kind, "opinion_filename": f"{cluster}_{kind}.txt"}


@pytest.fixture
def fixture_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "scotus"
    citing = [
        {
            "citing_cluster_id": 1,
            "citing_decision_name": "Alpha v. Beta,100 U.S. 1  (1900)",
            "citing_name": "Alpha v. Beta",
            "citing_citations": ["100 U.S. 1", "20 S. Ct. 1"],
            "citing_opinions": [
                opinion(1, 11, "010combined"),
                opinion(1, 12, "020lead"),
                opinion(1, 13, "040dissent"),
                opinion(1, 14, "040dissent"),
            ],
        },
        {"citing_cluster_id": "x", "citing_opinions": []},
    ]
    cited = [
        {
            "cited_cluster_id": 2,
            "cited_decision_name": "Gamma v. Delta (1890)",
            "cited_name": "Gamma v. Delta",
            "cited_citations": ["90 U.S. 2"],
            "cited_opinions": [opinion(2, 21, "010combined"), opinion(2, 22, "020lead"), opinion(2, 23, "040dissent")],
        },
        {
            "cited_cluster_id": 3,
            "cited_decision_name": "Epsilon v. Zeta (1880)",
            "cited_name": "Epsilon v. Zeta",
            "cited_citations": ["80 U.S. 3"],
            "cited_opinions": [opinion(3, 31, "020lead")],
        },
        {
            "cited_cluster_id": 4,
            "cited_decision_name": "Eta v. Theta (1870)",
            "cited_name": "Eta v. Theta",
            "cited_citations": ["70 U.S. 4"],
            "cited_opinions": [opinion(4, 41, "010combined"), opinion(4, 42, "020lead")],
        },
    ]
    folder.mkdir()
    (folder / "citing_opinions_metadata.json").write_text(metadata("citing", citing))
    (folder / "cited_opinions_metadata.json").write_text(metadata("cited", cited))
    write_gz(folder / "text/1_010combined.txt.gz", "Syllabus. Mr. Justice Brown delivered the opinion  of the Court.")
    write_gz(folder / "text/1_020lead.txt.gz", "Mr. Justice Brown delivered the opinion of the Court. *5 Text.")
    write_gz(folder / "text/1_040dissent.txt.gz", "Mr. Justice Harlan, dissenting. I dissent.")
    write_gz(folder / "raw_cited/2_010combined.txt.gz", HTML_FIXTURE)
    write_gz(folder / "raw_cited/2_020lead.txt.gz", CAP_FIXTURE)
    (folder / "raw_cited/3_020lead.txt.gz").write_bytes(b"\x1f\x8b\x08\x00 this is not gzip data")
    (folder / "raw_cited/4_010combined.txt.gz").write_bytes(b"")
    write_gz(folder / "raw_cited/4_020lead.txt.gz", "   \n  ")
    write_gz(folder / "raw_cited/9_010combined.txt.gz", "<p>A stale download.</p>")
    write_gz(folder / "raw_cited/notes.txt.gz", "not an opinion")
    return folder


def test_fixture_folder(fixture_folder: Path) -> None:
    result = opinions.load(fixture_folder)
    records = {record.source_file: record for record in result.opinions}
    assert result.rows_read == 3 + 7
    assert set(records) == {
        "text/1_010combined.txt.gz",
        "text/1_020lead.txt.gz",
        "text/1_040dissent.txt.gz",
        "raw_cited/2_010combined.txt.gz",
        "raw_cited/2_020lead.txt.gz",
    }
    lead = records["text/1_020lead.txt.gz"]
    assert (lead.opinion_id, lead.cluster_id, lead.case_name, lead.year) == ("12", "1", "Alpha v. Beta", 1900)
    assert (lead.citations, lead.opinion_type, lead.is_majority, lead.author) == (
        ("100 U.S. 1", "20 S. Ct. 1"),
        "lead",
        True,
        "Brown",
    )
    assert lead.text == "Mr. Justice Brown delivered the opinion of the Court. *5 Text."
    assert records["text/1_010combined.txt.gz"].is_majority is False
    assert records["text/1_040dissent.txt.gz"].opinion_id == "13"
    cap = records["raw_cited/2_020lead.txt.gz"]
    assert (cap.author, cap.is_majority, cap.year) == ("Holmes", True, 1890)
    assert records["raw_cited/2_010combined.txt.gz"].author == "HARLAN"

    def issue_for(place: str) -> str:
        found = [issue for issue in result.issues if issue.location.endswith(place)]
        assert len(found) == 1, (place, result.issues)
        return found[0].message

    assert "share this file name" in issue_for("text/1_040dissent.txt.gz")
    assert "14" in issue_for("text/1_040dissent.txt.gz")
    assert "gzip" in issue_for("raw_cited/3_020lead.txt.gz")
    assert "empty" in issue_for("raw_cited/4_010combined.txt.gz")
    assert "empty" in issue_for("raw_cited/4_020lead.txt.gz")
    assert "not listed in the metadata" in issue_for("raw_cited/9_010combined.txt.gz")
    assert "file name" in issue_for("raw_cited/notes.txt.gz")
    assert "not a number" in issue_for("citing_opinions_metadata.json:row 1")
    assert len(result.issues) == 7
    # every file read is a record or an issue
    file_issues = {issue.location for issue in result.issues if issue.location.endswith(".gz")}
    assert len(records) + len(file_issues - {str(fixture_folder / "text/1_040dissent.txt.gz")}) == result.rows_read


def test_missing_lead_and_broken_metadata(tmp_path: Path) -> None:
    folder = tmp_path / "scotus"
    cited = [
        {
            "cited_cluster_id": 5,
            "cited_decision_name": "Iota v. Kappa (1860)",
            "cited_name": "Iota v. Kappa",
            "cited_citations": ["60 U.S. 5"],
            "cited_opinions": [opinion(5, 51, "010combined"), opinion(5, 52, "020lead")],
        },
        {
            "cited_cluster_id": 6,
            "cited_decision_name": "Lambda v. Mu (1850)",
            "cited_name": "Lambda v. Mu",
            "cited_citations": "50 U.S. 6",
            "cited_opinions": [opinion(6, 61, "010combined")],
        },
    ]
    folder.mkdir()
    (folder / "citing_opinions_metadata.json").write_text("{not json")
    (folder / "cited_opinions_metadata.json").write_text(metadata("cited", cited))
    write_gz(folder / "raw_cited/5_010combined.txt.gz", "<p>Mr. Justice Grier delivered the opinion of the court.</p>")
    write_gz(folder / "text/7_010combined.txt.gz", "Plain text.")
    result = opinions.load(folder)
    (record,) = result.opinions
    assert (record.source_file, record.is_majority, record.author) == ("raw_cited/5_010combined.txt.gz", True, "Grier")
    messages = {issue.location: issue.message for issue in result.issues}
    assert "unreadable metadata" in messages[str(folder / "citing_opinions_metadata.json")]
    assert "listed but absent" in messages[f"{folder / 'cited_opinions_metadata.json'}:row 0"]
    assert "citations" in messages[f"{folder / 'cited_opinions_metadata.json'}:row 1"]
    assert "not listed in the metadata" in messages[str(folder / "text/7_010combined.txt.gz")]
    assert len(result.issues) == 4
