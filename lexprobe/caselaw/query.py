"""Read the case database: look cases up by citation or name, describe one case, summarize coverage.

This is the only module that writes SQL against the case schema (`schema.SCHEMA`; `build.py` writes the file,
`sampling.py` draws the stratified samples): the SQL conditions of coverage, court levels and facts, the read-only
opening that refuses a damaged file, one that is not a case database (`REQUIRED_TABLES`) or one built under other
truth rules (`StaleCaseDatabase`, exit 2: rebuild), and `CaseDatabase`. Readers get frozen records (`stored.Case`,
`stored.Overruling`, ...) and use them by attribute; `CaseDatabase.case` gathers them into the `stored.CaseDetail`
`lexprobe data case` prints.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.opinion_index import INDEX_TABLES
from lexprobe.caselaw.schema import RULES_VERSION
from lexprobe.caselaw.stored import (
    AgreementPair,
    Case,
    CaseDetail,
    CaseName,
    CaseRef,
    CitedCase,
    Conflict,
    Fact,
    OpinionSummary,
    OverruledDecision,
    Overruling,
    OverrulingDecision,
    SampleRow,
    SourcedCitation,
    SourcedValue,
    TermCase,
    VolumeEntry,
)
from lexprobe.errors import BadInputError, StoreError

__all__ = ["CaseDatabase", "case_database_is_current", "open_case_database"]

#: A record type `CaseDatabase._rows` builds from query rows.
R = TypeVar("R")

LEVELS = ("scotus", "coa", "district")

#: Coverage columns of `lexprobe data info`: label -> SQL condition on `cases`.
COVERAGE = {
    "name": "name IS NOT NULL AND name != ''",
    "citation": "citation IS NOT NULL",
    "author": "author IS NOT NULL",
    "disposition": "disposition IS NOT NULL",
    "opinion_text": "majority_opinion_id IS NOT NULL",
    "overruling": "overruled_year IS NOT NULL",
    "prominence": "prominence IS NOT NULL",
}


#: The cases each court level samples from (rules in `sampling.py`): level -> (SQL condition on `cases`, stratum).
LEVEL_FILTERS: dict[str, tuple[str, str]] = {
    "scotus": (
        "name IS NOT NULL AND name != '' AND citation LIKE '% U.S. %' AND year IS NOT NULL",
        "CAST(year AS TEXT)",
    ),
    "coa": (
        "(citation LIKE '% F. %' OR citation LIKE '% F.2d %' OR citation LIKE '% F.3d %' OR citation LIKE '% F.4th %')"
        " AND court_id IS NOT NULL AND year IS NOT NULL",
        "court_id || '-' || year",
    ),
    "district": (
        "citation LIKE '% F. Supp.%' AND state IS NOT NULL AND year IS NOT NULL",
        "state || '-' || year",
    ),
}

#: The SQL condition on `cases` that holds when a case has each fact of `sampling.CASE_FACTS`.
FACT_CONDITIONS: dict[str, str] = {
    "name": "(name IS NOT NULL AND name != '' AND citation IS NOT NULL AND citation != '' AND year IS NOT NULL)",
    "court": "(court_id IS NOT NULL AND court_id != '')",
    "author": "(author IS NOT NULL AND author != '')",
    "disposition": "(disposition IS NOT NULL AND disposition != '')",
    "opinion_text": "(majority_opinion_id IS NOT NULL AND majority_opinion_id != ''"
    " AND EXISTS (SELECT 1 FROM opinions o WHERE o.opinion_id = cases.majority_opinion_id AND o.text != ''))",
    "never_overruled": "(overruled_year IS NULL AND NOT EXISTS (SELECT 1 FROM overrulings v"
    " WHERE v.overruled_case_id = cases.case_id))",
}


class CaseDatabaseMissing(FileNotFoundError):
    """No case database where one was expected."""


#: Tables every built case database has; a file without them is not one.
REQUIRED_TABLES = ("cases", "case_citations", "facts")
_REBUILD = "rebuild it with `lexprobe data build` or pass another --db"


def open_read_only(path: Path) -> sqlite3.Connection:
    """Open a built case database read-only; raises `StoreError` naming the file when it is damaged, truncated or
    not a case database at all."""
    from lexprobe.engine.sqlite_util import check_sqlite_header, store_error  # the SQLite error model, not the engine

    check_sqlite_header(path, hint=_REBUILD)
    try:
        conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise store_error(path, exc, _REBUILD) from None
    missing = [table for table in REQUIRED_TABLES if table not in tables]
    if missing:
        conn.close()
        raise StoreError(f"{path} is not a lexprobe case database (no table {', '.join(missing)}); {_REBUILD}")
    version = _rules_version(conn)
    if version != RULES_VERSION:
        conn.close()
        raise StaleCaseDatabase(
            f"{path} was built under older truth rules (version {version}, now {RULES_VERSION}: overruling years "
            f"are the overruling decision's calendar year, cases keep their opinions' parallel citations, and the "
            f"official citation is matched by exact reporter, never a LEXIS or WL one, and combined opinion texts are "
            f"split into their opinions and every opinion's words indexed for `lexprobe check`); "
            f"{_REBUILD}"
        )
    return conn


def _rules_version(conn: sqlite3.Connection) -> int:
    try:
        row = conn.execute("SELECT value FROM build_info WHERE key = 'rules_version'").fetchone()
    except sqlite3.Error:
        return 1
    return int(row[0]) if row and str(row[0]).isdigit() else 1


class StaleCaseDatabase(StoreError):
    """A case database built by an older lexprobe whose truths differ from today's rules (exit 2: rebuild it)."""


