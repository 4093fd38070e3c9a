"""Brief excerpts with one injected error each, and clean controls, written from the case database's real material
(`injected_material.py`, in the forms of `injected_writing.py`) for the injected-error bench (`injected_errors.py`).

Each excerpt is a short paragraph as briefs write them: a sentence or two, a full citation ("Name, VOL U.S. PAGE, PIN
(YEAR)", or "Name, VOL F.3d PAGE, PIN (9th Cir. 1999)"), often a quotation of the cited opinion taken from its text
on the pin page, sometimes a second, clean citation. Its ground truth is a `Excerpt`: the category of the error, the
citation (and quotation) that carries it (`target`, an index into `units`), a variant saying how it was made, and
whether the offline data can decide it at all (`decidable`: a fabricated F.3d citation cannot be told from a real
one the database lacks, the year one off of a pre-1946 case is Fowler's term year, a quotation of a case without an
opinion text cannot be checked). Everything is drawn with one `random.Random(seed)`: the same seed and database give
the same excerpts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from injected_material import CIRCUITS, CaseInfo, Material, Passage
from injected_writing import (
    FOLLOWS,
    LEADS,
    ORGANIZATIONS,
    PLAIN,
    QUOTED,
    SURNAMES,
    Cite,
    Quote,
    Unit,
    Writer,
    alter,
    cite_of,
    quote_of,
)

from lexprobe.caselaw.case_names import names_match
from lexprobe.caselaw.quote_text import normalize

FABRICATED = "fabricated case"
WRONG_CITATION = "wrong volume/page"
WRONG_YEAR = "wrong year"
WRONG_COURT = "wrong court"
MISATTRIBUTED = "misattributed quotation"
ALTERED = "altered quotation"
DISSENT = "dissent as the Court's"
WRONG_PIN = "wrong pin"
OVERRULED = "overruled as good law"
CATEGORIES = (
    FABRICATED,
    WRONG_CITATION,
    WRONG_YEAR,
    WRONG_COURT,
    MISATTRIBUTED,
    ALTERED,
    DISSENT,
    WRONG_PIN,
    OVERRULED,
)
CONTROL = "control"


@dataclass
class Excerpt:
    """A brief excerpt and its ground truth (see the module docstring)."""

    number: int
    category: str
    variant: str
    text: str
    units: list[Unit]
    target: int | None
    decidable: bool
    truth: str

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "category": self.category,
            "variant": self.variant,
            "text": self.text,
            "target": self.target,
            "decidable": self.decidable,
            "truth": self.truth,
            "units": [
                {"span": list(u.span), "case_id": u.case_id, "quote": u.quote and list(u.quote)} for u in self.units
            ],
        }


# --- the generator ----------------------------------------------------------------------------------------------


class Generator:
    """Draws excerpts of every category from `Material` with one seeded random generator."""

    def __init__(self, material: Material, seed: int) -> None:
        self.m = material
        self.rng = random.Random(seed)
        self.quoted_cases = sorted(case_id for case_id in material.court_passages if material.info(case_id))
        self.clean_quoted = [c for c in self.quoted_cases if c in material.clean_ids]
        self.used_names: set[str] = set()

    # drawing helpers

    def in_orders(self, case: CaseInfo) -> bool:
        """A U.S. page after its volume's run of opinions, where many orders share a page: the checker (rightly)
        holds no name against such a citation."""
        end = self.m.reference.us_volume(case.volume).section_end
        return case.reporter == "U.S." and end is not None and case.page > end

    def passage(self, case_id: str) -> Passage:
        return self.rng.choice(self.m.court_passages[case_id])

    def other_clean(self, exclude: set[str]) -> CaseInfo:
        while True:
            case = self.rng.choice(self.m.clean)
            if case.case_id not in exclude:
                return case

    def maybe_other(self, exclude: set[str], chance: float = 0.3) -> Cite | None:
        if self.rng.random() >= chance:
            return None
        case = self.other_clean(exclude)
        return cite_of(case, self.pin_inside(case))

    def pin_inside(self, case: CaseInfo) -> int | None:
        """A pin within the case's pages (before the next decision), or none."""
        if self.rng.random() < 0.2:
            return None
        room = (case.next_page - case.page) if case.next_page else 6
        return case.page + self.rng.randint(0, max(0, min(room - 1, 12)))

    def fabricated_name(self) -> str:
        """A case name no case of the database has: none of the 60 closest names (`CaseDatabase.find_by_name`)
        matches it party by party (`names_match`). The database is asked directly, not the checker's `CaseLookup`."""
        while True:
            first, second = self.rng.sample(SURNAMES, 2)
            form = self.rng.random()
            if form < 0.4:
                name = f"{first} v. {second}"
            elif form < 0.7:
                name = f"{first} v. {self.rng.choice(ORGANIZATIONS)}"
            elif form < 0.85:
                name = f"{self.rng.choice(ORGANIZATIONS)} v. {first}"
            else:
                name = f"United States v. {first}"
            if name not in self.used_names and not self.named_like(name):
                self.used_names.add(name)
                return name

    def named_like(self, name: str) -> bool:
        db = self.m.reference.db
        for case_id in db.find_by_name(name, limit=60):
            names = [fact.value for fact in db.facts(case_id, ("name",))]
            if names and names_match(name, names)[0]:
                return True
        return False

    def quoted(self, w: Writer, cite: Cite, quote: Quote, other: Cite | None, template: str | None = None) -> tuple:
        name = template or self.rng.choice(sorted(QUOTED))
        if name == "id-pin" and cite.pin is None:
            name = "quote-then-cite"
        w.sentence(self.rng.choice(LEADS))
        unit = QUOTED[name](w, cite, quote, other, self.rng, self.rng.random() < 0.75)
        w.sentence(self.rng.choice(FOLLOWS))
        return unit, name

    def plain(self, w: Writer, cite: Cite, other: Cite | None) -> tuple:
        name = self.rng.choice(sorted(PLAIN))
        w.sentence(self.rng.choice(LEADS))
        unit = PLAIN[name](w, cite, other, self.rng)
        w.sentence(self.rng.choice(FOLLOWS))
        return unit, name

    def write(self, cite: Cite, passage_text: str | None, exclude: set[str], template: str | None = None):
        """An excerpt around `cite`: quoted when `passage_text` is given, else a citation alone."""
        w = Writer()
        other = self.maybe_other(exclude | ({cite.case_id} if cite.case_id else set()))
        if passage_text is not None:
            unit, name = self.quoted(w, cite, quote_of(passage_text, self.rng), other, template)
        else:
            unit, name = self.plain(w, cite, other)
        return w, unit, name

    # controls

    def control(self) -> tuple[Writer, int, str, bool, str] | None:
        draw = self.rng.random()
        if draw < 0.55:
            case = self.m.info(self.rng.choice(self.clean_quoted))
            passage = self.passage(case.case_id)
            w, unit, name = self.write(cite_of(case, passage.page), passage.text, {case.case_id})
            return w, unit, f"quoted, {name}", True, "clean"
        if draw < 0.7:
            case = self.rng.choice(self.m.clean)
            w, unit, name = self.write(cite_of(case, self.pin_inside(case)), None, {case.case_id})
            return w, unit, f"citation only, {name}", True, "clean"
        if draw < 0.85:
            case = self.rng.choice(self.m.appeals)
            w, unit, name = self.write(cite_of(case, self.pin_inside(case), self.fabricated_name()), None, set())
            return w, unit, f"court of appeals (name not in the database), {name}", True, "clean"
        return self.marked_overruling()

    def marked_overruling(self) -> tuple[Writer, int, str, bool, str] | None:
        """An overruled case cited with the overruling said: "X, overruled by Y" or "... X ... was overruled"."""
        case = self.rng.choice(self.m.overruled)
        by = self.m.reference.case(case.facts.overruling_case_id) if case.facts.overruling_case_id else None
        by_info = self.m.info(by.case_id) if by else None
        w = Writer()
        w.sentence(self.rng.choice(LEADS))
        form = self.rng.random()
        if by_info is not None and form < 0.6:
            w.sentence(self.rng.choice(("Petitioner relies on ", "Respondent cites ")))
            unit = w.cite(cite_of(case, self.pin_inside(case)))
            w.add(", overruled by " if form < 0.4 else ", overruled on other grounds by ")
            w.cite(cite_of(by_info, None))
            w.add(".")
            return w, unit, "overruled, marked by subsequent history", True, "clean"
        w.sentence("Petitioner's reliance on ")
        unit = w.cite(cite_of(case, self.pin_inside(case)))
        w.add(f" is misplaced: that decision was overruled in {case.facts.overruled_year}.")
        return w, unit, "overruled, marked in the sentence", True, "clean"

    # categories

    def fabricated(self) -> tuple[Writer, int, str, bool, str] | None:
        draw = self.rng.random()
        name = self.fabricated_name()
        quote = None
        if self.rng.random() < 0.5:
            quote = self.passage(self.rng.choice(self.quoted_cases)).text  # a real sentence of some other case
        if draw < 0.45:  # a page inside a covered volume's run of opinions that begins no decision
            case = self.rng.choice(self.m.clean)
            coverage = self.m.reference.us_volume(case.volume)
            if not case.next_page or case.next_page - case.page < 3 or not coverage.covered:
                return None
            page = case.page + self.rng.randint(1, case.next_page - case.page - 1)
            if coverage.section_end is None or page > coverage.section_end:
                return None
            cite = Cite(name, case.volume, "U.S.", page, str(page + self.rng.randint(0, 3)), str(case.year), None)
            w, unit, template = self.write(cite, quote, set())
            return w, unit, f"no decision begins on the page, {template}", True, f"no case at {case.volume} U.S. {page}"
        if draw < 0.9:  # a fabricated name on a real first page
            case = self.rng.choice(self.m.clean)
            if names_match(name, case.facts.names)[0] or self.in_orders(case):
                return None
            cite = Cite(name, case.volume, "U.S.", case.page, None, str(case.year), None)
            cite.pin = str(self.pin_inside(case) or case.page)
            w, unit, template = self.write(cite, quote, {case.case_id})
            return w, unit, f"fabricated name on a real page, {template}", True, f"{case.key} is {case.name}"
        case = self.rng.choice(self.m.appeals)
        page = case.page + self.rng.randint(3, 40)
        if self.m.reference.case_ids(f"{case.volume} F.3d {page}"):
            return None
        cite = Cite(name, case.volume, "F.3d", page, str(page + 2), f"{CIRCUITS[case.court_id]} {case.year}", None)
        w, unit, template = self.write(cite, None, set())
        return w, unit, f"fabricated F.3d citation, {template}", False, "F.3d is not covered completely"

    def wrong_citation(self) -> tuple[Writer, int, str, bool, str] | None:
        case = self.m.info(self.rng.choice(self.clean_quoted)) if self.rng.random() < 0.6 else None
        case = case or self.rng.choice(self.m.clean)
        passage = self.passage(case.case_id) if case.case_id in self.m.court_passages else None
        pin = passage.page if passage else (self.pin_inside(case) or case.page)
        draw = self.rng.random()
        volume, page = case.volume, case.page
        if draw < 0.35:
            if not case.next_page or case.next_page - case.page < 2:
                return None
            page = case.page + self.rng.randint(1, case.next_page - case.page - 1)
            variant = "a page inside the case"
        elif draw < 0.7:
            volume = case.volume + self.rng.choice((-3, -2, -1, 1, 2, 3, 10, -10))
            variant = "another volume"
        else:
            digits = list(str(case.page))
            if len(digits) < 2:
                return None
            i = self.rng.randrange(len(digits) - 1)
            digits[i], digits[i + 1] = digits[i + 1], digits[i]
            page = int("".join(digits))
            variant = "page digits transposed"
        if (volume, page) == (case.volume, case.page) or page < 1 or volume < 1:
            return None
        elsewhere = self.m.reference.case_ids(f"{volume} U.S. {page}")
        for other in elsewhere:
            facts = self.m.reference.case(other)
            if facts is not None and names_match(case.name, facts.names)[0]:
                return None
        coverage = self.m.reference.us_volume(volume)
        decidable = bool(coverage.covered and coverage.section_end is not None and page <= coverage.section_end)
        new_pin = pin if variant == "a page inside the case" else page + (pin - case.page)
        cite = Cite(case.name, volume, "U.S.", page, str(new_pin), str(case.year), case.case_id)
        w, unit, template = self.write(
            cite, passage.text if passage and self.rng.random() < 0.5 else None, {case.case_id}
        )
        return w, unit, f"{variant}, {template}", decidable, f"{case.name} is {case.key}"

    def wrong_year(self) -> tuple[Writer, int, str, bool, str] | None:
        if self.rng.random() < 0.25:
            case = self.rng.choice(self.m.appeals)
            delta = self.rng.choice((-3, -2, -1, 1, 2, 3))
            if case.year + delta in case.facts.years:
                return None
            cite = cite_of(case, self.pin_inside(case), self.fabricated_name(), case.year + delta)
            w, unit, template = self.write(cite, None, set())
            return w, unit, f"court of appeals, {template}", True, f"decided {case.year}"
        case = (
            self.rng.choice(self.m.clean)
            if self.rng.random() < 0.4
            else self.m.info(self.rng.choice(self.clean_quoted))
        )
        delta = self.rng.choice((-10, -5, -3, -2, -1, 1, 2, 3, 5, 10))
        year = case.year + delta
        if year in case.facts.years:
            return None
        one_off = not case.facts.dated and any(abs(year - y) <= 1 for y in case.facts.years)
        passage = self.passage(case.case_id) if case.case_id in self.m.court_passages else None
        pin = passage.page if passage else self.pin_inside(case)
        w, unit, template = self.write(cite_of(case, pin, year=year), passage.text if passage else None, {case.case_id})
        variant = "one year off an undated (Fowler) year" if one_off else "Supreme Court"
        return w, unit, f"{variant}, {template}", not one_off, f"decided {sorted(case.facts.years)}"

    def wrong_court(self) -> tuple[Writer, int, str, bool, str] | None:
        if self.rng.random() < 0.7:
            case = self.rng.choice(self.m.appeals)
            court = self.rng.choice(sorted(set(CIRCUITS) - {case.court_id}))
            cite = cite_of(case, self.pin_inside(case), self.fabricated_name())
            cite.paren = f"{CIRCUITS[court]} {case.year}"
            w, unit, template = self.write(cite, None, set())
            return w, unit, f"another circuit, {template}", True, f"decided by {case.court_id}"
        case = self.m.info(self.rng.choice(self.clean_quoted))
        if self.in_orders(case):
            return None
        passage = self.passage(case.case_id)
        cite = cite_of(case, passage.page)
        cite.paren = f"{CIRCUITS[self.rng.choice(sorted(CIRCUITS))]} {case.year}"
        w, unit, template = self.write(cite, passage.text if self.rng.random() < 0.5 else None, {case.case_id})
        return w, unit, f"a Supreme Court case given a circuit, {template}", True, "decided by the Supreme Court"

    def misattributed(self) -> tuple[Writer, int, str, bool, str] | None:
        source = self.m.info(self.rng.choice(self.clean_quoted))
        passage = self.passage(source.case_id)
        without_text = self.rng.random() < 0.1
        if without_text:
            cited = self.rng.choice(self.m.clean)
            if cited.case_id in self.m.case_letters:
                return None
            pin = self.pin_inside(cited) or cited.page
        else:
            cited = self.m.info(self.rng.choice(self.clean_quoted))
            if cited.case_id == source.case_id:
                return None
            needle = normalize(passage.text).letters
            if any(needle in body for body in self.m.case_letters.get(cited.case_id, ())):
                return None
            pin = self.rng.choice(self.m.court_passages[cited.case_id]).page
        also = not without_text and self.rng.random() < 0.4
        w = Writer()
        other = cite_of(source, passage.page) if also else None
        unit, template = self.quoted(
            w,
            cite_of(cited, pin),
            quote_of(passage.text, self.rng),
            other,
            self.rng.choice(("quote-then-cite", "cite-then-quote", "quote-mid-sentence")),
        )
        variant = (
            "cited case has no opinion text"
            if without_text
            else "the source is cited in the excerpt too"
            if also
            else "the source is not cited"
        )
        return w, unit, f"{variant}, {template}", not without_text, f"the words are from {source.name}, {source.key}"

    def altered(self) -> tuple[Writer, int, str, bool, str] | None:
        case = self.m.info(self.rng.choice(self.clean_quoted))
        passage = self.passage(case.case_id)
        quote = quote_of(passage.text, self.rng)
        changed, how = alter(quote.body, self.rng, 2 if self.rng.random() < 0.2 else 1)
        if changed is None or normalize(changed).letters == normalize(quote.body).letters:
            return None
        w = Writer()
        unit, template = self.quoted(
            w, cite_of(case, passage.page), Quote(changed, quote.sentence), self.maybe_other({case.case_id})
        )
        return w, unit, f"{how}, {template}", True, f"the opinion says “{quote.body}”"

    def dissent(self) -> tuple[Writer, int, str, bool, str] | None:
        passage = self.rng.choice(self.m.separate_passages)
        case = self.m.info(passage.case_id)
        if case is None:
            return None
        w = Writer()
        template = self.rng.choice(("quote-then-cite", "cite-then-quote", "quote-mid-sentence", "id-pin"))
        unit, template = self.quoted(
            w, cite_of(case, passage.page), quote_of(passage.text, self.rng), self.maybe_other({case.case_id}), template
        )
        return w, unit, f"{passage.opinion_type}, {template}", True, f"{passage.opinion_type} of {passage.author}"

    def wrong_pin(self) -> tuple[Writer, int, str, bool, str] | None:
        case = self.m.info(self.rng.choice(self.clean_quoted))
        passage = self.passage(case.case_id)
        last = case.next_page or max(passage.pages)
        pages = [p for p in passage.pages if p != passage.page and case.page <= p <= last]
        if not pages:
            return None
        pin_page = self.rng.choice(pages)
        draw = self.rng.random()
        template = None
        if draw < 0.15 and case.next_page:
            pin = str(case.next_page + self.rng.randint(2, 30))
            variant = "a pin past the opinion's last page"
        elif draw < 0.35 and pin_page + 1 != passage.page and pin_page != passage.page - 1:
            end = str(pin_page + 1)
            pin = f"{pin_page}-{end[-2:] if len(end) > 2 else end}"
            variant = "a pin range"
        else:
            pin = str(pin_page)
            variant = "one page"
            template = "id-pin" if draw > 0.8 else None
        w = Writer()
        unit, template = self.quoted(
            w, cite_of(case, pin), quote_of(passage.text, self.rng), self.maybe_other({case.case_id}), template
        )
        return w, unit, f"{variant}, {template}", True, f"the passage is on page {passage.page}"

    def overruled(self) -> tuple[Writer, int, str, bool, str] | None:
        case = self.rng.choice(self.m.overruled)
        passage = self.passage(case.case_id) if case.case_id in self.m.court_passages else None
        pin = passage.page if passage else self.pin_inside(case)
        w, unit, template = self.write(cite_of(case, pin), passage.text if passage else None, {case.case_id})
        return (
            w,
            unit,
            f"{'quoted' if passage else 'citation only'}, {template}",
            True,
            (f"overruled in {case.facts.overruled_year}"),
        )


