"""How the injected-error bench reads `lexprobe check`'s output as error categories, and its figures.

The mapping (a flag is a category the checker's output gives one citation of an excerpt, with its quotations):

| checker output (on a citation or a quotation attributed to it) | category flagged |
|---|---|
| citation `not_found`, the document's name found elsewhere ("the database has “X” as ...") | wrong volume/page |
| citation `not_found`, no such case named elsewhere | fabricated case |
| citation `mismatch`: "wrong first page", a parallel citation that differs | wrong volume/page |
| citation `mismatch` on the name ("... in the database, not “X”"), X named elsewhere | wrong volume/page |
| citation `mismatch` on the name, X nowhere in the database | fabricated case |
| citation `mismatch`: "the year given ..." (and no name problem) | wrong year |
| citation `mismatch`: "the court given ..." (and no name or year problem) | wrong court |
| a note starting "overruled" (the document does not say so itself) | overruled as good law |
| a note "pin cite ... outside the opinion's page range" / "before the opinion's first page" | wrong pin |
| quotation `altered` | altered quotation |
| quotation `not_found` or `other_case` | misattributed quotation |
| quotation `separate_opinion` | dissent as the Court's |
| quotation `verified` with `pin_ok` False | wrong pin |

A citation judged `mismatch` or `not_found` carries that flag only: its quotations and notes follow from the wrong
citation (they are checked against another case, or none) and are not counted again. A flag counts as a detection
only when it is on the excerpt's injected citation (a quotation counts where the checker attributed it) and of the
injected category; every other flag, on an error excerpt or a control, is a false flag of its category.
`unverifiable`: the injected citation (for a citation category) or its quotation (for a quotation category) was
judged unverifiable and nothing was flagged on it: the checker said it could not tell.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from injected_excerpts import (
    ALTERED,
    CATEGORIES,
    CONTROL,
    DISSENT,
    FABRICATED,
    MISATTRIBUTED,
    OVERRULED,
    WRONG_CITATION,
    WRONG_COURT,
    WRONG_PIN,
    WRONG_YEAR,
    Excerpt,
)

from lexprobe.check.extract import FULL, FoundCitation
from lexprobe.check.quote_verdicts import QuotationVerdict
from lexprobe.check.verify import MISMATCH, NOT_FOUND, UNVERIFIABLE, CitationVerdict

CITATION_CATEGORIES = (FABRICATED, WRONG_CITATION, WRONG_YEAR, WRONG_COURT, OVERRULED)
QUOTATION_CATEGORIES = (MISATTRIBUTED, ALTERED, DISSENT, WRONG_PIN)
_ELSEWHERE = "the database has “"


def citation_category(verdict: CitationVerdict) -> str | None:
    """The category a `mismatch` or `not_found` verdict flags (None for the others)."""
    reason = verdict.reason
    if verdict.verdict == NOT_FOUND:
        return WRONG_CITATION if _ELSEWHERE in reason else FABRICATED
    if verdict.verdict != MISMATCH:
        return None
    if "wrong first page" in reason or "its parallel citation names" in reason:
        return WRONG_CITATION
    if " in the database, not “" in reason:
        return WRONG_CITATION if _ELSEWHERE in reason else FABRICATED
    if "the year given" in reason:
        return WRONG_YEAR
    if "the court given" in reason:
        return WRONG_COURT
    return WRONG_CITATION


def note_categories(notes: Sequence[str]) -> set[str]:
    """Overruled (cited as good law) and pin-outside-the-opinion notes as categories."""
    found = set()
    if any(note.startswith("overruled") for note in notes):
        found.add(OVERRULED)
    if any(note.startswith("pin cite") for note in notes):
        found.add(WRONG_PIN)
    return found


def quotation_category(quotation: QuotationVerdict) -> str | None:
    """The category a quotation verdict flags (None for verified on the pin, or unverifiable)."""
    return {
        "altered": ALTERED,
        "not_found": MISATTRIBUTED,
        "other_case": MISATTRIBUTED,
        "separate_opinion": DISSENT,
    }.get(quotation.verdict, WRONG_PIN if quotation.verdict == "verified" and quotation.pin_ok is False else None)


@dataclass
class Outcome:
    """What the checker said about one excerpt: flags per unit (None: a citation that is none of the excerpt's),
    whether the injected unit was unverifiable, what it said of the target (for the confusion table)."""

    flags: dict[int | None, set[str]] = field(default_factory=dict)
    unverifiable: bool = False
    listed_quotation: bool = True  # the checker listed the injected quotation (quotation categories)
    quotation_elsewhere: bool = False  # ... and attributed it to another citation than the injected one


def _unit_of(excerpt: Excerpt, found: Sequence[FoundCitation], index: int) -> int | None:
    citation = found[index]
    if citation.kind != FULL and citation.refers_to is not None:
        citation = found[citation.refers_to]
    if citation.kind != FULL:
        return None
    for number, unit in enumerate(excerpt.units):
        if citation.span[0] <= unit.span[0] and unit.span[1] <= citation.span[1]:
            return number
    return None


def read_outcome(
    excerpt: Excerpt,
    found: Sequence[FoundCitation],
    verdicts: Sequence[CitationVerdict],
    quotations: Sequence[QuotationVerdict],
) -> Outcome:
    """Map the checker's verdicts on one excerpt to flags per unit (the rules in the module docstring)."""
    outcome = Outcome()
    wrong_citation: set[int | None] = set()
    citation_verdict: dict[int | None, str] = {}
    for index, verdict in enumerate(verdicts):
        unit = _unit_of(excerpt, found, index)
        category = citation_category(verdict)
        if found[index].kind == FULL:
            citation_verdict.setdefault(unit, verdict.verdict)
        if category is not None:
            outcome.flags.setdefault(unit, set()).add(category)
            wrong_citation.add(unit)
    for index, verdict in enumerate(verdicts):
        unit = _unit_of(excerpt, found, index)
        if unit not in wrong_citation and note_categories(verdict.notes):
            outcome.flags.setdefault(unit, set()).update(note_categories(verdict.notes))
    quote_verdicts: list[str] = []
    target_quote = excerpt.units[excerpt.target].quote if excerpt.target is not None else None
    for quotation in quotations:
        unit = _unit_of(excerpt, found, quotation.citation)
        if target_quote and quotation.span[0] < target_quote[1] and target_quote[0] < quotation.span[1]:
            if unit == excerpt.target:
                quote_verdicts.append(quotation.verdict)
            else:
                outcome.quotation_elsewhere = True
        category = quotation_category(quotation)
        if category is not None and unit not in wrong_citation:
            outcome.flags.setdefault(unit, set()).add(category)
    if excerpt.target is not None and excerpt.category not in outcome.flags.get(excerpt.target, set()):
        if excerpt.category in QUOTATION_CATEGORIES:
            outcome.listed_quotation = bool(quote_verdicts) or outcome.quotation_elsewhere
            outcome.unverifiable = bool(quote_verdicts) and all(v == UNVERIFIABLE for v in quote_verdicts)
            outcome.unverifiable |= citation_verdict.get(excerpt.target) == UNVERIFIABLE
        else:
            outcome.unverifiable = citation_verdict.get(excerpt.target) == UNVERIFIABLE
    return outcome


def _ratio(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def _f1(precision: float | None, recall: float | None) -> float | None:
    if not precision or not recall:
        return 0.0 if precision is not None and recall is not None else None
    return round(2 * precision * recall / (precision + recall), 1)


def figures(excerpts: Sequence[Excerpt], outcomes: Sequence[Outcome]) -> dict:
    """Per category and overall: recall (all, and on the excerpts the offline data can decide), precision, F1,
    unverifiable, flagged as another category, missed; false alarms on controls; a confusion table."""
    injected = Counter(e.category for e in excerpts if e.category != CONTROL)
    decidable = Counter(e.category for e in excerpts if e.category != CONTROL and e.decidable)
    hits: Counter = Counter()
    hits_decidable: Counter = Counter()
    any_flag: Counter = Counter()
    unverifiable: Counter = Counter()
    unverifiable_undecidable: Counter = Counter()
    flags: Counter = Counter()
    right_flags: Counter = Counter()
    confusion: dict[str, Counter] = {category: Counter() for category in CATEGORIES}
    control_alarms = 0
    control_flags: Counter = Counter()
    for excerpt, outcome in zip(excerpts, outcomes, strict=True):
        for unit, categories in outcome.flags.items():
            for category in categories:
                flags[category] += 1
                if unit == excerpt.target and category == excerpt.category:
                    right_flags[category] += 1
        if excerpt.category == CONTROL:
            if any(outcome.flags.values()):
                control_alarms += 1
                control_flags.update(c for categories in outcome.flags.values() for c in categories)
            continue
        on_target = outcome.flags.get(excerpt.target, set())
        if excerpt.category in on_target:
            hits[excerpt.category] += 1
            hits_decidable[excerpt.category] += excerpt.decidable
            confusion[excerpt.category][excerpt.category] += 1
            any_flag[excerpt.category] += 1
            continue
        if on_target:
            any_flag[excerpt.category] += 1
            confusion[excerpt.category].update(on_target)
        elif outcome.unverifiable:
            unverifiable[excerpt.category] += 1
            unverifiable_undecidable[excerpt.category] += not excerpt.decidable
            confusion[excerpt.category]["unverifiable"] += 1
        elif outcome.quotation_elsewhere:
            confusion[excerpt.category]["quotation attributed to another citation"] += 1
        elif not outcome.listed_quotation:
            confusion[excerpt.category]["quotation not listed"] += 1
        else:
            confusion[excerpt.category]["nothing"] += 1
    per_category = {}
    for category in CATEGORIES:
        recall = _ratio(hits[category], injected[category])
        precision = _ratio(right_flags[category], flags[category])
        per_category[category] = {
            "injected": injected[category],
            "decidable": decidable[category],
            "detected": hits[category],
            "recall": recall,
            "recall_decidable": _ratio(hits_decidable[category], decidable[category]),
            "flags": flags[category],
            "precision": precision,
            "f1": _f1(precision, recall),
            "flagged_any": any_flag[category],
            "unverifiable": unverifiable[category],
            "unverifiable_of_undecidable": unverifiable_undecidable[category],
            "confusion": dict(confusion[category].most_common()),
        }
    errors = sum(injected.values())
    detected = sum(hits.values())
    total_flags = sum(flags.values())
    recall = _ratio(detected, errors)
    precision = _ratio(detected, total_flags)
    controls = sum(1 for e in excerpts if e.category == CONTROL)
    return {
        "excerpts": len(excerpts),
        "errors": errors,
        "controls": controls,
        "per_category": per_category,
        "overall": {
            "recall": recall,
            "recall_decidable": _ratio(sum(hits_decidable.values()), sum(decidable.values())),
            "precision": precision,
            "f1": _f1(precision, recall),
            "recall_any_flag": _ratio(sum(any_flag.values()), errors),
            "unverifiable": sum(unverifiable.values()),
            "flags": total_flags,
        },
        "controls_flagged": control_alarms,
        "controls_flagged_pct": _ratio(control_alarms, controls),
        "control_flags": dict(control_flags.most_common()),
    }