def open_case_database(path: Path | None = None) -> CaseDatabase:
    """Open the case database at `path` (None: the default, `paths.default_db_path()`); a missing one is a
    `BadInputError` naming the fix (what `--db` of every command and the service open)."""
    from lexprobe.caselaw.paths import default_db_path

    try:
        return CaseDatabase(path or default_db_path())
    except CaseDatabaseMissing as exc:
        raise BadInputError(str(exc)) from None


def case_database_is_current(path: Path) -> bool:
    """Return whether `path` holds a case database built under today's truth rules (False when missing, damaged
    or stale), so callers that build on demand (the demo) know to rebuild."""
    try:
        CaseDatabase(path).close()
    except (CaseDatabaseMissing, StoreError):
        return False
    return True


class CaseDatabase:
    """A read-only handle on a built case database."""

    def __init__(self, path: Path) -> None:
        if not Path(path).is_file():
            raise CaseDatabaseMissing(f"no case database at {path}: run `lexprobe data build` first")
        self.path = Path(path)
        self.conn = open_read_only(self.path)
        self.conn.row_factory = sqlite3.Row
        self._names: list[tuple[str, str, float]] | None = None
        self._strata: dict[tuple, dict[str, int]] = {}  # (level, years, require) -> `stratum_sizes`

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def table_counts(self) -> dict[str, int]:
        """Return the row count of every table (not of the opinions' word index, `opinion_index.INDEX_TABLES`)."""
        names = self.conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        tables = [r[0] for r in names if not r[0].startswith(INDEX_TABLES)]
        return {t: self.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}

    def coverage(self) -> dict[str, dict[str, int]]:
        """Return, per court level, how many cases there are and how many have each kind of fact."""
        sql = f"SELECT COUNT(*), {', '.join(f'SUM({condition})' for condition in COVERAGE.values())} FROM cases"
        out: dict[str, dict[str, int]] = {}
        for level in LEVELS:
            total, *counts = self.conn.execute(f"{sql} WHERE level = ?", (level,)).fetchone()
            out[level] = {"cases": total} | {label: count or 0 for label, count in zip(COVERAGE, counts, strict=True)}
        return out

    def level_counts(self) -> dict[str, int]:
        """Return how many cases each court level holds: scotus, coa, district, 'other' (a known court of no
        federal level: a state court) and 'unknown' (no court); the counts sum to every case."""
        sql = (
            "SELECT CASE WHEN level IS NOT NULL THEN level WHEN court_id IS NOT NULL AND court_id != '' THEN 'other'"
            " ELSE 'unknown' END AS bucket, COUNT(*) FROM cases GROUP BY bucket"
        )
        found = dict(self._tuples(sql, []))
        return {bucket: found.get(bucket, 0) for bucket in (*LEVELS, "other", "unknown")} | found

    def source_counts(self) -> dict[str, int]:
        """Return how many cases each source describes (a case several sources describe counts for each)."""
        counts: dict[str, int] = {}
        for sources, count in self._tuples("SELECT sources, COUNT(*) FROM cases GROUP BY sources", []):
            for source in str(sources).split(","):
                if source:
                    counts[source] = counts.get(source, 0) + count
        return dict(sorted(counts.items(), key=lambda item: -item[1]))

    def build_info(self) -> dict[str, str]:
        """Return the build's recorded facts (time, rows read, issues, conflicts)."""
        return {r["key"]: r["value"] for r in self.conn.execute("SELECT key, value FROM build_info")}

    def find_by_citation(self, text: str) -> list[str]:
        """Return the ids of cases with this citation (any parallel citation), or an empty list."""
        key = citation_key(text)
        return self.case_ids_by_key(key) if key is not None else []

    def case_ids_by_key(self, key: str) -> list[str]:
        """Return the ids of cases with this normalized citation key ("347 U.S. 483"), or an empty list."""
        rows = self.conn.execute("SELECT DISTINCT case_id FROM case_citations WHERE citation_key = ?", (key,))
        return [r[0] for r in rows]

    def find_by_name(self, name: str, limit: int = 5) -> list[str]:
        """Return ids of cases named like `name` by any source, most prominent first among the closest matches.

        Every name any source gives a case is normalized (`case_names.normalize_case_name`: "et al." dropped,
        "Educ." read as "Education") and compared with rapidfuzz (token-sort similarity >= 80); matches within 10
        points of the best count as equally close, so "Brown v. Board of Education" finds the 1954 decision before
        the 1952 order of the same name.
        """
        from rapidfuzz import fuzz, process  # imported here: opening the database and sampling need neither

        from lexprobe.caselaw.case_names import normalize_case_name

        if self._names is None:
            rows = self.conn.execute(
                "SELECT DISTINCT f.case_id, f.value, COALESCE(c.prominence, 0) FROM facts f"
                " JOIN cases c ON c.case_id = f.case_id WHERE f.field = 'name'"
            )
            self._names = [(case_id, normalize_case_name(value), prominence) for case_id, value, prominence in rows]
        choices = [case_name for _, case_name, _ in self._names]
        query = normalize_case_name(name)
        found = process.extract(query, choices, scorer=fuzz.token_sort_ratio, limit=100, score_cutoff=80)
        best_score: dict[str, float] = {}
        for _, score, index in found:
            case_id = self._names[index][0]
            best_score[case_id] = max(score, best_score.get(case_id, 0.0))
        if not best_score:
            return []
        top = max(best_score.values())
        prominence = {self._names[index][0]: self._names[index][2] for _, _, index in found}
        close = sorted((c for c, score in best_score.items() if score >= top - 10), key=lambda c: -prominence[c])
        return close[:limit]

    def find(self, citation_or_name: str) -> list[str]:
        """Return case ids for a citation, else for a name."""
        return self.find_by_citation(citation_or_name) or self.find_by_name(citation_or_name)

    def _rows(self, record: type[R], sql: str, *params: object) -> tuple[R, ...]:
        """Return the rows of a query as records of `record` (its fields are the query's columns)."""
        return tuple(record(**dict(row)) for row in self.conn.execute(sql, params))

    def case(self, case_id: str) -> CaseDetail | None:
        """Return everything known about one case, with the source of each fact, or None."""
        case = self.get_case(case_id)
        if case is None:
            return None
        facts: dict[str, list[SourcedValue]] = {}
        for fact in self.conn.execute("SELECT field, value, source FROM facts WHERE case_id = ?", (case_id,)):
            entries = facts.setdefault(fact["field"], [])
            entry = SourcedValue(value=fact["value"], source=fact["source"])
            if entry not in entries:
                entries.append(entry)
        (cites, cited_by) = (
            self.conn.execute("SELECT COUNT(*) FROM citation_edges WHERE citing_case_id = ?", (case_id,)).fetchone()[0],
            self.conn.execute("SELECT COUNT(*) FROM citation_edges WHERE cited_case_id = ?", (case_id,)).fetchone()[0],
        )
        return CaseDetail(
            case=case,
            citations=self._rows(
                SourcedCitation,
                "SELECT citation, source FROM case_citations WHERE case_id = ? ORDER BY citation",
                case_id,
            ),
            facts={field: tuple(entries) for field, entries in facts.items()},
            overruled_by=self._rows(
                OverrulingDecision,
                "SELECT overruling_name, overruling_citation, overruling_docket, overruling_year, overruling_case_id,"
                " in_part, note, source FROM overrulings WHERE overruled_case_id = ? ORDER BY overruling_year",
                case_id,
            ),
            overrules=self._rows(
                OverruledDecision,
                "SELECT overruled_name, overruled_citation, overruled_case_id, in_part, source FROM overrulings"
                " WHERE overruling_case_id = ?",
                case_id,
            ),
            opinions=self._rows(
                OpinionSummary,
                "SELECT opinion_id, opinion_type, is_majority, author, length(text) AS characters FROM opinions"
                " WHERE case_id = ?",
                case_id,
            ),
            conflicts=self._rows(
                Conflict, "SELECT field, value_a, source_a, value_b, source_b FROM conflicts WHERE case_id = ?", case_id
            ),
            cites=cites,
            cited_by=cited_by,
        )

    def opinion_text(self, opinion_id: str) -> str | None:
        """Return the clean text of one opinion, or None."""
        row = self.conn.execute("SELECT text FROM opinions WHERE opinion_id = ?", (opinion_id,)).fetchone()
        return row[0] if row else None

    # --- cases -------------------------------------------------------------------------------------------------

    def get_case(self, case_id: str) -> Case | None:
        """Return the `cases` row of one case id, or None."""
        row = self.conn.execute("SELECT * FROM cases WHERE case_id = ?", (case_id,)).fetchone()
        return Case(**dict(row)) if row is not None else None

    def get_cases(self, case_ids: Iterable[str]) -> dict[str, Case]:
        """Return the `cases` rows of many case ids (those that exist), by id: `get_case` in a few queries."""
        found: dict[str, Case] = {}
        for chunk, marks in _chunks(case_ids):
            for row in self.conn.execute(f"SELECT * FROM cases WHERE case_id IN ({marks})", chunk):
                found[row["case_id"]] = Case(**dict(row))
        return found

    def find_case(self, text: str) -> Case | None:
        """Return the case named by a case id or a citation (any parallel citation; the first match), or None."""
        case = self.get_case(text)
        if case is None:
            ids = self.find_by_citation(text)
            case = self.get_case(ids[0]) if ids else None
        return case

    def fully_overruled_cases(self, level: str) -> list[Case]:
        """Return the named, cited cases of a level overruled in full (an `overruled_year`, not in part), by id."""
        rows = self.conn.execute(
            "SELECT * FROM cases WHERE level = ? AND overruled_year IS NOT NULL"
            " AND COALESCE(overruled_in_part, 0) = 0 AND name != '' AND citation IS NOT NULL ORDER BY case_id",
            (level,),
        )
        return [Case(**dict(row)) for row in rows]

    def facts(self, case_id: str, fields: Iterable[str]) -> list[Fact]:
        """Return every value any source gives the named `fields` of a case, in the order the build stored them."""
        wanted = tuple(fields)
        marks = ", ".join("?" * len(wanted))
        rows = self.conn.execute(
            f"SELECT field, value, source FROM facts WHERE case_id = ? AND field IN ({marks})", (case_id, *wanted)
        )
        return [Fact(*row) for row in rows]

    def citation_keys(self, case_id: str) -> list[str]:
        """Return the normalized citation keys ("347 U.S. 483") of a case, every parallel citation."""
        rows = self.conn.execute("SELECT DISTINCT citation_key FROM case_citations WHERE case_id = ?", (case_id,))
        return [row[0] for row in rows]

    def opinion_case_id(self, opinion_id: str) -> str | None:
        """Return the id of the case an opinion belongs to, or None (unknown opinion or unlinked)."""
        row = self.conn.execute("SELECT case_id FROM opinions WHERE opinion_id = ?", (opinion_id,)).fetchone()
        return row[0] if row and row[0] else None

    # --- overrulings and treatments -----------------------------------------------------------------------------

    def overrulings_of(self, case_id: str) -> list[Overruling]:
        """Return every overruling link any source records for a case, earliest overruling year first."""
        rows = self.conn.execute(
            "SELECT * FROM overrulings WHERE overruled_case_id = ? ORDER BY overruling_year", (case_id,)
        )
        return [Overruling(**dict(row)) for row in rows]

    def first_overruling(self, case_id: str) -> Overruling | None:
        """Return the earliest overruling link any source records for a case (`overruling_year` as that source
        prints it), or None when no source says the case was overruled, in full or in part. Links the build does
        not count for the case's `overruled_year` (weaker Fowler relations) are included: a case any source calls
        overruled is not a never-overruled case."""
        row = self.conn.execute(
            "SELECT * FROM overrulings WHERE overruled_case_id = ? ORDER BY overruling_year, source LIMIT 1",
            (case_id,),
        ).fetchone()
        return Overruling(**dict(row)) if row is not None else None

    def agreement_pairs(self) -> list[AgreementPair]:
        """Return the citing-cited pairs of named cases whose treatment has an agree/disagree label, by ids."""
        rows = self.conn.execute(
            "SELECT t.agreement, a.case_id, a.name, a.citation, a.year, b.case_id, b.name, b.citation, b.year"
            " FROM treatments t JOIN cases a ON a.case_id = t.citing_case_id"
            " JOIN cases b ON b.case_id = t.cited_case_id"
            " WHERE t.agreement IS NOT NULL AND a.name != '' AND b.name != '' ORDER BY a.case_id, b.case_id"
        )
        return [AgreementPair(row[0], CaseRef(*row[1:5]), CaseRef(*row[5:9])) for row in rows]

    def agreement(self, citing_case_id: str, cited_case_id: str) -> str | None:
        """Return the agree/disagree label of how one case treats another, or None when there is none."""
        row = self.conn.execute(
            "SELECT agreement FROM treatments WHERE citing_case_id = ? AND cited_case_id = ? AND agreement IS NOT NULL",
            (citing_case_id, cited_case_id),
        ).fetchone()
        return row[0] if row else None

    def agreement_labels(self) -> list[str | None]:
        """Return the distinct agreement labels of the treatment data (None included); empty for a database built
        without a treatments table."""
        try:
            return [row[0] for row in self.conn.execute("SELECT DISTINCT agreement FROM treatments")]
        except sqlite3.OperationalError:
            return []

    # --- bulk scans (fabrication, citation checking) --------------------------------------------------------------

    def real_names(self) -> set[str]:
        """Return every name of a case anywhere in the database: any source's name of any case and both sides of
        every overruling link (as printed, not normalized)."""
        names = {r[0] for r in self.conn.execute("SELECT name FROM cases WHERE name IS NOT NULL AND name != ''")}
        names |= {r[0] for r in self.conn.execute("SELECT value FROM facts WHERE field = 'name'")}
        for overruled, overruling in self.conn.execute("SELECT overruled_name, overruling_name FROM overrulings"):
            names |= {overruled, overruling}
        return names

    def real_citation_keys(self) -> set[str]:
        """Return the key of every citation anywhere in the database: every parallel citation of every case and
        both sides of every overruling link."""
        keys = {r[0] for r in self.conn.execute("SELECT citation_key FROM case_citations")}
        for row in self.conn.execute("SELECT overruled_citation, overruling_citation FROM overrulings"):
            keys |= {key for text in row if text and (key := citation_key(text))}
        return keys

    def case_names(self, level: str) -> list[CaseName]:
        """Return every (case, year, name) of a level's dated cases, the `cases` name and each source's name."""
        rows = self.conn.execute(
            "SELECT c.case_id, c.year, c.name FROM cases c WHERE c.level = ? AND c.year IS NOT NULL"
            " AND c.name IS NOT NULL AND c.name != ''"
            " UNION SELECT c.case_id, c.year, f.value FROM facts f JOIN cases c ON c.case_id = f.case_id"
            " WHERE f.field = 'name' AND c.level = ? AND c.year IS NOT NULL",
            (level, level),
        )
        return [CaseName(*row) for row in rows]

    def level_citations(self, level: str) -> list[CitedCase]:
        """Return every citation key of a level's dated cases, sorted by case id and key."""
        rows = self.conn.execute(
            "SELECT cc.citation_key, c.case_id, c.year, c.court_id FROM case_citations cc"
            " JOIN cases c ON c.case_id = cc.case_id WHERE c.level = ? AND c.year IS NOT NULL"
            " ORDER BY c.case_id, cc.citation_key",
            (level,),
        )
        return [CitedCase(*row) for row in rows]

    def volume_entries(self, reporter: str, volume: str) -> list[VolumeEntry]:
        """Return the citations in one reporter volume of cases that have a name or a decision date."""
        prefix = f"{volume} {reporter} "
        rows = self.conn.execute(
            "SELECT k.citation_key, c.case_id, c.name, c.year, c.decision_date FROM case_citations k"
            " JOIN cases c ON c.case_id = k.case_id WHERE k.citation_key >= ? AND k.citation_key < ?"
            " AND ((c.name IS NOT NULL AND c.name != '') OR c.decision_date IS NOT NULL)",
            (prefix, prefix[:-1] + "!"),
        )
        return [VolumeEntry(*row) for row in rows]

    def us_reports_entries(self) -> list[VolumeEntry]:
        """Return every U.S. Reports citation ("VOL U.S. PAGE") with its case's name, year and decision date."""
        rows = self.conn.execute(
            "SELECT k.citation_key, c.case_id, c.name, c.year, c.decision_date FROM case_citations k"
            " JOIN cases c ON c.case_id = k.case_id WHERE k.citation_key GLOB '[0-9]* U.S. [0-9]*'"
        )
        return [VolumeEntry(*row) for row in rows]

    def term_cases(self) -> list[TermCase]:
        """Return every case with a Supreme Court term, with its U.S. Reports citation keys."""
        found = []
        for case_id, term, decision_date in self.conn.execute(
            "SELECT case_id, term, decision_date FROM cases WHERE term IS NOT NULL"
        ).fetchall():
            keys = self.conn.execute(
                "SELECT citation_key FROM case_citations WHERE case_id = ? AND citation_key GLOB '[0-9]* U.S. [0-9]*'",
                (case_id,),
            )
            found.append(TermCase(case_id, term, decision_date, tuple(row[0] for row in keys)))
        return found

    def reporter_count(self, reporter: str) -> int:
        """Return how many citations of `reporter` the database holds (any volume)."""
        sql = "SELECT COUNT(*) FROM case_citations WHERE citation_key LIKE ?"
        return self.conn.execute(sql, (f"% {reporter} %",)).fetchone()[0]

    # --- samples (`sampling.py`) --------------------------------------------------------------------------------

    def eligible_count(self, level: str, years: tuple[int, int] | None, require: Sequence[str]) -> int:
        """Return how many cases of a canonical level pass `LEVEL_FILTERS`, decided within `years` (inclusive) and
        having every fact of `require` (`FACT_CONDITIONS`)."""
        where, params = _eligible(level, years, require)
        return self.conn.execute(f"SELECT COUNT(*) FROM cases WHERE {where}", params).fetchone()[0]

    def eligible_cases(self, level: str, years: tuple[int, int] | None, require: Sequence[str]) -> list[SampleRow]:
        """Return the cases `eligible_count` counts, each with its stratum, by case id."""
        where, params = _eligible(level, years, require)
        rows = self.conn.execute(
            f"SELECT case_id, name, citation, court_id, year, state, {LEVEL_FILTERS[level][1]} AS stratum FROM cases"
            f" WHERE {where} ORDER BY case_id",
            params,
        )
        return [SampleRow(*row) for row in rows]

    def stratum_sizes(self, level: str, years: tuple[int, int] | None, require: Sequence[str]) -> dict[str, int]:
        """Return how many of the cases `eligible_cases` returns fall in each stratum (in no particular order; their
        sum is `eligible_count`). Kept per level, window and facts: the database is read-only."""
        key = (level, None if years is None else tuple(years), tuple(require))
        if key not in self._strata:
            where, params = _eligible(level, years, require)
            sql = f"SELECT {LEVEL_FILTERS[level][1]} AS stratum, COUNT(*) FROM cases WHERE {where} GROUP BY stratum"
            self._strata[key] = dict(self._tuples(sql, params))
        return dict(self._strata[key])

    def stratum_members(
        self, level: str, years: tuple[int, int] | None, require: Sequence[str], strata: Iterable[str]
    ) -> dict[str, list[str]]:
        """Return the case ids of each of `strata` among the cases `eligible_cases` returns, by case id (so a
        stratum's list is its part of `eligible_cases`, in order); a stratum without a case is left out."""
        wanted = list(dict.fromkeys(strata))
        if not wanted:
            return {}
        where, params = _eligible(level, years, require)
        stratum = LEVEL_FILTERS[level][1]
        if len(wanted) <= _MAX_IN:  # else read every eligible case: still one query, and no long IN list
            where += f" AND {stratum} IN ({', '.join('?' * len(wanted))})"
            params = [*params, *wanted]
            years_in = _stratum_years(wanted)
            if years_in:  # the same cases, found through the (level, year) index instead of a scan of the level
                where += f" AND year IN ({', '.join('?' * len(years_in))})"
                params = [*params, *years_in]
        members: dict[str, list[str]] = {}
        chosen = set(wanted)
        sql = f"SELECT case_id, {stratum} FROM cases WHERE {where} ORDER BY case_id"
        for case_id, key in self._tuples(sql, params):
            if key in chosen:
                members.setdefault(key, []).append(case_id)
        return members

    def sample_rows(self, level: str, case_ids: Iterable[str]) -> dict[str, SampleRow]:
        """Return the `eligible_cases` row (with its stratum at `level`) of each of `case_ids` found, by case id
        (one query per 500 cases)."""
        found: dict[str, SampleRow] = {}
        for chunk, marks in _chunks(case_ids):
            sql = (f"SELECT case_id, name, citation, court_id, year, state, {LEVEL_FILTERS[level][1]} AS stratum"
                   f" FROM cases WHERE case_id IN ({marks})")  # fmt: skip
            found |= {row[0]: SampleRow(*row) for row in self._tuples(sql, chunk)}
        return found

    def _tuples(self, sql: str, params: Sequence) -> list[tuple]:
        """Return the rows of a query as plain tuples (not `sqlite3.Row`: cheaper for many rows)."""
        cursor = self.conn.cursor()
        cursor.row_factory = None
        try:
            return cursor.execute(sql, params).fetchall()
        finally:
            cursor.close()

    def case_facts(self, case_ids: Iterable[str], facts: Sequence[str]) -> dict[str, set[str]]:
        """Return, for each case id, which of the named `FACT_CONDITIONS` the case has (one query per 500 cases)."""
        found: dict[str, set[str]] = {case_id: set() for case_id in case_ids}
        if not facts:
            return found
        columns = ", ".join(f"{FACT_CONDITIONS[name]} AS f{i}" for i, name in enumerate(facts))
        for chunk, marks in _chunks(found):
            for row in self.conn.execute(f"SELECT case_id, {columns} FROM cases WHERE case_id IN ({marks})", chunk):
                found[row[0]] = {name for i, name in enumerate(facts) if row[i + 1]}
        return found


