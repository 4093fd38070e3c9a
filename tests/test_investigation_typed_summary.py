"""Issue 15, typed summaries: `summarize` returns pydantic models that the terminal tables, `--json` and the HTML
report read; `--json` is `model_dump(mode="json")`; the page and the table show the JSON's numbers for one scored
run of scripted agents on the sample environment; the generic bootstrap primitives of `lexprobe.stats` against
hand-computed cases and against the intervals the scoring code gave before they moved (same seed)."""

from __future__ import annotations

import asyncio
import json
import os
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.investigation_score import register
from lexprobe.demo import investigation_rows
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.investigation.agent.episode import Episode, HypothesisVerdict, load_episodes
from lexprobe.investigation.agent.harness import HarnessSettings
from lexprobe.investigation.agent.run import run_investigations
from lexprobe.investigation.environment.format import load_environment
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.investigation.scoring.aggregates import cluster_bootstrap_ci, paired_bootstrap
from lexprobe.investigation.scoring.coverage import coverage_points, role_recall_table
from lexprobe.investigation.scoring.metrics import complete_episodes, score_episode
from lexprobe.investigation.scoring.schema import (
    BaselineSummary,
    Comparison,
    CoveragePoint,
    GroupSummary,
    ModelSummary,
    RoleRecall,
    ScoreSummary,
)
from lexprobe.investigation.scoring.summary import summarize
from lexprobe.stats import (
    cluster_bootstrap_totals,
    cluster_sums,
    paired_cluster_bootstrap_totals,
    percentile_interval,
    resample_counts,
    share_above_zero,
)

LEVELS = ("merits", "+chaff100")
SCRIPTS = {"a": ("A", "B", "C", "B"), "b": ("B", "A", "A", "B")}  # Turn-2 letters for H1..H4


# --- a scored run of scripted agents ---------------------------------------------------------------------------


def _script(path: Path, letters: tuple[str, ...], when: str) -> None:
    verdicts = [{"label": f"H{i}", "verdict": letter} for i, letter in enumerate(letters, start=1)]
    lines = [
        {"tool_calls": [{"name": "read", "arguments": {"path": "DOC-0001.pdf"}}]},
        {"tool_calls": [{"name": "grep", "arguments": {"pattern": "capacitor"}}]},
        {"text": "Summary: the second lot failed in the cold [DOC-0001]."},
        {"when": when, "text": json.dumps(verdicts)},  # Turn 2: its prompt holds the hypotheses' claims
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[Episode], dict]:
    """Two scripted models at two ablation levels of the sample case (one run directory each), run for real."""
    root = tmp_path_factory.mktemp("typed")
    envs = [build_sample_environment(root / "envs" / level.strip("+"), level) for level in LEVELS]
    claim = load_environment(envs[0])[0].hypotheses[0].claim
    runs, before = [], Path.cwd()
    os.chdir(root)  # short model names (scripted:a.jsonl) that the terminal table shows whole
    try:
        for name, letters in SCRIPTS.items():
            _script(root / f"{name}.jsonl", letters, claim)
            for env in envs:
                run_dir = root / f"run-{name}-{env.name}"
                harness = HarnessSettings(model=f"scripted:{name}.jsonl", tool_budget=5, turn_budget=6)
                config = EngineConfig(progress=False, max_retries=0)
                asyncio.run(run_investigations([env], harness, run_dir, ResponseCache(), config))
                runs.append(run_dir)
    finally:
        os.chdir(before)
    episodes, _ = complete_episodes(e for run in runs for e in load_episodes(run))
    environments = {e.env_dir: load_environment(Path(e.env_dir))[0] for e in episodes}
    assert len(episodes) == 4, [e.error for run in runs for e in load_episodes(run)]
    return runs, episodes, environments


@pytest.fixture
def score_app() -> typer.Typer:
    app = typer.Typer(cls=LexprobeGroup)
    register(app)

    @app.command("noop")
    def noop() -> None:  # a second command, so `score` is a sub-command as under `lexprobe investigation`
        """Nothing."""

    return app


def test_summary_and_coverage_are_models(scored) -> None:
    _, episodes, environments = scored
    summary = summarize(episodes, environments, replicates=50)
    assert isinstance(summary, ScoreSummary)
    assert all(isinstance(m, ModelSummary) for m in summary.models) and len(summary.models) == 2
    assert all(isinstance(c, GroupSummary) for m in summary.models for c in m.by_ablation.values())
    assert list(summary.models[0].by_ablation) == list(LEVELS) == summary.levels()
    assert all(isinstance(b, BaselineSummary) for b in summary.baselines.values())
    assert summary.comparisons and all(isinstance(c, Comparison) for c in summary.comparisons)
    assert {c.kind for c in summary.comparisons} == {"models", "ablation"}
    assert summary.settings is not None and summary.settings.replicates == 50 and summary.settings.n_hypotheses == 4
    points = coverage_points(episodes, environments)
    rows = role_recall_table(episodes, environments)
    assert len(points) == 4 and all(isinstance(p, CoveragePoint) for p in points)
    assert rows and all(isinstance(r, RoleRecall) for r in rows)
    assert summary.recall_by_role == rows


