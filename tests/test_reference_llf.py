"""`hallucination report --reference paper`: the comparison math on known numbers, the comparisons and design notes
of a profile, the command line in the terminal and in --json on a real scripted run, and the HTML report with the
paper's grey columns opened in headless Chromium."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from page_checks import render_page
from tool_requirements import needs_chromium

from lexprobe.caselaw.judges import load_justices
from lexprobe.hallucination.paper_figures.compare import NO_SE, paper_comparison, z_test
from lexprobe.hallucination.profile.results import Unit
from lexprobe.hallucination.profile.stats import profile
from lexprobe.hallucination.report.html import write_html_report

ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"


def lexprobe(*args: str) -> subprocess.CompletedProcess:
    """Run `lexprobe ARGS` in a fresh interpreter of this checkout (PYTHONPATH reaches the child)."""
    return subprocess.run([sys.executable, "-c", ENTRY, *args], env=os.environ | {"COLUMNS": "200"},
                          capture_output=True, text=True, timeout=900)  # fmt: skip


def test_z_test_on_known_numbers() -> None:
    z, p = z_test(0.5, 0.03, 0.4, 0.04)  # d = 0.1, sqrt(0.03^2 + 0.04^2) = 0.05
    assert z == pytest.approx(2.0)
    assert p == pytest.approx(0.0455002638963584, rel=1e-12)  # 2 * (1 - Phi(2))
    z, p = z_test(0.3, 0.01, 0.3196, 0.0)
    assert z == pytest.approx(-1.96) and p == pytest.approx(0.04999579029644097, rel=1e-9)
    assert z_test(0.2, 0.0, 0.2, 0.0) == (None, None)  # no spread: no test
    assert z_test(0.2, None, 0.3, 0.01) == (None, None)
    assert z_test(0.2, 0.01, 0.3, None) == (None, None)


def units_for(model: str, wrong_every: int) -> list[Unit]:
    """40 zero-shot Supreme Court existence answers (every `wrong_every`-th wrong, every 10th unreadable), 20
    self-judged central-holding pairs, and calibrated court answers for the ECE."""
    units = []
    for i in range(40):
        label = "unscored" if i % 10 == 9 else "hallucination" if i % wrong_every == 0 else "correct"
        units.append(Unit(model, "existence", "scotus", "zero", label, year=1900 + i, confidence=(i % 5) / 4))
    for i in range(20):
        units.append(Unit(model, "central_holding", "scotus", "zero", "hallucination" if i % 4 == 0 else "correct",
                          year=1950 + i))  # fmt: skip
    return units


def test_comparisons_pair_each_row_with_the_four_paper_models_and_say_what_differs() -> None:
    units = units_for("mine", 4)
    stats = profile(units, load_justices(), prompt_style="all")
    models = [{"model": "mine", "run_dir": "runs/mine", "judge": "mine", "self_judged": True}]
    block = paper_comparison(stats, models, units)
    assert json.loads(json.dumps(block)) == block  # JSON-ready
    assert block["models"] == ["GPT 4", "GPT 3.5", "PaLM 2", "Llama 2"] and len(block["values"]) == 700
    rates = [c for c in block["comparisons"] if c["quantity"] == "hallucination_rate" and c["task"] == "existence"]
    assert [c["paper"]["model"] for c in rates] == ["GPT 4", "GPT 3.5", "PaLM 2", "Llama 2"]
    existence = {row["task"]: row for row in stats["rates"]}["existence"]
    gpt4 = rates[0]
    assert gpt4["yours"]["value"] == existence["strict_rate"]  # Eq. 1: unscored answers count as hallucinations
    assert gpt4["paper"]["value"] == 0.204 and gpt4["paper"]["se"] == 0.006 and gpt4["paper"]["table"] == "Table 3"
    assert gpt4["difference"] == pytest.approx(existence["strict_rate"] - 0.204)
    expected_z = (existence["strict_rate"] - 0.204) / math.sqrt(existence["strict_se"] ** 2 + 0.006**2)
    assert gpt4["z"] == pytest.approx(expected_z)
    assert gpt4["p"] == pytest.approx(math.erfc(abs(expected_z) / math.sqrt(2)))
    assert gpt4["yours"]["n"] == existence["n"] + existence["unscored"] == 40  # the strict rate counts unscored ones
    design = " | ".join(gpt4["design"])
    assert "your n=40 vs the paper's n=5000" in design
    assert "the paper's 1794-2015, your cases 1900-1939" in design
    assert "offline case database" in design and "strict rate" in design
    holding = next(c for c in block["comparisons"] if c["task"] == "central_holding" and c["paper"]["model"] == "GPT 4")
    assert holding["paper"]["value"] == 0.600 and holding["paper"]["n"] == 100
    assert any("judge: the paper's GPT 4, yours mine (self-judged" in note for note in holding["design"])
    assert any("lower bound" in note for note in holding["design"])
    pooled = [c for c in block["comparisons"] if c["quantity"].startswith("ece_pooled")]
    assert pooled and all(c["test"] == NO_SE and c["z"] is None for c in pooled)  # Appendix Table 4 prints no s.e.
    abstain = next(c for c in block["comparisons"] if c["quantity"] == "abstention_rate" and c["task"] == "existence")
    assert abstain["paper"]["table"] == "Appendix Table 6"


def test_a_profile_without_matching_rows_has_no_comparisons() -> None:
    units = [Unit("mine", "existence", "district", "few", "correct", year=2000)]  # the paper: USDC few-shot exists
    stats = profile(units, load_justices(), prompt_style="all")
    block = paper_comparison(stats, [{"model": "mine", "run_dir": "r", "judge": "mine", "self_judged": True}])
    assert {c["paper"]["column"] for c in block["comparisons"] if c["quantity"] == "hallucination_rate"} == {
        f"USDC (1932-2019; n=5000) / {m}" for m in ("GPT 4", "GPT 3.5", "PaLM 2", "Llama 2")
    }
    stats["rates"] = [row | {"level": "nowhere"} for row in stats["rates"]]
    stats["calibration"] = []
    assert paper_comparison(stats, [])["comparisons"] == []


@pytest.fixture(scope="module")
def scripted_run(case_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of a model that answers "Yes" to everything, with two samples per question for the ECE."""
    folder = tmp_path_factory.mktemp("reference")
    script = folder / "yes.jsonl"
    script.write_text(json.dumps({"text": "Yes"}) + "\n")
    run_dir = folder / "run"
    ran = lexprobe("hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence,fake_existence",
                   "--levels", "scotus", "--n", "6", "--seed", "3", "--samples", "2", "--run-dir", str(run_dir),
                   "--db", str(case_db_path))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return run_dir


