"""`lexprobe check`'s work: read the documents, verify their citations (with `--online`, CourtListener too), check
their quotations and, with `--judge`, the propositions they cite cases for. The command prints the result; what
happens on the way (an empty document, progress through a long one, the online steps) reaches it as `Note`s."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lexprobe.check import quotations as quotation_finder
from lexprobe.check.extract import extract_citations
from lexprobe.check.online import DEFAULT_ONLINE_TIMEOUT_S, Deadline
from lexprobe.check.quote_verdicts import QUOTE_PROBLEMS, check_quotations
from lexprobe.check.render_html import CheckedDocument, display_name
from lexprobe.check.verify import MISMATCH, NOT_FOUND, case_lookup_for, verify_citations
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import extract_text
from lexprobe.errors import BadInputError
from lexprobe.terminal import safe_text

if TYPE_CHECKING:
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.check.holdings import JudgeSettings
    from lexprobe.check.online import OnlineOpinionTexts

__all__ = ["PROGRESS_CHARS", "CheckSettings", "Note", "check_documents", "check_one_text", "found_problems"]

#: Documents longer than this report their progress.
PROGRESS_CHARS = 100_000


@dataclass(frozen=True)
class Note:
    """A line for the user while the check runs: its text, its kind ("warning", "dim" or "" for a plain line) and
    whether a terminal may wrap it."""

    text: str
    kind: str = ""
    wrap: bool = False


@dataclass(frozen=True)
class CheckSettings:
    """What `--online`, `--online-timeout` and the `--judge` options ask for."""

    online: bool = False
    online_timeout: float = DEFAULT_ONLINE_TIMEOUT_S
    judge: JudgeSettings | None = None


def _read(files: Sequence[Path]) -> list[tuple[Path, str]]:
    """Each file with its text; BadInputError naming the first file that cannot be read."""
    texts = []
    for path in files:
        try:
            texts.append((path, extract_text(path)))
        except ExtractionError as exc:
            raise BadInputError(safe_text(f"cannot read {display_name(exc.path)}: {exc.reason}")) from None
    return texts


def _progress(path: Path, total: int, notify: Callable[[Note], None]) -> Callable[[int, int], None] | None:
    """A progress callback for long documents: a note at every quarter of the text."""
    if total < PROGRESS_CHARS:
        return None
    reported = {0}

    def report(done: int, parsed_total: int) -> None:  # counts of the whitespace-collapsed text eyecite parses
        quarter = done * 4 // max(parsed_total, 1)
        if quarter not in reported:
            reported.add(quarter)
            share = done * total // max(parsed_total, 1)
            notify(Note(f"{display_name(path)}: {share:,} of {total:,} characters read", "dim"))

    notify(Note(f"checking {display_name(path)} ({total:,} characters)...", "dim"))
    return report


def _refine_online(path: Path, found: list, verdicts: list, deadline: Deadline, notify: Callable[[Note], None]):
    """`--online`: the verdicts after asking CourtListener about those the database cannot verify."""
    from lexprobe.check.online import refine_online

    result = refine_online(found, verdicts, deadline=deadline)
    if result.message:
        notify(Note(result.message, wrap=True))
    elif result.asked:
        notify(Note(f"{display_name(path)}: asked CourtListener about {result.asked} citation(s): {result.cached} "
                    f"from the cache, {result.fetched} from the API", "dim"))  # fmt: skip
    return result.verdicts


def _check_one(path: Path, text: str, lookup, case_db: CaseDatabase, settings: CheckSettings, deadline: Deadline,
               online_texts: OnlineOpinionTexts | None, notify: Callable[[Note], None]):  # fmt: skip
    """One document: its checked form, and its citations with their verdicts (for the judge)."""
    if not text.strip():
        notify(Note(f"{display_name(path)} has no text (a scanned PDF?)", "warning"))
    found = extract_citations(text, _progress(path, len(text), notify))
    verdicts = verify_citations(found, lookup) if found else []
    if settings.online and found:
        verdicts = _refine_online(path, found, verdicts, deadline, notify)

    def skipped(count: int) -> None:  # the limit read now: a test lowers it
        limit = quotation_finder.MAX_QUOTATIONS
        notify(Note(f"{display_name(path)}: {count} quotation(s) past the first {limit} not checked", "warning", True))

    quotations = (
        check_quotations(text, found, verdicts, case_db, online_texts=online_texts, on_skipped=skipped) if found else []
    )
    return CheckedDocument(display_name(path), text, verdicts, quotations), (found, verdicts)


def _judge(documents: list[CheckedDocument], extracted: list, case_db: CaseDatabase, judge: JudgeSettings,
           notify: Callable[[Note], None]) -> list[CheckedDocument]:  # fmt: skip
    """`--judge`: the documents with their holding verdicts (one engine run for all), and a note saying how many
    were judged, how many came from the cache, and how many propositions were over `--judge-max`."""
    from lexprobe.check.holdings import CitedDocument, judge_holdings
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig

    config = EngineConfig(max_retries=2, timeout_s=judge.timeout_s, progress=False)
    cited = [CitedDocument(d.text, found, verdicts) for d, (found, verdicts) in zip(documents, extracted, strict=True)]
    holdings = judge_holdings(cited, case_db, judge, config, ResponseCache())
    items = [h for result in holdings for h in result.items]
    asked = [h for h in items if h.passages]  # the ones with passages went to the judge (or its cache)
    skipped = sum(result.skipped for result in holdings)
    over = f"; {skipped} proposition(s) over --judge-max {judge.max_propositions} not judged" if skipped else ""
    notify(Note(f"judge {judge.model}: {len(asked)} of {len(items)} proposition(s) asked, "
                f"{sum(1 for h in asked if h.cached)} answered from the cache, "
                f"{sum(1 for h in items if h.judged)} given a verdict{over}", "dim", wrap=True))  # fmt: skip
    return [
        dataclasses.replace(document, holdings=result.items, holdings_skipped=result.skipped)
        for document, result in zip(documents, holdings, strict=True)
    ]


def _online_texts_notes(online_texts: OnlineOpinionTexts, notify: Callable[[Note], None]) -> None:
    """`--online`: the notes of the opinion-text step (why texts were not fetched), or how many were."""
    for message in online_texts.messages:
        notify(Note(message, wrap=True))
    if online_texts.fetched or online_texts.cached:
        notify(Note(f"opinion texts from CourtListener: {online_texts.fetched} fetched, {online_texts.cached} from "
                    "the cache", "dim"))  # fmt: skip


def check_documents(files: Sequence[Path], open_db: Callable[[], CaseDatabase], settings: CheckSettings,
                    notify: Callable[[Note], None]) -> list[CheckedDocument]:  # fmt: skip
    """Check every file's citations, quotations and (with a judge) propositions against the case database
    `open_db()` opens once the files are read. BadInputError for an unusable judge or template, or a file that
    cannot be read, before any work."""
    if settings.judge is not None:
        from lexprobe.check.holdings import load_template
        from lexprobe.models.registry import check_model

        check_model(settings.judge.model)  # an unusable judge fails before any work
        load_template(settings.judge.template)  # so does a template that does not compile
    texts = _read(files)
    case_db = open_db()
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    lookup = case_lookup_for(case_db)
    deadline = Deadline(settings.online_timeout)
    online_texts = None
    if settings.online:
        from lexprobe.check.online import OnlineOpinionTexts

        online_texts = OnlineOpinionTexts(deadline=deadline)
    checked = [_check_one(path, text, lookup, case_db, settings, deadline, online_texts, notify)
               for path, text in texts]  # fmt: skip
    documents = [document for document, _ in checked]
    if settings.judge is not None:
        documents = _judge(documents, [pair for _, pair in checked], case_db, settings.judge, notify)
    if online_texts is not None:
        online_texts.close()
        _online_texts_notes(online_texts, notify)
    return documents


def check_one_text(name: str, text: str, case_db: CaseDatabase) -> CheckedDocument:
    """One text already in hand (a model's answer) checked as `check_documents` checks a document, offline and
    without a judge: its citations and quotations against `case_db`. Nothing is printed."""
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    deadline = Deadline(DEFAULT_ONLINE_TIMEOUT_S)  # unused offline
    document, _ = _check_one(Path(name), text, case_lookup_for(case_db), case_db, CheckSettings(), deadline, None,
                             lambda note: None)  # fmt: skip
    return document


def found_problems(documents: Sequence[CheckedDocument]) -> bool:
    """Whether anything is wrong (exit 1): a mismatch or not_found, a quotation or a judged proposition wanting."""
    if any(v.verdict in (MISMATCH, NOT_FOUND) for document in documents for v in document.verdicts):
        return True
    if any(q.verdict in QUOTE_PROBLEMS for document in documents for q in document.quotations):
        return True
    if any(document.holdings for document in documents):
        from lexprobe.check.holdings import HOLDING_PROBLEMS

        return any(h.verdict in HOLDING_PROBLEMS for document in documents for h in document.holdings)
    return False
