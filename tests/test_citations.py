"""Citation parsing, normalization and comparison (lexprobe.caselaw.citations)."""

from __future__ import annotations

import dataclasses
import random

import pytest
from reporters_db import REPORTERS

from lexprobe.caselaw import citations
from lexprobe.caselaw.citations import (
    US_NOMINATIVE_VOLUMES,
    Citation,
    citation_key,
    citations_equal,
    parse_citation,
    parse_citations,
)

# ------------------------------------------------------------------------------------------------ parse_citation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Brown v. Board of Education: the official cite in every common spelling, and its parallels
        ("347 U.S. 483", "347 U.S. 483"),
        ("347 US 483", "347 U.S. 483"),
        ("347 U. S. 483", "347 U.S. 483"),
        ("347 U.S. 483 (1954)", "347 U.S. 483"),
        ("  347 U.S. 483  ", "347 U.S. 483"),
        ("Brown v. Board of Education, 347 U.S. 483, 495 (1954)", "347 U.S. 483"),
        ("74 S. Ct. 686", "74 S. Ct. 686"),
        ("74 S.Ct. 686", "74 S. Ct. 686"),
        ("98 L. Ed. 873", "98 L. Ed. 873"),
        ("98 L.Ed. 873", "98 L. Ed. 873"),
        # Miranda v. Arizona, Roe v. Wade, Plessy v. Ferguson, Gideon v. Wainwright, Obergefell v. Hodges
        ("384 U.S. 436", "384 U.S. 436"),
        ("86 S. Ct. 1602", "86 S. Ct. 1602"),
        ("16 L. Ed. 2d 694", "16 L. Ed. 2d 694"),
        ("16 L.Ed.2d 694", "16 L. Ed. 2d 694"),
        ("Roe v. Wade, 410 U.S. 113 (1973)", "410 U.S. 113"),
        ("93 S.Ct. 705", "93 S. Ct. 705"),
        ("35 L. Ed. 2d 147", "35 L. Ed. 2d 147"),
        ("Plessy v. Ferguson, 163 U.S. 537 (1896)", "163 U.S. 537"),
        ("372 US 335", "372 U.S. 335"),
        ("576 U.S. 644 (2015)", "576 U.S. 644"),
        # Marbury v. Madison: official cite with nominative, the nominative alone, the U.S. cite alone
        ("5 U.S. (1 Cranch) 137", "5 U.S. 137"),
        ("5 U. S. (1 Cranch) 137", "5 U.S. 137"),
        ("5 US (1 Cranch) 137", "5 U.S. 137"),
        ("Marbury v. Madison, 5 U.S. (1 Cranch) 137, 177 (1803)", "5 U.S. 137"),
        ("1 Cranch 137", "5 U.S. 137"),
        ("Marbury v. Madison, 1 Cranch 137 (1803)", "5 U.S. 137"),
        ("5 U.S. 137", "5 U.S. 137"),
        # Texas v. White (Wallace), Dred Scott (Howard), McCulloch and Gibbons (Wheaton), Chisholm (Dallas),
        # Swift v. Tyson (Peters), the Prize Cases (Black), Reynolds v. United States (Otto)
        ("74 U.S. 700", "74 U.S. 700"),
        ("7 Wall. 700", "74 U.S. 700"),
        ("74 U.S. (7 Wall.) 700", "74 U.S. 700"),
        ("60 U.S. (19 How.) 393", "60 U.S. 393"),
        ("19 How. 393", "60 U.S. 393"),
        ("19 How. 393 (1857)", "60 U.S. 393"),
        ("17 U.S. (4 Wheat.) 316", "17 U.S. 316"),
        ("4 Wheat. 316", "17 U.S. 316"),
        ("22 U.S. (9 Wheat.) 1", "22 U.S. 1"),
        ("9 Wheat. 1", "22 U.S. 1"),
        ("2 U.S. (2 Dall.) 419", "2 U.S. 419"),
        ("2 Dall. 419", "2 U.S. 419"),
        ("41 U.S. (16 Pet.) 1", "41 U.S. 1"),
        ("16 Pet. 1", "41 U.S. 1"),
        ("67 U.S. (2 Black) 635", "67 U.S. 635"),
        ("2 Black 635", "67 U.S. 635"),
        ("71 U.S. (4 Wall.) 2", "71 U.S. 2"),
        ("8 Otto 145", "98 U.S. 145"),
        # The nominative part never wins, even when it disagrees with the U.S. volume
        ("5 U.S. (2 Cranch) 137", "5 U.S. 137"),
        # Not the Supreme Court's reporters, or out of range: kept as their own reporter
        ("1 Cranch C.C. 137", "1 Cranch 137"),
        ("10 Cranch 137", "10 Cranch 137"),
        ("1 Cranch 137 (1830)", "1 Cranch 137"),  # Cranch's Supreme Court reports end in 1815; D.C.'s run to 1841
        ("24 Wall. 1", "24 Wall. 1"),
        # Federal Reporter and Federal Supplement, all series
        ("United States v. Carroll Towing Co., 159 F.2d 169 (2d Cir. 1947)", "159 F.2d 169"),
        ("159 F. 2d 169", "159 F.2d 169"),
        ("The T.J. Hooper, 60 F.2d 737 (2d Cir. 1932)", "60 F.2d 737"),
        ("A&M Records, Inc. v. Napster, Inc., 239 F.3d 1004 (9th Cir. 2001)", "239 F.3d 1004"),
        ("239 F. 3d 1004", "239 F.3d 1004"),
        ("Apple Computer, Inc. v. Microsoft Corp., 35 F.3d 1435 (9th Cir. 1994)", "35 F.3d 1435"),
        ("NetChoice, L.L.C. v. Paxton, 49 F.4th 439 (5th Cir. 2022)", "49 F.4th 439"),
        ("173 F. 177", "173 F. 177"),
        ("Lotus Dev. Corp. v. Paperback Software Int'l, 740 F. Supp. 37 (D. Mass. 1990)", "740 F. Supp. 37"),
        ("740 F.Supp. 37", "740 F. Supp. 37"),
        ("Playboy Enters. v. Frena, 839 F. Supp. 1552 (M.D. Fla. 1993)", "839 F. Supp. 1552"),
        ("ACLU v. Reno, 929 F. Supp. 824 (E.D. Pa. 1996)", "929 F. Supp. 824"),
        ("Perfect 10 v. Google, Inc., 416 F. Supp. 2d 828 (C.D. Cal. 2006)", "416 F. Supp. 2d 828"),
        ("416 F.Supp.2d 828", "416 F. Supp. 2d 828"),
        ("416 F. Supp.2d 828", "416 F. Supp. 2d 828"),
        ("Authors Guild, Inc. v. Google Inc., 954 F. Supp. 2d 282 (S.D.N.Y. 2013)", "954 F. Supp. 2d 282"),
        # State and regional reporters go through the same machinery
        ("People v. Thompson, 939 N.E.2d 403 (2010)", "939 N.E.2d 403"),
        ("Palsgraf v. Long Island R. Co., 248 N.Y. 339 (1928)", "248 N.Y. 339"),
        # A defendant that is also a nominative reporter's name does not hijack the citation
        ("Connick v. Thompson, 563 U.S. 51 (2011)", "563 U.S. 51"),
        ("Calderon v. Thompson, 523 U.S. 538", "523 U.S. 538"),
        # Not full case citations
        ("", None),
        ("   ", None),
        ("no citation here", None),
        ("576 U.S. ___ (2015)", None),
        ("410 U.S., at 160", None),
        ("Id. at 5", None),
        ("42 U.S.C. § 1983", None),
    ],
)
def test_citation_key(text: str, expected: str | None) -> None:
    assert citation_key(text) == expected
    parsed = parse_citation(text)
    assert (parsed.key if parsed else None) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("347 U.S. 483", Citation("347", "U.S.", "483")),
        ("347 U. S. 483 (1954)", Citation("347", "U.S.", "483")),
        ("5 U.S. (1 Cranch) 137", Citation("5", "U.S.", "137")),
        ("1 Cranch 137", Citation("5", "U.S.", "137")),
        ("7 Wall. 700", Citation("74", "U.S.", "700")),
        ("16 L.Ed.2d 694", Citation("16", "L. Ed. 2d", "694")),
        ("124 F.3d 243", Citation("124", "F.3d", "243")),
        ("100 F.Supp.2d 50", Citation("100", "F. Supp. 2d", "50")),
        ("no citation", None),
    ],
)
def test_parse_citation(text: str, expected: Citation | None) -> None:
    assert parse_citation(text) == expected