def test_cli_json_has_a_reference_block_only_when_asked(scripted_run: Path) -> None:
    plain = lexprobe("hallucination", "report", str(scripted_run), "--json")
    assert plain.returncode == 0, plain.stderr
    assert "reference" not in json.loads(plain.stdout)
    asked = lexprobe("hallucination", "report", str(scripted_run), "--json", "--reference", "paper")
    assert asked.returncode == 0, asked.stderr
    reported = json.loads(asked.stdout)
    assert {k: v for k, v in reported.items() if k != "reference"} == json.loads(plain.stdout)
    block = reported["reference"]
    found = {(c["quantity"], c["task"], c["prompt_style"], c["paper"]["model"]): c for c in block["comparisons"]}
    existence = found[("hallucination_rate", "existence", "zero", "GPT 4")]
    assert existence["yours"]["value"] == 0.0 and existence["yours"]["n"] == 6  # "Yes": every real case exists
    assert existence["paper"]["printed"] == "0.204 (0.006)" and existence["level"] == "scotus"
    fake = found[("hallucination_rate", "fake_existence", "zero", "GPT 3.5")]
    assert fake["yours"]["value"] == 1.0 and fake["paper"]["table"] == "Appendix Table 5"
    assert fake["paper"]["value"] == 0.661 and fake["paper"]["n"] == 1000
    assert fake["z"] == pytest.approx((1.0 - 0.661) / 0.015)  # your s.e. is 0 at a rate of 1
    assert ("ece", "existence", "few", "GPT 4") in found  # Table 7, from the run's two samples per question


