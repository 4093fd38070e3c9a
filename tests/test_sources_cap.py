"""Issue 30: the CAP loader reads the files CAP publishes.

The real static-export volume in the shared data (`formats/cap_static/a2d/100/` and `100.zip`, 9 cases of the
District of Columbia Municipal Court of Appeals, 1953) is read as a folder, as a zip and as `CasesMetadata.json`
alone, and compared with the files' own contents. The other inputs are written by the tests into tmp_path in the
publishers' layouts: federal volumes in the same static format (cases made from a real case file with their
facts changed), CAP's older BagIt bulk zip holding `data/data.jsonl.xz`, JSON Lines / arrays / compressed files,
junk, and hostile zips.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import json
import lzma
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from lexprobe.caselaw import courts
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.records import CaseBundle, EmptySourceError, LoadOptions, SourceFilter
from lexprobe.caselaw.sources import cap, cap_json
from lexprobe.caselaw.sources.cap import author_name, court_place, natural_key, resolve_cap_court

REAL = data_root() / "formats" / "cap_static" / "a2d"
REAL_VOLUME = REAL / "100"
REAL_ZIP = REAL / "100.zip"


# --- helpers ------------------------------------------------------------------------------------------------------


def real_case_files() -> list[Path]:
    return sorted((REAL_VOLUME / "cases").glob("*.json"), key=lambda p: natural_key(p.name))


def real_cases() -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in real_case_files()]


def read_all(paths: list[Path], options: LoadOptions | None = None) -> tuple[list[CaseBundle], cap.LoadResult]:
    streamed = cap.load_files(paths, options or LoadOptions())
    bundles = list(streamed.bundles)
    return bundles, streamed.result


def official_first(raw: dict[str, Any]) -> tuple[str, ...]:
    cites = raw.get("citations") or []
    official = [c["cite"] for c in cites if c["type"] == "official"]
    return tuple(dict.fromkeys(official + [c["cite"] for c in cites if c["type"] != "official"]))


def byline_surname(byline: str) -> str:
    """The name in a CAP byline as the tests expect it: the words before the first comma, capitalized."""
    return byline.split(",")[0].strip().title()


def static_case(
    *,
    case_id: int,
    abbreviation: str,
    caption: str,
    date: str,
    cites: list[tuple[str, str]],
    court: tuple[str, str],
    docket: str,
    opinions: list[tuple[str, str, str]],
    cites_to: list[str] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """A case in the static export's layout: a real case file of the shared volume with its facts changed."""
    case = copy.deepcopy(real_cases()[6])  # 100 A.2d 456: a majority and a dissent
    first_page = cites[[kind for kind, _ in cites].index("official")][1].split()[-1]
    case.update(
        id=case_id,
        name=caption,
        name_abbreviation=abbreviation,
        decision_date=date,
        docket_number=docket,
        first_page=first_page,
        last_page=str(int(first_page) + 5),
        citations=[{"type": kind, "cite": cite} for kind, cite in cites],
        court={"name_abbreviation": court[1], "id": case_id + 100_000, "name": court[0]},
        jurisdiction={"id": 39, "name_long": "United States", "name": "U.S."},
        cites_to=[{"cite": cite, "category": "reporters:federal", "opinion_index": 0} for cite in cites_to],
        file_name=f"{int(first_page):04d}-01",
    )
    case["casebody"]["opinions"] = [{"text": text, "type": kind, "author": author} for kind, author, text in opinions]
    return case


