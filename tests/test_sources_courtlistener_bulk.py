"""Issue 30: the CourtListener bulk CSV loader on files written in the export's real dialect.

Every file here is written to tmp_path the way PostgreSQL's `COPY ... (FORMAT csv, HEADER, ESCAPE '\\',
FORCE_QUOTE *)` writes it, with the exact columns of `scripts/make_bulk_data.sh`, bzip2-compressed or plain.
"""

from __future__ import annotations

import bz2
import csv
import io
import sqlite3
from pathlib import Path

import pytest

from lexprobe.caselaw.records import CaseBundle, EmptySourceError, LoadOptions, SourceFilter
from lexprobe.caselaw.sources import courtlistener_bulk as bulk
from lexprobe.caselaw.sources.courtlistener_bulk import MAX_ISSUES_PER_FILE, STORE_NAME, detect_dialect, plain_author
from lexprobe.caselaw.sources.courtlistener_bulk_export import COLUMNS, write_table
from lexprobe.errors import BadInputError

NAME_10 = 'Smith v. "Jones" \\ Sons, Inc.'
TEXT_100 = 'POSNER, Circuit Judge.\nThe "rule", as we said, is plain.\nSee C:\\docs\\a.txt, and \\"that\\".\n'

COURTS = [
    {"id": "ca9", "full_name": 'Court of Appeals for the Ninth Circuit, "9th"', "jurisdiction": "F", "in_use": True},
    {"id": "nysd", "full_name": "District Court, S.D. New York", "jurisdiction": "FD", "in_use": True},
    {"id": "scotus", "full_name": "Supreme Court of the United States", "jurisdiction": "F", "in_use": True},
    {"id": "ca1", "full_name": "Court of Appeals for the First Circuit", "jurisdiction": "F", "in_use": False},
]
DOCKETS = [
    {"id": 1, "court_id": "ca9", "docket_number": "No. 95-1234", "case_name": "Smith v. Jones", "blocked": False},
    {"id": 2, "court_id": "nysd", "docket_number": "1:97-cv-00123", "case_name": "Doe v. Roe", "blocked": False},
    {"id": 3, "court_id": "scotus", "docket_number": "1", "case_name": "Brown v. Board", "blocked": False},
    {"id": 4, "court_id": "ca1", "docket_number": "04-1", "case_name": "Alpha v. Beta", "blocked": True},
]
CLUSTERS = [
    {
        "id": 10, "docket_id": 1, "date_filed": "1997-05-12", "date_filed_is_approximate": False,
        "case_name": NAME_10, "case_name_full": NAME_10 + " et al.", "judges": "Posner, Easterbrook, Wood",
        "disposition": "AFFIRMED", "syllabus": "Line one,\nline two with \"quotes\"", "precedential_status":
        "Published", "citation_count": 12, "blocked": False, "headmatter": "<p>\\n not a newline</p>",
    },
    {
        "id": 11, "docket_id": 2, "date_filed": "1999-01-02", "date_filed_is_approximate": False,
        "case_name": "Doe v. Roe", "judges": "John Doe", "disposition": "Reversed and remanded",
        "precedential_status": "Published", "blocked": False,
    },
    {
        "id": 12, "docket_id": 3, "date_filed": "1954-05-17", "date_filed_is_approximate": True,
        "case_name": "Brown v. Board of Education",
        "judges": "Warren", "scdb_id": "1953-071", "scdb_votes_majority": 9, "scdb_votes_minority": 0,
        "precedential_status": "Published", "blocked": False,
    },
    {
        "id": 13, "docket_id": 4, "date_filed": "2005-03-01", "case_name": "Alpha v. Beta",
        "disposition": "Affirmed in part, reversed in part", "blocked": False,
    },
    {"id": 14, "docket_id": 99, "date_filed": "2000-07-07", "case_name": "Orphan v. Docket", "blocked": False},
]  # fmt: skip
CITATIONS = [
    {"id": 1, "volume": 1997, "reporter": "U.S. App. LEXIS", "page": 22161, "type": 6, "cluster_id": 10},
    {"id": 2, "volume": 124, "reporter": "F.3d", "page": 243, "type": 1, "cluster_id": 10},
    {"id": 3, "volume": 1997, "reporter": "WL", "page": 12345, "type": 7, "cluster_id": 10},
    {"id": 4, "volume": 1954, "reporter": "U.S. LEXIS", "page": 2094, "type": 6, "cluster_id": 12},
    {"id": 5, "volume": 347, "reporter": "U.S.", "page": 483, "type": 1, "cluster_id": 12},
    {"id": 6, "volume": 30, "reporter": "F. Supp. 2d", "page": 100, "type": 1, "cluster_id": 11},
    {"id": 7, "volume": 80, "reporter": "U.S. App. D.C.", "page": 67, "type": 1, "cluster_id": 13},
    {"id": 8, "volume": 144, "reporter": "F.2d", "page": 5, "type": 1, "cluster_id": 13},
]
OPINIONS = [
    {"id": 100, "cluster_id": 10, "type": "020lead", "author_str": "Circuit Judge Posner", "per_curiam": False,
     "plain_text": TEXT_100, "html": "<p>ignored when plain text exists</p>", "extracted_by_ocr": False},
    {"id": 101, "cluster_id": 10, "type": "040dissent", "author_str": "Wood", "per_curiam": False,
     "plain_text": "WOOD, Circuit Judge, dissenting.\nI would reverse.", "extracted_by_ocr": False},
    {"id": 102, "cluster_id": 11, "type": "010combined", "per_curiam": False,
     "html_with_citations": '<div class="op"><p>The judgment is <b>reversed</b>, "and remanded".</p></div>',
     "extracted_by_ocr": True},
    {"id": 103, "cluster_id": 12, "type": "020lead", "author_str": "Warren", "per_curiam": False,
     "plain_text": "MR. CHIEF JUSTICE WARREN delivered the opinion of the Court.", "extracted_by_ocr": False},
    {"id": 104, "cluster_id": 13, "type": "010combined", "author_str": "Judge Lynch", "per_curiam": False,
     "plain_text": "We affirm in part.", "extracted_by_ocr": False},
]  # fmt: skip
CITATION_MAP = [
    {"id": 1, "depth": 2, "cited_opinion_id": 103, "citing_opinion_id": 100},
    {"id": 2, "depth": 1, "cited_opinion_id": 100, "citing_opinion_id": 102},
    {"id": 3, "depth": 1, "cited_opinion_id": 999, "citing_opinion_id": 100},
    {"id": 4, "depth": 1, "cited_opinion_id": 103, "citing_opinion_id": 104},
    {"id": 5, "depth": 1, "cited_opinion_id": 103, "citing_opinion_id": 101},
]
TABLES = {
    "courts": COURTS, "dockets": DOCKETS, "opinion-clusters": CLUSTERS, "citations": CITATIONS,
    "opinions": OPINIONS, "citation-map": CITATION_MAP,
}  # fmt: skip


