"""The Large Legal Fictions tasks as an Inspect task: `inspect eval lexprobe/hallucination -T tasks=existence,author
-T level=scotus -T n=50 -T style=few --model ...`.

The items are `lexprobe hallucination run`'s own (`run.items.plan_items` over the settings `run.from_options`
makes of the same options: the same sampling, templates and references), one `Sample` each, its id the item's id
(`task|level|style|case`) and its metadata the task, level, style, case, year and reference. Each is asked as
`hallucination run` asks it (`lexprobe_answer`): the greedy answer at temperature 0 with the task's token cap; with
`-T samples=K` (calibration) K more epochs at temperature 1, seeds 1..K (`greedy_with_confidence` reduces them to
the greedy answer's score and its confidence); a reference-free item's two samples at temperature 1. With a
`lexprobe/...` model these are the very requests `hallucination run` sends, so the two share the response cache.
Scoring: `inspect_reader.hallucination_reader` (with `-T reader=MODEL`, the model reader of `--reader`). What this
task does not do (`--batch`, the run directory and its report): docs/interop.md.
"""

from __future__ import annotations

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from lexprobe.caselaw.paths import default_db_path
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.errors import BadInputError, InputNotFoundError
from lexprobe.hallucination.run.from_options import RunOptions, profile_settings
from lexprobe.hallucination.run.items import Item, plan_items
from lexprobe.hallucination.run.runner import ProfileSettings
from lexprobe.hallucination.scorers.calibration import CALIBRATION_TEMPERATURE
from lexprobe.hallucination.scorers.judge import SAMPLE_TEMPERATURE
from lexprobe.interop.inspect_errors import InspectInputError
from lexprobe.interop.inspect_model import SAMPLE_INDEX
from lexprobe.interop.inspect_reader import SECOND_SAMPLE, SKIPPED, greedy_with_confidence, hallucination_reader

__all__ = ["hallucination", "hallucination_samples", "lexprobe_answer", "open_case_database"]


def open_case_database(db: str | None) -> CaseDatabase:
    """The case database at `db` (default: the one lexprobe uses); `InputNotFoundError` (one line) when missing."""
    from pathlib import Path

    path = Path(db).expanduser() if db else default_db_path()
    if not path.is_file():
        raise InputNotFoundError(f"no case database at {path}: build it with `lexprobe data build`, or pass -T db=PATH")
    return CaseDatabase(path)


def _comma(value: str | list[str] | None) -> str | None:
    """A -T value as the comma list `hallucination run` takes (Inspect reads `-T tasks=a,b` as text, YAML lists
    as lists)."""
    return ",".join(str(part) for part in value) if isinstance(value, list | tuple) else value


def hallucination_samples(database: CaseDatabase, settings: ProfileSettings) -> list[Sample]:
    """One Sample per item `hallucination run` asks with `settings` (its model aside), in its order."""
    plan = plan_items(
        database, settings.tasks, settings.levels, settings.styles, settings.n, settings.seed, settings.samples,
        years=settings.windows, complete_cases=settings.complete_cases, task_n=settings.task_n,
    )  # fmt: skip
    return [_sample(item) for item in plan.items]


def _sample(item: Item) -> Sample:
    reference = item.reference.as_json()
    metadata = {
        "task": item.task,
        "level": item.level,
        "style": item.prompt_style,
        "case": item.case_id,
        "year": item.covariates.get("year"),
        "reference": reference,
        "max_tokens": item.max_tokens,
        "reference_free": item.reference_free,
        "calibration_samples": item.calibration_samples,
        "covariates": item.covariates,
    }
    return Sample(id=item.item_id, input=item.prompt, target=_target(reference), metadata=metadata)


def _target(reference: dict) -> str:
    """The reference shown as the sample's target: its values, as text ("" for a task without a reference)."""
    return "; ".join(f"{key}: {value}" for key, value in reference.items() if value not in (None, ""))


