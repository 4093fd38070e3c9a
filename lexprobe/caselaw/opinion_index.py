"""What the case database build derives from the `opinions` table once every opinion is written, and how it is read:

- `write_parts`: each combined opinion text (`opinion_type` 'combined') is split once (`opinion_parts.split_combined`)
  and, when it holds separate opinions, its parts are rows of `opinion_parts`: '<combined id>#0' the majority part
  (its author the combined text's), '#1', '#2', ... each concurrence, dissent or statement with the author and type
  its heading gives. A part keeps no text of its own: `spans` are its character ranges in the combined text
  (`part_text` cuts it), so its star page marks stay where the combined text has them. The `opinions` table is
  left as it was (no count of opinions changes).
- `write_text_index`: `opinion_text_fts`, an SQLite FTS5 index of the words of every opinion text (external content:
  the `opinions` rows themselves, by rowid; `detail=none`, so it holds which opinions have a word, not where), and
  `opinion_text_vocab` over it (how many opinions have each word).
- `opinions_with_words`: the opinions holding all of some words, and `word_counts`: how many opinions hold each.

The build writes the database once and never changes it afterwards (rowids included), which the external-content
index relies on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from lexprobe.caselaw.opinion_parts import OpinionPart, split_combined

#: The tables `write_text_index` adds (the FTS5 index and its word counts; SQLite adds the index's own
#: `opinion_text_fts_*` tables).
INDEX_TABLES = ("opinion_text_fts", "opinion_text_vocab")
#: Combined texts read per batch while the parts are written.
_BATCH = 500


def write_parts(conn: sqlite3.Connection) -> int:
    """Split every combined opinion text of the database being built into `opinion_parts` rows (see the module
    docstring); return how many parts were written."""
    written = 0
    rows = conn.execute(
        "SELECT opinion_id, case_id, author, text, source FROM opinions WHERE opinion_type = 'combined' AND text != ''"
    )
    while batch := rows.fetchmany(_BATCH):
        parts = [
            _part_row(opinion_id, case_id, author, source, part)
            for opinion_id, case_id, author, text, source in batch
            for part in _split(text)
        ]
        conn.executemany("INSERT INTO opinion_parts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", parts)
        written += len(parts)
    return written


def _split(text: str) -> list[OpinionPart]:
    parts = split_combined(text)
    return parts if len(parts) > 1 else []


def _part_row(opinion_id: str, case_id: str | None, author: str | None, source: str, part: OpinionPart) -> tuple:
    spans = ",".join(f"{start}-{end}" for start, end in part.spans)
    majority = part.opinion_type == "majority"
    return (f"{opinion_id}#{part.number}", opinion_id, part.number, case_id, part.opinion_type, int(majority),
            author if majority else part.author, part.heading, spans, source)  # fmt: skip


def part_spans(spans: str) -> tuple[tuple[int, int], ...]:
    """The character ranges an `opinion_parts.spans` value names ('120-5400,9000-9800')."""
    ranges = []
    for piece in spans.split(","):
        start, _, end = piece.partition("-")
        ranges.append((int(start), int(end)))
    return tuple(ranges)


def part_text(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """A part's text cut from its combined `text` (ranges joined by a blank line, as `OpinionPart.text_of`)."""
    return "\n\n".join(text[start:end] for start, end in spans)


def write_text_index(conn: sqlite3.Connection) -> None:
    """Fill `opinion_text_fts` from every opinion text written (the FTS5 'rebuild' command reads the `opinions`
    rows)."""
    conn.execute("INSERT INTO opinion_text_fts(opinion_text_fts) VALUES ('rebuild')")


def word_counts(conn: sqlite3.Connection, words: Iterable[str]) -> dict[str, int]:
    """How many opinions hold each of `words` (index terms: lower case, accents removed); a word no opinion holds
    is left out."""
    wanted = sorted(set(words))
    if not wanted:
        return {}
    marks = ", ".join("?" * len(wanted))
    rows = conn.execute(f"SELECT term, doc FROM opinion_text_vocab WHERE term IN ({marks})", wanted)
    return {term: int(count) for term, count in rows}


def opinions_with_words(conn: sqlite3.Connection, words: Sequence[str], *, exclude_case: str | None, limit: int):
    """The (case id, opinion id) of at most `limit` opinions of a case (not `exclude_case`) holding every one of
    `words`, in rowid order."""
    query = " AND ".join(f'"{word}"' for word in words if word.isalnum())
    if not query:
        return []
    return conn.execute(
        "SELECT case_id, opinion_id FROM opinions WHERE rowid IN"
        " (SELECT rowid FROM opinion_text_fts WHERE opinion_text_fts MATCH ?)"
        " AND case_id IS NOT NULL AND case_id != ? LIMIT ?",
        (query, exclude_case or "", limit),
    ).fetchall()
