"""How the injected-error bench's excerpts are written (`injected_excerpts.py` decides what goes in them): the
sentences around a citation, the citation forms ("Name, VOL U.S. PAGE, PIN (YEAR)", "(9th Cir. 1999)" for an F.3d
case), the quotation forms (five: quotation then citation, "In X, ..., the Court held that “...”", mid-sentence, in a
parenthetical, "Id. at PIN") and citation-only forms (three), a `Writer` that records where each citation and
quotation lands, invented party names, and the unmarked word changes of an altered quotation (`alter`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from injected_material import CIRCUITS, CaseInfo

LEADS = (
    "",
    "The district court granted summary judgment without addressing this question.",
    "Petitioner's argument misreads the governing standard.",
    "The statute's text does not support respondent's reading.",
    "The court of appeals erred in holding otherwise.",
    "This Court has rejected that approach before.",
    "The record presents no reason to depart from that rule.",
    "Appellant contends that the agency exceeded its authority.",
    "Nothing in the text of the provision suggests a different result.",
    "The government bears the burden on this point.",
    "That reasoning applies with full force here.",
    "The question presented is one of statutory construction.",
    "The lower court's analysis cannot be reconciled with settled law.",
    "Respondents do not seriously dispute this point.",
    "The relevant inquiry is narrower than petitioner suggests.",
)
FOLLOWS = (
    "",
    "",
    "That principle controls here.",
    "The judgment below should be reversed.",
    "Respondent offers no reason to depart from it.",
    "The same is true in this case.",
)
VERBS = ("held", "explained", "observed", "emphasized", "reasoned", "made clear")
SURNAMES = (
    "Harwell", "Quintero", "Ashdown", "Pellham", "Corrigan", "Blackmore", "Tillery", "Ostrander", "Whitcombe",
    "Delacroix", "Marchetti", "Lindqvist", "Okafor", "Petrakis", "Radcliffe", "Sorensen", "Underhill", "Wexler",
    "Yancey", "Zeller", "Abernathy", "Castellano", "Dunmore", "Ellsworth", "Fenwick", "Galloway", "Hendricks",
    "Iverson", "Jessup", "Kowalczyk", "Larrabee", "Montague", "Norwood", "Pruitt", "Rosenthal", "Strickland",
)  # fmt: skip
ORGANIZATIONS = (
    "Meridian Freight Lines, Inc.", "Board of Educ. of Lakeview", "Consolidated Grain Co.", "City of Eastbrook",
    "Northfield Mut. Ins. Co.", "Allied Chem. Workers Union", "State Bd. of Tax Appeals", "Pioneer Timber Co.",
    "Harbor Steel Corp.", "County of Marlowe", "Sterling Savings Bank", "Westgate Hosp. Auth.", "Crescent Oil Co.",
    "Department of Revenue", "Tri-County Transit Dist.", "Summit Paper Mills, Inc.",
)  # fmt: skip
#: Word substitutions that change what a quotation says (an altered quotation), tried before any other change.
SUBSTITUTIONS = {
    "shall": "may",
    "may": "must",
    "must": "may",
    "never": "rarely",
    "always": "often",
    "all": "some",
    "any": "every",
    "every": "any",
    "more": "less",
    "less": "more",
    "before": "after",
    "after": "before",
    "federal": "state",
    "reasonable": "unreasonable",
    "lawful": "unlawful",
    "proper": "improper",
    "can": "cannot",
    "will": "would",
    "should": "must",
    "only": "also",
    "is": "was",
    "was": "is",
    "are": "were",
    "were": "are",
    "has": "had",
    "have": "had",
    "not": "plainly",
    "no": "some",
    "first": "second",
    "power": "duty",
    "right": "privilege",
    "Congress": "the States",
    "State": "Nation",
    "law": "rule",
    "court": "jury",
}
INSERTIONS = ("clearly", "always", "only", "never", "plainly", "not")


@dataclass
class Unit:
    """One citation of an excerpt: where its "VOL REPORTER PAGE" is, the case it names (None for a fabricated one),
    and the span of the quotation attributed to it (inside the marks), if any."""

    span: tuple[int, int]
    case_id: str | None
    quote: tuple[int, int] | None = None


@dataclass
class Cite:
    """A citation as the excerpt writes it."""

    name: str
    volume: int
    reporter: str
    page: int
    pin: str | None
    paren: str
    case_id: str | None


def cite_of(case: CaseInfo, pin: int | str | None, name: str | None = None, year: int | None = None) -> Cite:
    """The correct citation of `case` (a Court of Appeals case names its circuit), with `pin`."""
    paren = str(year or case.year)
    if case.reporter == "F.3d":
        paren = f"{CIRCUITS[case.court_id]} {paren}"
    return Cite(
        name or case.name, case.volume, case.reporter, case.page, None if pin is None else str(pin), paren, case.case_id
    )


@dataclass
class Writer:
    """Builds an excerpt's text piece by piece, recording where each citation and quotation lands."""

    parts: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    size: int = 0

    def add(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.size += len(text)

    def sentence(self, text: str) -> None:
        if text:
            self.add((" " if self.size else "") + text)

    def cite(self, cite: Cite, with_pin: bool = True) -> int:
        """Write "Name, VOL REP PAGE, PIN (PAREN)"; return the unit index."""
        self.add(f"{cite.name}, ")
        core = f"{cite.volume} {cite.reporter} {cite.page}"
        start = self.size
        self.add(core)
        self.units.append(Unit((start, start + len(core)), cite.case_id))
        if with_pin and cite.pin:
            self.add(f", {cite.pin}")
        self.add(f" ({cite.paren})")
        return len(self.units) - 1

    def quote(self, words: str, curly: bool, close: str = ".") -> tuple[int, int]:
        """Write “words” followed by `close` inside the closing mark (",", "." or nothing); return the words' span."""
        self.add("“" if curly else '"')
        start = self.size
        self.add(words)
        span = (start, self.size)
        self.add(close + ("”" if curly else '"'))
        return span

    def text(self) -> str:
        return "".join(self.parts)


@dataclass(frozen=True)
class Quote:
    """A quotation as written: `body` (no final period), and whether it reads as a sentence (capitalized)."""

    body: str
    sentence: bool


def quote_of(passage_text: str, rng: random.Random) -> Quote:
    """The whole sentence, or (two times in five) its words after a comma when at least 10 remain."""
    text = passage_text.rstrip(".")
    commas = [m.end() for m in re.finditer(r", ", text) if len(text[m.end() :].split()) >= 10]
    if commas and rng.random() < 0.4:
        return Quote(text[rng.choice(commas) :], False)
    return Quote(text, True)


# --- templates --------------------------------------------------------------------------------------------------

QuotedTemplate = Callable[[Writer, Cite, Quote, "Cite | None", random.Random, bool], int]


def _lower(quote: Quote) -> str:
    """The quotation run into the writer's sentence ("the Court held that “the ...”")."""
    body = quote.body
    return body[0].lower() + body[1:] if quote.sentence and not body.startswith(("I ", "Congress", "State")) else body


def _see_also(w: Writer, other: Cite | None, same_sentence: bool) -> None:
    if other is None:
        if same_sentence:
            w.add(".")
        return
    if same_sentence:
        w.add("; see also ")
    else:
        w.sentence("See also ")
    w.cite(other)
    w.add(".")


def _t_after(w: Writer, cite: Cite, quote: Quote, other: Cite | None, rng: random.Random, curly: bool) -> int:
    if quote.sentence:
        w.sentence(
            rng.choice(("As this Court has explained,", "The Court has put it plainly:", "The rule is settled:"))
        )
        w.add(" ")
        span = w.quote(quote.body, curly)
    else:
        w.sentence("The Court has recognized that ")
        span = w.quote(quote.body, curly)
    w.add(" ")
    unit = w.cite(cite)
    w.units[unit].quote = span
    _see_also(w, other, True)
    return unit


def _t_before(w: Writer, cite: Cite, quote: Quote, other: Cite | None, rng: random.Random, curly: bool) -> int:
    w.sentence("In ")
    unit = w.cite(cite)
    w.add(f", the Court {rng.choice(VERBS)} that ")
    w.units[unit].quote = w.quote(_lower(quote), curly)
    _see_also(w, other, False)
    return unit


def _t_mid(w: Writer, cite: Cite, quote: Quote, other: Cite | None, rng: random.Random, curly: bool) -> int:
    w.sentence("It is settled that ")
    span = w.quote(_lower(quote), curly, ",")
    w.add(" ")
    unit = w.cite(cite)
    w.units[unit].quote = span
    w.add(", and nothing in the record suggests otherwise.")
    _see_also(w, other, False)
    return unit


def _t_paren(w: Writer, cite: Cite, quote: Quote, other: Cite | None, rng: random.Random, curly: bool) -> int:
    w.sentence("See ")
    unit = w.cite(cite)
    w.add(" (")
    w.units[unit].quote = w.quote(quote.body, curly, "")
    w.add(")")
    _see_also(w, other, True)
    return unit


def _t_id(w: Writer, cite: Cite, quote: Quote, other: Cite | None, rng: random.Random, curly: bool) -> int:
    w.sentence("The question was addressed in ")
    unit = w.cite(cite, with_pin=False)
    w.add(".")
    w.sentence(f"There the Court {rng.choice(VERBS)} that ")
    w.units[unit].quote = w.quote(_lower(quote), curly)
    w.add(f" Id. at {cite.pin}.")
    _see_also(w, other, False)
    return unit


QUOTED: dict[str, QuotedTemplate] = {
    "quote-then-cite": _t_after,
    "cite-then-quote": _t_before,
    "quote-mid-sentence": _t_mid,
    "quote-in-parenthetical": _t_paren,
    "id-pin": _t_id,
}


def _c_see(w: Writer, cite: Cite, other: Cite | None, rng: random.Random) -> int:
    w.sentence(rng.choice(("See ", "See, e.g., ", "Cf. ")))
    unit = w.cite(cite)
    _see_also(w, other, True)
    return unit


def _c_follows(w: Writer, cite: Cite, other: Cite | None, rng: random.Random) -> int:
    w.sentence("That conclusion follows from ")
    unit = w.cite(cite)
    w.add(", which the court below did not address.")
    _see_also(w, other, False)
    return unit


def _c_sentence(w: Writer, cite: Cite, other: Cite | None, rng: random.Random) -> int:
    w.sentence("The same rule applies here.")
    w.add(" ")
    unit = w.cite(cite)
    _see_also(w, other, True)
    return unit


PLAIN = {"see-cite": _c_see, "cite-in-sentence": _c_follows, "citation-sentence": _c_sentence}


def alter(body: str, rng: random.Random, changes: int) -> tuple[str | None, str]:
    """Change `changes` words of a quotation without marking it (no ellipsis, no brackets): substitute a word
    (`SUBSTITUTIONS` first), insert one (`INSERTIONS`) or leave one out."""
    words = body.split(" ")
    done = []
    for _ in range(changes):
        draw = rng.random()
        candidates = [i for i, word in enumerate(words) if i and word.strip(",;") in SUBSTITUTIONS]
        if draw < 0.5 and candidates:
            i = rng.choice(candidates)
            bare = words[i].strip(",;")
            words[i] = words[i].replace(bare, SUBSTITUTIONS[bare])
            done.append("a word substituted")
        elif draw < 0.8:
            i = rng.randrange(1, len(words))
            words.insert(i, rng.choice(INSERTIONS))
            done.append("a word inserted")
        else:
            long = [i for i, word in enumerate(words[1:-1], 1) if len(word.strip(",;")) >= 4 and "," not in word]
            if not long:
                return None, ""
            del words[rng.choice(long)]
            done.append("a word left out")
    return " ".join(words), " and ".join(sorted(set(done)))