def write_file(path: Path, kind: str, rows: list[dict], dialect: str = "escape") -> Path:
    """Write one bulk table, bzip2-compressed when the name ends in .bz2."""
    buffer = io.StringIO(newline="")
    write_table(buffer, kind, rows, dialect)
    data = buffer.getvalue().encode("utf-8")
    path.write_bytes(bz2.compress(data) if path.name.endswith(".bz2") else data)
    return path


def write_set(folder: Path, date: str = "2025-06-30", dialect: str = "escape", plain: tuple[str, ...] = ()) -> Path:
    """The whole small bulk set: bz2 files, except the kinds named in `plain`."""
    folder.mkdir(parents=True, exist_ok=True)
    for kind, rows in TABLES.items():
        suffix = ".csv" if kind in plain else ".csv.bz2"
        write_file(folder / f"{kind}-{date}{suffix}", kind, rows, dialect)
    return folder


def load(paths: list[Path], **options) -> tuple[dict[str, CaseBundle], bulk.LoadResult]:
    streamed = bulk.load_files(paths, LoadOptions(**options))
    bundles = {b.case.source_id: b for b in streamed.bundles}
    return bundles, streamed.result


def test_real_dialect_loads_and_joins_clusters_to_dockets_citations_and_opinions(tmp_path):
    folder = write_set(tmp_path / "bulk", plain=("courts", "citation-map"))
    bundles, result = load([folder])
    assert sorted(bundles, key=int) == ["10", "11", "12", "13", "14"]

    smith = bundles["10"]
    case = smith.case
    assert (case.source, case.court_id, case.circuit, case.state) == ("courtlistener", "ca9", "9", None)
    assert case.name == NAME_10
    # official reporter first, vendor cites (West type 7, then Lexis type 6) last
    assert case.citations == ("124 F.3d 243", "1997 WL 12345", "1997 U.S. App. LEXIS 22161")
    assert (case.decision_date, case.year, case.docket) == ("1997-05-12", 1997, "No. 95-1234")
    assert case.author == "Posner"  # the lead opinion's author_str without "Circuit Judge"
    assert (case.disposition, case.disposition_raw) == ("affirm", "AFFIRMED")
    assert ("judges", "Posner, Easterbrook, Wood") in case.extra
    assert ("case_name_full", NAME_10 + " et al.") in case.extra
    lead, dissent = smith.opinions
    assert lead.text == TEXT_100.strip()  # quotes, commas, newlines and backslashes survive exactly
    assert (lead.opinion_type, lead.is_majority, lead.author, lead.cluster_id) == ("lead", True, "Posner", "10")
    assert (dissent.opinion_type, dissent.is_majority) == ("dissent", False)
    assert lead.citations == case.citations and lead.year == 1997
    assert {(e.citing, e.cited) for e in smith.edges} == {("courtlistener:10", "courtlistener:12")}

    doe = bundles["11"].case
    assert (doe.court_id, doe.circuit, doe.state) == ("nysd", "2", "NY")
    assert doe.author == "John Doe"  # no opinion author; the cluster's judges name one person
    assert doe.disposition == "reverse"
    (combined,) = bundles["11"].opinions
    assert combined.text == 'The judgment is reversed, "and remanded".'  # HTML stripped when there is no plain text
    assert combined.is_majority  # a combined opinion with no lead beside it
    assert [e.cited for e in bundles["11"].edges] == ["courtlistener:10"]

    brown = bundles["12"].case
    assert brown.citations == ("347 U.S. 483", "1954 U.S. LEXIS 2094")
    assert (brown.majority_votes, brown.minority_votes, brown.author) == (9, 0, "Warren")
    assert ("date_filed_is_approximate", "true") in brown.extra  # a "t" boolean
    assert not any(key == "date_filed_is_approximate" for key, _ in case.extra)  # "f"
    assert bundles["13"].case.citations == ("144 F.2d 5", "80 U.S. App. D.C. 67")  # the D.C. parallel second
    assert bundles["13"].case.disposition is None  # "affirmed in part, reversed in part" is neither
    assert bundles["13"].case.author == "Lynch"
    assert bundles["14"].case.court_id is None
    assert any("1 clusters without a court" in issue.message for issue in result.issues)
    assert any("cited opinions are not in the opinions file" in issue.message for issue in result.issues)
    assert result.rows_read == sum(len(rows) for rows in TABLES.values())


