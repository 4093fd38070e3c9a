"""`lexprobe check --judge MODEL`: does the cited opinion support what the document cites it for? For each
proposition (`holding_sentences`), the passages of the cited case most relevant to it (`holding_passages`, BM25) go
to the judge model (`holding_judge`); its verdict is supported, contradicted, not_supported or unjudged, every one
but `unjudged` a model's judgement labelled with the judge's name (docs/check.md, "Holdings and propositions")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexprobe.caselaw.case_names import display_name
from lexprobe.check.extract import FoundCitation
from lexprobe.check.holding_judge import (
    CONTRADICTED,
    NOT_SUPPORTED,
    SUPPORTED,
    ask,
    judge_request,
    load_template,
    parse_reply,
    render_prompt,
)
from lexprobe.check.holding_passages import Passage, PassageFinder
from lexprobe.check.holding_sentences import Proposition, find_propositions
from lexprobe.check.quote_match import OpinionTexts
from lexprobe.check.verify import CitationVerdict, summarize

if TYPE_CHECKING:
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig

UNJUDGED = "unjudged"
HOLDING_VERDICTS = (SUPPORTED, CONTRADICTED, NOT_SUPPORTED, UNJUDGED)
#: Holding verdicts that make `lexprobe check --judge` exit 1.
HOLDING_PROBLEMS = (CONTRADICTED, NOT_SUPPORTED)
#: Propositions judged per document unless `--judge-max` says otherwise.
DEFAULT_MAX_PROPOSITIONS = 50
#: Seconds one judge request may take unless `--judge-timeout` says otherwise.
DEFAULT_JUDGE_TIMEOUT_S = 120.0
MODEL_LABEL = "a model's judgement, not a verified fact"

_TYPE_WORDS = {"lead": "opinion of the Court", "majority": "opinion of the Court", "combined": "opinion text"}


@dataclass(frozen=True)
class HoldingVerdict:
    """The verdict on one proposition; `citation` indexes the document's citation verdicts, `judge` is the model
    spec, `cached` whether the judgement came from the response cache."""

    sentence: str
    span: tuple[int, int]
    citation: int
    verdict: str
    judge: str
    passages: tuple[Passage, ...]
    reason: str
    cached: bool = False

    @property
    def judged(self) -> bool:
        """Whether the verdict is the judge's (anything but `unjudged`)."""
        return self.verdict != UNJUDGED

    def to_json(self, citation_offset: int = 0) -> dict[str, Any]:
        """The `holdings` object of `check --json` (`citation_offset`: the file's first index in `citations`)."""
        return {
            "sentence": self.sentence,
            "span": [self.span[0], self.span[1]],
            "citation": self.citation + citation_offset,
            "verdict": self.verdict,
            "judge": self.judge,
            "judged_by": "model" if self.judged else None,
            "passages": [passage.to_json() for passage in self.passages],
            "reason": self.reason,
            "cached": self.cached,
        }


@dataclass
class Holdings:
    """The holding verdicts of one document, and how many propositions were over the limit."""

    items: list[HoldingVerdict] = field(default_factory=list)
    skipped: int = 0


@dataclass(frozen=True)
class JudgeSettings:
    """What `--judge`, `--judge-template`, `--judge-max` and `--judge-timeout` ask for."""

    model: str
    template: Path | None = None
    max_propositions: int = DEFAULT_MAX_PROPOSITIONS
    timeout_s: float = DEFAULT_JUDGE_TIMEOUT_S


@dataclass(frozen=True)
class CitedDocument:
    """One document's text, its citations and their verdicts (the inputs of the holdings check)."""

    text: str
    found: Sequence[FoundCitation]
    verdicts: Sequence[CitationVerdict]


def summarize_holdings(holdings: Sequence[Holdings]) -> dict[str, int]:
    """Count the holding verdicts of `holdings`, every verdict present, and the skipped propositions."""
    counts = summarize((item for document in holdings for item in document.items), HOLDING_VERDICTS)
    counts["skipped"] = sum(document.skipped for document in holdings)
    return counts


