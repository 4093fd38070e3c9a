"""Calibration samples and confidences, the profile statistics (rates, balanced rates, breakdowns, justice bias,
ECE rows, Platt scaling) and the multi-run report, with hand-computed values."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lexprobe.caselaw.judges import load_justices
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.profile.calibration import calibration_curves, calibration_rows
from lexprobe.hallucination.profile.results import Unit
from lexprobe.hallucination.profile.stats import breakdowns, era_of, justice_bias, prominence_decile, rate_rows
from lexprobe.hallucination.run.items import Item
from lexprobe.hallucination.scorers.by_task import ScoringContext
from lexprobe.hallucination.scorers.calibration import Confidence, agrees, confidence, is_calibrated
from lexprobe.hallucination.tasks import TASKS
from lexprobe.stats import expected_calibration_error

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
CONTEXT = ScoringContext()


# --- agreement with the greedy answer ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "greedy", "sample", "expected"),
    [
        ("author", "Justice Brennan", "William J. Brennan, Jr. wrote it.", True),
        ("author", "Justice Brennan", "Justice Marshall", False),
        ("citation", "347 U.S. 483", "The citation is 347 US 483 (1954).", True),
        ("citation", "347 U.S. 483", "348 U.S. 483", False),
        ("existence", "Yes", "Yes, it is a real case.", True),
        ("existence", "No", "Yes", False),
        ("existence", "No", "No, this case does not exist.", True),
        ("disposition", "Affirm", "The Court affirmed.", True),
        ("disposition", "Affirm", "Reversed", False),
        ("overruling_year", "1954", "It was overruled in 1954.", True),
        ("overruling_year", "1954", "1955", False),
        ("doctrinal_agreement", "Agree", "They agree.", True),
        ("false_overruling", "It was overruled in 1970.", "1970", True),
        ("false_overruling", "It has never been overruled.", "This case has not been overruled.", True),
        ("false_overruling", "It has never been overruled.", "It was overruled in 1970.", False),
        ("existence", "Yes", "I don't know.", False),  # an abstaining sample does not give the greedy answer
    ],
)
def test_agreement_is_judged_by_the_task_scorer(task: str, greedy: str, sample: str, expected: bool) -> None:
    reference = TASKS[task].reference_of({"decided": "1960-06-01"})
    assert agrees(task, greedy, sample, reference, CONTEXT) is expected


def test_confidence_is_the_share_of_agreeing_samples() -> None:
    samples = ["Yes", "Yes, it is real.", "No", "I am not sure."]
    result = confidence("existence", "Yes", Score("correct", "given"), samples, {}, CONTEXT)
    assert result == Confidence(2, 4) and result.value == 0.5


def test_abstaining_or_unscored_greedy_answers_have_no_confidence() -> None:
    for label in ("abstain", "unscored"):
        result = confidence("existence", "I don't know", Score(label, "given"), ["Yes"], {}, CONTEXT)
        assert isinstance(result, Score) and result.label == "unscored" and label in result.detail


def test_calibrated_tasks_follow_the_study() -> None:
    assert is_calibrated("author", False) and is_calibrated("doctrinal_agreement", False)
    assert not is_calibrated("quotation", False) and not is_calibrated("authority", False)
    assert not is_calibrated("false_dissent", False) and not is_calibrated("central_holding", True)


def test_items_add_k_samples_at_temperature_one_with_distinct_seeds() -> None:
    item = Item("existence|scotus|zero|x", "existence", "scotus", "zero", "x", "Is X real?", {}, 16,
                calibration_samples=3, covariates={"year": "1954"})  # fmt: skip
    requests = item.requests("local")
    assert [r.request_id for r in requests] == [item.item_id, *(f"{item.item_id}@{k}" for k in range(3))]
    assert requests[0].temperature == 0.0 and "role" not in requests[0].tags
    samples = requests[1:]
    assert {r.temperature for r in samples} == {1.0}
    assert len({r.seed for r in samples}) == 3 and len({r.cache_key() for r in samples}) == 3
    assert all(r.tags["role"] == "calibration" and r.tags["of"] == item.item_id for r in samples)
    assert item.record().covariates["year"] == "1954"  # the covariates are the item's, stored once


# --- statistics ----------------------------------------------------------------------------------------------------


def unit(task: str = "existence", label: str | None = "correct", **fields) -> Unit:
    fields.setdefault("model", "m")
    fields.setdefault("level", "scotus")
    fields.setdefault("prompt_style", "zero")
    if "reference" in fields:  # the reference's JSON, read with the task's model as a stored item's is
        fields["reference"] = TASKS[task].reference_of(fields["reference"])
    return Unit(task=task, label=label, **fields)


def test_rate_rows_count_abstentions_as_non_hallucinations_and_leave_out_unscored() -> None:
    units = [unit(label="hallucination")] * 3 + [unit(label="correct"), unit(label="abstain"), unit(label="unscored"),
                                                 unit(label=None)]  # fmt: skip
    (row,) = rate_rows(units)
    assert (row.n, row.unscored, row.pending) == (5, 1, 1)
    assert row.rate == pytest.approx(0.6) and row.se == pytest.approx(math.sqrt(0.6 * 0.4 / 5))
    assert row.abstain_rate == pytest.approx(0.2) and row.unscored_rate == pytest.approx(1 / 6)


def test_balanced_rate_is_the_mean_of_per_class_rates() -> None:
    # always "affirm": 8 affirm cases right, 2 reverse cases wrong -> raw rate 0.2, balanced (0 + 1) / 2 = 0.5
    units = [unit("disposition", "correct", reference={"disposition": "affirm"}) for _ in range(8)]
    units += [unit("disposition", "hallucination", reference={"disposition": "reverse"}) for _ in range(2)]
    (row,) = rate_rows(units)
    assert row.rate == pytest.approx(0.2) and row.balanced_rate == pytest.approx(0.5)


def test_reference_free_rows_are_lower_bounds() -> None:
    (row,) = rate_rows([unit("central_holding", "hallucination")])
    assert row.lower_bound and row.complexity == "high"


def test_breakdowns_pool_true_premise_reference_based_tasks() -> None:
    units = [
        unit("existence", "hallucination", year=1955, prominence=95.0),
        unit("court", "correct", year=1801, prominence=12.0),
        unit("existence", "correct", level="coa", circuit="ca9", year=1990),
        unit("existence", "hallucination", level="coa", circuit="ca9", year=1990),
        unit("central_holding", "hallucination"),  # reference-free: only in the complexity breakdown
        unit("false_overruling", "hallucination"),  # false premise: only contra-factual
    ]
    # issue 13: the figures use few-shot answers by default and Figure 3 cases decided from 1982; these units are
    # zero-shot, so this test of the pooling asks for every prompt style, and the appeals units carry a year
    tables = breakdowns(units, "all")
    level = {g.group: (g.n, g.rate) for g in tables["level"]}
    assert level == {"scotus": (2, 0.5), "coa": (2, 0.5)}
    assert {g.group: g.n for g in tables["complexity"]} == {"low": 4, "high": 1}
    assert [(g.group, g.n, g.rate) for g in tables["circuit"]] == [("ca9", 2, 0.5)]
    assert {g.group for g in tables["era"]} == {era_of(1955), era_of(1801)}
    assert {g.group for g in tables["prominence"]} == {"90-100", "10-20"}
    assert [(g.group, g.n) for g in tables["contra_factual"]] == [("false_overruling / scotus", 1)]


def test_eras_and_deciles() -> None:
    assert era_of(1953).startswith("Warren") and era_of(1969).startswith("Burger") and era_of(None) is None
    assert prominence_decile(100.0) == "90-100" and prominence_decile(0.0) == "0-10"


def test_justice_bias_counts_named_and_true_authors() -> None:
    roster = load_justices()
    ref = {"author": "Earl Warren", "decided": "1960-01-01"}
    units = [
        unit("author", "correct", answer="Chief Justice Warren", reference=ref),
        unit("author", "hallucination", answer="Justice Story", reference=ref),
        unit("author", "hallucination", answer="Justice Story", reference=ref | {"author": "Hugo Black"}),
    ]
    counts = {row.justice: (row.named, row.true) for row in justice_bias(units, roster)}
    warren = next(name for name in counts if "Warren" in name)
    story = next(name for name in counts if "Story" in name)
    black = next(name for name in counts if "Black" in name)
    assert counts[warren] == (1, 2) and counts[story] == (2, 0) and counts[black] == (0, 1)


def test_calibration_rows_match_the_estimators() -> None:
    confidences = [0.9, 0.8, 0.8, 0.3, 0.2, 1.0, 0.6, 0.7, 0.1, 0.5]
    outcomes = [1, 1, 0, 0, 0, 1, 1, 0, 0, 1]
    units = [
        unit("author", "correct" if y else "hallucination", confidence=c)
        for c, y in zip(confidences, outcomes, strict=True)
    ]
    units.append(unit("author", "abstain", confidence=None))  # no confidence: left out
    # zero-shot units: the pooled row takes few-shot answers by default (issue 13), so ask for every style here
    task_row, pooled = calibration_rows(units, bins=5, seed=3, holdout=0.0, prompt_style="all")
    assert task_row.n == 10 and pooled.task == "pooled"
    assert task_row.ece_width == pytest.approx(expected_calibration_error(confidences, outcomes, 5))
    assert task_row.ece_mass_debiased == pytest.approx(
        expected_calibration_error(confidences, outcomes, 5, "mass", debias=True, seed=3)
    )
    assert task_row.ece_width_se is not None and task_row.ece_width_se > 0
    assert task_row.platt_ece_width is not None and "in-sample" in task_row.note
    # Platt scaling fitted in-sample never makes the plug-in ECE of a monotone-ish model worse here
    assert task_row.platt_ece_width <= task_row.ece_width + 1e-9
    held_out = calibration_rows(units, bins=5, seed=3, holdout=0.5, prompt_style="all")[0]
    assert held_out.platt_n == 5


def test_calibration_curves_use_equal_mass_bins() -> None:
    units = [unit("author", "correct" if i % 2 else "hallucination", confidence=i / 10) for i in range(10)]
    (curve,) = calibration_curves(units, bins=5, prompt_style="all").values()
    assert [n for _, _, n in curve] == [2] * 5
    assert curve[0][0] == pytest.approx(0.05) and curve[0][1] == pytest.approx(0.5)


# --- end to end ----------------------------------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=600)


def test_scripted_model_calibration_and_side_by_side_report(case_db_path: Path, tmp_path: Path) -> None:
    """A model that always says "Yes" agrees with itself every time: confidence 1 everywhere, so the ECE equals the
    hallucination rate (0 on real cases, 1 on fabricated ones); a second model saying "No" is the mirror image."""
    runs = {}
    for word in ("Yes", "No"):
        script = tmp_path / f"{word}.jsonl"
        script.write_text(json.dumps({"text": word}) + "\n")
        runs[word] = tmp_path / word
        result = run_cli("hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence,fake_existence",
                         "--n", "5", "--samples", "3", "--prompt-styles", "zero", "--run-dir", str(runs[word]),
                         "--db", str(case_db_path), "--json")  # fmt: skip
        assert result.returncode == 0, result.stderr
    report = run_cli("hallucination", "report", str(runs["Yes"]), str(runs["No"]), "--json", "--bins", "5")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert [m["model"] for m in data["models"]] == [
        f"scripted:{tmp_path / 'Yes.jsonl'}",
        f"scripted:{tmp_path / 'No.jsonl'}",
    ]
    ece = {(row["model"].split("/")[-1], row["task"]): row for row in data["calibration"]}
    assert ece[("Yes.jsonl", "existence")]["ece_width"] == 0.0
    assert ece[("Yes.jsonl", "fake_existence")]["ece_width"] == 1.0
    assert ece[("No.jsonl", "existence")]["ece_width"] == 1.0
    assert ece[("Yes.jsonl", "existence")]["mean_confidence"] == 1.0
    assert "mass bins, debiased" in data["estimators"]["ece_mass_debiased"]
    text = run_cli("hallucination", "report", str(runs["Yes"]), str(runs["No"]))
    assert text.returncode == 0 and "side by side" in text.stdout and "expected calibration error" in text.stdout
