"""The root app's commands are built on first lookup (`lexprobe.cli.lazy_commands`): listing names builds nothing,
looking one up builds only its source, walking them all builds every one in declared order, and the tree and help
are the ones the app shows."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from lexprobe.cli import RootGroup, app
from lexprobe.cli.lazy_commands import LazyCommands, command_group, registered_commands


def _counting_sources(calls: list[str]) -> dict:
    def source(*names: str):
        def build():
            calls.append(names[0])
            holder = typer.Typer()
            for name in names:
                holder.command(name)(lambda: None)
            return dict(typer.main.get_group(holder).commands)

        return build

    pair = source("one", "two")
    return {"one": pair, "two": pair, "three": source("three")}


def test_names_and_membership_build_nothing() -> None:
    calls: list[str] = []
    commands = LazyCommands(_counting_sources(calls))
    assert list(commands) == ["one", "two", "three"]
    assert "two" in commands and "four" not in commands
    assert len(commands) == 3
    assert calls == []


def test_a_lookup_builds_its_source_once() -> None:
    calls: list[str] = []
    commands = LazyCommands(_counting_sources(calls))
    assert commands["two"].name == "two"
    assert commands.get("one").name == "one"  # built with "two": one source, one build
    assert commands.get("four") is None
    assert calls == ["one"]
    assert dict(commands.items()).keys() == {"one", "two", "three"}
    assert calls == ["one", "three"]


def test_added_commands_are_kept_and_listed_after_the_declared_ones() -> None:
    calls: list[str] = []
    built = typer.main.get_group(_app_with("extra"))
    commands = LazyCommands(_counting_sources(calls), {"extra": built.commands["extra"]})
    assert list(commands) == ["one", "two", "three", "extra"]
    del commands["extra"]
    del commands["three"]  # declared, never built
    assert list(commands) == ["one", "two"] and calls == []
    with pytest.raises(KeyError):
        del commands["three"]


def _app_with(*names: str) -> typer.Typer:
    holder = typer.Typer()
    for name in names:
        holder.command(name)(lambda: None)
    holder.command("unused")(lambda: None)
    return holder


def test_sources_build_the_real_commands() -> None:
    group = command_group("hallucination", "lexprobe.cli.hallucination", "hallucination_app")()["hallucination"]
    assert group.name == "hallucination"
    assert {"run", "tasks", "export-labels", "agreement"} <= set(group.commands)
    assert set(registered_commands("lexprobe.cli.toplevel")()) == {"models", "ask", "demo"}


def test_root_lists_every_command_in_order_and_runs_one() -> None:
    root = typer.main.get_command(app)
    assert isinstance(root, RootGroup)
    assert list(root.commands) == [
        "check",
        "models",
        "ask",
        "demo",
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
