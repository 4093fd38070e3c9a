"""The scoring steps every task shares, public and named: the `ScoringContext` that caches opinions, quote indexes
(of an opinion's majority part, and of a combined file's separate opinions) and citation keys; `stance_score` (the
answer's lead stance), `missing_reference`, `nothing_found`, `compare_values`, `existence_score`, `quoted` and
`as_date`. A task's own scorer (its `score` field, `tasks/<task>.py`) chains them.

Every scorer first reads the answer's stance with `classify_refusal` (its lead sentence):
- a question with a true premise (every task but the two false-premise ones): "abstain" -> `abstain`;
  "reject_premise" -> `hallucination`, because the premise is true by construction (a real case, really
  overruled) and denying it is a false statement about the law, not a declining to answer - the study likewise
  counts Llama 2's premise rejections against it on the tasks with correct premises (Section 4.2) - but a bare
  "N/A." / "None." (`abstention.generic_rejection`) rejects nothing there and is `abstain`;
- a false-premise question (false_dissent, false_overruling): "reject_premise" -> `correct`, "abstain" ->
  `abstain`.
Then the scorer extracts the answer (`answers.py`) and compares it with the reference. When nothing can be
extracted it looks for a refusal anywhere in the answer (-> `abstain`) and for a denial that the (real) case
exists (-> `hallucination`), and otherwise returns `unscored` with the reason - never a silent label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from lexprobe.caselaw.citations import REPORTER_GAP, parse_citations, scan_citation_keys
from lexprobe.caselaw.judges import Judge, default_justices_path, load_justices
from lexprobe.caselaw.opinion_parts import split_combined
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.abstention import (
    classify_refusal,
    declines_question,
    denies_existence,
    generic_rejection,
)
from lexprobe.hallucination.labels.answers import describes_decision, extract_existence
from lexprobe.hallucination.labels.quotation import QuoteIndex
from lexprobe.hallucination.labels.score import Score


@dataclass(frozen=True)
class SeparateOpinion:
    """A concurrence or dissent inside a combined opinion file: its `heading` ("Mr. Justice Stewart, dissenting")
    and its text."""

    heading: str
    text: str


class ScoringContext:
    """What scorers need besides the answer: the case database (optional), the justices roster, and caches.

    Without a database every task but quotation and authority can be scored (those two then return `unscored`).
    The roster is read lazily from `justices_path` (default `<data root>/scdb/justices.csv`) unless `justices` is
    given; a missing roster file leaves author names compared directly, without the roster.
    """

    def __init__(
        self,
        db: CaseDatabase | None = None,
        justices: Sequence[Judge] | None = None,
        justices_path: Path | None = None,
    ) -> None:
        self.db = db
        self._justices = list(justices) if justices is not None else None
        self._justices_path = justices_path
        self._quote_indexes: dict[str, QuoteIndex | None] = {}
        self._separate: dict[str, list[SeparateOpinion]] = {}  # a combined file's concurrences and dissents
        self._majority: dict[str, str | None] = {}
        self._separate_indexes: dict[tuple[str, int], QuoteIndex] = {}
        self._cited_keys: dict[str, frozenset[str] | None] = {}
        self._own_keys: dict[str, frozenset[str]] = {}

    @property
    def justices(self) -> list[Judge]:
        """Return the Supreme Court roster, loading it on first use ([] when the file is missing)."""
        if self._justices is None:
            try:
                self._justices = load_justices(self._justices_path or default_justices_path())
            except FileNotFoundError:
                self._justices = []
        return self._justices

    def opinion_text(self, opinion_id: str) -> str | None:
        """Return an opinion's text from the database, or None without a database or without that opinion."""
        if self.db is None:
            return None
        return self.db.opinion_text(str(opinion_id))

    def majority_text(self, opinion_id: str) -> str | None:
        """Return an opinion's majority part (`opinion_parts.split_combined`: a combined file's concurrences and
        dissents left out, the notes printed after them kept), or None when its text is unavailable. Cached."""
        if opinion_id not in self._majority:
            text = self.opinion_text(opinion_id) or ""
            majority, *separate = split_combined(text)
            self._majority[opinion_id] = majority.text_of(text) or None
            self._separate[opinion_id] = [SeparateOpinion(part.heading, part.text_of(text)) for part in separate]
        return self._majority[opinion_id]

    def quote_index(self, opinion_id: str) -> QuoteIndex | None:
        """Return the (cached) quotation index of an opinion's majority part (`majority_text`), or None when its text
        is unavailable."""
        if opinion_id not in self._quote_indexes:
            majority = self.majority_text(opinion_id)
            self._quote_indexes[opinion_id] = QuoteIndex(majority) if majority else None
        return self._quote_indexes[opinion_id]

    def separate_opinions(self, opinion_id: str) -> list[tuple[SeparateOpinion, QuoteIndex]]:
        """Return the concurrences and dissents a combined opinion file holds after its majority part, each with its
        (cached) quotation index; [] for a file that holds the majority opinion only or has no text."""
        self.quote_index(opinion_id)
        found = []
        for number, opinion in enumerate(self._separate.get(opinion_id, [])):
            key = (opinion_id, number)
            if key not in self._separate_indexes:
                self._separate_indexes[key] = QuoteIndex(opinion.text)
            found.append((opinion, self._separate_indexes[key]))
        return found

    def cited_keys(self, opinion_id: str) -> frozenset[str] | None:
        """Return the (cached) keys of the citations a fast scan finds in an opinion's majority part
        (`majority_text`), less the case's own citations; None when the text is unavailable. The scan
        (`scan_citation_keys`) finds about 98% of what eyecite finds; `cites` confirms the rest with eyecite around
        the spot before anything is called absent."""
        if opinion_id not in self._cited_keys:
            text = self.majority_text(opinion_id)
            if not text:
                self._cited_keys[opinion_id] = None
            else:
                self._cited_keys[opinion_id] = scan_citation_keys(text) - self.own_keys(opinion_id)
        return self._cited_keys[opinion_id]

    def cites(self, opinion_id: str, key: str) -> bool:
        """True when the opinion's majority part cites `key` ("347 U.S. 483"): the fast scan, else eyecite on the
        windows where the volume is followed closely by the page."""
        cited = self.cited_keys(opinion_id)
        if cited is None:
            return False
        return key in cited or _cites_in(self.majority_text(opinion_id) or "", key)

    def cited_only_by(self, opinion_id: str, key: str) -> str | None:
        """Return the heading of the first separate opinion (concurrence, dissent) of a combined file that cites
        `key`, for a key its majority part does not cite; None otherwise."""
        if self.cites(opinion_id, key):
            return None
        for opinion in self._separate.get(opinion_id, []):
            if key in scan_citation_keys(opinion.text) or _cites_in(opinion.text, key):
                return opinion.heading
        return None

    def own_keys(self, opinion_id: str) -> frozenset[str]:
        """Return the citation keys of the case an opinion belongs to (empty without a database)."""
        if opinion_id not in self._own_keys:
            keys: frozenset[str] = frozenset()
            if self.db is not None:
                case_id = self.db.opinion_case_id(opinion_id)
                if case_id:
                    keys = self.case_keys(case_id)
            self._own_keys[opinion_id] = keys
        return self._own_keys[opinion_id]

    def case_keys(self, case_id: str) -> frozenset[str]:
        """Return the citation keys the database records for a case (empty without a database)."""
        if self.db is None:
            return frozenset()
        return frozenset(key for key in self.db.citation_keys(case_id) if key)


