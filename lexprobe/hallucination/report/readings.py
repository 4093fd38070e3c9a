"""How many answers a model reader (`--reader`, `scorers/model_reader.py`) read, per run model and reader, as the
reports count them: "12 answers read by MODEL (8 an answer, 2 declined, 1 no answer, 1 reply unreadable)"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from lexprobe.hallucination.profile.results import Unit

#: The reader's decisions in the order the reports list them (`unreadable`: a reply that was not a reading).
DECISION_ORDER = ("answer", "declined", "no answer", "unreadable")


def reader_counts(units: Iterable[Unit]) -> list[dict]:
    """Return one row per (model, reader) with units the reader labelled: {"model", "reader", "read", and a count
    per decision of `DECISION_ORDER`}, in the order the pairs first appear. Empty when no reader read any answer."""
    counts: dict[tuple[str, str], Counter] = {}
    for unit in units:
        if unit.reader is not None:
            counts.setdefault((unit.model, unit.reader), Counter())[unit.reader_decision or "unreadable"] += 1
    return [
        {"model": model, "reader": reader, "read": sum(found.values())}
        | {decision: found.get(decision, 0) for decision in DECISION_ORDER}
        for (model, reader), found in counts.items()
    ]


def reader_line(row: dict, *, with_model: bool = False) -> str:
    """Return the report's line of one `reader_counts` row: "12 answers read by MODEL (8 an answer, 2 declined, 1 no
    answer, 1 reply unreadable)"; `with_model` names the run's model as well (several runs side by side)."""
    words = {"answer": "an answer", "declined": "declined", "no answer": "no answer", "unreadable": "reply unreadable"}
    parts = [f"{row[decision]} {words[decision]}" for decision in DECISION_ORDER if row.get(decision)]
    answers = "answer" if row["read"] == 1 else "answers"
    whose = f" of {row['model']}" if with_model else ""
    return f"{row['read']} {answers}{whose} read by {row['reader']} ({', '.join(parts)})"


def read_by(model: str, counts: list[dict]) -> dict[str, str]:
    """Return `{"read_by": "12 answers read by MODEL (...)"}` for the HTML report's line of run model `model` (its
    `reader_counts` rows joined), or {} when no reader read its answers."""
    lines = [reader_line(row) for row in counts if row["model"] == model]
    return {"read_by": "; ".join(lines)} if lines else {}
