"""Score a run's answers and summarize them: hallucination rate, standard error, abstention rate, n, unscored.

Rate definition (the study's Eq. 1): among scored answers (correct, hallucination, abstain), the share that are
hallucinations; abstentions count as non-hallucinations and stay in the denominator. Standard error: the binomial
sqrt(p(1-p)/n). Unscored answers (missing reference, unparseable answer) are excluded from n and counted apart.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import asdict, dataclass

from lexprobe.engine.store import RunStore
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scorers import SCORERS, ScoringContext

SCORER_NAME = "reference"


@dataclass
class ReportRow:
    """One task x level x prompt style."""

    task: str
    level: str
    prompt_style: str
    n: int
    rate: float | None
    se: float | None
    abstain_rate: float | None
    unscored: int
    pending: int


def score_run(store: RunStore, context: ScoringContext) -> dict[str, Score]:
    """Score every answered request of a hallucination run, store each score, and return them by request id."""
    responses = store.responses()
    scores: dict[str, Score] = {}
    for request in store.requests():
        response = responses.get(request.request_id)
        task = request.tags.get("task")
        if response is None or task not in SCORERS:
            continue
        reference = json.loads(request.tags.get("reference", "{}"))
        score = SCORERS[task](response.text, reference, context)
        scores[request.request_id] = score
        store.record_score(request.request_id, SCORER_NAME, score.label, {"detail": score.detail})
    return scores


def summarize(store: RunStore) -> list[ReportRow]:
    """Return one row per task x level x prompt style from the scores stored in the run."""
    labels = {
        row[0]: row[1]
        for row in store.conn.execute("SELECT request_id, label FROM scores WHERE scorer = ?", (SCORER_NAME,))
    }
    groups: dict[tuple[str, str, str], list[str | None]] = defaultdict(list)
    for request in store.requests():
        key = (request.tags.get("task", ""), request.tags.get("level", ""), request.tags.get("prompt_style", ""))
        groups[key].append(labels.get(request.request_id))
    rows = []
    for (task, level, style), group in sorted(groups.items()):
        scored = [label for label in group if label in ("correct", "hallucination", "abstain")]
        n = len(scored)
        rate = sum(label == "hallucination" for label in scored) / n if n else None
        rows.append(
            ReportRow(
                task=task,
                level=level,
                prompt_style=style,
                n=n,
                rate=rate,
                se=math.sqrt(rate * (1 - rate) / n) if n and rate is not None else None,
                abstain_rate=sum(label == "abstain" for label in scored) / n if n else None,
                unscored=sum(label == "unscored" for label in group),
                pending=sum(label is None for label in group),
            )
        )
    return rows


def report_json(model: str, rows: list[ReportRow]) -> dict:
    """Return the report as `{"model", "rows": [...]}`."""
    return {"model": model, "rows": [asdict(row) for row in rows]}
