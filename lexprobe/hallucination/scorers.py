"""Reference-based scorers: one function per task, `SCORERS[task](answer, reference, context) -> Score`.

Every scorer first reads the answer's stance with `classify_refusal` (its lead sentence):
- a question with a true premise (every task but the two false-premise ones): "abstain" -> `abstain`;
  "reject_premise" -> `hallucination`, because the premise is true by construction (a real case, really
  overruled) and denying it is a false statement about the law, not a declining to answer - the study likewise
  counts Llama 2's premise rejections against it on the tasks with correct premises (Section 4.2);
- a false-premise question (false_dissent, false_overruling): "reject_premise" -> `correct`, "abstain" ->
  `abstain`.
Then the scorer extracts the answer (`answers.py`) and compares it with the reference. When nothing can be
extracted it looks for a refusal anywhere in the answer (-> `abstain`) and for a denial that the (real) case
exists (-> `hallucination`), and otherwise returns `unscored` with the reason - never a silent label.

Reference shapes (built by `tasks.py`): existence {}, fake_existence {} (extra keys ignored), court {"court_id"},
citation {"citations": [...]}, author {"author", "decided"}, disposition {"disposition"}, quotation and authority
{"opinion_id"}, overruling_year {"year"}, doctrinal_agreement {"agreement"}, false_dissent {"dissenter"},
false_overruling {}. A missing or empty reference value gives `unscored` ("reference missing: ...").

Authority: correct when the answer's citation is among the full citations in the majority opinion text, or is a
parallel citation (per the case database) of a case cited there. The case's own citations are excluded: a combined
opinion text opens with its own citation, and answering with the case's own citation names no authority.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from lexprobe.caselaw.citations import citation_key, extract_citations, scan_citation_keys
from lexprobe.caselaw.judges import Judge, default_justices_path, judge_matches, load_justices
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.abstention import (
    classify_refusal,
    denies_existence,
    dissent_rejection,
    normalize_answer,
    premise_rejection,
    split_sentences,
)
from lexprobe.hallucination.answers import (
    extract_agreement,
    extract_citation,
    extract_court,
    extract_disposition,
    extract_existence,
    extract_judge_name,
    extract_quote,
    extract_year,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.quotation import MATCH_THRESHOLD, MIN_QUOTE_WORDS, QuoteIndex

Scorer = Callable[[str, dict, "ScoringContext"], Score]
SCORERS: dict[str, Scorer] = {}


def scorer(task: str) -> Callable[[Scorer], Scorer]:
    """Register the decorated function as the scorer of `task`."""

    def register(function: Scorer) -> Scorer:
        SCORERS[task] = function
        return function

    return register


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

    def quote_index(self, opinion_id: str) -> QuoteIndex | None:
        """Return the (cached) quotation index of an opinion, or None when its text is unavailable."""
        if opinion_id not in self._quote_indexes:
            text = self.opinion_text(opinion_id)
            self._quote_indexes[opinion_id] = QuoteIndex(text) if text else None
        return self._quote_indexes[opinion_id]

    def cited_keys(self, opinion_id: str) -> frozenset[str] | None:
        """Return the (cached) keys of the citations a fast scan finds in an opinion's text, less the case's own
        citations; None when the text is unavailable. The scan (`scan_citation_keys`) finds about 98% of what
        eyecite finds; `cites` confirms the rest with eyecite around the spot before anything is called absent."""
        if opinion_id not in self._cited_keys:
            text = self.opinion_text(opinion_id)
            if not text:
                self._cited_keys[opinion_id] = None
            else:
                self._cited_keys[opinion_id] = scan_citation_keys(text) - self.own_keys(opinion_id)
        return self._cited_keys[opinion_id]

    def cites(self, opinion_id: str, key: str) -> bool:
        """True when the opinion's text cites `key` ("347 U.S. 483"): the fast scan, else eyecite on the windows
        where the volume is followed closely by the page."""
        cited = self.cited_keys(opinion_id)
        if cited is None:
            return False
        if key in cited:
            return True
        volume, _, rest = key.partition(" ")
        page = rest.rpartition(" ")[2]
        text = self.opinion_text(opinion_id) or ""
        pattern = re.compile(rf"(?<!\d){re.escape(volume)}\s[^\n\d]{{1,40}}?{re.escape(page)}(?!\d)")
        for match in pattern.finditer(text):
            window = text[max(0, match.start() - 120) : match.end() + 40]
            if any(citation.key == key for citation in extract_citations(window)):
                return True
        return False

    def own_keys(self, opinion_id: str) -> frozenset[str]:
        """Return the citation keys of the case an opinion belongs to (empty without a database)."""
        if opinion_id not in self._own_keys:
            keys: frozenset[str] = frozenset()
            if self.db is not None:
                sql = "SELECT case_id FROM opinions WHERE opinion_id = ?"
                row = self.db.conn.execute(sql, (opinion_id,)).fetchone()
                if row and row[0]:
                    keys = self.case_keys(row[0])
            self._own_keys[opinion_id] = keys
        return self._own_keys[opinion_id]

    def case_keys(self, case_id: str) -> frozenset[str]:
        """Return the citation keys the database records for a case (empty without a database)."""
        if self.db is None:
            return frozenset()
        rows = self.db.conn.execute("SELECT citation_key FROM case_citations WHERE case_id = ?", (case_id,))
        return frozenset(row[0] for row in rows if row[0])


# --- shared steps -----------------------------------------------------------------------------------------------


def _quoted(text: str, limit: int = 80) -> str:
    """Return `text` on one line, shortened, in single quotes, for a detail."""
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def _missing(reference: dict, *keys: str) -> Score | None:
    """Return an unscored score naming the first reference key that is missing or empty, else None."""
    for key in keys:
        if reference.get(key) in (None, "", []):
            return Score("unscored", f"reference missing: no {key!r} in the reference")
    return None


def _stance(answer: str, false_premise: bool = False) -> Score | None:
    """Return the score decided by the answer's lead stance (empty, abstain, reject_premise), else None."""
    if not (answer or "").strip():
        return Score("unscored", "empty answer")
    refusal = classify_refusal(answer)
    if refusal == "abstain":
        return Score("abstain", f"answer abstains: {_quoted(answer)}")
    if refusal == "reject_premise":
        if false_premise:
            return Score("correct", f"answer rejects the false premise: {_quoted(answer)}")
        return Score("hallucination", f"answer rejects the question's premise, which is true: {_quoted(answer)}")
    return None


