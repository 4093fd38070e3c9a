"""Score answers produced elsewhere (`lexprobe hallucination score-answers`): one JSON object a line,
`{"task", "case", "answer"}` plus `"dissenter"` for false_dissent and `"case2"` for doctrinal_agreement.

`case` is a citation or a case id; for fake_existence it is the fabricated case as asked and is not looked up.
Every input line yields one output line with `label` and `detail` added; a malformed line yields a `LineError`
naming its line number and is left out of the output, and the other lines are still scored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scorers import SCORERS, ScoringContext


@dataclass(frozen=True)
class LineError:
    """A line that could not be scored at all."""

    line: int
    message: str


def _case_row(db: CaseDatabase, text: str) -> dict | None:
    row = db.conn.execute("SELECT * FROM cases WHERE case_id = ?", (text,)).fetchone()
    if row is None:
        ids = db.find_by_citation(text)
        row = db.conn.execute("SELECT * FROM cases WHERE case_id = ?", (ids[0],)).fetchone() if ids else None
    return dict(row) if row else None


def reference_for(task: str, record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """Return (reference, None) for one external answer line, or (None, reason) when no reference exists."""
    if task in ("fake_existence", "false_overruling"):
        return {}, None
    if task == "false_dissent":
        dissenter = record.get("dissenter")
        return (
            ({"dissenter": dissenter}, None)
            if isinstance(dissenter, str) and dissenter
            else (None, "needs 'dissenter'")
        )
    case = _case_row(db, str(record["case"]))
    if case is None:
        return None, f"case {record['case']!r} is not in the case database"
    if task == "existence":
        return {}, None
    if task == "court":
        return ({"court_id": case["court_id"]}, None) if case["court_id"] else (None, "case has no court")
    if task == "citation":
        keys = [
            r[0]
            for r in db.conn.execute("SELECT citation_key FROM case_citations WHERE case_id = ?", (case["case_id"],))
        ]
        return {"citations": keys}, None
    if task == "author":
        if not case["author"]:
            return None, "case has no known majority author"
        return {"author": case["author"], "decided": case["decision_date"] or f"{case['year']}-07-01"}, None
    if task == "disposition":
        return (
            ({"disposition": case["disposition"]}, None)
            if case["disposition"]
            else (None, "no unambiguous disposition")
        )
    if task in ("quotation", "authority"):
        opinion = case["majority_opinion_id"]
        return ({"opinion_id": opinion}, None) if opinion else (None, "no majority opinion text in the database")
    if task == "overruling_year":
        year = case["overruled_year"]
        return ({"year": year}, None) if year else (None, "case is not recorded as overruled")
    if task == "doctrinal_agreement":
        other = _case_row(db, str(record.get("case2", "")))
        if other is None:
            return None, "needs 'case2' (the cited case) found in the case database"
        row = db.conn.execute(
            "SELECT agreement FROM treatments WHERE citing_case_id = ? AND cited_case_id = ? AND agreement IS NOT NULL",
            (case["case_id"], other["case_id"]),
        ).fetchone()
        return ({"agreement": row[0]}, None) if row else (None, "no agree/disagree treatment for this pair")
    return None, f"task {task} has no reference-based scorer"


def score_lines(lines: Iterable[str], db: CaseDatabase) -> Iterator[dict | LineError]:
    """Yield each input line scored (the input object plus `label` and `detail`), or a `LineError`."""
    context = ScoringContext(db)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            yield LineError(number, f"not valid JSON ({exc.msg})")
            continue
        if not isinstance(record, dict):
            yield LineError(number, "expected a JSON object")
            continue
        missing = [key for key in ("task", "case", "answer") if not isinstance(record.get(key), str)]
        if missing:
            yield LineError(number, f"missing or non-string field(s): {', '.join(missing)}")
            continue
        task = record["task"]
        if task not in SCORERS:
            yield LineError(number, f"unknown task {task!r}; scorable: {', '.join(sorted(SCORERS))}")
            continue
        reference, reason = reference_for(task, record, db)
        score = (
            SCORERS[task](record["answer"], reference, context)
            if reference is not None
            else Score("unscored", f"reference missing: {reason}")
        )
        yield record | {"label": score.label, "detail": score.detail}
