"""Loaders for the online forms of the data: CAP bulk JSON Lines, saved CourtListener v4 API pages, SCDB release zips.

The fixtures under tests/fixtures/caselaw/ are the project's own small files in those formats (names and citations
of real or invented cases, opinion texts written for the tests).
"""

from __future__ import annotations

import gzip
import json
import lzma
import shutil
import zipfile
from pathlib import Path

import pytest

from lexprobe.caselaw.records import CaseRecord, EmptySourceError, LoadResult
from lexprobe.caselaw.sources import cap, courtlistener_api, scdb_release
from lexprobe.caselaw.sources.cap import court_place, resolve_cap_court
from lexprobe.caselaw.sources.markup import markup_text

FIXTURES = Path(__file__).parent / "fixtures" / "caselaw"
CAP_FILE = FIXTURES / "cap_cases.jsonl"
CL_PAGES = ("courtlistener_clusters_page.json", "courtlistener_opinions_page.json", "courtlistener_dockets_page.json")


def by_id(result: LoadResult) -> dict[str, CaseRecord]:
    return {case.source_id: case for case in result.cases}


def write_jsonl(path: Path, objects: list[object]) -> Path:
    path.write_text("".join(json.dumps(obj) + "\n" for obj in objects), encoding="utf-8")
    return path


# --- CAP ------------------------------------------------------------------------------------------------------


def test_cap_cases_map_courts_citations_authors_and_prominence() -> None:
    result = cap.load(CAP_FILE)
    cases = by_id(result)
    assert result.rows_read == 4
    assert set(cases) == {"1154201", "3541177", "2094410"}

    brown = cases["1154201"]
    assert brown.source == "cap"
    assert brown.court_id == "scotus"
    assert brown.citations == ("347 U.S. 483", "74 S. Ct. 686", "98 L. Ed. 873")
    assert brown.decision_date == "1954-05-17" and brown.year == 1954
    assert brown.docket == "No. 1"
    assert brown.author == "Warren"  # the byline "Warren, C.J." without the title
    assert dict(brown.extra)["author_byline"] == "Warren, C.J."
    assert brown.prominence == pytest.approx(99.98)
    assert brown.circuit is None and brown.state is None
    assert brown.name == "Brown v. Board of Education"  # the name as cited; the caption is kept in extra
    extra = dict(brown.extra)
    assert extra["name_full"] == "Oliver Brown et al. v. Board of Education of Topeka, Shawnee County, Kansas, et al."
    assert extra["pagerank_raw"] == "0.000412"

    harbor = cases["3541177"]
    assert (harbor.court_id, harbor.circuit, harbor.state) == ("ca9", "9", None)
    assert harbor.citations == ("123 F.3d 1045",)
    assert harbor.author == "Alvarez"
    assert harbor.prominence == pytest.approx(42.15)

    rivera = cases["2094410"]
    assert (rivera.court_id, rivera.circuit, rivera.state) == ("cand", "9", "CA")
    assert rivera.citations == ("912 F. Supp. 1341",)
    assert rivera.decision_date is None and rivera.year == 1995  # "1995-12": the year only
    assert dict(rivera.extra)["decision_date_raw"] == "1995-12"
    assert rivera.author == "Chen"  # the static export form: opinions directly under casebody


def test_cap_opinions_and_edges() -> None:
    result = cap.load(CAP_FILE)
    opinions = {op.opinion_id: op for op in result.opinions}
    assert set(opinions) == {"cap:1154201:0", "cap:3541177:0", "cap:3541177:1", "cap:2094410:0"}
    lead = opinions["cap:3541177:0"]
    assert (lead.opinion_type, lead.is_majority, lead.author) == ("lead", True, "Alvarez")
    assert lead.cluster_id == "3541177" and lead.citations == ("123 F.3d 1045",) and lead.year == 1997
    dissent = opinions["cap:3541177:1"]
    assert (dissent.opinion_type, dissent.is_majority) == ("dissent", False)
    assert "I would reverse" in dissent.text
    assert all(op.source == "cap" and op.source_file == str(CAP_FILE) for op in result.opinions)

    edges = [(e.citing, e.cited) for e in result.edges]
    assert edges == [
        ("cap:1154201", "163 U.S. 537"),  # cited twice in cites_to, one edge
        ("cap:1154201", "339 U.S. 629"),
        ("cap:1154201", "339 U.S. 637"),
        ("cap:3541177", "347 U.S. 483"),
        ("cap:3541177", "901 F.2d 1401"),
        ("cap:2094410", "123 F.3d 1045"),
    ]
    assert {e.source for e in result.edges} == {"cap"}


