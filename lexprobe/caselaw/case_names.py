"""Case names, one home: normalization for lookups and comparison of a name as a document writes it with the
names the database's sources give.

- `normalize_case_name`: case, punctuation, "et al.", and the common Bluebook (table T6) abbreviations that the
  sources use inconsistently ("Brown v. Board of Educ." vs "Brown v. Board of Education"); `CaseDatabase.find_by_name`
  and the fabrication of fictitious cases use it.
- `comparable_name`, `name_score`, `names_match`: normalization beyond that (more Bluebook abbreviations, state
  names) and party-by-party similarity tolerant of abbreviations, initials and acronyms, for the citation checker;
  `display_name` for messages. The rules are in docs/check.md.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from rapidfuzz import fuzz

#: Abbreviated word (lower case, no punctuation) -> full word. Only unambiguous, frequent T6 entries.
ABBREVIATIONS: dict[str, str] = {
    "educ": "education",
    "bd": "board",
    "co": "company",
    "corp": "corporation",
    "assn": "association",
    "commn": "commission",
    "commr": "commissioner",
    "dept": "department",
    "govt": "government",
    "natl": "national",
    "intl": "international",
    "univ": "university",
    "rr": "railroad",
    "ry": "railway",
    "mfg": "manufacturing",
    "ins": "insurance",
    "dist": "district",
    "cnty": "county",
    "hosp": "hospital",
    "sch": "school",
    "bros": "brothers",
    "admr": "administrator",
    "atty": "attorney",
    "gen": "general",
    "us": "united states",
}
_DROP = re.compile(r"\b(et al|et ux|et vir|etc)\b\.?")
_NON_WORD = re.compile(r"[^a-z0-9 ]+")


@lru_cache(maxsize=200_000)
def normalize_case_name(name: str) -> str:
    """Return `name` lower-cased, without accents, punctuation or "et al.", with T6 abbreviations expanded."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    text = text.replace("’", "'").replace("'", "")
    text = _DROP.sub(" ", text)
    text = text.replace("u.s.", "us").replace("r.r.", "rr")
    words = _NON_WORD.sub(" ", text).split()
    return " ".join(ABBREVIATIONS.get(word, word) for word in words)


#: Case names match when both parties (or the whole name, without "v.") score at least this (0-100).
NAME_THRESHOLD = 80

# --- comparing a document's name with the database's ------------------------------------------------------------

#: Words the sources and briefs abbreviate beyond `ABBREVIATIONS` (Bluebook T6/T10), after its
#: normalization (lower case, no punctuation).
EXTRA_ABBREVIATIONS = {
    "com": "commission",
    "comm": "commission",
    "commrs": "commissioners",
    "mut": "mutual",
    "fed": "federal",
    "elec": "electric",
    "transp": "transportation",
    "servs": "services",
    "serv": "service",
    "sav": "savings",
    "tr": "trust",
    "fin": "financial",
    "mgmt": "management",
    "inv": "investment",
    "prods": "products",
    "techs": "technologies",
    "glob": "global",
    "imps": "imports",
    "sols": "solutions",
    "emp": "employee",
    "sys": "systems",
    "fid": "fidelity",
    "cos": "companies",
    "grp": "group",
    "hldgs": "holdings",
    "indus": "industries",
    "auth": "authority",
    "admin": "administration",
    "cty": "county",
    "twp": "township",
    "vill": "village",
    "ctr": "center",
    "med": "medical",
    "pub": "public",
    "envtl": "environmental",
    "scis": "sciences",
    "litig": "litigation",
    "nlrb": "national labor relations board",
    "vs": "v",
    "versus": "v",
    # states (T10)
    "ala": "alabama",
    "ariz": "arizona",
    "ark": "arkansas",
    "cal": "california",
    "calif": "california",
    "colo": "colorado",
    "conn": "connecticut",
    "fla": "florida",
    "ga": "georgia",
    "ill": "illinois",
    "kan": "kansas",
    "la": "louisiana",
    "del": "delaware",
    "ky": "kentucky",
    "md": "maryland",
    "mass": "massachusetts",
    "mich": "michigan",
    "minn": "minnesota",
    "miss": "mississippi",
    "mo": "missouri",
    "mont": "montana",
    "neb": "nebraska",
    "nev": "nevada",
    "okla": "oklahoma",
    "ore": "oregon",
    "pa": "pennsylvania",
    "tenn": "tennessee",
    "tex": "texas",
    "va": "virginia",
    "vt": "vermont",
    "wash": "washington",
    "wis": "wisconsin",
    "wyo": "wyoming",
}
#: Two-word abbreviations after normalization ("N.Y." -> "n y").
EXTRA_BIGRAMS = {
    ("n", "y"): "new york",
    ("n", "j"): "new jersey",
    ("n", "c"): "north carolina",
    ("s", "c"): "south carolina",
    ("n", "d"): "north dakota",
    ("s", "d"): "south dakota",
    ("n", "h"): "new hampshire",
    ("n", "m"): "new mexico",
    ("r", "i"): "rhode island",
    ("w", "virginia"): "west virginia",
    ("u", "s"): "united states",
    ("r", "company"): "railroad company",
    ("of", "ed"): "of education",
    ("labor", "board"): "national labor relations board",
}


