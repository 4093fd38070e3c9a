"""Issue 15, the analyses of Section 4 (lexprobe.investigation.scoring.analyses): complete outputs, commitment on the
cases every model completed, believing h* and an alternative, strategy against case solved, generator robustness;
the environments' `generator` field; `investigation score --complete-only` on scripted episodes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest
import typer
from test_investigation_pipeline import SMALL, FakeLLM, canned_answers, quiet, write_record
from typer.testing import CliRunner

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.investigation_score import register
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.investigation.agent.episode import Episode, HypothesisVerdict, ToolCallRecord
from lexprobe.investigation.agent.harness import HarnessSettings
from lexprobe.investigation.agent.run import run_investigations
from lexprobe.investigation.environment.format import (
    ENVIRONMENT_FILE,
    CaseInfo,
    Document,
    Environment,
    load_environment,
    save_environment,
)
from lexprobe.investigation.pipeline.runner import run_build
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.investigation.scoring.analyses import (
    POOLED,
    analyze,
    believe_adopted_and_other,
    complete_output,
    complete_outputs,
    completeness,
    generator_robustness,
    point_biserial,
    shared_cases,
    shared_complete_cases,
    strategy_correlations,
)

KINDS = ("court_adopted", "court_rejected", "alternative", "alternative")
B, R, C, N = "believe", "reject", "dont_know", None
SOLVED, UNSOLVED = [B, R, R, R], [R, R, R, R]


def approx(value: float):
    """Shares and correlations are rounded to 6 digits, as in the summary."""
    return pytest.approx(value, abs=1e-6)


def verdict_list(verdicts) -> list[HypothesisVerdict]:
    return [
        HypothesisVerdict(label=f"H{i}", hypothesis_id=f"hyp{i}", kind=kind, verdict=v)
        for i, (kind, v) in enumerate(zip(KINDS, verdicts, strict=True), start=1)
    ]


def episode(model: str, case: str, verdicts, *, env_dir: str | None = None, **fields) -> Episode:
    values = {"status": "complete", "summary": "The most likely account is ...", "env_dir": env_dir or f"envs/{case}"}
    return Episode(episode_id=f"{case}|{model}|0", environment=case, ablation="+chaff100", model=model, seed=0,
                   tool_budget=30, turn_budget=25, verdicts=verdict_list(verdicts) if verdicts else [],
                   **(values | fields))  # fmt: skip


# --- complete outputs ----------------------------------------------------------------------------------------

COMPLETE_TABLE = [
    ({}, [B, R, C, R], True),
    ({"status": "failed"}, [B, R, C, R], False),
    ({"status": "running"}, [B, R, C, R], False),
    ({"summary": "  "}, [B, R, C, R], False),  # Turn 1 gave no summary
    ({}, [B, R, C, N], False),  # one verdict unreadable: a partial reply
    ({}, [N, N, N, N], False),
    ({"unparsed": True}, [N, N, N, N], False),
    ({}, None, False),  # no verdicts at all
]


@pytest.mark.parametrize(("fields", "verdicts", "expected"), COMPLETE_TABLE)
def test_complete_output_table(fields: dict, verdicts, expected: bool) -> None:
    assert complete_output(episode("m", "c1", verdicts, **fields)) is expected


def test_a_truncated_summary_is_not_a_complete_output() -> None:
    if "summary_truncated" not in Episode.model_fields:
        pytest.skip("episodes do not record summary truncation yet")
    assert not complete_output(episode("m", "c1", [B, R, R, R], summary_truncated=True))


def test_completeness_counts_every_episode_per_model() -> None:
    found = [
        episode("a", "c1", [B, R, R, R]),
        episode("a", "c2", [B, R, R, N]),
        episode("a", "c3", None, status="failed"),
        episode("b", "c1", [C, C, C, C]),
    ]
    rows = {row.model: row for row in completeness(found)}
    assert (rows["a"].n_episodes, rows["a"].n_finished, rows["a"].n_complete) == (3, 2, 1)
    assert (rows["b"].n_episodes, rows["b"].n_finished, rows["b"].n_complete) == (1, 1, 1)
    assert [e.environment for e in complete_outputs(found)] == ["c1", "c1"]


# --- commitment on the shared cases ---------------------------------------------------------------------------


def two_models_found() -> list[Episode]:
    """A completes c1, c2, c3, c4, c5; B completes c1 and c3 (c2 has an unread verdict, c4 failed, no c5)."""
    return [
        episode("A", "c1", [B, R, R, R]),
        episode("A", "c2", [B, B, C, R]),
        episode("A", "c3", [C, R, C, R]),
        episode("A", "c4", [R, R, R, R]),
        episode("A", "c5", [B, R, R, R]),
        episode("B", "c1", [B, R, C, C]),
        episode("B", "c2", [B, R, R, N]),
        episode("B", "c3", [B, B, R, R]),
        episode("B", "c4", None, status="failed"),
    ]


def test_shared_cases_are_those_every_model_completed() -> None:
    assert shared_complete_cases(two_models_found()) == {("c1", "+chaff100"), ("c3", "+chaff100")}


def test_commitment_on_shared_cases_by_hand() -> None:
    result = shared_cases(two_models_found())
    assert result.models == ["A", "B"] and result.n_cases == 2
    a, b = result.per_model
    # A on c1 + c3: 8 verdicts, 6 committed (all correct); solves c1 only; believes h* on c1 only
    assert (a.n_episodes, a.n_verdicts, a.n_committed, a.n_committed_correct) == (2, 8, 6, 6)
    assert a.commit_rate == approx(0.75) and a.committed_acc == approx(1.0)
    assert (a.n_solved, a.case_solved, a.n_believe_adopted, a.n_believe_adopted_and_other) == (1, 0.5, 1, 0)
    # B: c1 B R C C (2 committed, 2 right), c3 B B R R (4 committed, 3 right)
    assert (b.n_verdicts, b.n_committed, b.n_committed_correct) == (8, 6, 5)
    assert b.committed_acc == approx(5 / 6)
    assert (b.n_solved, b.n_believe_adopted, b.n_believe_adopted_and_other) == (1, 2, 1)


def test_one_model_shares_its_own_complete_cases() -> None:
    found = [e for e in two_models_found() if e.model == "A"]
    assert shared_cases(found).n_cases == 5


BELIEVE_TABLE = [
    # verdict lists of one model's episodes -> (believe h*, believe h* and a non-h* hypothesis, solved)
    ([SOLVED], (1, 0, 1)),
    ([[B, B, R, R]], (1, 1, 0)),  # believes h* and h-dagger
    ([[B, R, C, B]], (1, 1, 0)),  # believes h* and an alternative
    ([[R, B, R, R]], (0, 0, 0)),  # believes only a wrong one: not counted
    ([[C, C, C, C], SOLVED, [B, B, B, B]], (2, 1, 1)),
    ([[B, N, N, B]], (1, 1, 0)),
]


@pytest.mark.parametrize(("verdict_sets", "expected"), BELIEVE_TABLE)
def test_believe_adopted_and_other_table(verdict_sets: list, expected: tuple[int, int, int]) -> None:
    episodes = [episode("m", f"c{i}", v) for i, v in enumerate(verdict_sets)]
    (row,) = believe_adopted_and_other(episodes)
    assert (row.n_believe_adopted, row.n_believe_adopted_and_other, row.n_solved) == expected


# --- strategy against case solved -----------------------------------------------------------------------------


def test_point_biserial_is_pearson_with_a_binary_variable() -> None:
    values = [2.0, 1.0, 0.0, 3.0, 5.0, 1.0]
    solved = [True, False, False, True, True, False]
    r, ci = point_biserial(values, solved, [f"c{i}" for i in range(6)], replicates=500, seed=3)
    assert r == approx(np.corrcoef(values, np.array(solved, float))[0, 1])
    scipy_stats = pytest.importorskip("scipy.stats")
    assert r == approx(scipy_stats.pointbiserialr(solved, values).statistic)
    assert ci is not None and ci[0] <= r <= ci[1]
    assert point_biserial(values, solved, [f"c{i}" for i in range(6)], replicates=500, seed=3) == (r, ci)


def test_point_biserial_undefined_cases() -> None:
    assert point_biserial([1.0, 2.0, 3.0], [True, True, True], ["a", "b", "c"]) == (None, None)  # nobody fails
    assert point_biserial([2.0, 2.0], [True, False], ["a", "b"]) == (None, None)  # constant strategy
    r, ci = point_biserial([1.0, 0.0], [True, False], ["a", "a"])  # one cluster: no interval
    assert r == approx(1.0) and ci is None


def strategy_environment() -> Environment:
    roles = {"d1": "merits", "d2": "signal", "d3": "chaff", "d4": "chaff"}
    documents = [Document(doc_id=d, path=f"{d}.txt", format="txt", doc_type="memo", role=r) for d, r in roles.items()]
    case = CaseInfo(case_id="x", name="X v. Y", dispositive_question="?", generator="gen-a")
    return Environment(case=case, documents=documents)


def read(doc_id: str, role: str) -> ToolCallRecord:
    extra = {"opened": [f"{doc_id}.txt"]} if "opened" in ToolCallRecord.model_fields else {}
    return ToolCallRecord(step=1, name="read", arguments={"path": f"{doc_id}.txt"}, documents=[f"{doc_id}.txt"],
                          doc_ids=[doc_id], roles=[role], **extra)  # fmt: skip


def investigation(model: str, case: str, reads: list[tuple[str, str]], solved: bool, **fields) -> Episode:
    calls = [read(d, r) for d, r in reads] + fields.pop("more_calls", [])
    return episode(model, case, SOLVED if solved else UNSOLVED, env_dir="envs/x", tool_calls=calls, **fields)


def strategy_episodes() -> list[Episode]:
    glob = ToolCallRecord(step=1, name="glob", arguments={"pattern": "*"})
    denied = ToolCallRecord(step=2, name="read", arguments={"path": "d4.txt"}, denied=True)
    return [
        investigation("m", "c1", [("d1", "merits"), ("d2", "signal")], True, more_calls=[glob, denied]),
        investigation("m", "c2", [("d1", "merits")], False),
        investigation("m", "c3", [], False),
        investigation("m", "c4", [("d1", "merits"), ("d2", "signal"), ("d3", "chaff")], True),
        investigation("n", "c1", [("d3", "chaff")], True),
        investigation("n", "c2", [("d1", "merits"), ("d4", "chaff")], False),
    ]


def test_strategy_correlations_by_hand() -> None:
    rows = strategy_correlations(strategy_episodes(), {"envs/x": strategy_environment()}, replicates=200)
    table = {(row.model, row.variable): row for row in rows}
    solved_m = np.array([1.0, 0, 0, 1])
    opened = table[("m", "documents_opened")]
    assert opened.n == 4 and opened.n_environments == 4
    assert opened.r == approx(np.corrcoef([2, 1, 0, 3], solved_m)[0, 1])
    assert (opened.mean_solved, opened.mean_unsolved) == (2.5, 0.5)
    assert table[("m", "coverage")].r == approx(opened.r)  # one corpus: coverage = opened / 4
    calls = table[("m", "tool_calls")]  # the glob ran, the denied read did not
    assert calls.r == approx(np.corrcoef([3, 1, 0, 3], solved_m)[0, 1]) and calls.mean_solved == 3.0
    recall = table[("m", "signal_recall")]  # merits + signal: 2 documents
    assert recall.r == approx(np.corrcoef([1, 0.5, 0, 1], solved_m)[0, 1])
    pooled = table[(POOLED, "documents_opened")]
    assert pooled.n == 6 and pooled.n_environments == 4  # clusters are cases, shared by both models
    assert pooled.r == approx(np.corrcoef([2, 1, 0, 3, 1, 2], [1, 0, 0, 1, 1, 0])[0, 1])


def test_strategy_without_the_corpus_keeps_tool_calls_only() -> None:
    rows = strategy_correlations(strategy_episodes()[:4], None, replicates=0)
    table = {row.variable: row for row in rows}
    assert [row.model for row in rows] == ["m"] * 4  # one model: no pooled rows
    assert table["documents_opened"].n == 0 and table["documents_opened"].r is None
    assert table["tool_calls"].n == 4 and table["tool_calls"].r is not None and table["tool_calls"].ci is None


# --- generator robustness -------------------------------------------------------------------------------------


def built_by(generator: str, case: str) -> Environment:
    info = CaseInfo(case_id=case, name=case, dispositive_question="?", generator=generator)
    return Environment(case=info)


OUTCOMES = {  # generator -> model -> solved per case c1..c4 (None: not run)
    "anthropic": {"m1": [1, 1, 0, 1], "m2": [1, 0, 0, 0], "m3": [0, 0, 0, 1]},
    "openai": {"m1": [1, 0, 0, None], "m2": [1, 1, 0, None], "m3": [0, 0, 0, None]},
}


def generator_episodes() -> tuple[list[Episode], dict[str, Environment | None]]:
    episodes, environments = [], {}
    for generator, models in OUTCOMES.items():
        for model, outcomes in models.items():
            for k, solved in enumerate(outcomes, start=1):
                if solved is None:
                    continue
                env_dir = f"{generator}/c{k}"
                environments[env_dir] = built_by(generator, f"c{k}")
                episodes.append(episode(model, f"c{k}", SOLVED if solved else UNSOLVED, env_dir=env_dir))
    environments["old/c9"] = built_by("", "c9")  # built before environments recorded their generator
    episodes.append(episode("m1", "c9", SOLVED, env_dir="old/c9"))
    episodes.append(episode("m1", "c8", SOLVED, env_dir="missing/c8"))
    return episodes, environments


def test_generator_robustness_by_hand() -> None:
    episodes, environments = generator_episodes()
    result = generator_robustness(episodes, environments, replicates=300)
    assert result is not None
    assert result.generators == ["anthropic", "openai"] and result.n_unrecorded == 2
    rates = {(r.generator, r.model): r for r in result.rates}
    assert rates[("anthropic", "m1")].case_solved == approx(0.75) and rates[("anthropic", "m1")].n_cases == 4
    assert rates[("openai", "m2")].case_solved == approx(2 / 3) and rates[("openai", "m3")].case_solved == 0
    (pair,) = result.pairs
    assert (pair.a, pair.b, pair.n_cases, pair.n_models) == ("anthropic", "openai", 3, 3)
    by_model = {row.model: row for row in pair.models}
    # on c1..c3: anthropic m1 2/3 > m2 1/3 > m3 0; openai m2 2/3 > m1 1/3 > m3 0 -> rho = 1 - 6*2/(3*8) = 0.5
    assert by_model["m1"].a == approx(2 / 3) and by_model["m1"].b == approx(1 / 3)
    assert by_model["m1"].difference == approx(-1 / 3) and by_model["m2"].difference == approx(1 / 3)
    assert pair.spearman_rho == approx(0.5)
    assert by_model["m1"].ci is not None and by_model["m1"].ci[0] <= -1 / 3 <= by_model["m1"].ci[1]


def test_generator_robustness_needs_a_recorded_generator() -> None:
    episodes = [episode("m", "c1", SOLVED, env_dir="old/c1")]
    assert generator_robustness(episodes, {"old/c1": built_by("", "c1")}) is None
    assert generator_robustness(episodes, None) is None


def test_analyze_bundles_every_analysis() -> None:
    found = two_models_found()
    scored = [e for e in found if e.status == "complete"]
    result = analyze(found, scored, None, complete_only=False, replicates=0)
    assert result.shared_cases.n_cases == 2 and [c.n_episodes for c in result.completeness] == [5, 4]
    assert result.generators is None and {row.model for row in result.strategy} == {"A", "B", POOLED}
    assert json.loads(result.model_dump_json())["shared_cases"]["per_model"][1]["n_committed_correct"] == 5


# --- environments record their generator ----------------------------------------------------------------------


def test_environment_generator_field_round_trips_and_old_files_load(tmp_path: Path) -> None:
    env = built_by("openai:gpt-5.5", "c1")
    save_environment(tmp_path / "new", env)
    assert load_environment(tmp_path / "new")[0].case.generator == "openai:gpt-5.5"
    raw = json.loads((tmp_path / "new" / ENVIRONMENT_FILE).read_text())
    del raw["case"]["generator"], raw["case"]["judge"]
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / ENVIRONMENT_FILE).write_text(json.dumps(raw))
    old = load_environment(tmp_path / "old")[0]
    assert old.case.generator == "" and old.case.judge == "" and old.schema_version == 2


def test_sample_environment_is_hand_written(tmp_path: Path) -> None:
    env = load_environment(build_sample_environment(tmp_path / "harlow", "merits"))[0]
    assert env.case.generator == "hand-written"


def test_assemble_records_the_build_generator_and_judge(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    run_build(record, tmp_path / "env", SMALL, llm=FakeLLM(canned_answers()), log=quiet)
    case = load_environment(tmp_path / "env")[0].case
    assert (case.generator, case.judge) == ("fake", "fake")


# --- `investigation score --complete-only` on scripted episodes ---------------------------------------------------

MARK = "SUMMARY-7f3a: the second lot was rejected in time."


def agent_script(path: Path, verdicts: list[str]) -> str:
    """A scripted agent: one read, a summary, and (answering the Turn-2 request, which quotes the summary) the
    verdicts given for H1, H2, ... in order."""
    reply = json.dumps([{"label": f"H{i}", "verdict": v, "reason": "x"} for i, v in enumerate(verdicts, start=1)])
    lines = [
        {"tool_calls": [{"name": "read", "arguments": {"path": "DOC-0003.pdf"}}]},  # a merits exhibit
        {"text": MARK},
        {"when": MARK, "text": reply},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return f"scripted:{path}"


def run_scripted(env: Path, model: str, run_dir: Path) -> Path:
    config = EngineConfig(progress=False, max_retries=0)
    asyncio.run(run_investigations([env], HarnessSettings(model=model), run_dir, ResponseCache(), config))
    return run_dir


def test_cli_complete_only_scores_complete_outputs_and_always_counts_them(tmp_path: Path) -> None:
    env = build_sample_environment(tmp_path / "envs" / "harlow", "merits")
    full = agent_script(tmp_path / "full.jsonl", ["A", "B", "B", "C"])
    partial = agent_script(tmp_path / "partial.jsonl", ["A", "B", "B"])  # no verdict on H4
    runs = [str(run_scripted(env, model, tmp_path / name)) for model, name in ((full, "full"), (partial, "partial"))]
    app = typer.Typer(cls=LexprobeGroup)
    register(app)
    app.command("noop")(lambda: None)
    base = ["score", *runs, "--json", "--bootstrap", "0", "--env-root", str(tmp_path / "envs")]

    everything = CliRunner().invoke(app, base)
    assert everything.exit_code == 0, everything.output
    summary = json.loads(everything.stdout)
    assert [m["model"] for m in summary["models"]] == [full, partial]
    counts = {row["model"]: (row["n_complete"], row["n_episodes"]) for row in summary["analyses"]["completeness"]}
    assert counts == {full: (1, 1), partial: (0, 1)}
    assert summary["analyses"]["complete_only"] is False
    shared = summary["analyses"]["shared_cases"]
    assert shared["n_cases"] == 0 and all(row["n_episodes"] == 0 for row in shared["per_model"])

    result = CliRunner().invoke(app, [*base, "--complete-only", "--html", str(tmp_path / "report.html")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "report.html").read_text()
    assert "Analyses of Section 4" in page and "Only complete outputs were scored" in page and "0 / 1" in page
    only = json.loads(result.stdout)
    assert [m["model"] for m in only["models"]] == [full]  # the partial reply is not scored
    assert only["analyses"]["complete_only"] is True
    assert {row["model"]: row["n_complete"] for row in only["analyses"]["completeness"]} == {full: 1, partial: 0}
    opened = next(r for r in only["analyses"]["strategy"] if r["variable"] == "documents_opened")
    assert opened["model"] == full and opened["n"] == 1 and opened["r"] is None  # one episode: undefined
    assert 1.0 in (opened["mean_solved"], opened["mean_unsolved"])  # it opened the one document it read
    assert "1 finished episode(s) without a complete output" in result.stderr

    terminal = CliRunner().invoke(app, [arg for arg in base if arg != "--json"])
    assert terminal.exit_code == 0, terminal.output
    assert "Complete outputs" in terminal.stdout and "0 / 1" in terminal.stdout
