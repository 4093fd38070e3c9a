"""The `lexprobe demo` job: a small hallucination profile of a model (the embedded one by default).

It builds the case database from the public data when there is none yet, samples a few Supreme Court cases (the
offline data names no appeals or district cases), asks every task through the engine (temperature 0 greedy answers,
K = 3 calibration samples at temperature 1, two samples and the model itself as contradiction judge for the
reference-free tasks; cached, resumable), scores the answers and returns the rate table; the CLI then writes the HTML
report.

The sample is drawn so that every task has items: only cases decided within the study's window (`PAPER_YEARS`) that
have every fact a sampled task needs (a majority author, an unambiguous disposition, a majority opinion text ...:
`coverage.shared_needs`, the `--complete-cases` sample the study's authors drew), stratified by decision year as
every Supreme Court sample is. A random draw of four cases from the whole window finds none of these facts for most
cases (under 4 % of them have an opinion text offline), so five tasks had no items. The five reference-free tasks,
the slowest (two 128-token samples and a judge call per case), ask a stratified part of the sample
(`DEMO_REFERENCE_FREE_CASES`), which keeps the demo's running time within what it was before every task had items
(BENCHMARKS.md, "Demo").

The demo's HTML page combines both domains: the hallucination report (`hallucination/report/html.py`) takes the
investigation table as plain formatted cells, and `investigation_rows` here, above both domains, makes them from an
investigation scoring summary, so neither domain imports the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the library is imported where used: the CLI reads DEMO_CASES for `lexprobe demo --help`
    from lexprobe.caselaw.build_report import BuildProgress
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig
    from lexprobe.hallucination.run.runner import ProfileResult, ProfileSettings
    from lexprobe.investigation.scoring.schema import BaselineSummary, ModelSummary, ScoreSummary

DEMO_CASES = 4
DEMO_SEED = 47
DEMO_SAMPLES = 3
#: Cases each reference-free task asks (a stratified part of the demo's sample; fewer when the sample is smaller).
DEMO_REFERENCE_FREE_CASES = 2


def demo_settings(
    model: str, n: int = DEMO_CASES, styles: tuple[str, ...] = ("zero",), samples: int = DEMO_SAMPLES
) -> ProfileSettings:
    """Return the demo's profile: every task, Supreme Court, the given prompt styles, n cases that have every fact
    the tasks need (decided within the study's window), K samples; the reference-free tasks ask
    `DEMO_REFERENCE_FREE_CASES` of the n cases."""
    from lexprobe.hallucination.run.runner import ProfileSettings
    from lexprobe.hallucination.tasks import TASKS

    tasks = list(TASKS.values())
    return ProfileSettings(
        model=model,
        tasks=tasks,
        levels=["scotus"],
        styles=list(styles),
        n=n,
        seed=DEMO_SEED,
        samples=samples,
        complete_cases=True,
        task_n={task.id: min(n, DEMO_REFERENCE_FREE_CASES) for task in tasks if task.reference_free},
    )


def ensure_case_database(db_path: Path, progress: BuildProgress | None = None) -> None:
    """Build the case database at `db_path` from `LEXPROBE_DATA` unless a current one is there (a database built
    under older truth rules is rebuilt)."""
    from lexprobe.caselaw.build import build_database
    from lexprobe.caselaw.paths import data_root
    from lexprobe.caselaw.query import case_database_is_current

    if not case_database_is_current(db_path):
        build_database(data_root(), db_path, progress=progress)


async def run_demo(
    run_dir: Path, db_path: Path, cache: ResponseCache | None, config: EngineConfig, settings: ProfileSettings
) -> ProfileResult:
    """Run the demo profile into `run_dir`; returns the plan, engine summary and rate table."""
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.hallucination.run.runner import run_profile

    database = CaseDatabase(db_path)
    try:
        return await run_profile(settings, database, run_dir, cache, config)
    finally:
        database.close()


DEMO_TOOL_BUDGET = 8


async def run_demo_investigation(
    folder: Path, model: str, cache: ResponseCache | None, config: EngineConfig
) -> tuple[ScoreSummary | None, list]:
    """Build the fictional sample environment in `folder/sample-environment`, run one two-turn episode of `model`
    on it (tool budget 8) into `folder/investigation`, and return the scoring summary (None when no episode
    completed) and the episodes."""
    from lexprobe.investigation.agent.harness import HarnessSettings
    from lexprobe.investigation.agent.run import run_investigations
    from lexprobe.investigation.environment.format import load_environment
    from lexprobe.investigation.sample.build import build_sample_environment
    from lexprobe.investigation.scoring.metrics import complete_episodes
    from lexprobe.investigation.scoring.summary import summarize

    env_dir = folder / "sample-environment"
    if not (env_dir / "environment.json").is_file():
        build_sample_environment(env_dir)
    settings = HarnessSettings(model=model, tool_budget=DEMO_TOOL_BUDGET, turn_budget=DEMO_TOOL_BUDGET + 2,
                               max_tokens=256)  # fmt: skip
    episodes = await run_investigations([env_dir], settings, folder / "investigation", cache, config)
    complete, _ = complete_episodes(episodes)
    environment, _ = load_environment(env_dir)
    summary = summarize(complete, {str(env_dir): environment}, replicates=200) if complete else None
    return summary, episodes


def _fmt(rate: float | None) -> str:
    """Format one rate as the hallucination report formats its cells: three decimals, or a dash when absent."""
    return "–" if rate is None else f"{rate:.3f}"


def _verdict_cells(record: ModelSummary | BaselineSummary) -> dict[str, str]:
    return {
        "case_solved": _fmt(record.case_solved),
        "believe_acc": _fmt(record.believe_acc),
        "reject_acc": _fmt(record.reject_acc),
        "worst_class_acc": _fmt(record.worst_class_acc),
        "commit_rate": _fmt(record.commit_rate),
    }


def investigation_rows(summary: ScoreSummary) -> list[dict]:
    """Return the rows of the demo's investigation table (formatted cells for the template): each model, then the
    exact naive baselines."""
    rows = []
    for record in summary.models:
        rows.append({"name": record.model, "n": record.n_episodes, **_verdict_cells(record),
                     "coverage": _fmt(record.coverage), "signal_recall": _fmt(record.signal_recall)})  # fmt: skip
    for name, baseline in summary.baselines.items():
        rows.append({"name": f"baseline: {name.replace('_', ' ')}", "n": "exact", **_verdict_cells(baseline),
                     "coverage": "–", "signal_recall": "–"})  # fmt: skip
    return rows


def demo_styles(prompt_styles: str) -> tuple[str, ...]:
    """The prompt styles of `--prompt-styles` (a comma list of zero, few); BadInputError for any other."""
    from lexprobe.errors import BadInputError

    styles = tuple(s.strip() for s in prompt_styles.split(",") if s.strip())
    if not styles or set(styles) - {"zero", "few"}:
        raise BadInputError(f"unknown prompt style(s) in {prompt_styles!r}; valid: zero, few")
    return styles


def write_demo_report(folder: Path, html: Path, styles: tuple[str, ...], cases: str, *, temporary: bool,
                      investigation: ScoreSummary | None, investigation_notes: list[str]) -> None:  # fmt: skip
    """Write the demo's HTML report of the runs in `folder`: the profile beside the paper's published rates (with
    the design differences), and the investigation table. BadInputError when `html` cannot be written."""
    from lexprobe.caselaw.judges import load_roster
    from lexprobe.errors import BadInputError
    from lexprobe.hallucination.paper_figures.compare import paper_comparison
    from lexprobe.hallucination.profile.results import read_runs
    from lexprobe.hallucination.profile.stats import profile
    from lexprobe.hallucination.report.html import write_html_report  # matplotlib: imported only when needed

    infos, units = read_runs([folder])
    # the figures pool few-shot answers as the study's do; a zero-shot-only demo pools its zero-shot ones
    stats = profile(units, load_roster(), prompt_style="few" if "few" in styles else "zero")
    models = [info.as_row() for info in infos]
    for row in models:
        row["sample"] = cases  # how the cases were chosen, for the report's header
        if temporary:
            row["run_dir"] = "a temporary folder, removed after the demo"
    reference = paper_comparison(stats, models, units)
    try:
        rows = investigation_rows(investigation) if investigation else None
        write_html_report(html, models, stats, units, rows,
                          coverage=[row for info in infos for row in info.coverage_rows()], paper=reference,
                          investigation_notes=investigation_notes)  # fmt: skip
    except OSError as exc:
        raise BadInputError(f"cannot write {html}: {exc}") from None
