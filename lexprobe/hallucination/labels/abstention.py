"""The stance of an answer: does it decline ("I don't know"), reject the question's premise ("Justice Warren did not
dissent"), or answer, however apologetic or hedged? The phrases are data (`reader/stance.toml`, read through
`reader.stance.table`); this module holds the rules that read them. Matching ignores case, on text with curly
quotes straightened and markup removed; a phrase anchored at the start may follow bullets and emoji ("- No", "✅
Real case").

Rules of `classify_refusal`:

1. The answer is split into sentences (abbreviation-aware: "U.S.", "v.", "Mr.", initials do not end one). Only the
   *lead* sentence is read: the first one that is not filler (table `filler`: "I'm sorry.", "Certainly!",
   "Answer", "As of my knowledge cutoff,") nor a question echoed back ("Hammer v. Dagenhart?"). Filler, connectives
   and one scene-setting clause ("Without access to a legal database,") before a cue are not content either.
   A refusal is the answer's stance, not an aside: "Earl Warren. I'm not sure, though." is an answer.
   (`scope="anywhere"` reads every sentence in turn; scorers use it only when no answer could be extracted.)
2. A premise-rejection cue (tables `reject.*`: a negated dissent or overruling, "remains good law", "the premise is
   incorrect", a bare "Never." / "N/A.") gives "reject_premise". It wins over an abstention cue in the same sentence;
   but a cue conceded after content that accepts the premise is not the stance ("It was overruled in 1968, though
   it remains good law in part" accepts it; "Miranda has been narrowed, but it has never been overruled" rejects it).
3. An abstention cue (table `abstain`) gives "abstain", unless the answer goes on:
   a. the cue is a trailing hedge after content and a comma, "but", a dash or a parenthesis ("Earl Warren, but I'm
      not certain");
   b. the cue is qualified (table `qualified`: "I don't know *exactly*") and content that is no refusal follows;
   c. a contrast (table `contrast`) then content that is neither a refusal nor a referral follows ("I'm not sure,
      but I believe it was 1954"; not "..., but you could check Westlaw");
   d. a guess follows (table `guess`: "probably", "I think", "the answer is"), also after "and".
   A bare refusal followed by unmarked content ("I don't have information about this case. It was decided in
   1954.") stays a refusal: models append explanations after declining far more often than they contradict
   themselves. A decline of choosing between values the answer gives ("Either X or Y - I can't recall which") is
   no refusal: the answer names competing values, which the value reader sees.
4. Apologies alone are never refusals: "Sorry, but the answer is 1954" answers the question.

`declines_question` finds a decline of the question anywhere (in mid-paragraph, among facts about the case);
`premise_rejection`, `dissent_rejection`, `dissent_affirmation` and `denies_existence` find phrases anywhere, for
the scorers that know the task; `rejects_case_premise` reads the lead sentence for a denial that the case exists.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from lexprobe.caselaw.judges import normalize_name
from lexprobe.hallucination.labels.language import to_english

if TYPE_CHECKING:
    from lexprobe.hallucination.reader.stance import PhraseTable

Refusal = Literal["abstain", "reject_premise"]
Scope = Literal["lead", "anywhere"]
#: What follows a cue: nothing, another decline (refusal, referral, substitute), a guess, content after a contrast,
#: or unmarked content.
Continuation = Literal["nothing", "decline", "guess", "answer", "content"]

_FLAGS = re.IGNORECASE
_REJECT_TABLES = ("reject.premise", "reject.dissent", "reject.overruling", "reject.bare", "reject.generic")


def table(name: str, /, **params: str) -> PhraseTable:
    """Return the phrase table `name` of `reader/stance.toml` (`reader.stance.table`). Imported on first use: the
    reader's value reading builds on this package, so the reader package is never imported while labels load."""
    from lexprobe.hallucination.reader.stance import table as stance_table

    return stance_table(name, **params)


# --- text preparation -------------------------------------------------------------------------------------------

