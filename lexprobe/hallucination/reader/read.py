"""`read_answer`: the value an answer gives as its answer, read with the steps of this package."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexprobe.hallucination.reader.choice import Reading


def _same(kind: str, roster: Sequence[Any]) -> Any:
    """Return the equality of two values of `kind` (judges by name matching; the rest by value)."""
    if kind != "judge":
        return lambda a, b: a == b

    from lexprobe.caselaw.judges import judge_matches, normalize_name

    def same_judge(a: str, b: str) -> bool:
        if a == b:
            return True
        if "per curiam" in (a, b):
            return False
        last_a, last_b = normalize_name(a).split()[-1:], normalize_name(b).split()[-1:]
        return last_a == last_b or judge_matches(a, b) or judge_matches(b, a)

    return same_judge


def read_answer(task: str, text: str, roster: Sequence[Any] | None = None) -> Reading:
    """Return the reading of `text` to a question of `task` (a task of `predicates.toml`): the value chosen, the
    values competing with it, and those set aside. `text` is the answer as the rules read it (`tasks.base.reading_of`
    passes `labels.answers.answer_text`: quotes straightened, markup dropped, other languages read into English
    phrases, a lead hedge read past; a quotation's reply as written). `roster`: the justices
    (`caselaw.judges.Judge`) whose surnames count as names (default: the data's roster). Raises nothing for any
    text."""
    from lexprobe.hallucination.reader.candidates import FINDERS
    from lexprobe.hallucination.reader.choice import choose
    from lexprobe.hallucination.reader.roles import read_roles, tables

    table = tables()[task]
    kind = table.kind
    if kind == "judge":
        roster = _default_roster() if roster is None else roster
        found = FINDERS[kind](text, roster)
    else:
        found = FINDERS[kind](text)
    reads = read_roles(text, task, found)
    return choose(text, reads, _same(kind, roster or ()), table.several)


def reads_as_written(task: str) -> bool:
    """Return True when `task`'s value is read from the reply as written (a quotation: its words are the value), not
    from the normalized text."""
    from lexprobe.hallucination.reader.roles import tables

    return tables()[task].kind == "quote"


_ROSTER: list[Any] | None = None


def _default_roster() -> list[Any]:
    """Return the data's roster, read once per process."""
    global _ROSTER
    if _ROSTER is None:
        from lexprobe.caselaw.judges import load_roster

        _ROSTER = load_roster()
    return _ROSTER


__all__ = ["read_answer", "reads_as_written"]
