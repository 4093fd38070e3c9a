"""Telling a Turn-2 reply that copies the verdict prompt's example from an answer (issue 29).

A verdict prompt shows the shape of the answer it wants. lexprobe's own `verdict.j2` shows it with placeholders
(`"label": "<the label>"`, `"verdict": "<A, B or C>"`), which no reading takes for a verdict; but a template given
with `--prompts DIR`, or the one episodes were recorded with before issue 29, may show an example built on the
case's own labels, such as `[{"label": "H1", "verdict": "B", "reason": "one short sentence"}, {"label": "H2",
"verdict": "A", "reason": "one short sentence"}]`. A model that copies such an example gives verdicts that say
nothing about its investigation (with h* at H2 the copy above solves the case).

The example is every JSON array or object the prompt holds outside the summary (read as `verdicts` reads replies:
fences, repairs). A reply copies it when either

1. one JSON value of the reply holds every item of an example (label, verdict and reason equal once case, spaces and
   quotes are normalised): the example verbatim, re-spaced, fenced, or with items added after it; or
2. the example gives verdicts on some of the case's labels but not all, and the verdicts read from the reply
   (`parse_verdicts`) are exactly the example's, on the same labels and none more: the example's verdicts, whatever
   reasons came with them, and no verdict on the other hypotheses. (An example on every label is judged by rule 1
   alone: a reply with the same verdicts may be a real answer.)

Scoring counts an episode that copied the example as giving no verdict at all (`scoring.metrics.score_episode`):
it is not solved, not a complete output, and counted apart in every report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexprobe.investigation.agent.episode import Episode
from lexprobe.investigation.agent.verdicts import json_values, parse_verdicts

#: What `verdict.j2` is rendered with when the Turn-1 summary is empty (see harness.EpisodeRunner._turn_two).
NO_SUMMARY = "(no summary)"


def _normal(value: Any) -> Any:
    """A value compared as the reader compares verdicts: strings lower-case with single spaces, keys too."""
    if isinstance(value, str):
        return " ".join(value.replace("’", "'").lower().split())
    if isinstance(value, dict):
        return tuple(sorted((str(_normal(str(k))), repr(_normal(v))) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_normal(item) for item in value)
    return value


def _items(value: Any) -> list[Any]:
    """The items of an answer-shaped JSON value (an array's elements, or one object), normalised."""
    if isinstance(value, list):
        return [_normal(item) for item in value if isinstance(item, dict | list)]
    if isinstance(value, dict):
        return [_normal(value)]
    return []


def copies_example(reply: str, prompt: str, summary: str, labels: Sequence[str]) -> bool:
    """True when the Turn-2 `reply` copies an example of the verdict `prompt` it answered (rules 1 and 2 of the
    module docstring); `summary` is the Turn-1 summary the prompt shows, `labels` the hypotheses' labels."""
    shown = prompt.replace(summary.strip() or NO_SUMMARY, " ")  # a summary's own JSON is the model's, not an example
    examples = [items for items in map(_items, json_values(shown)) if items]
    if not examples or not (reply or "").strip():
        return False
    replies = [set(_items(value)) for value in json_values(reply)]
    if any(all(item in answer for item in example) for example in examples for answer in replies):
        return True
    example = {k: v for k, v in parse_verdicts(shown, labels).verdicts.items() if v is not None}
    if not example or len(example) == len(set(labels)):  # an example on every label: only rule 1 can tell
        return False
    read = {k: v for k, v in parse_verdicts(reply, labels).verdicts.items() if v is not None}
    return read == example


def turn_two_prompt(episode: Episode) -> str | None:
    """The Turn-2 prompt an episode's transcript records (the user message before the verdict reply), or None when
    the transcript does not end with it."""
    transcript = episode.transcript
    if len(transcript) < 2 or not episode.verdicts:
        return None
    prompt, reply = transcript[-2], transcript[-1]
    if prompt.get("role") != "user" or reply.get("role") != "assistant":
        return None
    if str(reply.get("content") or "") != episode.verdict_reply:
        return None
    return str(prompt.get("content") or "")


def episode_copies_example(episode: Episode) -> bool:
    """True when the episode is flagged `copied_example`, or its transcript shows a Turn-2 reply that copies the
    prompt's example (episodes recorded before the flag existed are judged from their transcript)."""
    if episode.copied_example:
        return True
    prompt = turn_two_prompt(episode)
    if prompt is None:
        return False
    labels = [verdict.label for verdict in episode.verdicts]
    return copies_example(episode.verdict_reply, prompt, episode.summary, labels)


__all__ = ["NO_SUMMARY", "copies_example", "episode_copies_example", "turn_two_prompt"]
