"""What the case database build derives from the `opinions` table once every opinion is written, and how it is read:

- `write_parts`: each opinion text is split once (`opinion_parts.split_combined`) and, when it holds more than one
  opinion, its parts are rows of `opinion_parts`: '<opinion id>#0' the text's own opinion (for a combined text the
  majority part, by the combined text's author; for a file, the file's opinion with the file's type and author),
  '#1', '#2', ... each further concurrence, dissent or statement with the author and type its heading gives.
  Combined texts are what this is for; a few files hold more than one opinion too (CourtListener's Miranda
  concurrence file is Clark's opinion and then Harlan's dissent). A part keeps no text of its own: `spans` are its
  character ranges in the opinion text (`part_text` cuts it), so its star page marks stay where that text has
  them. The `opinions` table is left as it was (no count of opinions changes).
- `write_text_index`: `opinion_text_fts`, an SQLite FTS5 index of the words of every opinion text (external content:
  the `opinions` rows themselves, by rowid; the default tokenizer, unicode61: words are runs of letters and digits,
  lower-cased, accents removed; positions kept, so a run of words can be asked for), and `opinion_text_words`: how
  many opinions hold each word (read once from the index's `opinion_text_vocab`, where each count costs a read of
  the word's whole list of places).
- `opinions_with_phrases`: the opinions holding one of some runs of words, and `word_counts`: how many opinions
  hold each word.

The build writes the database once and never changes it afterwards (rowids included), which the external-content
index relies on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from lexprobe.caselaw.opinion_parts import OpinionPart, split_combined

#: The tables `write_text_index` fills (the FTS5 index, its vocabulary and the word counts; SQLite adds the index's
#: own `opinion_text_fts_*` tables).
INDEX_TABLES = ("opinion_text_fts", "opinion_text_vocab", "opinion_text_words")
#: Combined texts read per batch while the parts are written.
_BATCH = 500


def write_parts(conn: sqlite3.Connection) -> None:
    """Split every opinion text of the database being built into `opinion_parts` rows (see the module docstring)."""
    rows = conn.execute(
        "SELECT opinion_id, case_id, opinion_type, is_majority, author, text, source FROM opinions WHERE text != ''"
    )
    while batch := rows.fetchmany(_BATCH):
        parts = [_part_row(row, part) for row in batch for part in _split(row[5])]
        conn.executemany("INSERT INTO opinion_parts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", parts)


def _split(text: str) -> list[OpinionPart]:
    parts = split_combined(text)
    return parts if len(parts) > 1 else []


def _part_row(row: tuple, part: OpinionPart) -> tuple:
    """The `opinion_parts` row of a part of an opinion row: part 0 keeps the row's own type, author and majority
    flag (a combined text's is the majority part, by the combined text's author); the others are what their
    headings say."""
    opinion_id, case_id, opinion_type, is_majority, author, _, source = row
    spans = ",".join(f"{start}-{end}" for start, end in part.spans)
    if part.number == 0:
        combined = opinion_type == "combined"
        kind, majority = ("majority", 1) if combined else (opinion_type, is_majority)
        return (f"{opinion_id}#0", opinion_id, 0, case_id, kind, majority, author, part.heading, spans, source)
    return (f"{opinion_id}#{part.number}", opinion_id, part.number, case_id, part.opinion_type, 0, part.author,
            part.heading, spans, source)  # fmt: skip


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
    conn.execute("INSERT INTO opinion_text_words SELECT term, doc FROM opinion_text_vocab")


def word_counts(conn: sqlite3.Connection, words: Iterable[str]) -> dict[str, int]:
    """How many opinions hold each of `words` (index terms: lower case, accents removed); a word no opinion holds
    is left out."""
    wanted = sorted(set(words))
    if not wanted:
        return {}
    marks = ", ".join("?" * len(wanted))
    rows = conn.execute(f"SELECT term, docs FROM opinion_text_words WHERE term IN ({marks})", wanted)
    return {term: int(count) for term, count in rows}


def opinions_with_phrases(
    conn: sqlite3.Connection, phrases: Sequence[Sequence[str]], *, exclude_case: str | None, limit: int
) -> list[tuple[str, str]]:
    """The (case id, opinion id) of at most `limit` opinions of a case (not `exclude_case`) holding at least one of
    `phrases` (each a run of index terms, word after word), in rowid order."""
    runs = [" ".join(word for word in phrase if word.isalnum()) for phrase in phrases]
    query = " OR ".join(f'"{run}"' for run in runs if run)
    if not query:
        return []
    return conn.execute(
        "SELECT case_id, opinion_id FROM opinions WHERE rowid IN"
        " (SELECT rowid FROM opinion_text_fts WHERE opinion_text_fts MATCH ?)"
        " AND case_id IS NOT NULL AND case_id != ? LIMIT ?",
        (query, exclude_case or "", limit),
    ).fetchall()