def test_citation_value_object() -> None:
    cite = Citation("347", "U.S.", "483")
    assert cite.key == "347 U.S. 483"
    assert str(cite) == "347 U.S. 483"
    assert cite == Citation("347", "U.S.", "483")
    assert len({cite, Citation("347", "U.S.", "483")}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        cite.page = "484"  # type: ignore[misc]


# ------------------------------------------------------------------------------------------------ citations_equal


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("347 U.S. 483", "347 US 483", True),
        ("347 U.S. 483", "347 U. S. 483 (1954)", True),
        ("347 U.S. 483", "Brown v. Board of Education, 347 U.S. 483", True),
        ("5 U.S. (1 Cranch) 137", "5 U.S. 137", True),  # eyecite issue #154
        ("5 U.S. (1 Cranch) 137", "1 Cranch 137", True),
        ("1 Cranch 137", "5 U.S. 137", True),
        ("74 U.S. 700", "7 Wall. 700", True),
        ("74 U.S. (7 Wall.) 700", "7 Wall. 700", True),
        ("60 U.S. 393", "19 How. 393", True),
        ("17 U.S. 316", "4 Wheat. 316", True),
        ("74 S.Ct. 686", "74 S. Ct. 686", True),
        ("16 L. Ed. 2d 694", "16 L.Ed.2d 694", True),
        ("159 F.2d 169", "159 F. 2d 169", True),
        ("740 F. Supp. 37", "740 F.Supp. 37", True),
        # different page
        ("347 U.S. 483", "347 U.S. 484", False),
        ("5 U.S. 137", "5 U.S. 138", False),
        ("1 Cranch 137", "1 Cranch 138", False),
        # different volume
        ("347 U.S. 483", "348 U.S. 483", False),
        ("1 Cranch 137", "2 Cranch 137", False),
        ("7 Wall. 700", "7 U.S. 700", False),  # 7 Wall. is 74 U.S., not 7 U.S.
        # different reporter
        ("347 U.S. 483", "347 S. Ct. 483", False),
        ("347 U.S. 483", "74 S. Ct. 686", False),  # parallel citations are different citations
        ("98 L. Ed. 873", "98 L. Ed. 2d 873", False),
        ("159 F.2d 169", "159 F.3d 169", False),
        ("159 F.2d 169", "159 F. 169", False),
        ("740 F. Supp. 37", "740 F. Supp. 2d 37", False),
        ("1 Cranch 137", "1 Cranch C.C. 137", False),  # the Supreme Court's Cranch is not the D.C. Circuit Court's
        # no citation on one or both sides
        ("347 U.S. 483", "Brown v. Board of Education", False),
        ("no citation", "no citation", False),
        ("", "", False),
    ],
)
def test_citations_equal(a: str, b: str, expected: bool) -> None:
    assert citations_equal(a, b) is expected
    assert citations_equal(b, a) is expected


