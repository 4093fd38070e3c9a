"""A page of an opinion: the text between one star page mark ("*495") and the next, in each opinion of a case
that has that page (the opinion of the Court first), read from the case database's opinions as the quotation
checker reads them (`check.quote_match.OpinionTexts`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexprobe.check.quote_match import Opinion

__all__ = ["MAX_PAGE_CHARS", "page_passages", "page_range"]

#: Characters of one opinion's page returned at most (a page of a U.S. Reports opinion has about 2,500).
MAX_PAGE_CHARS = 20_000


def _page_span(opinion: Opinion, page: int) -> tuple[int, int] | None:
    """The offsets of `page` in the opinion's text from its star paging, or None (not on it, or no paging)."""
    marks = opinion.marks
    if not marks.offsets:
        return None
    if page == marks.pages[0] - 1:  # the text before the first mark
        return (0, marks.offsets[0])
    if page not in marks.pages:
        return None
    index = marks.pages.index(page)
    end = marks.offsets[index + 1] if index + 1 < len(marks.offsets) else len(opinion.text)
    return (marks.offsets[index], end)


def page_range(opinions: Sequence[Opinion]) -> tuple[int, int] | None:
    """The first and last page any of the opinions' star paging names, or None when none has paging."""
    pages = [page for opinion in opinions if opinion.marks.pages for page in opinion.marks.pages]
    firsts = [opinion.marks.pages[0] - 1 for opinion in opinions if opinion.marks.pages]
    return (min(firsts), max(pages)) if pages else None


def page_passages(opinions: Sequence[Opinion], page: int) -> list[dict[str, Any]]:
    """Each opinion's text of `page` (whitespace collapsed, at most `MAX_PAGE_CHARS`): opinion id, type, author,
    whether it is the Court's, the text and whether it was cut."""
    passages = []
    for opinion in opinions:
        span = _page_span(opinion, page)
        if span is None:
            continue
        text = " ".join(opinion.text[span[0] : span[1]].split())
        passages.append(
            {
                "opinion_id": opinion.opinion_id,
                "opinion_type": opinion.opinion_type,
                "author": opinion.author,
                "court": not opinion.is_separate,
                "text": text[:MAX_PAGE_CHARS],
                "truncated": len(text) > MAX_PAGE_CHARS,
            }
        )
    return passages
