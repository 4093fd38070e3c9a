"""Issue 13, the estimators as the paper reports them: ECE exactly as the `uncertainty-calibration` package the
authors' code called (width bins closed on the right; its equal-mass thresholds; its debiased estimator), the
class-balanced rate with its standard error as the headline of disposition and doctrinal agreement, the strict rate
of Eq. 1 (unscored answers counted as hallucinations), few-shot answers in the pooled figures (`--prompt-style`),
and the single-class note of doctrinal agreement on the offline data."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

# uncertainty-calibration==0.1.4, pinned in the dev extra: the package the authors' code called
import calibration
import numpy as np
import pytest
from calibration import utils as uc

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.profile.calibration import calibration_rows
from lexprobe.hallucination.profile.results import Unit
from lexprobe.hallucination.profile.stats import SINGLE_CLASS_NOTE, breakdowns, rate_rows, single_class_notes
from lexprobe.hallucination.tasks.disposition import DispositionReference
from lexprobe.hallucination.tasks.doctrinal_agreement import AgreementReference
from lexprobe.stats import balanced_rate_se, bin_edges, expected_calibration_error, strict_rate

DISAGREE = AgreementReference(agreement="disagree")

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=600)


def samples(seed: int, n: int, tenths: bool) -> tuple[np.ndarray, np.ndarray]:
    """Confidences k/10 (what K = 10 samples give) with a random accuracy per value (a miscalibrated model: then
    which bin 0.1 or 0.9 falls in changes the plug-in ECE), or uniform confidences with calibrated outcomes."""
    rng = np.random.default_rng(seed)
    if tenths:
        x = rng.integers(0, 11, n) / 10
        accuracy = rng.uniform(0, 1, 11)[np.rint(x * 10).astype(int)]
        return x, (rng.uniform(0, 1, n) < accuracy).astype(int)
    x = rng.uniform(0, 1, n)
    return x, (rng.uniform(0, 1, n) < x).astype(int)


# --- ECE: the package the authors' code called ---------------------------------------------------------------------


def test_width_bins_are_closed_on_the_right_as_get_ece() -> None:
    # 0 and 0.1 share the first bin (0, 0.1]: |0.5 - 0.05| = 0.45, weight 2/3; 0.2 alone in (0.1, 0.2]: |1 - 0.2|
    # (bins closed on the left put 0.1 alone in the second bin: (1 + 0.1 + 0.8) / 3)
    x, y = [0.0, 0.1, 0.2], [1, 0, 1]
    expected = (2 / 3) * 0.45 + (1 / 3) * 0.8
    assert calibration.get_ece(np.array(x), np.array(y), num_bins=10) == pytest.approx(expected)
    assert expected_calibration_error(x, y, 10, "width") == pytest.approx(expected)


@pytest.mark.parametrize("tenths", [True, False], ids=["k/10", "uniform"])
def test_width_plug_in_equals_get_ece(tenths: bool) -> None:
    for seed in range(30):
        x, y = samples(seed, 50 + 13 * seed, tenths)
        ours = expected_calibration_error(x, y, 10, "width")
        assert ours == pytest.approx(calibration.get_ece(x, y, num_bins=10), abs=1e-12), seed


@pytest.mark.parametrize("tenths", [True, False], ids=["k/10", "uniform"])
def test_mass_thresholds_and_plug_in_equal_the_package(tenths: bool) -> None:
    for seed in range(30):
        x, y = samples(seed, 50 + 13 * seed, tenths)
        edges = uc.get_equal_bins(list(x), num_bins=10)
        assert bin_edges(x, 10, "mass").tolist() == edges, seed  # ties never split: duplicate thresholds merge
        expected = uc.plugin_ce(uc.bin(list(zip(x, y, strict=True)), edges), power=1)
        assert expected_calibration_error(x, y, 10, "mass") == pytest.approx(expected, abs=1e-12), seed


@pytest.mark.parametrize("tenths", [True, False], ids=["k/10", "uniform"])
def test_mass_debiased_equals_normal_debiased_ce(tenths: bool) -> None:
    """Same redraws as the package after numpy.random.seed(seed). With ties the package's equal-mass bins can be
    empty, which it refuses; an empty bin carries no weight, so ours equals the package's on the non-empty bins."""
    for seed in range(20):
        x, y = samples(seed, 80 + 11 * seed, tenths)
        binned = [b for b in uc.bin(list(zip(x, y, strict=True)), uc.get_equal_bins(list(x), num_bins=10)) if len(b)]
        np.random.seed(seed)
        expected = uc.normal_debiased_ce(binned, power=1)
        ours = expected_calibration_error(x, y, 10, "mass", debias=True, seed=seed)
        assert ours == pytest.approx(expected, abs=1e-12), seed


