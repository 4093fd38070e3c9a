"""Roles: what the answer says about each candidate value, read from the task's predicate table.

An answer is cut into clauses (sentences, and the parts of a sentence between ";", a dash or a new line). Values that
stand in a list ("STEVENS, SOUTER, and BREYER, JJ.", "384 U.S. 436, 86 S. Ct. 1602") form one group and share a role,
unless a phrase stands next to one of them. A group's role comes from the nearest predicate phrase of the task's
table (`predicates.toml`) in its clause, on the side the phrase reads its value from and with no other group in
between: `answer` ("written by ..."), `aside` ("... dissented", "reaffirmed in ...", "decided in ..."), or `plain`
when no phrase is near (the paper's one-word answers). A year in parentheses after a case name dates that case
("Plessy (1896)"): it is set aside unless a phrase gives it as the answer ("overruled by Brown (1954)").

A disposition is asserted of a court: its subject is the court named before it in its clause ("the Ninth Circuit
affirmed"). A court that another disposition acts on ("the Supreme Court reversed the Ninth Circuit"), that the table
marks as the court below, or that ranks below another subject (a district court below a circuit, a circuit below the
Supreme Court) did not give the answer: its dispositions are set aside, as are ones in the pluperfect ("had upheld").
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lexprobe.hallucination.reader.candidates import Candidate

Role = Literal["answer", "aside", "plain"]
PREDICATES = Path(__file__).with_name("predicates.toml")
#: How far (characters) a phrase may stand from the value it governs.
REACH = 80

_ABBREVIATED = "".join(
    rf"(?<!\b{word})"
    for word in ("v", "vs", "Co", "Corp", "Inc", "No", "Mr", "Mrs", "Ms", "St", "Jr", "Sr", "Ct", "Ed")
)
_CLAUSE_END = re.compile(
    rf"(?<=[a-z0-9)\]\"'*]){_ABBREVIATED}(?<!\b[A-Za-z])[.!?](?=\s+[^a-z\s])|[;\n]|\s[—–-]\s|—|(?<=[a-z])\?\s"
    r"|,(?=\s+(?:but|though|although|while|whereas|however)\b)|(?<=\))\.(?=\s)"
)
_LIST_SEPARATOR = re.compile(r"^[\s,]*(?:(?:and|or|&|/|JJ\.|C\.\s?J\.|J\.)[\s,]*)*$", re.IGNORECASE)
_DATING_PARENTHETICAL = re.compile(r"[\w.]\s*\(\s*(?:[A-Za-z.]+\s+)?$")


@dataclass(frozen=True)
class Phrase:
    """One predicate phrase of a task's table: its words, the side of the value it reads and its role."""

    text: str
    pattern: re.Pattern[str]
    value_after: bool
    value_before: bool
    role: Role
    tier: int = 0


@dataclass(frozen=True)
class Table:
    """A task's predicate table: the kind of value, its phrases, what to do with several values (`compete`, or
    `longest`: the longest one not set aside is read) and the phrases that make a whole reply a description."""

    task: str
    kind: str
    phrases: tuple[Phrase, ...]
    several: str = "compete"
    describe: tuple[re.Pattern[str], ...] = ()


@dataclass(frozen=True)
class Read:
    """A candidate with its role: the phrase that gave it (None for `plain`), its clause and its list group."""

    candidate: Candidate
    role: Role
    phrase: str | None
    clause: int
    group: int
    tier: int = 0


def _phrase(text: str, role: Role, tier: int = 0) -> Phrase:
    """Compile one table phrase ("written by …")."""
    words = text.replace("…", " ").split()
    body = ""
    for word in words:  # "*" stands for up to three words: "… wrote * dissent" reads "wrote the principal dissent"
        body += r"(?:\S+\s+){0,3}?" if word == "*" else re.escape(word) + r"\s+"
    body = body.removesuffix(r"\s+")
    edge_start = r"\b" if words and words[0][0].isalnum() else ""
    edge_end = r"\b" if words and words[-1][-1].isalnum() else ""
    pattern = re.compile(f"{edge_start}{body}{edge_end}", re.IGNORECASE)
    stripped = text.strip()
    after = stripped.endswith("…") or "…" not in stripped
    before = stripped.startswith("…") or "…" not in stripped
    return Phrase(text, pattern, after, before, role, tier)


@functools.cache
def _raw() -> dict:
    """Return `predicates.toml`, read once."""
    return tomllib.loads(PREDICATES.read_text(encoding="utf-8"))


@functools.cache
def words(name: str) -> re.Pattern[str]:
    """Return the pattern of the word list `name` of the table's `[words]` ("alternative", "contrast",
    "not_parallel"): any of its phrases, as whole words."""
    return re.compile("|".join(_phrase(text, "aside").pattern.pattern for text in _raw()["words"][name]), re.I)


