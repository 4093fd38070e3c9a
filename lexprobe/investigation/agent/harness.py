"""The investigating agent's loop (InvestigationWorlds, Section 3.1 and Appendix D.4) and the two-turn protocol.

`Agent` is the tool-using turn every task shares, in the shape of mini-swe-agent's `DefaultAgent`: ask the model,
record its reply, run the calls it made, tell it the results, until it replies without a call. Two objects hold what
varies: the tool protocol (`tool_protocol`: native tool calling, or `TOOL: {"name": ..., "arguments": {...}}` lines
for models served without tool calling) and the `Budget` of tool calls and
assistant replies, which raises `LimitsExceeded` once spent; the model is then told so (`budget_spent.j2`), further
calls are denied (never run) and its next reply, with no tools offered, ends the turn. A task composes an `Agent`:
`EpisodeRunner` (Turn 1, then Turn 2) here, `qa.runner.QARunner` (the answer, then the rubric judge).

Turn 2: a new conversation holding only the model's own summary and the hypotheses, shuffled per episode with a
recorded seed and labelled H1..Hn; no tools; verdicts A/B/C as a JSON array, parsed leniently, anything
unreadable recorded as unparsed and never turned into a verdict; a reply that copies the prompt's example is flagged
`copied_example` (`verdict_example.py`).

Every model call goes through the engine (cache, retries, telemetry in RUN_DIR/run.sqlite) with a deterministic id
(`<episode>|t1|<step>`, `<episode>|t2`), and the episode record is saved after every step. Rerunning the same
command replays the stored replies and recomputes the (deterministic) tool outputs, so a killed run resumes at the
last completed step at no model cost. Tools run in the `Toolbox` (the shell in its sandbox).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.engine.executor import Engine
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import EPISODES_DIR, Episode, HypothesisVerdict, ToolCallRecord
from lexprobe.investigation.agent.prompts import CORPUS_PATH, PromptSet, case_type, package_prompts
from lexprobe.investigation.agent.tools import Toolbox, tool_specs
from lexprobe.investigation.agent.verdict_example import NO_SUMMARY, copies_example
from lexprobe.investigation.agent.verdicts import parse_verdicts
from lexprobe.investigation.environment.format import Hypothesis
from lexprobe.models.types import Message, Request, Response, ToolCall, ToolSpec

_TEXT_CALL = re.compile(r"^\s*TOOL:\s*(.+?)\s*$", re.MULTILINE)

#: Budgets of Appendix A: the investigation's Turn 1 (both providers), and factual QA (the paper's Claude Agent SDK
#: setting: 15 turns, 30 tool calls; its OpenAI Agents SDK setting is 50 turns, 30 tool calls).
INVESTIGATION_TOOL_BUDGET, INVESTIGATION_TURN_BUDGET = 30, 25
QA_TOOL_BUDGET, QA_TURN_BUDGET = 30, 15


@dataclass(frozen=True)
class HarnessSettings:
    """How episodes run."""

    model: str
    tool_budget: int = INVESTIGATION_TOOL_BUDGET
    turn_budget: int = INVESTIGATION_TURN_BUDGET
    epochs: int = 1
    seed: int = 0
    protocol: str = "native"  # native | text
    shell: bool = True
    tell_budget: bool = False  # say the budgets in the Turn-1 / QA prompt (Appendix D's prompts do not)
    prompts: PromptSet = field(default_factory=package_prompts, compare=False)  # `--prompts DIR`, or lexprobe's
    # `--temperature` / `--max-tokens`; None: not sent, the provider's default applies (see models/types.Request)
    temperature: float | None = None
    max_tokens: int | None = None

    def to_meta(self) -> dict:
        """JSON-ready settings for the run store."""
        keys = ("model", "tool_budget", "turn_budget", "seed", "protocol", "shell", "temperature", "max_tokens",
                "tell_budget")  # fmt: skip
        return {key: getattr(self, key) for key in keys} | {"prompts": self.prompts.digest}  # the prompt set's digest


def parse_text_calls(text: str, step: int) -> tuple[ToolCall, ...]:
    """Return the `TOOL: {...}` calls of a text-protocol reply (malformed ones as calls with raw arguments)."""
    calls = []
    for index, match in enumerate(_TEXT_CALL.finditer(text or "")):
        try:
            payload = json.loads(match.group(1))
            name, arguments = str(payload.get("name", "")), payload.get("arguments", {})
            if not isinstance(arguments, dict):
                raise ValueError("arguments is not an object")
            calls.append(ToolCall(id=f"text_{step}_{index}", name=name, arguments=arguments))
        except (ValueError, AttributeError):
            calls.append(ToolCall(id=f"text_{step}_{index}", name="?", raw_arguments=match.group(1)))
    return tuple(calls)


@dataclass(frozen=True)
class NativeTools:
    """The backend's own tool calling: the request offers the tools, the reply's tool calls are the calls, and each
    result goes back as a `tool` message."""

    specs: tuple[ToolSpec, ...]

    def opening(self, prompt: str) -> list[Message]:
        """The messages a tool-using turn starts with."""
        return [Message(role="user", content=prompt)]

    def offered(self) -> tuple[ToolSpec, ...]:
        """The tools a request offers while the budget lasts."""
        return self.specs

    def calls(self, response: Response, step: int) -> tuple[ToolCall, ...]:
        """The tool calls of the model's reply at `step`."""
        return response.tool_calls

    def assistant(self, response: Response, calls: tuple[ToolCall, ...]) -> Message:
        """The model's reply as the conversation holds it."""
        return Message(role="assistant", content=response.text, tool_calls=calls)

    def result(self, call: ToolCall, output: str) -> Message:
        """What the model is told a call returned."""
        return Message(role="tool", content=output, tool_call_id=call.id, name=call.name)


