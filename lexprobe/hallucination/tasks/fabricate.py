"""Fabricate plausible but non-existent cases for the `fake_existence` task ("Is the case X, CITE (YEAR), real?").

A fabricated case borrows every ingredient from real cases of the court level and checks that the combination is new.

Names: "A v. B", where A is the first party of one real case name and B the second party of a different one, both
from cases of the level decided within about ten years of the fabricated year (the window widens until it holds 200
cases), so the parties fit the era. Party names are cleaned: "et al.", "et ux." and "etc." are dropped, and a party
is kept only when it reads like a clean caption party (mixed case, at most 7 words and 50 characters, no comma,
digit, bracket or quotation mark, not a lone abbreviation like "Wis.", no acronym written in title case like "Fcc",
no "ex rel.", "In re", "Ex parte" or "Petitioner"). A name is rejected when its normalized form
(`normalize_case_name`) is the name of any real case, by any source (`cases`, `facts`, `overrulings`), or when it is
a near-duplicate (rapidfuzz token-sort similarity >= 90, which also catches "B v. A") of a real name, or of an
earlier fabricated one, that shares a party with it. A level with fewer than `MIN_NAMED_CASES` usable real names
(offline: the courts of appeals, whose cases come without names, and the district courts, which have no cases)
borrows Supreme Court party names.

Citations: "VOLUME REPORTER PAGE" in the level's reporter (`LEVEL_REPORTERS`). A real case of the level is drawn and
its volume reused; the page is drawn from the range of first pages the level's real cases have in that volume
(widened to at least `MIN_PAGE_SPAN` pages when the volume holds only a few), and the year is that of the last real
case of the volume starting before the page. Cases more than `CORE_YEAR_SPREAD` years from their volume's median
year (such as the 1852-1882 cases printed in 154 U.S.) never set the year, and a volume whose median year is more
than `MAX_VOLUME_YEAR_ERROR` years off its documented year in `VOLUME_YEARS` is taken for a data error and not used.
The citation key must collide with no real citation (`case_citations`, and the citations in `overrulings`) and no
earlier fabricated one. A level without real volumes in its reporters (offline: the district courts) draws a reporter
and a volume (1-999) uniformly, a page from 1-`FALLBACK_MAX_PAGE`, and reads the year off the documented
volume/year pairs of `VOLUME_YEARS`, interpolated linearly; such a case has no `court_id`.

Everything is drawn from one `random.Random` seeded with the level and the seed, over rows in a fixed order, so the
same database, level, count and seed give the same cases, and a smaller count gives a prefix of a larger one.
The cases are fabricated with respect to this database: a name like "United States v. Adams" may exist in a court or
reporter the database does not hold, but not with the fabricated citation.
"""

from __future__ import annotations

import bisect
import random
import re
import statistics
import weakref
from collections import defaultdict
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from lexprobe.caselaw.case_names import normalize_case_name
from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.errors import BadInputError

#: Reporters a fabricated citation of each level may use.
LEVEL_REPORTERS: dict[str, tuple[str, ...]] = {
    "scotus": ("U.S.",),
    "coa": ("F.2d", "F.3d"),
    "district": ("F. Supp.", "F. Supp. 2d"),
}

