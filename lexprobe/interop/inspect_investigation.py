"""`inspect eval lexprobe/investigation -T env=PATH --model ...`: InvestigationWorlds' two-turn protocol as an
Inspect task (docs/interop.md, "Investigation in Inspect").

One `Sample` per environment: `env` is an environment folder (environment.json, corpus/), or a folder whose
subfolders are environments (each one sample, in name order); Inspect's `--epochs` are lexprobe's epochs. The solver
(`investigation_agent`) runs lexprobe's own episode (`EpisodeRunner` with `inspect_agent.InspectAgent`): the Turn-1
investigation with lexprobe's tools (read, glob, grep, and shell where bubblewrap is installed) under lexprobe's
budgets and prompts, then the Turn-2 verdicts in a fresh conversation. The sample's messages are the episode's
transcript (both turns, in order: Turn 2 was asked as a conversation of its own, as each model event shows), its
output the verdict reply, and the episode record (`Episode`, without its transcript) is kept in the sample's store
under `EPISODE_KEY`, where the scorer (`inspect_investigation_scorer`) reads it.

Task arguments (`-T`): `env` (required), `tool_budget` (30), `turn_budget` (25), `seed` (0: the hypothesis shuffle),
`protocol` (native | text), `shell` (true), `tell_budget` (false), `prompts` (a folder of prompt templates, as
`--prompts`), `partial_verdicts` / `strict_reject` (the scoring rules of `investigation score`). The model's name
in the episode (and in the shuffle's seed) is the lexprobe spec for a `lexprobe/...` model, else Inspect's
`provider/model`, so `--model lexprobe/SPEC` shows the hypotheses in the order `investigation run --model SPEC` does.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from lexprobe.errors import BadInputError
from lexprobe.interop.inspect_agent import InspectAgent
from lexprobe.interop.inspect_errors import InspectInputError
from lexprobe.interop.inspect_investigation_scorer import EPISODE_KEY, episode_epochs, investigation_scorer
from lexprobe.interop.messages import transcript_messages
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.harness import (
    INVESTIGATION_TOOL_BUDGET,
    INVESTIGATION_TURN_BUDGET,
    EpisodeRunner,
    HarnessSettings,
)
from lexprobe.investigation.agent.prompts import load_prompts
from lexprobe.investigation.environment.corpus_digest import corpus_hash
from lexprobe.investigation.environment.format import ENVIRONMENT_FILE, Environment, HypothesisKind, load_environment
from lexprobe.investigation.environment.validate import validate_environment

__all__ = ["environment_samples", "investigation", "investigation_agent"]

_PROVIDER = "lexprobe/"


def environment_folders(env: str) -> list[Path]:
    """The environment folders `-T env=PATH` names: PATH itself when it holds environment.json, else its subfolders
    that do. InspectInputError (one line) when PATH is missing or holds no environment."""
    path = Path(env).expanduser()
    if not path.is_dir():
        raise InspectInputError(f"-T env={env}: no such folder (an investigation environment, or a folder of them)")
    if (path / ENVIRONMENT_FILE).is_file():
        return [path.resolve()]
    found = sorted(child.resolve() for child in path.iterdir() if (child / ENVIRONMENT_FILE).is_file())
    if not found:
        raise InspectInputError(f"-T env={env}: not an investigation environment ({ENVIRONMENT_FILE} missing) and no "
                            "subfolder is one")  # fmt: skip
    return found


def _sample(folder: Path, environment: Environment) -> Sample:
    """The sample of one environment: its dispositive question as input, h*'s claim as target, the case as metadata."""
    case = environment.case
    adopted = [h.claim for h in environment.hypotheses if h.kind == HypothesisKind.court_adopted]
    metadata = {"env_dir": str(folder), "case_id": case.case_id, "case": case.name, "ablation": environment.ablation,
                "category": case.category, "generator": case.generator, "documents": len(environment.documents),
                "hypotheses": len(environment.hypotheses)}  # fmt: skip
    sample_id = f"{case.case_id}|{environment.ablation}" if environment.ablation else case.case_id
    return Sample(id=sample_id, input=case.dispositive_question or case.name, target=adopted[0] if adopted else "",
                  metadata=metadata)  # fmt: skip


