"""Choice: the value an answer gives as its answer to the question, from its candidates and their roles.

1. Values set aside by their role (`roles`: the court below, a dissenter, the case's own year) are never chosen.
2. Two different values offered as alternatives ("the Second Circuit, or possibly the Southern District", "either
   2004 or 2006", "Fourth Circuit / E.D. Va.") compete: the answer gives no single value.
3. Values given *as the answer* by a phrase win over plain mentions, and a stronger phrase over a weaker one (the
   table's `answer` over its `weaker` tiers: "decided by" over "affirmed" over "held"); among plain mentions all
   are candidates.
4. If what is left disagrees, a contrast decides ("The Ninth Circuit affirmed, but the Supreme Court reversed": the
   value after the last "but" / "however" that separates them, when the value does not also stand before it);
   otherwise the values compete, and the answer is
   unscored with every competing value named, never the first one.

The `Reading` says which value was chosen and which were set aside and why, for the label's detail.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lexprobe.hallucination.reader.candidates import Candidate
from lexprobe.hallucination.reader.roles import Read, words


@dataclass(frozen=True)
class Reading:
    """What the reader made of an answer: the chosen candidate (None when there is none), the candidates that
    compete with it for the answer (the answer is then unscored), and those set aside with the reason."""

    chosen: Candidate | None
    competing: tuple[Candidate, ...] = ()
    set_aside: tuple[tuple[Candidate, str], ...] = ()

    @property
    def value(self) -> Any:
        """The chosen value, or None when the answer gives none (or several that compete)."""
        return self.chosen.value if self.chosen is not None and not self.competing else None

    def note(self) -> str:
        """Return what was set aside, for a label's detail ("" when nothing was)."""
        if not self.set_aside:
            return ""
        shown = "; ".join(f"{candidate.text.strip()!r} ({why})" for candidate, why in self.set_aside[:4])
        more = f"; {len(self.set_aside) - 4} more" if len(self.set_aside) > 4 else ""
        return f" [set aside: {shown}{more}]"


def _distinct(reads: Sequence[Read], same: Callable[[Any, Any], bool]) -> list[Read]:
    """Return one read per distinct value, in order."""
    kept: list[Read] = []
    for read in reads:
        if not any(same(read.candidate.value, other.candidate.value) for other in kept):
            kept.append(read)
    return kept


def _alternatives(text: str, reads: Sequence[Read], same: Callable[[Any, Any], bool]) -> list[Read]:
    """Return the reads of two different values offered as alternatives, else []."""
    for first, second in itertools.pairwise(reads):
        between = text[first.candidate.end : second.candidate.start]
        tail = text[second.candidate.end : second.candidate.end + 40]
        if not same(first.candidate.value, second.candidate.value) and (
            words("alternative").search(between) or words("alternative").match(tail.lstrip(" ,—–-"))
        ):
            return [first, second]
    return []


def choose(text: str, reads: Sequence[Read], same: Callable[[Any, Any], bool], several: str = "compete") -> Reading:
    """Return the reading of `text` from its candidates' roles (see the module's rules); `same(a, b)` says when two
    values are one (the same judge under two spellings, a citation and its parallel). `several="longest"`: values
    do not compete (any quotation offered is one), the longest one not set aside is read."""
    aside = [(read.candidate, read.phrase or "aside") for read in reads if read.role == "aside"]
    pool = [read for read in reads if read.role != "aside"]
    if not pool:
        return Reading(None, (), tuple(aside))
    if several == "longest":
        chosen = max(pool, key=lambda read: len(read.candidate.text))
        return Reading(chosen.candidate, (), tuple(aside))
    offered = _alternatives(text, pool, same)
    if offered:
        return Reading(offered[0].candidate, tuple(read.candidate for read in offered[1:]), tuple(aside))
    answers = [read for read in pool if read.role == "answer"]
    if answers:
        best = min(read.tier for read in answers)
        aside += [(read.candidate, f"{read.phrase}, a weaker claim") for read in answers
                  if read.tier > best and not any(same(read.candidate.value, a.candidate.value)
                                                  for a in answers if a.tier == best)]  # fmt: skip
        answers = [read for read in answers if read.tier == best]
    plain = [read for read in pool if read.role == "plain"]
    if answers:
        aside += [(read.candidate, "not stated as the answer") for read in plain
                  if not any(same(read.candidate.value, a.candidate.value) for a in answers)]  # fmt: skip
        pool = answers
    distinct = _distinct(pool, same)
    if len(distinct) == 1:
        return Reading(distinct[0].candidate, (), tuple(aside))
    contrasts = [match.end() for match in words("contrast").finditer(text)]
    for cut in reversed(contrasts):
        after = [read for read in pool if read.candidate.start >= cut]
        before = [read for read in pool if read.candidate.start < cut]
        if (
            after
            and before
            and len(_distinct(after, same)) == 1
            and not any(same(read.candidate.value, after[0].candidate.value) for read in before)
        ):
            aside += [(read.candidate, "before a contrast") for read in before
                      if not same(read.candidate.value, after[0].candidate.value)]  # fmt: skip
            return Reading(after[0].candidate, (), tuple(aside))
    return Reading(distinct[0].candidate, tuple(read.candidate for read in distinct[1:]), tuple(aside))