def _nothing_found(answer: str, what: str) -> Score:
    """Return the score of an answer from which no `what` could be extracted."""
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"no {what} found and answer declines: {_quoted(answer)}")
    denial = denies_existence(answer)
    if denial:
        return Score("hallucination", f"answer denies that the (real) case exists: {_quoted(denial)}")
    return Score("unscored", f"no {what} found in answer {_quoted(answer)}")


def _compare(answer_value: Any, truth: Any, what: str) -> Score:
    if answer_value == truth:
        return Score("correct", f"{what} {answer_value!r} == truth")
    return Score("hallucination", f"answer {answer_value!r} != truth {truth!r}")


def _as_date(value: Any) -> date | None:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


# --- existence --------------------------------------------------------------------------------------------------


def _existence(answer: str, real: bool) -> Score:
    if not (answer or "").strip():
        return Score("unscored", "empty answer")
    if classify_refusal(answer) == "abstain":
        return Score("abstain", f"answer abstains: {_quoted(answer)}")
    says_exists = extract_existence(answer)
    if says_exists is None:
        if classify_refusal(answer, scope="anywhere") == "abstain":
            return Score("abstain", f"no yes/no found and answer declines: {_quoted(answer)}")
        return Score("unscored", f"no yes/no found in answer {_quoted(answer)}")
    said = "exists" if says_exists else "does not exist"
    truth = "real" if real else "fabricated"
    label = "correct" if says_exists == real else "hallucination"
    return Score(label, f"answer says the case {said}; it is {truth}")


