"""Issue #44, item 16: a quotation followed by "See also X" (or "Cf.", "But see") is not given to X when its own
sentence names another case, by "Name v. Name" or by the short name of a case the document cites; the sentence's
citation, else the document's citation of the case named, takes it (or none, when the document has none)."""

from __future__ import annotations

import pytest

from lexprobe.check.extract import extract_citations
from lexprobe.check.quotations import find_quotations

Q = "the privilege against self-incrimination protects the accused from being compelled to testify"
MIRANDA = "Miranda v. Arizona, 384 U.S. 436 (1966)"
ROE = "Roe v. Wade, 410 U.S. 113 (1973)"
FILLER = "The rule has been applied many times since then by the lower courts."

CASES = [
    # (what it shows, text, the start of the text of the citation the quotation goes to, or None)
    ("the sentence's own citation", f"The Court in {MIRANDA}, held that “{Q}.” See also {ROE}.", "Miranda"),
    (
        "a short name of a case cited earlier",
        f"{MIRANDA}. {FILLER} The Court in Miranda held that “{Q}.” See also {ROE}.",
        "Miranda",
    ),
    ("cf. likewise", f"{MIRANDA}. {FILLER} As Miranda explained, “{Q}.” Cf. {ROE}.", "Miranda"),
    ("but see likewise", f"{MIRANDA}. {FILLER} Miranda said that “{Q}.” But see {ROE}.", "Miranda"),
    (
        "a see-also short form",
        f"{ROE}. {MIRANDA}. {FILLER} The Court in Miranda held that “{Q}.” See also Roe, 410 U.S. at 153.",
        "Miranda",
    ),
    (
        "the second party's name when the first is a government",
        f"United States v. Wade, 388 U.S. 218 (1967). {FILLER} As Wade put it, “{Q}.” See also {MIRANDA}.",
        "United States v. Wade",
    ),
    ("a case named but never cited: no citation", f"In Smith v. Jones the court said “{Q}.” See also {ROE}.", None),
    # unchanged: the see-also case itself, no case named, a plain "See", a case named only in an earlier sentence
    ("no case named", f"{MIRANDA}. {FILLER} The Court has held that “{Q}.” See also {ROE}.", "Roe"),
    ("the see-also case's own name", f"The Court in Roe held that “{Q}.” See also {ROE}.", "Roe"),
    ("a plain See", f"{MIRANDA}. {FILLER} The Court in Miranda held that “{Q}.” See {ROE}.", "Roe"),
    ("no signal", f"{MIRANDA}. {FILLER} The Court in Miranda held that “{Q}.” {ROE}.", "Roe"),
    (
        "named in an earlier sentence only",
        f"{MIRANDA}. Miranda is famous. The Court later held that “{Q}.” See also {ROE}.",
        "Roe",
    ),
]


@pytest.mark.parametrize(("what", "text", "source"), CASES, ids=[case[0] for case in CASES])
def test_a_see_also_citation_does_not_take_a_quotation_whose_sentence_names_its_source(
    what: str, text: str, source: str | None
) -> None:
    found = extract_citations(text)
    items = find_quotations(text, found).items
    if source is None:
        assert items == [], (what, [found[q.citation].text for q in items])
        return
    (quotation,) = items
    assert quotation.text.startswith("the privilege")
    assert found[quotation.citation].text.startswith(source), (what, found[quotation.citation].text)