@functools.cache
def tables() -> dict[str, Table]:
    """Return every task's predicate table from `predicates.toml`, read once."""
    made = {}
    for task, row in _raw().items():
        if "kind" not in row:
            continue
        phrases = [_phrase(text, "answer") for text in row.get("answer", [])]
        for tier, weaker in enumerate(row.get("weaker", []), start=1):
            phrases += [_phrase(text, "answer", tier) for text in weaker]
        phrases += [_phrase(text, "aside") for text in row.get("aside", [])]
        describe = tuple(_phrase(text, "aside").pattern for text in row.get("describe", []))
        made[task] = Table(task, row["kind"], tuple(phrases), row.get("several", "compete"), describe)
    return made


def clauses(text: str) -> list[tuple[int, int]]:
    """Return the spans of the clauses of `text`."""
    spans, start = [], 0
    for match in _CLAUSE_END.finditer(text):
        spans.append((start, match.end()))
        start = match.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _groups(text: str, found: list[Candidate]) -> list[list[Candidate]]:
    """Return the candidates grouped into lists ("A, B and C"), in order."""
    grouped: list[list[Candidate]] = []
    for candidate in found:
        if grouped and _LIST_SEPARATOR.match(text[grouped[-1][-1].end : candidate.start]):
            grouped[-1].append(candidate)
        else:
            grouped.append([candidate])
    return grouped


def _nearest(text: str, table: Table, start: int, end: int, low: int, high: int) -> Phrase | None:
    """Return the phrase nearest the span [start, end) within [low, high) on the side it reads, else None."""
    best: tuple[int, int, Phrase] | None = None
    left, right = text[max(low, start - REACH) : start], text[end : min(high, end + REACH)]
    for phrase in table.phrases:
        if phrase.value_after:
            for match in phrase.pattern.finditer(left):
                distance = len(left) - match.end()
                key = (distance, -len(phrase.text))
                if best is None or key < best[:2]:
                    best = (*key, phrase)
        if phrase.value_before:
            match = phrase.pattern.search(right)
            if match:
                key = (match.start(), -len(phrase.text))
                if best is None or key < best[:2]:
                    best = (*key, phrase)
    return best[2] if best else None


def read_roles(text: str, task: str, found: list[Candidate]) -> list[Read]:
    """Return each candidate of `found` (in `text`, of `task`'s kind) with its role."""
    table = tables()[task]
    spans = clauses(text)
    grouped = _groups(text, found)
    reads: list[Read] = []
    for index, group in enumerate(grouped):
        start, end = group[0].start, group[-1].end
        clause = next((n for n, (s, e) in enumerate(spans) if s <= start < e), len(spans) - 1)
        low, high = spans[clause] if spans else (0, len(text))
        if index > 0:
            low = max(low, grouped[index - 1][-1].end)
        if index + 1 < len(grouped):
            high = min(high, grouped[index + 1][0].start)
        shared = _nearest(text, table, start, end, low, high)
        for number, candidate in enumerate(group):
            # a phrase next to one member ("written by John Roberts, Justice Ginsburg dissented") is its own
            own_low = group[number - 1].end if number else low
            own_high = group[number + 1].start if number + 1 < len(group) else high
            own = _nearest(text, table, candidate.start, candidate.end, own_low, own_high) if len(group) > 1 else None
            phrase = own or shared
            role: Role = phrase.role if phrase else "plain"
            why = phrase.text if phrase else None
            if role == "plain" and table.kind == "year" and _dates_a_case(text, candidate):
                role, why = "aside", "(…) dating a case"
            reads.append(Read(candidate, role, why, clause, index, phrase.tier if phrase else 0))
    if table.kind == "citation":
        reads = _parallels_aside(text, reads)
    if table.describe and len(reads) == 1 and reads[0].candidate.text == text.strip():
        reads = [_description_aside(text, table, reads[0])]
    if table.kind == "disposition":
        reads = _by_subject(text, reads, spans)
    return reads


_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+\S", re.MULTILINE)


def _description_aside(text: str, table: Table, read: Read) -> Read:
    """Set aside a whole reply offered as the value when it describes instead (a `describe` phrase) or lists."""
    for pattern in table.describe:
        found = pattern.search(text)
        if found:
            return Read(read.candidate, "aside", f"a description ({found.group()!r}), not a quotation", 0, 0)
    if len(_LIST_LINE.findall(text)) >= 2:
        return Read(read.candidate, "aside", "a list of points, not a quotation", 0, 0)
    return read


