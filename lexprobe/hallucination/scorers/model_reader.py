"""The model reader (`--reader MODEL`): a model asked what an answer gives as its answer, for the answers the rules
leave unscored.

Off by default: the rules alone are the offline default. With a reader, a reference-based answer whose rule label is
`unscored` for want of a reading (`needs_reading`: not "reference missing", not "empty answer") is shown to the
reader model with the question as it was asked and what kind of value the task wants (`VALUE_WANTED`), at
temperature 0 with a JSON schema (`READER_SCHEMA`, template `templates/answer_reader.j2`). The reader replies
`{"decision": "answer" | "declined" | "no answer", "value": string | null}` and `reader_score` turns that into the
answer's label:

- "answer": the value is scored by the task's own scorer (`SCORERS[task](value, reference, context)`), so the
  comparison rules are the task's ("1954", "Earl Warren", "affirmed", "yes", the quotation);
- "declined": `abstain`;
- "no answer": stays `unscored`;
- a reply that is not such an object: stays `unscored`, its detail saying the reader's reply was unreadable.

Every such label's detail starts "read by MODEL:", and the score's stored detail carries `reader`, `reader_decision`
(`unreadable` for a reply that could not be read), `reader_value` and `rules` (what the rules said). The reader's
requests are ordinary engine requests (role `reader`, id `<unit id>|reader|<key prefix>`, so another reader model or
prompt gets another id): they are stored in the run store and the response cache, and a resumed or repeated run
does not ask again. Reference-free tasks and calibration samples are never read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.prompts.render import load_named_template
from lexprobe.hallucination.scorers.by_task import SCORERS
from lexprobe.hallucination.tasks.base import TaskReference
from lexprobe.models.types import Request

if TYPE_CHECKING:
    from lexprobe.engine.store import RunStore

READER_ROLE = "reader"
READER_TEMPLATE = "answer_reader"
READER_MAX_TOKENS = 512
#: The answer is shown to the reader up to this many characters (the answer to a question is near its start).
READER_ANSWER_CHARS = 8000
#: A value longer than this is not a value (a quotation is at most a few sentences).
MAX_VALUE_CHARS = 2000
DECISIONS = ("answer", "declined", "no answer")
#: `reader_decision` of a reply that is not a reading.
UNREADABLE = "unreadable"

READER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": list(DECISIONS)},
        "value": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["decision", "value"],
    "additionalProperties": False,
}

#: What each reference-based task wants as its answer, in the reader's prompt (and on the coders' sheet).
VALUE_WANTED: dict[str, str] = {
    "existence": "yes or no: whether the case is a real case",
    "court": "the name of the court that decided the case",
    "citation": "the case's citation (volume, reporter, page)",
    "author": "the name of the judge who wrote the majority opinion",
    "disposition": "affirmed or reversed: what the court did with the decision it reviewed",
    "quotation": "a quotation from the case's opinion, word for word",
    "authority": "the citation (or name) of a case that the case's opinion cites",
    "overruling_year": "the year in which the case was overruled",
    "doctrinal_agreement": "agree or disagree: whether the first case agrees with the second",
    "fake_existence": "yes or no: whether the case is a real case",
    "false_dissent": "what the named judge argued in a dissent in the case (in a few words), or the statement "
    "that the judge wrote no dissent",
    "false_overruling": "the year in which the case was overruled, or the statement that it was never overruled",
}

#: Rule details that no reading can change: no truth to compare with, or nothing to read.
_NOT_READ = ("reference missing", "empty answer")
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    """What the reader said an answer gives: its decision and, for "answer", the value."""

    decision: str
    value: str | None


def needs_reading(score: Score, answer: str) -> bool:
    """Return whether a rule label is one the reader is asked about: `unscored` for a non-empty answer, not for a
    missing reference nor an empty answer."""
    return score.label == "unscored" and bool(answer.strip()) and not score.detail.startswith(_NOT_READ)


def question_of(request: Request) -> str:
    """Return the question a unit's request asked: its last user message (the prompt, few-shot examples and all)."""
    users = [message.content for message in request.messages if message.role == "user"]
    return users[-1] if users else ""


def reader_prompt(task: str, question: str, answer: str) -> str:
    """Return the reader's prompt for one answer (cut at `READER_ANSWER_CHARS`) to `question` of task `task`."""
    template = load_named_template(READER_TEMPLATE)
    wanted = VALUE_WANTED.get(task, "the answer to the question")
    return template.render(question=question.strip(), wanted=wanted, answer=answer.strip()[:READER_ANSWER_CHARS])


