"""Split a combined opinion text into its opinions: the majority part and each concurrence, dissent or statement,
with its author and type, as character offsets into the text. The one splitter of lexprobe: the case database build
stores what it finds (`opinion_index.write_parts`, table `opinion_parts`), and the hallucination scorer's
`ScoringContext.majority_text` calls it.

A combined opinion file (CourtListener's `010combined`, the text of a case without a lead file, or beside it) holds
the majority opinion followed by its concurrences and dissents. A separate opinion starts at a heading at a
sentence or line start (a star page mark such as "*858", or a paragraph number, may come first and belongs to the
new part):

- "Mr. Justice Sutherland, dissenting:", "MR. JUSTICE STEWART, with whom MR. JUSTICE CLARK ... join, dissenting.",
  "MR. JUSTICE FRANKFURTER, whom MR. JUSTICE JACKSON joins, concurring in the judgment of the Court;",
  "MR. JUSTICE BREWER, with whom ... concurred, dissenting.", "MR. JUSTICE HARLAN, with whom concurs MR. JUSTICE
  DAY, dissenting.", "JUSTICE BRENNAN, with whom ... join, and with whom JUSTICE STEVENS joins as to Parts II-B,
  II-C, and III, concurring in the judgment in part and dissenting in part.", "Rehnquist, C. J., concurring in part
  and dissenting in part.", "MR. JUSTICE FRANKFURTER, ... dissenting on the main issue.", "MR. JUSTICE CLARK,
  dissenting in Nos. 759, 760, and 761, and concurring in the result in No. 584.", "MR. JUSTICE STONE and MR.
  JUSTICE CARDOZO, concurring in the result:", "MR. JUSTICE CARDOZO (dissenting in Nos. 636, ...).", "Opinion of
  MR. JUSTICE RUTLEDGE, dissenting, announced by the CHIEF JUSTICE.", and a lower court's "TAMM, Circuit Judge,
  dissenting in part:";
- a bare "MR. JUSTICE DOUGLAS." (or "Mr. Justice MILLER:") on its own line, or "*657 MR. JUSTICE BLACKMUN, joined
  by THE CHIEF JUSTICE, ... ." as a sentence of its own, whose next paragraph opens as a separate opinion does
  ("While I join the opinion of the Court, ...", "I concur in ...", "I would ...");
- "Separate opinion of MR. JUSTICE McREYNOLDS.", "Statement of JUSTICE STEVENS respecting the denial of ...".

A citation's "(Scalia, J., dissenting)" is no heading, nor is "(MR. JUSTICE FORTAS, concurring)", "[For concurring
opinion of Mr. Justice Frankfurter, see post, p. 542.]", "Justice Holmes, dissenting in Gitlow v. New York, ...",
"JUSTICE POWELL, concurring in the result, criticized ..." or "APPENDIX TO OPINION OF MR. JUSTICE DOUGLAS,
DISSENTING." (an appendix stays with its opinion). A text whose first heading has no text before it (the file of a
separate opinion) is that opinion up to its second heading, if any: such files, and the Court's opinion files,
sometimes hold further opinions (CourtListener's Miranda concurrence file is Clark's opinion and then Harlan's
dissent), and they are split the same way.

The type follows the heading's words: "dissenting" is a `dissent`; "concurring", "concurring in the judgment" or
"in the result" a `concurrence`; a heading that both concurs and dissents, or concurs or dissents "in part", a
`concurrence_in_part`; a statement a `statement`; a bare heading or a "Separate opinion of ..." by the first sentence
of its opinion: "I concur ... and dissent ..." a `concurrence_in_part`, "I dissent" a `dissent`, "I concur" a
`concurrence`, anything else `separate`. The author is the surname as the heading gives it ("Sutherland",
"STEWART", "O'CONNOR", "TAMM"; "THE CHIEF JUSTICE" where the heading names no one; the first named where several
write together).

Notes: such files print the footnotes after the last separate opinion. The notes from there on (a "[1]"-style note
at a line start, or a flattened "1 Allgeyer v. Louisiana, ...") go with the majority part, up to where "[N]"
numbering starts again; each later series (where the numbering starts again) is the notes of the next separate
opinion that refers to notes ("...[1]" in its text), when there are as many series as such opinions, and else all of
them are one more part, "notes of the separate opinions" (type `separate`, author unknown). Known limit: flattened
notes cannot be told apart, so a separate opinion's flattened notes count as the majority's.

Speed: the heading patterns are tried only near the words they need ("concurring", "dissenting", "I join", ...),
found with `str.find`, so a 100,000-character text costs about a millisecond; the matches are exactly those of a
scan of the whole text (no heading is longer than the window around its words).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: What a part of a combined text can be.
PART_TYPES = ("majority", "dissent", "concurrence", "concurrence_in_part", "statement", "separate")

_NAME = r"[A-Z][A-Za-z'’\-]+(?:\s+(?:[A-Z]\.\s*)?[A-Z][A-Za-z'’\-]+){0,2}"
_TITLE = r"(?:M[rRbBeE]\.?\s*)?(?:(?:CHIEF|Chief)\s+)?(?:JUSTICE|Justice)\s+"
_JUSTICE = (
    rf"{_TITLE}{_NAME}"  # "Mr. Justice Stewart"
    r"|(?:THE|The)\s+(?:CHIEF|Chief)\s+(?:JUSTICE|Justice)"  # "THE CHIEF JUSTICE"
    rf"|{_NAME},\s+(?:C\.\s?)?J\."  # "Rehnquist, C. J."
    rf"|{_NAME},\s+(?:(?:Chief|Circuit|District|Senior|Associate)\s+)?(?:Judge|Justice)"  # "TAMM, Circuit Judge"
)
#: A sentence or line start, not the space after "Mr." ("(MR. JUSTICE FORTAS, concurring)" is a citation's).
_START = r"(?:^|(?<=[.!?:;\]\"”’)]\s)(?<![Mm][rRbBeE]\.\s)|(?<=\n))"
#: A star page mark ("*858 JUSTICE MARSHALL, ...") or a paragraph number ("28 Mr. Justice MURPHY, ...") first.
_STAR = r"(?:\*{1,3}\d{1,4}[A-Z]?\s+|\d{1,3}\s+)?"
_KIND = (
    r"(?:concurring|dissenting)"
    r"(?:\s+in\s+(?:part|the\s+(?:judgment|result)(?:\s+in\s+part|\s+of\s+the\s+Court)?))?"
)
_CO_AUTHORS = rf"(?:,?\s+(?:and\s+)?(?:{_JUSTICE})){{0,4}}"  # "MR. JUSTICE STONE and MR. JUSTICE CARDOZO, ..."
_WHOM = (
    r"(?:,?\s+(?:(?:and\s+)?with,?\s+)?whom\s+"
    r"(?:.{1,400}?\s+(?:join(?:s|ed)?|concur(?:s|red)?)|(?:join(?:s|ed)?|concur(?:s|red)?|was|were)\s+.{1,400}?)"
    r"(?:\s+(?:as\s+to|in)\s+.{1,120}?)?)?"
)
#: What may follow the kind words before the heading ends: "in No. 759", "in the judgments", "in affirmance of the
#: judgment", "on the main issue", "as to the opinion of THE CHIEF JUSTICE", up to the first period, colon or
#: semicolon, with no comma but before "and" or a number; never a case name ("dissenting in Gitlow v. New York" cites
#: an opinion) nor a sentence going on ("concurring in the result, criticized ...").
_QUALIFIER = (
    r"(?:\s+(?:in\s+Nos?\.|in\s+(?:the\s+)?(?:judgments?|affirmance|result)|on\s+the\s+main|as\s+to\s+the\s+opinion)"
    r"(?:[^\n.:;,]|Nos?\.|,(?=\s+(?:and\b|\d))){0,160}?)?"
    r"(?:,\s+announced\s+by\s+[^.\n]{1,60})?"  # "Opinion of MR. JUSTICE RUTLEDGE, dissenting, announced by ..."
)

#: The heading of a concurrence or dissent in a combined opinion file (see the module docstring).
SEPARATE_HEADING = re.compile(
    rf"{_START}{_STAR}(?:(?:Opinion|OPINION)\s+of\s+)?(?P<who>{_JUSTICE}){_CO_AUTHORS}{_WHOM},?\s+(?P<paren>\()?"
    rf"(?P<kind>{_KIND}(?:,?\s+and\s+{_KIND}){{0,2}}){_QUALIFIER}(?(paren)\))\s*[.:;](?=\s|\[|$)"
)
#: A bare heading ("MR. JUSTICE DOUGLAS." or "Mr. Justice MILLER:" on its own line, or "MR. JUSTICE BLACKMUN,
#: joined by THE CHIEF JUSTICE, ...." as a sentence of its own) whose next paragraph opens as a separate opinion
#: does ("While I join the opinion of the Court, ...", "I concur in ...", "I would ...").
BARE_HEADING = re.compile(
    rf"(?:(?:^|(?<=\n)){_STAR}(?P<who>{_JUSTICE})[.:][ \t]*\n"
    rf"|{_START}{_STAR}(?P<joined>{_JUSTICE}),\s+joined\s+by\s+.{{1,200}}?\.)\s*"
    r"(?=(?:While|Although|Though)\s+I\s+(?:join|agree|concur)|I\s+(?:join|concur|agree|dissent|would|write)\b)"
)
#: "Statement of JUSTICE STEVENS respecting the denial of the petition for writ of certiorari."
STATEMENT_HEADING = re.compile(rf"{_START}{_STAR}(?:Statement|STATEMENT)\s+of\s+(?P<who>{_JUSTICE})\s+respecting\s+")
#: "Separate opinion of MR. JUSTICE McREYNOLDS." (also of several: "... of MR. JUSTICE McREYNOLDS and MR. JUSTICE
#: BUTLER.").
SEPARATE_OPINION_HEADING = re.compile(
    rf"{_START}{_STAR}(?:Separate|SEPARATE)\s+(?:opinion|OPINION)\s+of\s+(?P<who>{_JUSTICE})(?=\s*[,.:]|\s+and\s)"
)
#: The kind words of the headings that give none themselves.
_FIXED_KINDS = {STATEMENT_HEADING: "statement", SEPARATE_OPINION_HEADING: "separate opinion"}

#: Where the footnotes a combined file prints after its last separate opinion begin: a "[1]"-style note at a line
#: start, or a flattened "1 Allgeyer v. Louisiana, ..." (a lone number before a case name after a sentence's end).
#: (Two patterns, each with a character to scan for first: a third of the time of one pattern with a look-behind.)
_BRACKETED_NOTE = re.compile(r"\n\s*\[\d{1,3}\]\s")
_FLATTENED_NOTE = re.compile(r"[.;:)\]\"”]\s(1)\s+(?=(?:[A-Z][\w.'’&-]*\s+){1,6}v\.\s)")
_NOTE_NUMBER = re.compile(r"\n\s*\[(\d{1,3})\]\s")
_NOTE_REFERENCE = re.compile(r"(?<![\n\s])\[\d{1,3}\]")  # "... unconstitutional.[3] The" (not a note's own number)
_FIRST_SENTENCE = re.compile(r"\s*[^.]{0,300}")
_CONCUR, _DISSENT = re.compile(r"\bI\s+concur\b"), re.compile(r"\b(?:I|and)\s+dissent(?![\w'’])")
_TITLE_WORDS = re.compile(rf"^{_TITLE}|,\s+(?:(?:C\.\s?)?J\.|(?:[A-Z][a-z]+\s+)?(?:Judge|Justice))$")

#: Each pattern, the words one of its matches must hold, and how far (characters) a match reaches before and after
#: the start of those words: the window `_near` scans.
_SCANS: tuple[tuple[re.Pattern[str], tuple[str, ...], int, int], ...] = (
    (SEPARATE_HEADING, ("concurring", "dissenting"), 1_000, 250),
    (BARE_HEADING, ("I join", "I concur", "I agree", "I dissent", "I would", "I write"), 400, 10),
    (STATEMENT_HEADING, ("tatement of", "TATEMENT of"), 20, 200),
    (SEPARATE_OPINION_HEADING, ("eparate opinion of", "EPARATE OPINION OF"), 20, 200),
)


@dataclass(frozen=True)
class OpinionPart:
    """One opinion of a combined text: `number` 0 is the majority part, 1, 2, ... the separate opinions in order.
    `spans` are its character ranges in the combined text (the majority part: its own text, and the notes printed
    after the last separate opinion when there are any); `heading` is the separate opinion's heading ("Mr. Justice
    Stewart, dissenting"; "" for the majority part) and `author` the surname it gives (None for the majority part:
    the combined text's author is its author)."""

    number: int
    opinion_type: str
    author: str | None
    heading: str
    spans: tuple[tuple[int, int], ...]

    @property
    def start(self) -> int:
        """Where the part begins in the combined text."""
        return self.spans[0][0]

    @property
    def end(self) -> int:
        """Where the part's own text (before any notes) ends in the combined text."""
        return self.spans[0][1]

    def text_of(self, text: str) -> str:
        """The part's text, cut from the combined `text` (spans joined by a blank line)."""
        return "\n\n".join(text[start:end] for start, end in self.spans)


