"""Issue #46, item 1: which citation a quotation belongs to, read as a small grammar of the citation sentence
(`lexprobe.check.quotations.CitationSentences`). Every form of its table (`lexprobe.check.attribution_forms.FORMS`: citation after,
signals, "Id.", "See id.", "Ibid.", short forms, supra, "(quoting ...)" chains, citation before, a case named before,
"See also" after a sentence naming its source, block quotations, footnotes, spaced "U. S.") gives the citation and the
case the table says; "Id." after a parenthetical's citation refers to the main citation (the extraction's fix of
eyecite's resolution); sentences of real opinions that name a case without quoting it give it nothing."""

# ruff: noqa: E501 (the tables hold whole sentences as opinions and briefs write them)
from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.attribution_forms import FORMS, Form
from lexprobe.check.extract import FoundCitation, extract_citations
from lexprobe.check.parentheticals import clause_end, nesting
from lexprobe.check.quotations import NAMED, find_quotations
from lexprobe.check.quote_verdicts import check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations


def case_of(citation: FoundCitation, found: list[FoundCitation]) -> str | None:
    return (found[citation.refers_to] if citation.refers_to is not None else citation).name


@pytest.mark.parametrize("form", FORMS, ids=[form.name for form in FORMS])
def test_each_form_of_the_table(form: Form) -> None:
    found = extract_citations(form.example)
    items = find_quotations(form.example, found).items
    if form.source is None:
        assert items == [], [found[q.citation].text for q in items]
        return
    quotation = items[0]
    citation = found[quotation.citation]
    assert citation.text.startswith(form.source), citation.text
    assert quotation.form == form.reads
    if form.case is not None:
        assert case_of(citation, found) == form.case
    assert quotation.pin_applies is (form.reads not in (NAMED,) and "names its source" not in form.name)


def test_id_after_a_parenthetical_refers_to_the_main_citation() -> None:
    """eyecite resolves an "Id." to the citation right before it, the one inside "(quoting Y)"; the extraction
    gives it the main citation's case, also after a two-deep chain, and keeps its pin."""
    text = (
        "Terry v. Ohio, 392 U. S. 1, 21 (1968) (quoting Camara v. Municipal Court, 387 U. S. 523, 536-537 (1967) "
        "(quoting Frank v. Maryland, 359 U. S. 360, 367 (1959))). Id., at 22. Camara, 387 U. S., at 537. Id. at 538. "
        "(See Katz v. United States, 389 U. S. 347 (1967).) Id. at 351."
    )
    found = extract_citations(text)
    by_text = {c.text: c for c in found}
    assert [c.inside for c in found[:3]] == [None, 0, 1]
    assert case_of(by_text["Id., at 22"], found) == "Terry v. Ohio" and by_text["Id., at 22"].pin == 22
    assert case_of(by_text["Id. at 538"], found) == "Camara v. Municipal Court"
    assert case_of(by_text["Id. at 351"], found) == "Katz v. United States"  # a citation sentence in parentheses
    assert by_text["Katz v. United States, 389 U. S. 347 (1967)"].inside is None


def test_id_after_a_short_form_without_at() -> None:
    """The Court's "378 U. S., 485" short form is resolved before eyecite's pass, so an "Id." after it has a case."""
    text = "Terry v. Ohio, 392 U. S. 1 (1968). Later words. Terry, 392 U. S., 21. Id., at 22."
    found = extract_citations(text)
    assert [c.kind for c in found] == ["full", "short", "id"]
    assert case_of(found[2], found) == "Terry v. Ohio" and found[2].pin == 22


@pytest.mark.parametrize(
    ("text", "hosts"),
    [
        ("X, 1 U. S. 1 (1990) (quoting Y, 2 U. S. 2 (1991) (quoting Z, 3 U. S. 3)). Id.", [None, 0, 1, None]),
        (
            "X, 1 U. S. 1, 5 (1990) (alteration in original) (citing Y, 2 U. S. 2; Z, 3 U. S. 3). Id.",
            [None, 0, 0, None],
        ),
        (
            "(See X, 1 U. S. 1 (1990).) Y, 2 U. S. 2 (1991) (holding, in a long parenthetical, that Z, 3 U. S. 3, applies)",
            [None, None, 1],
        ),
        ("X, 1 U. S. 1 (quoting Y, 2 U. S. 2\n\nZ, 3 U. S. 3", [None, 0, None]),
        ("X, 1 U. S. 1 (1990) (We saw no difference in Y, 2 U. S. 2, 5.) See Id.", [None, None, None]),
    ],
)
def test_nesting(text: str, hosts: list[int | None]) -> None:
    import re

    spans = [(m.start(), m.end()) for m in re.finditer(r"\b[XYZ], \d U\. S\. \d(?:, \d)?|Id\.", text)]
    assert nesting(text, spans) == hosts


def test_a_parenthesis_closed_inside_a_citation_span_closes() -> None:
    """eyecite's span of a supra may take the closing parenthesis ("see n. 28, supra)."): it closes the statute's
    parenthetical, so a later short form is no parenthetical's (a real citing opinion, Jones v. Alfred H. Mayer)."""
    text = "42 U. S. C. § 1981 (then § 1977, see n. 28, supra). Later words. 203 U. S., at 17. id., at 18"
    spans = [(0, 18), (text.index("supra"), text.index("supra") + 7), (text.index("203"), text.index("203") + 16)]
    assert nesting(text, spans) == [None, 0, None]