def test_cap_malformed_line_is_reported_with_path_and_line() -> None:
    result = cap.load(CAP_FILE)
    assert len(result.issues) == 1
    issue = result.issues[0]
    assert issue.source == "cap"
    assert issue.location == f"{CAP_FILE}:3"
    assert issue.message.startswith("invalid JSON")


@pytest.mark.parametrize(("suffix", "compress"), [(".gz", gzip.compress), (".xz", lzma.compress)])
def test_cap_compressed_variants(tmp_path: Path, suffix: str, compress) -> None:
    packed = tmp_path / f"cap_cases.jsonl{suffix}"
    packed.write_bytes(compress(CAP_FILE.read_bytes()))
    plain = cap.load(CAP_FILE)
    result = cap.load(packed)
    assert result.cases == plain.cases
    assert result.edges == plain.edges
    assert [op.text for op in result.opinions] == [op.text for op in plain.opinions]
    assert [issue.location for issue in result.issues] == [f"{packed}:3"]
    assert result.rows_read == 4


def test_cap_truncated_archive_is_an_issue(tmp_path: Path) -> None:
    packed = tmp_path / "cut.jsonl.gz"
    packed.write_bytes(gzip.compress(CAP_FILE.read_bytes())[:-40])
    result = cap.load(packed)
    assert any("cannot read further" in issue.message for issue in result.issues)


def test_cap_markup_casebodies_are_converted(tmp_path: Path) -> None:
    html = (
        '<section class="casebody" data-case-id="77"><section class="head-matter"><p>SMITH v. JONES</p></section>'
        '<article class="opinion" data-type="majority"><p class="author">HOLMES, J.</p><p>First paragraph.</p>'
        '<p>Second&nbsp;paragraph.</p></article><article class="opinion" data-type="dissent">'
        '<p class="author">HARLAN, J., dissenting.</p><p>I dissent.</p></article></section>'
    )
    xml = (
        "<?xml version='1.0' encoding='utf-8'?>\n"
        '<casebody xmlns="http://nrs.harvard.edu/urn-3:HLS.Libr.US_Case_Law.Schema.Case_Body:v1" firstpage="1">'
        '<parties>DOE v. ROE</parties><opinion type="majority"><author>TAFT, C.J.</author><p>Affirmed.</p></opinion>'
        "</casebody>"
    )
    path = write_jsonl(
        tmp_path / "markup.jsonl",
        [
            {"id": 77, "name": "Smith v. Jones", "casebody": {"status": "ok", "data": html}},
            {"id": 78, "name": "Doe v. Roe", "casebody": {"status": "ok", "data": xml}},
        ],
    )
    result = cap.load(path)
    assert result.issues == []
    opinions = {op.opinion_id: op for op in result.opinions}
    assert opinions["cap:77:0"].author == "Holmes"
    assert opinions["cap:77:0"].is_majority
    assert opinions["cap:77:0"].text == "HOLMES, J.\nFirst paragraph.\nSecond paragraph."
    assert (opinions["cap:77:1"].opinion_type, opinions["cap:77:1"].author) == ("dissent", "Harlan")
    assert opinions["cap:78:0"].author == "Taft"
    assert opinions["cap:78:0"].text == "TAFT, C.J.\nAffirmed."
    assert by_id(result)["77"].author == "Holmes"