@lru_cache(maxsize=200_000)
def comparable_name(name: str) -> str:
    """Return `name` normalized by `normalize_case_name` and the extra abbreviations above."""
    words = " ".join(EXTRA_ABBREVIATIONS.get(w, w) for w in normalize_case_name(name).split()).split()
    out: list[str] = []
    i = 0
    while i < len(words):
        pair = tuple(words[i : i + 2])
        if len(pair) == 2 and pair in EXTRA_BIGRAMS:
            out.append(EXTRA_BIGRAMS[pair])
            i += 2
        else:
            out.append(words[i])
            i += 1
    return " ".join(out)


def _parties(name: str) -> list[str]:
    """Split a normalized name at its "v" (not the "v" of initials such as "t v a")."""
    words = name.split()
    for i, word in enumerate(words):
        if word == "v" and 0 < i < len(words) - 1 and not (len(words[i - 1]) == 1 and len(words[i + 1]) == 1):
            return [" ".join(words[:i]), " ".join(words[i + 1 :])]
    return [name]


#: Words that do not identify a party: "Lee Optical Co." names the same party as "Lee Optical of Oklahoma, Inc.",
#: "Teamsters Union" the same as "International Brotherhood of Teamsters".
GENERIC_WORDS = frozenset(
    "the of and for a an company companies corporation incorporated inc ltd limited llc lp llp plc na "  # noqa: SIM905
    "railroad railway railways railroads association union unions local ex rel et al".split()
)
_ACRONYM_SKIP = GENERIC_WORDS | frozenset("on in to".split())  # noqa: SIM905
_DOCKET_SUFFIX = re.compile(r"\s+nos?\s+\d+(?:\s+(?:and|&)\s+\d+)*$")


def _acronym(short: str, long: str) -> bool:
    """'tva' is 'tennessee valley authority', 'a t t' is 'american tel tel', 'csc' is 'united states civil
    service commission'."""
    letters = [word for word in short.split() if len(word) == 1 or word not in _ACRONYM_SKIP]
    if len(letters) > 1:
        if not all(len(letter) == 1 for letter in letters):
            return False
        short = "".join(letters)
    if not 2 <= len(short) <= 6:
        return False
    initials = "".join(word[0] for word in long.split() if word not in _ACRONYM_SKIP and not word.isdigit())
    return len(initials) > 1 and (initials == short or (initials.startswith("us") and initials[2:] == short))


def _word_in(word: str, words: Sequence[str], joined: str) -> bool:
    """Whether a document word occurs among a database party's words, as itself or an abbreviation."""
    if word in words:
        return True
    if len(word) >= 3 and any(
        len(other) >= 3 and (other.startswith(word) or word.startswith(other)) for other in words
    ):
        return True  # "Tel." vs "Telegraph", "Asso." vs "Association"
    if len(word) >= 5 and word in joined:
        return True  # "Truckdrivers" vs "Truck Drivers", "Nash Finch" vs "Nashfinch"
    return len(word) >= 5 and any(len(other) >= 5 and fuzz.ratio(word, other) >= 85 for other in words)


def _initial_in(word: str, words: Sequence[str]) -> bool:
    """ "Western Maryland" vs "Western M.", "Home Bldg. & L. Assn." vs "Home Bldg. & Loan Asso."."""
    if len(word) == 1:
        return any(other.startswith(word) for other in words)
    return any(len(other) == 1 and other == word[0] for other in words)


def _variants(party: str) -> list[str]:
    """A party, and its parts before and after "ex rel" ("Arizona ex rel. Sullivan" is also "Arizona")."""
    party = _DOCKET_SUFFIX.sub("", party)
    found = [party]
    if " ex rel " in f" {party} ":
        before, _, after = f" {party} ".partition(" ex rel ")
        found += [part.strip() for part in (before, after) if part.strip()]
    return found


