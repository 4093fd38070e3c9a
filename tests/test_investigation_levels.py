"""Ablation levels in runs (issue 15): the level in episode ids (every level of a case in one run directory, old
level-free ids resumed), the level and corpus-hash checks of `investigation score`, and the level analyses of
Section 4.2: paired level differences (Figure 5) and verdict transitions on the alternatives (Figure 6)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.store import RunStore
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import Episode, HypothesisVerdict, load_episodes
from lexprobe.investigation.agent.harness import EpisodeRunner, HarnessSettings, episode_id
from lexprobe.investigation.agent.run import (
    RUN_KIND,
    open_run,
    open_run_store,
    record_run,
    run_gated,
    run_investigations,
)
from lexprobe.investigation.environment.corpus_digest import corpus_hash
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.investigation.scoring.levels import level_differences, level_transitions, verdict_transitions
from lexprobe.investigation.scoring.metrics import score_episode

CASE = "fictional-harlow-v-brightline"
VERDICT_KEY = "give your view on each hypothesis"
SCRIPT = [
    {"tool_calls": [{"name": "glob", "arguments": {"pattern": "**"}}]},
    {"text": "Summary: the second lot used an unapproved capacitor; the rejection was timely."},
    {"when": VERDICT_KEY, "text": '[{"label": "H1", "verdict": "A"}, {"label": "H2", "verdict": "B"}, '
                                  '{"label": "H3", "verdict": "C"}, {"label": "H4", "verdict": "B"}]'},
]  # fmt: skip


@pytest.fixture(scope="module")
def levels_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """OUT/merits and OUT/pro_alternative: the level folders `investigation build --levels` writes."""
    root = tmp_path_factory.mktemp("envs")
    build_sample_environment(root / "merits", "merits")
    build_sample_environment(root / "pro_alternative", "+pro_alternative")
    return root


def script(tmp_path: Path) -> str:
    path = tmp_path / "agent.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in SCRIPT))
    return f"scripted:{path}"


def run(envs: list[Path], model: str, run_dir: Path) -> list[Episode]:
    settings = HarnessSettings(model=model, tool_budget=5, turn_budget=5)
    config = EngineConfig(progress=False, max_retries=0, use_cache=False)
    return asyncio.run(run_investigations(envs, settings, run_dir, None, config))


def sent(run_dir: Path) -> int:
    store = RunStore.open(run_dir)
    try:
        return sum(row.event == "ok" for row in store.telemetry())
    finally:
        store.close()


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


# --- levels in runs -----------------------------------------------------------------------------------------------


def test_every_level_of_a_case_runs_in_one_run_directory(levels_root: Path, tmp_path: Path) -> None:
    model, run_dir = script(tmp_path), tmp_path / "run"
    merits, pro = run([levels_root / "merits", levels_root / "pro_alternative"], model, run_dir)
    assert merits.status == pro.status == "complete", (merits.error, pro.error)
    assert merits.episode_id == f"{CASE}|merits|{model}|e0"
    assert pro.episode_id == f"{CASE}|+pro_alternative|{model}|e0"
    assert {e.episode_id for e in load_episodes(run_dir)} == {merits.episode_id, pro.episode_id}
    # each episode records the hash of its own level's corpus
    assert merits.corpus_hash == corpus_hash(levels_root / "merits")
    assert pro.corpus_hash == corpus_hash(levels_root / "pro_alternative") != merits.corpus_hash
    # the hypotheses are shown in the same order at every level (the shuffle is seeded by the level-free id)
    assert [v.hypothesis_id for v in merits.verdicts] == [v.hypothesis_id for v in pro.verdicts]
    asked = sent(run_dir)
    assert asked == 6  # 3 calls per episode
    again = run([levels_root / "merits", levels_root / "pro_alternative"], model, run_dir)
    assert [e.verdicts for e in again] == [merits.verdicts, pro.verdicts] and sent(run_dir) == asked


def test_open_run_opens_every_environment_and_releases_the_store_on_failure(levels_root: Path, tmp_path: Path) -> None:
    run_dir, meta = tmp_path / "run", HarnessSettings(model="scripted:x").to_meta()
    with pytest.raises((FileNotFoundError, ValueError)):
        open_run([levels_root / "merits", tmp_path / "missing"], run_dir, RUN_KIND, "scripted:x", "s", meta)
    store, views, hashes = open_run([levels_root / "merits"], run_dir, RUN_KIND, "scripted:x", "s", meta)
    try:  # the failed call closed (unlocked) the store, so it opens again
        assert [v.env_dir for v in views] == [levels_root / "merits"]
        assert hashes == [corpus_hash(views[0].env_dir, views[0].environment)]
    finally:
        store.close()


def legacy_run(env: Path, model: str, run_dir: Path) -> Episode:
    """A run as lexprobe wrote it before levels were in ids: `<case>|<model>|e0`, no corpus hash."""
    settings = HarnessSettings(model=model, tool_budget=5, turn_budget=5)
    config = EngineConfig(progress=False, max_retries=0, use_cache=False)
    old_id = episode_id(CASE, model, 0)
    store = open_run_store(run_dir, RUN_KIND, model, "investigation_settings", settings.to_meta())
    record_run(store, RUN_KIND, model, "investigation_settings", settings.to_meta())
    view = CorpusView.open(env)
    job = lambda engine: EpisodeRunner(engine, view, settings, 0, run_dir, old_id).run()  # noqa: E731
    (episode,) = asyncio.run(run_gated(store, None, config, [job], 1))
    assert episode.episode_id == old_id and episode.corpus_hash == ""
    return episode


def test_an_old_run_directory_resumes_under_its_level_free_ids(levels_root: Path, tmp_path: Path) -> None:
    model, run_dir = script(tmp_path), tmp_path / "run"
    old = legacy_run(levels_root / "merits", model, run_dir)
    asked = sent(run_dir)
    (resumed,) = run([levels_root / "merits"], model, run_dir)
    assert resumed.episode_id == old.episode_id and resumed.verdicts == old.verdicts
    assert sent(run_dir) == asked  # replayed from the store: no model call
    assert resumed.corpus_hash == corpus_hash(levels_root / "merits")  # recorded now
    # another level of the same case gets a new id beside the old episode
    (pro,) = run([levels_root / "pro_alternative"], model, run_dir)
    assert pro.episode_id == f"{CASE}|+pro_alternative|{model}|e0"
    assert len(load_episodes(run_dir)) == 2


# --- level and corpus checks in scoring ---------------------------------------------------------------------------


def test_score_refuses_an_episode_of_another_level(score_app: typer.Typer, tmp_path: Path) -> None:
    env = build_sample_environment(tmp_path / "env", "merits")
    (episode,) = run([env], script(tmp_path), tmp_path / "run")
    assert score(score_app, str(tmp_path / "run"), "--json").exit_code == 0
    build_sample_environment(env, "+pro_alternative", overwrite=True)  # the folder now holds another level
    result = score(score_app, str(tmp_path / "run"), "--json")
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert "\n" not in line and episode.episode_id in line and str(env) in line
    assert "level 'merits'" in line and "level '+pro_alternative'" in line


def test_score_refuses_a_changed_corpus_and_warns_without_a_hash(score_app: typer.Typer, tmp_path: Path) -> None:
    env = build_sample_environment(tmp_path / "env", "merits")
    (episode,) = run([env], script(tmp_path), tmp_path / "run")
    document = sorted((env / "corpus").rglob("*.*"))[0]
    document.write_bytes(document.read_bytes() + b"\n")
    result = score(score_app, str(tmp_path / "run"), "--json")
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert "\n" not in line and episode.episode_id in line and str(env) in line
    assert episode.corpus_hash[:12] in line and corpus_hash(env)[:12] in line
    # an episode recorded before lexprobe recorded a hash is scored, with a warning
    path = next((tmp_path / "run" / "episodes").glob("*.json"))
    path.write_text(episode.model_copy(update={"corpus_hash": ""}).model_dump_json())
    result = score(score_app, str(tmp_path / "run"), "--json")
    assert result.exit_code == 0, result.output
    assert "recorded no corpus hash" in result.stderr
    assert json.loads(result.stdout)["models"][0]["n_episodes"] == 1


def test_corpus_hash_is_deterministic_and_sees_paths_and_bytes(tmp_path: Path) -> None:
    env = build_sample_environment(tmp_path / "env", "merits")
    first = corpus_hash(env)
    assert first == corpus_hash(env) and len(first) == 64
    CorpusView.open(env)  # extracting (extracted/ is written) does not change it
    assert corpus_hash(env) == first
    document = sorted((env / "corpus").rglob("*.*"))[0]
    document.rename(document.with_name("renamed" + document.suffix))
    assert corpus_hash(env) != first
    assert corpus_hash(tmp_path / "no-env") is None


# --- Figure 5 and Figure 6 on hand-made episodes ------------------------------------------------------------------

B, R, C, N = "believe", "reject", "dont_know", None
KINDS = ("court_adopted", "court_rejected", "alternative", "alternative")


def episode(model: str, env: str, level: str, verdicts, epoch: int = 0) -> Episode:
    return Episode(
        episode_id=episode_id(env, model, epoch, level), environment=env, env_dir=f"envs/{env}", ablation=level,
        model=model, epoch=epoch, seed=0, tool_budget=30, turn_budget=25, status="complete",
        verdicts=[HypothesisVerdict(label=f"H{i}", hypothesis_id=f"hyp{i}", kind=kind, verdict=v)
                  for i, (kind, v) in enumerate(zip(KINDS, verdicts, strict=True), start=1)],
    )  # fmt: skip


SOLVED, NOT_SOLVED = [B, R, R, R], [B, R, B, R]


def test_paired_level_differences_by_hand() -> None:
    merits = [SOLVED, SOLVED, SOLVED, NOT_SOLVED]  # 3/4 solved on c0..c3
    pro = [NOT_SOLVED, SOLVED, NOT_SOLVED, NOT_SOLVED]  # 1/4 solved on c0..c3
    episodes = [episode("m", f"c{i}", "merits", v) for i, v in enumerate(merits)]
    episodes += [episode("m", f"c{i}", "+pro_alt", v) for i, v in enumerate(pro)]  # an old alias of the level
    episodes += [episode("m", "c9", "+pro_alternative", SOLVED)]  # only at one level: not compared
    scores = [score_episode(e) for e in episodes]
    (diff,) = level_differences(scores, replicates=500, seed=1)
    assert (diff.kind, diff.model, diff.a, diff.b) == ("ablation", "m", "merits", "+pro_alternative")
    assert diff.n_environments == 4 and diff.n_episodes_a == 4 and diff.n_episodes_b == 4
    cs = diff.case_solved
    assert cs.a == pytest.approx(0.75) and cs.b == pytest.approx(0.25) and cs.difference == pytest.approx(-0.5)
    assert cs.ci is not None and -1.0 <= cs.ci[0] <= -0.5 <= cs.ci[1] <= 0.0
    assert cs.share_above_zero == 0.0  # no case improves, so no resample does
    assert level_differences(scores, replicates=0)[0].case_solved.ci is None


def test_verdict_transitions_by_hand() -> None:
    episodes = [
        episode("m1", "c0", "merits", [B, R, R, R]), episode("m1", "c0", "+pro_alternative", [B, R, B, R]),
        episode("m1", "c1", "merits", [B, R, C, R]), episode("m1", "c1", "+pro_alternative", [B, B, B, C]),
        episode("m1", "c2", "merits", [B, R, R, N]), episode("m1", "c2", "+pro_alternative", [B, R, R, R]),
        episode("m2", "c0", "merits", [B, R, B, R]), episode("m2", "c0", "+pro_alternative", [B, R, B, B]),
        episode("m2", "c5", "merits", [B, R, R, R]),  # no partner at the other level
    ]  # fmt: skip
    m1 = verdict_transitions(episodes, "merits", "+pro_alternative", "m1")
    # alternatives hyp3/hyp4: c0 R->B, R->R; c1 C->B, R->C; c2 R->R, unparsed->R (left out); h-dagger ignored
    assert m1.n_pairs == 5 and m1.n_unparsed == 1 and m1.n_environments == 3
    assert m1.counts == {B: {B: 0, R: 0, C: 0}, R: {B: 1, R: 2, C: 1}, C: {B: 1, R: 0, C: 0}}
    assert (m1.believe_a, m1.believe_b, m1.to_believe) == (0, 2, 2)
    assert m1.share_believe_a == 0.0 and m1.share_believe_b == pytest.approx(0.4)
    tables = level_transitions(episodes)
    assert [(t.model, t.a, t.b) for t in tables] == [
        ("m1", "merits", "+pro_alternative"), ("m2", "merits", "+pro_alternative"),
        ("all models", "merits", "+pro_alternative"),
    ]  # fmt: skip
    m2, pooled = tables[1], tables[2]
    assert m2.counts[B][B] == 1 and m2.counts[R][B] == 1 and (m2.believe_a, m2.believe_b, m2.to_believe) == (1, 2, 1)
    assert (pooled.n_pairs, pooled.n_unparsed, pooled.believe_a, pooled.believe_b) == (7, 1, 1, 4)
    assert pooled.to_believe == 3 and pooled.share_believe_b == pytest.approx(4 / 7, abs=1e-6)


def test_score_reports_both_level_analyses(score_app: typer.Typer, levels_root: Path, tmp_path: Path) -> None:
    model, run_dir = script(tmp_path), tmp_path / "run"
    merits, _ = run([levels_root / "merits", levels_root / "pro_alternative"], model, run_dir)
    page = tmp_path / "scores.html"
    result = score(score_app, str(run_dir), "--json", "--html", str(page))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (ablation,) = [c for c in data["comparisons"] if c["kind"] == "ablation"]
    assert (ablation["model"], ablation["a"], ablation["b"], ablation["n_environments"]) == (
        model, "merits", "+pro_alternative", 1)  # fmt: skip
    assert ablation["case_solved"]["difference"] == 0.0  # the same scripted verdicts at both levels
    (table,) = data["level_transitions"]  # one model: no pooled table
    alternatives = {v.hypothesis_id: v.verdict for v in merits.verdicts if v.kind == "alternative"}
    assert table["n_pairs"] == len(alternatives) == 2 and table["n_unparsed"] == 0
    for verdict in ("believe", "reject", "dont_know"):
        expected = sum(v == verdict for v in alternatives.values())
        assert table["counts"][verdict][verdict] == expected
    terminal = score(score_app, str(run_dir))
    assert terminal.exit_code == 0 and "Figure 6" in terminal.stdout and "Figure 5" in terminal.stdout
    html = page.read_text()
    assert "Verdicts on the alternatives between levels" in html and "cf. Figure 5" in html


def test_factual_qa_of_every_level_shares_one_run_directory(levels_root: Path, tmp_path: Path) -> None:
    """QA ids carry the level too (`<case>|<level>|<question>|<model>`), and each QA episode records its corpus hash,
    so the questions of two levels of a case are answered side by side in one run directory."""
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.investigation.qa.runner import load_qa_records, run_qa

    agent = tmp_path / "agent.jsonl"
    agent.write_text(json.dumps({"text": "From the documents.\nANSWER: 229 of 600 units failed."}) + "\n")
    judge = tmp_path / "judge.jsonl"
    judge.write_text(json.dumps({"text": "[true, false]"}) + "\n")
    settings = HarnessSettings(model=f"scripted:{agent}", tool_budget=2, turn_budget=2)
    config = EngineConfig(progress=False, max_retries=0, use_cache=False)
    envs = [levels_root / "merits", levels_root / "pro_alternative"]
    records = asyncio.run(run_qa(envs, settings, f"scripted:{judge}", tmp_path / "run", ResponseCache(), config))
    ids = [r.qa_id for r in records]
    assert len(ids) == len(set(ids)) and {i.split("|")[1] for i in ids} == {"merits", "+pro_alternative"}
    hashes = {r.episode.ablation: r.episode.corpus_hash for r in records}
    assert hashes == {
        "merits": corpus_hash(levels_root / "merits"),
        "+pro_alternative": corpus_hash(levels_root / "pro_alternative"),
    }
    assert len(load_qa_records(tmp_path / "run")) == len(records)