#: Documented (volume, year) pairs per reporter, used only when the database holds no real volume of a level's
#: reporters; a volume's year is interpolated linearly between the neighbouring pairs. Each reporter ran volumes
#: 1-999: F.2d 1924-1993, F.3d 1993-2021, F. Supp. 1932-1998, F. Supp. 2d 1998-2014. The inner pairs for F.2d,
#: F.3d and F. Supp. are the median years with which the opinions in the case database cite those volumes (checked
#: against well-known cases: 98 F. Supp. 797 (1951), 314 F. Supp. 1217 (1970), 552 F. Supp. 131 (1982),
#: 907 F. Supp. 1361 (1995), 159 F.2d 169 (1947), 472 F.2d 340 (1972), 977 F.2d 1510 (1992)); those for F. Supp. 2d
#: and the later F.3d come from well-known decisions (87 F. Supp. 2d 30 (2000), 212 F. Supp. 2d 541 (2002),
#: 400 F. Supp. 2d 707 (2005), 586 F. Supp. 2d 1132 (2008), 704 F. Supp. 2d 921 (2010), 833 F. Supp. 2d 394 (2012),
#: 954 F. Supp. 2d 282 (2013); 253 F.3d 34 (2001), 508 F.3d 1146 (2007), 676 F.3d 19 (2012), 804 F.3d 202 (2015),
#: 938 F.3d 985 (2019)).
# fmt: off
VOLUME_YEARS: dict[str, tuple[tuple[int, int], ...]] = {
    "F.2d": (
        (1, 1924), (50, 1931), (100, 1939), (150, 1945), (200, 1953), (250, 1957), (300, 1962), (350, 1965),
        (400, 1968), (450, 1971), (500, 1974), (550, 1977), (600, 1979), (650, 1981), (700, 1983), (750, 1985),
        (800, 1986), (850, 1988), (900, 1990), (950, 1991), (999, 1993),
    ),
    "F.3d": (
        (1, 1993), (50, 1995), (100, 1996), (200, 2000), (253, 2001), (300, 2002), (400, 2005), (508, 2007),
        (600, 2010), (676, 2012), (750, 2014), (804, 2015), (938, 2019), (999, 2021),
    ),
    "F. Supp.": (
        (1, 1932), (50, 1943), (100, 1951), (150, 1957), (200, 1962), (250, 1966), (300, 1969), (350, 1972),
        (400, 1975), (450, 1978), (500, 1980), (550, 1982), (600, 1985), (650, 1986), (700, 1988), (750, 1990),
        (800, 1992), (850, 1994), (900, 1995), (950, 1997), (999, 1998),
    ),
    "F. Supp. 2d": (
        (1, 1998), (87, 2000), (212, 2002), (300, 2004), (400, 2005), (500, 2007), (586, 2008), (704, 2010),
        (833, 2012), (954, 2013), (999, 2014),
    ),
}
# fmt: on

MIN_NAMED_CASES = 50  # fewer usable real names than this at a level: borrow Supreme Court names
MIN_PAGE_SPAN = 100  # a real volume's page range is widened to at least this many pages
FALLBACK_MAX_PAGE = 1000  # pages of a documented (not real) volume are drawn from 1..this
NEAR_DUPLICATE_SCORE = 90  # rapidfuzz token-sort similarity at which a name counts as a real one
YEAR_RADIUS = 10  # parties come from cases decided within this many years (widened as needed) ...
MIN_ERA_CASES = 200  # ... until the window holds this many named cases
MAX_VOLUME_YEAR_ERROR = 3  # a real volume this many years off its documented year (VOLUME_YEARS) is not used
CORE_YEAR_SPREAD = 2  # a real case sets the year only when within this many years of its volume's median year
ATTEMPTS_PER_CASE = 200  # give up (ValueError) after n * this many rejected draws