#: The most values one `IN (...)` list of a query binds (far below SQLite's limit on parameters).
_MAX_IN = 500


def _chunks(ids: Iterable[str]) -> Iterator[tuple[list[str], str]]:
    """Yield `ids` (each once, in order) in lists of at most `_MAX_IN`, each with its "?, ?, ..." marks."""
    wanted = list(dict.fromkeys(ids))
    for start in range(0, len(wanted), _MAX_IN):
        chunk = wanted[start : start + _MAX_IN]
        yield chunk, ", ".join("?" * len(chunk))


def _stratum_years(strata: Sequence[str]) -> list[int]:
    """Return the decision years of `strata` (every level's stratum ends with the year: "1954", "ca9-1954",
    "NY-1954"), or [] when one of them does not end with a year."""
    years = [stratum.rpartition("-")[2] for stratum in strata]
    return sorted({int(year) for year in years}) if all(year.isdigit() for year in years) else []


def _eligible(level: str, years: tuple[int, int] | None, require: Sequence[str]) -> tuple[str, list]:
    """Return the WHERE clause (without the keyword) and parameters of a level's eligible cases."""
    condition, _ = LEVEL_FILTERS[level]
    clauses, params = ["level = ?", condition], [level]
    if years is not None:
        clauses.append("year BETWEEN ? AND ?")
        params.extend(years)
    clauses.extend(FACT_CONDITIONS[name] for name in require)
    return " AND ".join(clauses), params
