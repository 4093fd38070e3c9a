"""Issue 15, protocol prompts and budgets (InvestigationWorlds, Appendix A and D.3-D.4): every instruction of the
Turn-1, Turn-2, QA and rubric-judge prompts as the model receives it (read back from the run store of real scripted
runs), the budget said only with --tell-budget, a user's --prompts DIR (used, checked before any request, part of
the run settings), and Appendix A's default budgets."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click
import pytest
import typer
from typer.testing import CliRunner

from lexprobe.cli.investigation import investigation_app
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.store import RunConflictError, RunStore
from lexprobe.investigation.agent.harness import HarnessSettings
from lexprobe.investigation.agent.prompts import PROMPT_VARIABLES, case_type, load_prompts
from lexprobe.investigation.agent.run import run_investigations
from lexprobe.investigation.agent.verdicts import parse_verdicts
from lexprobe.investigation.environment.format import load_environment
from lexprobe.investigation.qa.runner import run_qa
from lexprobe.investigation.sample.build import build_sample_environment

VERDICT_KEY = "give your view on each hypothesis"
SUMMARY = "Summary: the second lot used an unapproved capacitor (DOC-0001.pdf)."
TOOL_BUDGET, TURN_BUDGET = 17, 23  # numbers no prompt holds by chance


@pytest.fixture(scope="module")
def sample_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "merits")


def script(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return f"scripted:{path}"


def agent(folder: Path) -> str:
    return script(folder / "agent.jsonl", [
        {"tool_calls": [{"name": "read", "arguments": {"path": "DOC-0001.pdf"}}]},
        {"text": SUMMARY},
        {"when": VERDICT_KEY, "text": '[{"label": "H1", "verdict": "A", "reason": "x"}]'},
    ])  # fmt: skip


def requests(run_dir: Path) -> dict:
    store = RunStore.open_read_only(run_dir)
    try:
        return {request.request_id: request for request in store.requests()}
    finally:
        store.close()


def one(found: dict, suffix: str):
    (request,) = [r for key, r in found.items() if key.endswith(suffix)]
    return request


def investigate(env: Path, folder: Path, **settings) -> dict:
    """Run one scripted episode; return the model requests it made (by id)."""
    harness = HarnessSettings(model=agent(folder), tool_budget=TOOL_BUDGET, turn_budget=TURN_BUDGET, **settings)
    config = EngineConfig(progress=False, max_retries=0)
    (episode,) = asyncio.run(run_investigations([env], harness, folder / "run", ResponseCache(), config))
    assert episode.status == "complete", episode.error
    return requests(folder / "run")


def answer_questions(env: Path, folder: Path, **settings) -> dict:
    """Run scripted factual QA over the sample's questions; return the model requests it made (by id)."""
    model = script(folder / "qa-agent.jsonl", [{"text": "I read it.\nANSWER: 229 units failed."}])
    judge = script(folder / "judge.jsonl", [{"text": "[true, true]"}])
    harness = HarnessSettings(model=model, tool_budget=TOOL_BUDGET, turn_budget=TURN_BUDGET, **settings)
    config = EngineConfig(progress=False, max_retries=0)
    asyncio.run(run_qa([env], harness, judge, folder / "run", ResponseCache(), config))
    return requests(folder / "run")