def test_debiased_ece_refuses_a_bin_of_one_as_the_package_does() -> None:
    x, y = [0.1, 0.2, 0.3, 0.4, 0.9], [0, 1, 0, 1, 1]  # equal-mass thresholds 0.25, 0.65, 1: bins of 2, 2, 1
    with pytest.raises(ValueError):
        uc.normal_debiased_ce(uc.bin(list(zip(x, y, strict=True)), uc.get_equal_bins(x, num_bins=3)))
    with pytest.raises(ValueError, match="at least 2 answers"):
        expected_calibration_error(x, y, 3, "mass", debias=True)
    # a report row says so instead of failing
    units = [Unit("m", "author", "scotus", "few", "correct" if o else "hallucination", confidence=c)
             for c, o in zip(x, y, strict=True)]  # fmt: skip
    row = calibration_rows(units, bins=3)[0]
    assert row.ece_mass_debiased is None or math.isnan(row.ece_mass_debiased)
    assert "undefined" in row.note and row.ece_width is not None


# --- balanced and strict rates ---------------------------------------------------------------------------------------


def test_balanced_rate_standard_error_is_that_of_the_mean_of_class_rates() -> None:
    # always "affirm": class rates 0 (8 affirm) and 1 (2 reverse): 0.5 with s.e. 0 (the study's "0.500 (0.000)")
    labels, classes = ["correct"] * 8 + ["hallucination"] * 2, ["affirm"] * 8 + ["reverse"] * 2
    assert balanced_rate_se(labels, classes) == (0.5, 0.0)
    # class rates 0.25 (n=4) and 0.5 (n=2): mean 0.375, s.e. sqrt(0.25*0.75/4 + 0.25/2) / 2
    labels = ["hallucination", "correct", "abstain", "correct", "hallucination", "correct"]
    rate, se = balanced_rate_se(labels, ["a"] * 4 + ["b"] * 2)
    assert rate == pytest.approx(0.375) and se == pytest.approx(math.sqrt(0.25 * 0.75 / 4 + 0.25 / 2) / 2)


def test_rate_rows_carry_balanced_and_strict_rates() -> None:
    def unit(label: str, cls: str, detail: str = "") -> Unit:
        return Unit(
            "m", "disposition", "scotus", "few", label, detail=detail, reference=DispositionReference(disposition=cls)
        )

    units = [unit("correct", "affirm")] * 3 + [unit("hallucination", "reverse")]
    units += [unit("unscored", "reverse", "no single affirm/reverse disposition found in answer 'Yes'")]
    units += [unit("unscored", "affirm", "reference missing: no 'disposition' in the reference")]
    (row,) = rate_rows(units)
    assert (row.rate, row.balanced_rate, row.balanced_se) == (0.25, 0.5, 0.0)
    # strict: the unreadable answer is a hallucination, the one without a reference is left out: 2 / 5
    assert row.strict_rate == pytest.approx(0.4) and row.strict_se == pytest.approx(math.sqrt(0.24 / 5))
    assert row.classes == 2 and row.note == ""
    assert strict_rate(["correct", "unscored", "abstain", "hallucination"])[0] == 0.5
    (free,) = rate_rows([Unit("m", "central_holding", "scotus", "zero", "unscored", detail="judge gave no verdict")])
    assert free.strict_rate is None  # a lower bound (Eq. 2): a verdict without yes/no is no answer


def test_single_class_rows_say_so() -> None:
    units = [Unit("m", "doctrinal_agreement", "scotus", "few", label, reference=DISAGREE)
             for label in ("correct", "hallucination", "correct")]  # fmt: skip
    (row,) = rate_rows(units)
    assert row.classes == 1 and row.note == SINGLE_CLASS_NOTE and row.balanced_rate == pytest.approx(1 / 3)


def test_single_class_notes_read_the_treatment_data(case_db_path: Path) -> None:
    database = CaseDatabase(case_db_path)
    try:
        classes = {row[0] for row in database.conn.execute("SELECT DISTINCT agreement FROM treatments") if row[0]}
        notes = single_class_notes(database)
    finally:
        database.close()
    assert (len(classes) == 1) == ("doctrinal_agreement" in notes)
    if len(classes) == 1:  # the offline data: "disagree" pairs only
        assert notes["doctrinal_agreement"].startswith(SINGLE_CLASS_NOTE)
    listed = run_cli("hallucination", "tasks", "--json", "--db", str(case_db_path))
    assert listed.returncode == 0, listed.stderr
    by_task = {t["task"]: t for t in json.loads(listed.stdout)}
    assert by_task["doctrinal_agreement"]["note"] == notes.get("doctrinal_agreement", "")
    assert by_task["existence"]["note"] == ""


# --- which answers the pooled figures use ---------------------------------------------------------------------------


