"""Is a quotation in an opinion text? The one matcher of lexprobe: `lexprobe check` (its quotation verdicts,
`lexprobe.check.quote_match`) and the hallucination profile's quotation task (`hallucination.labels.quotation`)
both call it, so the two agree on what "in the opinion" means by construction.

Both sides are normalized by `lexprobe.caselaw.quote_text` (letters only: quotation marks, punctuation, digits,
star page marks and line-break hyphens gone) and the quotation is cut into segments at its gaps (`quote_segments`:
ellipses, bracketed alterations). `exact_span` looks for every segment exactly, in order, each within
`SEGMENT_WINDOW` letters of the previous one; failing that, `fuzzy_span` finds the closest passage of each segment,
in order, with rapidfuzz's `fuzz.partial_ratio_alignment` (the first `FUZZY_LETTERS` letters of it, to bound the
work) and gives their length-weighted similarity. A quotation not found exactly is found with a change when that
similarity is at least `MATCH_THRESHOLD` and its segments hold at least `MIN_FUZZY_LETTERS` letters
(`close_enough`): a fuzzy match of a few words proves nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Letters allowed between two segments of one quotation found exactly (an ellipsis may omit a page or two).
SEGMENT_WINDOW = 6_000
#: Letters of a segment given to the fuzzy matcher.
FUZZY_LETTERS = 400
#: A quotation at least this similar (rapidfuzz 0-100) to a passage is found there with a change: one changed
#: word in a sentence-long quotation scores about 95, a paraphrase typically below 75.
MATCH_THRESHOLD = 88.0
#: Segments shorter than this (letters, all together) must be found exactly.
MIN_FUZZY_LETTERS = 40
#: At most this many exact occurrences of the first segment are tried.
MAX_OCCURRENCES = 50


def exact_span(segments: Sequence[str], letters: str) -> tuple[int, int] | None:
    """The letter span of all segments found exactly, in order, each close to the previous one; each segment is
    then moved to its last occurrence before the next one, so that a short first piece ("[b]ecause . . . trial by
    jury") starts the span where the quoted passage starts, not at an earlier "because" (its page is the pin's)."""
    start = letters.find(segments[0])
    tries = 0
    while start >= 0 and tries < MAX_OCCURRENCES:
        tries += 1
        end = start + len(segments[0])
        positions = [start]
        for segment in segments[1:]:
            found = letters.find(segment, end, end + SEGMENT_WINDOW + len(segment))
            if found < 0:
                break
            positions.append(found)
            end = found + len(segment)
        else:
            for index in range(len(segments) - 2, -1, -1):
                positions[index] = letters.rfind(segments[index], positions[index], positions[index + 1])
            return positions[0], end
        start = letters.find(segments[0], start + 1)
    return None


def fuzzy_span(segments: Sequence[str], letters: str) -> tuple[float, tuple[int, int]] | None:
    """The length-weighted similarity of the segments' closest passages, in order (each segment is looked for after
    the passage of the one before it), and the letter span from the first to the last; None when a segment has no
    passage at all alike."""
    from rapidfuzz import fuzz  # imported by the first fuzzy match: a run replayed from the cache never needs it

    total = 0.0
    weight = 0
    first: int | None = None
    cursor = end = 0
    for segment in segments:
        needle = segment[:FUZZY_LETTERS]
        found = fuzz.partial_ratio_alignment(needle, letters[cursor:], score_cutoff=50)
        if found is None:
            return None
        score = found.score if len(segment) <= FUZZY_LETTERS else found.score * 0.98
        total += score * len(needle)
        weight += len(needle)
        first = cursor + found.dest_start if first is None else first
        end = cursor + found.dest_end + (len(segment) - len(needle))
        cursor += found.dest_end
    if first is None or weight == 0:
        return None
    return total / weight, (first, min(end, len(letters)))


def close_enough(score: float, segments: Sequence[str]) -> bool:
    """Whether a quotation of `segments` not found exactly is found with a change at fuzzy similarity `score`."""
    return score >= MATCH_THRESHOLD and sum(len(segment) for segment in segments) >= MIN_FUZZY_LETTERS
