"""The answer reader: candidates, roles, choice, stance; tables as data.

`stance.py` reads the phrase tables of `stance.toml` (refusal cues, hedges, referrals, premise rejections, existence
affirmations and denials, yes/no words, dissent and overruling phrasings) and matches them; the rules that read an
answer's stance with them are in `labels.abstention` and `labels.answers`.

May import: `lexprobe.lazy`; nothing else of `lexprobe.hallucination`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.hallucination.reader.stance import PhraseTable, phrase_pattern, table

__all__ = ["PhraseTable", "phrase_pattern", "table"]

__getattr__, __dir__ = lazy_exports(
    __name__, globals(), {"PhraseTable": "stance", "phrase_pattern": "stance", "table": "stance"}
)
