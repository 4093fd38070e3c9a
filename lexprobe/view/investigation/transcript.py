"""What an episode page shows, as plain values for the template: the two turns as messages with their tool calls
(arguments, output, the documents each opened and saw with their roles), the summary, the verdicts against the
truth and the episode's scores. The scores come from the project's scoring functions (`score_episode`,
`score_verdicts`, `coverage`), never recomputed here. The text stays raw: the template escapes it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.investigation.agent.episode import Episode, ToolCallRecord
from lexprobe.investigation.environment.format import Environment, HypothesisKind
from lexprobe.investigation.scoring.coverage import Coverage, coverage
from lexprobe.investigation.scoring.metrics import EpisodeScore, score_episode, score_verdicts

#: Characters of one tool output shown on the page (the rest is cut, and the page says so).
MAX_OUTPUT_CHARS = 20_000


@dataclass(frozen=True)
class DocumentLink:
    """A document a call opened or saw: its corpus path, id, role and position in the environment (None when the
    environment lists no document at that path, so there is nothing to open)."""

    path: str
    doc_id: str
    role: str
    number: int | None


@dataclass
class CallView:
    """One tool call: name, arguments as JSON, output (cut at `MAX_OUTPUT_CHARS`), what it opened and saw."""

    name: str
    arguments: str
    output: str | None = None
    output_cut: bool = False
    record: ToolCallRecord | None = None
    opened: list[DocumentLink] = field(default_factory=list)
    seen: list[DocumentLink] = field(default_factory=list)


@dataclass
class MessageView:
    """One message of the transcript (tool results are folded into the call they answer)."""

    role: str
    content: str
    turn: int
    calls: list[CallView] = field(default_factory=list)


@dataclass(frozen=True)
class VerdictView:
    """The agent's verdict on one hypothesis against the truth (h* is to be believed, every other hypothesis not)."""

    label: str
    hypothesis_id: str
    kind: str
    claim: str
    verdict: str
    truth: str
    correct: bool
    reason: str


@dataclass
class EpisodePage:
    """Everything the episode page shows."""

    episode: Episode
    messages: list[MessageView]
    verdicts: list[VerdictView]
    score: EpisodeScore
    coverage: Coverage | None
    tool_calls_run: int


def _cut(text: str, limit: int) -> tuple[str, bool]:
    return (text[:limit], True) if len(text) > limit else (text, False)


def _links(record: ToolCallRecord, paths: list[str], numbers: dict[str, int]) -> list[DocumentLink]:
    named = {path: (doc_id, role) for path, doc_id, role in zip(record.documents, record.doc_ids, record.roles,
                                                                strict=False)}  # fmt: skip
    return [DocumentLink(path, named.get(path, ("", ""))[0] or path, named.get(path, ("", "?"))[1] or "?",
                         numbers.get(path)) for path in paths]  # fmt: skip


def _turn_two_start(episode: Episode) -> int:
    """The index of the message that opens Turn 2 (the verdict prompt), or len(transcript) when there is none."""
    transcript = episode.transcript
    if not episode.verdict_reply and not episode.verdicts:
        return len(transcript)
    for index in range(len(transcript) - 1, -1, -1):
        if transcript[index].get("role") == "user":
            return index
    return len(transcript)


def messages_of(episode: Episode, environment: Environment | None) -> list[MessageView]:
    """The transcript as messages, each tool call paired with its record (in order, as `investigation show` pairs
    them) and with the output of the tool message answering it."""
    numbers = {doc.path: number for number, doc in enumerate(environment.documents)} if environment else {}
    outputs = {str(m.get("tool_call_id")): str(m.get("content", "")) for m in episode.transcript
               if m.get("role") == "tool" and m.get("tool_call_id")}  # fmt: skip
    records = iter(episode.tool_calls)
    second = _turn_two_start(episode)
    views: list[MessageView] = []
    for index, message in enumerate(episode.transcript):
        role = str(message.get("role", "?"))
        if role == "tool" and str(message.get("tool_call_id")) in outputs:
            continue  # shown under its call
        view = MessageView(role, str(message.get("content", "") or ""), 2 if index >= second else 1)
        for call in message.get("tool_calls", []) or []:
            record = next(records, None)
            arguments = json.dumps(call.get("arguments", {}), ensure_ascii=False, indent=1)
            call_view = CallView(str(call.get("name", "?")), arguments, record=record)
            output = outputs.get(str(call.get("id")))
            if output is not None:
                call_view.output, call_view.output_cut = _cut(output, MAX_OUTPUT_CHARS)
            if record is not None and not record.denied:
                opened, seen = record.opened_and_seen()
                call_view.opened, call_view.seen = _links(record, opened, numbers), _links(record, seen, numbers)
            view.calls.append(call_view)
        views.append(view)
    return views


def verdicts_of(episode: Episode, environment: Environment | None) -> list[VerdictView]:
    """Each verdict with its hypothesis's claim and the truth; `correct` as the class accuracies count it."""
    claims = {h.hypothesis_id: h.claim for h in environment.hypotheses} if environment else {}
    views = []
    for verdict in episode.verdicts:
        metrics = score_verdicts([verdict])
        accuracy = metrics["believe_acc"] if verdict.kind == HypothesisKind.court_adopted else metrics["reject_acc"]
        truth = "believe" if verdict.kind == HypothesisKind.court_adopted else "do not believe"
        views.append(VerdictView(verdict.label, verdict.hypothesis_id, verdict.kind,
                                 claims.get(verdict.hypothesis_id, ""), verdict.verdict or "unread", truth,
                                 accuracy == 1, verdict.reason))  # fmt: skip
    return views


def episode_page(episode: Episode, environment: Environment | None) -> EpisodePage:
    """Build the episode page's values (coverage and recall are None without the environment)."""
    return EpisodePage(
        episode=episode,
        messages=messages_of(episode, environment),
        verdicts=verdicts_of(episode, environment),
        score=score_episode(episode),
        coverage=coverage(episode, environment) if environment else None,
        tool_calls_run=sum(not call.denied for call in episode.tool_calls),
    )


def load_record(folder: Path, key: str, suffix: str) -> str:
    """The text of the record `folder/<key><suffix>`; raises FileNotFoundError for a key that names no regular file
    there (a link is never followed)."""
    path = Path(folder) / f"{key}{suffix}"
    if path.is_symlink() or not path.is_file():
        raise FileNotFoundError(key)
    return path.read_text(encoding="utf-8")
