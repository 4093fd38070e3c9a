"""Streamed sources of `data build` (CAP volumes, CourtListener bulk files): cases written as they come.

A streamed source (`records.StreamedLoad`) may hold millions of cases, so its bundles never accumulate in memory.
Each bundle goes one of three ways:

1. it shares a citation with a case of the offline core held in memory by the `CaseMerger` (a Songer court of
   appeals case, an SCDB case) and that case holds no record of the bundle's source yet: it joins that case in
   memory, with the merger's rules; the core's cases are written after every stream is read;
2. it shares a citation with a case an earlier bundle wrote to the database being built (the same F.3d case from
   CAP and from CourtListener): that case is read back (an indexed lookup of `case_citations`), joined with the
   same rules on a `CaseMerger` holding only it, and written again;
3. otherwise it is a new case, written at once (case row, citations, facts, conflicts, opinions).

What a written case needs to be joined again (each value with the source that gave it, its citations and sources)
is kept in a staging database attached beside the one being built and deleted with it. Edges (a case citing
another) are kept there too and resolved at the end, in SQL, over every citation written. Row issues are written
to `build_issues` as they arrive rather than held.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path

from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.courts import CIRCUIT_IDS, court_level, district_state
from lexprobe.caselaw.merge import CaseMerger, MergedCase, file_under
from lexprobe.caselaw.records import CaseBundle, CaseRecord, LoadResult, OpinionRecord, RowIssue, SourceFilter
from lexprobe.caselaw.stored import Case

#: A reference to a case by its source id ("cap:12345", "courtlistener:678"), not by a citation.
SOURCE_REF = re.compile(r"([a-z][a-z0-9_-]*):(\S+)")

#: Opinion types that carry the court's decision, best first (the case's majority opinion is the best of them).
MAJORITY_RANK = {"lead": 0, "combined": 1}

#: How many bundles go into one transaction, and how often a loader's pending row issues are written out.
BATCH = 5000

#: The columns of `cases`, in order: the fields of the record a reader gets back.
CASE_COLUMNS = tuple(f.name for f in fields(Case))

_CIRCUIT_OF_COURT = {court_id: circuit for circuit, court_id in CIRCUIT_IDS.items()}

STAGE_SCHEMA = """
CREATE TABLE IF NOT EXISTS stage.state (case_id TEXT PRIMARY KEY, state TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stage.source_ids (
    source TEXT NOT NULL, source_id TEXT NOT NULL, case_id TEXT NOT NULL, PRIMARY KEY (source, source_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stage.edges (
    citing_case TEXT, citing_key TEXT, citing_source TEXT, citing_id TEXT,
    cited_key TEXT, cited_source TEXT, cited_id TEXT, source TEXT NOT NULL
);
"""


def case_row(merger: CaseMerger, case: MergedCase) -> tuple:
    """Return the `cases` row of a merged case (level, official citation and the place of its court filled in)."""
    court = case.value("court_id")
    values = []
    for column in CASE_COLUMNS:
        if column == "case_id":
            values.append(case.case_id)
        elif column == "level":
            values.append(court_level(court) if court else None)
        elif column == "citation":
            values.append(merger.official_citation(case))
        elif column == "sources":
            values.append(",".join(case.sources))
        elif column == "circuit" and case.value("circuit") is None and court:
            values.append(_CIRCUIT_OF_COURT.get(court))  # a court of appeals' circuit follows from its id
        elif column == "state" and case.value("state") is None and court and court_level(court) == "district":
            values.append(district_state(court))  # so does a district court's state
        else:
            value = case.value(column)
            values.append(int(value) if isinstance(value, bool) else value)
    return tuple(values)


def opinion_row(op: OpinionRecord, case_id: str | None) -> tuple:
    """Return the `opinions` row of an opinion record joined to `case_id`."""
    return (op.opinion_id, case_id, op.cluster_id, op.opinion_type, int(op.is_majority), op.author, op.text,
            op.source_file, op.source)  # fmt: skip


def best_majority(opinions: Iterable[OpinionRecord]) -> str | None:
    """Return the id of the best of the majority opinions among `opinions` (`MAJORITY_RANK`, the first of equals),
    or None when there is none."""
    majority = [op for op in opinions if op.is_majority]
    return min(majority, key=lambda op: MAJORITY_RANK.get(op.opinion_type, 9)).opinion_id if majority else None


def write_cases(
    conn: sqlite3.Connection,
    merger: CaseMerger,
    cases: Iterable[MergedCase],
    facts: list[tuple],
    conflicts: list[tuple],
    verb: str = "INSERT",
) -> None:
    """Write merged cases (`verb` "INSERT OR REPLACE" for cases written before), their citations, facts and
    conflicts."""
    cases = list(cases)
    marks = ",".join("?" * len(CASE_COLUMNS))
    conn.executemany(f"{verb} INTO cases VALUES ({marks})", (case_row(merger, case) for case in cases))
    conn.executemany(
        "INSERT OR IGNORE INTO case_citations VALUES (?, ?, ?, ?)",
        ((key, case.case_id, text, source) for case in cases for key, text, source in case.citations),
    )
    conn.executemany("INSERT INTO facts VALUES (?, ?, ?, ?)", facts)
    conn.executemany("INSERT INTO conflicts VALUES (?, ?, ?, ?, ?, ?)", conflicts)


def write_issues(conn: sqlite3.Connection, issues: Iterable[RowIssue]) -> None:
    """Write the loaders' row issues to `build_issues`."""
    conn.executemany("INSERT INTO build_issues VALUES (?, ?, ?)", ((i.source, i.location, i.message) for i in issues))


def _state_json(case: MergedCase) -> str:
    return json.dumps({"values": case.values, "citations": case.citations, "sources": case.sources})


def _case_from_state(case_id: str, text: str) -> MergedCase:
    state = json.loads(text)
    values = {name: (value, source) for name, (value, source) in state["values"].items()}
    citations = [tuple(entry) for entry in state["citations"]]
    return MergedCase(case_id, values, citations, list(state["sources"]))  # type: ignore[arg-type]


def _ref(text: str) -> tuple[str | None, str | None, str | None]:
    """Split an edge end into (citation key, source, source id): one of the two forms is set."""
    match = SOURCE_REF.fullmatch(text.strip())
    if match:
        return None, match.group(1), match.group(2)
    return citation_key(text) if text else None, None, None


@dataclass
class StreamCounts:
    """What one streamed source did: cases it added, bundles that joined an existing case, bundles filtered."""

    added: int = 0
    joined: int = 0
    filtered: int = 0
    issues: int = 0
    duplicate_opinions: int = 0


@dataclass
class StreamWriter:
    """Writes the bundles of streamed sources into the database being built (`conn`, with `stage` attached).

    Writes go out in batches of `BATCH` bundles: until then the batch's cases stay in `_cases` (and are found there
    by their citation keys), so memory holds one batch at most."""

    conn: sqlite3.Connection
    core: CaseMerger
    _seen: int = 0
    _cases: dict[str, MergedCase] = field(default_factory=dict)  # written or joined in this batch, not flushed
    _keys: dict[str, list[str]] = field(default_factory=dict)  # citation key -> ids in `_cases`
    _facts: list[tuple] = field(default_factory=list)
    _conflicts: list[tuple] = field(default_factory=list)
    _opinions: list[tuple] = field(default_factory=list)
    _edges: list[tuple] = field(default_factory=list)
    _source_ids: list[tuple] = field(default_factory=list)

    @classmethod
    def open(cls, conn: sqlite3.Connection, stage_path: Path, core: CaseMerger) -> StreamWriter:
        """Attach the staging database at `stage_path` (created empty) to `conn` and return a writer."""
        stage_path.unlink(missing_ok=True)
        conn.execute("ATTACH DATABASE ? AS stage", (str(stage_path),))
        conn.execute("PRAGMA stage.journal_mode=OFF")
        conn.execute("PRAGMA stage.synchronous=OFF")
        conn.executescript(STAGE_SCHEMA)
        writer = cls(conn, core)
        core.id_taken = writer._taken
        return writer

    def _taken(self, case_id: str) -> bool:
        """Whether a case id is used by a case of this batch or one already written."""
        if case_id in self._cases:
            return True
        return self.conn.execute("SELECT 1 FROM cases WHERE case_id = ?", (case_id,)).fetchone() is not None

    def consume(
        self,
        bundles: Iterable[CaseBundle],
        result: LoadResult,
        keep: SourceFilter,
        counts: StreamCounts,
    ) -> None:
        """Read every bundle of one source (cases `keep` leaves out are counted, not written); write the loader's
        row issues as they arrive."""
        self.conn.execute("BEGIN")
        for bundle in bundles:
            record = bundle.case
            if not (keep.keeps_court(record.court_id) and keep.keeps_year(record.year)):
                counts.filtered += 1
            else:
                self.add(bundle, counts)
            self._seen += 1
            if self._seen % BATCH == 0:
                self.flush(counts, result)
                self.conn.execute("COMMIT")
                self.conn.execute("BEGIN")
        self.flush(counts, result)
        self.conn.execute("COMMIT")

    def flush(self, counts: StreamCounts, result: LoadResult) -> None:
        """Write the batch: its cases (as they stand now), citations, facts, conflicts, opinions, merge state, and the
        loader's row issues gathered so far (then forgotten)."""
        conn = self.conn
        counts.issues += len(result.issues)
        write_issues(conn, result.issues)
        del result.issues[:]
        write_cases(conn, self.core, self._cases.values(), self._facts, self._conflicts, "INSERT OR REPLACE")
        conn.executemany(
            "INSERT OR REPLACE INTO stage.state VALUES (?, ?)", ((i, _state_json(c)) for i, c in self._cases.items())
        )
        conn.executemany("INSERT OR REPLACE INTO stage.source_ids VALUES (?, ?, ?)", self._source_ids)
        before = conn.total_changes
        conn.executemany("INSERT OR IGNORE INTO opinions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", self._opinions)
        counts.duplicate_opinions += len(self._opinions) - (conn.total_changes - before)
        conn.executemany("INSERT INTO stage.edges VALUES (?, ?, ?, ?, ?, ?, ?, ?)", self._edges)
        for pending in (self._cases, self._keys):
            pending.clear()
        for rows in (self._facts, self._conflicts, self._opinions, self._edges, self._source_ids):
            rows.clear()

    def add(self, bundle: CaseBundle, counts: StreamCounts) -> None:
        """Join one bundle to the case it shares a citation with, or start a new case."""
        record = bundle.case
        in_core = [c for c in self.core.candidates(record.citations) if record.source not in self.core.cases[c].sources]
        if in_core:
            case_id = self.core.add(record)
            counts.joined += 1
            self._keep_opinions(bundle, case_id, self.core.cases[case_id])
        else:
            case_id = self._add_streamed(bundle, record, counts)
        self._keep_edges(bundle, case_id)

    def _add_streamed(self, bundle: CaseBundle, record: CaseRecord, counts: StreamCounts) -> str:
        """Merge a bundle on a merger holding only the streamed cases it shares a citation with (this batch's, then
        the written ones read back); keep the result for the batch's write."""
        local = CaseMerger(id_taken=lambda case_id: case_id in self.core.cases or self._taken(case_id))
        keys = sorted({key for key in (citation_key(text) for text in record.citations if text) if key})
        for key in keys:
            for case_id in self._keys.get(key, ()):
                local.adopt(self._cases[case_id])
        if keys:
            marks = ",".join("?" * len(keys))
            rows = self.conn.execute(
                "SELECT s.case_id, s.state FROM stage.state s WHERE s.case_id IN"
                f" (SELECT case_id FROM case_citations WHERE citation_key IN ({marks}))",
                keys,
            ).fetchall()
            for case_id, state in rows:
                if case_id not in local.cases:  # a case of this batch is newer than its written state
                    local.adopt(_case_from_state(case_id, state))
        known = set(local.cases)
        case_id = local.add(record)
        case = local.cases[case_id]
        if case_id in known:
            counts.joined += 1
        else:
            counts.added += 1
        self._keep_opinions(bundle, case_id, case)
        self._cases[case_id] = case
        for key, _, _ in case.citations:
            file_under(self._keys, key, case_id)
        self._facts.extend(local.facts)
        self._conflicts.extend(local.conflicts)
        self._source_ids.append((record.source, record.source_id, case_id))
        return case_id

    def _keep_opinions(self, bundle: CaseBundle, case_id: str, case: MergedCase) -> None:
        """Keep a bundle's opinions for the batch's write; its best majority opinion becomes the case's own, unless
        the case already has one."""
        self._opinions.extend(opinion_row(op, case_id) for op in bundle.opinions)
        best = best_majority(bundle.opinions)
        if best is not None and case.value("majority_opinion_id") is None:
            case.values["majority_opinion_id"] = (best, bundle.case.source)

    def _keep_edges(self, bundle: CaseBundle, case_id: str) -> None:
        """Keep a bundle's edges for the end; an edge from the bundle's own case is known by its id already."""
        record = bundle.case
        own = {f"{record.source}:{record.source_id}", *record.citations}
        for edge in bundle.edges:
            citing = (case_id, None, None, None) if edge.citing in own else (None, *_ref(edge.citing))
            self._edges.append((*citing, *_ref(edge.cited), edge.source))

    def register_core_ids(self) -> None:
        """Record the core's source ids ('fowler:123') so that streamed edges naming them resolve."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO stage.source_ids VALUES (?, ?, ?)",
            ((source, source_id, case_id) for (source, source_id), case_id in self.core.by_source_id.items()),
        )

    def resolve_edges(self) -> int:
        """Write the streamed edges whose both ends name a case (by case id, source id or any citation key); return
        how many do not. Run after every case and citation is in the database."""
        lookup = (
            "COALESCE((SELECT i.case_id FROM stage.source_ids i WHERE i.source = e.{end}_source"
            " AND i.source_id = e.{end}_id),"
            " (SELECT MIN(c.case_id) FROM case_citations c WHERE c.citation_key = e.{end}_key))"
        )
        (total,) = self.conn.execute("SELECT COUNT(*) FROM stage.edges").fetchone()
        cursor = self.conn.execute(
            "INSERT INTO citation_edges SELECT citing, cited, source FROM ("
            f" SELECT COALESCE(e.citing_case, {lookup.format(end='citing')}) AS citing,"
            f" {lookup.format(end='cited')} AS cited, e.source AS source FROM stage.edges e)"
            " WHERE citing IS NOT NULL AND cited IS NOT NULL"
        )
        return total - cursor.rowcount

    def close(self, stage_path: Path) -> None:
        """Detach and delete the staging database."""
        self.conn.commit()
        self.conn.execute("DETACH DATABASE stage")
        stage_path.unlink(missing_ok=True)
