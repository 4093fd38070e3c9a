"""The language of an answer: the rules that read answers know English, and the phrasings of the common languages
in `language_phrases.py` (Spanish, Portuguese, Italian, French, German). An answer in one of those is read through
its phrase table - each phrasing found is replaced by the English phrase the English rules read ("no disintió" ->
"did not dissent"), so the label comes from what was said - and an answer in which no decisive phrase is found is
left unscored with the reason "not English (<language>)", never guessed at with English keyword rules.

The language is told by a small stop-word profile (no dependency, nothing downloaded): a text is foreign when its
words of one language's profile are at least two and more than twice its English function words. Only lower-case
words and each sentence's first word count, so a name ("Ex parte De La Rosa", "El Paso") is not Spanish, and short
English answers ("Yes.", "1973", "Ninth Circuit") never are.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lexprobe.hallucination.labels.language_phrases import PHRASES, STOP_WORDS, TELLING_WORDS

#: English function words: what a foreign profile must outnumber twice over.
_ENGLISH = frozenset(
    str.split(
        "the a an and or but of to in on at by for with from is are was were be been it this that these those he she "
        "they his her its their not no yes do does did have has had i you we my your which who what when whether if "
        "as so case court opinion there here would could should can may might will about"
    )
)
#: A word, or any other single character that is not white space (what comes before the next word).
_TOKEN = re.compile(r"([^\W\d_]+(?:['’][^\W\d_]+)*)|\S")
_SENTENCE_OPENERS = frozenset('.!?:;¿¡«"(')


def _counted_words(text: str) -> list[str]:
    """Return the words that tell a language: lower-case words, and each sentence's first word (lower-cased).

    One pass over the text (linear in its length): the character before a word is the last non-space token seen."""
    words = []
    previous = ""  # the last character that is not white space, before the current token
    for match in _TOKEN.finditer(text):
        word = match.group(1)
        if word is None:
            previous = match.group()
            continue
        if word.islower() or not previous or previous in _SENTENCE_OPENERS:
            words.append(word.lower())
        previous = word[-1]
    return words


@lru_cache(maxsize=4096)
def detect_language(text: str) -> str | None:
    """Return the language of `text` when it is one of the profiled foreign languages ("Spanish"), else None
    (English, or too little text to tell). Raises nothing."""
    words = _counted_words(text or "")
    if not words:
        return None
    english = sum(word in _ENGLISH for word in words)
    best, best_hits = None, 0
    for language, profile in STOP_WORDS.items():
        hits = sum(word in profile for word in words)
        hits += sum(word in TELLING_WORDS[language] for word in words)  # telling words count twice
        if hits > best_hits:
            best, best_hits = language, hits
    if best_hits >= 2 and best_hits > 2 * english:
        return best
    return None


@lru_cache(maxsize=64)
def _compiled(language: str) -> list[tuple[re.Pattern[str], str, bool]]:
    return [
        (re.compile(r"(?<![\w'])" + pattern.replace(" ", r"\s+") + r"(?![\w'])", re.IGNORECASE), english, decisive)
        for pattern, english, decisive in PHRASES[language]
    ]


def _translate(text: str, language: str) -> tuple[str, bool]:
    """Return `text` with the language's phrasings replaced by their English phrases, and whether any decisive
    phrase was found."""
    decisive_found = False
    for pattern, english, decisive in _compiled(language):
        text, count = pattern.subn(english, text)
        decisive_found = decisive_found or (decisive and count > 0)
    return text, decisive_found


@lru_cache(maxsize=4096)
def to_english(text: str) -> str:
    """Return `text` as the English rules read it: unchanged when it is English, else with the phrasings of its
    language replaced by English phrases ("No, no existe tal caso." -> "No, there is no such case."). Raises
    nothing."""
    language = detect_language(text)
    return _translate(text, language)[0] if language else text


def unreadable_language(answer: str) -> str | None:
    """Return why `answer` cannot be read by the answer rules ("not English (Spanish)": a foreign answer in which
    no decisive phrasing of its language is found), or None when it can be read (English, or a foreign answer read
    through its phrase table)."""
    language = detect_language(answer or "")
    if language is None or _translate(answer, language)[1]:
        return None
    return f"not English ({language})"