def pooled_units() -> list[Unit]:
    units = []
    for style, label in (("zero", "correct"), ("few", "hallucination")):
        units += [Unit("m", "existence", "scotus", style, label, year=1960, confidence=0.9) for _ in range(4)]
        units += [Unit("m", "court", "coa", style, label, circuit="ca9", year=1981)]
        units += [Unit("m", "court", "coa", style, label, circuit="ca2", year=1982)]
        units += [Unit("m", "doctrinal_agreement", "scotus", style, label, reference=DISAGREE)]
    units += [Unit("m", "central_holding", "scotus", "zero", "hallucination")]  # asked zero-shot only
    units += [Unit("m", "false_overruling", "scotus", "zero", "hallucination")]  # asked zero-shot only
    return units


def test_pooled_breakdowns_use_few_shot_answers_by_default() -> None:
    tables = breakdowns(pooled_units())
    assert {g.group: (g.n, g.rate) for g in tables["level"]} == {"scotus": (5, 1.0), "coa": (2, 1.0)}
    # Figure 1: doctrinal agreement left out; the zero-shot-only reference-free task kept
    assert {g.group: g.n for g in tables["complexity"]} == {"low": 6, "high": 1}
    # Figure 3: cases decided from 1982 ("post-1981")
    assert [(g.group, g.n) for g in tables["circuit"]] == [("ca2", 1)]
    assert [(g.group, g.n) for g in tables["contra_factual"]] == [("false_overruling / scotus", 1)]
    assert {g.group: g.n for g in tables["prompt_style"]} == {"zero": 7, "few": 7}  # every style, by definition
    zero = breakdowns(pooled_units(), "zero")
    assert {g.group: (g.n, g.rate) for g in zero["level"]} == {"scotus": (5, 0.0), "coa": (2, 0.0)}
    assert {g.group: g.n for g in breakdowns(pooled_units(), "all")["level"]} == {"scotus": 10, "coa": 4}
    with pytest.raises(ValueError):
        breakdowns(pooled_units(), "three-shot")


def test_pooled_ece_uses_few_shot_answers() -> None:
    rows = calibration_rows(pooled_units(), bins=2)
    pooled = next(row for row in rows if row.task == "pooled")
    assert (pooled.n, pooled.accuracy, pooled.prompt_style) == (4, 0.0, "few")
    everything = next(
        row for row in calibration_rows(pooled_units(), bins=2, prompt_style="all") if row.task == "pooled"
    )
    assert everything.n == 8


# --- end to end: a scripted model through run and report -------------------------------------------------------------


def test_reports_show_balanced_strict_and_single_class(case_db_path: Path, tmp_path: Path) -> None:
    """Every answer "They disagree.": doctrinal agreement is right on every (offline: disagree-only) pair, flagged
    single-class; existence reads no yes/no, so its rate has no answer and its strict rate is 1."""
    script = tmp_path / "disagree.jsonl"
    script.write_text(json.dumps({"text": "They disagree."}) + "\n")
    run_dir = tmp_path / "run"
    ran = run_cli("hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence,doctrinal_agreement",
                  "--n", "4", "--samples", "0", "--prompt-styles", "zero,few", "--run-dir", str(run_dir),
                  "--db", str(case_db_path), "--json")  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    rows = {(r["task"], r["prompt_style"]): r for r in json.loads(ran.stdout)["rows"]}
    agreement = rows[("doctrinal_agreement", "few")]
    assert agreement["balanced_rate"] == 0.0 and agreement["balanced_se"] == 0.0 and agreement["strict_rate"] == 0.0
    assert agreement["note"] == SINGLE_CLASS_NOTE
    existence = rows[("existence", "zero")]
    assert existence["rate"] is None and existence["strict_rate"] == 1.0 and existence["strict_se"] == 0.0
    assert existence["n"] == 0 and existence["unscored"] == 4 and existence["balanced_rate"] is None

    reported = run_cli("hallucination", "report", str(run_dir), "--json", "--prompt-style", "zero")
    assert reported.returncode == 0, reported.stderr
    data = json.loads(reported.stdout)
    assert data["estimators"]["prompt_style"] == "zero" and "Eq. 1" in data["estimators"]["strict_rate"]
    stats_rows = {(r["task"], r["prompt_style"]): r for r in data["rates"]}
    assert stats_rows[("doctrinal_agreement", "zero")]["note"] == SINGLE_CLASS_NOTE
    assert stats_rows[("existence", "few")]["strict_rate"] == 1.0 and "balanced_se" in data["rows"][0]

    text = run_cli("hallucination", "report", str(run_dir))
    assert text.returncode == 0, text.stderr
    for words in ("strict (s.e.)", "raw rate (s.e.)", "0.000 (0.000) balanced", SINGLE_CLASS_NOTE, "few answers"):
        assert words in text.stdout, words
    page = tmp_path / "report.html"
    html = run_cli("hallucination", "report", str(run_dir), "--html", str(page))
    assert html.returncode == 0, html.stderr
    content = page.read_text()
    assert SINGLE_CLASS_NOTE in content and "balanced rate (s.e.)" in content and "strict 1.000 (0.000)" in content
    bad = run_cli("hallucination", "report", str(run_dir), "--prompt-style", "three")
    assert bad.returncode == 2 and "--prompt-style" in bad.stderr
