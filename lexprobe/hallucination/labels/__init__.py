"""Reading one answer into a label: the `Score` labels (`score`), refusals and premise rejections
(`abstention`), the lenient answer extractors (`answers`), the final-answer cut (`final_answer`), the answer's
language (`language`, its phrase tables in `language_phrases.toml`), fuzzy quotation matching (`quotation`) and the
scoring steps every task shares (`scoring`, with the `ScoringContext`). A change to how an answer is read, or what
counts as an abstention, is made here.

May import: `lexprobe.caselaw`, `lexprobe.errors`; nothing else of `lexprobe.hallucination`.
"""