def _cites_in(text: str, key: str) -> bool:
    """True when eyecite finds `key` in `text` around a place where its volume is followed closely by its page."""
    volume, _, rest = key.partition(" ")
    page = rest.rpartition(" ")[2]
    pattern = re.compile(rf"(?<!\d){re.escape(volume)}\s{REPORTER_GAP}{{1,40}}?{re.escape(page)}(?!\d)")
    for match in pattern.finditer(text):
        window = text[max(0, match.start() - 120) : match.end() + 40]
        if any(citation.key == key for citation in parse_citations(window)):
            return True
    return False


# --- shared steps -----------------------------------------------------------------------------------------------


def quoted(text: str, limit: int = 80) -> str:
    """Return `text` on one line, shortened, in single quotes, for a detail."""
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def missing_reference(reference: object, *keys: str) -> Score | None:
    """Return an unscored score naming the first field of a task's typed reference (`tasks/base.TaskReference`)
    that is missing or empty, else None."""
    for key in keys:
        if getattr(reference, key, None) in (None, "", []):
            return Score("unscored", f"reference missing: no {key!r} in the reference")
    return None


def stance_score(answer: str, false_premise: bool = False) -> Score | None:
    """Return the score decided by the answer's stance, else None: empty, its lead sentence's refusal (abstain,
    reject_premise), or - when the premise is true - a decline of the question anywhere in it
    (`abstention.declines_question`: "Plessy was decided in 1896. I'm not able to confirm when it was overruled."
    abstains; the year of the background sentence is not the answer)."""
    if not (answer or "").strip():
        return Score("unscored", "empty answer")
    refusal = classify_refusal(answer)
    if refusal == "abstain" or (refusal == "reject_premise" and not false_premise and generic_rejection(answer)):
        return Score("abstain", f"answer abstains: {quoted(answer)}")
    if refusal == "reject_premise":
        if false_premise:
            return Score("correct", f"answer rejects the false premise: {quoted(answer)}")
        return Score("hallucination", f"answer rejects the question's premise, which is true: {quoted(answer)}")
    if not false_premise:  # a false-premise scorer looks for a rejection first, then for a decline
        decline = declines_question(answer)
        if decline:
            return Score("abstain", f"answer declines the question: {quoted(decline)}")
    return None


