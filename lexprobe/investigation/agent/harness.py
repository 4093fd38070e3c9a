"""The two-turn investigation protocol (InvestigationWorlds, Section 3.1 and Appendix D.4).

Turn 1: the investigation prompt with the tools enabled. The model calls tools until it writes a reply without a
tool call (its summary). When the tool budget is spent, further calls in the same reply are denied (never run) and
the model is told to write its summary; the turn budget (assistant replies in Turn 1) ends the loop the same way.
Turn 2: a new conversation holding only the model's own summary and the hypotheses, shuffled per episode with a
recorded seed and labelled H1..Hn; no tools; verdicts A/B/C as a JSON array, parsed leniently, anything
unreadable recorded as unparsed and never turned into a verdict; a reply that copies the prompt's example is flagged
`copied_example` (`verdict_example.py`).

Every model call goes through the engine (cache, retries, telemetry in RUN_DIR/run.sqlite) with a deterministic id
(`<episode>|t1|<step>`, `<episode>|t2`), and the episode record is saved after every step. Rerunning the same
command replays the stored replies and recomputes the (deterministic) tool outputs, so a killed run resumes at the
last completed step at no model cost.

Tool protocols: `native` passes the tools to the backend's own tool calling (every backend of lexprobe has it); `text`
describes them in the prompt and reads `TOOL: {"name": ..., "arguments": {...}}` lines from the reply, for models
served without tool calling.
"""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.engine.executor import Engine
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import Episode, HypothesisVerdict, ToolCallRecord
from lexprobe.investigation.agent.prompts import CORPUS_PATH, PromptSet, case_type, package_prompts
from lexprobe.investigation.agent.tools import Toolbox, tool_specs
from lexprobe.investigation.agent.verdict_example import copies_example
from lexprobe.investigation.agent.verdicts import parse_verdicts
from lexprobe.investigation.environment.format import Hypothesis
from lexprobe.models.types import Message, Request, Response, ToolCall

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
        keys = ("model", "tool_budget", "turn_budget", "seed", "protocol", "shell", "temperature", "max_tokens")
        return {key: getattr(self, key) for key in keys} | self.prompt_meta()

    def prompt_meta(self) -> dict:
        """The prompt settings of the run store: whether the budget is told, and the digest of the prompt set."""
        return {"tell_budget": self.tell_budget, "prompts": self.prompts.digest}


class EpisodeFailed(RuntimeError):
    """A model call stayed unanswered after the engine's retries (the run can be resumed)."""


def render_template(name: str, **variables: object) -> str:
    """Render one of lexprobe's own prompt templates (a run renders its `HarnessSettings.prompts`)."""
    return package_prompts().render(name, **variables)


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