MAKERS = {
    FABRICATED: Generator.fabricated,
    WRONG_CITATION: Generator.wrong_citation,
    WRONG_YEAR: Generator.wrong_year,
    WRONG_COURT: Generator.wrong_court,
    MISATTRIBUTED: Generator.misattributed,
    ALTERED: Generator.altered,
    DISSENT: Generator.dissent,
    WRONG_PIN: Generator.wrong_pin,
    OVERRULED: Generator.overruled,
}


def generate(material: Material, seed: int, per_category: int, controls: int) -> list[Excerpt]:
    """`per_category` excerpts of each category and `controls` clean ones, in a seeded random order."""
    generator = Generator(material, seed)
    wanted = [(category, MAKERS[category]) for category in CATEGORIES for _ in range(per_category)]
    wanted += [(CONTROL, Generator.control)] * controls
    excerpts: list[Excerpt] = []
    for category, maker in wanted:
        for _ in range(200):
            made = maker(generator)
            if made is not None:
                break
        else:
            raise RuntimeError(f"could not write a {category} excerpt from the material")
        writer, unit, variant, decidable, truth = made
        target = None if category == CONTROL else unit
        excerpts.append(Excerpt(0, category, variant, writer.text(), writer.units, target, decidable, truth))
    generator.rng.shuffle(excerpts)
    for number, excerpt in enumerate(excerpts, 1):
        excerpt.number = number
    return excerpts
