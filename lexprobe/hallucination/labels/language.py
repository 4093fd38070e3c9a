"""The language of an answer, and an answer in another language read into the English phrases the rules read.

Telling the language: `lingua-language-detector` (the `lingua` package, imported on the first answer whose language
is asked for, never at start-up), built once per process for a bounded set of languages (`LANGUAGES`): English, the
seven languages whose phrase tables lexprobe reads, and the common languages of other scripts models answer in
(named in the reason an answer is left unscored). It reads the answer's *counted words* only: lower-case words and
each sentence's first word, from the first `SAMPLE_CHARS` characters, so names ("Antonin Scalia", "Ex parte De La
Rosa"), citations and years do not make an English answer foreign. Short answers (fewer than `MIN_WORDS` counted
words: "Sí.", "Oui", "Nein.", "Não sei.") are too short for any detector: one is foreign only when a phrase table
reads a decisive phrase in it and lingua does not rank English first; a text in a script of its own ("是的",
"いいえ"), which lingua tells by its script, is foreign at any length.

Reading: `to_english` rewrites each phrasing of the answer's language found in its table
(`language_phrases.toml`, one table per language) into the English phrase the English rules read ("no disintió" ->
"did not dissent", "最高法院推翻了下级法院的判决" -> "the Supreme Court reversed ..."), so the label comes from what
was said. Names, citations and years pass through unchanged (they read the same in any script); Chinese and
Japanese justices' names, written in their script, are read from the tables' name rows.

Unscored: `unreadable_language(answer, task)` gives "not English (<language>)" only where the task's value needs
words (yes/no, affirm/reverse, a court, agree/disagree, a rejection or a dissent) and none of the answer's decisive
phrases was read. A task whose value reads the same in any script (`SCRIPT_FREE_TASKS`: a name, a citation, a year)
is never unscored for its language; its scorer reads the value, or says it found none. A quotation reads in any
script only when it is the opinion's English: an answer in another language to the quotation task is read when it
quotes English text (in any quotation marks: "...", “...”, «...», „...“, 「...」) or declines; a paraphrase in its own
language ("El Tribunal sostuvo que ...") is "not English".
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lingua import LanguageDetector

#: The languages lingua chooses among (lingua's names): English; the seven languages lexprobe reads (the tables of
#: `language_phrases.toml`); Dutch, common and close to German (a Dutch answer is named, not read with the German
#: table); and common languages of other scripts, told by their script at no cost (no model is loaded for them) and
#: named in the reason an answer is left unscored. Each Latin-script language costs ~25 MB and ~0.2 s of model
#: loading, and is one more way for a short English answer to be misread, so the Latin-script set stays small.
LANGUAGES = (
    "ENGLISH",
    "SPANISH",
    "PORTUGUESE",
    "FRENCH",
    "GERMAN",
    "ITALIAN",
    "DUTCH",
    "CHINESE",
    "JAPANESE",
    "KOREAN",
    "RUSSIAN",
    "ARABIC",
    "HINDI",
)
#: lingua's low-accuracy mode (trigrams only): a sixth of the memory and start-up, but it misreads short answers
#: ("Sí." and "Ja." not told; "Roe was overruled in 1992 by Planned Parenthood v. Casey." told Dutch); BENCHMARKS.md,
#: "Answer language", gives the figures (`bench/language.py`).
LOW_ACCURACY = False
#: Fewer counted words than this is a short answer: its language is told by the phrase tables, not by lingua alone.
MIN_WORDS = 3
#: The least confidence lingua must give a language for its phrase table to be tried on the text.
MIN_SHARE = 0.05
#: How many times English's confidence lingua must give a language to make a text foreign on its word alone.
ENGLISH_MARGIN = 2.0
#: How much of an answer its language is told from (the detector is linear, but a long answer's opening suffices).
SAMPLE_CHARS = 2_000
#: Tasks whose answer's value reads the same in any script: never unscored for their language.
SCRIPT_FREE_TASKS = frozenset({"author", "citation", "overruling_year", "authority"})
#: Tasks whose value is a quotation of an English opinion (read in another language's answer when quoted in English).
QUOTATION_TASKS = frozenset({"quotation"})
#: Kinds of table rows that only join a sentence (they never settle a label on their own).
_JOINING_KINDS = frozenset({"join", "title", "name"})
#: A span in quotation marks of any language (at least 12 characters).
_QUOTED = re.compile(r'"([^"]{12,})"|“([^”]{12,})”|«([^»]{12,})»|„([^“”]{12,})[“”]|「([^」]{12,})」|『([^』]{12,})』')

#: A word, or any other single character that is not white space (what comes before the next word).
_TOKEN = re.compile(r"([^\W\d_]+(?:['’][^\W\d_]+)*)|\S")
_SENTENCE_OPENERS = frozenset('.!?:;¿¡«"(。！？：；')
#: Words whose period ends no sentence (in case names: "v.", "Co.", "Inc.").
_ABBREVIATIONS = frozenset({"vs", "co", "corp", "inc", "ltd", "mr", "mrs", "ms", "dr", "jr", "sr", "st"})
_SLOT = re.compile(r"\{([a-z_]+)\}")
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_MARK = re.compile(r"[ \t]+([,.;:!?)])")


def _counted_words(text: str) -> list[str]:
    """Return the words that tell a language, lower-cased: words that do not start with a capital (lower-case words,
    and words of scripts without case), and each sentence's first word; never a single Latin letter ("v", the "U" of
    "U.S."), and a period after an abbreviation ("v.", "Co.", "U.S.") ends no sentence, so the name after it is not
    counted. One pass, linear in the text's length."""
    words = []
    previous = ""  # the last character that is not white space, before the current token
    last_word = ""  # the last word, to tell an abbreviation's period from a sentence's end
    for match in _TOKEN.finditer(text):
        word = match.group(1)
        if word is None:
            token = match.group()
            if token != "." or (len(last_word) > 1 and last_word.lower() not in _ABBREVIATIONS):
                previous = token
            last_word = "" if token != "." else last_word
            continue
        opens = not previous or previous in _SENTENCE_OPENERS
        if not (len(word) == 1 and word.isascii()) and (not word[0].isupper() or opens):
            words.append(word.lower())
        previous, last_word = word[-1], word
    return words