def reader_request(reader: str, unit: Request, task: str, answer: str) -> Request:
    """Return the temperature-0 request asking `reader` to read `answer`, the answer to the unit request `unit` of a
    `task` question; its id is `<unit id>|reader|<first 12 of its cache key>`."""
    request = Request.from_prompt(
        reader,
        reader_prompt(task, question_of(unit), answer),
        temperature=0.0,
        max_tokens=READER_MAX_TOKENS,
        schema=READER_SCHEMA,
        tags={"role": READER_ROLE, "of": unit.request_id, "task": task},
    )
    return request.model_copy(update={"id": f"{unit.request_id}|{READER_ROLE}|{request.cache_key()[:12]}"})


def parse_reading(text: str) -> Reading | str:
    """Return the reading in a reader's reply, or the reason it is unreadable (a string). The reply is one JSON object
    (a ```json fence around it, or text around one object, is tolerated) with a known `decision` and, for "answer", a
    non-empty string `value` of at most `MAX_VALUE_CHARS`."""
    body = _FENCE.sub("", (text or "").strip())
    if not body:
        return "empty reply"
    try:
        raw = json.loads(body, strict=False)
    except (ValueError, RecursionError):
        start, end = body.find("{"), body.rfind("}")
        try:
            raw = json.loads(body[start : end + 1], strict=False) if 0 <= start < end else None
        except (ValueError, RecursionError):
            raw = None
        if raw is None:
            return "not JSON"
    if not isinstance(raw, dict):
        return "not a JSON object"
    decision, value = raw.get("decision"), raw.get("value")
    if decision not in DECISIONS:
        return f"decision {str(decision)[:40]!r} is not one of {', '.join(DECISIONS)}"
    if decision != "answer":
        return Reading(decision, None)
    if not isinstance(value, str) or not value.strip():
        return "an answer decision without a value"
    if len(value) > MAX_VALUE_CHARS:
        return f"a value of {len(value):,} characters (at most {MAX_VALUE_CHARS:,})"
    return Reading("answer", value.strip())


def reader_score(
    reader: str, task: str, reply: str, rules: Score, reference: TaskReference, context: ScoringContext
) -> tuple[Score, dict[str, Any]]:
    """Return the label the reader's `reply` gives an answer the rules scored `rules`, and the detail keys stored
    with it (`reader`, `reader_decision`, `reader_value`, `rules`)."""
    reading = parse_reading(reply)
    keys: dict[str, Any] = {"reader": reader, "rules": rules.detail}
    by = f"read by {reader}:"
    if isinstance(reading, str):
        keys |= {"reader_decision": UNREADABLE, "reader_value": None}
        shown = " ".join((reply or "").split())[:120]
        detail = f"{by} the reader's reply is unreadable ({reading}): {shown!r}; rules: {rules.detail}"
        return Score("unscored", detail), keys
    keys |= {"reader_decision": reading.decision, "reader_value": reading.value}
    if reading.decision == "declined":
        return Score("abstain", f"{by} the answer declines to answer"), keys
    if reading.decision == "no answer":
        return Score("unscored", f"{by} the answer gives no answer to the question; rules: {rules.detail}"), keys
    scored = SCORERS[task](reading.value or "", reference, context)
    return Score(scored.label, f"{by} value {reading.value!r} -> {scored.detail}"), keys


@dataclass
class ReaderPass:
    """One scoring pass with a reader: readings already in the run store are applied (`apply`), and the requests of
    answers still to be read are collected in `unread` for the engine."""

    model: str
    unread: list[Request] = field(default_factory=list)

    def apply(
        self,
        store: RunStore,
        unit: Request,
        task: str,
        answer: str,
        rules: Score,
        reference: TaskReference,
        context: ScoringContext,
    ) -> tuple[Score, dict[str, Any], str | None]:
        """Return the label, the detail keys to store with it and the value read (None when there is none) of the
        unit `unit`'s `answer` to a `task` question, which the rules scored `rules`. An answer the reader is not
        asked about (`needs_reading`) keeps the rules' label; so does one whose reading is not in `store` yet, whose
        request then joins `unread`."""
        if not needs_reading(rules, answer):
            return rules, {}, None
        request = reader_request(self.model, unit, task, answer)
        reply = store.response(request.request_id)
        if reply is None:
            self.unread.append(request)
            return rules, {}, None
        score, keys = reader_score(self.model, task, reply.text, rules, reference, context)
        return score, keys, keys["reader_value"]
