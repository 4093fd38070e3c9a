"""lexprobe's reader as an Inspect scorer (`lexprobe/hallucination_reader`), the epoch reducer that turns calibration
epochs into the greedy answer's confidence (`lexprobe/greedy_with_confidence`), and the rates by task and level
(`lexprobe/hallucination_rate`, `lexprobe/abstain_rate`).

A score's value is what Inspect's metrics aggregate into the study's Eq. 1: 1.0 for a hallucination, 0.0 for a
correct answer or an abstention (abstentions count as non-hallucinations), NaN for an answer that is `unscored`
(Inspect leaves NaN out of every metric and counts it as unscored), so Inspect's own `mean()` is lexprobe's
hallucination rate. The label itself is the score's `answer` and `metadata["label"]`, the reason its explanation.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessageUser, GenerateConfig, ResponseSchema, get_model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    metric,
    score_reducer,
    scorer,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import JSONSchema

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.score import Score as Label
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.by_task import SCORERS
from lexprobe.hallucination.scorers.calibration import Confidence, confidence
from lexprobe.hallucination.scorers.judge import JUDGE_MAX_TOKENS, judge_prompt, pair_label, verdict_label
from lexprobe.hallucination.scorers.model_reader import (
    READER_MAX_TOKENS,
    READER_SCHEMA,
    needs_reading,
    reader_prompt,
    reader_score,
)
from lexprobe.hallucination.tasks import TASKS
from lexprobe.stats import hallucination_rate as rate_and_se

__all__ = ["SECOND_SAMPLE", "SKIPPED", "abstain_rate", "greedy_with_confidence", "hallucination_rate",
           "hallucination_reader", "score_value"]  # fmt: skip

#: The task state's store keys the solver (`inspect_hallucination.lexprobe_answer`) leaves for the scorer.
SECOND_SAMPLE = "lexprobe_sample1"  # a reference-free item's second sample
SKIPPED = "lexprobe_skipped"  # an epoch past the greedy answer of an item that is not calibrated: nothing asked

_VALUES = {"hallucination": 1.0, "correct": 0.0, "abstain": 0.0}


def score_value(label: str) -> float:
    """The Inspect value of a lexprobe label (see the module docstring)."""
    return _VALUES.get(label, math.nan)


def _inspect_score(label: Label, answer: str, metadata: dict[str, Any]) -> Score:
    return Score(value=score_value(label.label), answer=label.label, explanation=label.detail,
                 metadata={"label": label.label, "answer": answer, **metadata})  # fmt: skip


_contexts: dict[Path, ScoringContext] = {}


def scoring_context(db: str | Path) -> ScoringContext:
    """The scoring context over the case database at `db`, opened once per process."""
    path = Path(db).expanduser().resolve()
    if path not in _contexts:
        _contexts[path] = ScoringContext(CaseDatabase(path))
    return _contexts[path]


def _labels_by_group(scores: list[SampleScore]) -> dict[str, list[str]]:
    """The labels of the scores, all together ("all") and by "task/level"."""
    groups: dict[str, list[str]] = defaultdict(list)
    for sample_score in scores:
        meta = sample_score.score.metadata or {}
        label = meta.get("label")
        if label is None:
            continue
        groups["all"].append(label)
        groups[f"{meta.get('task')}/{meta.get('level')}"].append(label)
    return groups


@metric(name="hallucination_rate")
def hallucination_rate() -> Metric:
    """lexprobe's hallucination rate (Eq. 1: abstentions count as non-hallucinations, unscored answers are left out)
    and its binomial standard error (`lexprobe.stats.hallucination_rate`), over all answers ("all", "all_se") and by
    task and level ("existence/scotus", "existence/scotus_se"); NaN where nothing is scored."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values: dict[str, float] = {}
        for group, labels in sorted(_labels_by_group(scores).items()):
            rate, se = rate_and_se(labels)
            values[group] = math.nan if rate is None else rate
            values[f"{group}_se"] = math.nan if se is None else se
        return values

    return compute