def test_cli_terminal_prints_the_paper_beside_the_run_and_refuses_an_unknown_reference(scripted_run: Path) -> None:
    plain = lexprobe("hallucination", "report", str(scripted_run))
    asked = lexprobe("hallucination", "report", str(scripted_run), "--reference", "paper")
    assert plain.returncode == 0 and asked.returncode == 0, asked.stderr
    assert "beside the paper" not in plain.stdout
    assert asked.stdout.startswith(plain.stdout.split("sample coverage")[0].rstrip())  # today's tables, unchanged
    assert "beside the paper" in asked.stdout
    for name in ("GPT 4", "GPT 3.5", "PaLM 2", "Llama 2"):
        assert name in asked.stdout
    assert "0.204 (0.006)" in asked.stdout and "d=-0.204" in asked.stdout and "z=-34.00 p=2.2e-253" in asked.stdout
    assert "design: " in asked.stdout and "your n=6 vs the paper's n=5000" in asked.stdout
    assert "no s.e. printed: no test" in asked.stdout  # the pooled ECE of Appendix Table 4
    wrong = lexprobe("hallucination", "report", str(scripted_run), "--reference", "papers")
    assert wrong.returncode != 0 and wrong.stdout == ""
    assert "unknown --reference 'papers'" in wrong.stderr and len(wrong.stderr.strip().splitlines()) == 1


@needs_chromium
def test_html_shows_the_paper_in_grey_and_renders_in_chromium(scripted_run: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    reported = lexprobe("hallucination", "report", str(scripted_run), "--reference", "paper", "--html", str(page))
    assert reported.returncode == 0, reported.stderr
    result = render_page(page, width=1400)
    assert result.ok, result.to_json()
    assert result.sideways == []  # grey columns, comparisons and the paper's 12-column tables fit 1,400 px
    html = page.read_text()
    assert 'title="the paper\'s published estimates: GPT 4, GPT 3.5, PaLM 2, Llama 2">the paper</th>' in html
    assert "Reference rows from the paper" in html and "reference marks" in html
    assert '<span title="Table 3, Existence Zero-shot, SCOTUS (1794-2015; n=5000) / GPT 4; n=5000; 1794-2015">' \
           "GPT 4 0.204 (0.006)</span>" in html  # fmt: skip
    assert "GPT 4 0.204 (0.006): d=-0.204; z=-34.00 p=2.2e-253" in html  # the comparison table
    assert "700 values from its" in html and "<script" not in html


@needs_chromium
def test_html_escapes_a_hostile_model_name(tmp_path: Path) -> None:
    name = "<script>alert(1)</script>$\\x$ \u202e"
    units = units_for(name, 3) + [Unit(name, "court", level, style, "correct", year=1990)
                                  for level in ("coa", "district") for style in ("zero", "few")]  # fmt: skip
    stats = profile(units, load_justices(), prompt_style="all")
    models = [{"model": name, "run_dir": "runs/x", "judge": name, "self_judged": True}]
    page = tmp_path / "hostile.html"
    write_html_report(page, models, stats, units, paper=paper_comparison(stats, models, units))
    result = render_page(page, width=1400)
    assert result.ok and result.dialogs == [], result.to_json()
    assert result.sideways == []
    assert "<script>alert" not in page.read_text()
    plain = tmp_path / "plain.html"
    write_html_report(plain, models, stats, units)
    assert "Reference rows from the paper" not in plain.read_text() and "(paper)" not in plain.read_text()
