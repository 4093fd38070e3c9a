"""Issue 30 end to end: `data build --cap TREE --courtlistener BULK`, `data info`, and `hallucination run --levels
coa,district` on the database built, all through the command line.

The inputs are written here in the publishers' own formats: CAP static-export volumes (an F.3d volume folder and an
F. Supp. volume zip, laid out as the real volume in `formats/cap_static/a2d/100/`, each case made from one of its
real case files) and a CourtListener bulk set in the export's real dialect (PostgreSQL `COPY ... (FORMAT csv,
HEADER, ESCAPE '\\', FORCE_QUOTE *)`, bzip2; the quoting is written here, independently of the loader).
"""

from __future__ import annotations

import bz2
import copy
import json
import os
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.sources.courtlistener_bulk_export import COLUMNS

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
REAL_VOLUME = data_root() / "formats" / "cap_static" / "a2d" / "100"

FIRST = ("United States Court of Appeals for the First Circuit", "1st Cir.")
NINTH = ("United States Court of Appeals for the Ninth Circuit", "9th Cir.")
SDNY = ("United States District Court for the Southern District of New York", "S.D.N.Y.")
NDCAL = ("United States District Court for the Northern District of California", "N.D. Cal.")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=1800)


# --- CAP static export ---------------------------------------------------------------------------------------


def cap_case(case_id: int, name: str, date: str, cite: str, court: tuple[str, str], opinions, cites_to=()) -> dict:
    """A case file of the static export: the real 100 A.2d 456 file with its facts replaced."""
    case: dict[str, Any] = copy.deepcopy(json.loads((REAL_VOLUME / "cases" / "0456-01.json").read_text("utf-8")))
    page = cite.split()[-1]
    case.update(
        id=case_id, name=name.upper(), name_abbreviation=name, decision_date=date, docket_number=f"No. {case_id}",
        first_page=page, last_page=str(int(page) + 6), citations=[{"type": "official", "cite": cite}],
        court={"name": court[0], "name_abbreviation": court[1], "id": case_id},
        jurisdiction={"id": 39, "name_long": "United States", "name": "U.S."},
        cites_to=[{"cite": c, "category": "reporters:federal", "opinion_index": 0} for c in cites_to],
        file_name=f"{int(page):04d}-01",
    )  # fmt: skip
    case["casebody"]["opinions"] = [{"type": kind, "author": author, "text": text} for kind, author, text in opinions]
    return case


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2) + "\n"


def volume_metadata(number: str, reporter: str) -> dict:
    metadata = json.loads((REAL_VOLUME / "VolumeMetadata.json").read_text("utf-8"))
    metadata.update(volume_number=number, reporter_slug=reporter)
    return metadata


