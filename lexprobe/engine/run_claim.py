"""Whose run a run store holds: the kinds of run (`hallucination`, `investigation`, `qa`, `ask`) and the model it
was claimed for, and the settings it was run with. A run directory belongs to one kind of run (with its companions)
and one model, and resumes only with the same settings; anything else raises `RunConflictError` naming what differs.

`RunClaim` holds these checks as methods of `lexprobe.engine.store.RunStore`, which inherits them; they read and
write the store's `meta` table through `get_meta` / `set_meta`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexprobe.errors import LexprobeError

__all__ = ["LEGACY_KIND_KEYS", "RunClaim", "RunConflictError", "settings_changes"]


class RunConflictError(LexprobeError, ValueError):
    """A request id is already in the run with different content (two different jobs share a run directory)."""


#: Meta keys by which stores written before run kinds were recorded tell their kind.
LEGACY_KIND_KEYS = {"settings": "hallucination", "investigation_settings": "investigation", "qa_settings": "qa"}


def _show(value: Any) -> str:
    return "-" if value is None else json.dumps(value, sort_keys=True)


def settings_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Return "key: old -> new" for every setting that differs (a setting missing on one side shows as -)."""
    keys = list(old) + [key for key in new if key not in old]
    return [f"{key}: {_show(old.get(key))} -> {_show(new.get(key))}" for key in keys if old.get(key) != new.get(key)]


def _article(kind: str) -> str:
    return "an" if kind[:1] in "aeiou" else "a"


class RunClaim:
    """The claim checks of a run store (mixed into `RunStore`, which provides `get_meta`, `set_meta`, `run_dir`)."""

    if TYPE_CHECKING:
        run_dir: Path

        def get_meta(self, key: str) -> Any: ...

        def set_meta(self, key: str, value: Any) -> None: ...

    def kinds(self) -> list[str]:
        """Return the kinds of run this store holds (`hallucination`, `investigation`, `qa`, `ask`), [] when new.

        Stores written before kinds were recorded are told by their settings keys."""
        recorded = self.get_meta("kinds")
        if recorded:
            return list(recorded)
        return [kind for key, kind in LEGACY_KIND_KEYS.items() if self.get_meta(key) is not None]

    def check_claim(self, kind: str, model: str, companions: Iterable[str] = ()) -> None:
        """Raise `RunConflictError` unless this store is new or holds `kind` runs (or `companions`) of `model`.

        A run directory belongs to one kind of run and one model: anything else would be reported as that model's.
        """
        kinds = self.kinds()
        previous_model = self.get_meta("model")
        allowed = {kind, *companions}
        other_kinds = [k for k in kinds if k not in allowed]
        differs = []
        if other_kinds:
            differs.append(f"kind {'+'.join(kinds)} vs {kind}")
        if previous_model is not None and previous_model != model:
            differs.append(f"model {previous_model} vs {model}")
        if differs:
            held = "+".join(kinds) if kinds else "another"
            raise RunConflictError(
                f"{self.run_dir} holds {_article(held)} {held} run of {previous_model or 'another model'}, not "
                f"{_article(kind)} {kind} run of {model} ({'; '.join(differs)}); use a new --run-dir"
            )

    def claim(self, kind: str, model: str, companions: Iterable[str] = ()) -> None:
        """`check_claim`, then record that this store holds a `kind` run of `model`."""
        self.check_claim(kind, model, companions)
        kinds = self.kinds()
        if kind not in kinds:
            self.set_meta("kinds", [*kinds, kind])
        self.set_meta("model", model)

    def check_settings(self, key: str, settings: dict[str, Any], comparable: Any = None) -> None:
        """Raise `RunConflictError` naming every setting that differs ("key: old -> new") when the store already
        holds other `key` settings; `comparable` maps stored and new settings to the form in which they are
        compared (the same tasks in another order are the same run)."""
        previous = self.get_meta(key)
        if previous is None:
            return
        same = comparable or (lambda value: value)
        changes = settings_changes(same(previous), same(settings))
        if changes:
            raise RunConflictError(
                f"{self.run_dir} holds a run with other settings ({'; '.join(changes)}); rerun with the same "
                "settings to resume, or use a new --run-dir"
            )
