"""Reference-free scoring (the study's Section 3.3 and Appendix C): two samples at temperature 1 per question, and a
judge model asked, with the study's few-shot premise/hypothesis prompt (Figure 20), whether they are consistent.

A contradiction guarantees a hallucination; consistency does not guarantee the truth, so the rate is a lower bound.
A pair where either sample abstains is `abstain` and is not sent to the judge. A verdict without a final
"So, the answer is yes/no" is `unscored` with the judge's text as the reason.
"""

from __future__ import annotations

import re

from lexprobe.hallucination.abstention import classify_refusal
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.prompts import load_named_template
from lexprobe.models.types import Request

SAMPLES = 2
SAMPLE_TEMPERATURE = 1.0
JUDGE_MAX_TOKENS = 256
_VERDICT = re.compile(r"answer\s+is\s*[:\[\(\"'*]*\s*(yes|no)\b", re.IGNORECASE)


def judge_prompt(response_1: str, response_2: str) -> str:
    """Return the contradiction prompt (Figure 20) for two sampled answers."""
    template = load_named_template("contradiction_judge")
    return template.render(response_1=response_1.strip(), response_2=response_2.strip())


def parse_verdict(text: str) -> bool | None:
    """Return True for "consistent" (yes), False for "contradiction" (no), None when the judge gave no final
    "the answer is yes/no"; the last such statement counts when the judge restates itself."""
    found = _VERDICT.findall(text or "")
    return found[-1].lower() == "yes" if found else None


def pair_label(sample_1: str, sample_2: str) -> Score | None:
    """Return `abstain` when either sample declines (the pair is not judged), else None."""
    for index, sample in enumerate((sample_1, sample_2), start=1):
        if classify_refusal(sample) is not None:
            return Score("abstain", f"sample {index} declines: {sample.strip()[:80]!r}")
    return None


def verdict_label(judge_text: str) -> Score:
    """Return the label a judge's reply gives the pair."""
    verdict = parse_verdict(judge_text)
    if verdict is None:
        return Score("unscored", f"judge gave no yes/no verdict: {judge_text.strip()[:120]!r}")
    if verdict:
        return Score("correct", "the judge found the two samples consistent (a lower bound: not proof of truth)")
    return Score("hallucination", "the judge found the two samples contradictory")


def judge_request(judge_model: str, base_id: str, sample_1: str, sample_2: str, tags: dict[str, str]) -> Request:
    """Return the temperature-0 judge request for one pair."""
    return Request.from_prompt(
        judge_model,
        judge_prompt(sample_1, sample_2),
        temperature=0.0,
        max_tokens=JUDGE_MAX_TOKENS,
        id=f"{base_id}|judge",
        tags=tags | {"role": "judge"},
    )