@pytest.fixture(scope="module")
def episode_requests(sample_env: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return investigate(sample_env, tmp_path_factory.mktemp("inv"))


@pytest.fixture(scope="module")
def qa_requests(sample_env: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return answer_questions(sample_env, tmp_path_factory.mktemp("qa"))


# (instruction of Appendix D.4 Turn 1, a phrase of lexprobe's prompt that carries it)
TURN_ONE = [
    ("the case type (the environment's category)", "case type: contract"),
    ("where the documents are, as the tools see them", "the documents are in `./`, the corpus folder"),
    ("which tools work there", "your tools (read, glob, grep"),
    ("no outside knowledge: do not look online", "do not look online"),
    ("rely only on these documents", "rely only on the documents in `./`"),
    ("investigate what happened and other possible scenarios", "which other scenarios the evidence could also"),
    ("summary part 1: most likely account, with citations", "1. the most likely account of what happened, with citat"),
    ("summary part 2: alternative scenarios, with citations", "2. the alternative scenarios the evidence could also"),
    ("summary part 3: evidence inconsistent with part 1", "3. the evidence that seems inconsistent with the most"),
    ("take as long as needed", "take as long as you need"),
    ("follow-up questions come without the documents", "you will not be able to read the documents again"),
    ("the summary must be self-contained", "make the summary self-contained"),
]


@pytest.mark.parametrize(("instruction", "phrase"), TURN_ONE, ids=[row[0] for row in TURN_ONE])
def test_turn_one_prompt_carries_each_instruction(episode_requests: dict, instruction: str, phrase: str) -> None:
    prompt = one(episode_requests, "|t1|1").messages[0].content
    assert phrase in prompt.lower(), instruction


# (instruction of Appendix D.4 Turn 2, a phrase of lexprobe's prompt that carries it)
TURN_TWO = [
    ("the model's own Turn-1 summary", SUMMARY.lower()),
    ("rely only on the investigation", "relying only on that investigation"),
    ("A: believe", "a. believe"),
    ("B: don't believe", "b. don't believe"),
    ("C: don't know", "c. don't know"),
    ("exactly one choice per hypothesis", "choose exactly one option"),
    ("ONLY a JSON array", "only a json array and nothing else"),
    ("one object per hypothesis, in the order shown", "one object per hypothesis, in the order shown above"),
    ("the keys verdicts.py reads: label", '"label"'),
    ("the keys verdicts.py reads: verdict", '"verdict" (a, b or c)'),
    ("the keys verdicts.py reads: reason", '"reason"'),
]


@pytest.mark.parametrize(("instruction", "phrase"), TURN_TWO, ids=[row[0] for row in TURN_TWO])
def test_turn_two_prompt_carries_each_instruction(episode_requests: dict, instruction: str, phrase: str) -> None:
    prompt = one(episode_requests, "|t2").messages[0].content
    assert phrase in prompt.lower(), instruction


def test_turn_two_lists_every_hypothesis_in_order_and_its_example_parses(sample_env: Path,
                                                                          episode_requests: dict) -> None:  # fmt: skip
    prompt = one(episode_requests, "|t2").messages[0].content
    environment, _ = load_environment(sample_env)
    labels = [f"H{index}" for index in range(1, len(environment.hypotheses) + 1)]
    positions = [prompt.index(f"\n{label}: ") for label in labels]
    assert positions == sorted(positions)
    example = prompt.strip().splitlines()[-1]  # the format the prompt shows is one verdicts.py reads in full
    assert all(v is None for v in parse_verdicts(example, ["H1", "H2"]).verdicts.values())  # issue 29: no answer
    filled = example.replace("<the label>", "H1").replace("<the next label>", "H2")
    filled = filled.replace("<A, B or C>", "B", 1).replace("<A, B or C>", "A", 1)  # the placeholders filled in
    parsed = parse_verdicts(filled, ["H1", "H2"])
    assert parsed.verdicts == {"H1": "reject", "H2": "believe"} and set(parsed.reasons) == {"H1", "H2"}


# (instruction of Appendix D.3, a phrase of lexprobe's QA prompt that carries it)
QA = [
    ("the case type", "case type: contract"),
    ("where the documents are", "the documents are in `./`, the corpus folder"),
    ("conclusions only from these documents", "draw conclusions only from these documents"),
    ("no outside information: do not look online", "do not look online"),
    ("rely only on what is given", "rely only on what is given to you"),
    ("end with the ANSWER: line", "you must end your reply with your final answer"),
    ("the exact ANSWER: form", "\nanswer: <your complete answer to the question>"),
]


@pytest.mark.parametrize(("instruction", "phrase"), QA, ids=[row[0] for row in QA])
def test_qa_prompt_carries_each_instruction(qa_requests: dict, instruction: str, phrase: str) -> None:
    for key, request in qa_requests.items():
        if key.endswith("|t1|1"):
            assert phrase in request.messages[0].content.lower(), (instruction, key)


def test_qa_prompt_asks_the_question_and_the_judge_gets_one_boolean_per_item(sample_env: Path,
                                                                             qa_requests: dict) -> None:  # fmt: skip
    _, questions = load_environment(sample_env)
    assert questions.questions
    for question in questions.questions:
        asked = [r for key, r in qa_requests.items() if f"|{question.question_id}|" in key and key.endswith("|t1|1")]
        assert f"Question: {question.question}" in asked[0].messages[0].content
        judged = [r for key, r in qa_requests.items() if f"|{question.question_id}|" in key and key.endswith("|judge")]
        text = judged[0].messages[0].content
        assert f"Question: {question.question}" in text and f"Reference answer: {question.answer}" in text
        assert "Answer to grade: 229 units failed." in text  # what followed ANSWER: (the line qa.py keys on)
        assert f"ONLY a JSON array of {len(question.rubric)} booleans, one per rubric item" in text
        assert "true when the item is satisfied, false when it is not" in text
        assert all(f"{index}. {item.text}" in text for index, item in enumerate(question.rubric, start=1))


def test_the_budget_is_said_only_with_tell_budget(sample_env: Path, episode_requests: dict, qa_requests: dict,
                                                  tmp_path: Path) -> None:  # fmt: skip
    silent = [one(episode_requests, "|t1|1").messages[0].content]
    silent += [r.messages[0].content for key, r in qa_requests.items() if key.endswith("|t1|1")]
    for prompt in silent:
        assert str(TOOL_BUDGET) not in prompt and str(TURN_BUDGET) not in prompt and "at most" not in prompt
    (tmp_path / "inv").mkdir()
    (tmp_path / "qa").mkdir()
    told = investigate(sample_env, tmp_path / "inv", tell_budget=True)
    assert f"at most {TOOL_BUDGET} tool calls and {TURN_BUDGET} replies" in one(told, "|t1|1").messages[0].content
    told = answer_questions(sample_env, tmp_path / "qa", tell_budget=True)
    prompts = [r.messages[0].content for key, r in told.items() if key.endswith("|t1|1")]
    assert prompts and all(f"at most {TOOL_BUDGET} tool calls and {TURN_BUDGET} replies" in p for p in prompts)


def test_denied_calls_are_still_told_and_qa_is_asked_for_its_answer_line(sample_env: Path, tmp_path: Path) -> None:
    grep = {"name": "grep", "arguments": {"pattern": "units"}}
    model = script(tmp_path / "agent.jsonl", [{"tool_calls": [grep, grep]}, {"text": "ANSWER: 229."}])
    judge = script(tmp_path / "judge.jsonl", [{"text": "[true, true]"}])
    settings = HarnessSettings(model=model, tool_budget=1)
    asyncio.run(run_qa([sample_env], settings, judge, tmp_path / "run", ResponseCache(),
                       EngineConfig(progress=False, max_retries=0)))  # fmt: skip
    step2 = next(r for key, r in requests(tmp_path / "run").items() if key.endswith("|t1|2"))
    assert "denied: the budget of 1 tool calls is spent" in str(step2.messages)
    notice = step2.messages[-1].content
    assert notice.startswith("You have used all 1 tool calls. No more tools are available.")
    assert notice.endswith("\nANSWER: <your complete answer to the question>") and step2.tools == ()


@pytest.mark.parametrize(("category", "expected"), [("contract", "contract"), ("  employment\n law ", "employment law"),
                                                    ("", "civil"), (None, "civil")])  # fmt: skip
def test_case_type_is_the_category_or_civil(category: str | None, expected: str) -> None:
    assert case_type(category) == expected


def cli(*args: object) -> click.testing.Result:
    return CliRunner().invoke(investigation_app, [str(arg) for arg in args])


def test_a_users_prompts_dir_is_what_the_model_receives(sample_env: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "investigate.j2").write_text("MY OWN WORDING for a {{ case_type }} matter in {{ exhibits_path }}.\n")
    result = cli("run", sample_env, "--model", agent(tmp_path), "--run-dir", tmp_path / "run", "--prompts", prompts)
    assert result.exit_code == 0, result.output
    sent = requests(tmp_path / "run")
    assert one(sent, "|t1|1").messages[0].content == "MY OWN WORDING for a contract matter in ./."
    assert VERDICT_KEY in one(sent, "|t2").messages[0].content  # a template the folder lacks is lexprobe's
    # factual QA with templates written against the variable names of Appendix D.3
    (prompts / "qa.j2").write_text("Documents: {{ exhibits_path }}. Q: {{ question }} End with ANSWER:.")
    (prompts / "rubric_judge.j2").write_text("GRADE {{ response }}:{% for i in rubric_items %} [{{ i }}]{% endfor %}")
    model = script(tmp_path / "qa.jsonl", [{"text": "ANSWER: 229 units."}])
    judge = script(tmp_path / "judge.jsonl", [{"text": "[true, true]"}])
    result = cli("qa", sample_env, "--model", model, "--judge", judge, "--run-dir", tmp_path / "qa", "--prompts",
                 prompts)  # fmt: skip
    assert result.exit_code == 0, result.output
    sent = requests(tmp_path / "qa")
    asked = [r.messages[0].content for key, r in sent.items() if key.endswith("|t1|1")]
    graded = [r.messages[0].content for key, r in sent.items() if key.endswith("|judge")]
    assert asked and all(text.startswith("Documents: ./. Q: ") for text in asked)
    assert graded and all(text.startswith("GRADE 229 units.: [") for text in graded)


@pytest.mark.parametrize(
    ("name", "source", "expected"),
    [
        ("verdict.j2", "{{ summary }} {{ hypothesis_list }}", "verdict.j2 uses an undefined variable 'hypothesis_lis"),
        ("investigate.j2", "{{ case_type }} {% if tell_budget %}{{ tool_calls }}{% endif %}", "'tool_calls'"),
        ("verdict.j2", "{% for h in hypotheses %}{{ h.claim }}{% endfor %}", "verdict.j2: 'dict object' has no attr"),
        ("qa.j2", "{{ question }", "qa.j2: syntax error on line 1"),
        ("investigation.j2", "{{ case_type }}", "investigation.j2 is not a prompt template"),
    ],
)
def test_a_bad_template_is_one_line_exit_2_before_any_request(sample_env: Path, tmp_path: Path, name: str,
                                                              source: str, expected: str) -> None:  # fmt: skip
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / name).write_text(source)
    run_dir = tmp_path / "run"
    for command in ("run", "qa"):
        result = cli(command, sample_env, "--model", agent(tmp_path), "--run-dir", run_dir, "--prompts", prompts)
        assert result.exit_code == 2 and expected in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not run_dir.exists()  # refused before the run directory (or any request)


def test_a_changed_prompt_set_is_refused_in_the_same_run_directory(sample_env: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "verdict.j2").write_text("Please give your view on each hypothesis:\n{{ summary }} {{ hypotheses }}")
    model, run_dir = agent(tmp_path), tmp_path / "run"
    args = ("run", sample_env, "--model", model, "--run-dir", run_dir)
    first = cli(*args, "--prompts", prompts)
    assert first.exit_code == 0, first.output
    assert cli(*args, "--prompts", prompts).exit_code == 0  # the same prompt set resumes
    before = load_prompts(prompts).digest
    (prompts / "verdict.j2").write_text("Now give your view on each hypothesis:\n{{ summary }} {{ hypotheses }}")
    changed = cli(*args, "--prompts", prompts)
    after = load_prompts(prompts).digest
    assert changed.exit_code == 2 and f'prompts: "{before}" -> "{after}"' in changed.output, changed.output
    assert "prompts:" in cli(*args).output  # lexprobe's own prompts are another prompt set too
    told = cli(*args, "--prompts", prompts, "--tell-budget")
    assert told.exit_code == 2 and "tell_budget: false -> true" in told.output
    # the library refuses the same way
    settings = HarnessSettings(model=model, prompts=load_prompts(None))
    with pytest.raises(RunConflictError, match="prompts: "):
        asyncio.run(run_investigations([sample_env], settings, run_dir, ResponseCache(), EngineConfig(progress=False)))


def option_defaults(command: str) -> dict[str, object]:
    group = typer.main.get_command(investigation_app)
    return {param.name: param.default for param in group.commands[command].params}


def test_budgets_default_to_appendix_a(sample_env: Path, tmp_path: Path) -> None:
    settings = HarnessSettings(model="local")
    assert (settings.tool_budget, settings.turn_budget) == (30, 25)  # the investigation's Turn 1
    run_options, qa_options = option_defaults("run"), option_defaults("qa")
    assert (run_options["tool_budget"], run_options["turn_budget"]) == (30, 25)
    assert (qa_options["tool_budget"], qa_options["turn_budget"]) == (30, 15)  # the paper's Claude QA harness
    assert run_options["tell_budget"] is False and qa_options["tell_budget"] is False
    assert set(settings.to_meta()) >= {"tool_budget", "turn_budget", "tell_budget", "prompts"}
    result = cli("run", sample_env, "--model", agent(tmp_path), "--run-dir", tmp_path / "run", "--json")
    assert result.exit_code == 0, result.output
    episode = json.loads(next(line for line in result.output.splitlines() if line.startswith("{")))
    assert (episode["tool_budget"], episode["turn_budget"]) == (30, 25)


def test_every_template_and_variable_is_documented() -> None:
    docs = (Path(__file__).parents[1] / "docs" / "investigation.md").read_text(encoding="utf-8")
    for name, variables in PROMPT_VARIABLES.items():
        row = next((line for line in docs.splitlines() if line.startswith(f"| `{name}`")), "")
        assert row and all(f"`{variable}`" in row for variable in variables), name