_KEY_SHAPE = re.compile(r"(\d+) (.+) (\d+)")
_DROPPED = re.compile(r",?\s*\b(?:et al|et ux|et vir|etc)\b\.?", re.IGNORECASE)
_BAD_CHARACTERS = re.compile(r"[0-9()\[\]{};:/\"“”,]")
# An acronym a source wrote in title case ("Fcc", "Nlrb", "Icc", "Ins"): a word without vowels, or a known agency.
_TITLE_CASED_ACRONYM = re.compile(
    r"\b(?:[B-DF-HJ-NP-TV-XZ][b-df-hj-np-tv-xz]{1,4}|Icc|Ins|Sec|Epa|Fdic|Irs|Cia|Fbi|Cftc|Ferc|Kfc|Ups|Usv|Ibs)(?![\w.'])"
)
_BAD_WORDS = re.compile(
    r"\b(?:ex rel|in re|ex parte|petitioners?|respondents?|appellants?|appellees?|unknown|same)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class FabricatedCase:
    """A case that does not exist: a plausible name, citation and year, and the court it pretends to come from."""

    name: str
    citation: str
    year: int
    level: str
    court_id: str | None


@dataclass(frozen=True)
class _RealIndex:
    """What a fabricated case must not match: every real name and citation key, and real names by party."""

    names: frozenset[str]  # normalized
    keys: frozenset[str]
    names_by_party: dict[str, tuple[str, ...]]  # normalized party -> those normalized names, words sorted


@dataclass(frozen=True)
class _NamedCase:
    """A real case usable as a source of parties."""

    year: int
    name: str  # normalized
    first: str
    second: str


@dataclass(frozen=True)
class _NamePool:
    """Named cases of a level, sorted by year."""

    cases: tuple[_NamedCase, ...]
    years: tuple[int, ...]


@dataclass(frozen=True)
class _RealCitation:
    """The citation of a real case of a level, in one of the level's reporters."""

    reporter: str
    volume: int
    page: int
    year: int
    court_id: str | None


@dataclass(frozen=True)
class _Volume:
    """A real volume: the page range to draw from, and the (page, year) of its cases that can set a year."""

    low: int
    high: int
    pages: tuple[int, ...]  # sorted; the cases within CORE_YEAR_SPREAD years of the volume's median year
    years: tuple[int, ...]


@dataclass(frozen=True)
class _LevelSources:
    """Where a level's fabricated cases come from."""

    names: _NamePool
    citations: tuple[_RealCitation, ...]  # empty: documented volumes (VOLUME_YEARS)
    volumes: dict[tuple[str, int], _Volume]


_INDEXES: weakref.WeakKeyDictionary[CaseDatabase, _RealIndex] = weakref.WeakKeyDictionary()
_SOURCES: weakref.WeakKeyDictionary[CaseDatabase, dict[str, _LevelSources]] = weakref.WeakKeyDictionary()


def _split_key(key: str) -> tuple[int, str, int] | None:
    """Return (volume, reporter, page) of a "VOL REPORTER PAGE" citation key, or None for another shape."""
    match = _KEY_SHAPE.fullmatch(key)
    return (int(match.group(1)), match.group(2), int(match.group(3))) if match else None


def _real_index(db: CaseDatabase) -> _RealIndex:
    """Return (building it once per database handle) every real name and citation key of `db`."""
    index = _INDEXES.get(db)
    if index is not None:
        return index
    names = {normalize_case_name(name) for name in db.real_names() if name} - {""}
    by_party: dict[str, set[str]] = defaultdict(set)
    for name in names:
        for party in name.split(" v "):
            by_party[party.strip()].add(name)
    index = _RealIndex(
        names=frozenset(names),
        keys=frozenset(db.real_citation_keys()),
        names_by_party={party: tuple(sorted(map(_sorted_words, found))) for party, found in by_party.items()},
    )
    _INDEXES[db] = index
    return index


def is_real(db: CaseDatabase, name: str, citation: str) -> bool:
    """Return True when `name` (normalized) is the name of a real case, or `citation` has a real citation's key.

    Real means anywhere in `db`: any source's name of any case ("Brown v. Board of Educ." matches "Brown v. Board
    of Education"), any parallel citation in `case_citations`, and the cases named in `overrulings`.
    """
    index = _real_index(db)
    key = citation_key(citation)
    return normalize_case_name(name) in index.names or (key is not None and key in index.keys)


def _clean_party(text: str) -> str | None:
    """Return a caption party cleaned of "et al." and the like, or None when it does not read like a clean party."""
    party = " ".join(_DROPPED.sub("", text).split()).strip(" ,")
    if not party or len(party) > 50 or len(party.split()) > 7 or not party[0].isupper():
        return None
    if _BAD_CHARACTERS.search(party) or _BAD_WORDS.search(party) or _TITLE_CASED_ACRONYM.search(party):
        return None
    if party.lower() in {"the", "a", "an"}:
        return None
    letters = sum(map(str.isalpha, party))
    if letters < 2 or sum(map(str.isupper, party)) > letters / 2:
        return None  # all capitals ("SWEATT", "NLRB"): not as printed in a caption
    if " " not in party and party.endswith("."):
        return None  # a lone abbreviation ("Wis.", "Ark."): a state party is spelled out in a caption
    return party


def _named_case(name: str, year: int) -> _NamedCase | None:
    """Return the two cleaned parties of a real "A v. B" name, or None when it has not exactly two clean parties."""
    parts = name.split(" v. ")
    if len(parts) != 2:
        return None
    first, second = (_clean_party(part) for part in parts)
    if first is None or second is None or normalize_case_name(first) == normalize_case_name(second):
        return None
    return _NamedCase(year=year, name=normalize_case_name(name), first=first, second=second)


def _name_pool(db: CaseDatabase, level: str) -> _NamePool:
    """Return the level's real cases with a clean two-party name, one name per case, sorted by year then id."""
    names: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for row in db.case_names(level):
        names[row.case_id].append((row.year, row.name))
    pool: list[tuple[int, str, _NamedCase]] = []
    for case_id, found in names.items():
        # The shortest clean name of the case (sources differ: "Toll v. Moreno" and "TOLL, PRESIDENT, ... v. ...").
        for year, name in sorted(found, key=lambda item: (len(item[1]), item[1])):
            named = _named_case(name, year)
            if named is not None:
                pool.append((year, case_id, named))
                break
    pool.sort(key=lambda item: (item[0], item[1]))
    return _NamePool(cases=tuple(item[2] for item in pool), years=tuple(item[0] for item in pool))


def _real_citations(db: CaseDatabase, level: str) -> tuple[_RealCitation, ...]:
    """Return the citations of the level's real cases in the level's reporters, sorted by case id and key."""
    found = []
    for row in db.level_citations(level):
        parts = _split_key(row.citation_key)
        if parts and parts[1] in LEVEL_REPORTERS[level]:
            found.append(_RealCitation(parts[1], parts[0], parts[2], row.year, row.court_id))
    return tuple(found)


def _interpolated_year(reporter: str, volume: int) -> int:
    """Return the year of a volume of `reporter`, interpolated between the documented pairs of `VOLUME_YEARS`."""
    anchors = VOLUME_YEARS[reporter]
    at = bisect.bisect_left([v for v, _ in anchors], volume)
    if at == 0:
        return anchors[0][1]
    if at == len(anchors):
        return anchors[-1][1]
    (v0, y0), (v1, y1) = anchors[at - 1], anchors[at]
    return round(y0 + (y1 - y0) * (volume - v0) / (v1 - v0))


def _volumes(citations: tuple[_RealCitation, ...]) -> dict[tuple[str, int], _Volume]:
    """Return, per real volume, the page range to draw from and the cases that can set a fabricated case's year."""
    grouped: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
    for cite in citations:
        grouped[(cite.reporter, cite.volume)].append((cite.page, cite.year))
    volumes = {}
    for volume, cases in grouped.items():
        median = statistics.median_low(year for _, year in cases)
        reporter, number = volume
        if reporter in VOLUME_YEARS and abs(median - _interpolated_year(reporter, number)) > MAX_VOLUME_YEAR_ERROR:
            continue  # a data error, such as a 1997 case cited to 404 F.3d (a 2005 volume)
        core = sorted((page, year) for page, year in cases if abs(year - median) <= CORE_YEAR_SPREAD)
        low, high = min(page for page, _ in cases), max(page for page, _ in cases)
        if high - low < MIN_PAGE_SPAN:
            low = max(1, (low + high) // 2 - MIN_PAGE_SPAN // 2)
            high = low + MIN_PAGE_SPAN
        volumes[volume] = _Volume(low, high, tuple(page for page, _ in core), tuple(year for _, year in core))
    return volumes


def _level_sources(db: CaseDatabase, level: str) -> _LevelSources:
    """Return (building them once per database handle) the names and volumes a level's fabrications draw on."""
    cached = _SOURCES.setdefault(db, {})
    if level not in cached:
        names = _name_pool(db, level)
        if len(names.cases) < MIN_NAMED_CASES and level != "scotus":
            names = _level_sources(db, "scotus").names
        if len(names.cases) < 2:
            raise BadInputError(f"the case database has too few case names to fabricate {level} cases from")
        real = _real_citations(db, level)
        volumes = _volumes(real)
        citations = tuple(cite for cite in real if (cite.reporter, cite.volume) in volumes)
        if not citations and not all(reporter in VOLUME_YEARS for reporter in LEVEL_REPORTERS[level]):
            raise BadInputError(f"the case database has no {level} volumes and no documented ones exist")
        cached[level] = _LevelSources(names=names, citations=citations, volumes=volumes)
    return cached[level]


def _draw_citation(rng: random.Random, sources: _LevelSources, level: str) -> tuple[str, int, int, int, str | None]:
    """Return a candidate (reporter, volume, page, year, court_id), not yet checked against real citations."""
    if not sources.citations:
        reporter = rng.choice(LEVEL_REPORTERS[level])
        volume = rng.randint(1, VOLUME_YEARS[reporter][-1][0])
        return reporter, volume, rng.randint(1, FALLBACK_MAX_PAGE), _interpolated_year(reporter, volume), None
    real = rng.choice(sources.citations)
    info = sources.volumes[(real.reporter, real.volume)]
    page = rng.randint(info.low, info.high)
    before = bisect.bisect_right(info.pages, page) - 1
    year = info.years[max(before, 0)]  # the last real case starting before the page, else the volume's first
    return real.reporter, real.volume, page, year, real.court_id


def _draw_name(rng: random.Random, pool: _NamePool, year: int) -> str | None:
    """Return "A v. B" from two different real cases decided near `year`, or None when the draw is unusable."""
    radius = YEAR_RADIUS
    while True:
        start = bisect.bisect_left(pool.years, year - radius)
        end = bisect.bisect_right(pool.years, year + radius)
        if end - start >= MIN_ERA_CASES or (start == 0 and end == len(pool.years)):
            break
        radius *= 2
    if end - start < 2:
        start, end = 0, len(pool.years)
    a, b = rng.randrange(start, end), rng.randrange(start, end)
    first, second = pool.cases[a], pool.cases[b]
    if first.name == second.name or normalize_case_name(first.first) == normalize_case_name(second.second):
        return None
    return f"{first.first} v. {second.second}"


def _sorted_words(name: str) -> str:
    """Return `name` with its words sorted: `fuzz.ratio` of two such strings is `fuzz.token_sort_ratio` of the
    names, with each name's words sorted once instead of at every comparison."""
    return " ".join(sorted(name.split()))


def _near_duplicate(name: str, index: _RealIndex, fabricated: dict[str, list[str]]) -> bool:
    """Return True when normalized `name` is close (`fuzz.token_sort_ratio`) to a real or already fabricated name
    sharing one of its parties (`fabricated` holds names with their words sorted, as `_sorted_words` writes them)."""
    query = _sorted_words(name)
    for party in name.split(" v "):
        for choices in (index.names_by_party.get(party), fabricated.get(party)):
            if choices and process.extractOne(query, choices, scorer=fuzz.ratio, score_cutoff=NEAR_DUPLICATE_SCORE):
                return True
    return False


def fabricate_cases(db: CaseDatabase, level: str, n: int, seed: int) -> list[FabricatedCase]:
    """Return `n` distinct cases of court `level` that do not exist in `db` but look like they could.

    Names combine parties of different real cases of the level and era; citations reuse a real volume of the
    level's reporter with an unused page, and the year of the real cases around that page (see the module
    docstring for the rules and the fallbacks for levels without names or volumes). Deterministic for
    (db, level, n, seed). Raises ValueError for an unknown level, a negative `n`, or a database too small to
    fabricate `n` cases from.
    """
    if level not in LEVEL_REPORTERS:
        raise ValueError(f"unknown court level {level!r}: expected one of {', '.join(LEVEL_REPORTERS)}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    index = _real_index(db)
    sources = _level_sources(db, level)
    rng = random.Random(f"lexprobe.fabricate:{level}:{seed}")
    cases: list[FabricatedCase] = []
    names: set[str] = set()
    keys: set[str] = set()
    by_party: dict[str, list[str]] = defaultdict(list)
    for _ in range(n * ATTEMPTS_PER_CASE):
        if len(cases) == n:
            break
        reporter, volume, page, year, court_id = _draw_citation(rng, sources, level)
        citation = f"{volume} {reporter} {page}"
        key = citation_key(citation)
        if key is None or key in index.keys or key in keys:
            continue
        name = _draw_name(rng, sources.names, year)
        normalized = normalize_case_name(name) if name else ""
        if not name or normalized in index.names or normalized in names:
            continue
        if _near_duplicate(normalized, index, by_party):
            continue
        cases.append(FabricatedCase(name=name, citation=citation, year=year, level=level, court_id=court_id))
        names.add(normalized)
        keys.add(key)
        for party in normalized.split(" v "):
            by_party[party].append(_sorted_words(normalized))
    if len(cases) < n:
        raise BadInputError(f"could fabricate only {len(cases)} of {n} {level} cases from this database")
    return cases