# --- the phrase tables ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One phrasing of a language's table: its compiled pattern, the English it is read as, and whether it is
    decisive (settles a label on its own) or only joins a sentence."""

    kind: str
    pattern: re.Pattern[str]
    english: str
    slots: dict[str, dict[str, str]]

    @property
    def decisive(self) -> bool:
        return self.kind not in _JOINING_KINDS

    def replace(self, match: re.Match[str]) -> str:
        """Return the English for `match`: its groups expanded (`\\1`), each `{slot}` read from the slot's table."""
        english = match.expand(self.english)
        for slot, table in self.slots.items():
            said = " ".join(match.group(slot).casefold().split())
            english = english.replace("{" + slot + "}", table.get(said, said))
        return english


@dataclass(frozen=True)
class Table:
    """A language's table: its rows in the order they are tried, and whether its words are spaced (Chinese and
    Japanese are not: their phrases are matched as substrings)."""

    name: str
    spaced: bool
    rows: tuple[Row, ...]
    punctuation: dict[str, str]


def _compile(pattern: str, spaced: bool, slots: dict[str, dict[str, str]]) -> tuple[re.Pattern[str], dict]:
    """Return `pattern` compiled (a spaced language's on word boundaries, its spaces matching any white space) and
    the slot tables it uses; `{slot}` becomes a named group of the slot table's words, longest first."""
    used: dict[str, dict[str, str]] = {}

    def slot_group(match: re.Match[str]) -> str:
        name = match.group(1)
        table = slots[name]  # an unknown slot is a KeyError when the tables load (tests load every table)
        used[name] = table
        words = sorted(table, key=len, reverse=True)
        return f"(?P<{name}>" + "|".join(re.escape(word).replace(r"\ ", " ") for word in words) + ")"

    source = _SLOT.sub(slot_group, pattern)
    if spaced:
        source = r"(?<![\w'’])(?:" + source.replace(" ", r"\s+") + r")(?![\w'’])"
    return re.compile(source, re.IGNORECASE), used


def _table(name: str, raw: dict[str, Any], punctuation: dict[str, str]) -> Table:
    spaced = raw.get("spaced", True)
    slots = {
        slot: {key.casefold(): value for key, value in table.items()} for slot, table in raw.get("slots", {}).items()
    }
    rows = []
    for kind, pattern, english in raw["phrases"]:
        compiled, used = _compile(pattern, spaced, slots)
        rows.append(Row(kind, compiled, english if spaced else f" {english} ", used))
    return Table(name, spaced, tuple(rows), {} if spaced else punctuation)


@cache
def tables() -> dict[str, Table]:
    """Return every language's phrase table (`language_phrases.toml`), by language name ("Spanish"), loaded once."""
    raw = tomllib.loads(files(__package__).joinpath("language_phrases.toml").read_text("utf-8"))
    punctuation = raw.pop("punctuation")
    return {name: _table(name, table, punctuation) for name, table in raw.items()}


def _translate(text: str, table: Table, kinds: frozenset[str] | None = None) -> tuple[str, int]:
    """Return `text` with the table's phrasings replaced by their English, and how many characters of it the
    decisive phrasings read (0: none was found); with `kinds`, only rows of those kinds count as decisive."""
    for mark, plain in table.punctuation.items():
        text = text.replace(mark, plain)
    decisive_chars = 0
    for row in table.rows:
        read: list[int] = []

        def replace(match: re.Match[str], row: Row = row, read: list[int] = read) -> str:
            read.append(match.end() - match.start())
            return row.replace(match)

        text = row.pattern.sub(replace, text)
        if row.decisive and (kinds is None or row.kind in kinds):
            decisive_chars += sum(read)
        if read and not table.spaced:
            text = _SPACES.sub(" ", text)  # the spaces around an English phrase, once
    if not table.spaced:
        text = _SPACE_BEFORE_MARK.sub(r"\1", text).strip()
    return text, decisive_chars


