"""Issue 29, investigation scoring and the agent's environment: the Turn-2 example is no answer and a copied example
is flagged and scored as no verdict (item 2); a missing verdict is not solved unless `--partial-verdicts` (item 2);
signal recall counts only h*-supporting signal documents (item 3); documents pointing outside the corpus are warned
about and recorded (item 9); awk's system(), pipes and program files are refused (item 11); `show --json` prints
JSON only (item 8). Scripted agents on the sample environment drive exact behaviour."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from tool_requirements import needs_bwrap
from typer.testing import CliRunner

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.investigation_score import register as register_score
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import Episode, HypothesisVerdict, ToolCallRecord, load_episodes
from lexprobe.investigation.agent.harness import HarnessSettings, episode_id, shuffled
from lexprobe.investigation.agent.prompts import load_prompts, package_prompts
from lexprobe.investigation.agent.run import run_investigations
from lexprobe.investigation.agent.tools import Toolbox
from lexprobe.investigation.agent.verdicts import parse_verdicts
from lexprobe.investigation.environment.format import Environment, HypothesisKind, load_environment, save_environment
from lexprobe.investigation.environment.validate import validate_environment
from lexprobe.investigation.report.html import write_investigation_report
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.investigation.scoring.coverage import coverage
from lexprobe.investigation.scoring.metrics import score_verdicts
from lexprobe.investigation.scoring.summary import summarize
from lexprobe.investigation.shell.sandbox import refusal

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
B, R, C, N = "believe", "reject", "dont_know", None
LABELS = ["H1", "H2", "H3", "H4"]
MARKER = "I29-SUMMARY"
# the example of the verdict prompt before issue 29: a valid answer on the case's own labels
OLD_EXAMPLE = ('[{"label": "H1", "verdict": "B", "reason": "one short sentence"}, '
               '{"label": "H2", "verdict": "A", "reason": "one short sentence"}]')  # fmt: skip


@pytest.fixture(scope="module")
def sample_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "merits")


@pytest.fixture(scope="module")
def old_prompts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's --prompts folder holding the verdict template as it was before issue 29 (its example an answer)."""
    folder = tmp_path_factory.mktemp("prompts")
    source = package_prompts().sources["verdict.j2"]
    cut = '"reason" (one short sentence).'
    head = source[: source.index(cut) + len(cut)]
    (folder / "verdict.j2").write_text(head + " For example:\n" + OLD_EXAMPLE + "\n")
    return folder