@dataclass(frozen=True)
class TextTools(NativeTools):
    """For models served without tool calling: a system message describes the tools (`text_protocol.j2`), the request
    offers none, the calls are the reply's `TOOL:` lines, and each result goes back as a user message."""

    prompts: PromptSet

    def opening(self, prompt: str) -> list[Message]:
        protocol = self.prompts.render("text_protocol.j2", tools=list(self.specs))
        return [Message(role="system", content=protocol), *super().opening(prompt)]

    def offered(self) -> tuple[ToolSpec, ...]:
        return ()

    def calls(self, response: Response, step: int) -> tuple[ToolCall, ...]:
        return parse_text_calls(response.text, step)

    def assistant(self, response: Response, calls: tuple[ToolCall, ...]) -> Message:
        return Message(role="assistant", content=response.text)  # its calls are in its text

    def result(self, call: ToolCall, output: str) -> Message:
        return Message(role="user", content=f"Result of {call.name}:\n{output}")


def tool_protocol(name: str, specs: list[ToolSpec], prompts: PromptSet) -> NativeTools:
    """The protocol `name` (`native` or `text`) over the tools `specs`."""
    return TextTools(tuple(specs), prompts) if name == "text" else NativeTools(tuple(specs))


class EpisodeFailed(RuntimeError):
    """A model call stayed unanswered after the engine's retries (the run can be resumed)."""


class LimitsExceeded(Exception):
    """The tool or turn budget of the tool-using turn is spent; the message is the reason the model is told."""


@dataclass
class Budget:
    """The tool calls and assistant replies a tool-using turn may take."""

    tool_calls: int
    turns: int
    used: int = 0

    def take(self) -> bool:
        """Count one more tool call run; False (nothing counted) when none is left."""
        if self.used >= self.tool_calls:
            return False
        self.used += 1
        return True

    def check(self, step: int) -> None:
        """Raise `LimitsExceeded` once every tool call is used or reply `step` was the last turn."""
        if self.used >= self.tool_calls:
            raise LimitsExceeded(f"You have used all {self.tool_calls} tool calls.")
        if step >= self.turns:
            raise LimitsExceeded(f"You have used all {self.turns} turns.")


def episode_id(case_id: str, model: str, epoch: int, level: str = "") -> str:
    """Return the id of one episode: `<case>|<level>|<model>|e<epoch>`, the level as the environment records it
    (so one run directory holds every level of a case). Without a level: `<case>|<model>|e<epoch>`, the id of
    episodes recorded before the level was part of it (`run` resumes those under their old id)."""
    return f"{case_id}|{level}|{model}|e{epoch}" if level else f"{case_id}|{model}|e{epoch}"


def shuffled(hypotheses: list[Hypothesis], seed: int, episode: str) -> list[Hypothesis]:
    """Return the hypotheses in this episode's order (seeded by the run seed and `episode`: the harness passes the
    level-free id `<case>|<model>|e<epoch>`, so every ablation level of a case shows the same order, as before
    levels were part of the id)."""
    order = list(hypotheses)
    random.Random(f"{seed}:{episode}").shuffle(order)
    return order


