"""The model's confidence in its greedy answers (the study's Appendix D, Eq. 3).

For a calibrated task, every item gets K more answers at temperature 1 with distinct seeds. The confidence of the
greedy answer is the share of those K samples that agree with it, where "agree" is decided by the task's own scorer
with the greedy answer standing in for the truth: a sample agrees when that scorer would mark it `correct`. So
"Brennan" and "Justice William J. Brennan, Jr." agree on the author task, and "347 U.S. 483" and "347 US 483" on the
citation task, exactly as they would against the real reference.

Rules (documented in docs/hallucination.md):
- A greedy answer that abstains or cannot be scored has nothing to be confident in: the item is left out of
  calibration and counted (`excluded`), never given a made-up confidence.
- A greedy answer with no extractable value that rejects the premise or denies the case exists ("there is no such
  case") is itself an answer; a sample agrees with it when the sample takes the same stance.
- A sample that abstains, is empty or cannot be read disagrees (it did not give the greedy answer).
- Y (the outcome calibrated against) is 1 when the greedy answer is `correct` against the real reference, else 0.

Tasks without calibration, as in the study's Table 7: quotation and authority (open-ended answers with no single
value to agree on), false_dissent (free-text arguments), and the reference-free tasks (already two samples).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.hallucination.abstention import classify_refusal, denies_existence
from lexprobe.hallucination.answers import (
    extract_agreement,
    extract_citation,
    extract_court,
    extract_disposition,
    extract_existence,
    extract_judge_name,
    extract_year,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scorers import SCORERS, ScoringContext
from lexprobe.hallucination.scoring import OVERRULING_ANCHOR

#: K where the study drew samples (Table 7: 10 samples at temperature 1).
DEFAULT_SAMPLES = 10
CALIBRATION_TEMPERATURE = 1.0
#: Tasks the study did not calibrate, with the reason shown to users.
NOT_CALIBRATED = {
    "quotation": "open-ended quotations have no single value for samples to agree on",
    "authority": "any of many cited precedents is correct, so samples need not agree with the greedy answer",
    "false_dissent": "free-text arguments have no single value for samples to agree on",
}


def is_calibrated(task_id: str, reference_free: bool) -> bool:
    """Return whether the study measures confidence on this task."""
    return not reference_free and task_id not in NOT_CALIBRATED


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


def _truth_from_greedy(task: str, greedy: str, reference: dict) -> tuple[str, dict] | None:
    """Return (scorer task, reference) that make the task's scorer judge agreement with the greedy answer; None
    when the greedy answer has no extractable value."""
    if task in ("existence", "fake_existence"):
        exists = extract_existence(greedy)
        return None if exists is None else ("existence" if exists else "fake_existence", {})
    if task == "court":
        court = extract_court(greedy)
        return None if court is None else ("court", {"court_id": court})
    if task == "citation":
        citation = extract_citation(greedy)
        return None if citation is None else ("citation", {"citations": [citation.key]})
    if task == "author":
        name = extract_judge_name(greedy)
        if name is None or name == "per curiam":
            return None
        return "author", {"author": name, "decided": reference.get("decided")}
    if task == "disposition":
        disposition = extract_disposition(greedy)
        return None if disposition is None else ("disposition", {"disposition": disposition})
    if task == "doctrinal_agreement":
        agreement = extract_agreement(greedy)
        return None if agreement is None else ("doctrinal_agreement", {"agreement": agreement})
    if task == "overruling_year":
        year = extract_year(greedy, anchor=OVERRULING_ANCHOR)
        return None if year is None else ("overruling_year", {"year": year})
    if task == "false_overruling":
        from lexprobe.hallucination.tasks.false_overruling import claimed_overruling_year

        year = claimed_overruling_year(greedy)
        return None if year is None else ("overruling_year", {"year": year})
    raise ValueError(f"task {task!r} is not calibrated")


def agrees(task: str, greedy: str, sample: str, reference: dict, context: ScoringContext) -> bool:
    """Return whether `sample` gives the same answer as `greedy`, judged by the task's scorer with the greedy
    answer as the truth (see the module docstring for answers without an extractable value)."""
    truth = _truth_from_greedy(task, greedy, reference)
    if truth is None and task == "false_overruling":
        # no year claimed: the greedy answer rejects the premise (or says nothing scorable); a sample agrees when the
        # task's scorer also finds it rejecting the premise
        rejects = SCORERS[task](greedy, reference, context).label == "correct"
        return rejects and SCORERS[task](sample, reference, context).label == "correct"
    if truth is None:
        stance = _stance_key(greedy)
        return stance is not None and _stance_key(sample) == stance
    scorer_task, truth_reference = truth
    return SCORERS[scorer_task](sample, truth_reference, context).label == "correct"


def confidence(
    task: str, greedy: str, greedy_score: Score, samples: Sequence[str], reference: dict, context: ScoringContext
) -> Confidence | Score:
    """Return the greedy answer's confidence, or an `unscored` Score saying why the item has none (the greedy
    answer abstains or was not scored, or there are no samples)."""
    if greedy_score.label not in ("correct", "hallucination"):
        return Score("unscored", f"greedy answer is {greedy_score.label}: no answer to be confident in")
    if not samples:
        return Score("unscored", "no samples")
    agreeing = sum(agrees(task, greedy, sample, reference, context) for sample in samples)
    return Confidence(agreeing, len(samples))
