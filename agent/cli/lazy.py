"""Sub-commands imported when they are used: `opsagent policy check` loads the policy gate, not
the transcript renderer, the inbox or the other sub-commands (agent/cli/main.py, SUBCOMMANDS).

A group built with `lazy_group(table)` keeps its own commands and adds the table's, each named
'module:attribute': a `typer.Typer` is mounted as a group of sub-commands (as `add_typer` would),
a function as one command. One is imported and built the first time it is looked up: to run it,
for its `--help`, or for the root's `--help` (which lists them all).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any

import typer
from typer.core import TyperGroup

from agent.cli.help import word_metavars


class LazyCommands(MutableMapping[str, Any]):
    """A group's commands by name: those built, then the table's, built on first lookup.

    Names, order and membership come from the table without importing anything, so listing,
    `No such command` and its suggestions cost nothing; only a lookup by name builds."""

    def __init__(self, built: Mapping[str, Any], table: Mapping[str, str], build: Callable[[str, Any], Any]) -> None:
        self._built = dict(built)
        self._table = {name: spec for name, spec in table.items() if name not in self._built}
        self._order = [*self._built, *self._table]
        self._build = build

    def __getitem__(self, name: str) -> Any:
        found = self._built.get(name)
        if found is None:
            module, _, attribute = self._table[name].partition(":")  # KeyError: no such command
            found = self._build(name, getattr(importlib.import_module(module), attribute))
            self._built[name] = found
        return found

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self._built and name not in self._table:
            self._order.append(name)
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._built and name not in self._table:
            raise KeyError(name)
        self._built.pop(name, None)
        self._table.pop(name, None)
        self._order.remove(name)

    def __contains__(self, name: object) -> bool:
        return name in self._built or name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def built(self) -> list[Any]:
        """The commands built so far (what a walk over the tree may visit without importing)."""
        return [self._built[n] for n in self._order if n in self._built]


def lazy_group(table: Mapping[str, str]) -> type[TyperGroup]:
    """A root group class (`typer.Typer(cls=...)`) whose commands include `table`'s."""

    class LazyGroup(TyperGroup):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.commands = LazyCommands(self.commands, table, self._mount)

        def _mount(self, name: str, target: Any) -> Any:
            # built as the root would have built it when mounted eagerly: the same markup mode
            # and suggestions, and option values named in words (agent/cli/help.py)
            host = typer.Typer(
                rich_markup_mode=self.rich_markup_mode, suggest_commands=self.suggest_commands, add_completion=False
            )
            if isinstance(target, typer.Typer):
                host.add_typer(target, name=name)
            else:
                host.command(name)(target)
            return word_metavars(typer.main.get_group(host).commands[name])

    return LazyGroup