_STRAIGHTEN = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "\u00a0": " "})
_MARKUP = re.compile(r"[*_`#>]+")
_NEW_EXAMPLE = re.compile(r"^(?:(?:case(?:\s*\d)?|question|examples?)\s*:|```|''')", _FLAGS)
_ANSWER_PREFIX = re.compile(r"^\s*(?:answer|a|response)\s*:\s*", _FLAGS)
# words that end with a period without ending a sentence ("v.", "Mr.", "No. 12", "F. Supp.")
_ABBREVIATIONS = frozenset(
    {"v", "vs", "mr", "mrs", "ms", "dr", "jr", "sr", "no", "nos", "co", "corp", "inc", "ltd", "st", "cir", "ct"}
    | {"supp", "ed", "cf", "al", "app", "dist", "art", "sec", "stat", "fed", "ch", "ex", "rev", "gen", "gov", "hon"}
    | {"prof", "messrs", "op", "id", "ibid", "approx"}
)
_SENTENCE_END = re.compile(r"(?<=[.!?][\"')\]])\s+|(?<=[.!?])\s+|\n+")
_PUNCTUATION = re.compile(r"[\s,.!:;\u2013\u2014-]*")
# where a clause ends: punctuation, a spaced dash, a parenthesis, or a word of table `clause_break`
_CLAUSE_PUNCTUATION = r"\s*(?:[,;:]|\s[-\u2013\u2014]\s|\u2014)\s*"
_TRAILING_HEDGE = re.compile(r"(?:,|\bbut|\bthough|\balthough|\(|\s[-\u2013\u2014]|\u2014)\s*$", _FLAGS)
_LAST_WORDS = 4  # how far back a negation reaches ("I don't think this case exists")
#: How far (characters) the rules read around a cue: the clause or two after it, the words before it. Every rule
#: reads a bounded window around each cue, so reading an answer is linear in its length.
_REACH = 400


@lru_cache(maxsize=512)
def normalize_answer(text: str) -> str:
    """Return `text` as the rules read it: curly quotes straightened, an answer in a language of `language.py` read
    into English phrases (`language.to_english`), markdown emphasis and a leading "Answer:" removed, spaces
    collapsed within lines, a few-shot continuation cut off (from a later line opening a new example: "Case:
    ...", "Question: ...", a code fence), and an answer taken back read from its last self-correction on
    (`corrected`: "Agree. Actually, on reflection, disagree." is "disagree."). Raises nothing."""
    text = to_english((text or "").translate(_STRAIGHTEN))
    text = _ANSWER_PREFIX.sub("", text)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    for index, line in enumerate(lines[1:], start=1):
        if _NEW_EXAMPLE.match(line):
            lines = lines[:index]
            break
    return corrected(_MARKUP.sub("", "\n".join(lines)).strip())


