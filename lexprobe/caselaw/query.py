"""Read the case database: look cases up by citation or name, describe one case, summarize coverage."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process

from lexprobe.caselaw.case_names import normalize_case_name
from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.schema import RULES_VERSION
from lexprobe.errors import StoreError

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


class CaseDatabaseMissing(FileNotFoundError):
    """No case database where one was expected."""


#: Tables every built case database has; a file without them is not one.
REQUIRED_TABLES = ("cases", "case_citations", "facts")
_REBUILD = "rebuild it with `lexprobe data build` or pass another --db"


def _open_read_only(path: Path) -> sqlite3.Connection:
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
            f"are the overruling decision's calendar year); {_REBUILD}"
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
        self.conn = _open_read_only(self.path)
        self.conn.row_factory = sqlite3.Row
        self._names: list[tuple[str, str, float]] | None = None

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def table_counts(self) -> dict[str, int]:
        """Return the row count of every table."""
        tables = [r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {t: self.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}

    def coverage(self) -> dict[str, dict[str, int]]:
        """Return, per court level, how many cases there are and how many have each kind of fact."""
        out: dict[str, dict[str, int]] = {}
        for level in LEVELS:
            (total,) = self.conn.execute("SELECT COUNT(*) FROM cases WHERE level = ?", (level,)).fetchone()
            row = {"cases": total}
            for label, condition in COVERAGE.items():
                sql = f"SELECT COUNT(*) FROM cases WHERE level = ? AND {condition}"
                (row[label],) = self.conn.execute(sql, (level,)).fetchone()
            out[level] = row
        return out

    def build_info(self) -> dict[str, str]:
        """Return the build's recorded facts (time, rows read, issues, conflicts)."""
        return {r["key"]: r["value"] for r in self.conn.execute("SELECT key, value FROM build_info")}

    def find_by_citation(self, text: str) -> list[str]:
        """Return the ids of cases with this citation (any parallel citation), or an empty list."""
        key = citation_key(text)
        if key is None:
            return []
        rows = self.conn.execute("SELECT DISTINCT case_id FROM case_citations WHERE citation_key = ?", (key,))
        return [r[0] for r in rows]

    def find_by_name(self, name: str, limit: int = 5) -> list[str]:
        """Return ids of cases named like `name` by any source, most prominent first among the closest matches.

        Every name any source gives a case is normalized (`case_names.normalize_case_name`: "et al." dropped,
        "Educ." read as "Education") and compared with rapidfuzz (token-sort similarity >= 80); matches within 10
        points of the best count as equally close, so "Brown v. Board of Education" finds the 1954 decision before
        the 1952 order of the same name.
        """
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

    def case(self, case_id: str) -> dict[str, Any] | None:
        """Return everything known about one case, with the source of each fact, or None."""
        row = self.conn.execute("SELECT * FROM cases WHERE case_id = ?", (case_id,)).fetchone()
        if row is None:
            return None
        facts: dict[str, list[dict[str, str]]] = {}
        for fact in self.conn.execute("SELECT field, value, source FROM facts WHERE case_id = ?", (case_id,)):
            entries = facts.setdefault(fact["field"], [])
            entry = {"value": fact["value"], "source": fact["source"]}
            if entry not in entries:
                entries.append(entry)
        overruled_by = [
            dict(r)
            for r in self.conn.execute(
                "SELECT overruling_name, overruling_citation, overruling_docket, overruling_year, overruling_case_id,"
                " in_part, note, source FROM overrulings WHERE overruled_case_id = ? ORDER BY overruling_year",
                (case_id,),
            )
        ]
        overrules = [
            dict(r)
            for r in self.conn.execute(
                "SELECT overruled_name, overruled_citation, overruled_case_id, in_part, source FROM overrulings"
                " WHERE overruling_case_id = ?",
                (case_id,),
            )
        ]
        opinions = [
            dict(r)
            for r in self.conn.execute(
                "SELECT opinion_id, opinion_type, is_majority, author, length(text) AS characters FROM opinions"
                " WHERE case_id = ?",
                (case_id,),
            )
        ]
        conflicts = [
            dict(r)
            for r in self.conn.execute(
                "SELECT field, value_a, source_a, value_b, source_b FROM conflicts WHERE case_id = ?", (case_id,)
            )
        ]
        (cites, cited_by) = (
            self.conn.execute("SELECT COUNT(*) FROM citation_edges WHERE citing_case_id = ?", (case_id,)).fetchone()[0],
            self.conn.execute("SELECT COUNT(*) FROM citation_edges WHERE cited_case_id = ?", (case_id,)).fetchone()[0],
        )
        return {
            "case": dict(row),
            "citations": [
                dict(r)
                for r in self.conn.execute(
                    "SELECT citation, source FROM case_citations WHERE case_id = ? ORDER BY citation", (case_id,)
                )
            ],
            "facts": facts,
            "overruled_by": overruled_by,
            "overrules": overrules,
            "opinions": opinions,
            "conflicts": conflicts,
            "cites": cites,
            "cited_by": cited_by,
        }

    def first_overruling(self, case_id: str) -> dict[str, Any] | None:
        """Return the earliest overruling link any source records for a case (`overruling_name`,
        `overruling_citation`, `overruling_year` as that source prints it, `in_part`, `source`), or None when no
        source says the case was overruled, in full or in part. Links the build does not count for the case's
        `overruled_year` (weaker Fowler relations) are included: a case any source calls overruled is not a
        never-overruled case."""
        row = self.conn.execute(
            "SELECT overruling_name, overruling_citation, overruling_docket, overruling_year, in_part, source"
            " FROM overrulings WHERE overruled_case_id = ? ORDER BY overruling_year, source LIMIT 1",
            (case_id,),
        ).fetchone()
        return dict(row) if row is not None else None

    def opinion_text(self, opinion_id: str) -> str | None:
        """Return the clean text of one opinion, or None."""
        row = self.conn.execute("SELECT text FROM opinions WHERE opinion_id = ?", (opinion_id,)).fetchone()
        return row[0] if row else None