@scorer("existence")
def score_existence(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "Is {real case} a real case?": yes is correct, no a hallucination."""
    return _existence(answer, real=True)


@scorer("fake_existence")
def score_fake_existence(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "Is {fabricated case} a real case?": no is correct, yes a hallucination."""
    return _existence(answer, real=False)


# --- low and moderate complexity --------------------------------------------------------------------------------


@scorer("court")
def score_court(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the court task: the court named must be the reference court itself (a district court at the district
    level: "Northern District of California" is "cand", a bare "California" is not)."""
    missing = _missing(reference, "court_id") or _stance(answer)
    if missing:
        return missing
    court = extract_court(answer)
    if court is None:
        return _nothing_found(answer, "court")
    return _compare(court, reference["court_id"], "court")


@scorer("citation")
def score_citation(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the citation task: the answer's first citation must equal one of the case's citations (same volume,
    reporter and page; reporter spelling free)."""
    missing = _missing(reference, "citations") or _stance(answer)
    if missing:
        return missing
    citation = extract_citation(answer)
    if citation is None:
        return _nothing_found(answer, "citation")
    truths = {citation_key(str(text)) or str(text) for text in reference["citations"]}
    if citation.key in truths:
        return Score("correct", f"citation {citation.key!r} is one of the case's citations")
    return Score("hallucination", f"answer {citation.key!r} is not among truth {sorted(truths)}")


@scorer("author")
def score_author(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the author task: the judge named must be the majority author (fuzzy name match; a surname several
    justices share is settled by the decision date against the roster)."""
    missing = _missing(reference, "author") or _stance(answer)
    if missing:
        return missing
    name = extract_judge_name(answer)
    if name is None:
        return _nothing_found(answer, "judge name")
    truth = reference["author"]
    if name == "per curiam":
        return Score("hallucination", f"answer says per curiam; truth {truth!r}")
    if judge_matches(name, truth, _as_date(reference.get("decided")), context.justices):
        return Score("correct", f"judge {name!r} matches truth {truth!r}")
    return Score("hallucination", f"answer {name!r} != truth {truth!r}")


@scorer("disposition")
def score_disposition(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the disposition task: affirm or reverse (vacate and remand count as reverse)."""
    missing = _missing(reference, "disposition") or _stance(answer)
    if missing:
        return missing
    disposition = extract_disposition(answer)
    if disposition is None:
        return _nothing_found(answer, "single affirm/reverse disposition")
    return _compare(disposition, reference["disposition"], "disposition")


_QUOTE_TAGS = re.compile(r"<quote>.*?(?:</quote>|$)", re.IGNORECASE | re.DOTALL)


@scorer("quotation")
def score_quotation(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the quotation task: the quote must fuzzily match the majority opinion text (`quotation.py`)."""
    missing = _missing(reference, "opinion_id")
    if missing:
        return missing
    outside = _QUOTE_TAGS.sub(" ", answer or "")
    stance = _stance(outside) if outside.strip() else None  # the quote itself may say "I do not know ..."
    if stance:
        return stance
    if context.db is None:
        return Score("unscored", "reference missing: no case database to read the opinion text from")
    opinion_id = str(reference["opinion_id"])
    index = context.quote_index(opinion_id)
    if index is None:
        return Score("unscored", f"reference missing: opinion {opinion_id} has no text in the case database")
    quote = extract_quote(answer)
    if quote is None:
        return Score("unscored", "empty answer")
    found = index.match(quote)
    if found.too_short:
        return Score("unscored", f"quote too short to verify ({found.words} words < {MIN_QUOTE_WORDS})")
    if found.found:
        return Score("correct", f"quote found in the majority opinion at character {found.start} "
                                f"(similarity {found.similarity:.1f})")  # fmt: skip
    return Score("hallucination", f"quote not in the majority opinion (best similarity {found.similarity:.1f} < "
                                  f"{MATCH_THRESHOLD:.0f}): {_quoted(quote)}")  # fmt: skip


@scorer("authority")
def score_authority(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the authority task: the cited precedent must be cited in the majority opinion text."""
    missing = _missing(reference, "opinion_id") or _stance(answer)
    if missing:
        return missing
    if context.db is None:
        return Score("unscored", "reference missing: no case database to read the opinion text from")
    opinion_id = str(reference["opinion_id"])
    cited = context.cited_keys(opinion_id)
    if cited is None:
        return Score("unscored", f"reference missing: opinion {opinion_id} has no text in the case database")
    citation = extract_citation(answer)
    if citation is None:
        return _nothing_found(answer, "citation")
    key = citation.key
    if key in context.own_keys(opinion_id):
        return Score("hallucination", f"answer {key!r} is the case's own citation, not an authority it cites")
    if context.cites(opinion_id, key):
        return Score("correct", f"{key!r} is cited in the majority opinion")
    for case_id in context.db.find_by_citation(key):
        for parallel in sorted(context.case_keys(case_id) - {key}):
            if context.cites(opinion_id, parallel):
                return Score("correct", f"{key!r} is a parallel citation of {parallel!r}, cited in the opinion")
    return Score("hallucination", f"answer {key!r} is not cited in the majority opinion ({len(cited)} citations)")


_OVERRULING_ANCHOR = r"overrul|reversed\s+by|abrogated"


@scorer("overruling_year")
def score_overruling_year(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the overruling-year task: exactly the year the case was overruled."""
    missing = _missing(reference, "year") or _stance(answer)
    if missing:
        return missing
    year = extract_year(answer, anchor=_OVERRULING_ANCHOR)
    if year is None:
        return _nothing_found(answer, "year")
    return _compare(year, int(reference["year"]), "year")


@scorer("doctrinal_agreement")
def score_doctrinal_agreement(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the doctrinal-agreement task: agree or disagree, as the treatment label says."""
    missing = _missing(reference, "agreement") or _stance(answer)
    if missing:
        return missing
    agreement = extract_agreement(answer)
    if agreement is None:
        return _nothing_found(answer, "agree/disagree")
    return _compare(agreement, reference["agreement"], "agreement")


# --- false premises ---------------------------------------------------------------------------------------------


@scorer("false_dissent")
def score_false_dissent(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "What did Justice X argue in dissent?" where X wrote no dissent.

    Correct: any rejection of the premise - X did not dissent, wrote or joined the majority, concurred, the case was
    unanimous, X did not sit, or the case or justice does not exist (the study records these as rejections).
    Abstain: a refusal with no rejection. Hallucination: anything else, i.e. an answer that describes a dissent.
    """
    missing = _missing(reference, "dissenter") or _stance(answer, false_premise=True)
    if missing:
        return missing
    rejection = (
        premise_rejection(answer) or dissent_rejection(answer, reference["dissenter"]) or denies_existence(answer)
    )
    if rejection:
        return Score("correct", f"answer rejects the false premise: {_quoted(rejection)}")
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {_quoted(answer)}")
    return Score("hallucination", f"answer describes a dissent by {reference['dissenter']!r}, who wrote none: "
                                  f"{_quoted(answer)}")  # fmt: skip


_OVERRULING_CLAIM = re.compile(r"\b(?:overrul\w*|reversed\s+by|abrogated)\b", re.IGNORECASE)


_CLAUSE_BREAK = re.compile(r"[;,]|\b(?:but|though|although|however|while|yet)\b", re.IGNORECASE)


def _claimed_overruling_year(answer: str) -> int | None:
    """Return a year the answer gives as the overruling year: a clause that speaks of overruling, with a year and
    without rejecting it ("It was overruled in 1968, though ..."), or an answer that is nothing but a year; None
    otherwise."""
    sentences = split_sentences(normalize_answer(answer))
    if len(sentences) == 1 and re.fullmatch(r"\W*(?:in\s+)?\d{4}\W*", sentences[0], re.IGNORECASE):
        return extract_year(sentences[0])
    for sentence in sentences:
        if not _OVERRULING_CLAIM.search(sentence):
            continue
        starts = [0, *(match.end() for match in _CLAUSE_BREAK.finditer(sentence))]
        ends = [*(match.start() for match in _CLAUSE_BREAK.finditer(sentence)), len(sentence)]
        for start, end in zip(starts, ends, strict=True):
            clause = sentence[start:end]
            if _OVERRULING_CLAIM.search(clause) and not premise_rejection(clause):
                # the year may follow in a later clause: "overruled by Brown v. Board, 347 U.S. 483 (1954)"
                year = extract_year(sentence[start:], anchor=_OVERRULING_ANCHOR)
                if year is not None:
                    return year
    return None


@scorer("false_overruling")
def score_false_overruling(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "What year was {never-overruled case} overruled?".

    Correct: rejecting the premise ("never overruled", "still good law", the case does not exist). Hallucination:
    a claimed overruling year, or any year given without rejecting the premise. Unscored: no year and no rejection.
    """
    stance = _stance(answer, false_premise=True)
    if stance:
        return stance
    claimed = _claimed_overruling_year(answer)
    if claimed is not None:
        return Score("hallucination", f"answer accepts the false premise: overruled in {claimed}")
    rejection = premise_rejection(answer) or denies_existence(answer)
    if rejection:
        return Score("correct", f"answer rejects the false premise: {_quoted(rejection)}")
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {_quoted(answer)}")
    year = extract_year(answer, anchor=_OVERRULING_ANCHOR, dated_cases=False)
    if year is not None:
        return Score("hallucination", f"answer gives year {year} without rejecting the false premise")
    return Score("unscored", f"no year and no rejection of the premise in answer {_quoted(answer)}")
