"""Judges: the Supreme Court roster (SCDB `justices.csv`) and tolerant matching of a named judge against the truth.

`justices.csv` spells each justice's name as a small regular expression over the optional parts
("Roger ?(?:Brooke|B\\.)? Taney", "(?:Thomas|Tom) ?(?:C\\.)? Clark"); `load_justices` expands it into every spelling
(`Judge.aliases`) and takes the fullest one as `full_name`. Quirks of the file handled here:
- the two Harlans: "John Harlan" (scdb 45, 1877-1911) is the first, "John ?(?:Marshall)? Harlan II" (scdb 91,
  1955-1971, `last` column "Harlan II") the second; both get last name "Harlan", and the "II" stays in the second's
  full name, so a generational suffix in an answer decides between them;
- the `last` column sometimes carries a middle name ("Wendell Holmes"): the last name is the final word unless the
  word before it is a particle ("Van Devanter");
- a justice who served twice has two rows (Charles Evans Hughes, John Rutledge): `Judge.person` is the same.

Matching: an answer names a justice when its final word(s) are the justice's last name (exactly, or failing any
exact surname in the roster, within a small edit distance via rapidfuzz) and its other words are consistent with the
justice's given names (whole names, initials or near-misses). When several justices fit ("Harlan", "Marshall",
"Johnson"), the decision date keeps the one then serving.
"""

from __future__ import annotations

import csv
import functools
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from lexprobe.caselaw.paths import data_root

FUZZY_MIN_SCORE = 85.0  # rapidfuzz ratio (0-100) for a misspelt name to still count ("Ginsberg" ~ "Ginsburg": 87.5)
FUZZY_MIN_LENGTH = 4  # shorter names must match exactly
FUZZY_GIVEN_SCORE = 80.0  # a misspelt surname after given names that fit ("Antonin Scalea" ~ "Scalia": 83.3)

_TITLES = re.compile(
    r"^(?:(?:the|mr|mrs|ms|madam|madame|hon|honorable|honourable|chief|associate|senior|circuit|district|"
    r"magistrate|presiding|justice|justices|judge|judges)\b[\s.,]*)+",
    re.IGNORECASE,
)
_TRAILING_ROLE = re.compile(
    r"[\s,]+(?:c\.?\s?j\.?|j\.?|jj\.?|(?:chief|associate|circuit|district|senior)?\s*(?:justice|judge))\s*$",
    re.IGNORECASE,
)
_OPINION_ROLE = re.compile(
    r"[\s,]+(?:(?:writing\s+)?for\s+the\s+(?:court|majority)|(?:concurring|dissenting)\b.*)$", re.IGNORECASE
)
_PARENTHETICAL = re.compile(r"\([^()]*\)")
_GENERATIONAL = {"ii": "ii", "2nd": "ii", "iii": "iii", "3rd": "iii", "iv": "iv"}
_IGNORED_SUFFIXES = {"jr", "sr", "esq"}
_PARTICLES = {"van", "von", "de", "del", "della", "di", "du", "la", "le", "st"}
_OPTIONAL_GROUP = re.compile(r"\(\?:([^()]*)\)(\?)?")


@dataclass(frozen=True)
class Judge:
    """One judge (one row of the roster): names and service dates (end None while serving)."""

    full_name: str
    last_name: str
    first_name: str
    start: date | None
    end: date | None
    aliases: tuple[str, ...] = ()  # every spelling the roster accepts, full_name first
    scdb_id: int | None = None

    @functools.cached_property
    def suffix(self) -> str | None:
        """Return the generational suffix of the full name ("ii" for John Marshall Harlan II), else None."""
        return _split_suffix(_name_tokens(self.full_name))[1]

    @functools.cached_property
    def person(self) -> tuple[str, str, str | None]:
        """Return who this is regardless of tenure: (first name, last name, suffix), normalized."""
        return (normalize_name(self.first_name), normalize_name(self.last_name), self.suffix)

    def served_on(self, day: date) -> bool:
        """Return True when `day` falls within this judge's tenure."""
        return (self.start is None or self.start <= day) and (self.end is None or day <= self.end)


@dataclass(frozen=True)
class _Name:
    """A parsed name: last-name tokens, given-name tokens in order, generational suffix."""

    last: tuple[str, ...]
    given: tuple[str, ...]
    suffix: str | None


@dataclass(frozen=True)
class _Profile:
    """What a person's name allows: last names, first-name options, all given-name words, and the suffix."""

    lasts: frozenset[tuple[str, ...]]
    firsts: frozenset[str]
    given: frozenset[str]
    suffix: str | None
    middles_known: bool