def _party_pair_similarity(document_party: str, database_party: str) -> float:
    score = fuzz.token_set_ratio(document_party, database_party)
    if score >= 100:
        return 100.0
    words = [w for w in document_party.split() if w not in GENERIC_WORDS]
    theirs = database_party.split()
    joined = "".join(theirs)
    matched = [w for w in words if _word_in(w, theirs, joined)]
    if words and matched and all(w in matched or _initial_in(w, theirs) for w in words):
        return 100.0  # initials count once another word matched in full
    if "".join(document_party.split()) in joined and len(document_party) >= 5:
        return 100.0
    if _acronym(document_party, database_party) or _acronym(database_party, document_party):
        return 100.0
    return float(score)


def party_similarity(document_party: str, database_party: str) -> float:
    """0-100 for two normalized parties: rapidfuzz's token-set ratio, raised to 100 when every distinctive word of
    the document's party occurs in the database's, allowing abbreviations ("Tel." ~ "Telegraph", "Maryland" ~ "M."
    once another word matched exactly), words run together ("Truckdrivers") and OCR slips of long words, or when one
    is the other's acronym ("TVA"); "X ex rel. Y" is also compared as X and as Y."""
    return max(_party_pair_similarity(doc, db) for doc in _variants(document_party) for db in _variants(database_party))


def name_score(document_name: str, database_name: str) -> float:
    """Return how well a case name in a document matches a database name, 0-100.

    Both are normalized (`comparable_name`). When both have two parties ("X v. Y"), each party is compared alone
    (`party_similarity`) and the lower score counts, so "Plessy v. Ferguson" does not match "Brown v. Ferguson";
    parties in the other order count too. A name without "v." ("Celotex", "In re Debs") is compared with the whole
    database name (a subset scores 100) and with each party; a two-party name with a one-party database name ("In re
    Debs", "Chao") is compared whole, without that credit. A database name with several captions ("A v. B; C v. D")
    scores its best.
    """
    doc = comparable_name(document_name)
    best = 0.0
    for caption in database_name.split(";"):
        db = comparable_name(caption)
        if not doc or not db:
            continue
        doc_parties, db_parties = _parties(doc), _parties(db)
        two = len(db_parties) == 2 and all(db_parties)
        if len(doc_parties) == 2 and all(doc_parties) and two:
            orders = (db_parties, db_parties[::-1])  # the parties in either order
            score = max(min(map(party_similarity, doc_parties, order)) for order in orders)
        elif len(doc_parties) == 2 and all(doc_parties):
            score = fuzz.token_sort_ratio(doc, db)  # "X v. Y" against a one-party name: no credit for a subset
        else:
            score = fuzz.token_set_ratio(doc, db)
            if two and len(doc_parties) == 1:
                score = max(score, *(party_similarity(doc, party) for party in db_parties))
        best = max(best, score)
    return best


def is_popular_name(name: str) -> bool:
    """'Civil Rights Cases', 'The Slaughter-House Cases', 'Shepard': a name without "v." that may not be any
    party's name in the database (popular names, short names); such a name is not held against a citation."""
    words = comparable_name(name).split()
    return " v " not in f" {' '.join(words)} " and words[:2] not in (["in", "re"], ["ex", "parte"])


def names_match(document_name: str, database_names: Iterable[str]) -> tuple[bool, float]:
    """(matches, best score) of a document's case name against every name the sources give a case."""
    best = max((name_score(document_name, name) for name in database_names), default=0.0)
    return best >= NAME_THRESHOLD, best


def display_name(name: str | None) -> str | None:
    """A case name for messages: SCDB's upper-case captions title-cased and cut to the parties
    ("J. MCINTYRE MACHINERY, LTD., PETITIONER v. ROBERT NICASTRO, INDIVIDUALLY AND AS ..." ->
    "J. Mcintyre Machinery, Ltd. v. Robert Nicastro")."""
    if not name:
        return name
    name = " ".join(name.split())
    bare = re.sub(r"\b(?:v|et al|ex rel)\.", "", name)
    if bare.upper() == bare:  # "BOLLING et al. v. SHARPE et al."
        name = re.sub(r",? (?:PETITIONERS?|RESPONDENTS?|APPELLANTS?|APPELLEES?)\b\.?", "", name)
        name = re.sub(r",? (?:INDIVIDUALLY|ET AL|AS [A-Z]|ON BEHALF)[^;]*?(?= v\. |;|$)", "", name)
        name = re.sub(r" et al\.", "", name, flags=re.I)
        name = name.title().replace(" V. ", " v. ").replace(" Ex Rel. ", " ex rel. ").rstrip(",")
    return name if len(name) <= 90 else name[:89] + "…"