def split_sentences(text: str) -> list[str]:
    """Return the sentences of `text` (already normalized) in order; abbreviations and initials end none."""
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        piece = text[max(start, match.start() - 60) : match.start()].rstrip("\"')]")
        if "\n" not in match.group() and piece.endswith("."):
            last_word = re.findall(r"[\w.]+$", piece)
            word = last_word[0].rstrip(".").lower() if last_word else ""
            before_number = text[match.end() : match.end() + 1].isdigit()
            if "." in word or len(word) == 1 or (word in _ABBREVIATIONS and (word != "no" or before_number)):
                continue  # "U.S.", "N.D.", "E.", "v.", "Mr.", "No. 12" - but "No. It is not." ends at "No."
        sentences.append(text[start : match.start()].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [sentence for sentence in sentences if sentence]


def _sentences(answer: str) -> list[str]:
    return split_sentences(normalize_answer(answer))


@lru_cache(maxsize=1)
def _clause_end() -> re.Pattern[str]:
    return re.compile(f"{_CLAUSE_PUNCTUATION}|\\s*(?:{table('clause_break').pattern.pattern})\\s*", _FLAGS)


def skip_filler(text: str, pos: int = 0, connectives: bool = False) -> int:
    """Return where `text` goes on after the filler phrases (table `filler`; with `connectives`, also "but",
    "and", "that said") and punctuation that open it at `pos`."""
    while True:
        pos = _PUNCTUATION.match(text, pos).end()  # type: ignore[union-attr]
        found = table("filler").match(text, pos) or (connectives and table("connective").match(text, pos))
        if not found or found.end() == pos:
            return pos
        pos = found.end()


def _is_filler(sentence: str) -> bool:
    """True for a sentence that is no content: filler only, a question echoed back, or no word at all."""
    return skip_filler(sentence) == len(sentence) or sentence.endswith("?") or not re.search(r"\w", sentence)


@lru_cache(maxsize=256)
def _filler_end(sentence: str) -> int:
    """Where the sentence's opening filler, connectives and at most one scene-setting clause end."""
    pos = skip_filler(sentence, connectives=True)
    if pos < len(sentence) and table("scene").match(sentence, pos):
        comma = re.compile(r"[,;:]").search(sentence, pos)
        pos = skip_filler(sentence, comma.end(), connectives=True) if comma else pos
    return pos


def _filler_before(sentence: str, start: int) -> bool:
    """True when everything before `start` in `sentence` is filler (`_filler_end`): no content precedes a cue."""
    end = start
    while end > 0 and sentence[end - 1].isspace():
        end -= 1
    return _filler_end(sentence) >= end


@lru_cache(maxsize=256)
def _breaks(sentence: str) -> tuple[list[int], list[int]]:
    """The starts and ends of the clause breaks of a sentence."""
    found = list(_clause_end().finditer(sentence))
    return [m.start() for m in found], [m.end() for m in found]


def _clause_bounds(sentence: str, start: int, end: int) -> tuple[int, int]:
    """Return the start and end of the clause that holds `sentence[start:end]`."""
    starts, ends = _breaks(sentence)
    before = bisect_right(ends, start)
    after = bisect_left(starts, end)
    return (ends[before - 1] if before else 0), (starts[after] if after < len(starts) else len(sentence))


def negated(text: str, start: int) -> bool:
    """True when a negation (table `negator`) stands within a few words before `start` in its clause: "It's *not*
    a fake case", "I *don't* think this case exists" (but not "no doubt", "that doesn't mean")."""
    clause_start, _ = _clause_bounds(text, start, start)
    words = text[max(clause_start, start - 200) : start].split()
    return table("negator").search(" ".join(words[-_LAST_WORDS:])) is not None


def blank(text: str, matches: Iterable[re.Match[str]]) -> str:
    """Return `text` with the spans of `matches` (in order, not overlapping) replaced by spaces, so that what is
    left keeps its offsets."""
    pieces, last = [], 0
    for match in matches:
        pieces += [text[last : match.start()], " " * (match.end() - match.start())]
        last = match.end()
    return "".join([*pieces, text[last:]])


def _following(sentences: list[str], index: int) -> str:
    """The sentences after `index`, joined, as far as the rules read (`_REACH`)."""
    taken: list[str] = []
    size = 0
    for later in range(index + 1, len(sentences)):
        taken.append(sentences[later][:_REACH])
        size += len(taken[-1]) + 1
        if size >= _REACH:
            break
    return " ".join(taken)


def _after(sentence: str, clause_end: int, following: str) -> str:
    """What follows a cue's clause, as far as the rules read."""
    return f"{sentence[clause_end : clause_end + _REACH]} {following}"


# --- the lead sentence's stance ---------------------------------------------------------------------------------


def _reject_cues(sentence: str) -> list[re.Match[str]]:
    """Every premise-rejection cue in `sentence`, in order."""
    return sorted((m for name in _REJECT_TABLES for m in table(name).finditer(sentence)), key=lambda m: m.start())


def _rejection(sentence: str) -> re.Match[str] | None:
    """Return the premise-rejection cue that is the sentence's stance, not a concession after content that accepts
    the premise ("It was overruled in 1968, though it remains good law in part"), else None."""
    for cue in _reject_cues(sentence):
        low = max(0, cue.start() - _REACH)
        contrast = table("concession").search(sentence, low, cue.start())
        head = sentence[low : contrast.start()].strip(" ,;:") if contrast else ""
        conceded = head and table("premise_topic").search(head) and not table("abstain").search(head)
        if not conceded or (low == 0 and _filler_before(sentence, contrast.start())):  # type: ignore[union-attr]
            return cue
    return None


def _continuation(rest: str) -> Continuation:
    """Say what `rest`, the text after a cue's clause, does (see `Continuation`)."""
    rest = rest[: 2 * _REACH].strip(" ,;:.!?-\u2013\u2014\n")
    while rest:
        lead, _, tail = rest.partition("\n")
        sentences = split_sentences(lead)
        if not sentences or not _is_filler(sentences[0]):
            break
        rest = (" ".join(sentences[1:]) + "\n" + tail).strip(" ,;:.!?-\u2013\u2014\n")
    if not rest:
        return "nothing"
    contrast = table("contrast").match(rest)
    body = rest[contrast.end() :].lstrip(" ,:;-\u2013\u2014") if contrast else rest
    first = split_sentences(body)
    first_clause = _clause_end().split(first[0] if first else body, maxsplit=1)[0]
    if not body.strip() or table("abstain").search(first_clause) or table("substitute").search(first_clause):
        return "decline"  # another refusal, or "..., but here is a summary": something else instead of the answer
    if table("guess").match(body):
        return "guess"
    if table("referral").search(first_clause):
        return "decline"
    return "answer" if contrast else "content"


def _goes_on(continuation: Continuation, qualified: bool) -> bool:
    """True when what follows a decline answers after all (rules 3b-3d)."""
    return continuation in ("guess", "answer") or (qualified and continuation == "content")


def _choice(sentence: str, cue: re.Match[str], content_before: bool) -> bool:
    """True when the cue declines only to choose between values given before it ("... - I can't recall which")."""
    after = _PUNCTUATION.match(sentence, cue.end()).end()  # type: ignore[union-attr]
    return content_before and table("choice").match(sentence, after) is not None


def _abstains(sentence: str, rest: str) -> bool:
    """True when `sentence` carries an abstention cue that is the answer's stance (rules 3a-3d)."""
    for cue in table("abstain").finditer(sentence):
        if not _filler_before(sentence, cue.start()) and (
            _TRAILING_HEDGE.search(sentence, max(0, cue.start() - 40), cue.start()) or _choice(sentence, cue, True)
        ):
            continue  # "Earl Warren, but I'm not sure": a hedge after an answer
        _, clause_end = _clause_bounds(sentence, cue.start(), cue.end())
        qualified = table("qualified").search(sentence, cue.start(), min(clause_end, cue.end() + _REACH)) is not None
        return not _goes_on(_continuation(_after(sentence, clause_end, rest)), qualified)
    return False


def _lead_stance(sentences: list[str], scope: Scope) -> tuple[Refusal, re.Match[str]] | None:
    """The refusal of the lead sentence (or of the first sentence that has one), with its cue."""
    for index, sentence in enumerate(sentences):
        if _is_filler(sentence):
            continue
        rejection = _rejection(sentence)
        if rejection:
            return "reject_premise", rejection
        if _abstains(sentence, _following(sentences, index)):
            return "abstain", table("abstain").search(sentence)  # type: ignore[return-value]
        if scope == "lead":
            return None
    return None


def classify_refusal(answer: str, scope: Scope = "lead") -> Refusal | None:
    """Return "reject_premise" or "abstain" when the answer declines, per the module's rules, else None.

    `scope="lead"` (the default) reads the first non-filler sentence only; `scope="anywhere"` reads each sentence
    in turn and returns the first refusal found. Raises nothing.
    """
    stance = _lead_stance(_sentences(answer), scope)
    return stance[0] if stance else None


def rejection_anywhere(answer: str) -> str | None:
    """Return the premise-rejection cue that is the stance of some sentence of the answer (rule 2: not one conceded
    after content that accepts the premise), else None."""
    for sentence in _sentences(answer):
        rejection = _rejection(sentence)
        if rejection:
            return rejection.group().strip()
    return None


def generic_rejection(answer: str) -> bool:
    """True when the lead stance is a bare "not applicable" ("N/A.", "None."): a rejection where the question has a
    premise to reject (an overruling, a dissent), a non-answer where it has none (table `reject.generic`)."""
    stance = _lead_stance(_sentences(answer), "lead")
    return (
        stance is not None and stance[0] == "reject_premise" and bool(table("reject.generic").match(stance[1].group()))
    )


def declines_question(answer: str) -> str | None:
    """Return the sentence by which `answer` declines the question itself anywhere in its text (in mid-paragraph,
    beside facts about the case: "Plessy v. Ferguson was decided in 1896. I'm not able to confirm when it was
    overruled."), else None.

    The decline's clause must name the question (table `question_object`: "whether it is real", "the citation",
    "which court"), or the question be fronted before it ("As for who wrote it, I can't say"), or the decline be
    firm (table `firm_decline`: "so I won't guess"). Not a decline: a hedge on the answer given ("I can't verify
    whether this is correct"), a decline of choosing between values given ("I can't recall which"), a decline that
    goes on to answer ("..., but I believe it was 1954"), and a qualified decline ("the exact date") unless what
    follows is a referral or another refusal. Raises nothing."""
    sentences = _sentences(answer)
    for index, sentence in enumerate(sentences):
        fronted = table("topic_front").match(sentence[skip_filler(sentence, connectives=True) :][:_REACH])
        for cue in table("abstain").finditer(sentence):
            clause_start, clause_end = _clause_bounds(sentence, cue.start(), cue.end())
            clause = sentence[cue.start() : min(clause_end, cue.end() + _REACH)]
            content_before = index > 0 or not _filler_before(sentence, cue.start())
            if not table("firm_decline").search(clause):
                low, high = max(clause_start, cue.start() - _REACH), min(clause_end, cue.end() + _REACH)
                asked = table("question_object").search(sentence, low, high) or fronted
                if not asked or table("on_the_answer").search(clause) or _choice(sentence, cue, content_before):
                    continue
            qualified = table("qualified").search(clause) is not None
            continuation = _continuation(_after(sentence, clause_end, _following(sentences, index)))
            if _goes_on(continuation, qualified) or (qualified and continuation != "decline"):
                continue
            return sentence
    return None


def hedged_answer(answer: str) -> str | None:
    """Return the answer that follows a lead hedge ("I'm not sure whether it affirmed or reversed, but I believe it
    reversed." -> "I believe it reversed."), with the rest of the reply; None when the lead sentence opens with no
    hedge, or the hedge is a refusal (`classify_refusal` gives "abstain"). The extractors read this text, so options
    the hedge names are not taken for the answer. Raises nothing."""
    sentences = _sentences(answer)
    for index, sentence in enumerate(sentences):
        if _is_filler(sentence):
            continue
        cue = table("abstain").search(sentence)
        if cue is None or not _filler_before(sentence, cue.start()) or _rejection(sentence):
            return None
        rest = " ".join(sentences[index + 1 :])
        if _abstains(sentence, _following(sentences, index)):
            return None
        _, clause_end = _clause_bounds(sentence, cue.start(), cue.end())
        tail = f"{sentence[clause_end:]} {rest}".strip(" ,;:.!?-\u2013\u2014")
        contrast = table("contrast").match(tail)
        tail = tail[contrast.end() :].lstrip(" ,:;") if contrast else tail
        tail = re.sub(r"^and\s+", "", tail, flags=_FLAGS)
        return tail or None
    return None


def corrected(text: str) -> str:
    """Return normalized `text` from its last self-correction on ("Yes, it's real. Actually, on reflection, it is
    fabricated." -> "it is fabricated."; table `correction`: a later sentence that opens by taking back the answer
    before it); unchanged when it has none. Raises nothing."""
    sentences = split_sentences(text)
    for index in range(len(sentences) - 1, 0, -1):
        rest = sentences[index]
        marker = table("correction").match(rest)
        while marker:  # "Actually, on reflection," is two markers
            rest = rest[marker.end() :].lstrip(" ,:;—–-")
            marker = table("correction").match(rest)
        if rest != sentences[index] and rest.strip():
            return " ".join([rest, *sentences[index + 1 :]])
    return text


def drop_hedges(text: str) -> str:
    """Return normalized `text` without the clauses that only hedge the answer before them ("Arthur Goldberg, I
    believe." -> "Arthur Goldberg."; table `hedge`); unchanged when it has none. Raises nothing."""
    sentences = split_sentences(text)
    kept = []
    for sentence in sentences:
        breaks = list(re.finditer(rf"{_CLAUSE_PUNCTUATION}|\(|\s(?:but|though|although)\b", sentence, _FLAGS))
        if breaks and table("hedge").match(sentence[breaks[-1].end() :].strip(" ().")):
            sentence = sentence[: breaks[-1].start()].rstrip() + "."
        kept.append(sentence)
    return " ".join(kept) if kept != sentences else text


# --- phrases anywhere -------------------------------------------------------------------------------------------


def _joined(answer: str) -> str:
    return " ".join(_sentences(answer))


def premise_rejection(answer: str) -> str | None:
    """Return the first premise-rejection cue anywhere in `answer` ("has not been overruled"), else None."""
    cues = _reject_cues(_joined(answer))
    return cues[0].group().strip() if cues else None


def denies_existence(answer: str) -> str | None:
    """Return the phrase by which `answer` says the case (or justice) does not exist ("this case does not exist",
    "not a real case", "a fictional case"; tables `existence.case_denial`, `existence.denial`), else None. A denial
    about other cases ("cited cases that did not exist") is none. Raises nothing."""
    text = _joined(answer)
    return table("existence.case_denial").found(text) or table("existence.denial").found(text)


def lead_sentence(answer: str) -> str:
    """Return the answer's lead sentence: its first sentence that is not filler; "" when there is none."""
    return next((sentence for sentence in _sentences(answer) if not _is_filler(sentence)), "")


def rejects_case_premise(answer: str) -> str | None:
    """Return the phrase by which the answer's lead sentence rejects the premise of a question about a real case:
    it says the case does not exist ("This case does not exist.", "I'm sorry, but there is no such case") or that
    the question's premise is false ("The premise of your question is incorrect"); None otherwise.

    Used on the reference-free tasks, whose premise (a real case with a background, a posture, a holding) is true,
    so a rejection is a hallucination there. Only the lead sentence counts, as in `classify_refusal`: a later "no
    such case or controversy" inside an answer is not a rejection. Raises nothing."""
    lead = lead_sentence(answer)
    return table("existence.case_denial").found(lead) or table("reject.premise").found(lead)


def _last_name(justice: str) -> str | None:
    words = normalize_name(justice).split()
    return words[-1] if words else None


def dissent_rejection(answer: str, dissenter: str) -> str | None:
    """Return the phrase by which `answer` contradicts "`dissenter` dissented" without a dissent cue: the decision
    was unanimous, the justice wrote the majority opinion, joined the majority, concurred, did not sit or was not on
    the Court (table `dissent.rejection`). None when there is no such phrase. Raises nothing."""
    name = _last_name(dissenter)
    return table("dissent.rejection", name=name).found(_joined(answer)) if name else None


def dissent_affirmation(answer: str, dissenter: str) -> str | None:
    """Return the phrase by which `answer` says as a fact that `dissenter` dissented ("In his dissent, Fortas
    argued", "Clark dissented in part"; table `dissent.affirmation`, not negated), else None. Raises nothing."""
    name = _last_name(dissenter)
    if not name:
        return None
    for sentence in _sentences(answer):
        for match in table("dissent.affirmation", name=name).finditer(sentence):
            if not negated(sentence, match.start()):
                return match.group().strip()
    return None