# -------------------------------------------------------------------------------------------------- parse_citations


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Brown v. Board of Education, 347 U.S. 483, 74 S. Ct. 686, 98 L. Ed. 873 (1954)",
            ["347 U.S. 483", "74 S. Ct. 686", "98 L. Ed. 873"],
        ),
        ("Marbury v. Madison, 5 U.S. (1 Cranch) 137 (1803)", ["5 U.S. 137"]),
        ("See Marbury, 1 Cranch 137; see also Marbury v. Madison, 5 U.S. 137.", ["5 U.S. 137"]),
        (
            "Miranda v. Arizona, 384 U.S. 436 (1966), overruled in part? No: see Dickerson v. United States, "
            "530 U.S. 428 (2000). Miranda, 384 U.S. at 444; id. at 445.",
            ["384 U.S. 436", "530 U.S. 428"],
        ),
        (
            "We have long held as much. Roe v. Wade, 410 U.S. 113, 153 (1973); Planned Parenthood of Southeastern "
            "Pa. v. Casey, 505 U.S. 833 (1992). But see 410 U.S., at 160. Roe, supra. Again: 410 U.S. 113.",
            ["410 U.S. 113", "505 U.S. 833"],
        ),
        (
            "Texas v. White, 74 U.S. (7 Wall.) 700 (1869); cf. 7 Wall. 700; Plessy v. Ferguson, 163 U.S. 537.",
            ["74 U.S. 700", "163 U.S. 537"],
        ),
        (
            "The district court relied on Perfect 10 v. Google, Inc., 416 F.Supp.2d 828 (C.D. Cal. 2006), aff'd in "
            "part, rev'd in part, 487 F.3d 701 (9th Cir. 2007), and on A&M Records, 239 F.3d 1004.",
            ["416 F. Supp. 2d 828", "487 F.3d 701", "239 F.3d 1004"],
        ),
        ("347 U.S. 483", ["347 U.S. 483"]),
        ("7 Wall. 700", ["74 U.S. 700"]),
        ("Id. at 5. See 42 U.S.C. § 1983.", []),
        ("", []),
    ],
)
def test_parse_citations(text: str, expected: list[str]) -> None:
    assert [cite.key for cite in parse_citations(text)] == expected