def federal_cases() -> dict[str, list[dict[str, Any]]]:
    """An F.3d volume of two courts of appeals and an F. Supp. volume of two district courts."""
    ninth = ("United States Court of Appeals for the Ninth Circuit", "9th Cir.")
    dc_circuit = ("United States Court of Appeals for the District of Columbia Circuit", "D.C. Cir.")
    cand = ("United States District Court for the Northern District of California", "N.D. Cal.")
    ddc = ("United States District Court for the District of Columbia", "D.D.C.")
    f3d = [
        static_case(
            case_id=9001,
            abbreviation="Harbor Freight Lines, Inc. v. Pacific Maritime Ass'n",
            caption="HARBOR FREIGHT LINES, INC., Plaintiff-Appellant, v. PACIFIC MARITIME ASSOCIATION, Appellee",
            date="1997-08-21",
            cites=[("parallel", "97 Cal. Daily Op. Serv. 6789"), ("official", "123 F.3d 1045")],
            court=ninth,
            docket="No. 96-15521",
            opinions=[
                ("majority", "O'SCANNLAIN, Circuit Judge:", "We affirm the judgment of the district court."),
                ("dissent", "KOZINSKI, Circuit Judge, dissenting:", "I would reverse."),
            ],
            cites_to=["912 F. Supp. 1341", "347 U.S. 483", "912 F. Supp. 1341"],
        ),
        static_case(
            case_id=9002,
            abbreviation="Rowe v. Federal Communications Commission",
            caption="Henry ROWE, Petitioner, v. FEDERAL COMMUNICATIONS COMMISSION, Respondent",
            date="1997-09-02",
            cites=[("official", "123 F.3d 1050")],
            court=dc_circuit,
            docket="No. 96-1190",
            opinions=[("majority", "PER CURIAM:", "The petition for review is denied.")],
        ),
    ]
    f_supp = [
        static_case(
            case_id=9101,
            abbreviation="Rivera v. Coastline Software Corp.",
            caption="Maria RIVERA, Plaintiff, v. COASTLINE SOFTWARE CORPORATION, Defendant",
            date="1995-12-04",
            cites=[("official", "912 F. Supp. 1341")],
            court=cand,
            docket="No. C-94-2231 MHP",
            opinions=[("majority", "PATEL, District Judge.", "The motion for summary judgment is granted.")],
        ),
        static_case(
            case_id=9102,
            abbreviation="Doe v. Department of Labor",
            caption="John DOE, Plaintiff, v. UNITED STATES DEPARTMENT OF LABOR, Defendant",
            date="1995-12-20",
            cites=[("official", "912 F. Supp. 1400")],
            court=ddc,
            docket="Civ. A. No. 94-0321",
            opinions=[("majority", "JOHN H. PRATT, District Judge.", "The complaint is dismissed.")],
        ),
    ]
    return {"f3d": f3d, "f-supp": f_supp}


def volume_metadata(number: str) -> dict[str, Any]:
    metadata = json.loads((REAL_VOLUME / "VolumeMetadata.json").read_text(encoding="utf-8"))
    metadata.update(volume_number=number, id=f"3204410957{number}")
    return metadata


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2) + "\n"  # as export_cap_static.py writes its files


def write_volume(folder: Path, cases: list[dict[str, Any]]) -> Path:
    """A volume folder of the static export: VolumeMetadata.json, CasesMetadata.json, cases/, html/."""
    (folder / "cases").mkdir(parents=True)
    (folder / "html").mkdir()
    (folder / "VolumeMetadata.json").write_text(pretty(volume_metadata(folder.name)), encoding="utf-8")
    metadata = []
    for case in cases:
        (folder / "cases" / f"{case['file_name']}.json").write_text(pretty(case), encoding="utf-8")
        (folder / "html" / f"{case['file_name']}.html").write_text(f"<p>{case['name']}</p>\n", encoding="utf-8")
        metadata.append({key: value for key, value in case.items() if key != "casebody"})
    (folder / "CasesMetadata.json").write_text(pretty(metadata), encoding="utf-8")
    return folder


def write_volume_zip(path: Path, cases: list[dict[str, Any]]) -> Path:
    """A volume zip as published: json/, html/, metadata/."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for case in cases:
            archive.writestr(f"json/{case['file_name']}.json", pretty(case))
            archive.writestr(f"html/{case['file_name']}.html", f"<p>{case['name']}</p>\n")
        archive.writestr("metadata/VolumeMetadata.json", pretty(volume_metadata(path.stem)))
        archive.writestr(
            "metadata/CasesMetadata.json", pretty([{k: v for k, v in c.items() if k != "casebody"} for c in cases])
        )
    return path


def write_tree(root: Path) -> Path:
    """A tree of reporters: the real A.2d volume as a folder and as its zip, an F.3d volume folder, an F. Supp.
    volume as a zip only, and the top-level and reporter metadata files."""
    cases = federal_cases()
    shutil.copytree(REAL_VOLUME, root / "a2d" / "100")
    shutil.copy(REAL_ZIP, root / "a2d" / "100.zip")
    write_volume(root / "f3d" / "123", cases["f3d"])
    write_volume_zip(root / "f-supp" / "912.zip", cases["f-supp"])
    for reporter in ("a2d", "f3d", "f-supp"):
        (root / reporter / "ReporterMetadata.json").write_text(pretty({"id": 1, "slug": reporter}), encoding="utf-8")
        (root / reporter / "VolumesMetadata.json").write_text(pretty([{"volume_number": "1"}]), encoding="utf-8")
    for name in ("ReportersMetadata.json", "VolumesMetadata.json", "JurisdictionsMetadata.json"):
        (root / name).write_text(pretty([{"id": 39, "name": "U.S.", "name_long": "United States"}]), encoding="utf-8")
    return root


def bulk_case(case: dict[str, Any]) -> dict[str, Any]:
    """A static-export case in CAP's older bulk form: casebody {status, data}."""
    old = copy.deepcopy(case)
    old["casebody"] = {"status": "ok", "data": old["casebody"]}
    return old


