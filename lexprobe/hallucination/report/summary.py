"""Score a run's answers and summarize them: hallucination rate, standard error, abstention rate, n, unscored.

Reference-free tasks (two samples and a contradiction judge) give a lower bound on the rate (the study's Eq. 2).
Rate: among scored answers (correct, hallucination, abstain), the share that are hallucinations; abstentions count
as non-hallucinations and stay in the denominator. Standard error: the binomial sqrt(p(1-p)/n). Unscored answers
(missing reference, unparseable answer) are excluded from n and counted apart. Strict rate (the study's Eq. 1 as
written): unparseable answers counted as hallucinations. Disposition and doctrinal agreement lead with the
class-balanced rate. The estimators are in `lexprobe.stats` and `profile_stats`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, fields

from lexprobe.engine.store import RunStore
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER, Score
from lexprobe.hallucination.profile.results import Unit, read_units
from lexprobe.hallucination.profile.stats import BALANCED_TASKS, rate_rows
from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext
from lexprobe.hallucination.scorers.calibration import Confidence, confidence
from lexprobe.hallucination.scorers.judge import judge_request, pair_label, verdict_label
from lexprobe.hallucination.scorers.model_reader import READER_ROLE, ReaderPass
from lexprobe.hallucination.tasks.item import item_of
from lexprobe.models.types import Request, Response


@dataclass
class ReportRow:
    """One task x level x prompt style: the rate with unscored answers left out (`rate`, `se`), the strict rate of
    the study's Eq. 1 counting them as hallucinations (`strict_rate`, `strict_se`), and for disposition and
    doctrinal agreement the class-balanced rate, their headline (`balanced_rate`, `balanced_se`); `note` says when
    the row's items have a single class (see `profile_stats`)."""

    task: str
    level: str
    prompt_style: str
    n: int
    rate: float | None
    se: float | None
    abstain_rate: float | None
    unscored: int
    pending: int
    strict_rate: float | None = None
    strict_se: float | None = None
    balanced_rate: float | None = None
    balanced_se: float | None = None
    note: str = ""

    @property
    def headline(self) -> tuple[float | None, float | None, str]:
        """Return (rate, s.e., name) of the row's headline figure: the balanced rate where there is one."""
        if self.task in BALANCED_TASKS:
            return self.balanced_rate, self.balanced_se, "balanced"
        return self.rate, self.se, "rate"


#: Scores written per transaction by `score_run` (scores are recomputed from the answers on every run).
SCORE_BATCH = 1000


def pending_judge_requests(store: RunStore, judge_model: str) -> list[Request]:
    """Return the judge requests for every answered sample pair whose samples do not abstain (reading only the
    samples' rows)."""
    partners: dict[str, dict[str, tuple[Request, Response | None]]] = {}
    for row in store.rows(roles=("sample0", "sample1")):
        partners.setdefault(row.request.tags["pair"], {})[row.role] = (row.request, row.response)
    judges = []
    for pair, members in partners.items():
        first, second = members.get("sample0"), members.get("sample1")
        if first is None or second is None:
            continue
        answer_1, answer_2 = first[1], second[1]
        if answer_1 is None or answer_2 is None or pair_label(answer_1.text, answer_2.text) is not None:
            continue
        judges.append(judge_request(judge_model, pair, answer_1.text, answer_2.text, {"pair": pair}))
    return judges


def _score_pair(store: RunStore, first: Request, answer_1: Response | None) -> Score | None:
    pair = first.tags["pair"]
    answer_2 = store.response(f"{pair}#1")
    if answer_1 is None or answer_2 is None:
        return None
    abstained = pair_label(answer_1.text, answer_2.text)
    if abstained is not None:
        return abstained
    verdict = store.response(f"{pair}|judge")
    return verdict_label(verdict.text) if verdict is not None else None


def _calibration_samples(store: RunStore) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Return, per calibrated question, how many samples it has and the answers of those answered (in order)."""
    samples: dict[str, list[str]] = defaultdict(list)
    expected: dict[str, int] = defaultdict(int)
    for row in store.rows(roles=("calibration",)):
        of = row.request.tags["of"]
        expected[of] += 1
        if row.response is not None:
            samples[of].append(row.response.text)
    return expected, samples


def score_run(store: RunStore, context: ScoringContext, reader: ReaderPass | None = None) -> dict[str, Score]:
    """Score every answered item of a hallucination run, store each score, and return them by request id.

    Reference-based items are scored by their task's scorer against their stored item's reference; a
    reference-free pair is scored on its `sample0` request from the two samples and the judge's verdict (see
    `judge.py`). With a `reader` (`--reader`), an answer the rules leave unscored is labelled by the reader's reading
    where the store holds one (`model_reader.py`; its confidence is then measured against the value read), and the
    reader's requests still to send are collected in `reader.unread`. Streamed: the calibration samples' answers are
    read once (their text only), then the questions and pairs one by one; the scores are committed `SCORE_BATCH` at
    a time.
    """
    expected, samples = _calibration_samples(store)
    items = store.items()
    scores: dict[str, Score] = {}
    rows: list[tuple[str, str, str, dict]] = []
    for row in store.rows(not_roles=("calibration", "sample1", "judge", READER_ROLE)):
        request, answer = row.request, row.response
        keys: dict = {}
        greedy = answer.text if answer is not None else ""
        item = None  # a pair's score reads no item
        if row.role == "sample0":
            score = _score_pair(store, request, answer)
        elif row.role or answer is None:
            continue
        else:
            item = item_of(store, items, request)
            if item.task not in SCORERS:
                continue
            score = SCORERS[item.task](answer.text, item.reference, context)
            if reader is not None:
                score, keys, value = reader.apply(store, request, item.task, answer.text, score, item.reference,
                                                  context)  # fmt: skip
                greedy = value if value is not None else greedy
        if score is None:
            continue
        scores[request.request_id] = score
        rows.append((request.request_id, REFERENCE_SCORER, score.label, {"detail": score.detail} | keys))
        k = expected.get(request.request_id, 0)
        if item is not None and k and answer is not None and len(samples[request.request_id]) == k:
            result = confidence(item.task, greedy, score, samples[request.request_id], item.reference, context)
            rows.append(_confidence_row(request.request_id, result))
    for start in range(0, len(rows), SCORE_BATCH):
        store.record_scores(rows[start : start + SCORE_BATCH])
    return scores


def _confidence_row(request_id: str, result: Confidence | Score) -> tuple[str, str, str, dict]:
    """Return the greedy answer's confidence score row (scorer `confidence`: label `measured` with the share, or
    `unscored` with the reason the item has none)."""
    if isinstance(result, Confidence):
        detail = {"confidence": result.value, "agree": result.agree, "k": result.k}
        return request_id, CONFIDENCE_SCORER, "measured", detail
    return request_id, CONFIDENCE_SCORER, "unscored", {"detail": result.detail}


def report_rows(units: list[Unit]) -> list[ReportRow]:
    """Return one row per task x level x prompt style of one model's units (sorted by task, level, style)."""
    names = [field.name for field in fields(ReportRow)]
    rows = [ReportRow(**{name: getattr(row, name) for name in names}) for row in rate_rows(units)]
    return sorted(rows, key=lambda row: (row.task, row.level, row.prompt_style))


def summarize(store: RunStore) -> list[ReportRow]:
    """Return one row per task x level x prompt style from the scores stored in the run."""
    return report_rows(read_units(store, store.get_meta("model") or "unknown"))


def report_json(model: str, rows: list[ReportRow]) -> dict:
    """Return the report as `{"model", "rows": [...]}`."""
    return {"model": model, "rows": [asdict(row) for row in rows]}
