"""`lexprobe investigation run` and `show`: agents through environments, and readable transcripts."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lexprobe.cli.options import (
    ENGINE_DEFAULTS,
    EngineOptions,
    ModelOpt,
    concurrency_option,
    engine_options,
    json_flag,
    option_group,
    run_dir_option,
)
from lexprobe.cli.output import err, new_table, out
from lexprobe.errors import BadInputError, LexprobeError
from lexprobe.models.registry import check_model
from lexprobe.terminal import safe_json, safe_text

if TYPE_CHECKING:  # the library is imported inside the commands: `--help` needs none of it
    from lexprobe.investigation.agent.episode import Episode, ToolCallRecord
    from lexprobe.investigation.agent.harness import HarnessSettings

TELL_BUDGET_HELP = "Say the tool and turn budgets in the prompt (the paper's prompts do not)."
PROMPTS_HELP = ("A folder of your own prompt templates (investigate.j2, verdict.j2, qa.j2, budget_spent.j2, "
                "text_protocol.j2, rubric_judge.j2; same variables, see docs/investigation.md); a file it lacks "
                "is lexprobe's.")  # fmt: skip
QA_TURNS_HELP = "Assistant replies allowed per question (Appendix A: 15 with Claude's SDK, 50 with OpenAI's)."

TEMPERATURE_HELP = ("Sampling temperature of every model call (default: none sent, the provider's default; the "
                    "embedded model uses 0; OpenAI reasoning models never get one).")  # fmt: skip
MAX_TOKENS_HELP = ("Output token cap per model call (default: none sent; Anthropic, which requires one, gets a "
                   "generous per-family default; the embedded model stops at its context window).")  # fmt: skip


@dataclass(frozen=True)
class AgentOptions:
    """How `run` and `qa` set up the agent: budget in the prompt, prompt templates, shell, sampling."""

    tell_budget: bool = False
    prompts: Path | None = None
    no_shell: bool = False
    temperature: float | None = None
    max_tokens: int | None = None

    def settings(self, model: str, **budgets: Any) -> HarnessSettings:
        """Return the harness settings for `model` with `budgets` (tool and turn budgets, epochs, ...); a bad prompt
        template is a `LexprobeError` naming it, before any request."""
        from lexprobe.investigation.agent.harness import HarnessSettings
        from lexprobe.investigation.agent.prompts import load_prompts

        return HarnessSettings(model=model, shell=not self.no_shell, max_tokens=self.max_tokens,
                               temperature=self.temperature, tell_budget=self.tell_budget,
                               prompts=load_prompts(self.prompts), **budgets)  # fmt: skip


#: The options `run` and `qa` share (`AgentOptions`), in the order `--help` lists them.
AGENT_OPTION_TYPES = {
    "tell_budget": Annotated[bool, typer.Option("--tell-budget", help=TELL_BUDGET_HELP)],
    "prompts": Annotated[Path | None, typer.Option("--prompts", help=PROMPTS_HELP)],
    "no_shell": Annotated[bool, typer.Option("--no-shell", help="Offer read, glob and grep only.")],
    "temperature": Annotated[float | None, typer.Option(min=0.0, max=2.0, help=TEMPERATURE_HELP)],
    "max_tokens": Annotated[int | None, typer.Option(min=16, help=MAX_TOKENS_HELP)],
}
AGENT_DEFAULTS = AgentOptions()


def agent_options(command: Callable) -> Callable:
    """Give a command the agent options (`AGENT_OPTION_TYPES`) in place of its `agent: AgentOptions` parameter."""
    return option_group(command, "agent", AgentOptions, AGENT_OPTION_TYPES)


def register(app: typer.Typer) -> None:
    """Add `run` and `show` to the `investigation` command group."""
    app.command("run")(run)
    app.command("show")(show)
    app.command("qa")(qa)


def _episode_line(episode: Episode) -> str:
    verdicts = " ".join(f"{v.label}={v.verdict or '?'}" for v in episode.verdicts)
    calls = sum(not call.denied for call in episode.tool_calls)
    return safe_text(f"{episode.episode_id}: {episode.status}, {episode.steps} steps, {calls} tool calls, "
                     f"verdicts {verdicts or '-'}{' (unparsed)' if episode.unparsed else ''}"
                     f"{' (copied the prompt example: scored as no verdict)' if episode.copied_example else ''}"
                     f"{' (summary cut by the token cap)' if episode.summary_truncated else ''}")  # fmt: skip


@engine_options(concurrency=False)  # --concurrency here counts episodes, not requests
@agent_options
def run(
    env_dirs: Annotated[list[Path], typer.Argument(help="Environment directories (see `investigation sample`).")],
    model: ModelOpt = "local",
    run_dir: run_dir_option("Run directory (resumable: rerun the same command).") = Path("lexprobe-runs/investigation"),
    tool_budget: Annotated[int, typer.Option(min=0, help="Tool calls allowed in Turn 1 (Appendix A: 30).")] = 30,
    turn_budget: Annotated[int, typer.Option(min=1, help="Assistant replies allowed in Turn 1 (Appendix A: 25).")] = 25,
    agent: AgentOptions = AGENT_DEFAULTS,
    epochs: Annotated[int, typer.Option(min=1, help="Episodes per environment.")] = 1,
    concurrency: concurrency_option("Episodes in flight at once.") = 2,
    seed: Annotated[int, typer.Option(help="Seed of the per-episode hypothesis shuffle.")] = 0,
    protocol: Annotated[str, typer.Option(help="Tool protocol: native (the backend's tool calling) or text.")] = (
        "native"
    ),
    engine: EngineOptions = ENGINE_DEFAULTS,
    as_json: json_flag("Print one JSON line per episode.") = False,
) -> None:
    """Run the two-turn investigation protocol: Turn 1 investigates with tools and writes a summary; Turn 2 sees only
    that summary and the shuffled hypotheses and answers A (believe) / B (don't believe) / C (don't know).

    Example: `lexprobe investigation run envs/harlow --model local --tool-budget 10 --run-dir runs/inv-smol`
    """
    from lexprobe.engine.interrupt import stop_on_sigint
    from lexprobe.engine.summary import permanent_failures_error
    from lexprobe.investigation.agent.run import run_investigations

    if protocol not in ("native", "text"):
        raise BadInputError(f"unknown protocol {protocol!r}; valid: native, text")
    check_model(model)
    settings = agent.settings(model, tool_budget=tool_budget, turn_budget=turn_budget, epochs=epochs, seed=seed,
                              protocol=protocol)  # fmt: skip
    config, cache = engine.config(progress=False), engine.cache()

    def report(episode: Episode) -> None:
        err.print(_episode_line(episode), highlight=False, markup=False)

    permanent: dict[str, str] = {}
    # an environment that cannot be loaded, a conflicting run directory: a LexprobeError, before any request
    with stop_on_sigint():  # Ctrl-C: every episode stops at its next step (saved, resumable), exit 130
        import asyncio  # on first use: `lexprobe --help` does not pay for it

        episodes = asyncio.run(run_investigations(env_dirs, settings, run_dir, cache, config,
                                                  concurrency=concurrency, on_episode=report,
                                                  permanent_failures=permanent))  # fmt: skip
    if episodes and not episodes[0].shell_enabled and not agent.no_shell:
        err.print(f"note: {episodes[0].shell_note}", highlight=False)
    for episode in episodes:
        if as_json:
            sys.stdout.write(json.dumps(episode.model_dump(mode="json", exclude={"transcript"})) + "\n")
        else:
            print(_episode_line(episode))
    failure = permanent_failures_error(permanent)  # exit 2: a rerun would fail the same way
    if failure is not None:
        raise failure
    failed = [e for e in episodes if e.status != "complete"]
    if failed:
        raise LexprobeError(
            f"{len(failed)} episode(s) did not finish ({failed[0].error}); rerun to resume", exit_code=1
        )


def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory of `investigation run`.")],
    episode_id: Annotated[str | None, typer.Argument(help="Episode id (default: list the episodes).")] = None,
    as_json: json_flag(
        "Print JSON only: with an episode id its whole record (one object); without one, one line per episode "
        "(JSON Lines: each record without its transcript, as `run --json`)."
    ) = False,
) -> None:
    """Print an episode's transcript: every message, tool call (with the documents it opened and those it only saw
    in search, and their roles), the summary and the verdicts. Without an id, list the run's episodes. With
    --json, stdout holds JSON only (one object, or JSON Lines for the list).

    Example: `lexprobe investigation show runs/inv-smol` lists the episodes; add an episode id for its transcript.
    """
    from lexprobe.investigation.agent.episode import load_episodes

    if not run_dir.is_dir():
        raise BadInputError(f"{run_dir} is not a directory")
    episodes = load_episodes(run_dir)  # a malformed record: BadInputError naming the file
    if not episodes:
        raise BadInputError(f"{run_dir} holds no episodes")
    if episode_id is None:
        for episode in episodes:
            if as_json:
                sys.stdout.write(safe_json(json.dumps(episode.model_dump(mode="json", exclude={"transcript"}))) + "\n")
            else:
                print(safe_text(_episode_line(episode)))
        return
    matches = [e for e in episodes if e.episode_id == episode_id or e.episode_id.startswith(episode_id)]
    if len(matches) != 1:
        known = ", ".join(e.episode_id for e in episodes[:10])
        raise BadInputError(f"{'no' if not matches else 'several'} episode(s) match {episode_id!r}; known: {known}")
    if as_json:
        print(safe_json(matches[0].model_dump_json(indent=1)))
        return
    _print_transcript(matches[0])


SHOWN_SEEN = 8  # seen documents listed per call in `show` (the rest counted)


def _documents_note(record: ToolCallRecord) -> str:
    """ " -> opened: id (role), ... | seen in search: n: id (role), ..." for one call (how coverage counts it; old
    records: a read opened its document, anything else was seen)."""
    named = {path: f"{doc_id or path} ({role or '?'})"
             for path, doc_id, role in zip(record.documents, record.doc_ids, record.roles, strict=False)}  # fmt: skip
    opened, seen = record.opened_and_seen()
    parts = []
    if opened:
        parts.append("opened: " + ", ".join(named.get(path, path) for path in opened))
    if seen:
        more = f", ... {len(seen) - SHOWN_SEEN} more" if len(seen) > SHOWN_SEEN else ""
        listed = ", ".join(named.get(path, path) for path in seen[:SHOWN_SEEN])
        parts.append(f"seen in search: {len(seen)}: {listed}{more}")
    return f" -> {' | '.join(parts)}" if parts else ""


def _print_transcript(episode: Episode) -> None:
    """Print an episode for `show`. Everything in it came from a model, a tool or an environment: it is printed
    through `safe_text` as `Text` (never read as Rich markup or emoji codes), so the transcript shows exactly what
    was said and run, and no control sequence reaches the terminal."""
    from rich.text import Text

    header = (f"{episode.episode_id} ({episode.status}; model {episode.model}; ablation {episode.ablation}; "
              f"shuffle seed {episode.seed})")  # fmt: skip
    out.print(Text(safe_text(header), style="bold"), highlight=False)
    calls = iter(episode.tool_calls)
    for message in episode.transcript:
        out.print(Text("\n" + safe_text(str(message.get("role", "?"))), style="bold cyan"), highlight=False)
        if message.get("content"):
            out.print(Text(safe_text(str(message["content"]))), highlight=False)
        for call in message.get("tool_calls", []):
            record = next(calls, None)
            touched = _documents_note(record) if record and not record.denied else ""
            denied = " [denied: budget spent]" if record and record.denied else ""
            line = f"call {call.get('name')}({json.dumps(call.get('arguments', {}))}){denied}{touched}"
            out.print(Text(safe_text(line), style="yellow"), highlight=False, soft_wrap=True)
    table = new_table("verdicts", ("label", "hypothesis", "kind", "verdict", "reason"))
    for verdict in episode.verdicts:
        cells = (verdict.label, verdict.hypothesis_id, verdict.kind, verdict.verdict or "unparsed", verdict.reason)
        table.add_row(*(Text(safe_text(str(cell or ""))) for cell in cells))
    out.print(table)


@engine_options(concurrency=False, batch=True)  # --concurrency here counts questions, not requests
@agent_options
def qa(
    env_dirs: Annotated[list[Path], typer.Argument(help="Environment directories with questions.json.")],
    model: ModelOpt = "local",
    judge: Annotated[str | None, typer.Option(help="Rubric judge (default: the model under test).")] = None,
    run_dir: run_dir_option("Run directory (resumable).") = Path("lexprobe-runs/qa"),
    tool_budget: Annotated[int, typer.Option(min=0, help="Tool calls allowed per question (Appendix A: 30).")] = 30,
    turn_budget: Annotated[int, typer.Option(min=1, help=QA_TURNS_HELP)] = 15,
    agent: AgentOptions = AGENT_DEFAULTS,
    concurrency: concurrency_option("Questions in flight at once.") = 2,
    engine: EngineOptions = ENGINE_DEFAULTS,
    as_json: json_flag("Print one JSON line per question.") = False,
) -> None:
    """Factual QA: answer each question of the environments with the tools (final answer after ANSWER:), then a
    judge marks each rubric item true/false; an unreadable grade is `unscored`.

    With --batch only the judge's single-turn calls go by batch (one small batch per question, as each question's
    answer is ready); the answering agent's turns are always sent one by one. With --ray each question (its tools,
    the shell's sandbox and the judge's call) runs whole on a Ray worker.

    Example: `lexprobe investigation qa envs/harlow --model openai/gpt-4o-mini --judge openai/gpt-4o`
    """
    from rich.text import Text

    from lexprobe.investigation.qa.runner import check_qa_models, run_questions

    judge_model = check_qa_models(model, judge, batch=engine.batch, ray=engine.ray)
    settings = agent.settings(model, tool_budget=tool_budget, turn_budget=turn_budget)
    config = engine.config(progress=False)
    qa_run = run_questions(env_dirs, settings, judge_model, run_dir, engine.cache(), config, concurrency)
    if as_json:
        for record in qa_run.records:
            sys.stdout.write(json.dumps(record.model_dump(mode="json", exclude={"episode"})) + "\n")
    else:
        title = Text(safe_text(f"factual QA: {model} (judge {judge_model})"))
        table = new_table(title, ("question", "label", "score", "answer", "reason"))
        for record in qa_run.records:
            score = "-" if record.score is None else f"{record.score:.2f}"
            cells = (record.question_id, record.label, score, (record.answer or "")[:80], record.reason)
            table.add_row(*(Text(safe_text(cell)) for cell in cells))  # model text: no markup, no escapes
        out.print(table)
    err.print(qa_run.line(), highlight=False)
    failure = qa_run.failure()
    if failure is not None:
        raise failure