def split_combined(text: str) -> list[OpinionPart]:
    """Return the parts of a combined opinion text, the majority part first (see the module docstring); a text
    without a separate-opinion heading after some text is one majority part, and a text that opens with a heading
    (a separate opinion's own file) is that opinion up to the next heading, then the others. Raises nothing."""
    text = text or ""
    headings = _headings(text)
    own = None
    if headings and not text[: headings[0].start()].strip():  # no majority part before it: a separate opinion
        own, headings = headings[0], headings[1:]
    if not headings:
        return [_part(0, own, text, ((0, len(text)),))]
    notes = _notes_start(text, headings[-1].end())
    notes_at = notes if notes is not None else len(text)
    series = _note_series(text, notes_at) if notes is not None else []
    parts = [_part(0, own, text, ((0, headings[0].start()), *series[:1]))]
    own_spans = [
        ((heading.start(), headings[number].start() if number < len(headings) else notes_at),)
        for number, heading in enumerate(headings, start=1)
    ]
    with_notes = [number for number, spans in enumerate(own_spans) if _NOTE_REFERENCE.search(text, *spans[0])]
    later = series[1:]
    if len(later) == len(with_notes):  # each opinion with note references takes the next series of notes
        for number, note_span in zip(with_notes, later, strict=True):
            own_spans[number] += (note_span,)
        later = []
    for number, heading in enumerate(headings, start=1):
        parts.append(_part(number, heading, text, own_spans[number - 1]))
    if later:  # notes that cannot be told apart: a part of their own
        parts.append(OpinionPart(len(parts), "separate", None, "notes of the separate opinions", tuple(later)))
    return parts