def _strip_accents(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


def _clean(text: str) -> str:
    """Return `text` without accents, leading titles, trailing roles ("Warren, C.J."), in "First Last" order."""
    text = _PARENTHETICAL.sub(" ", _strip_accents(text or "")).strip()
    previous = None
    while previous != text:
        previous = text
        text = _TITLES.sub("", text).strip()
        text = _OPINION_ROLE.sub("", text).strip()
        text = _TRAILING_ROLE.sub("", text).strip()
    if text.count(",") == 1:  # "Ginsburg, Ruth Bader" -> "Ruth Bader Ginsburg"; "Holmes, Jr." stays
        last, rest = (part.strip() for part in text.split(","))
        rest_tokens = _tokens(rest)
        if rest_tokens and not all(_suffix_of(token) for token in rest_tokens):
            text = f"{rest} {last}"
        else:
            text = f"{last} {rest}"
    return text


def _tokens(text: str) -> list[str]:
    return re.sub(r"[^\w\s]|_", " ", text.replace("'", "").replace("’", "").lower()).split()


def _suffix_of(token: str) -> str | None:
    """Return the kind of suffix `token` is: a generational mark ("ii"), "ignored" (Jr., Sr.), or None."""
    if token in _GENERATIONAL:
        return _GENERATIONAL[token]
    return "ignored" if token in _IGNORED_SUFFIXES else None


def _name_tokens(text: str) -> list[str]:
    """Return the lowercase words of a judge's name without titles or roles, suffixes kept ("R.B. Ginsburg" ->
    ["r", "b", "ginsburg"])."""
    return _tokens(_clean(text))


def _split_suffix(tokens: list[str]) -> tuple[list[str], str | None]:
    """Return (tokens without trailing suffixes, generational suffix or None): "Harlan II" -> ([harlan], "ii")."""
    suffix = None
    tokens = list(tokens)
    while len(tokens) > 1:
        kind = _suffix_of(tokens[-1]) or ("i" if tokens[-1] == "i" else None)
        if kind is None:
            break
        tokens.pop()
        if kind != "ignored" and suffix is None:
            suffix = kind
    return tokens, suffix


def normalize_name(text: str) -> str:
    """Return a judge's name reduced for comparison: no titles ("Chief Justice", "Mr. Justice", "Judge", "Hon."),
    no trailing roles (", C.J.", ", J.", ", JJ."), no suffixes (Jr., Sr., II, III), no accents or punctuation,
    lowercase, "Last, First" turned around. "Warren, C.J." -> "warren"; "R.B. Ginsburg" -> "r b ginsburg".
    Raises nothing."""
    return " ".join(_split_suffix(_name_tokens(text))[0])


@functools.lru_cache(maxsize=8192)
def _parse(text: str) -> _Name | None:
    """Return the parsed name, or None when nothing name-like is left."""
    tokens, suffix = _split_suffix(_name_tokens(text))
    if not tokens:
        return None
    cut = len(tokens) - 1
    while cut > 0 and tokens[cut - 1] in _PARTICLES:
        cut -= 1
    return _Name(last=tuple(tokens[cut:]), given=tuple(tokens[:cut]), suffix=suffix)


def _similar(a: str, b: str, score: float = FUZZY_MIN_SCORE) -> bool:
    """Return True for the same word, or a near-miss (rapidfuzz ratio at least `score`) of a long enough one."""
    if a == b:
        return True
    if min(len(a), len(b)) < FUZZY_MIN_LENGTH:
        return False
    from rapidfuzz import fuzz  # on first use: a run that scores no near-miss (a cache replay) never loads it

    return fuzz.ratio(a, b) >= score


def _given_fits(word: str, options: frozenset[str]) -> bool:
    """Return True when a given-name word fits one of `options`: same, near-miss, or initial of either side."""
    for option in options:
        if _similar(word, option):
            return True
        if (len(word) == 1 or len(option) == 1) and word[0] == option[0]:
            return True
    return False


def _last_score(name: _Name, profile: _Profile) -> int:
    """Return 2 when the surname matches exactly, 1 when only approximately, 0 when not."""
    best = 0
    for last in profile.lasts:
        if name.last == last or (len(last) > 1 and not name.given and name.last == last[-1:]):  # "Devanter"
            return 2
        if _similar(" ".join(name.last), " ".join(last)):
            best = 1
    return best


def _rest_fits(name: _Name, profile: _Profile) -> bool:
    """Return True when the suffix and given names of `name` are consistent with `profile`.

    A suffix in the answer must be the person's ("Harlan II" is not the first Harlan; no suffix counts as "I"); the
    first given word must fit the first name (a lone spelled-out middle name, "Bader Ginsburg", also does); further
    words must fit a given name where the roster knows the middle names.
    """
    if name.suffix and name.suffix != (profile.suffix or "i"):
        return False
    if not name.given:
        return True
    first, *middles = name.given
    if not _given_fits(first, profile.firsts) and (middles or len(first) == 1 or first not in profile.given):
        return False
    return not profile.middles_known or all(_given_fits(word, profile.given) for word in middles)


def _match_strength(name: _Name, profile: _Profile) -> int:
    """Return 2 (exact surname), 1 (approximate surname) or 0 (no match) for `name` against `profile`. A surname
    misspelt a little more is still approximate when the given names written before it fit ("Antonin Scalea")."""
    score = _last_score(name, profile)
    if not score and name.given and _rest_fits(name, profile):
        looser = any(_similar(" ".join(name.last), " ".join(last), FUZZY_GIVEN_SCORE) for last in profile.lasts)
        return 1 if looser else 0
    return score if score and _rest_fits(name, profile) else 0


def _profile_from_aliases(aliases: Sequence[str], suffix: str | None) -> _Profile:
    """Return the name profile for a list of spellings of one person."""
    lasts: set[tuple[str, ...]] = set()
    firsts: set[str] = set()
    given: set[str] = set()
    middles = False
    for alias in aliases:
        parsed = _parse(alias)
        if parsed is None:
            continue
        lasts.add(parsed.last)
        if parsed.given:
            firsts.add(parsed.given[0])
            given.update(parsed.given)
            middles = middles or len(parsed.given) > 1
    return _Profile(frozenset(lasts), frozenset(firsts), frozenset(given), suffix, middles)


@functools.lru_cache(maxsize=1024)
def _judge_profile(judge: Judge) -> _Profile:
    return _profile_from_aliases(judge.aliases or (judge.full_name,), judge.suffix)


def expand_name_pattern(pattern: str) -> list[str]:
    """Return every spelling a justices.csv name pattern accepts, fullest first (a plain name gives itself).

    "Roger ?(?:Brooke|B\\.)? Taney" -> ["Roger Brooke Taney", "Roger B. Taney", "Roger Taney"].
    """
    pieces: list[list[str]] = []
    position = 0
    for match in _OPTIONAL_GROUP.finditer(pattern):
        pieces.append([pattern[position : match.start()]])
        options = match.group(1).split("|")
        pieces.append([*options, ""] if match.group(2) else options)
        position = match.end()
    pieces.append([pattern[position:]])
    spellings = []
    for combination in itertools.product(*pieces):
        text = "".join(combination).replace(" ?", " ").replace("\\.", ".")
        spelling = " ".join(text.split())
        if spelling not in spellings:
            spellings.append(spelling)
    return spellings


def _last_name(csv_last: str) -> str:
    """Return the surname from justices.csv's `last` column: no "II", no middle name ("Wendell Holmes" -> "Holmes")."""
    words = [word for word in csv_last.split() if _suffix_of(word.lower()) is None]
    keep = 1
    while keep < len(words) and words[-keep - 1].lower() in _PARTICLES:
        keep += 1
    return " ".join(words[-keep:])


def _csv_date(text: str) -> date | None:
    """Return the MM/DD/YYYY date, or None for the file's "00/00/0000" (still serving) and blanks."""
    text = (text or "").strip()
    if not text or text.startswith("00/"):
        return None
    return datetime.strptime(text, "%m/%d/%Y").date()


def default_justices_path() -> Path:
    """Return where the SCDB justices roster lives: `<data root>/scdb/justices.csv`."""
    return data_root() / "scdb" / "justices.csv"


def load_roster() -> list[Judge]:
    """Return the Supreme Court roster for the justice-bias table: `load_justices()`, [] when the data has none or
    cannot be read (the table is then left out)."""
    try:
        return load_justices()
    except (FileNotFoundError, ValueError):
        return []


def load_justices(path: Path | str | None = None) -> list[Judge]:
    """Return the Supreme Court justices in file order, one `Judge` per row of SCDB's justices.csv.

    `path` defaults to `default_justices_path()`. Raises FileNotFoundError when the file is missing and ValueError
    (naming the line) for a row with a missing column or a malformed date.
    """
    path = Path(path) if path is not None else default_justices_path()
    judges = []
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            try:
                aliases = tuple(expand_name_pattern(row["name"]))
                judges.append(
                    Judge(
                        full_name=aliases[0],
                        last_name=_last_name(row["last"]),
                        first_name=row["first"].strip(),
                        start=_csv_date(row["tenure_start"]),
                        end=_csv_date(row["tenure_end"]),
                        aliases=aliases,
                        scdb_id=int(row["scdb_id"]),
                    )
                )
            except (KeyError, TypeError, ValueError, AttributeError) as error:
                raise ValueError(f"{path}:{line}: unusable justices row {row!r}: {error}") from error
    return judges


def _as_date(day: date | None) -> date | None:
    return day.date() if isinstance(day, datetime) else day


def _candidates(text: str, roster: Sequence[Judge]) -> list[Judge]:
    """Return the roster rows `text` can name, exact surnames beating approximate ones."""
    name = _parse(text)
    if name is None:
        return []
    surnames = [(judge, _last_score(name, _judge_profile(judge)) or _match_strength(name, _judge_profile(judge)))
                for judge in roster]  # fmt: skip
    exact_surname = any(score == 2 for _, score in surnames)
    fits = [
        judge
        for judge, score in surnames
        if score == (2 if exact_surname else 1) and _rest_fits(name, _judge_profile(judge))
    ]
    return fits  # "Clarke" is John Clarke only: an exact surname anywhere on the roster rules out near-misses


def _one_person(judges: Sequence[Judge], decided: date | None) -> Judge | None:
    """Return the row for the single person among `judges` (the one serving on `decided` if possible), else None."""
    if not judges or len({judge.person for judge in judges}) != 1:
        return None
    serving = [judge for judge in judges if decided and judge.served_on(decided)]
    return (serving or list(judges))[0]


@functools.lru_cache(maxsize=1024)
def _alias_forms(judge: Judge) -> frozenset[str]:
    """Return the judge's roster spellings, normalized with the suffix kept."""
    return frozenset(" ".join(_name_tokens(alias)) for alias in (judge.aliases or (judge.full_name,)))


def _exact_alias(text: str, judges: Sequence[Judge]) -> list[Judge]:
    """Return the judges one of whose roster spellings is exactly `text` (normalized, suffix kept)."""
    wanted = " ".join(_name_tokens(text))
    return [judge for judge in judges if wanted in _alias_forms(judge)]


def resolve_justice(answer: str, decided: date | None = None, roster: Sequence[Judge] = ()) -> Judge | None:
    """Return the roster justice `answer` names, or None when it names none or cannot be told apart.

    A name several justices share ("Harlan", "Marshall", "Johnson", "Jackson") is settled by `decided`, the case's
    decision date: the one then serving. Without a date, a spelling the roster gives exactly to one of them
    ("John Harlan" is the first Harlan in justices.csv) decides. Raises nothing.
    """
    decided = _as_date(decided)
    candidates = _candidates(answer, roster)
    if not candidates:
        return None
    person = _one_person(candidates, decided)
    if person:
        return person
    if decided:
        person = _one_person([judge for judge in candidates if judge.served_on(decided)], decided)
        if person:
            return person
    return _one_person(_exact_alias(answer, candidates), decided)


def _names_match(answer: str, truth: str) -> bool:
    """Return True when `answer` is a consistent (possibly partial or slightly misspelt) form of the name `truth`."""
    name, parsed = _parse(answer), _parse(truth)
    return bool(name and parsed and _match_strength(name, _profile_from_aliases([truth], parsed.suffix)))


def judge_matches(answer: str, truth_full_name: str, decided: date | None = None, roster: Sequence[Judge] = ()) -> bool:
    """Return True when the judge named in `answer` is the judge `truth_full_name`.

    "Warren", "Chief Justice Warren", "Warren, C.J." match "Earl Warren"; "R.B. Ginsburg" and "Ruth Bader Ginsberg"
    match "Ruth Bader Ginsburg". With a `roster`, both names are resolved to roster justices (the truth first by its
    exact roster spelling, then like the answer) and a surname several justices share is settled by `decided`:
    "Harlan" for a 1960 case is John Marshall Harlan II. Without a date an answer that fits the truth among several
    justices counts. Without a roster, or when the truth is not on it, the names are compared directly.
    Raises nothing.
    """
    decided = _as_date(decided)
    if not answer or not truth_full_name or not answer.strip():
        return False
    truth = None
    if roster:
        exact = _exact_alias(truth_full_name, roster)
        truth = _one_person(exact, decided) or resolve_justice(truth_full_name, decided, roster)
    if truth is None:
        return _names_match(answer, truth_full_name)
    resolved = resolve_justice(answer, decided, roster)
    if resolved is not None:
        return resolved.person == truth.person
    candidates = _candidates(answer, roster)
    return decided is None and truth.person in {judge.person for judge in candidates}
