"""`lexprobe investigation score RUN_DIR...`: score investigation episodes (case solved, class accuracies,
commitment, coverage and signal recall, usage), with bootstrap intervals, exact naive baselines and paired
comparisons. Thin: load, call lexprobe.investigation.scoring, print. Results go to stdout; notes (missing
environments, episodes left out) to stderr.

Exit codes: 0 scored; 2 bad input (a RUN_DIR that is not a directory, holds no episodes or a malformed one, or no
complete episode at all).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from lexprobe.cli_common import err, error_exit, out
from lexprobe.investigation.environment import ENVIRONMENT_FILE, Environment, load_environment
from lexprobe.investigation.episode import EPISODES_DIR, Episode, load_episodes
from lexprobe.investigation.scoring import (
    DEFINITIONS,
    complete_episodes,
    coverage_points,
    role_recall_table,
    summarize,
)


def register(app: typer.Typer) -> None:
    """Add the `score` command to the `lexprobe investigation` app."""
    app.command("score")(score)


def resolve_env_dir(episode: Episode, run_dir: Path, env_root: Path | None) -> Path | None:
    """Find an episode's environment folder (one holding environment.json): under --env-root first (ENV_ROOT/env_dir
    for a relative env_dir, ENV_ROOT/<folder name of env_dir>, ENV_ROOT/<case id>), then env_dir itself, then
    env_dir relative to the run directory. None when none of them holds an environment.json."""
    recorded = Path(episode.env_dir) if episode.env_dir else None
    candidates: list[Path] = []
    if env_root is not None:
        if recorded is not None and not recorded.is_absolute():
            candidates.append(env_root / recorded)
        if recorded is not None and recorded.name:
            candidates.append(env_root / recorded.name)
        candidates.append(env_root / episode.environment)
    if recorded is not None:
        candidates.append(recorded)
        if not recorded.is_absolute():
            candidates.append(run_dir / recorded)
    return next((path for path in candidates if (path / ENVIRONMENT_FILE).is_file()), None)


def load_environments(
    runs: list[tuple[Path, list[Episode]]], env_root: Path | None
) -> tuple[dict[str, Environment | None], list[str]]:
    """Load each distinct environment once; return env_dir -> Environment (None when missing or unreadable) and
    the notes to print."""
    cache: dict[Path, Environment | None] = {}
    environments: dict[str, Environment | None] = {}
    notes: list[str] = []
    for run_dir, episodes in runs:
        for episode in episodes:
            if episode.env_dir in environments:
                continue
            folder = resolve_env_dir(episode, run_dir, env_root)
            if folder is None:
                environments[episode.env_dir] = None
                notes.append(
                    f"environment {episode.env_dir or episode.environment!r} not found: coverage and "
                    "recall are null for its episodes (pass --env-root)"
                )
                continue
            key = folder.resolve()
            if key not in cache:
                try:
                    cache[key] = load_environment(folder)[0]
                except (OSError, ValueError) as exc:
                    cache[key] = None
                    notes.append(f"environment {folder} unreadable ({exc}): coverage and recall are null for it")
            environments[episode.env_dir] = cache[key]
    return environments, notes


def _read_runs(run_dirs: list[Path]) -> list[tuple[Path, list[Episode]]]:
    runs = []
    for run_dir in run_dirs:
        if not run_dir.is_dir():
            raise error_exit(f"{run_dir} is not a directory")
        try:
            episodes = load_episodes(run_dir)
        except ValueError as exc:
            raise error_exit(str(exc)) from None
        if not episodes:
            raise error_exit(f"{run_dir} holds no episodes ({run_dir / EPISODES_DIR}/*.json)")
        runs.append((run_dir, episodes))
    return runs


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _ci(ci: list[float] | None) -> str:
    return "–" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def print_summary(summary: dict, role_rows: list[dict] | None = None) -> None:
    """Rich tables of a `summarize` result (and of `role_recall_table` rows) on stdout."""
    # piped output gets room for the wide tables instead of rich's 80-column default
    console = out if out.is_terminal else Console(width=max(out.width, 160))
    table = Table(title="Investigation scores")
    for column in (
        "model",
        "n",
        "case solved",
        "95% CI",
        "believe",
        "don't believe",
        "worst class",
        "commit",
        "committed acc",
        "coverage",
        "signal recall",
    ):
        table.add_column(column, justify="left" if column == "model" else "right")
    for m in summary["models"]:
        table.add_row(
            escape(m["model"]),
            str(m["n_episodes"]),
            _pct(m["case_solved"]),
            _ci(m["case_solved_ci"]),
            _pct(m["believe_acc"]),
            _pct(m["reject_acc"]),
            _pct(m["worst_class_acc"]),
            _pct(m["commit_rate"]),
            _pct(m["committed_acc"]),
            _pct(m["coverage"]),
            _pct(m["signal_recall"]),
        )
    for name, b in summary["baselines"].items():
        table.add_row(
            f"[dim]baseline: {name}[/]",
            "exact",
            _pct(b["case_solved"]),
            "",
            _pct(b["believe_acc"]),
            _pct(b["reject_acc"]),
            _pct(b["worst_class_acc"]),
            _pct(b["commit_rate"]),
            _pct(b["committed_acc"]),
            "",
            "",
        )
    console.print(table)

    levels = {level for m in summary["models"] for level in m["by_ablation"]}
    if len(levels) > 1:
        ablation = Table(title="By ablation level")
        for column in ("model", "level", "n", "case solved", "95% CI", "worst class", "coverage", "signal recall"):
            ablation.add_column(column, justify="left" if column in ("model", "level") else "right")
        for m in summary["models"]:
            for level, c in m["by_ablation"].items():
                ablation.add_row(
                    escape(m["model"]),
                    escape(level),
                    str(c["n_episodes"]),
                    _pct(c["case_solved"]),
                    _ci(c["case_solved_ci"]),
                    _pct(c["worst_class_acc"]),
                    _pct(c["coverage"]),
                    _pct(c["signal_recall"]),
                )
        console.print(ablation)

    usage = Table(title="Usage per episode (mean; totals)")
    for column in (
        "model",
        "tool calls",
        "denied",
        "input tokens",
        "output tokens",
        "cost $",
        "cost total $",
        "wall s",
    ):
        usage.add_column(column, justify="left" if column == "model" else "right")
    for m in summary["models"]:
        cost = m["cost_usd"]
        usage.add_row(
            escape(m["model"]),
            _num(m["tool_calls"]["mean"]),
            _num(m["tool_calls"]["denied_mean"]),
            _num(m["tokens"]["input"]["mean"], 0),
            _num(m["tokens"]["output"]["mean"], 0),
            _num(cost["mean"], 4),
            _num(cost["total"], 2) + (f" ({cost['unknown']} unknown)" if cost["unknown"] else ""),
            _num(m["wall_s"]["mean"]),
        )
    console.print(usage)

    if summary["comparisons"]:
        paired = Table(title="Paired comparisons (b − a, bootstrap over shared environments)")
        for column in ("kind", "a", "b", "envs", "case solved", "95% CI", "> 0", "worst class", "95% CI ", "> 0 "):
            paired.add_column(column, justify="left" if column in ("kind", "a", "b") else "right")
        for c in summary["comparisons"]:
            kind = c["kind"] + (f": {c['model']}" if c["model"] else "")
            cs, wc = c["case_solved"], c["worst_class_acc"]
            paired.add_row(
                escape(kind),
                escape(c["a"]),
                escape(c["b"]),
                str(c["n_environments"]),
                _pct(cs["difference"]),
                _ci(cs["ci"]),
                _pct(cs["share_above_zero"]),
                _pct(wc["difference"]),
                _ci(wc["ci"]),
                _pct(wc["share_above_zero"]),
            )
        console.print(paired)
    if role_rows:
        roles = Table(title="Recall by document role (mean share of the role's documents touched per episode)")
        for column in ("model", "role", "episodes", "documents", "recall"):
            roles.add_column(column, justify="left" if column in ("model", "role") else "right")
        for row in role_rows:
            roles.add_row(
                escape(row["model"]),
                escape(row["role"]),
                str(row["episodes"]),
                _num(row["documents_mean"]),
                _pct(row["recall"]),
            )
        console.print(roles)
    if summary["unparsed"]:
        console.print(
            f"{summary['unparsed']} episode(s) had no readable verdict (scored as not solved)", highlight=False
        )


def _definitions_line(dont_know_as_reject: bool) -> str:
    reject = DEFINITIONS["reject_acc" if dont_know_as_reject else "reject_acc_strict"]
    return (
        f"case solved: {DEFINITIONS['case_solved']}. believe: {DEFINITIONS['believe_acc']}; don't believe: "
        f"{reject}; worst class: {DEFINITIONS['worst_class_acc']}; commit: {DEFINITIONS['commit_rate']}. "
        f"CI: {DEFINITIONS['case_solved_ci']}. coverage: {DEFINITIONS['coverage']}; signal recall: "
        f"{DEFINITIONS['signal_recall']}."
    )


def score(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run directories holding episodes/*.json (several are pooled by model).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the scores as one JSON object.")] = False,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report (figures embedded).")
    ] = None,
    env_root: Annotated[
        Path | None,
        typer.Option("--env-root", help="Folder to look for the episodes' environments in (by env_dir or case id)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap resamples.")] = 0,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples (0: no intervals).")] = 2000,
    strict_reject: Annotated[
        bool,
        typer.Option(
            "--strict-reject",
            help='Count only "don\'t believe" as correct on the do-not-believe class '
            '(default: "don\'t know" counts too, as not believing).',
        ),
    ] = False,
) -> None:
    """Score investigation runs: case solved (95% cluster-bootstrap CI), class accuracies, commitment, coverage.

    Pools the complete episodes of every RUN_DIR by model and by model x ablation level, and prints the exact naive
    baselines (uniform random, believe one at random, always reject) and paired bootstrap comparisons between
    models and between consecutive ablation levels. Definitions: docs/investigation.md ("Scoring").

    Exit status: 0 scored; 2 a RUN_DIR is missing, holds no episodes or a malformed one, or none is complete.

    Example: `lexprobe investigation score runs/haiku runs/sonnet --env-root envs --html scores.html`
    """
    runs = _read_runs(run_dirs)
    every = [episode for _, episodes in runs for episode in episodes]
    episodes, left_out = complete_episodes(every)
    if not episodes:
        raise error_exit(
            f"no complete episode to score in {', '.join(str(r) for r in run_dirs)} ({len(left_out)} running or failed)"
        )
    notes = []
    if left_out:
        notes.append(f"{len(left_out)} episode(s) running or failed were left out")
    seen: set[tuple[str, str]] = set()
    repeated = 0
    for episode in episodes:
        key = (episode.episode_id, episode.ablation)
        repeated += key in seen
        seen.add(key)
    if repeated:
        notes.append(f"{repeated} episode id(s) appear in more than one run directory; each copy is scored")
    environments, env_notes = load_environments(runs, env_root)
    notes.extend(env_notes)
    for note in notes:
        err.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    summary = summarize(episodes, environments, replicates=bootstrap, seed=seed, dont_know_as_reject=not strict_reject)
    if html is not None:
        from lexprobe.investigation.investigation_report import write_investigation_report

        try:
            write_investigation_report(
                html,
                summary,
                runs=[str(r) for r in run_dirs],
                points=coverage_points(episodes, environments),
                role_rows=role_recall_table(episodes, environments),
                notes=notes,
                settings={"seed": seed, "replicates": bootstrap, "dont_know_as_reject": not strict_reject},
            )
        except OSError as exc:
            raise error_exit(f"cannot write {html}: {exc}") from None
        err.print(f"wrote {html}", highlight=False, soft_wrap=True)
    if as_json:
        print(json.dumps(summary))
        return
    print_summary(summary, role_recall_table(episodes, environments))
    out.print(_definitions_line(not strict_reject), highlight=False, soft_wrap=True)