def test_nested_citation_is_dropped() -> None:
    """Guard for eyecite issue #154: a citation inside another's span (the nominative half) is not a second cite."""

    class Span:
        def __init__(self, start: int, end: int) -> None:
            self._span = (start, end)

        def span(self) -> tuple[int, int]:
            return self._span

    outer, nominative, later = Span(0, 21), Span(7, 16), Span(30, 42)
    assert citations._outermost([outer, nominative, later]) == [outer, later]


# ------------------------------------------------------------------------------------------------ nominative table


@pytest.mark.parametrize(
    ("reporter", "last_us_volume"),
    [
        ("Dall.", 4),
        ("Cranch", 13),
        ("Wheat.", 25),
        ("Pet.", 41),
        ("How.", 65),
        ("Black", 67),
        ("Wall.", 90),
        ("Otto", 107),
    ],
)
def test_nominative_volumes_are_contiguous(reporter: str, last_us_volume: int) -> None:
    span = US_NOMINATIVE_VOLUMES[reporter]
    assert span.first_us_volume + span.volumes - 1 == last_us_volume
    assert citation_key(f"{span.volumes} {reporter} 1") == f"{last_us_volume} U.S. 1"
    assert citation_key(f"1 {reporter} 1") == f"{span.first_us_volume} U.S. 1"
    assert reporter in REPORTERS  # the table only names reporters reporters-db knows


# ------------------------------------------------------------------------------------------------ fast path


def _all_reporter_spellings() -> list[str]:
    spellings = set()
    for clusters in REPORTERS.values():
        for reporter in clusters:
            spellings.update(reporter["editions"])
            spellings.update(reporter.get("variations", {}))
    return sorted(spellings)


def test_fast_path_agrees_with_eyecite_for_every_reporters_db_spelling() -> None:
    checked = 0
    for spelling in _all_reporter_spellings():
        for text in (f"12 {spelling} 345", f"12 {spelling} 345 (1990)"):
            fast = citations._fast_parse(text)
            if fast is None:
                continue
            slow = citations._eyecite_parse_all(text)
            assert [fast] == slow[:1], text
            checked += 1
    assert checked > 2000


def test_citation_key_on_many_bare_citations() -> None:
    """The builder calls citation_key ~100k times on bare citations (throughput is measured in bench/caselaw.py)."""
    rng = random.Random(7)
    reporters = ["U.S.", "US", "U. S.", "S. Ct.", "S.Ct.", "L. Ed.", "L. Ed. 2d", "F.2d", "F.3d", "F. Supp. 2d"]
    texts = list({f"{rng.randint(1, 999)} {rng.choice(reporters)} {rng.randint(1, 1500)}" for _ in range(25_000)})
    citation_key("347 U.S. 483")  # build the reporter table outside the timing
    citation_key.cache_clear()
    keys = [citation_key(text) for text in texts]
    assert all(keys)