def _parallels_aside(text: str, reads: list[Read]) -> list[Read]:
    """Set aside the parallel citations of a list ("347 U.S. 483, 74 S. Ct. 686"): the first one stands for them.
    Citations offered as alternatives ("389 U.S. 347 or 386 U.S. 347") are no parallels."""
    first: dict[int, Read] = {}
    kept = []
    for read in reads:
        between = text[kept[-1].candidate.end : read.candidate.start] if kept else ""
        if read.group in first and read.role != "aside" and not words("not_parallel").search(between):
            why = f"parallel of {first[read.group].candidate.text.strip()}"
            kept.append(Read(read.candidate, "aside", why, read.clause, read.group, read.tier))
        else:
            first.setdefault(read.group, read)
            kept.append(read)
    return kept


def _dates_a_case(text: str, candidate: Candidate) -> bool:
    """Return True when a year stands in parentheses right after a name: "Plessy (1896)", "Roe v. Wade (1973)"."""
    return bool(_DATING_PARENTHETICAL.search(text[max(0, candidate.start - 24) : candidate.start])) and text[
        candidate.end : candidate.end + 2
    ].lstrip().startswith(")")


# --- dispositions: the court each is asserted of ---------------------------------------------------------------

_COURT_MENTION = re.compile(
    r"(?:(?:[A-Z][\w.'’]*|of|for|the|en|banc|appeals)\s+){0,6}?(?:Supreme\s+Court(?:\s+of(?:\s+(?:the|[A-Z][\w.]*))+)?|"
    r"Court\s+of\s+(?:Criminal\s+)?Appeals(?:\s+(?:for|of)\s+the\s+[\w.]+\s+Circuit)?|[\w.]+\s+Circuit|"
    r"[Dd]istrict\s+[Cc]ourt|[Tt]rial\s+[Cc]ourt|[Ll]ower\s+[Cc]ourt|[Cc]ourt\s+[Bb]elow|[Aa]ppeals\s+[Cc]ourt|"
    r"\bCourt\b|\bSCOTUS\b|\bpanel\b|\bjury\b)"
)
_PLUPERFECT = re.compile(r"\bhad\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


def _rank(court: str) -> int:
    """Return how high a court mention stands: 3 the Supreme Court (of the United States) or "the Court", 2 an
    appeals court, 1 a trial court, 0 unknown."""
    lowered = court.lower()
    if "below" in lowered or "lower" in lowered or "trial" in lowered or "district" in lowered or "jury" in lowered:
        return 1
    if "supreme court" in lowered and " of " in lowered and "united states" not in lowered:
        return 2  # a state's supreme court is the court below a Supreme Court case
    if "supreme" in lowered or "scotus" in lowered or court.strip() == "Court":
        return 3
    if "circuit" in lowered or "appeals" in lowered or "panel" in lowered:
        return 2
    return 0


def _key(court: str) -> str:
    """Return a court mention's comparison key ("the Ninth Circuit" -> "ninth circuit")."""
    return re.sub(r"^(?:the|en|banc|sitting)\s+", "", court.lower().strip()).strip()


def _by_subject(text: str, reads: list[Read], spans: list[tuple[int, int]]) -> list[Read]:
    """Set aside the dispositions asserted of a court below (see the module's rule)."""
    mentions = [(m.start(), m.end(), m.group().strip()) for m in _COURT_MENTION.finditer(text)]
    subjects: list[tuple[Read, str | None]] = []
    acted_on: set[str] = set()
    for read in reads:
        low, _high = spans[read.clause] if spans else (0, len(text))
        before = [m for m in mentions if low <= m[0] and m[1] <= read.candidate.start]
        subject = before[-1][2] if before else None
        subjects.append((read, subject))
        after = [m for m in mentions if read.candidate.end <= m[0] <= read.candidate.end + 12]
        if after:
            acted_on.add(_key(after[0][2]))
    ranks = [_rank(subject) for read, subject in subjects if subject and read.role != "aside"]
    top = max(ranks, default=0)
    result = []
    for read, subject in subjects:
        low = spans[read.clause][0] if spans else 0
        if read.role == "aside":
            result.append(read)
        elif subject and _key(subject) in acted_on and _rank(subject) < 3:
            result.append(Read(read.candidate, "aside", f"of {subject}, the court below", read.clause, read.group))
        elif subject and 0 < _rank(subject) < top:
            result.append(Read(read.candidate, "aside", f"of {subject}, a lower court", read.clause, read.group))
        elif _PLUPERFECT.search(text[low : read.candidate.start]):
            result.append(Read(read.candidate, "aside", "had … (an earlier judgment)", read.clause, read.group))
        else:
            role: Role = "answer" if subject else read.role
            result.append(Read(read.candidate, role, read.phrase or (f"of {subject}" if subject else None),
                               read.clause, read.group))  # fmt: skip
    return result
