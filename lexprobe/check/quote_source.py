"""Whether a quotation's own sentence names its source, so that a "See also" citation after it is not that source
("The Court in Miranda ... held that “...”. See also Roe v. Wade, 410 U.S. 113": the words are Miranda's, Roe is
further authority). Used by `lexprobe.check.quotations` (docs/check.md, "Quotations").

A sentence names a case when it holds a "Name v. Name" or the short name of a case the document cites in full
before the quotation: the first party's first distinctive word ("Miranda" for Miranda v. Arizona), or the second
party's when the first is a government or a generic party ("Wade" for United States v. Wade), as a short form
names a case. A name that is the "See also" citation's own case does not count.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from lexprobe.check.extract import FULL, FoundCitation

#: Signals after a quotation that introduce further or contrary authority, not the quotation's source.
ALSO_SIGNAL = re.compile(r"\b(?:see\s+also|see\s+generally|but\s+see|but\s+cf\.?|cf\.?|compare|contra)(?=[\s,])", re.I)
#: Parties that are not a case's short name.
_GENERIC = frozenset(
    "united states state states people commonwealth city county town village board department commissioner "  # noqa: SIM905
    "secretary director government court in re ex parte matter of the a an and of for estate v congress justice "
    "national federal american general international first new north south east west commission company "
    "corporation association union bank insurance railroad county school district educ ed bd dept dep't comm'n "
    "commr commrs comm'rs sch dist auth univ ass'n assn bros inc corp co ltd regents trustees "
    # the states, parties of most criminal cases ("Terry v. Ohio": Terry; "West Virginia Bd. of Ed. v. Barnette":
    # Barnette)
    "alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho "
    "illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota "
    "mississippi missouri montana nebraska nevada hampshire jersey mexico york carolina dakota ohio oklahoma "
    "oregon pennsylvania rhode island tennessee texas utah vermont virginia washington wisconsin wyoming".split()
)
_WORD = re.compile(r"[A-Z][A-Za-z'’-]{2,}")
_VERSUS = re.compile(r"\b([A-Z][A-Za-z'’-]{2,})[\w\s.,'’&-]{0,60}?\s+v\.\s+[A-Z]")


def short_name(name: str | None) -> str | None:
    """The word a brief calls a case by ("Miranda" for "Miranda v. Arizona", "Wade" for "United States v. Wade"), or
    None when no party gives one."""
    if not name:
        return None
    for party in re.split(r"\s+v\.?\s+", name, maxsplit=1):
        for word in _WORD.findall(party):
            if word.lower() not in _GENERIC:
                return word
    return None


class CaseNames:
    """The short names of the cases a document cites in full, indexed once per document: short name -> its full
    citations in document order, and each group's case name."""

    def __init__(self, ordered: Sequence[FoundCitation]) -> None:
        self.by_word: dict[str, list[FoundCitation]] = {}
        self.starts: dict[str, list[int]] = {}
        self.group_name: dict[int, str] = {}
        for citation in ordered:
            if citation.kind != FULL:
                continue
            if citation.group is not None and citation.name and citation.group not in self.group_name:
                self.group_name[citation.group] = citation.name
            word = short_name(citation.name)
            if word is not None:
                self.by_word.setdefault(word, []).append(citation)
                self.starts.setdefault(word, []).append(citation.span[0])

    def names_another_case(
        self, sentence: str, attributed: FoundCitation, position: int
    ) -> tuple[bool, FoundCitation | None]:
        """Whether `sentence` (a quotation's sentence up to the quotation at `position`) names a case other than
        `attributed`'s (the citation after the quotation), and the last full citation of that case before
        `position`, if the document has one."""
        own = short_name(self.group_name.get(attributed.group, attributed.name) if attributed.group is not None
                         else attributed.name)  # fmt: skip
        named: FoundCitation | None = None
        for word in set(_WORD.findall(sentence)) - {own}:
            index = bisect.bisect_left(self.starts.get(word, []), position) - 1
            if index >= 0:
                citation = self.by_word[word][index]
                if citation.group != attributed.group and (named is None or citation.span > named.span):
                    named = citation
        if named is not None:
            return True, named
        versus = any(m.group(1) != own and m.group(1).lower() not in _GENERIC for m in _VERSUS.finditer(sentence))
        return versus, None

    def names_in(self, sentence: str, position: int) -> list[tuple[int, int, FoundCitation]]:
        """The cases `sentence` names by their short names ("Terry", possessives included: "Terry's"), each as
        (start, end) in the sentence and the last full citation of that case before `position`, in order."""
        found = []
        for match in _WORD.finditer(sentence):
            word = re.sub(r"['’]s?$", "", match.group())
            index = bisect.bisect_left(self.starts.get(word, []), position) - 1
            if index >= 0:
                found.append((match.start(), match.start() + len(word), self.by_word[word][index]))
        return found