def _part(number: int, heading: re.Match[str] | None, text: str, spans: tuple[tuple[int, int], ...]) -> OpinionPart:
    """The part a heading opens (the majority part when there is none)."""
    if heading is None:
        return OpinionPart(number, "majority", None, "", spans)
    kind, opening = _kind_of(heading, text)
    who = " ".join((heading.groupdict().get("joined") or heading.group("who")).split())
    label = f"Statement of {who}" if kind == "statement" else f"{who}, {kind}"
    return OpinionPart(number, _part_type(kind, opening), surname(who), label, spans)


def surname(who: str) -> str:
    """The name a heading gives, without its title: "Mr. Justice Van Devanter" -> "Van Devanter", "Rehnquist, C. J."
    -> "Rehnquist"; "THE CHIEF JUSTICE" stays."""
    who = " ".join(who.split())
    if re.fullmatch(r"(?i:the\s+chief\s+justice)", who):
        return who
    return _TITLE_WORDS.sub("", who).strip() or who


def _kind_of(heading: re.Match[str], text: str) -> tuple[str, str]:
    """The heading's kind words ("concurring in the judgment"; "separate opinion" for a bare heading or a "Separate
    opinion of ...", "statement") and, for those two, the first sentence after it ("I concur in the result ...")."""
    kind = _FIXED_KINDS.get(heading.re) or " ".join((heading.groupdict().get("kind") or "separate opinion").split())
    if kind != "separate opinion":
        return kind, ""
    return kind, _FIRST_SENTENCE.match(text, heading.end()).group()


