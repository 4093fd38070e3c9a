"""`investigation score --reference paper` on real scripted investigation runs (issue 33): the sample environment
at the merits and +pro_alternative levels, a scripted agent, then the terminal's extra rows and comparison table,
the `--json` `reference` block (differences, tests from counts, design notes) and the refusal of an unknown
reference; the HTML report with the paper's grey rows and marks, opened in headless Chromium."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

import pytest
import typer
from page_checks import render_page
from tool_requirements import needs_chromium
from typer.testing import CliRunner

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.engine.config import EngineConfig
from lexprobe.investigation.agent.harness import HarnessSettings
from lexprobe.investigation.agent.run import run_investigations
from lexprobe.investigation.paper_figures.rows import load_paper_figures
from lexprobe.investigation.sample.build import build_sample_environment

VERDICT_KEY = "give your view on each hypothesis"
#: the agent opens the corpus listing, writes a summary and gives a verdict on every hypothesis
SCRIPT = [
    {"tool_calls": [{"name": "glob", "arguments": {"pattern": "**"}}]},
    {"text": "Summary: the second lot used an unapproved capacitor; the rejection was timely."},
    {"when": VERDICT_KEY, "text": '[{"label": "H1", "verdict": "A"}, {"label": "H2", "verdict": "B"}, '
                                  '{"label": "H3", "verdict": "C"}, {"label": "H4", "verdict": "B"}]'},
]  # fmt: skip
HOSTILE = "agent\x1b[2J\u202e<script>alert(1)</script>[bold]"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run directory: the scripted agent on the sample case at merits and +pro_alternative."""
    root = tmp_path_factory.mktemp("i33b")
    envs = [build_sample_environment(root / "merits", "merits"),
            build_sample_environment(root / "pro_alternative", "+pro_alternative")]  # fmt: skip
    script = root / f"{HOSTILE.replace('/', '_')}.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in SCRIPT))
    settings = HarnessSettings(model=f"scripted:{script}", tool_budget=5, turn_budget=5)
    config = EngineConfig(progress=False, max_retries=0, use_cache=False)
    episodes = asyncio.run(run_investigations(envs, settings, root / "run", None, config))
    assert [e.status for e in episodes] == ["complete", "complete"], [e.error for e in episodes]
    return root / "run"


@pytest.fixture
def score_app() -> typer.Typer:
    from lexprobe.cli.investigation_score import register

    app = typer.Typer(cls=LexprobeGroup)
    register(app)

    @app.command("noop")
    def noop() -> None:  # a second command, so `score` is a sub-command as under `lexprobe investigation`
        """Nothing."""

    return app


def score(app: typer.Typer, *args: str):
    return CliRunner().invoke(app, ["score", *args, "--bootstrap", "50"])


def test_json_carries_the_reference_block(score_app: typer.Typer, run_dir: Path) -> None:
    result = score(score_app, str(run_dir), "--reference", "paper", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)  # stdout is one JSON object and nothing else
    block = payload["reference"]
    assert block["paper"].startswith("InvestigationWorlds") and block["file"] == "investigation-worlds.txt"
    assert len(block["rows"]) == len(load_paper_figures().rows)
    assert all(row["quote"] and row["where"] and row["sample"] for row in block["rows"])
    (model,) = payload["models"]
    by_metric: dict[str, list[dict]] = {}
    for c in block["comparisons"]:
        by_metric.setdefault(c["metric"], []).append(c)
        assert c["design"], c  # never a bare comparison
    # case solved against the four printed rates; only the two with printed counts are tested
    solved = [c for c in by_metric["case_solved"] if c["paper"]["kind"] == "model"]
    assert {c["paper"]["row"] for c in solved} == {
        "case_solved/haiku", "case_solved/sonnet", "case_solved_shared/haiku", "case_solved_shared/sonnet"
    }  # fmt: skip
    for c in solved:
        assert c["user"]["value"] == pytest.approx(100 * model["case_solved"])
        assert c["difference"] == pytest.approx(c["user"]["value"] - c["paper"]["value"])
        notes = " ".join(c["design"])
        assert "not the paper's cases" in notes and "30 tool calls / 25 turns" in notes
        assert "5 tool calls / 5 turns" in notes and "merits, +pro_alternative" in notes
        if c["paper"]["row"].startswith("case_solved_shared"):
            k, n = c["user"]["successes"], c["user"]["n"]
            paper = load_paper_figures().by_id(c["paper"]["row"])
            p1, p2 = k / n, paper.successes / paper.trials
            se = math.sqrt(p1 * (1 - p1) / n + p2 * (1 - p2) / paper.trials)
            if 0 < k < n:
                assert c["test"]["z"] == pytest.approx((p1 - p2) / se, abs=1e-3)
                assert c["test"]["p"] == pytest.approx(math.erfc(abs((p1 - p2) / se) / math.sqrt(2)), abs=1e-3)
            else:  # a share of 0% or 100% has no standard error from its counts
                assert c["test"] is None and "0% or 100%" in c["test_note"]
            assert "87 cases" in notes
        else:
            assert c["test"] is None and c["test_note"] == "no s.e. or count printed: no test"
    # the exact baselines: the same policies for 4 hypotheses, so the same numbers up to the paper's rounding
    baselines = {c["paper"]["row"]: c for c in block["comparisons"] if c["paper"]["row"].startswith("baseline/")}
    assert abs(baselines["baseline/uniform_random"]["difference"]) < 0.05
    assert abs(baselines["baseline/believe_one"]["difference"]) < 0.05
    assert abs(baselines["baseline/max_worst_class_acc"]["difference"]) < 0.05
    assert all(c["test"] is None and "exact" in c["test_note"] for c in baselines.values())
    # coverage and signal recall against the paper's three model means, no test
    assert {c["paper"]["subject"] for c in by_metric["coverage"]} == {"Claude Sonnet 4.6", "DeepSeek V4 Flash",
                                                                       "GPT 5.4 mini"}  # fmt: skip
    # the level pair the paper reports: the ablation change and the believe-an-alternative shares
    changes = by_metric["ablation_change"]
    assert {c["paper"]["row"] for c in changes} == {"ablation_change/haiku", "ablation_change/gpt-5.4-mini",
                                                     "ablation_change/gpt-5.5"}  # fmt: skip
    assert all(c["test"] is None for c in changes)
    assert any("excludes zero" in " ".join(c["design"]) for c in changes)
    believe = by_metric["believe_alternative"]
    assert {c["paper"]["row"] for c in believe} == {"transitions/believe_merits",
                                                     "transitions/believe_pro_alternative"}  # fmt: skip
    for c in believe:
        assert c["paper"]["shown"] in ("3/506 (0.6%)", "115/506 (22.7%)") and c["user"]["n"] >= 1
        assert c["test"] is not None or "0% or 100%" in c["test_note"]


