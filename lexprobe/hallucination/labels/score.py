"""Score labels: what one answer was judged to be, and why.

- `correct`: the answer states the reference fact (or, for a false-premise question, rejects the premise);
- `hallucination`: the answer states something the reference contradicts, or accepts a false premise;
- `abstain`: the answer declines to answer ("I don't know", "I cannot provide ...") - a non-hallucination that stays
  in the denominator of the study's rate (Eq. 1);
- `unscored`: no judgment was possible (no reference, or the answer could not be read as an answer to the question).
  A parse failure is never mapped silently onto another label.

Every `Score` carries a `detail` saying why, in words a reader of a report can check against the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

#: Scorer names in a run store's `scores` table: the label of each question, and the greedy answer's confidence.
REFERENCE_SCORER = "reference"
CONFIDENCE_SCORER = "confidence"

Label = Literal["correct", "hallucination", "abstain", "unscored"]
LABELS: tuple[Label, ...] = get_args(Label)


@dataclass(frozen=True)
class Score:
    """One scored answer: its label and the reason for it (never empty)."""

    label: Label
    detail: str

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"unknown label {self.label!r}; valid: {', '.join(LABELS)}")
        if not self.detail or not self.detail.strip():
            raise ValueError(f"a {self.label} score needs a detail saying why")
