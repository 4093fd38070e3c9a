"""The command line's structure (issue 16): one error handler, shared model options on every command that talks to a
model, a working --help everywhere, and the `lexprobe.cli` package layout."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

import lexprobe.cli.toplevel
from lexprobe.cli import app
from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.options import DEFAULT_RETRIES, ENGINE_DEFAULTS, EngineOptions, engine_options, option_group
from lexprobe.errors import BadInputError, LexprobeError

CLI_DIR = Path(lexprobe.cli.__file__).parent
ENGINE_FLAGS = ("--max-retries", "--timeout", "--concurrency")
#: options that name a model a command sends requests to
MODEL_OPTIONS = {"--model", "--generator"}
#: the commands that talk to a model, found by MODEL_OPTIONS (kept here so that a command losing its model option
#: fails this test instead of dropping out of the table)
MODEL_COMMANDS = {
    "ask",
    "demo",
    "hallucination run",
    "investigation build",
    "investigation qa",
    "investigation run",
}


def _commands(group, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    found = []
    for name, command in group.commands.items():
        path = (*prefix, name)
        found.append((path, command))
        if _is_group(command):
            found.extend(_commands(command, path))
    return found


def _is_group(command) -> bool:
    return hasattr(command, "commands")  # typer's click is vendored: no isinstance against the click package


ROOT = get_command(app)
COMMANDS = _commands(ROOT)
LEAVES = [(path, command) for path, command in COMMANDS if not _is_group(command)]


def _options(command) -> set[str]:
    return {option for param in command.params for option in param.opts}


def test_model_commands_are_the_expected_ones() -> None:
    found = {" ".join(path) for path, command in LEAVES if _options(command) & MODEL_OPTIONS}
    assert found == MODEL_COMMANDS


@pytest.mark.parametrize("path", sorted(MODEL_COMMANDS))
@pytest.mark.parametrize("flag", ENGINE_FLAGS)
def test_every_model_command_takes_the_engine_flags(path: str, flag: str) -> None:
    command = dict((" ".join(p), c) for p, c in LEAVES)[path]
    assert flag in _options(command), f"`lexprobe {path}` lacks {flag}"
    assert "--no-cache" in _options(command)


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=" ".join)
def test_help_of_every_command_works(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (BadInputError("no such file: x.jsonl"), 2),
        (LexprobeError("3 requests still pending; rerun to resume", exit_code=1), 1),
        (LexprobeError("stopped", exit_code=130), 130),
    ],
)
def test_lexprobe_error_exits_with_its_code_and_one_line(monkeypatch, error: LexprobeError, code: int) -> None:
    def fail():
        raise error

    monkeypatch.setattr(lexprobe.cli.toplevel, "model_status", fail)
    result = CliRunner().invoke(app, ["models"])
    assert result.exit_code == code
    assert result.stdout == ""
    assert result.stderr.strip() == f"error: {error}"
    assert len(result.stderr.strip().splitlines()) == 1


def test_unexpected_exception_is_not_bad_input(monkeypatch) -> None:
    def bug():
        raise ValueError("a library bug")

    monkeypatch.setattr(lexprobe.cli.toplevel, "model_status", bug)
    result = CliRunner().invoke(app, ["models"])
    assert isinstance(result.exception, ValueError)  # not turned into a LexprobeError or a clean exit
    assert result.exit_code == 1
    assert "error:" not in result.stderr


def test_unexpected_exception_shows_its_traceback_from_the_entry_point() -> None:
    script = (
        "import lexprobe.cli.toplevel as t\n"
        "def bug():\n    raise ValueError('a library bug')\n"
        "t.model_status = bug\n"
        "from lexprobe.cli import app\n"
        "app(['models'])\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Traceback (most recent call last)" in proc.stderr
    assert "ValueError: a library bug" in proc.stderr
    assert "error: a library bug" not in proc.stderr


def test_every_app_uses_the_one_handler() -> None:
    from lexprobe.cli.handler import LexprobeGroup

    groups = [ROOT] + [command for _, command in COMMANDS if _is_group(command)]
    assert all(isinstance(group, LexprobeGroup) for group in groups)


@pytest.mark.parametrize("module", sorted(CLI_DIR.glob("*.py")), ids=lambda p: p.name)
def test_cli_modules_are_small_and_catch_no_bare_value_error(module: Path) -> None:
    source = module.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 500
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            names = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            caught = {name.id for name in names if isinstance(name, ast.Name)}
            assert not caught & {"ValueError", "Exception", "RuntimeError"}, f"{module.name}:{node.lineno}"


# --- shared option groups (lexprobe.cli.options) ------------------------------------------------------------------


def _group_app():
    seen: list[tuple[str, EngineOptions]] = []
    group_app = typer.Typer(cls=LexprobeGroup)

    @group_app.command("full")
    @engine_options(dry_run=True)
    def full(name: str = "x", engine: EngineOptions = ENGINE_DEFAULTS, last: bool = False) -> None:
        seen.append((name, engine))

    @group_app.command("lean")
    @engine_options(concurrency=False)
    def lean(engine: EngineOptions = ENGINE_DEFAULTS) -> None:
        seen.append(("lean", engine))

    return group_app, seen


def test_engine_options_put_the_shared_flags_in_place_of_the_engine_parameter() -> None:
    group_app, _ = _group_app()
    command = get_command(group_app).commands["full"]
    names = [param.name for param in command.params]
    shared = ["concurrency", "no_cache", "dry_run", "max_retries", "timeout", "ray", "ray_workers"]
    assert names == ["name", *shared, "last"]
    lean = get_command(group_app).commands["lean"]
    assert [param.name for param in lean.params] == ["no_cache", "max_retries", "timeout", "ray", "ray_workers"]


def test_engine_options_call_the_command_with_one_engine_options_object() -> None:
    group_app, seen = _group_app()
    args = ["full", "--name", "y", "--concurrency", "3", "--no-cache", "--dry-run", "--max-retries", "1"]
    result = CliRunner().invoke(group_app, [*args, "--timeout", "2.5", "--last"])
    assert result.exit_code == 0, result.output
    assert seen == [("y", EngineOptions(concurrency=3, no_cache=True, dry_run=True, max_retries=1, timeout=2.5))]
    assert CliRunner().invoke(group_app, ["lean"]).exit_code == 0
    assert seen[-1] == ("lean", EngineOptions(max_retries=DEFAULT_RETRIES))
    config = seen[0][1].config(progress=False)
    assert (config.concurrency, config.use_cache, config.max_retries, config.timeout_s) == (3, False, 1, 2.5)
    assert seen[0][1].cache() is None


def test_an_option_group_needs_its_parameter() -> None:
    def command(other: int = 0) -> None:
        """No `engine` parameter."""

    with pytest.raises(TypeError, match="engine"):
        option_group(command, "engine", EngineOptions, {})


@pytest.mark.parametrize(
    ("formatter", "args", "text"),
    [
        ("pct", (1 / 3,), "33.3%"),
        ("pct", (None,), "–"),
        ("interval", ((0.2, 0.45),), "[20.0, 45.0]"),
        ("interval", (None,), "–"),
        ("num", (1234.5,), "1,234.50"),
        ("num", (1234.56, 1), "1,234.6"),
        ("num", (None,), "–"),
        ("fixed", (0.125,), "0.125"),
        ("fixed", (0.5, 2), "0.50"),
        ("fixed", (None,), "-"),
        ("share", (1 / 3,), "33.3%"),
        ("share", (None,), "-"),
        ("rate_se", (0.5, 0.02), "0.500 (0.020)"),
        ("rate_se", (None, None), "-"),
    ],
)
def test_number_formatters_have_one_home(formatter: str, args: tuple, text: str) -> None:
    import lexprobe.cli.output
    import lexprobe.reporting.numbers

    assert getattr(lexprobe.reporting.numbers, formatter)(*args) == text
    assert not hasattr(lexprobe.cli.output, formatter)


def test_root_lists_every_command_in_order_and_runs_one() -> None:
    root = typer.main.get_command(app)
    assert list(root.commands) == [
        "check",
        "mcp",
        "models",
        "ask",
        "demo",
        "export",
        "serve",
        "data",
        "hallucination",
        "investigation",
        "batch",
        "view",
    ]
    result = CliRunner().invoke(app, ["hallucination", "tasks", "--json"])
    assert result.exit_code == 0, result.output
    assert '"existence"' in result.stdout


def test_an_unknown_command_is_a_usage_error_with_a_suggestion() -> None:
    result = CliRunner().invoke(app, ["halucination"])
    assert result.exit_code == 2
    assert "hallucination" in result.output