def test_json_is_the_model_dump(score_app: typer.Typer, scored) -> None:
    runs, episodes, environments = scored
    result = CliRunner().invoke(score_app, ["score", *map(str, runs), "--json", "--bootstrap", "120", "--seed", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert ScoreSummary.model_validate(data).model_dump(mode="json") == data  # the JSON is a ScoreSummary's dump
    expected = summarize(episodes, environments, replicates=120, seed=3).model_dump(mode="json")
    for key, value in expected.items():  # what summarize fills; results the command adds after it are left aside
        if value is not None:
            assert data[key] == value, key
    # today's documented keys are kept
    model = expected["models"][0]
    assert {"model", "n_episodes", "case_solved", "case_solved_ci", "tokens", "by_ablation"} <= set(model)
    assert set(model["tokens"]) == {"input", "output"} and set(model["cost_usd"]) == {"mean", "total", "unknown"}
    assert set(expected["comparisons"][0]["case_solved"]) == {"a", "b", "difference", "ci", "share_above_zero"}


class _Rows(HTMLParser):
    """The cell texts of every table row of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _ci(ci: list[float] | None) -> str:
    return "–" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def test_html_and_terminal_show_the_json_numbers(score_app: typer.Typer, scored, tmp_path: Path) -> None:
    runs, _, _ = scored
    page = tmp_path / "scores.html"
    args = ["score", *map(str, runs), "--bootstrap", "120", "--seed", "3"]
    data = json.loads(CliRunner().invoke(score_app, [*args, "--json", "--html", str(page)]).stdout)
    terminal = CliRunner().invoke(score_app, args, terminal_width=200)
    assert terminal.exit_code == 0, terminal.output
    parser = _Rows()
    parser.feed(page.read_text())
    verdict_rows = {row[0]: row for row in parser.rows if len(row) == 9 and row[0].startswith("scripted:")}
    table_rows = [[c.strip() for c in line.split("│")[1:-1]] for line in terminal.stdout.splitlines() if "│" in line]
    for m in data["models"]:
        verdicts = [_pct(m[key]) for key in ("case_solved",)] + [_ci(m["case_solved_ci"])]
        verdicts += [_pct(m[key]) for key in ("believe_acc", "reject_acc", "worst_class_acc", "commit_rate")]
        verdicts += [_pct(m["committed_acc"])]
        assert verdict_rows[m["model"]] == [m["model"], str(m["n_episodes"]), *verdicts]
        reach = [_pct(m["coverage"]), _pct(m["signal_recall"]), _pct(m["seen_share"])]
        assert [m["model"], *reach] == next(r[:4] for r in parser.rows if r[:1] == [m["model"]] and len(r) == 11)
        assert [m["model"], str(m["n_episodes"]), *verdicts, *reach[:2]] in table_rows
        assert f"{m['model']} {reach[2]}" in terminal.stdout
        for level, cell in m["by_ablation"].items():
            row = [m["model"], level, str(cell["n_episodes"]), _pct(cell["case_solved"]), _ci(cell["case_solved_ci"]),
                   _pct(cell["worst_class_acc"]), _pct(cell["coverage"]), _pct(cell["signal_recall"])]  # fmt: skip
            assert row in table_rows
    for c in data["comparisons"]:
        cs = c["case_solved"]
        assert [_pct(cs["difference"]), _ci(cs["ci"])] == next(
            r[4:6] for r in parser.rows if len(r) == 10 and r[1:3] == [c["a"], c["b"]]
        )
    assert data["recall_by_role"]  # the JSON carries the recall-by-role table the terminal and the page show
    for r in data["recall_by_role"]:
        row = [r["model"], r["role"], str(r["episodes"]), f"{r['documents_mean']:,.1f}", _pct(r["recall"])]
        assert row in table_rows and row in parser.rows
    assert "bootstrap 120 resamples, seed 3" in page.read_text()


def test_demo_rows_read_the_typed_summary(scored) -> None:
    _, episodes, environments = scored
    summary = summarize(episodes, environments, replicates=20)
    rows = investigation_rows(summary)
    assert [r["name"] for r in rows[:2]] == [m.model for m in summary.models]
    assert rows[2]["name"] == "baseline: uniform random" and rows[2]["n"] == "exact"
    assert rows[0]["n"] == summary.models[0].n_episodes


# --- the bootstrap primitives ----------------------------------------------------------------------------------


def test_percentile_interval_and_share_hand_computed() -> None:
    assert percentile_interval(np.arange(101.0), 0.9) == pytest.approx((5.0, 95.0))
    assert percentile_interval([1.0, 2.0, 3.0, 4.0, np.nan], 0.5) == pytest.approx((1.75, 3.25))  # linear, NaN out
    assert percentile_interval([np.nan, np.nan]) is None
    assert share_above_zero([-1.0, 0.0, 2.0, np.nan]) == pytest.approx(1 / 3)
    assert share_above_zero([np.nan]) is None


def test_cluster_sums_and_resamples() -> None:
    keys, sums = cluster_sums(["x", "y", "x"], [[1, 2], [3, 4], [5, 6]])
    assert keys == ["x", "y"] and sums.tolist() == [[6, 8], [3, 4]]
    counts = resample_counts(5, 300, seed=4)
    assert counts.shape == (300, 5) and (counts.sum(axis=1) == 5).all()
    assert (counts == resample_counts(5, 300, seed=4)).all() and not (counts == resample_counts(5, 300, seed=5)).all()
    # one cluster: every resample draws it once, so the totals are its sums
    assert cluster_bootstrap_totals(np.array([[2.0, 3.0]]), replicates=4, seed=0).tolist() == [[2.0, 3.0]] * 4
    a, b = paired_cluster_bootstrap_totals(np.eye(3), 2 * np.eye(3), replicates=50, seed=1)
    assert (b == 2 * a).all()  # the same draw on both sides
    with pytest.raises(ValueError):
        paired_cluster_bootstrap_totals(np.eye(3), np.eye(2), replicates=5, seed=0)


KINDS = ("court_adopted", "court_rejected", "alternative", "alternative")


def _episode(model: str, env: str, verdicts: str, epoch: int = 0) -> Episode:
    codes = {"B": "believe", "R": "reject", "C": "dont_know"}
    listed = [HypothesisVerdict(label=f"H{i}", hypothesis_id=f"h{i}", kind=kind, verdict=codes[v])
              for i, (kind, v) in enumerate(zip(KINDS, verdicts, strict=True), start=1)]  # fmt: skip
    return Episode(episode_id=f"{env}|{model}|e{epoch}", environment=env, ablation="merits", model=model, epoch=epoch,
                   env_dir=f"envs/{env}", seed=0, tool_budget=30, turn_budget=25, verdicts=listed,
                   status="complete")  # fmt: skip


def test_same_seed_gives_the_intervals_of_before_the_move() -> None:
    """Values printed by the scoring code before the primitives moved to lexprobe.stats (same inputs, seed 11)."""
    verdicts = ["BRRR", "BBRR", "RRCC", "BRCR", "CCCC"]
    a = [_episode("m1", f"env{i}", v, k) for i, v in enumerate(verdicts) for k in (0, 1)]
    b = [_episode("m2", f"env{i}", v) for i, v in enumerate(["BRRR", "BRRR", "BRCR", "RBRR", "BRRR"])]
    sa, sb = [score_episode(e) for e in a], [score_episode(e) for e in b]
    assert cluster_bootstrap_ci(sa, "case_solved", replicates=500, seed=11) == pytest.approx((0.0, 0.8))
    assert cluster_bootstrap_ci(sa, "worst_class_acc", replicates=500, seed=11) == pytest.approx((0.2, 0.9333333333))
    assert cluster_bootstrap_ci(sa, "commit_rate", replicates=500, seed=11) == pytest.approx((0.3, 0.95))
    assert cluster_bootstrap_ci(sa, "committed_acc", replicates=500, seed=11) == pytest.approx((0.625, 1.0))
    shared, diffs = paired_bootstrap(sa, sb, replicates=500, seed=11)
    assert shared == 5
    assert diffs["case_solved"].ci == pytest.approx((-0.2, 1.0)) and diffs["case_solved"].share_above_zero == 0.818
    assert diffs["worst_class_acc"].ci == pytest.approx((-0.4, 0.8))
    assert diffs["worst_class_acc"].share_above_zero == 0.674
    # the generic primitives alone give the same case-solved interval: per-environment (solved, episodes) sums
    _, sums = cluster_sums([s.environment for s in sa], [[float(s.case_solved), 1.0] for s in sa])
    totals = cluster_bootstrap_totals(sums, replicates=500, seed=11)
    assert percentile_interval(totals[:, 0] / totals[:, 1]) == pytest.approx((0.0, 0.8))