class Agent:
    """The tool-using turn of one episode or question, its record (`episode`) and every model call it makes."""

    def __init__(self, engine: Engine, view: CorpusView, settings: HarnessSettings, run_dir: Path, name: str, *,
                 epoch: int = 0, corpus_hash: str = "", folder: str = EPISODES_DIR,
                 task: str = "investigation") -> None:  # fmt: skip
        self.engine, self.view, self.settings, self.run_dir = engine, view, settings, run_dir
        self.folder, self.task = folder, task  # where the record is saved; the `task` of budget_spent.j2
        env = view.environment
        self.toolbox = Toolbox(view, shell=settings.shell)
        self.protocol = tool_protocol(settings.protocol, tool_specs(self.toolbox.shell_enabled), settings.prompts)
        self.episode = Episode(
            episode_id=name, environment=env.case.case_id, corpus_hash=corpus_hash,
            env_dir=str(view.env_dir), ablation=env.ablation, model=settings.model, epoch=epoch, seed=settings.seed,
            tool_budget=settings.tool_budget, turn_budget=settings.turn_budget, protocol=settings.protocol,
            shell_enabled=self.toolbox.shell_enabled, shell_note=self.toolbox.shell_disabled_reason or "",
            warnings=list(view.warnings),
        )  # fmt: skip
        self._counted: set[str] = set()  # the requests whose usage the episode holds

    async def run(self, template: str, finish: Callable[[str], Awaitable[None]], **variables: object) -> Episode:
        """Run (or resume) the tool-using turn on the prompt `template`, then `finish` with its final reply; return
        the saved episode. Never raises for model failures: the episode is saved with status `failed` and the
        reason."""
        started = time.perf_counter()
        try:
            await finish(await self.solve(self.prompt(template, **variables)))
            self.episode.status = "complete"
        except EpisodeFailed as exc:
            self.episode.status, self.episode.error = "failed", str(exc)
        finally:
            self.toolbox.close()
            self.episode.wall_s = round(time.perf_counter() - started, 3)
            self.save()
        return self.episode

    def prompt(self, template: str, **variables: object) -> str:
        """Render the task prompt `template` with the variables the Turn-1 and QA prompts share
        (`prompts.PROMPT_VARIABLES`) and `variables`."""
        settings = self.settings
        return settings.prompts.render(
            template, case_type=case_type(self.view.environment.case.category), exhibits_path=CORPUS_PATH,
            tool_names=", ".join(self.toolbox.names), tool_budget=settings.tool_budget,
            turn_budget=settings.turn_budget, tell_budget=settings.tell_budget, **variables,
        )  # fmt: skip

    async def solve(self, prompt: str) -> str:
        """The tool-using turn: return the text of the reply that ends it (see the module docstring)."""
        messages: list[Message] = []
        for message in self.protocol.opening(prompt):
            self._say(messages, message)
        budget, tools_open = Budget(self.settings.tool_budget, self.settings.turn_budget), True
        for step in range(1, self.settings.turn_budget + 2):
            offered = self.protocol.offered() if tools_open else ()
            response = await self.ask(f"{self.episode.episode_id}|t1|{step}", messages, offered)
            self.episode.steps = step
            calls = self.protocol.calls(response, step)
            self._say(messages, self.protocol.assistant(response, calls))
            if not calls or not tools_open:
                for call in calls:  # asked for after the tools were closed: denied, never run
                    self._deny(call, step)
                self.episode.summary_truncated = response.finish_reason == "length"  # cut by the token cap
                self.save()
                return response.text
            for call in calls:
                output = await self.execute(call, step) if budget.take() else self._deny(call, step)
                self._say(messages, self.protocol.result(call, output))
            try:
                budget.check(step)
            except LimitsExceeded as spent:
                tools_open = False
                notice = self.settings.prompts.render("budget_spent.j2", reason=str(spent), task=self.task,
                                                      tool_budget=budget.tool_calls,
                                                      turn_budget=budget.turns)  # fmt: skip
                self._say(messages, Message(role="user", content=notice))
            self.save()
        return ""

    async def ask(self, request_id: str, messages: list[Message], tools: tuple[ToolSpec, ...] = (),
                  model: str | None = None) -> Response:  # fmt: skip
        """Send one request through the engine (or replay its stored answer); a judge's call (`model` given) is not
        counted in the agent's usage. Raises EpisodeFailed when the request stays unanswered."""
        settings, episode = self.settings, self.episode
        # epochs are distinct samples (`sample_index`) unless the temperature is 0
        request = Request(model=model or settings.model, messages=tuple(messages), tools=tools,
                          temperature=settings.temperature, max_tokens=settings.max_tokens,
                          sample_index=episode.epoch, id=request_id, tags={"episode": episode.episode_id})  # fmt: skip
        # the agent's turns never wait for a batch (`--batch`): only a judge's single-turn call (`model`) may
        await self.engine.run([request], synchronous=model is None)
        response = self.engine.store.response(request_id)
        if response is None:
            permanent = self.engine.permanent_failures.get(request_id)
            if permanent is not None:  # retrying cannot help: say why, and do not promise a resume
                raise EpisodeFailed(f"{request_id} failed permanently: {permanent}")
            raise EpisodeFailed(f"no answer to {request_id} after retries; rerun the same command to resume")
        if model is None:
            self.count_usage(request_id, response)
        return response

    def count_usage(self, request_id: str, response: Response) -> None:
        """Add the tokens and cost of the agent's answer to `request_id` to the episode (once per request)."""
        if request_id in self._counted:
            return
        self._counted.add(request_id)
        episode, usage = self.episode, response.usage
        episode.input_tokens += usage.input_tokens
        episode.output_tokens += usage.output_tokens
        if episode.cost_usd is not None:
            episode.cost_usd = None if response.cost_usd is None else episode.cost_usd + response.cost_usd

    def record(self, message: Message) -> None:
        """Add `message` to the episode's transcript."""
        self.episode.transcript.append(message.model_dump(mode="json", exclude_defaults=True))

    def save(self) -> None:
        """Write the episode record into the run directory."""
        self.episode.save(self.run_dir, self.folder)

    def _say(self, messages: list[Message], message: Message) -> None:
        messages.append(message)
        self.record(message)

    def _deny(self, call: ToolCall, step: int) -> str:
        """Record a call that is not run because the budget is spent, and return what the model is told."""
        self.episode.tool_calls.append(ToolCallRecord(step=step, name=call.name, arguments=call.arguments, denied=True))
        return f"denied: the budget of {self.settings.tool_budget} tool calls is spent"

    async def execute(self, call: ToolCall, step: int) -> str:
        """Run one call the budget allows, record it in the episode and return what the model is told (an Inspect
        agent, `lexprobe.interop.inspect_investigation`, runs it through Inspect's tool machinery instead)."""
        return self._execute(call, step)

    def _execute(self, call: ToolCall, step: int) -> str:
        if call.raw_arguments is not None:
            output = f"error: the arguments of {call.name} were not a JSON object: {call.raw_arguments[:200]}"
            self.episode.tool_calls.append(ToolCallRecord(step=step, name=call.name, error=True, opened=[],
                                                          output_chars=len(output)))  # fmt: skip
            return output
        result = self.toolbox.call(call.name, call.arguments)
        doc_ids = [self.view.doc_id(path) or "" for path in result.documents]
        roles = [self.view.role(path) or "" for path in result.documents]
        self.episode.tool_calls.append(ToolCallRecord(
            step=step, name=call.name, arguments=call.arguments, output_chars=len(result.output),
            refused=result.refused, error=result.error, truncated=result.truncated, opened=result.opened,
            seen=result.seen, documents=result.documents, doc_ids=doc_ids, roles=roles,
        ))  # fmt: skip
        return result.output


