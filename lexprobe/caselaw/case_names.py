"""Normalize case names for comparison: case, punctuation, "et al.", and the common Bluebook (table T6)
abbreviations that the sources use inconsistently ("Brown v. Board of Educ." vs "Brown v. Board of Education")."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

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
