"""A hallucination run's items as Inspect samples, streamed from its run store: one `EvalSample` per item (the
greedy question, or a reference-free pair), its prompt and answer as messages, its reference as the target, its
label as a `Score`, and the rates lexprobe's report computes (`rate_rows`) as the log's metrics.

Streamed: `RunStore.rows` reads one request at a time and each item is looked up by id (`RunStore.item`), so a run
of any size passes through without its answers held in memory; only a slim `Unit` per item (labels and task keys,
no answer text) is kept for the rates.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from inspect_ai.log import EvalMetric, EvalSample, EvalScore
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score

from lexprobe.engine.store import RunStore
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER
from lexprobe.hallucination.profile.results import SKIPPED_ROLES, Unit
from lexprobe.hallucination.profile.stats import BALANCED_TASKS
from lexprobe.hallucination.report.summary import report_rows
from lexprobe.hallucination.scorers.judge import SAMPLES
from lexprobe.hallucination.tasks.base import TaskReference
from lexprobe.hallucination.tasks.item import ItemRecord, item_id_of, item_of
from lexprobe.interop.messages import assistant_message, chat_messages
from lexprobe.models.types import Request, Response

__all__ = ["CONFIDENCE_SCORE", "LABEL_SCORE", "HallucinationSamples"]

#: The names of the scores each sample carries (a run's `reference` label, its `confidence` where measured).
LABEL_SCORE, CONFIDENCE_SCORE = "lexprobe_label", "lexprobe_confidence"
#: The reference of a unit whose rates do not read it: one (frozen) instance shared by them all.
NO_REFERENCE = TaskReference()
#: The figures of a report row that become metrics of the log, by the name they get there.
ROW_METRICS = {"rate": "hallucination_rate", "se": "stderr", "abstain_rate": "abstain_rate", "n": "n",
               "unscored": "unscored", "pending": "pending", "balanced_rate": "balanced_rate"}  # fmt: skip


def label_score(label: str, detail: dict, answer: str) -> Score:
    """Return a stored `reference` score as an Inspect `Score`: the label as value, the reason as explanation, and
    the model reader who read the answer (`--reader`) in its metadata where there was one."""
    extra = {key: value for key, value in detail.items() if key != "detail"}
    return Score(value=label, answer=answer, explanation=str(detail.get("detail", "")), metadata=extra or None)


def confidence_score(label: str, detail: dict) -> Score | None:
    """Return a measured `confidence` score (the share of calibration samples agreeing with the greedy answer) as
    an Inspect `Score`; None when none was measured."""
    value = detail.get("confidence")
    if label != "measured" or not isinstance(value, int | float):
        return None
    explanation = str(
        detail.get("detail")
        or f"{detail.get('agree', '?')} of {detail.get('k', '?')} calibration samples agree with the greedy answer"
    )
    return Score(value=float(value), explanation=explanation, metadata=detail)


def item_metadata(item_id: str, item: ItemRecord) -> dict:
    """Return what a sample's metadata says of its item: task, level, style, case, covariates, the reference."""
    return {"item_id": item_id, "task": item.task, "level": item.level, "prompt_style": item.prompt_style,
            "case_id": item.case_id, **item.covariates, "reference": item.reference.as_json()}  # fmt: skip


@dataclass
class HallucinationSamples:
    """The samples of one hallucination run store (iterate once), and afterwards the rates of its items."""

    store: RunStore
    model: str
    units: list[Unit] = field(default_factory=list)

    def __iter__(self) -> Iterator[EvalSample]:
        for row in self.store.rows(not_roles=SKIPPED_ROLES, scorers=(REFERENCE_SCORER, CONFIDENCE_SCORER)):
            yield self.sample(row.request, row.response, row.scores)

    def sample(self, request: Request, response: Response | None, scores: dict) -> EvalSample:
        """Return one unit request (greedy question or pair's first sample) as its item's sample."""
        item_id = item_id_of(request)
        body = self.store.item(item_id)
        item = item_of(self.store, {item_id: body} if body is not None else {}, request)
        label, detail = scores.get(REFERENCE_SCORER, (None, {}))
        self.units.append(self.unit(item, label))
        answer = response.text if response is not None else ""
        messages = chat_messages(request.messages, self.model)
        if response is not None:
            messages.append(assistant_message(answer, self.model, response.tool_calls))
        sample_scores = {LABEL_SCORE: label_score(label, detail, answer)} if label is not None else {}
        if confidence := confidence_score(*scores.get(CONFIDENCE_SCORER, ("", {}))):
            sample_scores[CONFIDENCE_SCORE] = confidence
        metadata = item_metadata(item_id, item) | {"pending": response is None}
        if request.tags.get("role") == "sample0":  # a reference-free pair: its partner's answer too
            metadata["second_sample"] = self.partner(item_id)
        return EvalSample(id=item_id, epoch=1, input=request.messages[-1].content, target=self.target(item),
                          messages=messages, output=ModelOutput.from_content(self.model, answer),
                          scores=sample_scores or None, metadata=metadata)  # fmt: skip

    def partner(self, item_id: str) -> str | None:
        """Return the answer of a reference-free pair's other samples (None while pending)."""
        found = [self.store.response(f"{item_id}#{k}") for k in range(1, SAMPLES)]
        return "\n\n".join(r.text for r in found if r is not None) if any(found) else None

    @staticmethod
    def target(item: ItemRecord) -> str:
        """Return the item's reference as the sample's target: its JSON (empty for a task without one)."""
        reference = item.reference.as_json()
        return json.dumps(reference, sort_keys=True, ensure_ascii=False) if reference else ""

    def unit(self, item: ItemRecord, label: str | None) -> Unit:
        """Return the slim unit the rates need: the keys and the label (the reference only where a balanced rate
        reads its class)."""
        reference = item.reference if item.task in BALANCED_TASKS else NO_REFERENCE
        return Unit(model=self.model, task=item.task, level=item.level, prompt_style=item.prompt_style, label=label,
                    reference=reference)  # fmt: skip

    def results(self) -> list[EvalScore]:
        """Return lexprobe's report rows of the samples iterated so far as the log's scores: one metric per figure
        of each task x level x prompt style."""
        metrics: dict[str, EvalMetric] = {}
        scored = 0
        for row in report_rows(self.units):
            group = f"{row.task}/{row.level}/{row.prompt_style}"
            scored += row.n
            for key, name in ROW_METRICS.items():
                value = getattr(row, key)
                if value is not None:
                    metrics[f"{group}/{name}"] = EvalMetric(name=f"{group}/{name}", value=value, group=group)
        return [EvalScore(name=LABEL_SCORE, scorer="lexprobe/reference", scored_samples=scored,
                          unscored_samples=len(self.units) - scored, metrics=metrics)]  # fmt: skip
