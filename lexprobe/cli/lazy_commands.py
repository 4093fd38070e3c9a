"""Commands of the root app built on first lookup, so a command imports only its own module.

Typer builds every command of an app (its parameters, their type coercion) and the root app imports every command
module, each time the program starts. `lexprobe hallucination run` would pay for `check`, `data` and the
investigation commands it never runs. The root group (`LazyRootGroup`) keeps its commands in a `LazyCommands`
mapping instead: listing the names costs nothing; looking one up (what Click does to run it or show its help)
imports that command's module and builds it. Walking every command (`lexprobe --help`, tests that visit the whole
tree) builds them all, in the order they are declared.

A source is a zero-argument function returning the commands one module provides, by name: `command_group` for a
Typer sub-app mounted under a name, `registered_commands` for the functions a module's `register(app)` adds.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, ClassVar

import typer

from lexprobe.cli.handler import LexprobeGroup

if TYPE_CHECKING:
    import click

__all__ = ["CommandSource", "LazyCommands", "LazyRootGroup", "command_group", "registered_commands"]

CommandSource = Callable[[], Mapping[str, "click.Command"]]


def command_group(name: str, module: str, attribute: str) -> CommandSource:
    """Source of the Typer app `module.attribute`, mounted as the command group `name`."""

    def build() -> dict[str, click.Command]:
        group = typer.main.get_group(getattr(importlib.import_module(module), attribute))
        group.name = name
        return {name: group}

    return build


def registered_commands(module: str, register: str = "register") -> CommandSource:
    """Source of the commands `module.register(app)` adds to a Typer app (by their names)."""

    def build() -> dict[str, click.Command]:
        holder = typer.Typer()
        getattr(importlib.import_module(module), register)(holder)
        return dict(typer.main.get_group(holder).commands)

    return build


class LazyCommands(MutableMapping[str, "click.Command"]):
    """A group's commands: `names` (name -> source, in listing order) are built on first lookup; commands added
    directly (`group.add_command`) are kept as given. Membership and iteration read names only."""

    def __init__(self, names: Mapping[str, CommandSource], built: Mapping[str, click.Command] | None = None) -> None:
        self._sources = dict(names)
        self._built: dict[str, click.Command] = dict(built or {})

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._built and name in self._sources:
            for built_name, command in self._sources[name]().items():
                self._built.setdefault(built_name, command)
        return self._built[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._sources.pop(name, None)
        self._built.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._sources or name in self._built

    def __iter__(self) -> Iterator[str]:
        yield from self._sources
        yield from (name for name in self._built if name not in self._sources)

    def __len__(self) -> int:
        return len(self._sources.keys() | self._built.keys())


class LazyRootGroup(LexprobeGroup):
    """The root group: a `LexprobeGroup` whose commands are the class's `sources`, built on first lookup."""

    sources: ClassVar[Mapping[str, CommandSource]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands(self.sources, self.commands)