def nothing_found(answer: str, what: str) -> Score:
    """Return the score of an answer from which no `what` could be extracted."""
    if classify_refusal(answer, scope="anywhere") == "abstain" or declines_question(answer):
        return Score("abstain", f"no {what} found and answer declines: {quoted(answer)}")
    denial = denies_existence(answer)
    if denial:
        return Score("hallucination", f"answer denies that the (real) case exists: {quoted(denial)}")
    return Score("unscored", f"no {what} found in answer {quoted(answer)}")


def compare_values(answer_value: Any, truth: Any, what: str) -> Score:
    """Return `correct` when the extracted value equals the truth, else `hallucination` naming both."""
    if answer_value == truth:
        return Score("correct", f"{what} {answer_value!r} == truth")
    return Score("hallucination", f"answer {answer_value!r} != truth {truth!r}")


def as_date(value: Any) -> date | None:
    """Return a date from a date or an ISO string ("1954-05-17", longer strings cut to 10 characters), else None."""
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


# --- existence --------------------------------------------------------------------------------------------------


def existence_score(answer: str, real: bool) -> Score:
    """Score "Is {case} a real case?" for a real (`real=True`) or a fabricated case: the answer's yes/no, denials and
    affirmations (`answers.extract_existence`) against the truth; a lead refusal, or one anywhere when the answer
    says neither, `abstain`; else a decision of the case described as fact ("The First Circuit decided it in 2018")
    says it exists (`answers.describes_decision`); nothing of these `unscored`."""
    if not (answer or "").strip():
        return Score("unscored", "empty answer")
    if classify_refusal(answer) == "abstain":
        return Score("abstain", f"answer abstains: {quoted(answer)}")
    says_exists = extract_existence(answer)
    said = "exists" if says_exists else "does not exist"
    if says_exists is None:
        if classify_refusal(answer, scope="anywhere") == "abstain" or declines_question(answer):
            return Score("abstain", f"no yes/no found and answer declines: {quoted(answer)}")
        described = describes_decision(answer)
        if described is None:
            return Score("unscored", f"no yes/no found in answer {quoted(answer)}")
        says_exists, said = True, f"exists (it describes its decision: {quoted(described)})"
    truth = "real" if real else "fabricated"
    label = "correct" if says_exists == real else "hallucination"
    return Score(label, f"answer says the case {said}; it is {truth}")


#: Words that anchor the year a reply says a case was overruled.
OVERRULING_ANCHOR = r"overrul|reversed\s+by|abrogated"