def _first_problem(folder: Path, exc: Exception) -> str:
    """The first error lexprobe's validator finds in `folder` (and how many more), else the loading error's text."""
    errors = [p for p in validate_environment(folder, extract=False) if p.severity == "error"]
    if not errors:
        return " ".join(str(exc).split())
    more = f" (and {len(errors) - 1} more: `lexprobe investigation validate {folder}`)" if len(errors) > 1 else ""
    return f"{errors[0].location}: {errors[0].message}{more}"


def environment_samples(env: str) -> MemoryDataset:
    """One sample per environment of `-T env=PATH` (`environment_folders`); InspectInputError naming the folder and
    the first problem lexprobe's validator finds when one cannot be loaded."""
    samples = []
    for folder in environment_folders(env):
        try:
            environment, _ = load_environment(folder)
        except (OSError, ValueError) as exc:
            raise InspectInputError(f"-T env={env}: {folder} is not a valid investigation environment: "
                                    f"{_first_problem(folder, exc)}") from None  # fmt: skip
        samples.append(_sample(folder, environment))
    return MemoryDataset(samples, name=Path(env).name, location=str(Path(env).resolve()))


def model_spec() -> str:
    """The model's name in the episode: a lexprobe model's spec, else Inspect's `provider/model`."""
    name = str(get_model())
    return name.removeprefix(_PROVIDER)


@solver
def investigation_agent(
    tool_budget: int = INVESTIGATION_TOOL_BUDGET,
    turn_budget: int = INVESTIGATION_TURN_BUDGET,
    seed: int = 0,
    protocol: str = "native",
    shell: bool = True,
    tell_budget: bool = False,
    prompts: str | None = None,
) -> Solver:
    """lexprobe's two-turn investigation of the sample's environment (see the module docstring), with lexprobe's
    harness settings (`HarnessSettings`; the model is the sample's, `model_spec`). InspectInputError for an unknown
    protocol or a prompt folder that does not load."""
    if protocol not in ("native", "text"):
        raise InspectInputError(f"-T protocol={protocol}: choose native or text")
    try:
        prompt_set = load_prompts(Path(prompts) if prompts else None)
    except BadInputError as exc:
        raise InspectInputError(str(exc)) from None
    settings = HarnessSettings(model="", tool_budget=int(tool_budget), turn_budget=int(turn_budget), seed=int(seed),
                               protocol=protocol, shell=bool(shell), tell_budget=bool(tell_budget),
                               prompts=prompt_set)  # fmt: skip

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        view = CorpusView.open(Path(state.metadata["env_dir"]))
        digest = corpus_hash(view.env_dir, view.environment) or ""
        chosen = replace(settings, model=model_spec())
        with tempfile.TemporaryDirectory(prefix="lexprobe-inspect-") as run_dir:  # the episode's saves: not kept
            runner = EpisodeRunner(None, view, chosen, state.epoch - 1, Path(run_dir), corpus_hash=digest,  # type: ignore[arg-type]
                                   agent_type=InspectAgent)  # fmt: skip
            episode = await runner.run()
        state.messages = transcript_messages(episode.transcript, episode.model)
        agent = runner.agent
        if isinstance(agent, InspectAgent) and agent.last_output is not None:
            state.output = agent.last_output
        state.store.set(EPISODE_KEY, episode.model_dump(mode="json", exclude={"transcript"}))
        return state

    return solve


@task
def investigation(
    env: str,
    tool_budget: int = INVESTIGATION_TOOL_BUDGET,
    turn_budget: int = INVESTIGATION_TURN_BUDGET,
    seed: int = 0,
    protocol: str = "native",
    shell: bool = True,
    tell_budget: bool = False,
    prompts: str | None = None,
    partial_verdicts: bool = False,
    strict_reject: bool = False,
) -> Task:
    """InvestigationWorlds' two-turn protocol over the environments of `env`, scored by lexprobe's investigation
    scorers (see the module docstring for every argument)."""
    return Task(
        dataset=environment_samples(env),
        solver=investigation_agent(tool_budget, turn_budget, seed, protocol, shell, tell_budget, prompts),
        scorer=investigation_scorer(partial_verdicts=bool(partial_verdicts), strict_reject=bool(strict_reject)),
        epochs=Epochs(1, episode_epochs()),  # `--epochs N` keeps this reducer: every epoch an episode of its own
    )