def _part_type(kind: str, opening: str) -> str:
    """The `PART_TYPES` entry of a heading's kind words, or of the first sentence of a bare heading's opinion (see
    the module docstring)."""
    if kind == "statement":
        return "statement"
    if kind == "separate opinion":
        concurs, dissents = bool(_CONCUR.search(opening)), bool(_DISSENT.search(opening))
        if not (concurs or dissents):
            return "separate"
        return "concurrence_in_part" if concurs and dissents else "dissent" if dissents else "concurrence"
    concurs, dissents = "concurring" in kind, "dissenting" in kind
    if (concurs and dissents) or "dissenting in part" in kind or re.search(r"concurring in part(?! and concur)", kind):
        return "concurrence_in_part"
    return "dissent" if dissents else "concurrence"


def _headings(text: str) -> list[re.Match[str]]:
    """Every heading of a separate opinion in `text`, in order (overlaps: the earlier one wins)."""
    found = sorted((m for pattern, words, before, after in _SCANS for m in _near(pattern, text, words, before, after)),
                   key=lambda match: match.start())  # fmt: skip
    kept: list[re.Match[str]] = []
    for match in found:
        if not kept or match.start() >= kept[-1].end():
            kept.append(match)
    return kept


def _near(pattern: re.Pattern[str], text: str, words: Sequence[str], before: int, after: int) -> Iterator[re.Match]:
    """The matches of `pattern` in `text`, looked for only in windows around the places `words` occur."""
    hits = sorted(at for word in words for at in _occurrences(text, word))
    windows: list[list[int]] = []
    for at in hits:
        low, high = max(0, at - before), min(len(text), at + after)
        if windows and low <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], high)
        else:
            windows.append([low, high])
    for low, high in windows:
        yield from pattern.finditer(text, low, high)