def write_bagit(path: Path, cases: list[dict[str, Any]], lines: list[str] = ()) -> Path:  # type: ignore[assignment]
    """CAP's older bulk download: a BagIt zip holding data/data.jsonl.xz."""
    body = "".join(json.dumps(case) + "\n" for case in cases) + "".join(line + "\n" for line in lines)
    top = path.stem
    with zipfile.ZipFile(path, "w") as archive:  # stored: the xz inside is already compressed
        archive.writestr(f"{top}/bagit.txt", "BagIt-Version: 0.97\nTag-File-Character-Encoding: UTF-8\n")
        archive.writestr(f"{top}/bag-info.txt", "Bagging-Date: 2020-03-02\n")
        archive.writestr(f"{top}/manifest-sha512.txt", "0 data/data.jsonl.xz\n")
        archive.writestr(f"{top}/data/data.jsonl.xz", lzma.compress(body.encode("utf-8")))
    return path


def empty_error(paths: list[Path], options: LoadOptions | None = None) -> str:
    """The message of the EmptySourceError a junk source raises (at the call or while reading)."""
    with pytest.raises(EmptySourceError) as raised:
        read_all(paths, options)
    message = str(raised.value)
    assert "\n" not in message
    return message


# --- the real volume -------------------------------------------------------------------------------------------


def test_real_volume_folder_gives_every_case_as_its_file_says() -> None:
    bundles, result = read_all([REAL_VOLUME])
    raws = real_cases()
    assert len(bundles) == len(raws) == len(real_case_files())
    assert result.issues == [] and result.rows_read == len(raws)
    judges_line = raws[0]["casebody"]["judges"][0]  # "Before CAYTON, Chief Judge, and HOOD and QUINN, ..."
    bench = {word.title() for word in re.findall(r"\b[A-Z]{3,}\b", judges_line)}
    for bundle, raw, path in zip(bundles, raws, real_case_files(), strict=True):
        case = bundle.case
        assert case.source == "cap" and case.source_id == str(raw["id"])
        assert case.name == raw["name_abbreviation"]
        assert dict(case.extra)["name_full"] == raw["name"]
        assert case.decision_date == raw["decision_date"] and case.year == int(raw["decision_date"][:4])
        assert case.citations == official_first(raw)
        assert case.docket == raw["docket_number"]
        assert case.court_id == "dc" and case.state == "DC" and case.circuit is None
        majority = next(op for op in raw["casebody"]["opinions"] if op["type"] == "majority")
        assert case.author == byline_surname(majority["author"]) and case.author in bench
        assert dict(case.extra)["author_byline"] == majority["author"]
        percentile = raw["analysis"].get("pagerank", {}).get("percentile")
        assert case.prominence == (pytest.approx(percentile * 100) if percentile is not None else None)
        assert [op.text for op in bundle.opinions] == [op["text"].strip() for op in raw["casebody"]["opinions"]]
        assert [op.is_majority for op in bundle.opinions] == [
            op["type"] == "majority" for op in raw["casebody"]["opinions"]
        ]
        assert [op.author for op in bundle.opinions] == [
            byline_surname(op["author"]) for op in raw["casebody"]["opinions"]
        ]
        assert {op.source_file for op in bundle.opinions} == {str(path)}
        assert [edge.cited for edge in bundle.edges] == list(dict.fromkeys(c["cite"] for c in raw["cites_to"]))
        assert {edge.citing for edge in bundle.edges} <= {f"cap:{raw['id']}"}
    dissent = [op for bundle in bundles for op in bundle.opinions if op.opinion_type == "dissent"]
    assert [(op.cluster_id, op.author) for op in dissent] == [
        (str(raw["id"]), byline_surname(op["author"]))
        for raw in raws
        for op in raw["casebody"]["opinions"]
        if op["type"] == "dissent"
    ]


def test_dc_municipal_court_of_appeals_is_a_local_court_not_a_federal_one() -> None:
    court = real_cases()[0]["court"]
    court_id = resolve_cap_court(court["name"], court["name_abbreviation"])
    assert court_id == "dc"
    assert courts.court_level(court_id) is None  # neither "coa" nor "district"
    assert court_place(court_id, "1953-11-06") == (None, "DC")


