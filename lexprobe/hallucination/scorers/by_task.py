"""The scorers of every reference-based task, by task id: `SCORERS[task](answer, reference, context) -> Score`, the
reference typed (the task's `TaskSpec.reference_type`) or its JSON (a stored item's, an outside answer's lookup, a
greedy answer's truth, a benchmark's row), read with the task's model here, once, before the task's scorer sees it.

A read-only view of the task registry (`hallucination/tasks`): each scorer is its task's `score` field, defined in
the task's module; the shared steps and the stance rules are in `scoring.py`. A reference-free task has no scorer.

Every scorer looked up here reads the reply's final answer (`final_answer.read_reply`: reasoning parts dropped,
tables and JSON read as prose; a reply that only reasons is `unscored`, "reasoning only, no final answer"), and an
answer in another language is read through its phrase table (`language.to_english`); where the task's value needs words
(yes/no, a court, a disposition, agree/disagree, a rejection) and none of the answer's decisive words could be read,
it is `unscored` with the reason (`language.unreadable_language`: "not English (Spanish)") instead of being guessed
at. A task whose value reads the same in any script (a name, a citation, a year, a quotation) is never unscored for
its language. A final answer is read up to `final_answer.MAX_ANSWER_CHARS` characters (a reply up to
`MAX_REPLY_CHARS`), and a label read from a cut answer says so in its detail.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from lexprobe.hallucination.labels.final_answer import MAX_ANSWER_CHARS, NO_FINAL_ANSWER, read_reply
from lexprobe.hallucination.labels.language import unreadable_language
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.base import Scorer, TaskReference, TaskSpec


def _reading_final_answer(task: TaskSpec, score: Scorer) -> Scorer:
    """Return `score` applied to a reply's final answer and the task's typed reference, or `unscored` when the reply
    only reasons (no final answer) or the task's value needs words of a language that cannot be read."""

    def scorer(answer: str, reference: TaskReference | Mapping[str, Any], context: ScoringContext) -> Score:
        reference = task.reference_of(reference)
        reading = read_reply(answer)
        if reading.reasoning_only:
            return _noting_cut(Score("unscored", NO_FINAL_ANSWER), reading.cut_note)
        text = reading.answer or (answer or "")[:MAX_ANSWER_CHARS]
        reason = unreadable_language(text, task.id)
        if reason is not None:
            return _noting_cut(Score("unscored", reason), reading.cut_note)
        return _noting_cut(score(text, reference, context), reading.cut_note)

    return scorer


def _noting_cut(score: Score, cut_note: str | None) -> Score:
    """Return `score` with the note that its answer was cut added to its detail (unchanged when nothing was cut)."""
    return score if cut_note is None else Score(score.label, f"{score.detail} ({cut_note})")


class _Scorers(Mapping[str, Scorer]):
    """The registry's scorers, read at each lookup (so nothing else has to be kept in step with `TASKS`)."""

    def __getitem__(self, task_id: str) -> Scorer:
        task = TASKS[task_id]
        if task.score is None:
            raise KeyError(task_id)
        return _reading_final_answer(task, task.score)

    def __iter__(self) -> Iterator[str]:
        return (task.id for task in TASKS.values() if task.score is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


SCORERS: Mapping[str, Scorer] = _Scorers()

__all__ = ["SCORERS", "Scorer", "ScoringContext"]
