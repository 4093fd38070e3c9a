"""Issue 30: CourtListener API v4 pages saved one file per endpoint are read together and joined.

The pages are written here in the shape the v4 REST API returns them (list pages `{count, next, previous,
results}` with the serializers' field names: clusters link their docket and sub-opinions by URL, opinions their
cluster by `cluster_id` and URL, dockets their court by URL and `court_id`). Case names and opinion texts are
invented for the tests; court ids, reporters and citation types are CourtListener's own.
"""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from lexprobe.caselaw.courts import court_level
from lexprobe.caselaw.records import CaseRecord, EmptySourceError, LoadOptions, LoadResult, SourceFilter
from lexprobe.caselaw.sources import courtlistener_api
from lexprobe.caselaw.sources.courtlistener_api import author_name, disposition_of, load_files

API = "https://www.courtlistener.com/api/rest/v4"
EXPECTED = courtlistener_api.EXPECTED


# --- real-shaped v4 objects ----------------------------------------------------------------------------------


def page(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {"count": len(results), "next": None, "previous": None, "results": results}


def cluster(
    cluster_id: int,
    docket_id: int | None,
    name: str,
    date_filed: str,
    citations: list[tuple[int, str, str, int]],
    opinion_ids: list[int],
    disposition: str = "",
) -> dict[str, Any]:
    return {
        "resource_uri": f"{API}/clusters/{cluster_id}/",
        "id": cluster_id,
        "absolute_url": f"/opinion/{cluster_id}/{name.lower().replace(' ', '-')}/",
        "panel": [],
        "non_participating_judges": [],
        "docket": f"{API}/dockets/{docket_id}/" if docket_id is not None else None,
        "sub_opinions": [f"{API}/opinions/{i}/" for i in opinion_ids],
        "citations": [{"volume": v, "reporter": r, "page": p, "type": t} for v, r, p, t in citations],
        "date_created": "2014-10-30T06:52:52.361937-07:00",
        "date_modified": "2024-03-01T10:11:12.000000-08:00",
        "judges": "",
        "date_filed": date_filed,
        "date_filed_is_approximate": False,
        "slug": name.lower().replace(" ", "-"),
        "case_name_short": "",
        "case_name": name,
        "case_name_full": "",
        "scdb_id": "",
        "scdb_decision_direction": None,
        "scdb_votes_majority": None,
        "scdb_votes_minority": None,
        "source": "C",
        "procedural_history": "",
        "attorneys": "",
        "nature_of_suit": "",
        "posture": "",
        "syllabus": "",
        "headnotes": "",
        "summary": "",
        "disposition": disposition,
        "history": "",
        "other_dates": "",
        "cross_reference": "",
        "correction": "",
        "citation_count": 3,
        "precedential_status": "Published",
        "date_blocked": None,
        "blocked": False,
        "filepath_json_harvard": "",
        "filepath_pdf_harvard": "",
        "arguments": "",
        "headmatter": "",
    }


def docket(docket_id: int, court: str, number: str, cluster_ids: list[int], name: str = "") -> dict[str, Any]:
    return {
        "resource_uri": f"{API}/dockets/{docket_id}/",
        "id": docket_id,
        "court": f"{API}/courts/{court}/",
        "court_id": court,
        "original_court_info": None,
        "idb_data": None,
        "clusters": [f"{API}/clusters/{i}/" for i in cluster_ids],
        "audio_files": [],
        "assigned_to": None,
        "referred_to": None,
        "absolute_url": f"/docket/{docket_id}/x/",
        "date_created": "2014-10-30T06:52:52.361937-07:00",
        "date_modified": "2024-03-01T10:11:12.000000-08:00",
        "source": 0,
        "appeal_from_str": "",
        "assigned_to_str": "",
        "referred_to_str": "",
        "panel_str": "",
        "date_argued": None,
        "date_filed": None,
        "date_terminated": None,
        "docket_number": number,
        "docket_number_core": number.replace("-", ""),
        "case_name_short": "",
        "case_name": name,
        "case_name_full": "",
        "slug": "x",
        "blocked": False,
        "appeal_from": None,
        "tags": [],
        "panel": [],
    }


def opinion(
    opinion_id: int,
    cluster_id: int | None,
    kind: str,
    text: str,
    author_str: str = "",
    per_curiam: bool = False,
    html: str = "",
) -> dict[str, Any]:
    return {
        "resource_uri": f"{API}/opinions/{opinion_id}/",
        "id": opinion_id,
        "absolute_url": f"/opinion/{cluster_id}/x/",
        "cluster_id": cluster_id,
        "cluster": f"{API}/clusters/{cluster_id}/" if cluster_id is not None else None,
        "author_id": None,
        "author": None,
        "joined_by": [],
        "date_created": "2014-10-30T06:52:52.361937-07:00",
        "date_modified": "2024-03-01T10:11:12.000000-08:00",
        "author_str": author_str,
        "per_curiam": per_curiam,
        "joined_by_str": "",
        "type": kind,
        "sha1": "0" * 40,
        "page_count": None,
        "download_url": None,
        "local_path": None,
        "plain_text": text,
        "html": html,
        "html_lawbox": "",
        "html_columbia": "",
        "html_anon_2020": "",
        "xml_harvard": "",
        "html_with_citations": "",
        "extracted_by_ocr": False,
        "ordering_key": None,
        "opinions_cited": [],
    }


def court(court_id: str, full_name: str, citation_string: str) -> dict[str, Any]:
    return {
        "resource_uri": f"{API}/courts/{court_id}/",
        "id": court_id,
        "pacer_court_id": None,
        "pacer_has_rss_feed": None,
        "fjc_court_id": "",
        "date_modified": "2024-03-01T10:11:12.000000-08:00",
        "in_use": True,
        "has_opinion_scraper": True,
        "has_oral_argument_scraper": False,
        "position": 100.0,
        "citation_string": citation_string,
        "short_name": citation_string,
        "full_name": full_name,
        "url": "https://example.invalid/",
        "start_date": None,
        "end_date": None,
        "jurisdiction": "F",
        "notes": "",
    }


HOOD_TEXT = "Fixture text for the tests.\n\nHOOD, Associate Judge.\n\nThe judgment appealed from is affirmed."

CLUSTERS = [
    # D.C. Circuit: F.2d, its U.S. App. D.C. parallel and a LEXIS cite (types 1, 1, 6) in the wrong order
    cluster(
        5001,
        9001,
        "Alder v. Birch",
        "1945-06-11",
        [(1945, "U.S. App. LEXIS", "3001", 6), (80, "U.S. App. D.C. ", "67", 1), (150, "F.2d", "12", 1)],
        [7001],
        disposition="Affirmed.",
    ),
    # Ninth Circuit with a WEST cite; lead opinion plus dissent
    cluster(
        5002,
        9002,
        "Cedar v. Dogwood",
        "1997-08-21",
        [(1997, "WL", "470001", 7), (123, "F.3d", "1045", 1)],
        [7002, 7003],
        disposition="Reversed and remanded.",
    ),
    # Southern District of New York, per curiam
    cluster(5003, 9003, "Elm v. Fir", "1999-02-03", [(35, "F. Supp. 2d", "101", 1)], [7004]),
]
DOCKETS = [
    docket(9001, "cadc", "8923", [5001]),
    docket(9002, "ca9", "96-15521", [5002]),
    docket(9003, "nysd", "98 Civ. 1234", [5003]),
]
OPINIONS = [
    opinion(7001, 5001, "010combined", HOOD_TEXT),
    opinion(7002, 5002, "020lead", "ALVAREZ, Circuit Judge:\n\nFixture text: we reverse.", author_str="Alvarez"),
    opinion(7003, 5002, "040dissent", "OKAFOR, Circuit Judge, dissenting:\n\nFixture text.", author_str="Okafor"),
    opinion(7004, 5003, "010combined", "PER CURIAM.\n\nFixture text: dismissed.", per_curiam=True),
]


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")  # pretty-printed, as saved from a browser
    return path


def write_lines(path: Path, objects: list[Any], pack=None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(obj) + "\n" for obj in objects).encode()
    path.write_bytes(pack(data) if pack else data)
    return path


@pytest.fixture
def pages(tmp_path: Path) -> Path:
    """One folder with one list page per endpoint, as a user saves them."""
    folder = tmp_path / "api"
    write_json(folder / "clusters.json", page(CLUSTERS))
    write_json(folder / "dockets.json", page(DOCKETS))
    write_json(folder / "opinions.json", page(OPINIONS))
    return folder


def by_id(result: LoadResult) -> dict[str, CaseRecord]:
    return {case.source_id: case for case in result.cases}


def summary(result: LoadResult) -> tuple[list[CaseRecord], list[tuple]]:
    """Cases and opinions in a canonical order (the source file of an opinion left out)."""
    opinions = sorted((op.opinion_id, op.cluster_id, op.case_name, op.is_majority, op.text) for op in result.opinions)
    return sorted(result.cases, key=lambda c: c.source_id), opinions


# --- joins ---------------------------------------------------------------------------------------------------


def test_pages_saved_per_endpoint_are_joined(pages: Path) -> None:
    result = load_files([pages], LoadOptions())
    assert result.issues == []
    assert result.rows_read == len(CLUSTERS) + len(DOCKETS) + len(OPINIONS)
    cases = by_id(result)

    dc = cases["5001"]
    assert (dc.court_id, dc.circuit, dc.state, court_level(dc.court_id)) == ("cadc", "dc", None, "coa")
    assert dc.docket == "8923"
    assert dc.author == "Hood"  # from the opinion's opening line, without "Associate Judge."
    assert (dc.disposition, dc.disposition_raw) == ("affirm", "Affirmed.")
    # the official reporter first, the D.C. reporter after it, the LEXIS cite last (issue 30)
    assert dc.citations == ("150 F.2d 12", "80 U.S. App. D.C. 67", "1945 U.S. App. LEXIS 3001")
    assert (dc.decision_date, dc.year, dc.name) == ("1945-06-11", 1945, "Alder v. Birch")

    ninth = cases["5002"]
    assert (ninth.court_id, ninth.circuit, court_level(ninth.court_id)) == ("ca9", "9", "coa")
    assert (ninth.docket, ninth.author, ninth.disposition) == ("96-15521", "Alvarez", "reverse")
    assert ninth.citations == ("123 F.3d 1045", "1997 WL 470001")

    district = cases["5003"]
    assert (district.court_id, district.state, district.circuit) == ("nysd", "NY", "2")
    assert court_level(district.court_id) == "district"
    assert (district.docket, district.author, district.disposition) == ("98 Civ. 1234", None, None)  # per curiam

    opinions = {op.opinion_id: op for op in result.opinions}
    assert {op_id: op.cluster_id for op_id, op in opinions.items()} == {
        "7001": "5001",
        "7002": "5002",
        "7003": "5002",
        "7004": "5003",
    }
    assert opinions["7001"].text == HOOD_TEXT and opinions["7001"].is_majority
    assert opinions["7001"].author == "Hood" and opinions["7001"].case_name == "Alder v. Birch"
    assert opinions["7001"].citations == dc.citations and opinions["7001"].year == 1945
    assert (opinions["7003"].opinion_type, opinions["7003"].is_majority, opinions["7003"].author) == (
        "dissent",
        False,
        "Okafor",
    )
    assert opinions["7003"].source_file == str(pages / "opinions.json")


def test_order_of_files_does_not_matter(pages: Path) -> None:
    names = ["clusters.json", "dockets.json", "opinions.json"]
    forward = load_files([pages / name for name in names], LoadOptions())
    backward = load_files([pages / name for name in reversed(names)], LoadOptions())
    assert summary(forward) == summary(backward) == summary(load_files([pages], LoadOptions()))
    assert forward.issues == backward.issues == []


def test_load_is_a_one_path_load_files(pages: Path) -> None:
    assert summary(courtlistener_api.load(pages)) == summary(load_files([pages], LoadOptions()))


def test_jsonl_compressed_files_and_subfolders(tmp_path: Path) -> None:
    root = tmp_path / "saved"
    write_lines(root / "2024" / "clusters-1.jsonl.gz", CLUSTERS[:2], gzip.compress)
    write_json(root / "2024" / "more" / "clusters-2.json", CLUSTERS[2])  # a single object
    write_lines(root / "dockets.ndjson", [page(DOCKETS[:2]), page(DOCKETS[2:])])  # pages, one per line
    (root / "opinions").mkdir()
    (root / "opinions" / "all.json.bz2").write_bytes(bz2.compress(json.dumps(OPINIONS).encode()))  # an array
    (root / "README.txt").write_text("not read", encoding="utf-8")
    write_json(root / ".hidden" / "junk.json", {"detail": "ignored: hidden folders are skipped"})
    result = load_files([root], LoadOptions())
    assert result.issues == []
    reference = tmp_path / "reference"
    write_json(reference / "c.json", page(CLUSTERS))
    write_json(reference / "d.json", page(DOCKETS))
    write_json(reference / "o.json", page(OPINIONS))
    assert summary(result) == summary(load_files([reference], LoadOptions()))


def test_links_from_the_other_side(tmp_path: Path) -> None:
    # the cluster was saved without its docket field and the opinion without its cluster: the docket's
    # `clusters` list and the cluster's `sub_opinions` list still join them
    bare_cluster = cluster(5002, None, "Cedar v. Dogwood", "1997-08-21", [(123, "F.3d", "1045", 1)], [7002])
    bare_opinion = opinion(7002, None, "020lead", "Fixture text.", author_str="ALVAREZ, Circuit Judge")
    paths = [
        write_json(tmp_path / "o.json", page([bare_opinion])),
        write_json(tmp_path / "d.json", page([DOCKETS[1]])),
        write_json(tmp_path / "c.json", page([bare_cluster])),
    ]
    result = load_files(paths, LoadOptions())
    assert result.issues == []
    (case,) = result.cases
    assert (case.court_id, case.docket, case.author) == ("ca9", "96-15521", "Alvarez")
    assert [(op.opinion_id, op.cluster_id, op.case_name) for op in result.opinions] == [
        ("7002", "5002", "Cedar v. Dogwood")
    ]


def test_search_results_and_courts(tmp_path: Path) -> None:
    search = {
        "absolute_url": "/opinion/5010/gum-v-hazel/",
        "caseName": "Gum v. Hazel",
        "caseNameFull": "",
        "citation": ["1998 U.S. App. LEXIS 4000", "140 F.3d 77"],
        "citeCount": 2,
        "cluster_id": 5010,
        "court": "Court of Appeals for the First Circuit",
        "court_citation_string": "1st Cir.",
        "court_id": "ca1",
        "dateFiled": "1998-03-30",
        "docketNumber": "97-1111",
        "docket_id": 9010,
        "judge": "",
        "lexisCite": "",
        "neutralCite": "",
        "opinions": [{"id": 7010, "snippet": "Fixture", "type": "lead-opinion", "per_curiam": False}],
        "scdb_id": "",
        "status": "Published",
    }
    paths = [
        write_json(tmp_path / "search.json", page([search])),
        write_json(
            tmp_path / "courts.json", page([court("ca1", "Court of Appeals for the First Circuit", "1st Cir.")])
        ),
        write_json(tmp_path / "opinions.json", page([opinion(7010, 5010, "020lead", "Fixture.", "Torruella")])),
    ]
    result = load_files(paths, LoadOptions())
    assert result.issues == []
    (case,) = result.cases
    assert (case.court_id, case.circuit, case.docket, case.author, case.year) == (
        "ca1",
        "1",
        "97-1111",
        "Torruella",
        1998,
    )
    assert case.citations == ("140 F.3d 77", "1998 U.S. App. LEXIS 4000")
    assert dict(case.extra)["court_name"] == "Court of Appeals for the First Circuit"
    assert [op.cluster_id for op in result.opinions] == ["5010"]


# --- filters -------------------------------------------------------------------------------------------------


def test_filter_applies_after_the_join(pages: Path) -> None:
    # clusters have no court of their own: the court filter can only work after the docket join
    options = LoadOptions(filter=SourceFilter(courts=frozenset({"ca9", "nysd"}), years=(1990, 2000)))
    result = load_files([pages], options)
    assert sorted(case.source_id for case in result.cases) == ["5002", "5003"]
    assert sorted(op.opinion_id for op in result.opinions) == ["7002", "7003", "7004"]
    assert [issue.message for issue in result.issues] == [
        "1 cluster(s) left out: not kept by the filter (in the courts ca9,nysd and decided 1990-2000)"
    ]
    years_only = load_files([pages], LoadOptions(filter=SourceFilter(years=(1940, 1950))))
    assert [case.source_id for case in years_only.cases] == ["5001"]
    assert [op.opinion_id for op in years_only.opinions] == ["7001"]


def test_filter_that_keeps_nothing_is_an_empty_source(pages: Path) -> None:
    options = LoadOptions(filter=SourceFilter(courts=frozenset({"ca5"})))
    with pytest.raises(EmptySourceError) as caught:
        load_files([pages], options)
    message = str(caught.value)
    assert "\n" not in message
    assert message == (
        f"{pages}: no CourtListener case kept: 3 cluster(s) read, none of them kept by the filter (in the courts ca5)"
    )


# --- what cannot be joined -----------------------------------------------------------------------------------


def test_cluster_without_its_docket_keeps_no_court_and_is_reported_once_per_file(tmp_path: Path) -> None:
    first = write_json(tmp_path / "clusters-1.json", page(CLUSTERS[:2]))
    second = write_lines(tmp_path / "clusters-2.jsonl", [CLUSTERS[2]])
    dockets = write_json(tmp_path / "dockets.json", page([DOCKETS[1]]))  # only the Ninth Circuit's docket saved
    result = load_files([first, second, dockets], LoadOptions())
    courts = {case.source_id: case.court_id for case in result.cases}
    assert courts == {"5001": None, "5002": "ca9", "5003": None}
    assert [(issue.location, issue.message) for issue in result.issues] == [
        (
            str(first),
            "1 cluster(s) without a court: their docket(s) 9001 are not among the files "
            "(save the /dockets/ pages alongside)",
        ),
        (
            str(second),
            "1 cluster(s) without a court: their docket(s) 9003 are not among the files "
            "(save the /dockets/ pages alongside)",
        ),
    ]
    # the reasons are told apart: a docket saved without its court, a cluster naming no docket
    courtless_docket = {**DOCKETS[0], "court": None, "court_id": None}
    no_reference = cluster(5009, None, "Holly v. Ivy", "1950-01-01", [], [])
    third = write_json(tmp_path / "more.json", page([courtless_docket, no_reference]))
    again = load_files([first, third], LoadOptions())
    assert [(issue.location, issue.message) for issue in again.issues] == [
        (str(first), "2 cluster(s) without a court: their docket(s) 9002 are not among the files (save the /dockets/ "
         "pages alongside); their docket(s) 9001 name no court"),
        (str(third), "1 cluster(s) without a court: 1 name no docket"),
    ]  # fmt: skip
    # a court filter cannot keep a case of unknown court
    kept = load_files([first, second, dockets], LoadOptions(filter=SourceFilter(courts=frozenset({"ca9"}))))
    assert [case.source_id for case in kept.cases] == ["5002"]


def test_opinions_of_unsaved_clusters_are_reported_not_orphaned(tmp_path: Path) -> None:
    clusters = write_json(tmp_path / "clusters.json", page([CLUSTERS[1]]))
    dockets = write_json(tmp_path / "dockets.json", page(DOCKETS))
    opinions = write_json(tmp_path / "opinions.json", page(OPINIONS))
    result = load_files([clusters, dockets, opinions], LoadOptions())
    assert sorted(op.opinion_id for op in result.opinions) == ["7002", "7003"]
    assert all(op.cluster_id == "5002" for op in result.opinions)
    assert [(issue.location, issue.message) for issue in result.issues] == [
        (
            str(opinions),
            "2 opinion(s) not kept: their cluster(s) 5001, 5003 are not among the files "
            "(save the /clusters/ pages alongside)",
        )
    ]


# --- sources that yield no case fail loudly ------------------------------------------------------------------


def person(person_id: int) -> dict[str, Any]:
    return {"resource_uri": f"{API}/people/{person_id}/", "id": person_id, "name_first": "A", "name_last": "B"}


def test_folder_of_other_api_objects(tmp_path: Path) -> None:
    folder = tmp_path / "people"
    for n in range(3):
        write_json(folder / f"people-{n}.json", page([person(4 * n + k) for k in range(4)]))
    with pytest.raises(EmptySourceError) as caught:
        load_files([folder], LoadOptions())
    assert str(caught.value) == (
        f"{folder}: no CourtListener case read: expected {EXPECTED}; found 3 file(s), 0 JSON objects of those "
        "kinds: 12 objects of kind 'people'"
    )


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "clusters.json"
    path.write_text("<!DOCTYPE html>\n<html>Too many requests</html>\n", encoding="utf-8")
    with pytest.raises(EmptySourceError) as caught:
        load_files([path], LoadOptions())
    assert str(caught.value) == (
        f"{path}: no CourtListener case read: expected {EXPECTED}; found 1 file(s), 0 JSON objects of those kinds; "
        f"not JSON: Expecting value at column 1 ({path}:1)"
    )


def test_saved_api_error_and_empty_folder(tmp_path: Path) -> None:
    error = write_json(tmp_path / "clusters.json", {"detail": "Invalid token."})
    with pytest.raises(EmptySourceError, match=r"found 1 file\(s\), 0 JSON objects of those kinds: 1 object of kind"):
        load_files([error], LoadOptions())
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(EmptySourceError) as caught:
        load_files([empty], LoadOptions())
    assert str(caught.value).endswith("found a folder with no .json, .jsonl or .ndjson file (1 other file(s))")


def test_opinions_and_dockets_without_clusters(tmp_path: Path) -> None:
    opinions = write_json(tmp_path / "opinions.json", page(OPINIONS))
    dockets = write_json(tmp_path / "dockets.json", page(DOCKETS))
    with pytest.raises(EmptySourceError) as caught:
        load_files([opinions, dockets], LoadOptions())
    assert str(caught.value) == (
        f"{opinions}, {dockets}: no CourtListener case read: expected {EXPECTED}; found 2 file(s) with 4 opinions, "
        "3 dockets but no cluster or search result (the cases are the clusters: save the /clusters/ pages too)"
    )


def test_a_junk_path_among_good_ones_fails(pages: Path, tmp_path: Path) -> None:
    junk = write_lines(tmp_path / "export.jsonl", [{"name": "x"}, [1, 2]])
    with pytest.raises(EmptySourceError) as caught:
        load_files([pages, junk], LoadOptions())
    assert str(caught.value).startswith(f"{junk}: no CourtListener case read: expected {EXPECTED}; found 1 file(s)")


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        load_files([tmp_path / "nowhere.json"], LoadOptions())


# --- malformed input is located --------------------------------------------------------------------------------


def test_malformed_json_is_located_by_file_and_line(pages: Path) -> None:
    broken = pages / "more-clusters.json"
    text = json.dumps(page([cluster(5004, 9002, "Ivy v. Juniper", "1998-01-01", [], [])]), indent=2)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if '"case_name": "Ivy v. Juniper"' in line)
    lines[at] = lines[at].rstrip(",")  # a missing comma, as in a hand-edited file
    broken.write_text("\n".join(lines), encoding="utf-8")
    result = load_files([pages], LoadOptions())
    assert len(result.cases) == 3  # the other files still load
    assert [(issue.location, issue.message) for issue in result.issues] == [
        (f"{broken}:{at + 2}", "not JSON: Expecting ',' delimiter at column 7")
    ]


