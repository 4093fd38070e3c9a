"""Reference-free scoring (the study's Section 3.3 and Appendix C): two samples at temperature 1 per question, and a
judge model asked, with the study's few-shot premise/hypothesis prompt (Figure 20), whether they are consistent.

A contradiction guarantees a hallucination; consistency does not guarantee the truth, so the rate is a lower bound.
Each sample is read as its final answer (`final_answer.py`: a reasoning preamble dropped, tables and JSON as prose),
both for the rules below and in the prompt the judge is sent. Before any judge (`pair_label`):
- a pair where either sample rejects the question's premise - the case does not exist, the premise is false - is a
  `hallucination`: the premise (a real case) is true, so the rejection is false whatever a judge would say, and two
  samples that both deny the case exist are consistent, not correct. No judge request is sent for it, and a verdict
  stored for it by an older run is ignored;
- otherwise a pair where either sample only reasons and gives no final answer is `unscored` ("reasoning only, no
  final answer") and not judged;
- otherwise a pair where either sample abstains is `abstain` and is not judged.
Other refusal-like answers ("Justice Warren did not dissent", "it has not been overruled") answer these questions
and go to the judge. A verdict without a final "So, the answer is yes/no" is `unscored` with the judge's text as
the reason.
"""

from __future__ import annotations

import re

from lexprobe.hallucination.labels.abstention import classify_refusal, rejects_case_premise
from lexprobe.hallucination.labels.final_answer import NO_FINAL_ANSWER, final_answer, read_reply
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.prompts.render import load_named_template
from lexprobe.models.types import Request

SAMPLES = 2
SAMPLE_TEMPERATURE = 1.0
JUDGE_MAX_TOKENS = 256
_VERDICT = re.compile(r"answer\s+is\s*[:\[\(\"'*]*\s*(yes|no)\b", re.IGNORECASE)


def judge_prompt(response_1: str, response_2: str) -> str:
    """Return the contradiction prompt (Figure 20) for two sampled answers, each its final answer only
    (`final_answer`: the judge compares what the samples answer, not what their reasoning considered)."""
    template = load_named_template("contradiction_judge")
    return template.render(response_1=final_answer(response_1).strip(), response_2=final_answer(response_2).strip())


def parse_verdict(text: str) -> bool | None:
    """Return True for "consistent" (yes), False for "contradiction" (no), None when the judge gave no final
    "the answer is yes/no"; the last such statement counts when the judge restates itself."""
    found = _VERDICT.findall(text or "")
    return found[-1].lower() == "yes" if found else None


def pair_label(sample_1: str, sample_2: str) -> Score | None:
    """Return the label a pair gets without a judge, else None (the pair is judged). Each sample is read as its final
    answer (`final_answer.read_reply`).

    `hallucination` when either sample rejects the premise of the question about a real case
    (`abstention.rejects_case_premise`: "This case does not exist."); else `unscored` when either sample only
    reasons and gives no final answer; else `abstain` when either sample declines
    (`classify_refusal` gives "abstain"); else None.
    """
    readings = (read_reply(sample_1), read_reply(sample_2))
    samples = tuple(reading.answer for reading in readings)
    for index, sample in enumerate(samples, start=1):
        rejection = rejects_case_premise(sample)
        if rejection is not None:
            return Score(
                "hallucination",
                f"sample {index} rejects the question's premise, which is true (a real case): {rejection!r}",
            )
    for index, reading in enumerate(readings, start=1):
        if reading.reasoning_only:
            return Score("unscored", f"sample {index}: {NO_FINAL_ANSWER}")
    for index, sample in enumerate(samples, start=1):
        if classify_refusal(sample) == "abstain":
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
