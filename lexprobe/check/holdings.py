"""`lexprobe check --judge MODEL`: does the cited opinion support what the document cites it for? (docs/check.md,
"Holdings and propositions".) The document is cut into sentences, and each sentence citing a case (or the sentence a
citation sentence follows) is a proposition (`find_propositions`); the passages of the cited case most relevant to
it (`PassageFinder`: its opinion texts cut into paragraph-sized passages, ranked with BM25 by `bm25s`) go to the
judge model with the Jinja template `templates/holding_judge.j2` (or `--judge-template`), rendered in Jinja's
sandbox, through the engine and the shared response cache. Its reply is read leniently but never guessed
(`parse_reply`); the verdict is supported, contradicted, not_supported or unjudged, every one but `unjudged` a
model's judgement labelled with the judge's name."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexprobe.caselaw.case_names import display_name
from lexprobe.check.extract import FoundCitation
from lexprobe.check.quote_match import Opinion, OpinionTexts
from lexprobe.check.verify import CitationVerdict, summarize
from lexprobe.errors import BadInputError

if TYPE_CHECKING:
    from jinja2 import Template

    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig
    from lexprobe.models.types import Request, Response

# --- propositions: what each sentence cites a case for -----------------------------------------------------

#: A sentence with fewer words than this once its citations are taken away is only a citation sentence.
MIN_WORDS = 4
#: The longest proposition sent to the judge (characters); a longer sentence is cut, and the reason says so.
MAX_PROPOSITION_CHARS = 1_500

_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[\"“(\[]?[A-Z0-9§])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:v|vs|U\.S|S|Ct|Co|Inc|Corp|No|Nos|Cir|Dist|id|Id|al|e\.g|i\.e|cf|Cf|J|JJ|C\.J|supra|ed|Ed|L|Stat|"
    r"U\.S\.C|Rev|Sup|App|F|Supp|Cong|Sess|Mr|Mrs|Ms|Dr|St|Art|art|Sec|sec|cl|Cl|amend|Amend|pp|p)|\b[A-Z])\.$"
)
_SIGNALS = re.compile(r"\b(?:see|also|cf|accord|compare|with|and|but|contra|e\.g|generally|id|ibid|at|supra|"
                      r"quoting|citing|internal|quotation|marks|omitted|emphasis|added)\b\.?", re.I)  # fmt: skip
_YEAR_PARENTHETICAL = re.compile(r"\([^()]{0,40}\b\d{4}\)")
#: After a citation, the sentence runs on (a word follows, past punctuation and parentheticals).
_RUNS_ON = re.compile(r"(?:[\s,;:]|\([^()]{0,60}\))*[^\W\d_]{2,}")


@dataclass(frozen=True)
class Proposition:
    """What a sentence cites a case for: `text` (whitespace collapsed, citations taken out), `span` of the
    sentence (or of the sentence and its citation sentence) in the document, `citation` the index (in the
    extraction's list) of the first citation of the case, `case_index` that of the full citation it resolves to."""

    text: str
    span: tuple[int, int]
    citation: int
    case_index: int
    cut: bool = False


def sentence_spans(text: str, citations: Sequence[FoundCitation]) -> list[tuple[int, int]]:
    """The spans of the sentences of `text`: a sentence end inside a citation or after an abbreviation ends none."""
    inside = sorted(c.span for c in citations)
    spans = []
    start = 0
    cursor = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.start() + 1
        while cursor < len(inside) and inside[cursor][1] <= end - 1:
            cursor += 1
        if cursor < len(inside) and inside[cursor][0] < end <= inside[cursor][1] - 1:
            continue  # within a citation ("347 U.S. 483, 495 (1954)")
        if _ABBREVIATION.search(text[max(start, end - 12) : end]):
            continue
        spans.append((start, _trimmed_end(text, start, match.end())))
        start = match.end()
    if start < len(text) and text[start:].strip():
        spans.append((start, _trimmed_end(text, start, len(text))))
    return [span for span in spans if span[1] > span[0]]


def _trimmed_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _without_citations(text: str, span: tuple[int, int], citations: Sequence[FoundCitation]) -> str:
    """The sentence's text with its citations (and the year parentheticals they leave) taken out; of an over-long
    sentence, only the first `MAX_PROPOSITION_CHARS` (and one more) characters of each piece between citations."""
    start, end = span
    pieces = []
    position = start
    bound = MAX_PROPOSITION_CHARS + 1
    for citation in citations:
        first, last = max(citation.span[0], start), min(citation.span[1], end)
        if first < position or last <= first:
            continue
        pieces.append(text[position : min(first, position + bound)])
        if citation.name and _RUNS_ON.match(text, last, end):  # "held in Monell, 436 U.S. at 690, that ..."
            pieces.append(citation.name)
        position = last
    pieces.append(text[position : min(end, position + bound)])
    joined = _YEAR_PARENTHETICAL.sub(" ", " ".join("".join(pieces).split()))
    joined = re.sub(r"\s+([,;.:)])", r"\1", joined)
    joined = re.sub(r"(?:^|\s)[,;:]+(?=\s|$)", " ", joined)
    joined = " ".join(joined.split()).strip(" ,;:")
    parenthetical = re.fullmatch(r"\(([^()]*)\)[.;]?", joined)  # "Id. at 691 (holding that ...)." alone
    return parenthetical.group(1).strip() if parenthetical else joined


def _words_left(proposition: str) -> int:
    """The words of a sentence that are neither signals nor numbers (how a citation sentence is told apart)."""
    stripped = _SIGNALS.sub(" ", proposition)
    return sum(1 for word in re.findall(r"[^\W\d_]{2,}", stripped))


def find_propositions(text: str, citations: Sequence[FoundCitation]) -> list[Proposition]:
    """The propositions of `text` (see the module docstring), in document order, one per sentence and case."""
    ordered = sorted(citations, key=lambda c: c.span)
    if not ordered:
        return []
    sentences = sentence_spans(text, ordered)
    found: list[Proposition] = []
    cursor = 0
    previous: tuple[tuple[int, int], str] | None = None
    seen: set[tuple[int, int]] = set()  # (proposition start, cited case): one judgement each
    for sentence in sentences:
        members = []
        while cursor < len(ordered) and ordered[cursor].span[0] < sentence[1]:
            if ordered[cursor].span[0] >= sentence[0]:
                members.append(ordered[cursor])
            cursor += 1
        own = _without_citations(text, sentence, members)
        if not members:
            previous = (sentence, own) if _words_left(own) >= MIN_WORDS else None
            continue
        if _words_left(own) >= MIN_WORDS:
            proposition, span = own, sentence
            previous = (sentence, own)  # a citation sentence after it cites more cases for it
        elif previous is not None:
            proposition, span = previous[1], (previous[0][0], sentence[1])
        else:
            continue
        cut = len(proposition) > MAX_PROPOSITION_CHARS
        shown = proposition[:MAX_PROPOSITION_CHARS] + "…" if cut else proposition
        for citation in members:
            target = citation.refers_to if citation.refers_to is not None else citation.index
            if citation.kind != "full" and citation.refers_to is None:
                continue  # an unresolved short form names no case
            if (span[0], target) in seen:
                continue
            seen.add((span[0], target))
            found.append(Proposition(shown, span, citation.index, target, cut))
    return found


# --- passages: a case's opinion texts cut into passages, ranked with BM25 -----------------------------------------

#: A passage grows sentence by sentence to about this many characters.
PASSAGE_CHARS = 900
#: No passage is longer (a longer sentence is cut).
MAX_PASSAGE_CHARS = 1_500
#: Passages retrieved per proposition.
TOP_PASSAGES = 4
#: Passages indexed per case (a very long case's later passages are not searched).
MAX_PASSAGES_PER_CASE = 5_000

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_SENTENCE_BREAK = re.compile(r"[.!?][\"'”’)\]]?(\s+)(?=[\"“(\[]?[A-Z])")
_ABBREVIATED = re.compile(r"(?:\b(?:v|U\.\s?S|S|Ct|Co|No|Cir|Id|id|al|e\.g|i\.e|J|JJ|C\.\s?J|Mr|Mrs|Ms|Stat|F|Supp|"
                          r"Cf|cf|L|Ed|App|Inc|Corp|Sess|Cong)|\b[A-Z])\.[\"'”’)\]]?$")  # fmt: skip


@dataclass(frozen=True)
class Passage:
    """One passage of an opinion and its BM25 score for the proposition it was retrieved for."""

    text: str
    opinion_id: str
    opinion_type: str
    author: str | None
    is_separate: bool
    page: int | None
    score: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The `passages` object of a holding in `check --json`."""
        return {
            "text": self.text,
            "opinion_id": self.opinion_id,
            "opinion_type": self.opinion_type,
            "author": self.author,
            "page": self.page,
            "score": round(self.score, 3),
        }


def _sentences(text: str, offset: int) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for match in _SENTENCE_BREAK.finditer(text):
        end = match.start(1)
        if _ABBREVIATED.search(text[max(start, end - 8) : end]):
            continue
        spans.append((offset + start, offset + end))
        start = match.end()
    if start < len(text):
        spans.append((offset + start, offset + len(text)))
    return spans


def split_passages(text: str) -> list[tuple[int, int]]:
    """The spans of the passages of one opinion text (see the module docstring)."""
    spans: list[tuple[int, int]] = []
    breaks = [(m.start(), m.end()) for m in _PARAGRAPH_BREAK.finditer(text)] + [(len(text), len(text))]
    position = 0
    for paragraph_end, next_start in breaks:
        paragraph = text[position:paragraph_end]
        current: tuple[int, int] | None = None
        for start, end in _sentences(paragraph, position):
            while end - start > MAX_PASSAGE_CHARS:  # one very long sentence: cut it
                if current:
                    spans.append(current)
                    current = None
                spans.append((start, start + MAX_PASSAGE_CHARS))
                start += MAX_PASSAGE_CHARS
            if current is None:
                current = (start, end)
            elif end - current[0] <= PASSAGE_CHARS:
                current = (current[0], end)
            else:
                spans.append(current)
                current = (start, end)
        if current:
            spans.append(current)
        position = next_start
    return [(start, end) for start, end in spans if text[start:end].strip()]


class PassageFinder:
    """Retrieves the passages of a case most relevant to a proposition; each case's passages are indexed once (BM25)."""

    def __init__(self, texts: OpinionTexts) -> None:
        self.texts = texts
        self._indexes: dict[str, tuple[list[Passage], Any]] = {}  # case id -> its passages and their BM25 index

    def has_text(self, case_id: str) -> bool:
        """Whether the database has any opinion text of the case."""
        return bool(self.texts.opinions_of(case_id))

    def _index(self, opinions: Sequence[Opinion]) -> tuple[list[Passage], Any]:
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # its index-building notes are not ours to print
        passages = [
            Passage(
                " ".join(opinion.text[start:end].split()),
                opinion.opinion_id,
                opinion.opinion_type,
                opinion.author,
                opinion.is_separate,
                opinion.marks.page_at(start),
            )
            for opinion in opinions
            for start, end in split_passages(opinion.text)
        ][:MAX_PASSAGES_PER_CASE]
        retriever = bm25s.BM25()
        retriever.index(
            bm25s.tokenize([p.text for p in passages], stopwords="en", show_progress=False), show_progress=False
        )
        return passages, retriever

    def top(self, case_id: str, proposition: str, k: int = TOP_PASSAGES) -> list[Passage]:
        """The `k` passages of the case's opinions that BM25 ranks highest for `proposition` (score above 0)."""
        if case_id not in self._indexes:
            opinions = self.texts.opinions_of(case_id)
            if not opinions:
                return []
            self._indexes[case_id] = self._index(opinions)
        import bm25s

        passages, retriever = self._indexes[case_id]
        query = bm25s.tokenize([proposition], stopwords="en", return_ids=False, show_progress=False)
        if not passages or not query[0]:
            return []
        indexes, scores = retriever.retrieve(query, k=min(k, len(passages)), show_progress=False)
        return [
            replace(passages[int(index)], score=float(score))
            for index, score in zip(indexes[0], scores[0], strict=True)
            if score > 0
        ]


# --- the judge: its prompt, how its reply is read, how it is asked -------------------------------------------------

SUPPORTED, CONTRADICTED, NOT_SUPPORTED = "supported", "contradicted", "not_supported"
#: Tokens a judge may answer with (the reason takes the rest of the first lines).
JUDGE_MAX_TOKENS = 200
#: The largest `--judge-template` file read.
MAX_TEMPLATE_BYTES = 100_000
#: Characters of the judge's reply kept as the reason.
MAX_REASON_CHARS = 600

_WORD = r"(not[\s_-]+supported|unsupported|contradicted|contradicts|supported|supports)"
_VERDICT_LINE = re.compile(r"verdict\s*(?:is)?\s*[:=\-–]?\s*[*_`\"'\[(]*\s*" + _WORD + r"\b", re.I)
_LEADING = re.compile(r"^[\s*_`#>\"'\[(]*" + _WORD + r"\b", re.I)
_REASON = re.compile(r"reason\s*[:=\-–]\s*(.+)", re.I | re.S)
_IN_SENTENCE = re.compile(
    r"\b(does\s+not\s+support|doesn[’']t\s+support|not[\s_-]+supported|unsupported|contradict(?:s|ed)?|supports|"
    r"supported)\b",
    re.I,
)
_HEDGE = re.compile(r"\b(?:not|no|nothing|never|neither|nor|partly|partially|unclear|may|might)\b|n[’']t\b", re.I)


def _verdict_of(word: str) -> str:
    word = " ".join(word.lower().replace("_", " ").replace("-", " ").replace("’", "'").split())
    if word in ("not supported", "unsupported", "does not support", "doesn't support"):
        return NOT_SUPPORTED
    return CONTRADICTED if word.startswith("contradict") else SUPPORTED


def parse_reply(text: str) -> tuple[str | None, str]:
    """The verdict a judge's reply gives (None when it gives none plainly) and its reason (the "REASON:" text,
    else the reply without its verdict line), whitespace collapsed and cut to `MAX_REASON_CHARS`."""
    text = text or ""
    lines = _VERDICT_LINE.findall(text)
    verdict = _verdict_of(lines[-1]) if lines else None
    if verdict is None:
        leading = _LEADING.match(text)
        verdict = _verdict_of(leading.group(1)) if leading else _first_line_verdict(text)
    found = _REASON.search(text)
    reason = found.group(1) if found else _VERDICT_LINE.sub(" ", text)
    reason = " ".join(reason.split())
    return verdict, reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 1] + "…"