class EpisodeRunner:
    """Runs one episode: Turn 1 with tools (an `Agent`), then Turn 2 without."""

    def __init__(self, engine: Engine, view: CorpusView, settings: HarnessSettings, epoch: int, run_dir: Path,
                 episode_name: str | None = None, *, corpus_hash: str = "",
                 agent_type: type[Agent] = Agent) -> None:  # fmt: skip
        env = view.environment
        name = episode_name or episode_id(env.case.case_id, settings.model, epoch, env.ablation)
        # `agent_type`: an `Agent` subclass that asks another model API (the Inspect agent's)
        self.agent = agent_type(engine, view, settings, run_dir, name, epoch=epoch, corpus_hash=corpus_hash)

    async def run(self) -> Episode:
        """Run (or resume) both turns; returns the saved episode (`Agent.run`)."""
        return await self.agent.run("investigate.j2", self._turn_two)

    async def _turn_two(self, summary: str) -> None:
        agent = self.agent
        episode, settings = agent.episode, agent.settings
        episode.summary = summary
        key = episode_id(episode.environment, settings.model, episode.epoch)  # level-free: same order
        order = shuffled(agent.view.environment.hypotheses, settings.seed, key)
        items = [{"label": f"H{index}", "text": h.claim} for index, h in enumerate(order, start=1)]
        prompt = settings.prompts.render("verdict.j2", summary=summary.strip() or NO_SUMMARY,
                                         hypotheses=items)  # fmt: skip
        message = Message(role="user", content=prompt)
        agent.record(message)
        response = await agent.ask(f"{episode.episode_id}|t2", [message])
        agent.record(Message(role="assistant", content=response.text))
        episode.verdict_reply = response.text
        labels = [item["label"] for item in items]
        parsed = parse_verdicts(response.text, labels)
        episode.verdicts = [
            HypothesisVerdict(label=label, hypothesis_id=h.hypothesis_id, kind=h.kind.value,
                              verdict=parsed.verdicts.get(label), reason=parsed.reasons.get(label, ""))
            for label, h in zip(labels, order, strict=True)
        ]  # fmt: skip
        episode.unparsed = all(v.verdict is None for v in episode.verdicts)
        episode.copied_example = copies_example(response.text, prompt, summary, labels)