def test_python_default_reader_splits_a_real_opinions_row_but_the_loader_does_not(tmp_path):
    path = write_file(tmp_path / "opinions-2025-06-30.csv", "opinions", OPINIONS[:1])
    with open(path, newline="", encoding="utf-8") as stream:
        header, *rows = list(csv.reader(stream))
    assert len(header) == len(COLUMNS["opinions"]) == 22
    assert len(rows[0]) != 22 or rows[0][header.index("plain_text")] != TEXT_100  # the default dialect misreads it
    assert detect_dialect(path) == "escape"
    write_set(tmp_path / "set")
    bundles, result = load([tmp_path / "set"])
    assert bundles["10"].opinions[0].text == TEXT_100.strip()
    assert not [issue for issue in result.issues if "fields" in issue.message]


@pytest.mark.parametrize(("date", "dialect"), [("2024-10-31", "backtick"), ("2023-12-04", "doubled")])
def test_the_older_quotings_of_the_export_are_read_too(tmp_path, date, dialect):
    folder = write_set(tmp_path / dialect, date=date, dialect=dialect)
    assert detect_dialect(folder / f"opinions-{date}.csv.bz2") == dialect
    bundles, _ = load([folder])
    assert bundles["10"].case.name == NAME_10
    assert bundles["10"].opinions[0].text == TEXT_100.strip()