def test_terminal_shows_extra_rows_and_the_comparisons(score_app: typer.Typer, run_dir: Path) -> None:
    result = score(score_app, str(run_dir), "--reference", "paper")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "paper: Claude Haiku" in text and "(§4.1)" in text and "(§4.3)" in text and "87 cases" in text
    assert "29/87 (33.3%)" in text and "115/506 (22.7%)" in text and "-22 points" in text
    assert "Reference rows: InvestigationWorlds" in text and "Yours against the paper" in text
    assert "no s.e. or count printed: no test" in text and "What differs: model: yours scripted:" in text
    block = json.loads(score(score_app, str(run_dir), "--reference", "paper", "--json").stdout)["reference"]
    tested = [c for c in block["comparisons"] if c["test"]]
    assert text.count("z=") == len(tested)  # each test the JSON holds is in the table (which depends on the shuffle)
    assert all(f"z={c['test']['z']:.2f}, p={c['test']['p']:.3f}" in text for c in tested)
    assert "\x1b[2J" not in text and "\u202e" not in text  # the hostile model name is shown escaped
    without = score(score_app, str(run_dir))
    assert without.exit_code == 0 and "paper:" not in without.stdout and "Reference rows" not in without.stdout


def test_an_unknown_reference_is_refused(score_app: typer.Typer, run_dir: Path) -> None:
    result = score(score_app, str(run_dir), "--reference", "blog")
    assert result.exit_code == 2
    assert "unknown reference 'blog'" in result.stderr and result.stdout == ""


@needs_chromium
def test_html_report_shows_the_paper_in_grey_and_in_the_figures(
    score_app: typer.Typer, run_dir: Path, tmp_path: Path
) -> None:
    page = tmp_path / "scores.html"
    result = score(score_app, str(run_dir), "--reference", "paper", "--html", str(page))
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert 'id="reference"' in html and html.count('<tr class="reference">') >= len(load_paper_figures().rows)
    assert "Grey hatched bars" in html and "Grey crosses" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html  # the hostile model name, escaped
    section = html[html.index('id="reference"') : html.index("<h2>Figures")]  # the part this feature adds
    assert "\u202e" not in section and "\x1b" not in section and "\\u202e" in section
    result = render_page(page, screenshot=tmp_path / "scores.png")
    assert result.ok, result.to_json()
    assert result.errors == [] and result.exceptions == [] and result.external_requests == []
    assert result.dialogs == []
    plain = score(score_app, str(run_dir), "--html", str(tmp_path / "plain.html"))
    assert plain.exit_code == 0 and 'id="reference"' not in (tmp_path / "plain.html").read_text()


def test_a_verdict_rule_other_than_the_papers_is_noted(score_app: typer.Typer, run_dir: Path) -> None:
    result = score(score_app, str(run_dir), "--reference", "paper", "--json", "--strict-reject", "--partial-verdicts")
    assert result.exit_code == 0, result.output
    comparisons = json.loads(result.stdout)["reference"]["comparisons"]
    model_rows = [c for c in comparisons if c["paper"]["kind"] == "model"]
    assert model_rows and all(any(note.startswith("rule: yours counts \"don't know\"") for note in c["design"])
                              for c in model_rows)  # fmt: skip
    assert all(any("--partial-verdicts" in note for note in c["design"]) for c in model_rows)
