"""The typed case repository (`lexprobe.caselaw.query.CaseDatabase`) against the real case database: one row per
method, each returning frozen records (`lexprobe.caselaw.stored`) or plain values."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lexprobe.caselaw.coverage import MIN_DECISIONS_PER_VOLUME, us_coverage
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.stored import (
    AgreementPair,
    Case,
    CaseDetail,
    CaseName,
    CitedCase,
    Fact,
    Overruling,
    TermCase,
    VolumeEntry,
)

BROWN, PLESSY = "347 U.S. 483", "163 U.S. 537"


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def _id(db: CaseDatabase, citation: str) -> str:
    return db.find_by_citation(citation)[0]


def _brown_opinion(db: CaseDatabase) -> str:
    case = db.get_case(_id(db, BROWN))
    assert case is not None and case.majority_opinion_id
    return case.majority_opinion_id


# (method, arguments from the database, check of the result)
CASES: list[tuple[str, Callable[[CaseDatabase], tuple[Any, ...]], Callable[[Any, CaseDatabase], bool]]] = [
    ("find_by_citation", lambda db: ("74 S. Ct. 686",), lambda ids, db: ids == [_id(db, BROWN)]),
    ("case_ids_by_key", lambda db: (BROWN,), lambda ids, db: ids == [_id(db, BROWN)]),
    ("find_by_name", lambda db: ("Plessy v. Ferguson",), lambda ids, db: ids[0] == _id(db, PLESSY)),
    ("find", lambda db: ("Brown v. Board of Education",), lambda ids, db: ids[0] == _id(db, BROWN)),
    (
        "get_case",
        lambda db: (_id(db, BROWN),),
        lambda case, db: isinstance(case, Case) and case.year == 1954 and case.level == "scotus",
    ),
    ("get_case", lambda db: ("no such case",), lambda case, db: case is None),
    ("find_case", lambda db: (PLESSY,), lambda case, db: isinstance(case, Case) and case.overruled_year == 1954),
    ("find_case", lambda db: (_id(db, PLESSY),), lambda case, db: case is not None and case.citation == PLESSY),
    (
        "fully_overruled_cases",
        lambda db: ("scotus",),
        lambda cases, db: (
            _id(db, PLESSY) in [c.case_id for c in cases]
            and all(isinstance(c, Case) and c.overruled_year and not c.overruled_in_part for c in cases)
        ),
    ),
    (
        "facts",
        lambda db: (_id(db, BROWN), ("name", "decision_date")),
        lambda facts, db: (
            all(isinstance(f, Fact) for f in facts) and {f.field for f in facts} == {"name", "decision_date"}
        ),
    ),
    ("citation_keys", lambda db: (_id(db, BROWN),), lambda keys, db: BROWN in keys and "74 S. Ct. 686" in keys),
    ("opinion_case_id", lambda db: (_brown_opinion(db),), lambda case_id, db: case_id == _id(db, BROWN)),
    ("opinion_case_id", lambda db: ("no such opinion",), lambda case_id, db: case_id is None),
    ("opinion_text", lambda db: (_brown_opinion(db),), lambda text, db: isinstance(text, str) and len(text) > 100),
    (
        "overrulings_of",
        lambda db: (_id(db, PLESSY),),
        lambda links, db: (
            all(isinstance(o, Overruling) for o in links) and any(o.overruling_year == 1954 for o in links)
        ),
    ),
    (
        "first_overruling",
        lambda db: (_id(db, PLESSY),),
        lambda link, db: isinstance(link, Overruling) and link.overruled_case_id == _id(db, PLESSY),
    ),
    ("first_overruling", lambda db: (_id(db, BROWN),), lambda link, db: link is None),
    (
        "agreement_pairs",
        lambda db: (),
        lambda pairs, db: (
            pairs and all(isinstance(p, AgreementPair) and p.agreement in ("agree", "disagree") for p in pairs)
        ),
    ),
    ("agreement", lambda db: (_id(db, BROWN), _id(db, BROWN)), lambda label, db: label is None),
    ("agreement_labels", lambda db: (), lambda labels, db: {"agree", "disagree"} & set(labels)),
    ("real_names", lambda db: (), lambda names, db: "Plessy v. Ferguson" in names),
    ("real_citation_keys", lambda db: (), lambda keys, db: {BROWN, PLESSY} <= keys),
    (
        "case_names",
        lambda db: ("scotus",),
        lambda names, db: (
            all(isinstance(n, CaseName) for n in names) and any(n.case_id == _id(db, BROWN) for n in names)
        ),
    ),
    (
        "level_citations",
        lambda db: ("scotus",),
        lambda cited, db: all(isinstance(c, CitedCase) for c in cited) and any(c.citation_key == BROWN for c in cited),
    ),
    (
        "volume_entries",
        lambda db: ("U.S.", "347"),
        lambda entries, db: (
            all(isinstance(e, VolumeEntry) for e in entries) and any(e.citation_key == BROWN for e in entries)
        ),
    ),
    (
        "us_reports_entries",
        lambda db: (),
        lambda entries, db: any(e.citation_key == PLESSY and e.case_id == _id(db, PLESSY) for e in entries),
    ),
    (
        "term_cases",
        lambda db: (),
        lambda cases, db: any(isinstance(c, TermCase) and c.term == 1953 and BROWN in c.us_keys for c in cases),
    ),
    ("reporter_count", lambda db: ("U.S.",), lambda count, db: count > 1000),
    ("table_counts", lambda db: (), lambda counts, db: counts["cases"] > 0 and "overrulings" in counts),
    ("coverage", lambda db: (), lambda coverage, db: coverage["scotus"]["cases"] > 0),
    ("build_info", lambda db: (), lambda info, db: info.get("rules_version") is not None),
    (
        "case",
        lambda db: (_id(db, PLESSY),),
        lambda detail, db: isinstance(detail, CaseDetail) and detail.case.citation == PLESSY,
    ),
]


@pytest.mark.parametrize(("method", "arguments", "check"), CASES, ids=[row[0] for row in CASES])
def test_repository_method(
    db: CaseDatabase,
    method: str,
    arguments: Callable[[CaseDatabase], tuple[Any, ...]],
    check: Callable[[Any, CaseDatabase], bool],
) -> None:
    result = getattr(db, method)(*arguments(db))
    assert check(result, db), result if not isinstance(result, list) else result[:3]


@pytest.mark.parametrize(
    "record",
    [
        lambda db: db.get_case(_id(db, BROWN)),
        lambda db: db.first_overruling(_id(db, PLESSY)),
        lambda db: db.agreement_pairs()[0],
        lambda db: db.agreement_pairs()[0].citing,
        lambda db: db.facts(_id(db, BROWN), ("name",))[0],
        lambda db: db.case_names("scotus")[0],
        lambda db: db.level_citations("scotus")[0],
        lambda db: db.us_reports_entries()[0],
        lambda db: db.term_cases()[0],
    ],
)
def test_records_are_frozen(db: CaseDatabase, record: Callable[[CaseDatabase], Any]) -> None:
    value = record(db)
    name = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, name, None)
    assert value.as_dict()[name] == getattr(value, name)


def test_us_volume_coverage_reads_the_repository(db: CaseDatabase) -> None:
    coverage = us_coverage(db)
    brown = coverage[347]
    assert brown.covered and brown.decisions >= MIN_DECISIONS_PER_VOLUME
    assert (483, _id(db, BROWN)) in brown.entries and brown.years is not None and brown.years[0] <= 1954
