"""The model's confidence in its greedy answers (the study's Appendix D, Eq. 3).

For a calibrated task, every item gets K more answers at temperature 1 with distinct seeds. The confidence of the
greedy answer is the share of those K samples that agree with it, where "agree" is decided by the task's own scorer
with the greedy answer standing in for the truth: a sample agrees when that scorer would mark it `correct`. So
"Brennan" and "Justice William J. Brennan, Jr." agree on the author task, and "347 U.S. 483" and "347 US 483" on the
citation task, exactly as they would against the real reference.

Rules (documented in docs/hallucination.md):
- The greedy answer and every sample are read as the scorers read them (`final_answer`: a reasoning preamble
  dropped, tables and JSON as prose), so a candidate the reasoning considered and rejected is never the value
  samples are compared with; a sample that only reasons has no answer and disagrees.
- A greedy answer that abstains or cannot be scored has nothing to be confident in: the item is left out of
  calibration and counted (`excluded`), never given a made-up confidence.
- A greedy answer with no extractable value that rejects the premise or denies the case exists ("there is no such
  case") is itself an answer; a sample agrees with it when the sample takes the same stance.
- A sample that abstains, is empty or cannot be read disagrees (it did not give the greedy answer).
- Y (the outcome calibrated against) is 1 when the greedy answer is `correct` against the real reference, else 0.

Which tasks are calibrated, and how a greedy answer becomes the truth its samples are scored against, is part of each
task's definition (`calibrated`, `not_calibrated`, `extract`, `stance_agreement` in `hallucination/tasks`): the study
calibrated neither quotation and authority (open-ended answers with no single value to agree on) nor false_dissent
(free-text arguments) nor the reference-free tasks (already two samples), as its Table 7 shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.hallucination.help_facts import DEFAULT_SAMPLES as DEFAULT_SAMPLES  # K where the study drew samples
from lexprobe.hallucination.labels.abstention import classify_refusal, denies_existence
from lexprobe.hallucination.labels.final_answer import final_answer
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.base import TaskReference

CALIBRATION_TEMPERATURE = 1.0


def is_calibrated(task_id: str, reference_free: bool = False) -> bool:
    """Return whether the study measures confidence on this task (its registry entry says so; a reference-free
    task never is)."""
    task = TASKS.get(task_id)
    return task is not None and task.calibrated and not reference_free


@dataclass(frozen=True)
class Confidence:
    """The confidence of one greedy answer: `agree` of `k` samples agreed with it."""

    agree: int
    k: int

    @property
    def value(self) -> float:
        """The share of samples that agree with the greedy answer."""
        return self.agree / self.k


def _stance_key(answer: str) -> str | None:
    """Return "reject" when the answer rejects the premise or denies the case exists, else None."""
    if classify_refusal(answer) == "reject_premise" or denies_existence(answer):
        return "reject"
    return None


def same_stance(greedy: str, sample: str, reference: TaskReference, context: ScoringContext) -> bool:
    """Agreement with a greedy answer that has no extractable value: both reject the premise or deny the case
    exists (the default `stance_agreement` of a calibrated task)."""
    stance = _stance_key(greedy)
    return stance is not None and _stance_key(sample) == stance


def agrees(task: str, greedy: str, sample: str, reference: TaskReference, context: ScoringContext) -> bool:
    """Return whether `sample` gives the same answer as `greedy`, judged by the task's scorer with the greedy
    answer as the truth (see the module docstring for answers without an extractable value). Raises ValueError for
    a task that is not calibrated."""
    spec = TASKS.get(task)
    if spec is None or spec.extract is None:
        raise ValueError(f"task {task!r} is not calibrated")
    greedy, sample = final_answer(greedy), final_answer(sample)
    truth = spec.extract(greedy, reference)
    if truth is None:
        return (spec.stance_agreement or same_stance)(greedy, sample, reference, context)
    scorer_task, truth_reference = truth
    return SCORERS[scorer_task](sample, truth_reference, context).label == "correct"


def confidence(
    task: str,
    greedy: str,
    greedy_score: Score,
    samples: Sequence[str],
    reference: TaskReference,
    context: ScoringContext,
) -> Confidence | Score:
    """Return the greedy answer's confidence, or an `unscored` Score saying why the item has none (the greedy
    answer abstains or was not scored, or there are no samples)."""
    if greedy_score.label not in ("correct", "hallucination"):
        return Score("unscored", f"greedy answer is {greedy_score.label}: no answer to be confident in")
    if not samples:
        return Score("unscored", "no samples")
    agreeing = sum(agrees(task, greedy, sample, reference, context) for sample in samples)
    return Confidence(agreeing, len(samples))
