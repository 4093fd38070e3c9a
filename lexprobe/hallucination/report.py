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
from lexprobe.hallucination.calibration import Confidence, confidence
from lexprobe.hallucination.judge import judge_request, pair_label, verdict_label
from lexprobe.hallucination.labels import CONFIDENCE_SCORER, REFERENCE_SCORER, Score
from lexprobe.hallucination.profile_stats import BALANCED_TASKS, rate_rows
from lexprobe.hallucination.results import Unit, read_units
from lexprobe.hallucination.scorers import SCORERS, ScoringContext
from lexprobe.models.types import Request


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


def pending_judge_requests(store: RunStore, judge_model: str) -> list[Request]:
    """Return the judge requests for every answered sample pair whose samples do not abstain."""
    responses = store.responses()
    partners: dict[str, dict[str, Request]] = {}
    for request in store.requests():
        role = request.tags.get("role", "")
        if role.startswith("sample"):
            partners.setdefault(request.tags["pair"], {})[role] = request
    judges = []
    for pair, members in partners.items():
        first, second = members.get("sample0"), members.get("sample1")
        if first is None or second is None:
            continue
        answer_1, answer_2 = responses.get(first.request_id), responses.get(second.request_id)
        if answer_1 is None or answer_2 is None or pair_label(answer_1.text, answer_2.text) is not None:
            continue
        tags = {key: value for key, value in first.tags.items() if key not in ("role", "pair")}
        judges.append(judge_request(judge_model, pair, answer_1.text, answer_2.text, tags | {"pair": pair}))
    return judges


def _score_pair(first: Request, requests: dict[str, Request], responses: dict) -> Score | None:
    pair = first.tags["pair"]
    answer_1 = responses.get(first.request_id)
    answer_2 = responses.get(f"{pair}#1")
    if answer_1 is None or answer_2 is None:
        return None
    abstained = pair_label(answer_1.text, answer_2.text)
    if abstained is not None:
        return abstained
    verdict = responses.get(f"{pair}|judge")
    return verdict_label(verdict.text) if verdict is not None else None


def score_run(store: RunStore, context: ScoringContext) -> dict[str, Score]:
    """Score every answered item of a hallucination run, store each score, and return them by request id.

    Reference-based items are scored by their task's scorer; a reference-free pair is scored on its `sample0`
    request from the two samples and the judge's verdict (see `judge.py`).
    """
    responses = store.responses()
    requests = {request.request_id: request for request in store.requests()}
    samples: dict[str, list[str]] = defaultdict(list)
    expected: dict[str, int] = defaultdict(int)
    for request in requests.values():
        if request.tags.get("role") == "calibration":
            expected[request.tags["of"]] += 1
            if request.request_id in responses:
                samples[request.tags["of"]].append(responses[request.request_id].text)
    scores: dict[str, Score] = {}
    for request in requests.values():
        task = request.tags.get("task")
        role = request.tags.get("role", "")
        if role == "sample0":
            score = _score_pair(request, requests, responses)
        elif role or task not in SCORERS or request.request_id not in responses:
            continue
        else:
            reference = store.request_json_tag(request, "reference")
            score = SCORERS[task](responses[request.request_id].text, reference, context)
        if score is None:
            continue
        scores[request.request_id] = score
        store.record_score(request.request_id, REFERENCE_SCORER, score.label, {"detail": score.detail})
        k = expected.get(request.request_id, 0)
        if k and len(samples[request.request_id]) == k:
            _record_confidence(store, request, responses[request.request_id].text, score, samples, context)
    return scores


def _record_confidence(
    store: RunStore, request: Request, greedy: str, score: Score, samples: dict[str, list[str]], context
) -> None:
    """Store the greedy answer's confidence (scorer `confidence`: label `measured` with the share, or `unscored`
    with the reason the item has none)."""
    reference = store.request_json_tag(request, "reference")
    task = request.tags["task"]
    result = confidence(task, greedy, score, samples[request.request_id], reference, context)
    if isinstance(result, Confidence):
        detail = {"confidence": result.value, "agree": result.agree, "k": result.k}
        store.record_score(request.request_id, CONFIDENCE_SCORER, "measured", detail)
    else:
        store.record_score(request.request_id, CONFIDENCE_SCORER, "unscored", {"detail": result.detail})


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