class EpisodeRunner:
    """Runs one episode: Turn 1 with tools, then Turn 2 without."""

    task = "investigation"  # the `task` variable of budget_spent.j2 (the QA runner: "qa")

    folder_name = "episodes"

    def __init__(
        self,
        engine: Engine,
        view: CorpusView,
        settings: HarnessSettings,
        epoch: int,
        run_dir: Path,
        episode_name: str | None = None,
        *,
        corpus_hash: str = "",
    ) -> None:
        self.engine, self.view, self.settings, self.run_dir = engine, view, settings, run_dir
        env = view.environment
        self.toolbox = Toolbox(view, shell=settings.shell)
        self.episode = Episode(
            episode_id=episode_name or episode_id(env.case.case_id, settings.model, epoch, env.ablation),
            environment=env.case.case_id, corpus_hash=corpus_hash,
            env_dir=str(view.env_dir), ablation=env.ablation, model=settings.model, epoch=epoch, seed=settings.seed,
            tool_budget=settings.tool_budget, turn_budget=settings.turn_budget, protocol=settings.protocol,
            shell_enabled=self.toolbox.shell_enabled, shell_note=self.toolbox.shell_disabled_reason or "",
            warnings=list(view.warnings),
        )  # fmt: skip
        self._responses: set[str] = set()

    async def run(self) -> Episode:
        """Run (or resume) both turns; returns the saved episode. Never raises for model failures: the episode is
        saved with status `failed` and the reason."""
        started = time.perf_counter()
        try:
            summary = await self._turn_one()
            await self.finish(summary)
            self.episode.status = "complete"
        except EpisodeFailed as exc:
            self.episode.status, self.episode.error = "failed", str(exc)
        finally:
            self.toolbox.close()
            self.episode.wall_s = round(time.perf_counter() - started, 3)
            self.episode.save(self.run_dir, self.folder_name)
        return self.episode

    async def _ask(self, request_id: str, messages: list[Message], tools: bool, model: str | None = None) -> Response:
        """Send one request through the engine (or replay its stored answer); a judge's call (`model` given) is not
        counted in the agent's usage. Raises EpisodeFailed when the request stays unanswered."""
        specs = tool_specs(self.toolbox.shell_enabled) if tools and self.settings.protocol == "native" else []
        request = Request(
            model=model or self.settings.model,
            messages=tuple(messages),
            tools=tuple(specs),
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
            sample_index=self.episode.epoch,  # epochs are distinct samples unless the temperature is 0
            id=request_id,
            tags={"episode": self.episode.episode_id},
        )
        # the agent's turns never wait for a batch (`--batch`): only a judge's single-turn call (`model`) may
        await self.engine.run([request], synchronous=model is None)
        response = self.engine.store.response(request_id)
        if response is None:
            permanent = self.engine.permanent_failures.get(request_id)
            if permanent is not None:  # retrying cannot help: say why, and do not promise a resume
                raise EpisodeFailed(f"{request_id} failed permanently: {permanent}")
            raise EpisodeFailed(f"no answer to {request_id} after retries; rerun the same command to resume")
        if model is None and request_id not in self._responses:
            self._responses.add(request_id)
            usage = response.usage
            self.episode.input_tokens += usage.input_tokens
            self.episode.output_tokens += usage.output_tokens
            if self.episode.cost_usd is not None:
                self.episode.cost_usd = None if response.cost_usd is None else self.episode.cost_usd + response.cost_usd
        return response

    def _record(self, message: Message) -> None:
        self.episode.transcript.append(message.model_dump(mode="json", exclude_defaults=True))

    def task_prompt(self) -> str:
        """Return the Turn-1 prompt (the investigation prompt; the QA runner asks its question instead)."""
        return self.settings.prompts.render("investigate.j2", **self.prompt_context())

    def prompt_context(self) -> dict[str, object]:
        """The variables the Turn-1 and QA prompts share (see `prompts.PROMPT_VARIABLES`)."""
        settings = self.settings
        return {
            "case_type": case_type(self.view.environment.case.category),
            "exhibits_path": CORPUS_PATH,
            "tool_names": ", ".join(self.toolbox.names),
            "tool_budget": settings.tool_budget,
            "turn_budget": settings.turn_budget,
            "tell_budget": settings.tell_budget,
        }

    def _first_prompt(self) -> list[Message]:
        prompt = self.task_prompt()
        messages = []
        if self.settings.protocol == "text":
            protocol = self.settings.prompts.render("text_protocol.j2", tools=tool_specs(self.toolbox.shell_enabled))
            messages.append(Message(role="system", content=protocol))
        messages.append(Message(role="user", content=prompt))
        return messages

    async def _turn_one(self) -> str:
        messages = self._first_prompt()
        for message in messages:
            self._record(message)
        used = 0
        tools_open = True
        for step in range(1, self.settings.turn_budget + 2):
            response = await self._ask(f"{self.episode.episode_id}|t1|{step}", messages, tools_open)
            self.episode.steps = step
            calls = response.tool_calls if self.settings.protocol == "native" else parse_text_calls(response.text, step)
            assistant = Message(role="assistant", content=response.text,
                                tool_calls=calls if self.settings.protocol == "native" else ())  # fmt: skip
            messages.append(assistant)
            self._record(assistant)
            if not calls or not tools_open:
                for call in calls:  # asked for after the tools were closed: denied, never run
                    self._deny(call, step)
                self.episode.summary_truncated = response.finish_reason == "length"  # cut by the token cap
                self.episode.save(self.run_dir, self.folder_name)
                return response.text
            results = []
            for call in calls:
                if used < self.settings.tool_budget:
                    used += 1
                    results.append((call, self._execute(call, step)))
                else:
                    results.append((call, self._deny(call, step)))
            for call, output in results:
                reply = (Message(role="tool", content=output, tool_call_id=call.id, name=call.name)
                         if self.settings.protocol == "native"
                         else Message(role="user", content=f"Result of {call.name}:\n{output}"))  # fmt: skip
                messages.append(reply)
                self._record(reply)
            reason = None
            if used >= self.settings.tool_budget:
                reason = f"You have used all {self.settings.tool_budget} tool calls."
            elif step >= self.settings.turn_budget:
                reason = f"You have used all {self.settings.turn_budget} turns."
            if reason:
                tools_open = False
                notice = Message(role="user", content=self.settings.prompts.render(
                    "budget_spent.j2", reason=reason, task=self.task, tool_budget=self.settings.tool_budget,
                    turn_budget=self.settings.turn_budget))  # fmt: skip
                messages.append(notice)
                self._record(notice)
            self.episode.save(self.run_dir, self.folder_name)
        return ""

    def _deny(self, call: ToolCall, step: int) -> str:
        """Record a call that is not run because the budget is spent, and return what the model is told."""
        self.episode.tool_calls.append(ToolCallRecord(step=step, name=call.name, arguments=call.arguments, denied=True))
        return f"denied: the budget of {self.settings.tool_budget} tool calls is spent"

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

    async def finish(self, summary: str) -> None:
        """What follows Turn 1: the verdict turn (the QA runner grades the answer instead)."""
        await self._turn_two(summary)

    async def _turn_two(self, summary: str) -> None:
        self.episode.summary = summary
        key = episode_id(self.episode.environment, self.settings.model, self.episode.epoch)  # level-free: same order
        order = shuffled(self.view.environment.hypotheses, self.settings.seed, key)
        items = [{"label": f"H{index}", "text": h.claim} for index, h in enumerate(order, start=1)]
        prompt = self.settings.prompts.render("verdict.j2", summary=summary.strip() or "(no summary)",
                                              hypotheses=items)  # fmt: skip
        message = Message(role="user", content=prompt)
        self._record(message)
        response = await self._ask(f"{self.episode.episode_id}|t2", [message], tools=False)
        self._record(Message(role="assistant", content=response.text))
        self.episode.verdict_reply = response.text
        labels = [item["label"] for item in items]
        parsed = parse_verdicts(response.text, labels)
        self.episode.verdicts = [
            HypothesisVerdict(label=label, hypothesis_id=h.hypothesis_id, kind=h.kind.value,
                              verdict=parsed.verdicts.get(label), reason=parsed.reasons.get(label, ""))
            for label, h in zip(labels, order, strict=True)
        ]  # fmt: skip
        self.episode.unparsed = all(v.verdict is None for v in self.episode.verdicts)
        self.episode.copied_example = copies_example(response.text, prompt, summary, labels)
