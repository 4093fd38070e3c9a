"""Read what a document writes around a citation, where eyecite's own guesses are unreliable: the case name right
before a full citation (`name_before`), the "(court YEAR)" parenthetical after it (`year_after`; the federal
circuits are read from a table first, `circuit_court`, since eyecite 2.7.8 reads "3d Cir." as no court and "2nd
Cir." as a bankruptcy panel), the subsequent history phrase before a nameless one (`history_before`), and whether
the document itself says, next to the citation, that the case was overruled (`overruling_said`). The reasons are in
the docstring of `lexprobe.check.extract`."""

from __future__ import annotations

import re

from eyecite.helpers import get_court_by_paren

# --- case names, years, history ----------------------------------------------------------------------------------

_NAME_CONNECTORS = frozenset(
    "of the and for de del la le du von van ex rel. rel v. vs. v vs et al. al on in to by upon & an a re "  # noqa: SIM905
    "d/b/a f/k/a n/k/a as".split()
)
_STOP_CAPITALIZED = frozenset(
    "see cf. cf accord compare but contra also quoting citing under because although since while when "  # noqa: SIM905
    "and where here moreover further furthermore thus therefore following applying accordingly finally "
    "similarly likely indeed notably yet so then hence only even unlike like after before until unless if "
    "whether that this these those neither nor both either not thereafter later today earlier recently "
    "instead rather again".split()
)
#: Capitalized words that end a sentence more often than they abbreviate a party ("... the Fourteenth Amendment.").
_SENTENCE_END_WORDS = frozenset(
    ["court.", "congress.", "constitution.", "amendment.", "act.", "states.", "clause.", "government.", "statute."]
)
_INITIAL = re.compile(r"^[A-Z]\.$")
_NOT_NAMES = frozenset("court congress id ibid see cf accord".split())  # noqa: SIM905
_CORPORATE_SUFFIXES = frozenset(
    "inc. inc ltd. ltd llc l.l.c. co. corp. n.a. p.c. llp l.l.p. l.p. lp plc s.a. ag gmbh".split()  # noqa: SIM905
)
_LETTER = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"\S+")
_MAX_NAME_WORDS = 18
_HISTORY = re.compile(
    r"(?P<phrase>(?:cert\.|certiorari|aff'?d|aff’d|affirmed|rev'?d|rev’d|reversed|vacated|reh'?g|reh’g|rehearing|"
    r"appeal|dismissed|denied|granted|modified|remanded|abrogated|overruled|superseded|mem\.)"
    r"[^,;()\n]{0,60}),\s*$",
    re.I,
)


def _is_capitalized(word: str) -> bool:
    first = _LETTER.search(word)
    return first is not None and first.group().isupper() and not word[0].isdigit()


def name_before(text: str, start: int, floor: int) -> tuple[str, int] | None:
    """Return (case name, its start offset) written right before a full citation at `start`, or None.

    The name ends with the comma before the volume and starts after a signal ("See", "cf.", "But"), a lower-case
    word (a sentence: "the Court held in"), a sentence end, a semicolon or parenthesis, or `floor` (the end of the
    previous citation). "In re", "Ex parte", "Inc." after a comma and "No. 1" stay in the name.
    """
    lo = max(floor, start - 300)
    head = text[lo:start]
    comma = re.search(r",\s*$", head)
    if comma is None:
        return None
    paragraph = head.rfind("\n", 0, comma.start())
    words = list(_WORD.finditer(head, paragraph + 1, comma.start()))
    kept: list[re.Match[str]] = []
    seen_v = False
    kept_v = 0
    for m in reversed(words):
        word = m.group()
        lower = word.lower().rstrip(",")
        right = kept[-1].group().lower() if kept else ""
        if len(kept) >= _MAX_NAME_WORDS:
            break
        if _stops_name(word):
            break
        if lower in ("v.", "vs.", "v", "vs") and not seen_v:
            seen_v = True
            kept.append(m)
            kept_v = len(kept)
            continue
        if word[0].isdigit():
            left = _word_before(words, m)
            if left is None or not _is_capitalized(left) or left.endswith((")", ";", ",")):
                break
            kept.append(m)
            continue
        if word.endswith(","):
            right_word = kept[-1].group() if kept else ""
            listing = any(w.group() == "&" for w in kept[kept_v:]) if seen_v else False
            if seen_v and right not in _CORPORATE_SUFFIXES and not _INITIAL.match(right_word) and not listing:
                break  # "Atchison, Topeka & Santa Fe R. Co." and "Liberty Lobby, Inc." keep their commas
            if not seen_v and not kept:
                break
        if kept and word.endswith(".") and (lower in _SENTENCE_END_WORDS or re.fullmatch(r"[A-Z][a-z]{6,}\.", word)):
            break  # a sentence ends here: "Fourteenth Amendment. Nixon v. Herndon"
        if not _is_capitalized(word):
            if lower not in _NAME_CONNECTORS or (lower == "in" and right != "re"):
                break  # the sentence around the name: "the Court in Nashville, C. & St. L. R. Co. v. Browning"
            kept.append(m)
            continue
        if lower.rstrip(".") in _STOP_CAPITALIZED or lower in _STOP_CAPITALIZED or (lower == "in" and right != "re"):
            break
        kept.append(m)
    while kept and not _is_capitalized(kept[-1].group()):
        kept.pop()  # a name starts with a capitalized word, never with "of" or "v."
    if not kept or (len(kept) == 1 and kept[0].group().lower().strip(".,") in _NOT_NAMES):
        return None  # "... decided by this Court, 364 U.S. 263"
    name_start = lo + kept[-1].start()
    name = " ".join(text[name_start : lo + comma.start()].split()).strip("*_")  # Markdown emphasis
    return (name, name_start) if name else None