def _first_line_verdict(text: str) -> str | None:
    """The verdict of a reply whose first line names exactly one ("The opinion supports the proposition."),
    with no other negation or hedge in it; else None."""
    first = text.strip().split("\n", 1)[0][:400]  # a line, not a sentence: "Monell v. Dep't of Soc. Servs." has dots
    words = _IN_SENTENCE.findall(first)
    verdicts = {_verdict_of(word) for word in words}
    if len(words) != 1 or len(verdicts) != 1 or _HEDGE.search(_IN_SENTENCE.sub(" ", first)):
        return None
    return verdicts.pop()


def load_template(path: Path | None) -> Template:
    """The judge's prompt template: `path` (a user's file) or the one shipped; a user's file that cannot be read
    or compiled is a `BadInputError` saying why."""
    from jinja2 import StrictUndefined, TemplateError
    from jinja2.sandbox import SandboxedEnvironment

    environment = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    if path is None:
        source = (resources.files("lexprobe.check") / "templates" / "holding_judge.j2").read_text(encoding="utf-8")
        return environment.from_string(source)
    try:
        data = path.read_bytes()[: MAX_TEMPLATE_BYTES + 1]
    except OSError as exc:
        raise BadInputError(f"cannot read the judge template {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_TEMPLATE_BYTES:
        raise BadInputError(f"the judge template {path} is over {MAX_TEMPLATE_BYTES:,} bytes")
    try:
        return environment.from_string(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadInputError(f"the judge template {path} is not UTF-8 text") from None
    except TemplateError as exc:
        raise BadInputError(f"the judge template {path} does not compile: {exc}") from None


def render_prompt(template: Template, variables: dict[str, Any]) -> str:
    """The prompt for one proposition; a user's template that uses an unknown variable is a `BadInputError`."""
    from jinja2 import TemplateError

    try:
        return template.render(**variables)
    except TemplateError as exc:
        raise BadInputError(f"the judge template does not render: {exc}") from None


def judge_request(model: str, prompt: str) -> Request:
    """The temperature-0 request asking `model` about one proposition (its id is its cache key)."""
    from lexprobe.models.types import Request

    return Request.from_prompt(model, prompt, temperature=0.0, max_tokens=JUDGE_MAX_TOKENS,
                               tags={"role": "holding_judge"})  # fmt: skip


@dataclass(frozen=True)
class Answers:
    """The judge's answers by request id, and why the rest have none."""

    responses: dict[str, Response]
    failure: str | None


def ask(requests: Sequence[Request], config: EngineConfig, cache: ResponseCache | None) -> Answers:
    """Send `requests` (distinct) through the engine, answered from `cache` where it holds them; a model that
    cannot be used raises its `ModelConfigError`, and Ctrl-C stops the run cleanly (`RunInterrupted`)."""
    from lexprobe.engine.executor import Engine
    from lexprobe.engine.interrupt import stop_on_sigint
    from lexprobe.engine.store import RunStore

    store = RunStore.in_memory()

    async def run():
        engine = Engine(store, cache, config)
        try:
            return await engine.run(list(requests))
        finally:
            await engine.aclose()

    try:
        with stop_on_sigint():
            summary = asyncio.run(run())
        responses = {}
        for request in requests:
            response = store.response(request.request_id)
            if response is not None:
                responses[request.request_id] = response
    finally:
        store.close()
    problems = [*summary.permanent_errors, *summary.errors]
    failure = problems[0].split(": ", 1)[-1] if problems else None
    return Answers(responses, failure)


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
                    "passages": [{"text": p.text, "label": passage_label(p), "page": p.page,
                                  "opinion_type": p.opinion_type, "author": p.author} for p in item.passages],
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