@metric(name="abstain_rate")
def abstain_rate() -> Metric:
    """The share of scored answers (correct, hallucination, abstain) that abstain, over all ("all_abstain") and by
    task and level ("existence/scotus_abstain")."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values: dict[str, float] = {}
        for group, labels in sorted(_labels_by_group(scores).items()):
            scored = [label for label in labels if label in _VALUES]
            values[f"{group}_abstain"] = (
                sum(label == "abstain" for label in scored) / len(scored) if scored else math.nan
            )
        return values

    return compute


@scorer(metrics=[hallucination_rate(), abstain_rate()])
def hallucination_reader(db: str, judge: str | None = None, reader: str | None = None) -> Scorer:
    """Score each answer with lexprobe's reader: the task's own scorer against the item's reference (`SCORERS`),
    or for a reference-free item its two samples and the contradiction judge (`judge`, an Inspect model; default
    the model under test, self-judged, as `hallucination run` without --judge). With `reader` (an Inspect model),
    a greedy answer the rules leave unscored is read by it, as `hallucination run --reader` reads it
    (`model_reader`). `db` is the case database."""
    context = scoring_context(db)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        extra = {"epoch": state.epoch, "task": meta["task"], "level": meta["level"], "reference": meta["reference"],
                 "db": str(context.db.path) if context.db is not None else None}  # fmt: skip
        answer = state.output.completion
        if state.store.get(SKIPPED):
            why = f"epoch {state.epoch}: {meta['task']} is not calibrated, nothing was asked"
            return Score(value=math.nan, answer="skipped", explanation=why, metadata={**extra, "skipped": True})
        if meta["reference_free"]:
            label = await _judged_pair(answer, state.store.get(SECOND_SAMPLE, ""), judge)
        else:
            label = SCORERS[meta["task"]](answer, meta["reference"], context)
            if reader and state.epoch == 1 and needs_reading(label, answer):
                label, read = await _read(reader, meta["task"], _question(state), answer, label, meta, context)
                extra |= read
        return _inspect_score(label, answer, extra | {"calibration": state.epoch > 1})

    return score


def _question(state: TaskState) -> str:
    """The question the answer replies to: the last user message of the prompt (`model_reader.question_of`)."""
    users = [message.text for message in state.messages if isinstance(message, ChatMessageUser)]
    return users[-1] if users else state.input_text


async def _read(reader: str, task: str, question: str, answer: str, rules: Label, meta: dict[str, Any],
                context: ScoringContext) -> tuple[Label, dict[str, Any]]:  # fmt: skip
    """The label the reader model gives an answer the rules left unscored, and the detail keys stored with it: the
    reader's prompt at temperature 0 with its JSON schema, as `hallucination run --reader` asks it."""
    schema = ResponseSchema(name="reading", json_schema=JSONSchema.model_validate(READER_SCHEMA))
    config = GenerateConfig(temperature=0.0, max_tokens=READER_MAX_TOKENS, response_schema=schema)
    output = await get_model(reader).generate(reader_prompt(task, question, answer), config=config)
    return reader_score(reader, task, output.completion, rules, meta["reference"], context)


async def _judged_pair(sample_1: str, sample_2: str, judge: str | None) -> Label:
    """The label of a reference-free pair: lexprobe's rules first (`pair_label`), else the judge's verdict on the
    study's contradiction prompt, asked at temperature 0 as `hallucination run` asks it."""
    ruled = pair_label(sample_1, sample_2)
    if ruled is not None:
        return ruled
    model = get_model(judge) if judge else get_model()
    config = GenerateConfig(temperature=0.0, max_tokens=JUDGE_MAX_TOKENS)
    output = await model.generate(judge_prompt(sample_1, sample_2), config=config)
    return verdict_label(output.completion)


@score_reducer(name="greedy_with_confidence")
def greedy_with_confidence(db: str | None = None) -> ScoreReducer:
    """Reduce an item's epochs to its greedy answer's score (epoch 1), with the confidence of that answer measured
    on the calibration epochs (lexprobe's `calibration.confidence`: the share of samples that agree with it) in its
    metadata (`confidence`, `agree`, `k`, or `confidence_unscored` with the reason). `db`: the case database
    (default: the one the scores name; `inspect score` recreates the reducer without its arguments)."""

    def reduce(scores: list[Score]) -> Score:
        ordered = sorted(scores, key=lambda score: (score.metadata or {}).get("epoch", 0))
        greedy = ordered[0]
        meta = dict(greedy.metadata or {})
        samples = [s.metadata["answer"] for s in ordered[1:] if s.metadata and s.metadata.get("calibration")]
        if samples and meta.get("label") and meta["task"] in TASKS:
            task = TASKS[meta["task"]]
            label = Label(meta["label"], greedy.explanation or meta["label"])
            context = scoring_context(db or meta["db"])
            result = confidence(task.id, meta["answer"], label, samples, task.reference_of(meta["reference"]), context)
            if isinstance(result, Confidence):
                meta |= {"confidence": result.value, "agree": result.agree, "k": result.k}
            else:
                meta["confidence_unscored"] = result.detail
        return Score(value=greedy.value, answer=greedy.answer, explanation=greedy.explanation, metadata=meta)

    return reduce