def test_court_and_year_filters_apply_while_streaming(tmp_path):
    folder = write_set(tmp_path / "bulk")
    work = tmp_path / "work"
    options = {"filter": SourceFilter(courts=frozenset({"ca9", "nysd"}), years=(1990, 2000)), "work_dir": work}
    bundles, _ = load([folder], **options)
    assert sorted(bundles) == ["10", "11"]
    # Brown (scotus) is filtered out, so Smith's edge to it is named by Brown's official citation
    assert [e.cited for e in bundles["10"].edges] == ["347 U.S. 483"]
    with sqlite3.connect(work / STORE_NAME) as db:
        assert db.execute("SELECT id FROM dockets ORDER BY id").fetchall() == [(1,), (2,)]
        assert db.execute("SELECT id FROM opinions ORDER BY id").fetchall() == [(100,), (101,), (102,)]


def test_a_filter_that_keeps_nothing_fails_loudly(tmp_path):
    folder = write_set(tmp_path / "bulk")
    streamed = bulk.load_files([folder], LoadOptions(filter=SourceFilter(courts=frozenset({"ca5"}))))
    with pytest.raises(EmptySourceError, match=r"no CourtListener case read: expected CourtListener bulk CSV.*ca5"):
        list(streamed.bundles)


def test_restart_skips_finished_files_and_rereads_the_broken_one(tmp_path):
    folder = write_set(tmp_path / "bulk")
    opinions = folder / "opinions-2025-06-30.csv.bz2"
    good = opinions.read_bytes()
    opinions.write_bytes(good[: len(good) // 2])  # a download cut off halfway
    work = tmp_path / "work"
    events: list[str] = []

    def progress(label: str, done: int, total: int) -> None:
        events.append(label)

    with pytest.raises(BadInputError, match=r"opinions-2025-06-30\.csv\.bz2.*truncated or corrupt"):
        list(bulk.load_files([folder], LoadOptions(progress=progress, work_dir=work)).bundles)
    assert "dockets-2025-06-30.csv.bz2" in events
    with sqlite3.connect(work / STORE_NAME) as db:
        finished = {kind for (kind,) in db.execute("SELECT kind FROM files")}
    assert finished == {"courts", "dockets", "opinion-clusters", "citations"}

    opinions.write_bytes(good)
    events.clear()
    bundles, result = load([folder], progress=progress, work_dir=work)
    read = {label for label in events if "skipped" not in label and label != "courtlistener cases"}
    skipped = {label.split()[0] for label in events if "skipped" in label}
    assert read == {"opinions-2025-06-30.csv.bz2", "citation-map-2025-06-30.csv.bz2"}
    assert skipped == {f"{kind}-2025-06-30.csv.bz2" for kind in ("courts", "dockets", "opinion-clusters", "citations")}
    assert bundles["10"].opinions[0].text == TEXT_100.strip()
    assert bundles["10"].case.citations[0] == "124 F.3d 243"
    assert result.rows_read == sum(len(rows) for rows in TABLES.values())

    # a store file that is not SQLite (damaged) is replaced, not fatal
    (work / STORE_NAME).write_bytes(b"not a database")
    bundles, _ = load([folder], work_dir=work)
    assert len(bundles) == 5

    # a changed clusters file is read again, with everything after it; the dockets are not
    write_file(folder / "opinion-clusters-2025-06-30.csv.bz2", "opinion-clusters", CLUSTERS[:2])
    events.clear()
    bundles, _ = load([folder], progress=progress, work_dir=work)
    assert sorted(bundles) == ["10", "11"]
    assert "dockets-2025-06-30.csv.bz2 (read before, skipped)" in events
    assert "opinion-clusters-2025-06-30.csv.bz2" in events and "opinions-2025-06-30.csv.bz2" in events


def test_malformed_rows_become_bounded_issues_naming_file_and_line(tmp_path):
    folder = write_set(tmp_path / "bulk")
    bad = [{"id": f"x{i}", "docket_id": 1, "date_filed": "1997-01-01"} for i in range(MAX_ISSUES_PER_FILE + 200)]
    clusters = write_file(folder / "opinion-clusters-2025-06-30.csv.bz2", "opinion-clusters", CLUSTERS + bad)
    with bz2.open(clusters, "at", encoding="utf-8", newline="") as stream:
        stream.write('"15","too","few"\n')
    bundles, result = load([folder])
    assert len(bundles) == 5
    mine = [i for i in result.issues if i.location.startswith(str(clusters)) and "without a court" not in i.message]
    assert mine[0].location == f"{clusters}:8" and "id is 'x0', not a number" in mine[0].message
    assert len(mine) == MAX_ISSUES_PER_FILE + 1
    assert mine[-1].message == "201 more malformed rows not listed one by one"


def test_wrong_width_row_is_an_issue(tmp_path):
    folder = write_set(tmp_path / "bulk")
    clusters = folder / "opinion-clusters-2025-06-30.csv.bz2"
    with bz2.open(clusters, "at", encoding="utf-8", newline="") as stream:
        stream.write('"15","too","few"\n')
    _, result = load([folder])
    (issue,) = [i for i in result.issues if "fields" in i.message]
    assert issue.location == f"{clusters}:8"
    assert "expected 36 fields (the header's), found 3" in issue.message


def test_junk_sources_fail_loudly_with_one_line(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        bulk.load_files([tmp_path / "missing"], LoadOptions())
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.txt").write_text("hello")
    (junk / "people-db-people-2025-06-30.csv").write_text("id,name\n")
    with pytest.raises(EmptySourceError, match=r"expected CourtListener bulk CSV files .*found"):
        bulk.load_files([junk], LoadOptions())
    (junk / "opinion-clusters.csv").write_text("hello,world\n1,2\n")
    streamed = bulk.load_files([junk], LoadOptions())
    with pytest.raises(BadInputError, match=r"opinion-clusters\.csv:1: not a CourtListener .* lacks id, docket_id"):
        list(streamed.bundles)
    (junk / "opinion-clusters.csv").write_text(",".join(COLUMNS["opinion-clusters"]) + "\n")
    with pytest.raises(EmptySourceError, match=r"found 0 cluster rows"):
        list(bulk.load_files([junk], LoadOptions()).bundles)
    (junk / "opinion-clusters.csv").write_bytes(b"\xc3\x28 garbage \x00\x81")  # (a UTF-16 file: test_loader_messages)
    with pytest.raises(BadInputError, match=r"opinion-clusters\.csv:1: unreadable .*utf-8"):
        list(bulk.load_files([junk], LoadOptions()).bundles)


def test_is_bulk_path_and_snapshot_choice(tmp_path):
    folder = write_set(tmp_path / "bulk")
    assert bulk.is_bulk_path(folder)
    assert bulk.is_bulk_path(folder / "opinions-2025-06-30.csv.bz2")
    assert bulk.is_bulk_path(tmp_path / "opinion-clusters.csv")
    assert not bulk.is_bulk_path(tmp_path / "clusters.json")
    api = tmp_path / "api"
    api.mkdir()
    (api / "clusters.json").write_text("{}")
    assert not bulk.is_bulk_path(api)
    # an older snapshot beside the newest is noted and left out
    write_file(folder / "opinion-clusters-2024-12-31.csv.bz2", "opinion-clusters", CLUSTERS[:1])
    bundles, result = load([folder])
    assert len(bundles) == 5
    assert any("older snapshot (2024-12-31)" in issue.message for issue in result.issues)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Circuit Judge Posner", "Posner"),
        ("POSNER, Circuit Judge.", "POSNER"),
        ("Hood, Associate Judge.", "Hood"),
        ("Chief Justice Roberts", "Roberts"),
        ("Marshall, C. J.", "Marshall"),
        ("Richard A. Posner", "Richard A. Posner"),
        ("PER CURIAM", None),
        ("", None),
    ],
)
def test_author_without_titles(raw, expected):
    assert plain_author(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("AFFIRMED", "affirm"),
        ("Reversed and remanded", "reverse"),
        ("Vacated and remanded.", "reverse"),
        ("Affirmed in part, reversed in part", None),
        ("Affirmed and reversed", None),
        ("Appeal dismissed", None),
        (None, None),
    ],
)
def test_disposition_only_when_unambiguous(raw, expected):
    assert bulk.coarse_disposition(raw) == expected