def test_real_volume_zip_gives_the_same_cases_as_the_folder() -> None:
    from_folder, _ = read_all([REAL_VOLUME])
    from_zip, result = read_all([REAL_ZIP])
    assert result.issues == []
    assert [b.case for b in from_zip] == [b.case for b in from_folder]
    assert [b.edges for b in from_zip] == [b.edges for b in from_folder]
    assert [[(op.opinion_id, op.text, op.author) for op in b.opinions] for b in from_zip] == [
        [(op.opinion_id, op.text, op.author) for op in b.opinions] for b in from_folder
    ]
    members = sorted(name for name in zipfile.ZipFile(REAL_ZIP).namelist() if name.startswith("json/"))
    assert [b.opinions[0].source_file for b in from_zip] == [f"{REAL_ZIP}!{name}" for name in members]


def test_cases_metadata_alone_gives_the_cases_without_opinions_and_says_so() -> None:
    metadata_path = REAL_VOLUME / "CasesMetadata.json"
    metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
    bundles, result = read_all([metadata_path])
    assert [b.case.source_id for b in bundles] == [str(entry["id"]) for entry in metadata]
    for bundle, entry in zip(bundles, metadata, strict=True):
        assert bundle.case.name == entry["name_abbreviation"]
        assert bundle.case.decision_date == entry["decision_date"]
        assert bundle.case.citations == official_first(entry)
        assert bundle.case.court_id == "dc"
        assert bundle.case.author is None and bundle.opinions == ()
        assert [edge.cited for edge in bundle.edges] == list(dict.fromkeys(c["cite"] for c in entry["cites_to"]))
    assert len(result.issues) == 1  # said once, not once per case
    assert result.issues[0].location == str(metadata_path)
    assert "without opinion text" in result.issues[0].message


def test_volume_folder_without_case_files_reads_its_cases_metadata(tmp_path: Path) -> None:
    folder = tmp_path / "a2d" / "100"
    folder.mkdir(parents=True)
    shutil.copy(REAL_VOLUME / "CasesMetadata.json", folder)
    shutil.copy(REAL_VOLUME / "VolumeMetadata.json", folder)
    bundles, result = read_all([folder])
    from_file, _ = read_all([REAL_VOLUME / "CasesMetadata.json"])
    assert [b.case for b in bundles] == [b.case for b in from_file]
    assert [issue.message for issue in result.issues] == [
        "case metadata without casebody (no cases/ or json/ folder beside it): cases without opinion text"
    ]


def test_load_keeps_working_on_top_of_the_new_reader() -> None:
    result = cap.load(REAL_VOLUME)
    assert [case.source_id for case in result.cases] == [str(raw["id"]) for raw in real_cases()]
    assert len(result.opinions) == sum(len(raw["casebody"]["opinions"]) for raw in real_cases())
    assert len(result.edges) == sum(len({c["cite"] for c in raw["cites_to"]}) for raw in real_cases())
    assert result.rows_read == 9 and result.issues == []


# --- a tree of reporters ------------------------------------------------------------------------------------------


def test_tree_of_reporters_is_walked_once_per_volume_with_progress(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "static")
    calls: list[tuple[str, int, int]] = []
    bundles, result = read_all(
        [root], LoadOptions(progress=lambda label, done, total: calls.append((label, done, total)))
    )
    cases = {b.case.source_id: b.case for b in bundles}
    real_ids = [str(raw["id"]) for raw in real_cases()]
    assert len(bundles) == len(cases) == len(real_ids) + 4  # the real volume once, though given as folder and zip
    assert result.issues == []
    # stable order: volumes by name (numbers as numbers), cases by file name; the same on a second read
    assert [b.case.source_id for b in bundles] == [b.case.source_id for b in read_all([root])[0]]
    assert [b.case.source_id for b in bundles][: len(real_ids)] == real_ids

    harbor, rowe = cases["9001"], cases["9002"]
    assert (harbor.court_id, harbor.circuit, harbor.state, courts.court_level(harbor.court_id)) == (
        "ca9",
        "9",
        None,
        "coa",
    )
    assert harbor.citations == ("123 F.3d 1045", "97 Cal. Daily Op. Serv. 6789")  # official first
    assert harbor.author == "O'Scannlain" and harbor.name == "Harbor Freight Lines, Inc. v. Pacific Maritime Ass'n"
    assert (rowe.court_id, rowe.circuit, rowe.state, rowe.author) == ("cadc", "dc", None, None)  # per curiam
    rivera, doe = cases["9101"], cases["9102"]
    assert (rivera.court_id, rivera.circuit, rivera.state, courts.court_level(rivera.court_id)) == (
        "cand",
        "9",
        "CA",
        "district",
    )
    assert rivera.author == "Patel" and rivera.citations == ("912 F. Supp. 1341",) and rivera.year == 1995
    assert (doe.court_id, doe.circuit, doe.state, doe.author) == ("dcd", "dc", "DC", "John H. Pratt")
    for real_id in real_ids:
        assert courts.court_level(cases[real_id].court_id) is None and cases[real_id].state == "DC"
    harbor_bundle = next(b for b in bundles if b.case.source_id == "9001")
    assert [(op.opinion_type, op.author, op.is_majority) for op in harbor_bundle.opinions] == [
        ("lead", "O'Scannlain", True),
        ("dissent", "Kozinski", False),
    ]
    assert [edge.cited for edge in harbor_bundle.edges] == ["912 F. Supp. 1341", "347 U.S. 483"]

    # what the coa and district samples need of a case: court, year, author, a Federal Reporter citation and a
    # circuit (coa), a Federal Supplement citation and a state (district)
    assert re.fullmatch(r"\d+ F\.3d \d+", harbor.citations[0]) and harbor.circuit and harbor.year == 1997
    assert re.fullmatch(r"\d+ F\. Supp\. \d+", rivera.citations[0]) and rivera.state and rivera.author

    assert {label for label, _, _ in calls} == {"cap static"}
    dones = [done for _, done, _ in calls]
    total = calls[-1][2]
    assert dones == sorted(dones) and dones[0] == 0 and dones[-1] == total > 0
    assert len(calls) >= 4  # one report per volume at least