# --- the detector -----------------------------------------------------------------------------------------------


@cache
def _detector() -> LanguageDetector:
    """Return lingua's detector for `LANGUAGES` (in low-accuracy mode when `LOW_ACCURACY`), built once per process
    (its models load on first use, per language; a text in a script of its own loads none)."""
    from lingua import Language, LanguageDetectorBuilder

    builder = LanguageDetectorBuilder.from_languages(*(getattr(Language, name) for name in LANGUAGES))
    return (builder.with_low_accuracy_mode() if LOW_ACCURACY else builder).build()


def _ranked(sample: str) -> list[tuple[str, float]]:
    """Return lingua's confidence per language for `sample`, highest first, as ("Spanish", 0.61)."""
    return [
        (value.language.name.title(), value.value) for value in _detector().compute_language_confidence_values(sample)
    ]


@lru_cache(maxsize=4096)
def detect_language(text: str) -> str | None:
    """Return the language of `text` when it is not English ("Spanish", "Chinese", "Korean"), else None (English,
    or nothing to tell: names, numbers, citations, a short answer that no phrase table reads). Raises nothing.

    lingua ranks the languages on the text's counted words. English ranked first is English. Otherwise, among the
    languages lingua ranks above English with at least `MIN_SHARE` of the confidence, the one whose table's decisive
    phrases read the most of the text is its language: lingua alone confuses Spanish and Portuguese in a short
    sentence ("foi revogado em 1963" is Portuguese; "No, ese caso no existe." Spanish, though both tables read
    "existe"). Failing that, lingua's first, on its word alone only when the text has
    `MIN_WORDS` counted words and lingua gives it `ENGLISH_MARGIN` times English's confidence ("I'm not certain."
    is French 0.42, English 0.37: English) - or when its script tells its language ("是的")."""
    words = _counted_words((text or "")[:SAMPLE_CHARS])
    if not words:
        return None
    ranked = _ranked(" ".join(words))
    if not ranked or ranked[0][1] == 0.0 or ranked[0][0] == "English":
        return None
    readable = tables()
    best, best_read = None, 0
    for language, confidence in ranked:
        if language == "English" or confidence < MIN_SHARE:
            break
        read = _translate(text, readable[language])[1] if language in readable else 0
        if read > best_read:
            best, best_read = language, read
    if best is not None:
        return best
    top, confidence = ranked[0]
    if confidence == 1.0:  # a script of its own
        return top
    english = next((value for language, value in ranked if language == "English"), 0.0)
    return top if len(words) >= MIN_WORDS and confidence >= ENGLISH_MARGIN * english else None


@lru_cache(maxsize=4096)
def to_english(text: str) -> str:
    """Return `text` as the English rules read it: unchanged when it is English (or in a language without a table),
    else with the phrasings of its language replaced by English phrases ("No, no existe tal caso." -> "No, there is
    no such case."). Raises nothing."""
    language = detect_language(text)
    table = tables().get(language) if language else None
    return _translate(text, table)[0] if table else text


def needs_words(task: str | None) -> bool:
    """Return whether the value of `task`'s answer needs words to be read (None, an unknown task: it does)."""
    return task not in SCRIPT_FREE_TASKS


def _quotes_english(answer: str) -> bool:
    """Return whether `answer` quotes English text: a span in quotation marks of `MIN_WORDS` counted words or more
    that lingua does not tell foreign."""
    for match in _QUOTED.finditer(answer[:SAMPLE_CHARS]):
        span = next(group for group in match.groups() if group is not None)
        if len(_counted_words(span)) >= MIN_WORDS and detect_language(span) is None:
            return True
    return False


def unreadable_language(answer: str, task: str | None = None) -> str | None:
    """Return why `answer` cannot be read by the answer rules ("not English (Spanish)": a foreign answer to a task
    whose value needs words, in which no decisive phrase of its language is read; or a foreign answer to a
    quotation task that neither quotes English text nor declines), or None when it can be read (English; a foreign
    answer read through its phrase table; any answer to a task in `SCRIPT_FREE_TASKS`)."""
    if not needs_words(task):
        return None
    language = detect_language(answer or "")
    if language is None:
        return None
    table = tables().get(language)
    if task in QUOTATION_TASKS:
        if _quotes_english(answer) or (table is not None and _translate(answer, table, frozenset({"decline"}))[1]):
            return None
    elif table is not None and _translate(answer, table)[1]:
        return None
    return f"not English ({language})"