def _occurrences(text: str, word: str) -> Iterator[int]:
    at = text.find(word)
    while at != -1:
        yield at
        at = text.find(word, at + 1)


def _notes_start(text: str, start: int) -> int | None:
    """Where the first note from `start` on begins (a "[1]"-style note at a line start, or a flattened "1 Allgeyer v.
    Louisiana, ..." after a sentence's end), or None."""
    bracketed = _BRACKETED_NOTE.search(text, start)
    end = bracketed.start() if bracketed else len(text)
    flattened = _FLATTENED_NOTE.search(text, max(0, start - 2), min(len(text), end + 200))
    while flattened and flattened.start(1) < start:
        flattened = _FLATTENED_NOTE.search(text, flattened.start() + 1, min(len(text), end + 200))
    if flattened and flattened.start(1) < end:
        return flattened.start(1)
    return bracketed.start() if bracketed else None


def _note_series(text: str, start: int) -> list[tuple[int, int]]:
    """The series of notes from `start` on: a new one where "[N]" numbering starts again (the next opinion's
    notes); the first begins at `start`, the last ends with the text."""
    bounds = [start]
    previous = 0
    for match in _NOTE_NUMBER.finditer(text, max(0, start - 1)):
        number = int(match.group(1))
        if previous and number <= previous and match.start() > bounds[-1]:
            bounds.append(match.start())
        previous = number
    bounds.append(len(text))
    return list(itertools.pairwise(bounds))