def _stops_name(word: str) -> bool:
    """A word no case name runs across: a quotation mark, a clause end, a parenthesis, punctuation alone."""
    if word.endswith((";", ":", '"', "”", "“")) or word.startswith(("“", '"')):
        return True
    bare = word.rstrip(".,")
    if (word.startswith("(") or bare.endswith((")", "]"))) and not re.fullmatch(r"\([^()]*\),?", word):
        return True
    return not re.search(r"[A-Za-z0-9&]", word)  # dot leaders, dashes, stray punctuation


def _word_before(words: list[re.Match[str]], m: re.Match[str]) -> str | None:
    index = next(i for i, w in enumerate(words) if w.start() == m.start())
    return words[index - 1].group() if index > 0 else None


_YEAR_PAREN = re.compile(
    r"(?:\s*,?\s*(?:at\s+)?[\d*][\d\s,\-–—&n.*]*?)?\s*(?:\[[^\[\]]{0,80}\]\s*)?\((?P<inner>[^()]{0,80}?)"
    r"(?P<year>1[6-9]\d\d|20\d\d)\s*\)"
)


#: The Bluebook's abbreviations of the federal courts of appeals (and "2nd", "3rd"), read before eyecite's table.
_CIRCUIT = re.compile(
    r"^(?:(?P<number>1st|2d|2nd|3d|3rd|[4-9]th|1[01]th)|(?P<dc>D\.\s?C\.)|(?P<fed>Fed\.))\s*Cir\.?$", re.I
)


def circuit_court(text: str) -> str | None:
    """The courts-db id of a federal circuit as a parenthetical names it ("3d Cir." -> "ca3"), or None."""
    m = _CIRCUIT.match(text.strip())
    if m is None:
        return None
    if m.group("dc"):
        return "cadc"
    if m.group("fed"):
        return "cafc"
    return "ca" + re.match(r"\d+", m.group("number")).group()


def year_after(text: str, end: int, limit: int) -> tuple[int, str | None, int] | None:
    """Return (year, court id, end offset) of the "(court YEAR)" parenthetical right after a citation, or None.

    Only a pin cite (", 495", ", 322-23", " at 5 n.3") may come between the citation and the parenthetical, and the
    parenthetical must close before `limit` (the next citation).
    """
    m = _YEAR_PAREN.match(text, end, min(limit, end + 200))
    if m is None:
        return None
    inner = m.group("inner")
    court_text = re.sub(r"(?:Jan|Feb|Mar|Apr|May|June?|July?|Aug|Sept?|Oct|Nov|Dec)\.?\s*\d{0,2},?\s*$", "", inner)
    court = circuit_court(court_text) or (get_court_by_paren(court_text.strip()) if court_text.strip() else None)
    return int(m.group("year")), court, m.end()


def history_before(text: str, start: int, floor: int) -> str | None:
    """Return the subsequent-history phrase ("cert. denied", "aff'd") ending with a comma right before a nameless full
    citation at `start` (looking back 80 characters, not before `floor`), whitespace collapsed, or None."""
    m = _HISTORY.search(text[max(floor, start - 80) : start])
    return " ".join(m.group("phrase").split()) if m else None


_OVERRULING_WORD = re.compile(r"\b(?:overrul\w*|abrogat\w*)", re.I)
_NEGATION = re.compile(r"\b(?:not|never|n['’]t)\s+(?:(?:yet|since|been|expressly|explicitly)\s+){0,2}$", re.I)
#: A sentence end, not after "v." or an initial ("Brown v. Board", "J. Smith").
_SENTENCE_BREAK = re.compile(r"(?<!\bv)(?<!\bvs)(?<!\b[A-Z])[.!?][\"”’)]*\s+(?=[\"“(]?[A-Z])")
#: How far before and after a citation the document's own word of its overruling is looked for.
OVERRULING_WINDOW = 200


def overruling_said(text: str, start: int, end: int, floor: int, limit: int) -> bool:
    """Whether the document says, in the citation's own sentence, that the case cited at `text[start:end]` (its name
    through its year parenthetical) was overruled or abrogated: as subsequent history ("..., overruled by X", "...,
    overruled on other grounds by X", "(abrogated by X)") or in the sentence around it ("X ... was overruled in
    1954", "the since-overruled decision in X"). Looked for after the previous citation (`floor`) and before the next
    one (`limit`), at most `OVERRULING_WINDOW` characters each side; "not overruled", "never been overruled" do not
    count."""
    before = text[max(floor, start - OVERRULING_WINDOW) : start]
    breaks = list(_SENTENCE_BREAK.finditer(before))
    if breaks:
        before = before[breaks[-1].end() :]
    after = text[end : max(end, min(limit, end + OVERRULING_WINDOW))]
    first_break = _SENTENCE_BREAK.search(after)
    if first_break is not None:
        after = after[: first_break.start() + 1]
    return any(
        not _NEGATION.search(piece[: m.start()]) for piece in (before, after) for m in _OVERRULING_WORD.finditer(piece)
    )