def test_cap_unusable_rows_and_bodies_become_issues(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"name": "No Id v. Anyone"}),
                json.dumps(["not", "an", "object"]),
                "",
                json.dumps(
                    {"id": 5, "name": "Locked v. Out", "casebody": {"status": "error_auth_required", "data": None}}
                ),
                json.dumps({"id": 6, "court": {"name": "Court of Nowhere", "name_abbreviation": "Nowh."}}),
                json.dumps({"id": 7, "court": {"name": "Court of Nowhere", "name_abbreviation": "Nowh."}}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    result = cap.load(path)
    assert result.rows_read == 5  # the blank line is not a row
    assert sorted(by_id(result)) == ["5", "6", "7"]
    assert by_id(result)["6"].court_id is None
    messages = {issue.location: issue.message for issue in result.issues}
    assert messages[f"{path}:1"] == "malformed case object: no id"
    assert "got list" in messages[f"{path}:2"]
    assert "error_auth_required" in messages[f"{path}:4"]
    assert "Court of Nowhere" in messages[f"{path}:5"]  # reported once per unknown court
    assert f"{path}:6" not in messages


def test_cap_percentile_already_in_percent_is_kept(tmp_path: Path) -> None:
    case = {"id": 1, "name": "P v. Q", "analysis": {"pagerank": {"raw": 1e-6, "percentile": 87}}}
    path = write_jsonl(tmp_path / "p.jsonl", [case])
    assert cap.load(path).cases[0].prominence == 87.0


@pytest.mark.parametrize(
    ("court_id", "when", "expected"),
    [
        ("gand", "1975-06-01", ("5", "GA")),  # before the Eleventh Circuit
        ("gand", "1990-06-01", ("11", "GA")),
        ("ksd", "1920", ("8", "KS")),  # before the Tenth Circuit
        ("dcd", None, ("dc", "DC")),
        ("cadc", None, ("dc", None)),
        ("cafc", None, ("fed", None)),
        ("scotus", None, (None, None)),
        ("cal", None, (None, "CA")),
        (None, None, (None, None)),
    ],
)
def test_court_place(court_id: str | None, when: str | None, expected: tuple[str | None, str | None]) -> None:
    assert court_place(court_id, when) == expected


def test_resolve_cap_court_by_name_then_abbreviation() -> None:
    assert resolve_cap_court("United States District Court for the Southern District of New York") == "nysd"
    assert resolve_cap_court("Some Unlisted Name", "N.D. Cal.") == "cand"
    assert resolve_cap_court("Supreme Court of California", "Cal.") == "cal"
    assert resolve_cap_court("United States Bankruptcy Court for the Northern District of California") == "canb"
    assert resolve_cap_court("Court of Nowhere", None) is None


# --- CourtListener API ----------------------------------------------------------------------------------------


@pytest.fixture
def cl_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "courtlistener"
    folder.mkdir()
    for name in CL_PAGES:
        shutil.copy(FIXTURES / name, folder / name)
    return folder


def test_courtlistener_folder_joins_clusters_dockets_and_opinions(cl_folder: Path) -> None:
    result = courtlistener_api.load(cl_folder)
    assert result.issues == []
    assert result.rows_read == 7
    cases = by_id(result)
    brown = cases["105221"]
    assert brown.source == "courtlistener"
    assert brown.court_id == "scotus"
    assert brown.name == "Brown v. Board of Education"
    assert brown.citations == ("347 U.S. 483", "74 S. Ct. 686", "98 L. Ed. 873")
    assert brown.decision_date == "1954-05-17" and brown.year == 1954
    assert brown.docket == "1"
    assert brown.author == "Warren"
    assert (brown.majority_votes, brown.minority_votes) == (9, 0)
    assert dict(brown.extra)["scdb_id"] == "1953-071"
    harbor = cases["742119"]
    assert (harbor.court_id, harbor.circuit, harbor.docket, harbor.author) == ("ca9", "9", "96-15521", "Alvarez")

    opinions = {op.opinion_id: op for op in result.opinions}
    lead = opinions["105221"]
    assert (lead.opinion_type, lead.is_majority, lead.cluster_id) == ("lead", True, "105221")
    assert lead.case_name == "Brown v. Board of Education" and lead.citations == brown.citations and lead.year == 1954
    assert "<" not in lead.text
    assert "The doctrine of Plessy v. Ferguson, 163 U.S. 537, has no place in public education." in lead.text
    assert lead.text.endswith("It is so ordered.")
    assert opinions["742119"].text.startswith("ALVAREZ, Circuit Judge:")  # plain_text as given
    dissent = opinions["742120"]
    assert (dissent.opinion_type, dissent.is_majority, dissent.author) == ("dissent", False, "Okafor")
    assert dissent.text == "OKAFOR, Circuit Judge, dissenting:\nFixture text: I would reverse."


def test_courtlistener_clusters_page_takes_the_court_hint() -> None:
    page = FIXTURES / "courtlistener_clusters_page.json"
    without = courtlistener_api.load(page)
    assert [case.court_id for case in without.cases] == [None, None]
    assert len(without.issues) == 1 and "2 cluster(s) without a court" in without.issues[0].message
    hinted = courtlistener_api.load(page, court_id="scotus")
    assert [case.court_id for case in hinted.cases] == ["scotus", "scotus"]
    assert hinted.issues == [] and hinted.rows_read == 2


def test_courtlistener_opinions_page_alone_is_an_empty_source() -> None:
    # opinions name no case: without their clusters the page yields no case, and says so (issue 30)
    with pytest.raises(EmptySourceError, match=r"found 1 file\(s\) with 3 opinions but no cluster or search result"):
        courtlistener_api.load(FIXTURES / "courtlistener_opinions_page.json")


@pytest.mark.parametrize("packed", [False, True])
def test_courtlistener_jsonl_with_a_malformed_line(tmp_path: Path, packed: bool) -> None:
    clusters = json.loads((FIXTURES / "courtlistener_clusters_page.json").read_text())["results"]
    opinions = json.loads((FIXTURES / "courtlistener_opinions_page.json").read_text())["results"]
    lines = [json.dumps(clusters[0]), '{"id": 5, "case_name": "Cut off', json.dumps(opinions[0]), json.dumps({"x": 1})]
    text = "\n".join(lines) + "\n"
    path = tmp_path / ("objects.jsonl.gz" if packed else "objects.jsonl")
    path.write_bytes(gzip.compress(text.encode()) if packed else text.encode())
    result = courtlistener_api.load(path, court_id="scotus")
    assert result.rows_read == 4
    assert [case.source_id for case in result.cases] == ["105221"]
    assert result.cases[0].author == "Warren"
    assert [op.case_name for op in result.opinions] == ["Brown v. Board of Education"]
    locations = {issue.location: issue.message for issue in result.issues}
    assert locations[f"{path}:2"].startswith("not JSON: ")
    assert locations[f"{path}:4"] == (
        "not a cluster, opinion, docket, court or search result: an object without resource_uri or known fields"
    )


def test_courtlistener_search_results_carry_their_court(tmp_path: Path) -> None:
    page = {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [
            {
                "absolute_url": "/opinion/742119/harbor-freight-lines-inc-v-pacific-maritime-assn/",
                "caseName": "Harbor Freight Lines, Inc. v. Pacific Maritime Ass'n",
                "caseNameFull": "",
                "citation": ["123 F.3d 1045"],
                "citeCount": 12,
                "cluster_id": 742119,
                "court": "Court of Appeals for the Ninth Circuit",
                "court_citation_string": "9th Cir.",
                "court_id": "ca9",
                "dateFiled": "1997-08-21",
                "docketNumber": "96-15521",
                "docket_id": 51234,
                "judge": "Alvarez, Brennan, Okafor",
                "opinions": [{"id": 742119, "snippet": "Fixture text", "type": "lead-opinion"}],
                "scdb_id": "",
                "status": "Published",
            }
        ],
    }
    path = tmp_path / "search.json"
    path.write_text(json.dumps(page), encoding="utf-8")
    result = courtlistener_api.load(path)
    assert result.issues == [] and result.opinions == []
    (case,) = result.cases
    assert (case.source_id, case.court_id, case.circuit, case.docket) == ("742119", "ca9", "9", "96-15521")
    assert case.citations == ("123 F.3d 1045",) and case.year == 1997


def test_courtlistener_combined_is_majority_only_without_a_lead(tmp_path: Path) -> None:
    objects = [
        {"id": 1, "cluster_id": 10, "type": "010combined", "plain_text": "All of it."},
        {"id": 2, "cluster_id": 20, "type": "010combined", "plain_text": "All of it."},
        {"id": 3, "cluster_id": 20, "type": "020lead", "plain_text": "The lead."},
        {"id": 4, "cluster_id": 20, "type": "015unamimous", "plain_text": "Everyone."},
        {"id": 5, "cluster_id": 20, "type": "030concurrence", "plain_text": ""},
        {"resource_uri": "https://www.courtlistener.com/api/rest/v4/clusters/10/", "id": 10, "case_name": "A v. B"},
        {"resource_uri": "https://www.courtlistener.com/api/rest/v4/clusters/20/", "id": 20, "case_name": "C v. D"},
    ]
    path = write_jsonl(tmp_path / "ops.jsonl", objects)
    result = courtlistener_api.load(path, court_id="ca9")
    flags = {op.opinion_id: (op.opinion_type, op.is_majority) for op in result.opinions}
    assert flags == {
        "1": ("combined", True),
        "2": ("combined", False),
        "3": ("lead", True),
        "4": ("unanimous", True),
    }
    assert [(issue.location, issue.message) for issue in result.issues] == [(f"{path}:5", "opinion 5 has no text")]


def test_html_to_text_strips_markup() -> None:
    markup = "<div><p>One <i>two</i></p><script>alert(1)</script><p>three<br>four</p></div>"
    assert markup_text(markup) == "One two\nthree\nfour"
    assert markup_text("   ") == ""


# --- SCDB release zips ----------------------------------------------------------------------------------------

SCDB_HEADER = (
    "caseId,docketId,caseIssuesId,voteId,dateDecision,decisionType,usCite,sctCite,ledCite,lexisCite,term,"
    "naturalCourt,chief,docket,caseName,dateArgument,dateRearg,petitioner,petitionerState,respondent,"
    "respondentState,jurisdiction,adminAction,adminActionState,threeJudgeFdc,caseOrigin,caseOriginState,"
    "caseSource,caseSourceState,lcDisagreement,certReason,lcDisposition,lcDispositionDirection,declarationUncon,"
    "caseDisposition,caseDispositionUnusual,partyWinning,precedentAlteration,voteUnclear,issue,issueArea,"
    "decisionDirection,decisionDirectionDissent,authorityDecision1,authorityDecision2,lawType,lawSupp,lawMinor,"
    "majOpinWriter,majOpinAssigner,splitVote,majVotes,minVotes"
)
SCDB_ROWS = (
    "1953-071,1953-071-01,1953-071-01-01,1953-071-01-01-01,5/17/1954,1,347 U.S. 483,74 S. Ct. 686,"
    '98 L. Ed. 2d 873,1954 U.S. LEXIS 2094,1953,1401,Warren,1,"BROWN et al. v. BOARD OF EDUCATION OF TOPEKA et al.",'
    "12/9/1952,12/8/1953,152,,28,17,2,,,1,302,17,302,17,0,,,,1,3,0,1,1,0,20040,2,2,,1,,2,,,90,90,1,9,0",
    "2021-021,2021-021-01,2021-021-01-01,2021-021-01-01-01,3/24/2022,1,595 U.S. 411,142 S. Ct. 1264,"
    '212 L. Ed. 2d 262,2022 U.S. LEXIS 1667,2021,1707,Roberts,21-5592,"RAMÍREZ v. COLLIER, EXECUTIVE DIRECTOR, '
    'TEXAS DEPARTMENT OF CRIMINAL JUSTICE, et al.",11/9/2021,,126,,27,52,2,,,,,,,,,,,,,5,,1,0,0,10120,1,1,,,,,,'
    ",111,111,1,8,1",
    "1803-005,1803-005-01,1803-005-01-01,1803-005-01-01-01,2/24/1803,1,5 U.S. 137,,2 L. Ed. 60,"
    '1803 U.S. LEXIS 352,1802,1,Marshall,,"MARBURY v. MADISON, SECRETARY OF STATE OF THE UNITED STATES",'
    "2/11/1803,,113,,27,,1,,,,,,,,,,,,1,9,0,0,0,0,90020,9,2,,,,,,,1,1,1,4,0",
    "1953-072,too,few,fields",
)


def scdb_zip(tmp_path: Path, archive: str, member: str, encoding: str = "cp1252") -> Path:
    path = tmp_path / archive
    text = SCDB_HEADER + "\r\n" + "\r\n".join(SCDB_ROWS) + "\r\n"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as handle:
        handle.writestr(member, text.encode(encoding))
        handle.writestr("__MACOSX/._" + member, b"\x00\x05\x16\x07junk")
    (tmp_path / "justices.csv").write_text(
        "scdb_id,name\n1,John Marshall\n90,Earl Warren\n111,Brett M. Kavanaugh\n", encoding="utf-8"
    )
    return path


def test_scdb_header_is_the_release_header() -> None:
    assert len(SCDB_HEADER.split(",")) == 53
    assert all(len(row.split(",")) >= 53 for row in SCDB_ROWS[:3])


@pytest.mark.parametrize(
    ("archive", "member"),
    [
        ("SCDB_2024_01_caseCentered_Citation.csv.zip", "SCDB_2024_01_caseCentered_Citation.csv"),
        ("SCDB_Legacy_07_caseCentered_Citation.csv.zip", "SCDB_Legacy_07_caseCentered_Citation.csv"),
    ],
)
def test_scdb_release_zip_cp1252(tmp_path: Path, archive: str, member: str) -> None:
    path = scdb_zip(tmp_path, archive, member)
    result = scdb_release.load(path)
    cases = by_id(result)
    assert result.rows_read == 4
    assert set(cases) == {"1953-071", "2021-021", "1803-005"}
    assert all(case.source == "scdb" and case.court_id == "scotus" for case in cases.values())
    assert cases["2021-021"].name.startswith("RAMÍREZ v. COLLIER")  # cp1252 decoded
    assert cases["1953-071"].citations[0] == "347 U.S. 483"
    assert cases["1953-071"].author == "Earl Warren"  # justices.csv beside the archive
    assert cases["1803-005"].year == 1803 and cases["1803-005"].author == "John Marshall"
    (issue,) = result.issues
    assert issue.location == f"{path}!{member}:5"  # the member, not the temporary copy


def test_scdb_release_utf8_and_explicit_justices(tmp_path: Path) -> None:
    member = "SCDB_2024_01_caseCentered_Citation.csv"
    path = scdb_zip(tmp_path, "release.zip", member, encoding="utf-8")
    other = tmp_path / "elsewhere.csv"
    other.write_text("scdb_id,name\n90,Chief Justice Warren\n", encoding="utf-8")
    result = scdb_release.load(path, justices=other)
    assert by_id(result)["2021-021"].name.startswith("RAMÍREZ")
    assert by_id(result)["1953-071"].author == "Chief Justice Warren"


def test_scdb_release_refuses_archives_without_the_case_csv(tmp_path: Path) -> None:
    spss = tmp_path / "SCDB_2024_01_caseCentered_Citation.sav.zip"
    with zipfile.ZipFile(spss, "w") as handle:
        handle.writestr("SCDB_2024_01_caseCentered_Citation.sav", b"$FL2")
    with pytest.raises(ValueError, match="no CSV file"):
        scdb_release.load(spss)
    justice = scdb_zip(
        tmp_path, "SCDB_2024_01_justiceCentered_Citation.csv.zip", "SCDB_2024_01_justiceCentered_Citation.csv"
    )
    with pytest.raises(ValueError, match="justice-centered"):
        scdb_release.load(justice)
    fake = tmp_path / "broken.csv.zip"
    fake.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a zip"):
        scdb_release.load(fake)


def test_scdb_release_other_unit_is_flagged(tmp_path: Path) -> None:
    member = "SCDB_2024_01_caseCentered_Docket.csv"
    path = scdb_zip(tmp_path, "SCDB_2024_01_caseCentered_Docket.csv.zip", member)
    result = scdb_release.load(path)
    assert len(result.cases) == 3
    assert any(issue.location == f"{path}!{member}" and "Citation unit" in issue.message for issue in result.issues)
