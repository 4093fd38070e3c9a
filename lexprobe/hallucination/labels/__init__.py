"""Reading one answer into a label: the `Score` labels (`score`), refusals and premise rejections
(`abstention`), the lenient answer extractors (`answers`), the final-answer cut (`final_answer`), the answer's
language (`language`, its phrase tables in `language_phrases.toml`), fuzzy quotation matching (`quotation`) and the
scoring steps every task shares (`scoring`, with the `ScoringContext`). A change to how an answer is read, or what
counts as an abstention, is made here.

May import: `lexprobe.caselaw`, `lexprobe.lazy`, `lexprobe.errors`; nothing else of `lexprobe.hallucination`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.hallucination.labels.abstention import (
        classify_refusal,
        denies_existence,
        dissent_rejection,
        normalize_answer,
        premise_rejection,
        rejects_case_premise,
        split_sentences,
    )
    from lexprobe.hallucination.labels.answers import (
        extract_existence,
        extract_year,
        extract_yes_no,
    )
    from lexprobe.hallucination.labels.final_answer import (
        MAX_JSON_CHARS,
        NO_FINAL_ANSWER,
        final_answer,
        no_final_answer,
        read_reply,
    )
    from lexprobe.hallucination.labels.language import detect_language, to_english, unreadable_language
    from lexprobe.hallucination.labels.quotation import (
        MATCH_THRESHOLD,
        MIN_QUOTE_WORDS,
        QuoteIndex,
        normalize_text,
        split_opinion,
        tokenize,
    )
    from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER, Score
    from lexprobe.hallucination.labels.scoring import (
        OVERRULING_ANCHOR,
        Scorer,
        ScoringContext,
        as_date,
        compare_values,
        existence_score,
        missing_reference,
        nothing_found,
        quoted,
        stance_score,
    )

__all__ = [
    "CONFIDENCE_SCORER",
    "MATCH_THRESHOLD",
    "MAX_JSON_CHARS",
    "MIN_QUOTE_WORDS",
    "NO_FINAL_ANSWER",
    "OVERRULING_ANCHOR",
    "REFERENCE_SCORER",
    "QuoteIndex",
    "Score",
    "Scorer",
    "ScoringContext",
    "as_date",
    "classify_refusal",
    "compare_values",
    "denies_existence",
    "detect_language",
    "dissent_rejection",
    "existence_score",
    "extract_existence",
    "extract_year",
    "extract_yes_no",
    "final_answer",
    "missing_reference",
    "no_final_answer",
    "normalize_answer",
    "normalize_text",
    "nothing_found",
    "premise_rejection",
    "quoted",
    "read_reply",
    "rejects_case_premise",
    "split_opinion",
    "split_sentences",
    "stance_score",
    "to_english",
    "tokenize",
    "unreadable_language",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "CONFIDENCE_SCORER": "score",
        "MATCH_THRESHOLD": "quotation",
        "MAX_JSON_CHARS": "final_answer",
        "MIN_QUOTE_WORDS": "quotation",
        "NO_FINAL_ANSWER": "final_answer",
        "OVERRULING_ANCHOR": "scoring",
        "QuoteIndex": "quotation",
        "REFERENCE_SCORER": "score",
        "Score": "score",
        "Scorer": "scoring",
        "ScoringContext": "scoring",
        "as_date": "scoring",
        "classify_refusal": "abstention",
        "compare_values": "scoring",
        "denies_existence": "abstention",
        "detect_language": "language",
        "dissent_rejection": "abstention",
        "existence_score": "scoring",
        "extract_existence": "answers",
        "extract_year": "answers",
        "extract_yes_no": "answers",
        "final_answer": "final_answer",
        "missing_reference": "scoring",
        "no_final_answer": "final_answer",
        "normalize_answer": "abstention",
        "normalize_text": "quotation",
        "nothing_found": "scoring",
        "premise_rejection": "abstention",
        "quoted": "scoring",
        "read_reply": "final_answer",
        "rejects_case_premise": "abstention",
        "split_opinion": "quotation",
        "split_sentences": "abstention",
        "stance_score": "scoring",
        "to_english": "language",
        "tokenize": "quotation",
        "unreadable_language": "language",
    },
)
