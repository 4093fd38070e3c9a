"""What one ended batch's results said, item by item, for the runner (`runner._ModelBatches._collect`): the first
outcome of each custom id (the one kept), the result lines whose custom id could not be read, and the duplicates (a
second result for one custom id, with the same answer or another: reported on stderr and in the batch's note and
item reason, never stored)."""

from __future__ import annotations

import hashlib
import json

from lexprobe.engine.batch.providers import ItemResult

#: An item's new (state, reason, custom id).
Mark = tuple[str, str | None, str]


#: Reasons or custom ids one line names before "and N more".
LISTED = 3


def listed(parts: list[str]) -> str:
    """`parts` joined with "; ", the first `LISTED` of them."""
    more = len(parts) - LISTED
    return "; ".join(parts[:LISTED]) + (f"; and {more} more" if more > 0 else "")


class ResultTally:
    """The results of one batch so far (see the module docstring)."""

    def __init__(self) -> None:
        self.first: dict[str, tuple[str, str | None, str, str]] = {}  # custom id -> (outcome, reason, where, digest)
        self.unreadable: list[str] = []
        self.duplicates: dict[str, list[tuple[str, bool]]] = {}  # custom id -> [(where, differs from the first)]

    @staticmethod
    def digest(result: ItemResult) -> str:
        """A fingerprint of a result's outcome and answer (to tell a repeated result from a different one)."""
        text = json.dumps([result.outcome, result.payload, result.reason], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def duplicate(self, result: ItemResult) -> bool:
        """True (and recorded) when `result` is a second result for a custom id already seen."""
        first = self.first.get(result.custom_id)
        if first is None:
            return False
        self.duplicates.setdefault(result.custom_id, []).append((result.where, self.digest(result) != first[3]))
        return True

    def keep(self, result: ItemResult, outcome: str, reason: str | None) -> None:
        """Record the first result of its custom id, and the outcome it was given."""
        self.first[result.custom_id] = (outcome, reason, result.where, self.digest(result))

    def counts(self) -> tuple[int, int]:
        """(succeeded, failed) among the kept outcomes."""
        succeeded = sum(1 for outcome, *_ in self.first.values() if outcome == "succeeded")
        return succeeded, len(self.first) - succeeded

    def what(self, custom_id: str) -> str:
        """One line on the results of a duplicated custom id, and which is kept."""
        where, others = self.first[custom_id][2], self.duplicates[custom_id]
        differ = "different answers" if any(differs for _, differs in others) else "the same answer"
        places = ", ".join(place for place in (where, *(w for w, _ in others)) if place)
        kept = f" ({where})" if where else ""
        return f"{custom_id} has {len(others) + 1} results ({places}) with {differ}: the first{kept} is kept"

    def duplicate_marks(self) -> list[Mark]:
        """The kept items' marks again, their reason naming the duplicates."""
        marks: list[Mark] = []
        for custom_id in self.duplicates:
            outcome, reason, _, _ = self.first[custom_id]
            marks.append((outcome, "; ".join(part for part in (reason, self.what(custom_id)) if part), custom_id))
        return marks

    def note(self) -> str:
        """The batch's note on duplicates ("" when none)."""
        if not self.duplicates:
            return ""
        return f"duplicate results for {len(self.duplicates)} custom id(s), the first kept: " + listed(
            [self.what(custom_id) for custom_id in self.duplicates]
        )

    def warnings(self, missing: int) -> list[str]:
        """The warnings for stderr: each duplicate, and the unreadable lines."""
        lines = [f"duplicate result: {self.what(custom_id)}" for custom_id in self.duplicates]
        if self.unreadable:
            lines.append(f"{len(self.unreadable)} result line(s) could not be read ({listed(self.unreadable)}): "
                         f"the {missing} item(s) without a result go into a new batch")  # fmt: skip
        return lines