def passage_label(passage: Passage) -> str:
    """How the prompt and the page name a passage's opinion: "opinion of the Court", "dissent of Rehnquist"."""
    if not passage.is_separate:
        return _TYPE_WORDS.get(passage.opinion_type, passage.opinion_type)
    kind = passage.opinion_type.replace("_", " ")
    return f"{kind} of {passage.author}" if passage.author else kind


@dataclass
class _Pending:
    proposition: Proposition
    case_label: str
    passages: tuple[Passage, ...]
    request_id: str | None = None
    verdict: HoldingVerdict | None = None


def judge_holdings(
    documents: Sequence[CitedDocument],
    db: CaseDatabase,
    settings: JudgeSettings,
    config: EngineConfig,
    cache: ResponseCache | None,
) -> list[Holdings]:
    """The holding verdicts of each document (in document order within each), all judge requests of all documents
    sent in one engine run."""
    template = load_template(settings.template)
    finder = PassageFinder(OpinionTexts(db))
    per_document: list[tuple[list[_Pending], int]] = []
    requests = {}
    for document in documents:
        propositions = find_propositions(document.text, document.found) if document.found else []
        chosen = propositions[: settings.max_propositions]
        pending = []
        for proposition in chosen:
            item = _prepare(proposition, document, finder, settings.model)
            if item.verdict is None:
                prompt = render_prompt(template, {
                    "proposition": proposition.text,
                    "case": item.case_label,
                    "citation": document.verdicts[proposition.citation].text,
                    "passages": [_prompt_passage(p) for p in item.passages],
                })  # fmt: skip
                request = judge_request(settings.model, prompt)
                item.request_id = request.request_id
                requests[request.request_id] = request
            pending.append(item)
        per_document.append((pending, len(propositions) - len(chosen)))
    answers = ask(list(requests.values()), config, cache) if requests else None
    results = []
    for pending, skipped in per_document:
        items = [item.verdict or _judged(item, settings.model, answers) for item in pending]
        results.append(Holdings(items, skipped))
    return results


def _prompt_passage(passage: Passage) -> dict[str, Any]:
    return {"text": passage.text, "label": passage_label(passage), "page": passage.page,
            "opinion_type": passage.opinion_type, "author": passage.author}  # fmt: skip


def _prepare(proposition: Proposition, document: CitedDocument, finder: PassageFinder, model: str) -> _Pending:
    """The proposition with its case's passages, or already `unjudged` when there is nothing to ask about."""
    verdict = document.verdicts[proposition.citation]
    case = verdict.case or document.verdicts[proposition.case_index].case

    def unjudged(label: str, reason: str) -> _Pending:
        item = _Pending(proposition, label, ())
        item.verdict = HoldingVerdict(proposition.text, proposition.span, proposition.citation, UNJUDGED, model,
                                      (), reason)  # fmt: skip
        return item

    if case is None:
        return unjudged("", f"not judged: its citation ({verdict.text}) resolves to no case of the database")
    label = display_name(case.name) if case.name else case.case_id
    if not finder.has_text(case.case_id):
        return unjudged(label, f"not judged: the database has no opinion text of {label} (offline)")
    passages = tuple(finder.top(case.case_id, proposition.text))
    if not passages:
        return unjudged(label, f"not judged: no passage of {label} shares a word with the proposition")
    return _Pending(proposition, label, passages)


def _judged(item: _Pending, model: str, answers) -> HoldingVerdict:
    proposition = item.proposition
    response = answers.responses.get(item.request_id) if answers else None
    cut = " (the sentence was cut to its first 1,500 characters)" if proposition.cut else ""

    def make(verdict: str, reason: str, cached: bool = False) -> HoldingVerdict:
        return HoldingVerdict(proposition.text, proposition.span, proposition.citation, verdict, model,
                              item.passages, reason + cut, cached)  # fmt: skip

    if response is None:
        failure = answers.failure if answers and answers.failure else "no answer"
        return make(UNJUDGED, f"not judged: the judge {model} did not answer ({failure})")
    verdict, reason = parse_reply(response.text)
    if verdict is None:
        return make(UNJUDGED, f"not judged: the reply of {model} gives no plain verdict: “{reason}”", response.cached)
    return make(verdict, f"judged by the model {model} ({MODEL_LABEL}) on {item.case_label}: {reason}", response.cached)