@solver(name="lexprobe_answer")
def lexprobe_answer() -> Solver:
    """Ask an item as `hallucination run` asks it (module docstring): epoch 1 the greedy answer (or a
    reference-free item's two samples), epoch k+1 the k-th calibration sample of a calibrated item; an epoch with
    nothing to ask is marked skipped for the scorer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta, epoch = state.metadata, state.epoch
        max_tokens = int(meta["max_tokens"])
        if epoch > 1 and (meta["reference_free"] or epoch - 1 > int(meta["calibration_samples"])):
            state.store.set(SKIPPED, True)
            return state
        if meta["reference_free"]:
            return await _sample_pair(state, generate, max_tokens)
        if epoch == 1:
            return await generate(state, tool_calls="none", temperature=0.0, max_tokens=max_tokens)
        token = SAMPLE_INDEX.set(epoch - 2)  # lexprobe's calibration request k: seed k + 1, sample index k
        try:
            return await generate(state, tool_calls="none", temperature=CALIBRATION_TEMPERATURE, seed=epoch - 1,
                                  max_tokens=max_tokens)  # fmt: skip
        finally:
            SAMPLE_INDEX.reset(token)

    return solve


async def _sample_pair(state: TaskState, generate: Generate, max_tokens: int) -> TaskState:
    """A reference-free item's two samples at temperature 1 (sample indexes 0 and 1): the first is the output, the
    second is kept in the store for the judge."""
    prompt = list(state.messages)
    token = SAMPLE_INDEX.set(0)
    try:
        state = await generate(state, tool_calls="none", temperature=SAMPLE_TEMPERATURE, max_tokens=max_tokens)
        SAMPLE_INDEX.set(1)
        second = await get_model().generate(
            prompt, config=GenerateConfig(temperature=SAMPLE_TEMPERATURE, max_tokens=max_tokens)
        )
    finally:
        SAMPLE_INDEX.reset(token)
    state.store.set(SECOND_SAMPLE, second.completion)
    return state


@task(name="hallucination")
def hallucination(
    tasks: str | list[str] = "all",
    level: str | list[str] | None = None,
    n: int | None = None,
    style: str | list[str] | None = None,
    seed: int = 47,
    years: str = "paper",
    db: str | None = None,
    samples: int | None = None,
    judge: str | None = None,
    reader: str | None = None,
    design: str | None = None,
    complete_cases: bool = False,
) -> Task:
    """Large Legal Fictions' items, scored by lexprobe's reader (`hallucination run`'s options and defaults: level
    scotus, n 100, styles zero and few, or `design=paper`'s; `samples`: K calibration samples per calibrated item, as
    epochs, default 0 (with `design=paper`, the paper's); `judge`: the Inspect model judging reference-free pairs,
    default the model under test; `reader`: an Inspect model reading the answers the rules leave unscored, as
    `hallucination run --reader`, default none; `complete_cases`: only cases with every fact the tasks need; `db`:
    the case database, default lexprobe's)."""
    database = open_case_database(db)
    options = RunOptions(model="", tasks=_comma(tasks) or "all", levels=_comma(level), prompt_styles=_comma(style),
                         n=n, years=years, samples=samples if samples is not None or design == "paper" else 0,
                         seed=seed, design=design, complete_cases=complete_cases)  # fmt: skip
    try:
        settings = profile_settings(options)
    except BadInputError as exc:  # an unknown task, level, style, design or year window: one line, not a traceback
        raise InspectInputError(f"lexprobe/hallucination: {exc}") from None
    path = str(database.path)
    return Task(
        dataset=MemoryDataset(hallucination_samples(database, settings), name="lexprobe-hallucination"),
        solver=lexprobe_answer(),
        scorer=hallucination_reader(db=path, judge=judge, reader=reader),
        epochs=Epochs(settings.samples + 1, greedy_with_confidence(db=path)),
        metadata={"lexprobe": "hallucination", "db": path, "samples": settings.samples, "design": settings.design},
    )