def test_clause_end() -> None:
    text = "X, 1 U. S. 1, 5 (1990) (quoting Y, 2 U. S. 2 (1991)) (emphasis added), “words”"
    assert text[: clause_end(text, len("X, 1 U. S. 1"))].endswith("(emphasis added)")
    assert clause_end("X, 1 U. S. 1 (unclosed", 12) == 12


def test_nesting_is_linear() -> None:
    """200,000 citations in "(quoting ...)" chains: one pass over the document (a second or two; a quadratic
    reading would not finish)."""
    child = (
        "import re, sys\nfrom lexprobe.check.parentheticals import nesting\n"
        "text = ' '.join(f'X, {i} U. S. 1 (1990) (quoting Y, {i} U. S. 2 (1991) (quoting Z, 3 U. S. 3)).' for i in range(66667))\n"
        "spans = [(m.start(), m.end()) for m in re.finditer(r'[XYZ], \\d+ U\\. S\\. \\d', text)]\n"
        "hosts = nesting(text, spans)\nprint(len(spans), sum(h is not None for h in hosts))\n"
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["200001", "133334"]


# Sentences of real opinions (the citing opinions of the shipped data) that name a case the opinion cites but quote
# someone else: none of them is the named form.
NOT_NAMED = [
    "Commissioner v. Wilcox, 327 U. S. 404 (1946). The Government's brief went on to emphasize that the record in Wilcox showed only the bare receipt of money, while Rutkin had received the money “as a result of a bilateral agreement” and, as the Court of Appeals had pointed out, “with a semblance of a bona fide claim of right.”",
    "Escobedo v. Illinois, 378 U. S. 478 (1964). Murphy v. Waterfront Comm'n, 378 U. S. 52 (1964). The former Police Commissioner of New York, Michael J. Murphy, stated of Escobedo: “What the Court is doing is akin to requiring one boxer to fight by Marquis of Queensbury rules.”",
    "Sinclair Refining Co. v. Atkinson, 370 U. S. 195 (1962). As the neutral members of the committee on the problems raised by Sinclair noted in their report: “Under existing laws, employers may maintain an action for damages resulting from a strike.”",
    "Carroll v. United States, 267 U. S. 132 (1925). The exception recognized in Carroll is unquestionably one that is “specifically established and well delineated.”",
    "Communist Party v. Subversive Activities Control Board, 367 U. S. 1 (1961). In the Communist Party case, the Board found that the “principal leaders and a substantial number of its members” were aliens.",
    "Wolf v. Colorado, 338 U. S. 25 (1949). Weeks v. United States, 232 U. S. 383 (1914). The Court in Wolf first stated that “the contrariety of views of the States” on the adoption of the exclusionary rule of Weeks was “particularly impressive” here.",
]


@pytest.mark.parametrize("text", NOT_NAMED, ids=[f"real-{i}" for i in range(len(NOT_NAMED))])
def test_sentences_naming_a_case_they_do_not_quote(text: str) -> None:
    found = extract_citations(text)
    named = [q for q in find_quotations(text, found).items if q.form == NAMED]
    assert [found[q.citation].text for q in named if "contrariety" not in q.text] == []


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def test_id_after_a_quoting_parenthetical_is_checked_in_the_main_case(db: CaseDatabase) -> None:
    """Real passages: Terry quoting Camara; the next quotation, "Id. at 21", is Terry's (page 21), not Camara's."""
    text = (
        "There is “no ready test for determining reasonableness other than by balancing the need to search [or "
        "seize] against the invasion which the search [or seizure] entails.” Terry v. Ohio, 392 U. S. 1, 21 (1968) "
        "(alteration in original) (quoting Camara v. Municipal Court, 387 U. S. 523, 536-537 (1967)). The officer "
        "“must be able to point to specific and articulable facts which, taken together with rational inferences "
        "from those facts, reasonably warrant that intrusion.” Id. at 21."
    )
    found = extract_citations(text)
    first, second = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    assert first.citation == 0 and first.verdict == "verified" and first.pin_ok is True
    assert found[second.citation].text == "Id. at 21" and second.verdict == "verified"
    assert second.evidence["case_id"] == "scotus:392_U.S._1" and second.page == 21 and second.pin_ok is True


def test_a_quotation_its_citation_altered_is_checked_in_the_case_it_quotes(db: CaseDatabase) -> None:
    """Mitchell v. Helms's form: Agostini (in the database) wrote "[could not] be attributed to state
    decisionmaking"; Zobrest, which it quotes, "cannot": the quotation is checked in Zobrest, with Zobrest's pin."""
    text = (
        "See Agostini v. Felton, 521 U. S. 203, 226 (1997) (interpreter's presence “cannot be attributed to state "
        "decisionmaking” (quoting Zobrest v. Catalina Foothills School Dist., 509 U. S. 1, 10 (1993)))."
    )
    found = extract_citations(text)
    (result,) = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    assert found[result.citation].text.startswith("Agostini") and result.verdict == "verified"
    assert result.evidence["case_id"] == "scotus:509_U.S._1" and result.page == 10 and result.pin_ok is True
    assert result.reason.startswith(
        "not in Agostini v. Felton, 521 U. S. 203, 226 (1997) as written, but checked against Zobrest"
    )
