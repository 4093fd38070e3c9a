"""Issue 30: the builder's streamed sources, per-source counts, loud failures, `--courts/--years`, the official
citation, and `data info` per level and source. Builds read the real offline data (LEXPROBE_DATA); the extra sources
are small record sets written here in the loaders' vocabulary (the loaders' own formats are tested with them)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.build import ExtraSource, build_database
from lexprobe.caselaw.build_plan import courts_of_level, parse_courts, parse_years, source_filter
from lexprobe.caselaw.build_report import BuildError
from lexprobe.caselaw.merge import CaseMerger
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.records import (
    CaseBundle,
    CaseRecord,
    CitationEdge,
    EmptySourceError,
    LoadOptions,
    LoadResult,
    OpinionRecord,
    SourceFilter,
    StreamedLoad,
)
from lexprobe.errors import BadInputError

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


def _opinion(source: str, opinion_id: str, text: str, *, majority: bool = True) -> OpinionRecord:
    return OpinionRecord(
        source=source, opinion_id=opinion_id, cluster_id=None, case_name=None, citations=(),
        opinion_type="lead" if majority else "dissent", is_majority=majority, author=None, text=text,
        source_file="test",
    )  # fmt: skip


def _cap_bundles() -> Iterator[CaseBundle]:
    # joins the Songer D.C. Circuit case 108 F.3d 1396; its U.S. App. D.C. citation must not become the official one
    yield CaseBundle(
        CaseRecord(
            "cap",
            "cap-1",
            "cadc",
            name="Smith v. Jones",
            citations=("323 U.S. App. D.C. 284", "108 F.3d 1396"),
            decision_date="1997-03-05",
            year=1997,
            author="Harry T. Edwards",
        ),
        opinions=(_opinion("cap", "cap:cap-1:0", "EDWARDS, Chief Judge: We affirm."),),
        edges=(CitationEdge("cap", "cap:cap-1", "347 U.S. 483"), CitationEdge("cap", "cap:cap-1", "124 F.3d 243")),
    )
    # a new court of appeals case, read again below from the CourtListener bulk files
    yield CaseBundle(
        CaseRecord(
            "cap",
            "cap-2",
            "ca9",
            name="Doe v. Roe",
            citations=("200 F.3d 100",),
            decision_date="1999-12-01",
            year=1999,
            author="Pamela Ann Rymer",
            disposition="reverse",
            disposition_raw="reversed",
        ),
        opinions=(
            _opinion("cap", "cap:cap-2:0", "RYMER, Circuit Judge: Reversed."),
            _opinion("cap", "cap:cap-2:1", "I dissent.", majority=False),
        ),
    )
    # a new district case without its state: the state follows from the court
    yield CaseBundle(
        CaseRecord(
            "cap",
            "cap-3",
            "nysd",
            name="United States v. Black",
            citations=("50 F. Supp. 2d 10",),
            decision_date="1999-05-01",
            year=1999,
        ),
        opinions=(_opinion("cap", "cap:cap-3:0", "Motion denied."),),
    )


def _bulk_bundles() -> Iterator[CaseBundle]:
    # the CAP case 200 F.3d 100 again: joins the case written above; its LEXIS number stays a parallel citation
    yield CaseBundle(
        CaseRecord(
            "courtlistener",
            "901",
            "ca9",
            name="Doe v. Roe",
            citations=("1999 U.S. App. LEXIS 31001", "200 F.3d 100"),
            year=1999,
        ),
        opinions=(_opinion("courtlistener", "cl-op-901", "Opinion by Rymer."),),
    )
    yield CaseBundle(
        CaseRecord("courtlistener", "902", "ca2", name="Able v. Baker", citations=("210 F.3d 5",), year=2000),
        edges=(CitationEdge("courtlistener", "courtlistener:902", "courtlistener:901"),),
    )


def _api_cluster() -> LoadResult:
    # a CourtListener cluster of the Songer case 124 F.3d 243 carrying its LEXIS number (the bug of issue 30)
    record = CaseRecord(
        "courtlistener", "555", "ca1", name="Rivera v. Doe", citations=("1997 U.S. App. LEXIS 22161", "124 F.3d 243"),
        decision_date="1997-08-18", year=1997,
    )  # fmt: skip
    # an unpublished decision: its cluster has no citation, so its opinion can join it only by the cluster id
    unpublished = CaseRecord("courtlistener", "556", "ca1", name="Roe v. Poe", decision_date="2001-02-03", year=2001)
    opinion = OpinionRecord(
        source="courtlistener", opinion_id="cl-op-556", cluster_id="556", case_name="Roe v. Poe", citations=(),
        opinion_type="lead", is_majority=True, author=None, text="PER CURIAM. Affirmed.", source_file="test",
    )  # fmt: skip
    return LoadResult(cases=[record, unpublished], opinions=[opinion], rows_read=3)


class Recorder:
    """Loads that remember the options the builder handed them."""

    def __init__(self) -> None:
        self.options: dict[str, LoadOptions] = {}

    def cap(self, options: LoadOptions) -> StreamedLoad:
        self.options["cap"] = options
        return StreamedLoad(_cap_bundles(), LoadResult(rows_read=3))

    def bulk(self, options: LoadOptions) -> StreamedLoad:
        self.options["bulk"] = options
        return StreamedLoad(_bulk_bundles(), LoadResult(rows_read=2))

    def api(self, options: LoadOptions) -> LoadResult:
        self.options["api"] = options
        return _api_cluster()


@pytest.fixture(scope="module")
def streamed_build(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("streamed")
    recorder = Recorder()
    here = Path(__file__)
    extra = [
        ExtraSource("courtlistener-api", (here,), recorder.api, "API pages"),
        ExtraSource("cap", (here,), recorder.cap, "CAP volumes"),
        ExtraSource("courtlistener-bulk", (here,), recorder.bulk, "bulk files"),
    ]
    db_path = folder / "lower.sqlite"
    report = build_database(data_root(), db_path, extra_sources=extra)
    return db_path, report, recorder


def test_streamed_sources_add_and_join_cases(streamed_build) -> None:
    db_path, report, _ = streamed_build
    assert report.cases_added["cap"] == 2 and report.cases_joined["cap"] == 1
    assert report.cases_added["courtlistener-bulk"] == 1 and report.cases_joined["courtlistener-bulk"] == 1
    assert report.cases_added["courtlistener-api"] == 1 and report.cases_joined["courtlistener-api"] == 1
    assert report.cases_added["songer"] == 2160
    conn = sqlite3.connect(db_path)
    # the same F.3d case from CAP and from CourtListener is one case with both sources' facts and opinions
    ((case_id, citation, sources, level, majority),) = conn.execute(
        "SELECT c.case_id, c.citation, c.sources, c.level, c.majority_opinion_id FROM cases c"
        " JOIN case_citations k ON k.case_id = c.case_id WHERE k.citation_key = '200 F.3d 100'"
    ).fetchall()
    assert (citation, sources, level, majority) == ("200 F.3d 100", "cap,courtlistener", "coa", "cap:cap-2:0")
    keys = {k for (k,) in conn.execute("SELECT citation_key FROM case_citations WHERE case_id = ?", (case_id,))}
    assert keys == {"200 F.3d 100", "1999 U.S. App. LEXIS 31001"}
    opinions = {o for (o,) in conn.execute("SELECT opinion_id FROM opinions WHERE case_id = ?", (case_id,))}
    assert opinions == {"cap:cap-2:0", "cap:cap-2:1", "cl-op-901"}
    fact_sources = {s for (s,) in conn.execute("SELECT DISTINCT source FROM facts WHERE case_id = ?", (case_id,))}
    assert fact_sources == {"cap", "courtlistener"}
    # the district case took its state and level from its court
    assert conn.execute("SELECT state, level, circuit FROM cases WHERE citation = '50 F. Supp. 2d 10'").fetchone() == (
        "NY", "district", None,
    )  # fmt: skip
    # a CAP bundle of a Songer case joined the in-memory case: Songer's facts, CAP's name and opinion
    row = conn.execute(
        "SELECT name, citation, author, disposition, sources, majority_opinion_id FROM cases WHERE citation = ?",
        ("108 F.3d 1396",),
    ).fetchone()
    assert row == ("Smith v. Jones", "108 F.3d 1396", "Harry T. Edwards", "affirm", "songer,cap", "cap:cap-1:0")


def test_an_uncited_clusters_opinion_joins_its_case_by_cluster_id(streamed_build) -> None:
    db_path, _, _ = streamed_build
    conn = sqlite3.connect(db_path)
    row = conn.execute(
        "SELECT c.name, c.court_id, c.level, c.majority_opinion_id FROM opinions o"
        " JOIN cases c ON c.case_id = o.case_id WHERE o.opinion_id = 'cl-op-556'"
    ).fetchone()
    assert row == ("Roe v. Poe", "ca1", "coa", "cl-op-556")


def test_streamed_edges_resolve_by_citation_and_source_id(streamed_build) -> None:
    db_path, _, _ = streamed_build
    conn = sqlite3.connect(db_path)
    edges = set(
        conn.execute(
            "SELECT a.citation, b.citation FROM citation_edges e JOIN cases a ON a.case_id = e.citing_case_id"
            " JOIN cases b ON b.case_id = e.cited_case_id WHERE e.source IN ('cap', 'courtlistener')"
        )
    )
    assert edges == {
        ("108 F.3d 1396", "347 U.S. 483"),
        ("108 F.3d 1396", "124 F.3d 243"),
        ("210 F.3d 5", "200 F.3d 100"),
    }


def test_vendor_and_dc_citations_never_official_and_coa_count_kept(streamed_build, case_db_path: Path) -> None:
    """Regression (issue 30): merging a cluster that also carries '1997 U.S. App. LEXIS 22161' into the Songer case
    124 F.3d 243 took the eligible coa cases from 2,160 to 2,159. Every Songer case stays eligible; the only new
    ones are the two new F.3d cases."""
    db_path, _, _ = streamed_build
    base, built = CaseDatabase(case_db_path), CaseDatabase(db_path)
    assert base.eligible_count("coa", None, ()) == 2160
    assert built.eligible_count("coa", None, ()) == 2160 + 2
    assert built.eligible_count("district", None, ()) == base.eligible_count("district", None, ()) + 1
    conn = sqlite3.connect(db_path)
    row = conn.execute("SELECT citation, sources, name FROM cases WHERE case_id = 'ca1:124_F.3d_243'").fetchone()
    assert row == ("124 F.3d 243", "songer,courtlistener", "Rivera v. Doe")
    parallel = conn.execute(
        "SELECT source FROM case_citations WHERE case_id = 'ca1:124_F.3d_243' AND citation_key = ?",
        ("1997 U.S. App. LEXIS 22161",),
    ).fetchone()
    assert parallel == ("courtlistener",)
    assert conn.execute("SELECT COUNT(*) FROM cases WHERE citation LIKE '% LEXIS %'").fetchone() == (0,)
    assert conn.execute("SELECT COUNT(*) FROM cases WHERE citation LIKE '% U.S. App. D.C. %'").fetchone() == (0,)


def test_builder_hands_loaders_filter_progress_and_work_dir(streamed_build) -> None:
    db_path, _, recorder = streamed_build
    options = recorder.options["cap"]
    assert options.filter == SourceFilter()
    assert options.work_dir == db_path.with_name("lower.sqlite.staging") / "cap"
    assert options.progress is not None
    assert not db_path.with_name("lower.sqlite.staging").exists()  # removed after the build succeeded
    assert not list(db_path.parent.glob(".*building*"))  # the temporary and staging files are gone
    info = CaseDatabase(db_path).build_info()
    assert json.loads(info["cases_added"])["cap"] == 2
    assert json.loads(info["cases_joined"])["courtlistener-bulk"] == 1


def test_data_info_counts_levels_and_sources(streamed_build) -> None:
    db_path, _, _ = streamed_build
    database = CaseDatabase(db_path)
    levels = database.level_counts()
    assert set(levels) >= {"scotus", "coa", "district", "unknown"}
    assert levels["district"] == 1
    assert levels["coa"] == 2160 + 3  # Songer's, two streamed, the API's uncited cluster
    (total,) = database.conn.execute("SELECT COUNT(*) FROM cases").fetchone()
    assert sum(levels.values()) == total
    sources = database.source_counts()
    assert sources["cap"] == 3 and sources["songer"] == 2160
    assert sources["courtlistener"] >= 3
    result = subprocess.run(
        [LEXPROBE, "data", "info", "--db", str(db_path), "--json"], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["levels"] == levels and payload["sources"] == sources


# --- the official citation -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("citations", "official"),
    [
        (("1997 U.S. App. LEXIS 22161", "124 F.3d 243"), "124 F.3d 243"),
        (("124 F.3d 243", "1997 U.S. App. LEXIS 22161"), "124 F.3d 243"),
        (("80 U.S. App. D.C. 67", "148 F.2d 665"), "148 F.2d 665"),
        (("80 U.S. App. D.C. 67",), "80 U.S. App. D.C. 67"),  # a real reporter, just not one the samples use
        (("1997 WL 12345", "2001 U.S. Dist. LEXIS 5"), None),  # vendors only: no official citation
        (("74 S. Ct. 686", "347 U.S. 483", "1954 U.S. LEXIS 2094"), "347 U.S. 483"),
        (("2001 U.S. Dist. LEXIS 5", "150 F. Supp. 2d 9"), "150 F. Supp. 2d 9"),
    ],
)
def test_official_citation_matches_reporters_exactly(citations: tuple[str, ...], official: str | None) -> None:
    merger = CaseMerger()
    case_id = merger.add(CaseRecord("courtlistener", "1", "ca1", citations=citations))
    assert merger.official_citation(merger.cases[case_id]) == official


# --- loud failures -----------------------------------------------------------------------------------------------


def _no_case(options: LoadOptions) -> StreamedLoad:
    raise EmptySourceError("/data/CasesMetadata.json: no CAP case read: expected case objects, found 9 entries")


def test_empty_source_at_the_call_fails_before_the_offline_data(tmp_path: Path) -> None:
    db_path = tmp_path / "cases.sqlite"
    db_path.write_bytes(b"the old database")
    extra = [ExtraSource("cap", (Path(__file__),), _no_case)]
    with pytest.raises(BuildError) as failure:
        build_database(data_root(), db_path, extra_sources=extra)
    message = str(failure.value)
    assert message.startswith("cap: /data/CasesMetadata.json: no CAP case read") and "\n" not in message
    assert db_path.read_bytes() == b"the old database"


def _junk_stream(options: LoadOptions) -> StreamedLoad:
    def bundles() -> Iterator[CaseBundle]:
        raise EmptySourceError("/data/junk.csv.bz2: no CourtListener cluster read: expected a bulk CSV header")
        yield  # a generator

    return StreamedLoad(bundles())


def _filtered_stream(options: LoadOptions) -> StreamedLoad:
    record = CaseRecord("cap", "9", "ca9", citations=("300 F.3d 1",), year=2002)
    return StreamedLoad(iter([CaseBundle(record)]))


def test_empty_stream_and_fully_filtered_stream_fail(tmp_path: Path) -> None:
    db_path = tmp_path / "cases.sqlite"
    db_path.write_bytes(b"the old database")
    with pytest.raises(BuildError, match=r"^courtlistener-bulk: /data/junk.csv.bz2: no CourtListener cluster read"):
        build_database(data_root(), db_path, extra_sources=[ExtraSource("courtlistener-bulk", (), _junk_stream)])
    assert db_path.read_bytes() == b"the old database"
    only_ca1 = SourceFilter(courts=frozenset({"ca1"}))
    with pytest.raises(BuildError, match=r"^cap: no case kept .* all 1 cases read fall outside --courts/--years"):
        build_database(
            data_root(), db_path, extra_sources=[ExtraSource("cap", (), _filtered_stream)], source_filter=only_ca1
        )
    assert db_path.read_bytes() == b"the old database"
    assert not list(tmp_path.glob(".*building*"))


# --- --courts / --years ----------------------------------------------------------------------------------------


def test_courts_expand_levels_and_refuse_unknown_ids() -> None:
    coa = courts_of_level("coa")
    assert {"ca1", "ca9", "ca11", "cadc", "cafc"} <= coa and "nysd" not in coa
    assert parse_courts("coa,nysd") == coa | {"nysd"}
    district = parse_courts("district")
    assert {"nysd", "cand", "dcd"} <= district and "ca9" not in district and "scotus" not in district
    assert parse_courts("Appeals") == coa
    with pytest.raises(BadInputError, match="unknown court 'ca99'"):
        parse_courts("ca9,ca99")
    assert parse_years("1990-2005") == (1990, 2005) and parse_years("1997") == (1997, 1997)
    with pytest.raises(BadInputError, match="first year is after the last"):
        parse_years("2005-1990")
    assert source_filter(None, None) == SourceFilter()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=600)


def test_cli_refuses_missing_paths_and_bad_filters(tmp_path: Path) -> None:
    db = str(tmp_path / "cases.sqlite")
    missing = run_cli("data", "build", "--db", db, "--cap", str(tmp_path / "nowhere"))
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines()[-1].endswith(f"not found: {tmp_path / 'nowhere'}")
    assert "Traceback" not in missing.stderr
    bad = run_cli("data", "build", "--db", db, "--courts", "ninth", "--cap", str(tmp_path))
    assert bad.returncode == 2 and "unknown court 'ninth'" in bad.stderr
    assert not Path(db).exists()


def test_build_help_teaches_the_formats() -> None:
    result = run_cli("data", "build", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    for phrase in ("CasesMetadata.json", "opinion-clusters-", "--courts", "--years", "--work-dir", "API pages"):
        assert phrase in text
