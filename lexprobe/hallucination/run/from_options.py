"""`lexprobe hallucination run`'s options made into `ProfileSettings` (every model and style checked before any
work), and the warnings the case database gives about the sample."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lexprobe.errors import BadInputError
from lexprobe.hallucination.run.runner import ProfileSettings, design_settings

if TYPE_CHECKING:
    from lexprobe.caselaw.query import CaseDatabase

__all__ = ["RunOptions", "profile_settings", "sample_warnings"]


@dataclass(frozen=True)
class RunOptions:
    """The options of `lexprobe hallucination run` that say what to ask (as given: comma lists, None for unset)."""

    model: str
    tasks: str = "all"
    levels: str | None = None
    prompt_styles: str | None = None
    n: int | None = None
    years: str = "paper"
    complete_cases: bool = False
    design: str | None = None
    judge: str | None = None
    samples: int | None = None
    reader: str | None = None
    seed: int = 47


def profile_settings(options: RunOptions, *, credentials: bool = True) -> ProfileSettings:
    """The settings `options` ask for; BadInputError (or a model error) for an unusable model, judge or reader
    (`credentials`: their API keys too), an unknown design, task, level, year window or prompt style. An empty
    `model` checks no model: the questions alone (lexprobe's Inspect task, whose model Inspect names)."""
    from lexprobe.caselaw.sampling import parse_year_windows
    from lexprobe.hallucination.prompts.render import PROMPT_STYLES
    from lexprobe.hallucination.tasks import resolve_tasks
    from lexprobe.models.registry import check_model

    if options.model:
        check_model(options.model, credentials=credentials)
    levels, styles, n, k, task_n = design_settings(
        options.design, options.levels, options.prompt_styles, options.n, options.samples
    )
    settings = ProfileSettings(
        model=options.model, tasks=resolve_tasks(options.tasks), levels=levels, styles=styles, n=n, seed=options.seed,
        judge=options.judge, samples=k, years=parse_year_windows(options.years, levels),
        complete_cases=options.complete_cases, task_n=task_n, design=options.design or "", reader=options.reader,
    )  # fmt: skip
    for other in (options.judge, options.reader):
        if other:
            check_model(other, credentials=credentials)
    bad_styles = [s for s in settings.styles if s not in PROMPT_STYLES]
    if bad_styles or not settings.styles:
        raise BadInputError(f"unknown prompt style(s) {bad_styles}; valid: zero, few")
    return settings


def sample_warnings(database: CaseDatabase, settings: ProfileSettings) -> list[str]:
    """A warning for each level with fewer eligible cases than `n` in its date window (and, with `complete_cases`,
    with every needed fact; the sample takes all of them); BadInputError when no level has any case to sample."""
    from lexprobe.caselaw.sampling import eligible_count, window_text
    from lexprobe.hallucination.tasks.coverage import shared_needs

    windows = settings.windows
    available = {}
    for level in settings.levels:
        require = shared_needs(settings.tasks, level) if settings.complete_cases else ()
        available[level] = eligible_count(database, level, windows[level], require)
    n = settings.n
    warnings = []
    for level, count in available.items():
        where = f"decided {window_text(windows[level])}" + (", complete cases" if settings.complete_cases else "")
        if count == 0:
            warnings.append(f"no {level} case in {database.path} passes the sampling filter ({where}): nothing is "
                            "asked at that level")  # fmt: skip
        elif count < n:
            warnings.append(f"--n {n:,} is more than the {count:,} eligible {level} cases ({where}): sampling all "
                            f"{count:,}")  # fmt: skip
    if not any(available.values()):
        raise BadInputError(f"no case to ask: {database.path} has no eligible case at level(s) "
                            f"{', '.join(settings.levels)}")  # fmt: skip
    return warnings