def write_cap_tree(root: Path) -> Path:
    f3d = [
        # the Songer case 124 F.3d 243 (First Circuit, 1997): CAP gives it a name and an opinion
        cap_case(7001, "Rivera-Gomez v. de Castro", "1997-08-18", "124 F.3d 243", FIRST,
                 [("majority", "CYR, Senior Circuit Judge.", "CYR, Senior Circuit Judge.\nWe affirm.")]),
        cap_case(7002, "Harbor Freight Lines v. Pacific Maritime Ass'n", "1997-08-21", "124 F.3d 250", NINTH,
                 [("majority", "O'SCANNLAIN, Circuit Judge:", "We reverse the judgment of the district court."),
                  ("dissent", "KOZINSKI, Circuit Judge, dissenting:", "I would affirm.")],
                 cites_to=["124 F.3d 243", "347 U.S. 483"]),
    ]  # fmt: skip
    f_supp = [
        cap_case(7101, "Doe v. Roe Corp.", "1997-10-01", "980 F. Supp. 10", SDNY,
                 [("majority", "SWEET, District Judge.", "The motion to dismiss is granted.")]),
        cap_case(7102, "Rivera v. Coastline Software", "1997-11-04", "980 F. Supp. 20", NDCAL,
                 [("majority", "PATEL, District Judge.", "The motion for summary judgment is denied.")]),
    ]  # fmt: skip
    folder = root / "f3d" / "124"
    (folder / "cases").mkdir(parents=True)
    (folder / "html").mkdir()
    (folder / "VolumeMetadata.json").write_text(pretty(volume_metadata("124", "f3d")), "utf-8")
    for case in f3d:
        (folder / "cases" / f"{case['file_name']}.json").write_text(pretty(case), "utf-8")
        (folder / "html" / f"{case['file_name']}.html").write_text(f"<p>{case['name']}</p>\n", "utf-8")
    (folder / "CasesMetadata.json").write_text(pretty([{k: v for k, v in c.items() if k != "casebody"} for c in f3d]))
    (root / "f-supp").mkdir()
    with zipfile.ZipFile(root / "f-supp" / "980.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for case in f_supp:
            archive.writestr(f"json/{case['file_name']}.json", pretty(case))
            archive.writestr(f"html/{case['file_name']}.html", f"<p>{case['name']}</p>\n")
        archive.writestr("metadata/VolumeMetadata.json", pretty(volume_metadata("980", "f-supp")))
        archive.writestr("metadata/CasesMetadata.json", pretty([{k: v for k, v in c.items() if k != "casebody"}
                                                                for c in f_supp]))  # fmt: skip
    for name in ("ReportersMetadata.json", "VolumesMetadata.json", "JurisdictionsMetadata.json"):
        (root / name).write_text(pretty([{"id": 39, "name": "U.S."}]), "utf-8")
    return root


# --- CourtListener bulk data ---------------------------------------------------------------------------------


def copy_value(value: object) -> str:
    """One value as `COPY ... (FORMAT csv, ESCAPE '\\', FORCE_QUOTE *)` writes it: NULL is nothing, booleans t/f,
    everything else quoted with backslash escapes."""
    if value is None:
        return ""
    text = ("t" if value else "f") if isinstance(value, bool) else str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_bulk_table(path: Path, kind: str, rows: list[dict]) -> None:
    columns = COLUMNS[kind]
    lines = [",".join(f'"{c}"' for c in columns)] + [",".join(copy_value(r.get(c)) for c in columns) for r in rows]
    path.write_bytes(bz2.compress(("\n".join(lines) + "\n").encode("utf-8")))


def write_bulk_set(folder: Path, date: str = "2025-06-30") -> Path:
    folder.mkdir(parents=True)
    tables = {
        "courts": [{"id": "ca1", "full_name": "Court of Appeals for the First Circuit", "jurisdiction": "F"},
                   {"id": "ca9", "full_name": "Court of Appeals for the Ninth Circuit", "jurisdiction": "F"},
                   {"id": "ca2", "full_name": "Court of Appeals for the Second Circuit", "jurisdiction": "F"}],
        "dockets": [{"id": 1, "court_id": "ca1", "docket_number": "96-2149", "case_name": "Rivera-Gomez v. de Castro",
                     "blocked": False},
                    {"id": 2, "court_id": "ca9", "docket_number": "96-15521", "case_name": "Harbor Freight Lines",
                     "blocked": False},
                    {"id": 3, "court_id": "ca2", "docket_number": "99-7001", "case_name": 'Able v. "Baker" Co.',
                     "blocked": False}],
        "opinion-clusters": [
            {"id": 10, "docket_id": 1, "date_filed": "1997-08-18", "date_filed_is_approximate": False,
             "case_name": "Rivera-Gomez v. de Castro", "judges": "Cyr", "disposition": "Affirmed",
             "precedential_status": "Published", "blocked": False},
            {"id": 11, "docket_id": 2, "date_filed": "1997-08-21", "date_filed_is_approximate": False,
             "case_name": "Harbor Freight Lines v. Pacific Maritime Ass'n", "judges": "O'Scannlain, Kozinski",
             "precedential_status": "Published", "blocked": False},
            {"id": 12, "docket_id": 3, "date_filed": "1999-06-02", "date_filed_is_approximate": False,
             "case_name": 'Able v. "Baker" Co.', "judges": "Calabresi", "disposition": "AFFIRMED",
             "precedential_status": "Published", "blocked": False},
        ],
        "citations": [
            {"id": 1, "volume": 1997, "reporter": "U.S. App. LEXIS", "page": 22161, "type": 6, "cluster_id": 10},
            {"id": 2, "volume": 124, "reporter": "F.3d", "page": 243, "type": 1, "cluster_id": 10},
            {"id": 3, "volume": 124, "reporter": "F.3d", "page": 250, "type": 1, "cluster_id": 11},
            {"id": 4, "volume": 1997, "reporter": "WL", "page": 471234, "type": 7, "cluster_id": 11},
            {"id": 5, "volume": 200, "reporter": "F.3d", "page": 9, "type": 1, "cluster_id": 12},
        ],
        "opinions": [
            {"id": 100, "cluster_id": 10, "type": "020lead", "author_str": "Cyr", "per_curiam": False,
             "plain_text": "CYR, Senior Circuit Judge.\nWe affirm.", "extracted_by_ocr": False},
            {"id": 110, "cluster_id": 11, "type": "020lead", "author_str": "O'Scannlain", "per_curiam": False,
             "plain_text": "We reverse.", "extracted_by_ocr": False},
            {"id": 120, "cluster_id": 12, "type": "010combined", "author_str": "Judge Calabresi",
             "per_curiam": False, "plain_text": 'CALABRESI, Circuit Judge:\nThe "rule" at C:\\x is plain. Affirmed.',
             "extracted_by_ocr": False},
        ],
        "citation-map": [{"id": 1, "depth": 1, "cited_opinion_id": 100, "citing_opinion_id": 120}],
    }  # fmt: skip
    for kind, rows in tables.items():
        write_bulk_table(folder / f"{kind}-{date}.csv.bz2", kind, rows)
    return folder


# --- the build and the run -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lower_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, subprocess.CompletedProcess]:
    root = tmp_path_factory.mktemp("lower")
    cap_tree = write_cap_tree(root / "cap")
    bulk = write_bulk_set(root / "courtlistener")
    db = root / "lower.sqlite"
    built = run_cli("data", "build", "--db", str(db), "--cap", str(cap_tree), "--courtlistener", str(bulk), "--json")
    assert built.returncode == 0, built.stderr[-3000:]
    return db, json.loads(built.stdout), built


def test_build_reports_what_each_publisher_added(lower_db) -> None:
    db, report, _ = lower_db
    assert report["cases_added"]["cap"] == 3 and report["cases_joined"]["cap"] == 1
    assert report["cases_added"]["courtlistener-bulk"] == 1 and report["cases_joined"]["courtlistener-bulk"] == 2
    assert not db.with_name("lower.sqlite.staging").exists()
    conn = sqlite3.connect(db)
    # the Songer case, named by CAP, joined by CourtListener; its LEXIS number is a parallel citation only
    row = conn.execute(
        "SELECT name, citation, court_id, circuit, level, author, disposition, sources, majority_opinion_id IS NOT NULL"
        " FROM cases WHERE case_id = 'ca1:124_F.3d_243'"
    ).fetchone()
    assert row[:5] == ("Rivera-Gomez v. de Castro", "124 F.3d 243", "ca1", "1", "coa")
    assert row[5] and "Judge" not in row[5] and row[6] == "affirm" and row[8] == 1
    assert set(row[7].split(",")) == {"songer", "cap", "courtlistener"}
    keys = {k for (k,) in conn.execute("SELECT citation_key FROM case_citations WHERE case_id = 'ca1:124_F.3d_243'")}
    assert "1997 U.S. App. LEXIS 22161" in keys
    # the same Ninth Circuit case from both publishers is one case, with its opinions from both
    ((case_id, citation, sources),) = conn.execute(
        "SELECT c.case_id, c.citation, c.sources FROM cases c JOIN case_citations k ON k.case_id = c.case_id"
        " WHERE k.citation_key = '124 F.3d 250'"
    ).fetchall()
    assert citation == "124 F.3d 250" and sources == "cap,courtlistener"
    assert conn.execute("SELECT COUNT(*) FROM opinions WHERE case_id = ?", (case_id,)).fetchone() == (3,)
    # district cases carry their state and level; authors lose their titles
    district = conn.execute(
        "SELECT citation, court_id, state, level, author FROM cases WHERE level = 'district' ORDER BY citation"
    ).fetchall()
    assert [(r[0], r[1], r[2]) for r in district] == [
        ("980 F. Supp. 10", "nysd", "NY"),
        ("980 F. Supp. 20", "cand", "CA"),
    ]
    assert all(r[4] and "Judge" not in r[4] for r in district)
    # the bulk citation map and CAP's cites_to became edges between cases
    cited = {
        (a, b)
        for a, b in conn.execute(
            "SELECT x.citation, y.citation FROM citation_edges e JOIN cases x ON x.case_id = e.citing_case_id"
            " JOIN cases y ON y.case_id = e.cited_case_id WHERE x.citation IN ('200 F.3d 9', '124 F.3d 250')"
        )
    }
    assert {("200 F.3d 9", "124 F.3d 243"), ("124 F.3d 250", "124 F.3d 243"), ("124 F.3d 250", "347 U.S. 483")} <= cited


def test_build_prints_per_source_counts(tmp_path: Path, lower_db) -> None:
    db = tmp_path / "again.sqlite"
    cap_tree = write_cap_tree(tmp_path / "cap")
    built = run_cli("data", "build", "--db", str(db), "--cap", str(cap_tree), "--courts", "district")
    assert built.returncode == 0, built.stderr[-3000:]
    lines = built.stdout.splitlines()
    assert "cases per source:" in lines
    assert "  cap: 2 new cases, 0 joined existing cases" in lines  # the district cases; the loader left out F.3d
    assert "  songer: 2,160 new cases, 0 joined existing cases" in lines


def test_info_counts_levels_and_sources(lower_db) -> None:
    db, _, _ = lower_db
    info = run_cli("data", "info", "--db", str(db), "--json")
    assert info.returncode == 0, info.stderr
    payload = json.loads(info.stdout)
    assert payload["levels"]["coa"] == 2160 + 2 and payload["levels"]["district"] == 2
    assert payload["sources"]["cap"] == 4 and payload["sources"]["courtlistener"] >= 3
    assert payload["coverage"]["district"]["opinion_text"] == 2


def test_hallucination_run_at_the_lower_levels(lower_db, tmp_path: Path) -> None:
    db, _, _ = lower_db
    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    result = run_cli(
        "hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence", "--levels", "coa,district",
        "--complete-cases", "--n", "10", "--samples", "0", "--years", "all", "--run-dir", str(tmp_path / "run"),
        "--db", str(db), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    rows = {(r["task"], r["level"], r["prompt_style"]): r for r in json.loads(result.stdout)["rows"]}
    # the named lower-court cases: 124 F.3d 243 (named by CAP), 124 F.3d 250 and 200 F.3d 9; two district cases
    assert rows[("existence", "coa", "zero")]["n"] == 3
    assert rows[("existence", "district", "zero")]["n"] == 2
    assert rows[("existence", "district", "zero")]["rate"] == 0.0  # real cases: "Yes" is right


def test_junk_source_fails_loudly_and_keeps_the_old_database(lower_db, tmp_path: Path) -> None:
    db, _, _ = lower_db
    before = db.read_bytes()
    junk = tmp_path / "CasesMetadata.json"
    junk.write_text(pretty([{"foo": 1}, {"bar": 2}]))
    failed = run_cli("data", "build", "--db", str(db), "--cap", str(junk))
    assert failed.returncode == 2
    last = failed.stderr.strip().splitlines()[-1]
    assert f"cap: {junk}: no CAP case read" in last and "found 2 JSON objects that are not CAP cases" in last
    assert "Traceback" not in failed.stderr
    bad_csv = tmp_path / "opinions-2025-06-30.csv.bz2"
    bad_csv.write_bytes(bz2.compress(b"not,a,bulk,file\n1,2,3,4\n"))
    failed = run_cli("data", "build", "--db", str(db), "--courtlistener", str(bad_csv))
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert "courtlistener-bulk" in failed.stderr
    assert db.read_bytes() == before


def test_a_build_stopped_by_a_broken_download_restarts_from_its_work_dir(tmp_path: Path) -> None:
    """The bulk loader's state lives in <db>.staging/courtlistener-bulk: kept when the build fails, used by the rerun
    (the files it finished are not read again), removed when the build succeeds."""
    from lexprobe.caselaw.build import ExtraSource, build_database
    from lexprobe.caselaw.sources import courtlistener_bulk

    bulk = write_bulk_set(tmp_path / "courtlistener")
    opinions = bulk / "opinions-2025-06-30.csv.bz2"
    good = opinions.read_bytes()
    opinions.write_bytes(good[: len(good) // 2])  # a download cut off halfway
    db = tmp_path / "cases.sqlite"
    failed = run_cli("data", "build", "--db", str(db), "--courtlistener", str(bulk))
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert "opinions-2025-06-30.csv.bz2" in failed.stderr.strip().splitlines()[-1]
    staging = tmp_path / "cases.sqlite.staging" / "courtlistener-bulk"
    assert staging.is_dir() and any(staging.iterdir())
    assert not db.exists()

    opinions.write_bytes(good)
    labels: list[str] = []

    def load(options):
        watched = type(options)(options.filter, lambda label, done, total: labels.append(label), options.work_dir)
        return courtlistener_bulk.load_files((bulk,), watched)

    report = build_database(data_root(), db, extra_sources=[ExtraSource("courtlistener-bulk", (bulk,), load)])
    assert report.cases_added["courtlistener-bulk"] + report.cases_joined["courtlistener-bulk"] == 3
    assert "dockets-2025-06-30.csv.bz2 (read before, skipped)" in labels
    assert "opinions-2025-06-30.csv.bz2" in labels
    assert not (tmp_path / "cases.sqlite.staging").exists()