def test_volume_given_as_folder_and_zip_in_one_call_is_read_once(tmp_path: Path) -> None:
    bundles, result = read_all([REAL_VOLUME, REAL_ZIP])
    assert len(bundles) == 9
    assert [issue.message for issue in result.issues] == [f"the same volume or file as {REAL_VOLUME}: read once"]


# --- CAP's older bulk download --------------------------------------------------------------------------------


def test_bagit_bulk_zip_with_data_jsonl_xz(tmp_path: Path) -> None:
    cases = federal_cases()
    old_cases = [bulk_case(case) for case in cases["f3d"] + cases["f-supp"]]
    locked = {
        "id": 7,
        "name_abbreviation": "Locked v. Out",
        "casebody": {"status": "error_auth_required", "data": None},
    }
    path = write_bagit(tmp_path / "Federal-20200302-text.zip", [*old_cases, locked])
    bundles, result = read_all([path])
    static, _ = read_all([write_volume(tmp_path / "f3d" / "123", cases["f3d"])])
    assert [b.case.source_id for b in bundles] == ["9001", "9002", "9101", "9102", "7"]
    assert bundles[0].case == static[0].case
    assert [(op.opinion_type, op.author, op.text) for op in bundles[0].opinions] == [
        (op.opinion_type, op.author, op.text) for op in static[0].opinions
    ]
    assert bundles[3].case.author == "John H. Pratt" and bundles[3].case.state == "DC"
    member = f"{path}!{path.stem}/data/data.jsonl.xz"
    assert {op.source_file for b in bundles for op in b.opinions} == {member}
    assert [(issue.location, "error_auth_required" in issue.message) for issue in result.issues] == [
        (f"{member}:5", True)
    ]


def test_unzipped_bulk_file_and_truncated_xz(tmp_path: Path) -> None:
    lines = "".join(json.dumps(bulk_case(case)) + "\n" for case in federal_cases()["f3d"])
    packed = tmp_path / "data.jsonl.xz"
    packed.write_bytes(lzma.compress(lines.encode("utf-8")))
    bundles, _ = read_all([packed])
    assert [b.case.source_id for b in bundles] == ["9001", "9002"]
    cut = tmp_path / "cut.jsonl.xz"
    big = "".join(json.dumps(bulk_case(case)) + "\n" for case in federal_cases()["f3d"] * 200)
    cut.write_bytes(lzma.compress(big.encode("utf-8"))[:-200])
    bundles, result = read_all([cut])
    assert len(bundles) > 0
    assert any("cannot read further" in issue.message for issue in result.issues)


# --- files: JSON Lines, arrays, objects, compressed ---------------------------------------------------------------


@pytest.mark.parametrize("compression", ["", ".gz", ".xz", ".bz2"])
@pytest.mark.parametrize("layout", ["jsonl", "pretty array", "compact array", "pretty objects"])
def test_json_files_in_every_layout_and_compression(tmp_path: Path, layout: str, compression: str) -> None:
    cases = real_cases()
    if layout == "jsonl":
        text = "".join(json.dumps(case) + "\n" for case in cases)
    elif layout == "pretty array":
        text = pretty(cases)
    elif layout == "compact array":
        text = json.dumps(cases)
    else:
        text = "".join(pretty(case) for case in cases)  # several pretty-printed objects, one after another
    data = text.encode("utf-8")
    compress = {"": bytes, ".gz": gzip.compress, ".xz": lzma.compress, ".bz2": bz2.compress}[compression]
    path = tmp_path / f"cases.json{compression}"
    path.write_bytes(compress(data))
    bundles, result = read_all([path])
    expected, _ = read_all([REAL_VOLUME])
    assert result.issues == [] and result.rows_read == len(cases)
    assert [b.case for b in bundles] == [b.case for b in expected]
    assert [[op.text for op in b.opinions] for b in bundles] == [[op.text for op in b.opinions] for b in expected]


