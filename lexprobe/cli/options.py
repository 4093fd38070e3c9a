"""The options shared by lexprobe commands, defined once as `Annotated` aliases, and what they turn into.

Every command that talks to a model takes `--model` (or names its model options otherwise) and the engine options
`--concurrency`, `--no-cache`, `--max-retries`, `--timeout`, `--ray`, `--ray-workers` (and `--dry-run` where it can
count a job first). Typer
has no option groups, so the `engine_options` decorator supplies them: the command declares one `engine:
EngineOptions` parameter, the decorator puts the shared options in its place in the signature Typer reads and calls
the command with the `EngineOptions` they make. `option_group` does the same for any other dataclass of options
that several commands share.

Options whose help names what a command prints or keeps (`--json`, `--run-dir`) are built by `json_flag` and
`run_dir_option`, so the flag itself is still spelled in one place.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lexprobe.models.spec import valid_forms_text

if TYPE_CHECKING:  # imported where used: `lexprobe --help` needs none of them
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig

__all__ = [
    "ENGINE_DEFAULTS",
    "HTML_REPORT_HELP",
    "MODEL_HELP",
    "DbOpt",
    "EngineOptions",
    "JsonOpt",
    "ModelOpt",
    "concurrency_option",
    "engine_options",
    "html_option",
    "json_flag",
    "open_case_db",
    "option_group",
    "run_dir_option",
]

MODEL_HELP = f"Model spec, one of: {valid_forms_text()}. `lexprobe models` explains each form."
DEFAULT_RETRIES = 6

ModelOpt = Annotated[str, typer.Option("--model", "-m", help=MODEL_HELP)]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="Case database (default: caselaw.sqlite in the cache, `lexprobe data build`)."),
]


def bare_ray_means_local(argv: list[str]) -> list[str]:
    """Return `argv` with `local` after each `--ray` that has no address: the last word, or one followed by another
    option (`-...`), as Click reads an option whose value may be omitted. Words after `--` are left as they are."""
    words: list[str] = []
    for index, word in enumerate(argv):
        words.append(word)
        if word == "--":
            return words + argv[index + 1 :]
        following = argv[index + 1] if index + 1 < len(argv) else None
        if word == "--ray" and (following is None or (following.startswith("-") and len(following) > 1)):
            words.append("local")
    return words


def concurrency_option(help: str) -> Any:
    """Return the `--concurrency` option type with `help` (what runs in parallel differs between commands)."""
    return Annotated[int | None, typer.Option("--concurrency", min=1, help=help)]


def json_flag(help: str = "Print JSON instead of tables.") -> Any:
    """Return the `--json` flag type with `help` saying what the command prints."""
    return Annotated[bool, typer.Option("--json", help=help)]


def html_option(help: str) -> Any:
    """Return the optional `--html` option type (default None) with `help` saying what the page shows."""
    return Annotated[Path | None, typer.Option("--html", help=help)]


#: The `--html` option of the report commands (`hallucination report`, `investigation score`).
HTML_REPORT_HELP = "Also write a self-contained HTML report (figures embedded)."


def run_dir_option(help: str) -> Any:
    """Return the `--run-dir` option type with `help` saying what the command keeps there."""
    return Annotated[Path, typer.Option("--run-dir", help=help)]


JsonOpt = json_flag()


@dataclass(frozen=True)
class EngineOptions:
    """The engine options of one command invocation, as `engine_options` collects them."""

    concurrency: int | None = None
    no_cache: bool = False
    dry_run: bool = False
    max_retries: int = DEFAULT_RETRIES
    timeout: float | None = None
    batch: bool = False
    ray: str | None = None
    ray_workers: int | None = None

    def config(self, *, progress: bool | None = None) -> EngineConfig:
        """Return the engine settings of the command; a progress bar only when stderr is a terminal (unless
        `progress`). A `--ray` address is checked here (its form, the package installed), before any work."""
        from lexprobe.engine.config import EngineConfig

        ray = self.ray
        if ray is not None:
            from lexprobe.engine.ray_setup import check_ray_address

            ray = check_ray_address(ray)
        return EngineConfig(
            concurrency=self.concurrency,
            use_cache=not self.no_cache,
            max_retries=self.max_retries,
            timeout_s=self.timeout,
            progress=sys.stderr.isatty() if progress is None else progress,
            batch=self.batch,
            ray=ray,
            ray_workers=self.ray_workers,
        )

    def cache(self) -> ResponseCache | None:
        """Return the shared response cache, or None under `--no-cache`, and under `--dry-run` while there is no
        cache yet (a dry run creates no file: with no cache, nothing is a cache hit)."""
        from lexprobe.engine.cache import CACHE_DB_NAME, ResponseCache, default_cache_dir

        if self.no_cache or (self.dry_run and not (default_cache_dir() / CACHE_DB_NAME).is_file()):
            return None
        return ResponseCache()


#: The default of a command's `engine` parameter (the decorator always passes one).
ENGINE_DEFAULTS = EngineOptions()

#: The option type of each `EngineOptions` field, in the order `--help` lists them.
ENGINE_OPTION_TYPES = {
    "concurrency": concurrency_option(
        "Requests in flight per model, per replica for openai-compatible/MODEL@URL1,URL2 (default: 1 embedded, "
        "4 compatible servers, 8-16 APIs)."
    ),
    "no_cache": Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the shared response cache (LEXPROBE_CACHE).")
    ],
    "dry_run": Annotated[
        bool, typer.Option("--dry-run", help="Print how many requests, tokens and dollars the job needs; send nothing.")
    ],
    "max_retries": Annotated[
        int, typer.Option("--max-retries", min=0, help="Retries on rate limits, 5xx, timeouts and resets.")
    ],
    "timeout": Annotated[float | None, typer.Option("--timeout", min=0.1, help="Per-request time limit in seconds.")],
    "batch": Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Send the pending single-turn requests of openai/, anthropic/ and openai-compatible/ models through "
            "the provider's batch API: half the price, answers within its 24 h window; the command waits, polling, and "
            "a rerun resumes the same batches (`lexprobe batch status RUN_DIR`). Multi-turn agent calls stay "
            "synchronous.",
        ),
    ],
    "ray": Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="ADDRESS",
            help="Send the model calls to Ray workers, one model client each (pip install 'lexprobe\\[ray]'): `--ray` "
            "alone (last, or before another option) or `--ray local` starts a local Ray instance, `auto` or "
            "`ray://HOST:PORT` joins a cluster. This process still writes the "
            "run store, so the run resumes and reports as a local one; investigation episodes and QA questions run "
            "whole on the workers, their tools and sandbox there.",
        ),
    ],
    "ray_workers": Annotated[
        int | None,
        typer.Option(
            "--ray-workers",
            min=1,
            help="With --ray: workers per model (default: one per free CPU for the embedded model, one per node for "
            "endpoints); where --concurrency counts requests, it then counts them per worker.",
        ),
    ],
}


def engine_options(
    *, concurrency: bool = True, dry_run: bool = False, batch: bool = False
) -> Callable[[Callable], Callable]:
    """Return a decorator that gives a command the shared engine options in place of its `engine: EngineOptions`
    parameter: `--concurrency` (unless `concurrency` is False: the command has its own), `--no-cache`, `--dry-run`
    (only if `dry_run`), `--max-retries`, `--timeout`, `--batch` (only if `batch`), `--ray` and `--ray-workers`;
    the command is called with `engine=EngineOptions(...)`."""
    chosen = {"concurrency": concurrency, "dry_run": dry_run, "batch": batch}
    types = {name: kind for name, kind in ENGINE_OPTION_TYPES.items() if chosen.get(name, True)}
    return lambda command: option_group(command, "engine", EngineOptions, types)


def option_group(command: Callable, parameter: str, group: type, types: dict[str, Any]) -> Callable:
    """Return `command` with its `parameter` (a frozen dataclass `group`) replaced, in the signature Typer reads, by
    one option per entry of `types` (field name -> `Annotated` option type, in `--help` order; defaults from the
    dataclass); the returned command calls `command` with `parameter=group(**those options)`."""
    signature = inspect.signature(command, eval_str=True)
    if parameter not in signature.parameters:
        raise TypeError(f"{command.__name__} has no `{parameter}` parameter")
    defaults = {field.name: field.default for field in fields(group)}
    parameters: list[inspect.Parameter] = []
    for current in signature.parameters.values():
        if current.name != parameter:
            parameters.append(current)
            continue
        parameters += [inspect.Parameter(name, current.kind, default=defaults[name], annotation=kind)
                       for name, kind in types.items()]  # fmt: skip

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(name) for name in types if name in kwargs}
        return command(*args, **{parameter: group(**values)}, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": signature.return_annotation}
    return wrapper


def open_case_db(db: Path | None) -> CaseDatabase:
    """Open the case database at `--db` (or the default); a missing one is a `BadInputError` naming the fix."""
    from lexprobe.caselaw.query import open_case_database

    return open_case_database(db)