def test_malformed_lines_and_truncated_archives(tmp_path: Path) -> None:
    good = write_json(tmp_path / "all.json", page(CLUSTERS + DOCKETS))
    lines = tmp_path / "opinions.jsonl"
    lines.write_text(json.dumps(OPINIONS[0]) + "\n" + '{"id": 7002, "type": "020lead", "plain_text": "cut\n', "utf-8")
    truncated = tmp_path / "more.jsonl.gz"
    truncated.write_bytes(gzip.compress((json.dumps(OPINIONS[1]) + "\n").encode() * 50)[:-30])
    result = load_files([good, lines, truncated], LoadOptions())
    issues = {issue.location: issue.message for issue in result.issues}
    assert issues[f"{lines}:2"].startswith("not JSON: ")
    assert issues[str(truncated)].startswith("unreadable compressed data: ")
    assert "7001" in {op.opinion_id for op in result.opinions}


def test_json_lines_saved_as_json(tmp_path: Path) -> None:
    path = tmp_path / "clusters.json"
    path.write_text("".join(json.dumps(obj) + "\n" for obj in CLUSTERS + DOCKETS), encoding="utf-8")
    result = load_files([path], LoadOptions())
    assert result.issues == [] and {case.court_id for case in result.cases} == {"cadc", "ca9", "nysd"}