@pytest.mark.parametrize("layout", ["jsonl", "pretty array"])
def test_a_byte_order_mark_is_skipped(tmp_path: Path, layout: str) -> None:
    cases = real_cases()[:2]
    text = "".join(json.dumps(case) + "\n" for case in cases) if layout == "jsonl" else pretty(cases)
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    bundles, result = read_all([path])
    assert [b.case.source_id for b in bundles] == [str(case["id"]) for case in cases] and result.issues == []


def test_compression_is_told_by_content_not_name(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"  # gzip data under a plain name
    path.write_bytes(gzip.compress(pretty(real_cases()).encode("utf-8")))
    assert len(read_all([path])[0]) == 9


def test_array_larger_than_the_window_is_streamed_and_a_bad_element_is_located(tmp_path: Path) -> None:
    template = real_cases()[0]
    elements = []
    for index in range(400):  # about 4 MB: several times the 1 MiB reading window
        case = copy.deepcopy(template)
        case["id"] = 10_000 + index
        elements.append(pretty(case).rstrip("\n"))
    good = "[\n" + ",\n".join(elements) + "\n]\n"
    path = tmp_path / "big.json"
    path.write_text(good, encoding="utf-8")
    bundles, result = read_all([path])
    assert [b.case.source_id for b in bundles] == [str(10_000 + i) for i in range(400)]
    assert result.issues == []
    # break element 300: reading stops there, with the line it is on
    broken_lines = [
        *elements[:300],
        elements[300].replace('"name_abbreviation"', "name_abbreviation", 1),
        *elements[301:],
    ]
    broken = "[\n" + ",\n".join(broken_lines) + "\n]\n"
    path.write_text(broken, encoding="utf-8")
    bundles, result = read_all([path])
    assert len(bundles) == 300
    line = broken[: broken.index("name_abbreviation", broken.index(f'"id": {10_300}'))].count("\n") + 1
    assert [(issue.location, issue.message.split(":")[0]) for issue in result.issues] == [
        (f"{path}:{line}", "invalid JSON")
    ]


def test_jsonl_bad_lines_are_rows_with_their_line(tmp_path: Path) -> None:
    cases = real_cases()[:3]
    lines = [
        json.dumps(cases[0]),
        "{not json",
        json.dumps([1, 2]),
        json.dumps({"volume_number": "5"}),
        "",
        json.dumps(cases[1]),
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(
        ("\n".join(lines) + "\n").encode("utf-8") + b"\xff\xfe bad bytes\n" + json.dumps(cases[2]).encode()
    )
    bundles, result = read_all([path])
    assert [b.case.source_id for b in bundles] == [str(case["id"]) for case in cases]
    assert result.rows_read == 7  # the blank line is not a row
    messages = {issue.location: issue.message for issue in result.issues}
    assert messages[f"{path}:2"].startswith("invalid JSON")
    assert messages[f"{path}:3"] == "expected a case object, got list"
    assert messages[f"{path}:4"] == "not a CAP case object (keys: volume_number)"
    assert messages[f"{path}:7"].startswith("not UTF-8")


# --- filters ----------------------------------------------------------------------------------------------------


def test_court_and_year_filters_are_applied_while_reading(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "static")
    by_court, _ = read_all([root], LoadOptions(filter=SourceFilter(courts=frozenset({"ca9", "cand"}))))
    assert sorted(b.case.source_id for b in by_court) == ["9001", "9101"]
    by_year, _ = read_all([root], LoadOptions(filter=SourceFilter(years=(1953, 1953))))
    assert sorted(b.case.source_id for b in by_year) == sorted(str(raw["id"]) for raw in real_cases())
    both, result = read_all([root], LoadOptions(filter=SourceFilter(courts=frozenset({"cadc"}), years=(1990, 1999))))
    assert [b.case.source_id for b in both] == ["9002"]
    assert result.rows_read == 13  # every case was read, three kept
    message = empty_error([REAL_VOLUME], LoadOptions(filter=SourceFilter(courts=frozenset({"ca9"}))))
    assert message == f"{REAL_VOLUME}: 9 CAP case(s) read, none in the courts and years asked for (courts ca9)"
    # judged over all paths together: a path of other courts beside one with cases kept is no error
    federal = write_volume(tmp_path / "f3d" / "123", federal_cases()["f3d"])
    kept, _ = read_all([REAL_VOLUME, federal], LoadOptions(filter=SourceFilter(courts=frozenset({"ca9"}))))
    assert [b.case.source_id for b in kept] == ["9001"]


# --- progress within a large file ------------------------------------------------------------------------------


def test_progress_within_one_large_file(tmp_path: Path) -> None:
    template = real_cases()[0]
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for index in range(1000):  # about 11 MB
            template["id"] = index + 1
            handle.write(json.dumps(template) + "\n")
    calls: list[tuple[int, int]] = []
    bundles, _ = read_all([path], LoadOptions(progress=lambda _label, done, total: calls.append((done, total))))
    assert len(bundles) == 1000
    size = path.stat().st_size
    assert calls[0] == (0, size) and calls[-1] == (size, size)
    assert any(0 < done < size for done, _ in calls)  # reported while reading, not only at the end
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


# --- junk and empty inputs --------------------------------------------------------------------------------------


def test_junk_and_empty_sources_fail_loudly_naming_what_they_hold(tmp_path: Path) -> None:
    csv_path = tmp_path / "table.csv"
    csv_path.write_text("".join(f"{i},case {i},1997\n" for i in range(1504)), encoding="utf-8")
    message = empty_error([csv_path])
    assert message.startswith(f"{csv_path}: no CAP case read: expected CAP case JSON")
    assert message.endswith("found 1,504 lines that are not JSON (table.csv line 1, byte 0, table.csv line 2, byte 14, "
                            "table.csv line 3, byte 28)")  # fmt: skip

    binary = tmp_path / "volume.bin"
    binary.write_bytes(b"\x89\xff\xfe\x00\n" * 317)
    where = "(volume.bin line 1, byte 0, volume.bin line 2, byte 5, "
    assert f"found 317 lines that are not UTF-8 {where}" in empty_error([binary])

    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert empty_error([empty]).endswith("found 1 empty file(s) (empty.jsonl)")

    folder = tmp_path / "nothing"
    folder.mkdir()
    assert empty_error([folder]).endswith("found an empty folder")

    html_only = tmp_path / "html"
    shutil.copytree(REAL_VOLUME / "html", html_only)
    assert "found a folder with 9 other file(s) (0036-01.html, 0038-01.html, 0040-01.html)" in empty_error([html_only])

    assert empty_error([REAL_VOLUME / "VolumeMetadata.json"]).endswith(
        "found 1 CAP metadata file(s) without cases (VolumeMetadata.json)"
    )

    clusters = tmp_path / "clusters.json"
    clusters.write_text(pretty({"count": 1, "results": [{"id": 5, "case_name": "A v. B"}]}), encoding="utf-8")
    assert "found 1 JSON objects that are not CAP cases (keys count, results)" in empty_error([clusters])

    no_cases_zip = tmp_path / "notes.zip"
    with zipfile.ZipFile(no_cases_zip, "w") as archive:
        archive.writestr("readme.txt", "no cases here")
    assert empty_error([no_cases_zip]).endswith(
        f"found 1 zip members or files skipped ({no_cases_zip.name}: no case file among its 1 member(s) (readme.txt))"
    )

    with pytest.raises(FileNotFoundError):
        cap.load_files([tmp_path / "missing.jsonl"])


def test_the_first_path_with_no_case_stops_the_load_with_its_name(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("nothing\n", encoding="utf-8")
    streamed = cap.load_files([REAL_VOLUME, junk])
    first = [next(streamed.bundles) for _ in range(9)]
    assert len(first) == 9
    with pytest.raises(EmptySourceError, match=re.escape(f"{junk}: no CAP case read")):
        next(streamed.bundles)


def test_a_junk_file_is_not_read_to_its_end_and_its_rows_are_bounded(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt.json"
    path.write_text("x\n" * (cap.JUNK_ROWS + 5000), encoding="utf-8")
    with pytest.raises(EmptySourceError) as raised:
        streamed = cap.load_files([path])
        list(streamed.bundles)
    assert f"{cap.JUNK_ROWS:,} lines that are not JSON" in str(raised.value)
    assert "files not read to the end" in str(raised.value)
    assert len(streamed.result.issues) <= cap.MAX_ISSUES_PER_PATH + 2
    assert (
        streamed.result.issues[-1].message
        == f"{cap.JUNK_ROWS - cap.MAX_ISSUES_PER_PATH + 1:,} more issue rows like the above not recorded"
    )


# --- hostile zips and compressed files --------------------------------------------------------------------------


def test_hostile_zip_members_are_skipped_and_reported(tmp_path: Path) -> None:
    good, escaping = real_cases()[0], real_cases()[1]
    path = tmp_path / "hostile.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("json/0036-01.json", pretty(good))
        archive.writestr("../../json/0038-01.json", pretty(escaping))
        archive.writestr("/etc/json/0038-01.json", pretty(escaping))
        archive.writestr("json/0040-01.json", b" " * (3 * 1024 * 1024) + pretty(escaping).encode())  # inflates ~1000x
    bundles, result = read_all([path])
    assert [b.case.source_id for b in bundles] == [str(good["id"])]
    messages = {issue.location: issue.message for issue in result.issues}
    assert messages[f"{path}!../../json/0038-01.json"].startswith("member path leaves the archive")
    assert messages[f"{path}!/etc/json/0038-01.json"].startswith("member path leaves the archive")
    assert "a zip bomb?" in messages[f"{path}!json/0040-01.json"]
    assert len(messages) == 3

    only_hostile = tmp_path / "only_hostile.zip"
    with zipfile.ZipFile(only_hostile, "w") as archive:
        archive.writestr("../escape/json/0036-01.json", pretty(good))
    message = empty_error([only_hostile])
    assert (
        "found 1 zip members or files skipped (../escape/json/0036-01.json: member path leaves the archive" in message
    )


def test_oversized_zip_member_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "oversized.zip"
    good = real_cases()[0]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("json/0036-01.json", pretty(good))
        # a stored (not compressed) case member over the per-case limit: no ratio to give it away, only its size
        archive.writestr("json/9999-01.json", b"[" + b" " * cap_json.MAX_VALUE_BYTES + b"]")
    bundles, result = read_all([path])
    assert [b.case.source_id for b in bundles] == [str(good["id"])]
    assert [issue.location for issue in result.issues] == [f"{path}!json/9999-01.json"]
    assert "over the limit" in result.issues[0].message


def test_decompression_bomb_in_a_compressed_file_stops_reading(tmp_path: Path) -> None:
    good = json.dumps(real_cases()[0]) + "\n"
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress(good.encode() + b" " * (cap_json.RATIO_FREE_BYTES + 4 * 1024 * 1024), 9))
    assert path.stat().st_size * cap_json.MAX_RATIO < cap_json.RATIO_FREE_BYTES  # it is a bomb
    bundles, result = read_all([path])
    assert len(bundles) == 1
    assert [issue.message.split(":")[0] for issue in result.issues] == ["cannot read further"]
    assert "decompresses to more than" in result.issues[0].message


def test_overlong_json_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    good = json.dumps(real_cases()[0])
    with path.open("w", encoding="utf-8") as handle:
        handle.write('{"id": 1, "name": "' + "x" * cap_json.MAX_VALUE_BYTES + '"}\n')
        handle.write(good + "\n")
    bundles, result = read_all([path])
    assert [b.case.source_id for b in bundles] == [str(real_cases()[0]["id"])]
    assert [(issue.location, issue.message) for issue in result.issues] == [
        (f"{path}:1", f"line longer than {cap_json.MAX_VALUE_BYTES:,} bytes: skipped (byte 0)")
    ]


# --- authors ----------------------------------------------------------------------------------------------------


def test_the_real_bylines_lose_their_titles() -> None:
    bylines = {op["author"] for raw in real_cases() for op in raw["casebody"]["opinions"]}
    assert "HOOD, Associate Judge." in bylines  # the byline the issue names
    for byline in bylines:
        assert author_name(byline) == byline_surname(byline)


@pytest.mark.parametrize(
    ("byline", "name"),
    [
        ("HOOD, Associate Judge.", "Hood"),
        ("CAYTON, Chief Judge", "Cayton"),
        ("Mr. Justice Black", "Black"),
        ("Mr. Justice BLACK delivered the opinion of the Court.", "Black"),
        ("Mr. Chief Justice Taft", "Taft"),
        ("CLARK, Circuit Judge.", "Clark"),
        ("PER CURIAM.", None),
        ("Per Curiam:", None),
        ("BY THE COURT.", None),
        ("MEMORANDUM AND ORDER", None),
        ("Warren, C.J.", "Warren"),
        ("HARLAN, J., dissenting.", "Harlan"),
        ("McALLISTER, Circuit Judge.", "McAllister"),
        ("O'SCANNLAIN, Circuit Judge:", "O'Scannlain"),
        ("JOHN R. BROWN, Chief Judge:", "John R. Brown"),
        ("VAN DEVANTER, J.", "Van Devanter"),
        ("WISDOM, Jr., Circuit Judge", "Wisdom Jr."),
        ("SMITH, Senior District Judge.", "Smith"),
        ("WILLIAM H. TIMBERS, U.S.D.J.", "William H. Timbers"),
        ("Judge Learned Hand", "Learned Hand"),
        ("", None),
        (None, None),
    ],
)
def test_author_names_without_titles(byline: str | None, name: str | None) -> None:
    assert author_name(byline) == name
