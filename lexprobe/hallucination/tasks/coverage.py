"""Which sampled cases each task could use, and why it dropped the others.

A task asked about sampled cases needs facts of each case: a name and citation to ask about it at all, a majority
author for the author task, a majority opinion text for quotation and authority, and so on. A sampled case without
one of them is dropped by the task; the coverage of a task at a level counts the sampled cases, the cases it could
use, and the dropped ones by the first fact they lack. With `--complete-cases` the sample holds only cases with
every shared fact the requested tasks need (what the study's authors did), so every task asks the same cases.

Each task declares both in its definition: `TaskSpec.needs` (names of `caselaw.sampling.CASE_FACTS`, in the order a
dropped case's reason is looked for) and, for a task whose questions are not drawn from the case sample,
`TaskSpec.population` (where they come from; such a task reports how many items it built). A case a builder drops
although it has every declared fact is counted as "left out by the task's item builder" (a test keeps that at 0).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import CASE_FACTS, case_facts
from lexprobe.hallucination.tasks.base import Drafts, TaskSpec
from lexprobe.hallucination.tasks.cases import SampledCase

BUILDER_DROPPED = "left out by the task's item builder"


@dataclass
class Coverage:
    """How many cases of one level's sample one task could use, and why it dropped the others."""

    task: str
    level: str
    source: str  # "sample" or "population"
    sampled: int | None  # cases of the sample offered to the task (None for a population task)
    usable: int  # cases (items, for a population task) the task asks about
    dropped: dict[str, int] = field(default_factory=dict)  # reason -> cases
    note: str = ""

    def to_dict(self) -> dict:
        """Return the row as JSON-ready data."""
        return asdict(self)


def shared_needs(tasks: Iterable[TaskSpec], level: str) -> tuple[str, ...]:
    """Return the facts a `--complete-cases` sample of `level` requires: every shared fact that a requested task
    asked at that level and drawn from the sample needs (in `CASE_FACTS` order)."""
    wanted = {fact for task in tasks if level in task.levels and not task.population for fact in task.needs}
    return tuple(name for name, fact in CASE_FACTS.items() if name in wanted and fact.shared)


def task_coverage(
    db: CaseDatabase, task: TaskSpec, level: str, cases: list[SampledCase], drafts: Drafts | None
) -> Coverage:
    """Return the coverage of one task at one level: `cases` are the sampled cases offered to it, `drafts` what
    its builder made of them."""
    items = drafts.items if drafts is not None else []
    if task.population:
        return Coverage(task.id, level, "population", None, len(items), note=task.population)
    used = {draft.case_id for draft in items}
    ids = [case.case_id for case in cases]
    needs = task.needs
    present = case_facts(db, [case_id for case_id in ids if case_id not in used], needs)
    reasons: Counter[str] = Counter()
    for case_id in ids:
        if case_id in used:
            continue
        lacking = [name for name in needs if name not in present.get(case_id, set())]
        reasons[CASE_FACTS[lacking[0]].missing if lacking else BUILDER_DROPPED] += 1
    usable = sum(case_id in used for case_id in ids)
    return Coverage(task.id, level, "sample", len(ids), usable, dict(reasons.most_common()))


def dropped_text(row: dict) -> str:
    """Return a coverage row's drop reasons as one line ("12 no majority author; 3 no case name"), or "-"."""
    if row.get("source") == "population":
        return row.get("note") or "-"
    return "; ".join(f"{count} {reason}" for reason, count in row.get("dropped", {}).items()) or "-"