def script(path: Path, verdict_reply: str) -> str:
    """A scripted agent: no tool call, a summary, then `verdict_reply` to the verdict turn."""
    lines = [{"text": f"{MARKER}: nothing found."}, {"when": MARKER, "text": verdict_reply}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return f"scripted:{path}"


def seed_with_adopted_at(env: Path, model: str, label: str) -> int:
    """A shuffle seed that puts h* at `label` for this model's episode (the issue's run: h* at H2)."""
    environment, _ = load_environment(env)
    key = episode_id(environment.case.case_id, model, 0)
    for seed in range(200):
        order = shuffled(environment.hypotheses, seed, key)
        if order[int(label[1:]) - 1].kind == HypothesisKind.court_adopted:
            return seed
    raise AssertionError("no seed found")


def run_episode(env: Path, model: str, run_dir: Path, **settings: object) -> Episode:
    harness = HarnessSettings(model=model, **settings)
    config = EngineConfig(progress=False, max_retries=0)
    (episode,) = asyncio.run(run_investigations([env], harness, run_dir, ResponseCache(), config))
    assert episode.status == "complete", episode.error
    return episode


# --- item 2: the Turn-2 example ------------------------------------------------------------------------------------


def test_the_verdict_prompt_example_is_not_an_answer() -> None:
    """The package's example reads as no verdict on any label, and keeps every instruction of the paper's prompt."""
    hypotheses = [{"label": label, "text": f"Claim {label}."} for label in LABELS]
    prompt = package_prompts().render("verdict.j2", summary="S", hypotheses=hypotheses)
    example = prompt.strip().splitlines()[-1]
    parsed = parse_verdicts(example, LABELS)
    assert all(verdict is None for verdict in parsed.verdicts.values()), parsed.verdicts
    instructions = ("A. Believe", "B. Don't believe", "C. Don't know", "ONLY a JSON array", '"label"', '"verdict"',
                    '"reason"', "in the order shown", "cannot look at the documents again")  # fmt: skip
    for instruction in instructions:
        assert instruction in prompt


def test_copying_the_old_example_is_flagged_and_not_solved(sample_env: Path, old_prompts: Path, tmp_path: Path) -> None:
    """The issue's run: a user's template whose example is an answer, h* at H2, the model copies the example. The
    episode is flagged and scores as no verdict (before: case solved 100 %)."""
    model = script(tmp_path / "agent.jsonl", OLD_EXAMPLE)
    seed = seed_with_adopted_at(sample_env, model, "H2")
    episode = run_episode(sample_env, model, tmp_path / "run", seed=seed, prompts=load_prompts(old_prompts))
    assert "For example:" in episode.transcript[-2]["content"]  # the user's template was used
    assert episode.copied_example is True
    summary = summarize([episode], replicates=0, partial_verdicts=True)  # even under the lenient rule
    assert summary.models[0].case_solved == 0.0 and summary.copied_example == 1
    # an episode recorded before the flag existed is judged from its transcript
    old = episode.model_copy(update={"copied_example": False})
    assert summarize([old], replicates=0, partial_verdicts=True).models[0].case_solved == 0.0


def test_copying_the_package_placeholder_is_flagged(sample_env: Path, tmp_path: Path) -> None:
    prompt = package_prompts().render("verdict.j2", summary="S", hypotheses=[{"label": "H1", "text": "x"}])
    placeholder = prompt.splitlines()[-1]
    episode = run_episode(sample_env, script(tmp_path / "agent.jsonl", placeholder), tmp_path / "run")
    assert episode.copied_example and episode.unparsed


REAL = ('[{"label": "H1", "verdict": "B", "reason": "the log shows the cold failures"}, '
        '{"label": "H2", "verdict": "A", "reason": "the email admits the swap"}, '
        '{"label": "H3", "verdict": "B", "reason": "no firmware change"}, '
        '{"label": "H4", "verdict": "C", "reason": "transit unclear"}]')  # fmt: skip
COPY_TABLE = [
    (OLD_EXAMPLE, True),  # verbatim
    ("```json\n" + OLD_EXAMPLE.replace(", ", ",\n  ") + "\n```", True),  # fenced and re-spaced
    (OLD_EXAMPLE.upper().replace('"H', '"H'), True),  # case changed
    (OLD_EXAMPLE[:-1] + ', {"label": "H3", "verdict": "B", "reason": "one short sentence"}]', True),  # extended
    ('[{"label": "H1", "verdict": "B", "reason": "mine"}, {"label": "H2", "verdict": "A", "reason": "mine"}]', True),
    (REAL, False),  # a real answer on every label, two of its verdicts equal to the example's
    ('[{"label": "H1", "verdict": "A", "reason": "x"}, {"label": "H2", "verdict": "B", "reason": "y"}]', False),
    ("", False),
]


@pytest.mark.parametrize(("reply", "expected"), COPY_TABLE)
def test_copies_example_table(reply: str, expected: bool) -> None:
    from lexprobe.investigation.agent.verdict_example import copies_example  # new in issue 29

    prompt = f"Here is the summary: <summary>{MARKER}</summary> ... For example:\n{OLD_EXAMPLE}\n"
    assert copies_example(reply, prompt, MARKER, LABELS) is expected


def test_a_summary_json_is_not_an_example() -> None:
    """JSON in the model's own summary, repeated in its reply, is not the prompt's example."""
    from lexprobe.investigation.agent.verdict_example import copies_example

    summary = '[{"label": "H1", "verdict": "B", "reason": "draft"}]'
    prompt = f"<summary>\n{summary}\n</summary> answer with the shape [<label>, <verdict>]"
    assert copies_example(summary, prompt, summary, LABELS) is False


# --- item 2: complete verdicts by default --------------------------------------------------------------------------


def verdicts(values: list[str | None]) -> list[HypothesisVerdict]:
    kinds = ("court_adopted", "court_rejected", "alternative", "alternative")
    return [HypothesisVerdict(label=f"H{i + 1}", hypothesis_id=f"h{i}", kind=kinds[i], verdict=v)
            for i, v in enumerate(values)]  # fmt: skip


@pytest.mark.parametrize(
    ("values", "complete", "partial"),
    [
        ([B, R, R, R], True, True),
        ([B, C, R, C], True, True),
        ([B, N, R, R], False, True),  # a missing verdict on another hypothesis: solved only with --partial-verdicts
        ([B, R, N, N], False, True),
        ([N, R, R, R], False, False),  # no verdict on h*: never solved
        ([B, B, N, R], False, False),
    ],
)
def test_case_solved_needs_every_verdict_unless_partial(values: list, complete: bool, partial: bool) -> None:
    assert score_verdicts(verdicts(values))["case_solved"] is complete
    assert score_verdicts(verdicts(values), partial_verdicts=True)["case_solved"] is partial


@pytest.fixture
def partial_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    for index, values in enumerate(([B, N, R, R], [B, R, R, R])):
        Episode(episode_id=f"c{index}|m|e0", environment=f"c{index}", env_dir=f"envs/c{index}", model="m", seed=0,
                tool_budget=30, turn_budget=25, status="complete", summary="s",
                verdicts=verdicts(values)).save(run)  # fmt: skip
    return run


@pytest.fixture
def score_app() -> typer.Typer:
    app = typer.Typer(cls=LexprobeGroup)
    register_score(app)

    @app.command("noop")
    def noop() -> None:
        """Nothing (so `score` is a sub-command)."""

    return app


def test_score_says_which_rule_it_used(score_app: typer.Typer, partial_run: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    default = json.loads(runner.invoke(score_app, ["score", str(partial_run), "--json", "--bootstrap", "0"]).stdout)
    assert default["models"][0]["case_solved"] == 0.5  # the episode missing H2's verdict is not solved
    settings = default["settings"]
    assert settings["partial_verdicts"] is False and "complete verdicts" in settings["verdict_rule"]
    assert default["incomplete_verdicts"] == 1
    lenient = runner.invoke(score_app, ["score", str(partial_run), "--json", "--bootstrap", "0", "--partial-verdicts"])
    data = json.loads(lenient.stdout)
    assert data["models"][0]["case_solved"] == 1.0 and data["settings"]["partial_verdicts"] is True
    terminal = runner.invoke(score_app, ["score", str(partial_run), "--bootstrap", "0"])
    assert terminal.exit_code == 0 and "case-solved rule: complete verdicts" in " ".join(terminal.stdout.split())
    html = tmp_path / "r.html"
    assert runner.invoke(score_app, ["score", str(partial_run), "--bootstrap", "0", "--html", str(html)]).exit_code == 0
    assert "Case-solved rule: complete verdicts" in html.read_text()


def test_html_report_counts_copied_examples(sample_env: Path, old_prompts: Path, tmp_path: Path) -> None:
    model = script(tmp_path / "agent.jsonl", OLD_EXAMPLE)
    episode = run_episode(sample_env, model, tmp_path / "run", prompts=load_prompts(old_prompts))
    summary = summarize([episode], replicates=0)
    write_investigation_report(tmp_path / "r.html", summary)
    assert "1 episode(s) copied the verdict prompt" in (tmp_path / "r.html").read_text()


# --- item 3: signal recall counts h*-supporting signal documents only -----------------------------------------------


def test_signal_recall_leaves_out_a_signal_document_of_the_rejected_hypothesis(tmp_path: Path) -> None:
    env_dir = build_sample_environment(tmp_path / "harlow", "+noise")
    environment, questions = load_environment(env_dir)
    rejected = environment.hypotheses_of(HypothesisKind.court_rejected)[0]
    adopted = environment.hypotheses_of(HypothesisKind.court_adopted)[0]
    only_rejected = next(f for f in rejected.supporting_facts if f not in adopted.supporting_facts)
    signal = [doc for doc in environment.documents if doc.role == "signal"]
    odd = signal[0]
    odd.facts = [only_rejected]  # carries only a fact of the court-rejected hypothesis
    save_environment(env_dir, environment, questions)
    errors = [p for p in validate_environment(env_dir) if p.severity == "error"]
    assert errors == []  # the validator accepts it
    environment = Environment.model_validate(json.loads((env_dir / "environment.json").read_text()))
    opened = [doc.path for doc in environment.documents if doc.role == "merits" or doc in signal[1:]]
    episode = Episode(episode_id="e", environment="x", env_dir=str(env_dir), model="m", seed=0, tool_budget=30,
                      turn_budget=25, tool_calls=[ToolCallRecord(step=1, name="read", opened=opened)])  # fmt: skip
    result = coverage(episode, environment)
    assert result.signal_recall == 1.0  # every merits and h*-supporting signal document opened
    assert result.recall_by_role["signal"] == pytest.approx((len(signal) - 1) / len(signal))  # by role: all of them


# --- item 9: documents pointing outside the corpus ------------------------------------------------------------------


def test_documents_outside_the_corpus_are_warned_about_and_recorded(sample_env: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "env"
    shutil.copytree(sample_env, env_dir)
    raw = json.loads((env_dir / "environment.json").read_text())
    template = raw["documents"][0]
    raw["documents"] += [template | {"doc_id": "escape", "path": "../../etc/passwd.txt", "format": "txt"},
                         template | {"doc_id": "absolute", "path": "/etc/passwd.txt", "format": "txt"}]  # fmt: skip
    (env_dir / "environment.json").write_text(json.dumps(raw))
    view = CorpusView.open(env_dir)
    assert any("escape" in w and "../../etc/passwd.txt" in w for w in view.warnings)
    assert any("absolute" in w and "/etc/passwd.txt" in w for w in view.warnings)
    model = script(tmp_path / "agent.jsonl", "[]")
    env = os.environ | {"COLUMNS": "200"}
    done = subprocess.run([LEXPROBE, "investigation", "run", str(env_dir), "--model", model, "--run-dir",
                           str(tmp_path / "run"), "--no-cache"], capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "../../etc/passwd.txt" in done.stderr and "outside" in " ".join(done.stderr.split())
    (episode,) = load_episodes(tmp_path / "run")
    assert any("../../etc/passwd.txt" in w for w in episode.warnings)
    assert any("'/etc/passwd.txt'" in w for w in episode.warnings)


# --- item 11: awk in the agent's shell --------------------------------------------------------------------------------

AWK_TABLE = [
    ("awk 'BEGIN{system(\"id\")}'", "system()"),
    ("awk 'BEGIN { system (\"id\") }' DOC-0001.txt", "system()"),
    ('gawk \'BEGIN{print "id" | "sh"}\'', "pipes"),
    ("awk 'BEGIN{\"id\" | getline x; print x}'", "pipes"),
    ('awk \'BEGIN{print "x" |& "cat"}\'', "pipes"),
    ("awk -F '|' 'BEGIN{print 1 | \"sh\"}' DOC-0001.txt", "pipes"),  # a quoted | is the separator, not a pipe
    ("xargs mawk 'BEGIN{print 1 | \"sh\"}'", "pipes"),
    ("/usr/bin/awk -f prog.awk DOC-0001.txt", "-f"),
    ("mawk -W exec prog DOC-0001.txt", "-W"),
    ("gawk '@load \"fork\"; BEGIN{}'", "@load"),
    ('gawk \'BEGIN{f = "sys" "tem"; @f("id")}\'', "@load"),
    ("awk 'BEGIN{print \"unterminated}'", "does not end"),
    ("a=awk; $a 'BEGIN{print 1 | \"sh\"}'", "pipes"),  # a command word computed at run time
    ("$(echo awk) 'BEGIN{\"id\" | getline x}'", "pipes"),
    ("awk 'BEGIN{pri = 1; nt = 2; x = pri nt / 2; print 1 | \"cat\"; y = 1 / 2}'", "pipes"),  # division, not /re/
    ("awk 'BEGIN{x++ / 2; print 1 | \"cat\"; y = 1 / 2}'", "pipes"),
    ("awk '{print $1}' DOC-0001.txt | sort | uniq -c", None),
    ("awk '$0 ~ /a|b/ && !/c|d/ {print /e|f/ ? 1 : 0}' DOC-0001.txt", None),
    ("x=awk; $x -F'|' '{print $1}' DOC-0001.txt | wc -l", None),
    ("awk -F'|' '{print $2}' DOC-0001.txt", None),
    ("awk -F '|' '{print $2}' DOC-0001.txt", None),
    ("awk '/capacitor|cold/ {print}' DOC-0001.txt", None),
    ("awk '$1 == \"a|b\" || NR < 3 {print}' DOC-0001.txt", None),
    ("awk '{n = split($0, a, \"|\"); print n}' DOC-0001.txt", None),
    ("awk -v OFS=, 'NR==1, NR==5 {print $1, length($0) / 2}' DOC-0001.txt", None),
    ("grep -l awk DOC-0001.txt", None),
]


@pytest.mark.parametrize(("command", "refused_for"), AWK_TABLE)
def test_awk_refusals(command: str, refused_for: str | None) -> None:
    reason = refusal(command)
    if refused_for is None:
        assert reason is None, reason
    else:
        assert reason is not None and reason.startswith("refused:") and refused_for in reason, reason


@needs_bwrap
def test_awk_system_never_runs_in_the_shell(sample_env: Path) -> None:
    box = Toolbox(CorpusView.open(sample_env))
    try:
        refused = box.call("shell", {"command": "awk 'BEGIN{system(\"id\")}'"})
        assert refused.refused and "uid=" not in refused.output
        allowed = box.call("shell", {"command": "awk 'NR <= 2 {print FILENAME \": \" $0}' DOC-0008.txt"})
        assert not allowed.refused and "DOC-0008.txt: " in allowed.output, allowed.output
    finally:
        box.close()


# --- item 8: `investigation show --json` ----------------------------------------------------------------------------


def test_show_json_prints_json_only(sample_env: Path, tmp_path: Path) -> None:
    from lexprobe.cli import app

    episode = run_episode(sample_env, script(tmp_path / "agent.jsonl", "[]"), tmp_path / "run")
    runner = CliRunner()
    listing = runner.invoke(app, ["investigation", "show", str(tmp_path / "run"), "--json"])
    assert listing.exit_code == 0, listing.output
    lines = [json.loads(line) for line in listing.stdout.splitlines()]  # JSON Lines, one record per episode
    assert [line["episode_id"] for line in lines] == [episode.episode_id] and "transcript" not in lines[0]
    one = runner.invoke(app, ["investigation", "show", str(tmp_path / "run"), episode.episode_id, "--json"])
    assert one.exit_code == 0 and json.loads(one.stdout)["transcript"]  # one object, the whole record


def test_figure_6_counts_a_copied_example_as_unparsed() -> None:
    from lexprobe.investigation.scoring.levels import verdict_transitions

    def at(level: str, copied: bool) -> Episode:
        return Episode(episode_id=f"c|{level}|m|e0", environment="c", env_dir=f"envs/{level}", ablation=level,
                       model="m", seed=0, tool_budget=30, turn_budget=25, status="complete", summary="s",
                       verdicts=verdicts([B, R, R, B]), copied_example=copied)  # fmt: skip

    table = verdict_transitions([at("merits", False), at("+pro_alternative", True)], "merits", "+pro_alternative")
    assert table.n_pairs == 0 and table.n_unparsed == 2  # both alternatives: no verdict at the copied level