def test_pages_appended_to_one_file(tmp_path: Path) -> None:
    # `curl ... >> clusters.json` for each page: pretty-printed pages one after another, the second one cut off
    path = tmp_path / "clusters.json"
    broken = json.dumps(page(OPINIONS), indent=2)[:-40]
    text = "\n".join([json.dumps(page(CLUSTERS), indent=2), json.dumps(page(DOCKETS), indent=2), broken])
    path.write_text(text, encoding="utf-8")
    result = load_files([path], LoadOptions())
    assert {case.court_id for case in result.cases} == {"cadc", "ca9", "nysd"}
    ((location, message),) = [(issue.location, issue.message) for issue in result.issues]
    assert location == f"{path}:{text.count(chr(10)) + 1}" and message.startswith("not JSON: ")


def test_oversized_document_is_reported_and_skipped(pages: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = write_json(pages / "big.json", page([cluster(6000 + i, None, "K v. L", "1990", [], []) for i in range(40)]))
    limit = big.stat().st_size - 1
    assert max((pages / name).stat().st_size for name in ("clusters.json", "dockets.json", "opinions.json")) < limit
    monkeypatch.setattr(courtlistener_api, "MAX_DOCUMENT_BYTES", limit)
    result = load_files([pages], LoadOptions())
    assert len(result.cases) == 3
    assert [(issue.location, issue.message) for issue in result.issues] == [
        (str(big), "larger than 0 MiB of JSON: not read (save it as JSON Lines)")
    ]


def test_progress_counts_bytes_of_the_files(pages: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    load_files([pages], LoadOptions(progress=lambda label, done, total: calls.append((label, done, total))))
    total = sum(path.stat().st_size for path in pages.iterdir())
    assert [call[2] for call in calls] == [total] * 3
    assert [call[1] for call in calls] == sorted(call[1] for call in calls) and calls[-1][1] == total
    assert {call[0] for call in calls} == {"courtlistener API files"}


# --- values --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("HOOD, Associate Judge.", "Hood"),
        ("L. HAND, Circuit Judge", "L. Hand"),
        ("KAVANAUGH, Circuit Judge, dissenting:", "Kavanaugh"),
        ("Chief Judge Wald", "Wald"),
        ("Warren, C.J.", "Warren"),
        ("FRANK M. JOHNSON, Jr., Circuit Judge", "Frank M. Johnson Jr."),
        ("McALLISTER, Circuit Judge", "McAllister"),
        ("O'CONNOR", "O'Connor"),
        ("Easterbrook", "Easterbrook"),
        ("PER CURIAM", None),
        ("The CHIEF JUSTICE", None),
        ("Senior District Judge", None),
        ("", None),
    ],
)
def test_author_name(raw: str, name: str | None) -> None:
    assert author_name(raw) == name


@pytest.mark.parametrize(
    ("raw", "disposition"),
    [
        ("Affirmed.", "affirm"),
        ("AFFIRMED", "affirm"),
        ("Reversed and remanded.", "reverse"),
        ("Vacated and remanded", "reverse"),
        ("Affirmed in part, reversed in part, and remanded.", None),
        ("Appeal dismissed.", None),
        (None, None),
    ],
)
def test_disposition_of(raw: str | None, disposition: str | None) -> None:
    assert disposition_of(raw) == disposition
