"""Refusals: tell an answer that declines ("I don't know") or rejects the question's premise ("Justice Warren did
not dissent") from one that answers, however apologetic or hedged.

Rules of `classify_refusal` (all matching is case-insensitive, on text with curly quotes straightened):

1. The answer is split into sentences (abbreviation-aware: "U.S.", "v.", "Mr.", initials do not end one). Only the
   *lead* sentence is read: the first one that is not pure filler ("I'm sorry.", "Certainly!", "Answer:",
   "Regrettably,", "I'm afraid", "As of my knowledge cutoff,"). Filler, and a scene-setting clause ("Without access
   to a legal database,"), before a cue in the lead is not content either.
   A refusal is the answer's stance, not an aside: "Earl Warren. I'm not sure, though." is an answer.
   (`scope="anywhere"` reads every sentence in turn instead; scorers use it only when no answer could be extracted.)
2. A *premise-rejection* cue in the lead gives "reject_premise": a negated dissent ("did not dissent", "did not write
   a dissent", "not aware of a dissent", "there was no dissent"), a negated overruling ("has not been overruled",
   "was never overruled" - but not "was not overruled until 1954"), "remains / is still good law", "no record of
   this case being overruled", "the premise is incorrect", a bare "Never." / "None." / "N/A.". These cues are
   specific, so they win over abstention cues in the same sentence, and a continuation does not undo them; but a
   cue conceded after content and a contrast is not the stance ("It was overruled in 1968, though it remains good
   law in part" accepts the premise; "I'm sorry, but it has not been overruled" rejects it).
3. An *abstention* cue in the lead gives "abstain": "I don't know", "I'm not sure / not certain / not aware /
   not familiar", "I cannot / am unable to provide (find, determine, verify ...)", "I do not have (possess) the
   information (citation, author, text, answer, access, details ...)", "I don't have that", "I lack the
   information", "I'm not in a position to", "that information is not available to me", "beyond / outside my
   knowledge", "I have no information", "no information is available", "I recommend consulting ...", a bare
   "Unknown." ("I don't have any doubt" is not one) - unless one of these says the answer goes on:
   a. the cue is a trailing hedge: it follows content and a comma, "but", "though" or a parenthesis
      ("Earl Warren, but I'm not certain");
   b. the cue is qualified ("I don't know *exactly*", "I can't say *for sure*", "I'm not sure of *the exact*
      year") and anything that is not another refusal follows;
   c. what follows the cue's clause opens with a contrast ("but", "however", "though") and then content that is
      neither a refusal nor a referral ("I'm not sure, but I believe it was 1954"; not "..., but you could check
      Westlaw");
   d. what follows opens with a guess ("probably", "I think", "it may be", "the answer is", "my best guess").
   A bare refusal followed by unmarked content ("I don't have information about this case. It was decided in
   1954.") stays a refusal: models append explanations after declining far more often than they contradict
   themselves.
4. Apologies alone are never refusals: "Sorry, but the answer is 1954" answers the question.

`premise_rejection`, `dissent_rejection` and `denies_existence` look for rejections anywhere in the answer; the
false-premise scorers use them after `classify_refusal`, with knowledge of the task. `rejects_case_premise` reads
the lead sentence for a denial that the case exists or that the question's premise holds: the reference-free
pairs use it (`judge.pair_label`), where such a denial is a hallucination.
"""

from __future__ import annotations

import re
from typing import Literal

from lexprobe.caselaw.judges import normalize_name
from lexprobe.hallucination.labels.language import to_english
from lexprobe.lazy import LazyPattern, lazy_pattern

Refusal = Literal["abstain", "reject_premise"]
Scope = Literal["lead", "anywhere"]

_FLAGS = re.IGNORECASE


def _any(*patterns: str) -> LazyPattern:
    return lazy_pattern("|".join(f"(?:{pattern})" for pattern in patterns), _FLAGS)


# --- text preparation -------------------------------------------------------------------------------------------

_STRAIGHTEN = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "\u00a0": " "})
_MARKUP = lazy_pattern(r"[*_`#>]+")
_NEW_EXAMPLE = lazy_pattern(r"^(?:(?:case(?:\s*\d)?|question|examples?)\s*:|```|''')", _FLAGS)
_ANSWER_PREFIX = lazy_pattern(r"^\s*(?:answer|a|response)\s*:\s*", _FLAGS)
# words that end with a period without ending a sentence ("v.", "Mr.", "No. 12", "F. Supp.")
_ABBREVIATIONS = frozenset(
    {"v", "vs", "mr", "mrs", "ms", "dr", "jr", "sr", "no", "nos", "co", "corp", "inc", "ltd", "st", "cir", "ct"}
    | {"supp", "ed", "cf", "al", "app", "dist", "art", "sec", "stat", "fed", "ch", "ex", "rev", "gen", "gov", "hon"}
    | {"prof", "messrs", "op", "id", "ibid", "approx"}
)
_SENTENCE_END = lazy_pattern(r"(?<=[.!?][\"')\]])\s+|(?<=[.!?])\s+|\n+")


def normalize_answer(text: str) -> str:
    """Return `text` with curly quotes straightened, an answer in a language of `language.py` read into English
    phrases (`language.to_english`), markdown emphasis and a leading "Answer:" removed, spaces
    collapsed within lines, and a few-shot continuation cut off (from a later line opening a new example:
    "Case: ...", "Case 1: ...", "Question: ...", a code fence). Raises nothing."""
    text = to_english((text or "").translate(_STRAIGHTEN))
    text = _ANSWER_PREFIX.sub("", text)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    for index, line in enumerate(lines[1:], start=1):
        if _NEW_EXAMPLE.match(line):
            lines = lines[:index]
            break
    return _MARKUP.sub("", "\n".join(lines)).strip()


def split_sentences(text: str) -> list[str]:
    """Return the sentences of `text` (already normalized) in order; abbreviations and initials end none."""
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        piece = text[start : match.start()].rstrip("\"')]")
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


_FILLER_WORDS = (
    r"(?:i'?m|i am) (?:(?:so|very|terribly|really|truly|deeply|extremely) )*sorry|sorry"
    r"|i apologi[sz]e(?: for [^.!?]*)?|my apologies|apologies"
    r"|unfortunately|thank you(?: for [^.!?]*)?|thanks|great question|good question|certainly|sure|of course"
    r"|ok(?:ay)?|well|hmm+|to be honest|honestly|as an ai(?: language model| assistant| model)?"
    r"|regrettably|sadly|alas|i'?m afraid|i am afraid|i regret(?: to say)?(?: that)?"
    r"|as of my (?:last )?(?:knowledge )?(?:cut-?off|update|training(?: data)?)(?: date)?(?: (?:in|of) \w+(?: \d{4})?)?"
    r"|(?:based on|according to|from) (?:my|the) (?:training(?: data)?|knowledge|information (?:i have|available"
    r"(?: to me)?))"
)
_FILLER_SENTENCE = lazy_pattern(rf"^(?:(?:{_FILLER_WORDS})[\s,.!:;-]*)+$", _FLAGS)
# filler, then at most one scene-setting clause before the cue ("Without access to a legal database, I can't ...");
# the clause stands once, outside the repetition, so the match stays linear
_FILLER_PREFIX = lazy_pattern(
    rf"^(?:(?:{_FILLER_WORDS}|but|and|however|so)[\s,.!:;-]*)*"
    r"(?:(?:without|lacking|absent|given|since|because|due\s+to)\b[^,.!?;:]*[,;:]\s*(?:(?:but|so)\b[\s,]*)?)?$",
    _FLAGS,
)


# --- cues -------------------------------------------------------------------------------------------------------

_NOT_UNTIL = r"(?!\s+(?:until|till|before|in part))"
_ADVERBS = r"(?:(?:yet|ever|been|actually|since|been\s+\w+ly|\w+ly)\s+){0,3}"

#: Cues that the question's premise as such is false ("the premise is incorrect", "your question is based on a
#: false premise"), whatever the premise is.
_PREMISE_PATTERNS = (
    r"\b(?:the\s+|this\s+|your\s+|that\s+)?(?:premise|assumption|presupposition)(?:\s+of\s+(?:the|your|this)\s+"
    r"question)?\s+(?:is|was|seems|appears\s+to\s+be|may\s+be)\s+(?:\w+\s+)?(?:incorrect|false|mistaken|wrong|"
    r"flawed|inaccurate|erroneous|not\s+(?:correct|accurate|true))",
    r"\b(?:false|incorrect|mistaken|faulty|flawed)\s+(?:premise|assumption)",
    r"\b(?:the|your|this)\s+question\s+(?:is\s+based\s+on|contains|assumes|presupposes|rests\s+on)\s+(?:a|an)\s+"
    r"(?:false|incorrect|mistaken|inaccurate|faulty)",
    r"\b(?:the|your|this)\s+question\s+(?:incorrectly|wrongly|mistakenly|falsely)\s+(?:assumes|states|suggests|"
    r"implies)",
)
_PREMISE_CUES = _any(*_PREMISE_PATTERNS)

_REJECT_CUES = _any(
    *_PREMISE_PATTERNS,
    # a dissent
    r"\b(?:did\s+not|didn't|never|does\s+not|doesn't)\s+(?:\w+\s+){0,2}?(?:write|author|file|issue|pen|deliver|"
    r"join|submit|publish|have)\s+(?:a\s+|any\s+|an\s+)?(?:separate\s+|written\s+)?(?:dissent|dissenting\s+opinion)",
    r"\b(?:did\s+not|didn't|never|does\s+not|doesn't)\s+dissent",
    r"\b(?:was|is|were)\s+not\s+(?:a\s+|the\s+|one\s+of\s+the\s+|among\s+the\s+)?(?:dissenter|dissenting\s+"
    r"(?:justice|judge)|in\s+(?:the\s+)?dissent)",
    r"\bno\s+(?:record|indication|evidence|mention)\s+(?:of|that)\s+(?:\w+\s+){0,8}?dissent",
    r"\bnot\s+aware\s+of\s+(?:\w+\s+){0,6}?dissent",
    r"\b(?:could\s+not|couldn't|can't|cannot|was\s+unable\s+to|am\s+unable\s+to|unable\s+to)\s+(?:find|locate|"
    r"identify)\s+(?:\w+\s+){0,8}?dissent",
    r"\b(?:there\s+(?:is|was|were|are)\s+no|without\s+(?:a|any))\s+dissent",
    r"^no\s+dissent",
    # an overruling
    rf"\b(?:not|never)\s+{_ADVERBS}overruled\b{_NOT_UNTIL}",
    rf"n't\s+{_ADVERBS}overruled\b{_NOT_UNTIL}",
    r"\bno\s+(?:\w+\s+){0,2}?(?:case|decision|court|ruling|opinion)\s+(?:has\s+|had\s+|ever\s+)*overruled",
    r"\bno\s+(?:record|indication|evidence|mention)\s+(?:of|that)\s+(?:\w+\s+){0,10}?overrul",
    r"\bnot\s+aware\s+of\s+(?:any|a|an|it|its|this|the|that)\b(?:\s+\w+){0,8}?\s+overrul",
    r"\b(?:could\s+not|couldn't|can't|cannot|unable\s+to)\s+find\s+any\s+(?:record|indication|evidence|case|"
    r"decision)\s+(?:\w+\s+){0,8}?overrul",
    r"\b(?:don't|do\s+not)\s+(?:think|believe)\s+(?:it|this\s+case|the\s+case)\s+(?:has|was|had)\s+(?:ever\s+)?"
    r"(?:been\s+)?overruled",
    r"\b(?:remains|is\s+still|still\s+is|continues\s+to\s+be|is\s+currently|is)\s+(?:still\s+|currently\s+|"
    r"clearly\s+)?(?:good|valid|binding|controlling)\s+(?:law|precedent)",
    r"\bstill\s+(?:good|valid|binding)\s+(?:law|precedent)",
    r"\bremains?\s+(?:in\s+(?:full\s+)?(?:force|effect)|valid|binding|(?:a\s+)?(?:valid|binding|controlling)\s+"
    r"precedent)",
    r"\bthere\s+(?:is|was|has\s+been)\s+no\s+overruling",
    # a bare answer that the question does not apply
    r"^(?:never|none|n/?a|not\s+applicable|not\s+overruled|it\s+was\s+not|it\s+wasn't|it\s+hasn't\s+been|"
    r"not\s+at\s+all|(?:no|nope)[,.!\s]+(?:never|it\s+(?:was|has)\s+not|it\s+(?:wasn't|hasn't)(?:\s+been)?))[.!]*$",
)

_ABSTAIN_CUES = _any(
    r"\bi\s+(?:do\s+not|don't|did\s+not|didn't)\s+(?:know|recall|remember)\b",
    r"\b(?:i\s+am|i'm)\s+(?:not\s+(?:(?:entirely|completely|totally|quite|fully|absolutely|really|100\s*%)\s+)?"
    r"(?:sure|certain|aware|familiar)|unsure|uncertain|unaware|unfamiliar)\b",
    r"\b(?:i\s+am|i'm)\s+(?:unable|not\s+able)\s+to\b",
    r"\bi\s+(?:cannot|can't|can\s+not|could\s+not|couldn't|was\s+unable\s+to|am\s+unable\s+to)\s+(?:\w+\s+){0,2}?"
    r"(?:provide|find|answer|determine|verify|confirm|locate|access|give|identify|recall|say|tell|be\s+(?:sure|"
    r"certain)|help|assist|comply|generate|quote|reproduce|offer|share|retrieve|know|discuss|speculate|fulfill|"
    r"respond|browse|look\s+up)\b",
    r"\bi\s+(?:do\s+not|don't|did\s+not|didn't|currently\s+do\s+not|currently\s+don't)\s+(?:have|possess)\s+"
    r"(?!to\b|(?:any\s+|a\s+|the\s+slightest\s+)?doubts?\b)(?:[\w-]+\s+){0,4}?(?:information|info|details|data|knowledge|"
    r"access|records?|enough|sufficient|the\s+ability|ability|citations?|authors?|answers?|texts?|quotes?|quotations?|"
    r"years?|dates?|names?|facts|specifics|particulars|copy|copies|means|way|tools?|resources?|capabilit(?:y|ies)|"
    r"content|references?|sources?|databases?|context|opinions?|reliable|specific|verified)\b",
    r"\bi\s+(?:do\s+not|don't)\s+have\s+(?:that|this|it)(?:\s+(?:one|information|handy))?\s*(?:[.!;,]|$)",
    r"\bi\s+lack\s+(?:the\s+|any\s+|sufficient\s+|enough\s+)?(?:information|details|data|knowledge|access|"
    r"context|ability)\b",
    r"\b(?:i\s+am|i'm)\s+not\s+in\s+a\s+position\s+to\b",
    r"\b(?:that|this|the|such|the\s+requested|the\s+specific)\s+(?:\w+\s+){0,2}?(?:information|data|details?|"
    r"citation|text)\s+(?:is|are)\s+(?:not|unavailable)\s*(?:available|accessible|known)?\s*(?:to\s+me)?\b",
    r"\b(?:is|are)\s+not\s+available\s+to\s+me\b",
    r"\b(?:outside|beyond)\s+(?:the\s+scope\s+of\s+)?my\s+(?:knowledge|training|capabilities|abilities)\b",
    r"\bi\s+have\s+no\s+(?:[\w-]+\s+){0,2}?(?:information|knowledge|records?|data|details|access|way|idea|clue)\b",
    r"\b(?:there\s+is|there's)\s+(?:no|not\s+enough|insufficient)\s+(?:\w+\s+){0,2}?(?:information|data|details)\b",
    r"\bno\s+(?:reliable\s+|specific\s+|available\s+|further\s+)?information\s+(?:is\s+)?(?:available|about|on|"
    r"regarding)\b",
    r"\b(?:it\s+is|it's)\s+(?:not\s+possible|impossible|difficult)\s+(?:for\s+me\s+)?to\s+(?:determine|say|know|"
    r"provide|identify|tell|answer)\b",
    r"\b(?:my|the)\s+(?:knowledge|training\s+data|information)\s+(?:does\s+not|doesn't)\s+(?:include|contain|"
    r"cover)\b",
    r"\bbeyond\s+(?:my|the\s+scope\s+of\s+my)\s+(?:knowledge|training|capabilities)\b",
    r"\b(?:i|we)\s+(?:would\s+)?(?:recommend|suggest|advise)\s+(?:consulting|checking|referring|looking|that\s+you|"
    r"you)\b",
    r"^(?:please\s+)?(?:consult|check|refer\s+to)\b",
    r"^(?:not\s+(?:sure|certain)|unsure|unknown|no\s+idea|don't\s+know|dunno|cannot\s+(?:say|determine|answer)|"
    r"unable\s+to\s+(?:determine|answer|say|provide))\b",
)

_QUALIFIED = lazy_pattern(
    r"\b(?:exactly|for\s+(?:certain|sure)|with\s+(?:certainty|confidence)|precisely|definitively|100\s*%|entirely|"
    r"completely|offhand|off\s+the\s+top\s+of\s+my\s+head|(?:the|an)\s+(?:exact|precise|specific)|which\s+one)\b",
    _FLAGS,
)
_CONTRAST = lazy_pattern(
    r"^(?:but|however|though|although|that\s+said|nevertheless|nonetheless|still|yet)\b[\s,:;-]*", _FLAGS
)
_GUESS = lazy_pattern(
    r"^(?:i\s+(?:believe|think|suspect|guess|recall)|i'?d\s+(?:say|guess)|i\s+would\s+(?:say|guess)|probably|"
    r"likely|possibly|perhaps|maybe|presumably|my\s+(?:best\s+)?guess|best\s+guess|if\s+i\s+(?:had|have)\s+to\s+"
    r"guess|it\s+(?:may|might|could|would|should)\s+(?:be|have\s+been)|it\s+(?:was|is)\s+(?:likely|probably|"
    r"possibly|perhaps)|the\s+answer\s+(?:is|was|would\s+be|may\s+be|might\s+be)|it\s+(?:appears|seems)|"
    r"my\s+understanding\s+is|as\s+far\s+as\s+i\s+(?:know|can\s+tell|recall)|to\s+the\s+best\s+of\s+my\s+"
    r"(?:knowledge|recollection)|i'?m\s+fairly\s+(?:sure|confident|certain)|it'?s\s+(?:likely|probably|possibly))\b",
    _FLAGS,
)
_REFERRAL = lazy_pattern(
    r"\b(?:consult|check|refer\s+to|look\s+(?:it\s+)?up|search|verify|recommend|suggest|advise|you\s+(?:can|could|"
    r"may|might|should)\s+(?:find|try|use))\b",
    _FLAGS,
)
_SUBSTITUTE = lazy_pattern(
    r"\b(?:summary|summari[sz]e|paraphrase|overview|gist|general\s+(?:description|idea|sense)|in\s+general\s+terms|"
    r"key\s+points|what\s+i\s+(?:do\s+)?know\s+about)\b",
    _FLAGS,
)
_CLAUSE_END = lazy_pattern(r"\s*(?:[,;:]|\s[-–—]\s|—|\bbut\b|\bhowever\b|\bthough\b|\balthough\b)\s*", _FLAGS)
_CONCESSION = lazy_pattern(r"\b(?:but|though|although|however|while|yet)\b,?(?:\s+[\w']+){0,3}\s*$", _FLAGS)
_TRAILING_HEDGE = lazy_pattern(r"(?:,|\bbut|\bthough|\balthough|\(|\s[-–—]|—)\s*$", _FLAGS)


def _is_filler(sentence: str) -> bool:
    return bool(_FILLER_SENTENCE.match(sentence))


def _rejects(sentence: str) -> bool:
    """Return True when `sentence` carries a premise-rejection cue that is its stance, not a concession after a
    contrast ("It was overruled in 1968, though it remains good law in part" accepts the premise)."""
    for cue in _REJECT_CUES.finditer(sentence):
        before = sentence[: cue.start()]
        contrast = _CONCESSION.search(before)
        head = before[: contrast.start()].strip(" ,;:") if contrast else ""
        if head and not _FILLER_PREFIX.match(head) and not _ABSTAIN_CUES.search(head):
            continue
        return True
    return False


def _continuation_answers(rest: str, qualified: bool) -> bool:
    """Return True when `rest`, the text after an abstention cue's clause, goes on to give an answer."""
    rest = rest.strip(" ,;:.!?-–—\n")
    while rest:
        lead, _, tail = rest.partition("\n")
        sentences = split_sentences(lead)
        if sentences and _is_filler(sentences[0]):
            rest = (" ".join(sentences[1:]) + "\n" + tail).strip(" ,;:.!?-–—\n")
            continue
        break
    if not rest:
        return False
    contrast = _CONTRAST.match(rest)
    body = rest[contrast.end() :] if contrast else rest
    first_clause = _CLAUSE_END.split(split_sentences(body)[0] if split_sentences(body) else body, maxsplit=1)[0]
    if not body.strip() or _ABSTAIN_CUES.search(first_clause):
        return False
    if _SUBSTITUTE.search(first_clause):
        return False  # "..., but here is a summary": something else offered instead of the answer
    if _GUESS.match(body):
        return True
    if _REFERRAL.search(first_clause):
        return False
    return bool(contrast) or qualified


def _abstains(sentence: str, rest: str) -> bool:
    """Return True when `sentence` carries an abstention cue that is the answer's stance (rules 3a-3d)."""
    for cue in _ABSTAIN_CUES.finditer(sentence):
        before = sentence[: cue.start()]
        if before.strip() and not _FILLER_PREFIX.match(before.strip()) and _TRAILING_HEDGE.search(before):
            continue  # "Earl Warren, but I'm not sure": a hedge after an answer
        clause_end = _CLAUSE_END.search(sentence, cue.end())
        clause = sentence[cue.start() : clause_end.start() if clause_end else len(sentence)]
        after = sentence[clause_end.start() :] if clause_end else ""
        return not _continuation_answers(f"{after} {rest}", bool(_QUALIFIED.search(clause)))
    return False


def classify_refusal(answer: str, scope: Scope = "lead") -> Refusal | None:
    """Return "reject_premise" or "abstain" when the answer declines, per the module's rules, else None.

    `scope="lead"` (the default) reads the first non-filler sentence only; `scope="anywhere"` reads each sentence
    in turn and returns the first refusal found. Raises nothing.
    """
    sentences = split_sentences(normalize_answer(answer))
    for index, sentence in enumerate(sentences):
        if _is_filler(sentence):
            continue
        if _rejects(sentence):
            return "reject_premise"
        if _abstains(sentence, " ".join(sentences[index + 1 :])):
            return "abstain"
        if scope == "lead":
            return None
    return None


#: What a decline is about when it declines the question itself: a restated question ("whether it is a real case",
#: "when it was overruled", "who wrote it") or the thing asked for ("the citation", "the opinion word for word").
_QUESTION_OBJECT = lazy_pattern(
    r"^[\w\s']{0,40}?\b(?:whether|if|when|who|whom|which|what|where|how|word\s+for\s+word|verbatim|"
    r"(?:the|its|this|that|a|any|such)\s+(?:[\w'-]+\s+){0,2}?(?:year|date|citation|author(?:ship)?|court|"
    r"quot(?:e|es|ation|ations)|opinion|disposition|outcome|answer|existence|overruling|dissent|holding|"
    r"reporter|text|wording|language|case|decision))\b",
    _FLAGS,
)
# "whether this is correct": a hedge on the answer just given, not a decline of the question
_ON_THE_ANSWER = lazy_pattern(
    r"\b(?:whether|if)\s+(?:this|that|it|my\s+answer|the\s+above)\s+(?:is|was)\s+(?:\w+\s+)?(?:correct|accurate|"
    r"right|true|exact)\b",
    _FLAGS,
)


def declines_question(answer: str) -> str | None:
    """Return the sentence by which `answer` declines the question itself anywhere in its text (a polite decline in
    mid-text: "Plessy v. Ferguson was decided in 1896. I'm not able to confirm when it was overruled."), else None.

    The decline's object must be the question (`_QUESTION_OBJECT`: "confirm whether ... is a real case", "reproduce
    the opinion word for word", "verify the citation"); a qualified decline ("the exact year"), a hedge on the
    answer given ("I can't verify whether this is correct", "I'm not sure, though") and a decline that goes on to
    answer ("..., but I believe it was 1954") are not. Raises nothing."""
    sentences = split_sentences(normalize_answer(answer))
    for index, sentence in enumerate(sentences):
        for cue in _ABSTAIN_CUES.finditer(sentence):
            clause_end = _CLAUSE_END.search(sentence, cue.end())
            clause = sentence[cue.start() : clause_end.start() if clause_end else len(sentence)]
            if not _QUESTION_OBJECT.match(sentence[cue.end() :]) or _ON_THE_ANSWER.search(clause):
                continue
            if _QUALIFIED.search(clause):
                continue
            after = sentence[clause_end.start() :] if clause_end else ""
            if not _continuation_answers(f"{after} {' '.join(sentences[index + 1 :])}", False):
                return sentence
    return None


def hedged_answer(answer: str) -> str | None:
    """Return the answer that follows a lead hedge ("I'm not sure whether it affirmed or reversed, but I believe it
    reversed." -> "I believe it reversed."), with the rest of the reply; None when the lead sentence opens with no
    hedge, or the hedge is a refusal (`classify_refusal` gives "abstain"). The extractors read this text, so options
    the hedge names are not taken for the answer. Raises nothing."""
    sentences = split_sentences(normalize_answer(answer))
    for index, sentence in enumerate(sentences):
        if _is_filler(sentence):
            continue
        cue = _ABSTAIN_CUES.search(sentence)
        before = sentence[: cue.start()].strip() if cue else ""
        if cue is None or (before and not _FILLER_PREFIX.match(before)) or _rejects(sentence):
            return None
        rest = " ".join(sentences[index + 1 :])
        if _abstains(sentence, rest):
            return None
        clause_end = _CLAUSE_END.search(sentence, cue.end())
        tail = f"{sentence[clause_end.end() :] if clause_end else ''} {rest}".strip(" ,;:.!?-–—")
        contrast = _CONTRAST.match(tail)
        tail = tail[contrast.end() :] if contrast else tail
        return tail or None
    return None


def premise_rejection(answer: str) -> str | None:
    """Return the first premise-rejection cue anywhere in `answer` ("has not been overruled"), else None."""
    match = _REJECT_CUES.search(" ".join(split_sentences(normalize_answer(answer))))
    return match.group().strip() if match else None


#: Denials that the case (or justice) asked about exists, specific enough to read in any answer.
_CASE_DENIAL_PATTERNS = (
    r"\b(?:this|that|the|such\s+a|the\s+given|the\s+requested|the\s+above|said)\s+(?:\w+\s+){0,2}?case\s+(?:does\s+"
    r"not|doesn't|did\s+not|didn't)\s+(?:actually\s+)?exist",
    r"^(?:it|this|that)\s+(?:does\s+not|doesn't|did\s+not|didn't)\s+(?:actually\s+|really\s+)?exist\b",
    r"\b(?:is|was)\s+not\s+(?:a\s+|an\s+)?(?:real|actual|genuine|existing|valid|legitimate|known)\s+(?:\w+\s+)?"
    r"(?:case|decision|opinion|justice|judge)",
    r"\bno\s+such\s+(?:case|decision|opinion|justice|judge)\b(?!\s+or\s+controvers)",
    r"\bthere\s+(?:is|was)\s+no\s+(?:\w+\s+){0,3}?(?:case|decision|opinion)\s+(?:by\s+that\s+name|called|named|"
    r"titled|with\s+(?:that|this)\s+(?:name|citation))",
    r"\b(?:fictional|fictitious|fabricated|made[- ]up|non-?existent|imaginary|fake)\s+(?:\w+\s+)?(?:case|decision|"
    r"opinion|citation|justice|judge)",
    r"\bthere\s+(?:is|was)\s+no\s+(?:record|evidence)\s+of\s+(?:\w+\s+){0,3}?(?:this|that|such\s+a|the)\s+case\b"
    r"(?!\s+being)",
)
_CASE_DENIALS = _any(*_CASE_DENIAL_PATTERNS)
_EXISTENCE_DENIALS = _any(
    *_CASE_DENIAL_PATTERNS,
    r"\b(?:does\s+not|doesn't|did\s+not|didn't)\s+(?:actually\s+|really\s+)?exist\b",
    r"\bno\s+such\s+dissent",
    r"\b(?:is|was|be|seems|appears)\s+(?:to\s+be\s+)?(?:entirely\s+|completely\s+|purely\s+)?(?:fictional|"
    r"fictitious|fabricated|made[- ]up|non-?existent|imaginary|fake)\b",
    r"^no,?\s+(?:it|this)\s+is\s+not\b",
)


def denies_existence(answer: str) -> str | None:
    """Return the phrase by which `answer` says the case (or justice) does not exist ("this case does not exist",
    "not a real case", "a fictional case"), else None. Raises nothing."""
    match = _EXISTENCE_DENIALS.search(" ".join(split_sentences(normalize_answer(answer))))
    return match.group().strip() if match else None


def lead_sentence(answer: str) -> str:
    """Return the answer's lead sentence: its first sentence that is not pure filler ("I'm sorry.", "Certainly!");
    "" when there is none. Raises nothing."""
    for sentence in split_sentences(normalize_answer(answer)):
        if not _is_filler(sentence):
            return sentence
    return ""


def rejects_case_premise(answer: str) -> str | None:
    """Return the phrase by which the answer's lead sentence rejects the premise of a question about a real case:
    it says the case does not exist ("This case does not exist.", "I'm sorry, but there is no such case") or that
    the question's premise is false ("The premise of your question is incorrect"); None otherwise.

    Used on the reference-free tasks, whose premise (a real case with a background, a posture, a holding) is true,
    so a rejection is a hallucination there. Only the lead sentence counts, as in `classify_refusal`: a later "no
    such case or controversy" inside an answer is not a rejection. Raises nothing."""
    lead = lead_sentence(answer)
    match = _CASE_DENIALS.search(lead) or _PREMISE_CUES.search(lead)
    return match.group().strip() if match else None


def _dissent_cues(last: str) -> LazyPattern:
    subject = rf"(?:(?:(?:chief|associate)\s+)?(?:justice|judge)\s+)?(?:\w+\s+){{0,2}}?{last}|\bhe|\bshe|\bthey"
    majority = (
        r"(?:majority|plurality|lead|main|court's|principal)\s*(?:opinion)?|opinion\s+(?:of|for)\s+the\s+court|"
        r"(?:the\s+)?court's\s+opinion"
    )
    return _any(
        r"(?<!not\s)(?<!not\sa\s)\bunanimous(?:ly)?\b",
        r"\bno\s+(?:justices?|judges?|one|member\s+of\s+the\s+court)\s+dissented\b",
        rf"(?:{subject})\s+(?:\w+\s+){{0,2}}?(?:wrote|authored|delivered|penned|announced|issued|was\s+the\s+author\s+"
        rf"of)\s+(?:\w+\s+){{0,3}}?(?:{majority})",
        rf"(?:{majority})\s+(?:\w+\s+){{0,4}}?(?:was\s+)?(?:written|authored|delivered|penned)\s+by\s+(?:\w+\s+)"
        rf"{{0,3}}?{last}\b",
        rf"(?:{subject})\s+(?:\w+\s+){{0,2}}?(?:joined|was\s+(?:part\s+of|in|with|among)|sided\s+with|voted\s+with)\s+"
        r"the\s+majority",
        rf"(?:{subject})\s+(?:\w+\s+){{0,2}}?(?:concurred|wrote\s+(?:a\s+|an\s+)?(?:\w+\s+)?concurr)",
        rf"(?:{subject})\s+(?:was\s+not|wasn't|had\s+not\s+been|was\s+no\s+longer|was\s+not\s+yet|had\s+not\s+yet\s+"
        r"been|never\s+served)\s+(?:\w+\s+){0,2}?(?:on|a\s+member\s+of|serving\s+on|appointed\s+to)\s+the\s+"
        r"(?:supreme\s+)?court",
        rf"(?:{subject})\s+(?:did\s+not|didn't)\s+(?:participate|take\s+part|sit)\b",
        rf"(?:{subject})\s+took\s+no\s+part\b",
    )


def dissent_rejection(answer: str, dissenter: str) -> str | None:
    """Return the phrase by which `answer` contradicts "`dissenter` dissented" without a dissent cue: the decision
    was unanimous, the justice wrote the majority opinion, joined the majority, concurred, did not sit or was not on
    the Court. None when there is no such phrase. Raises nothing."""
    words = normalize_name(dissenter).split()
    if not words:
        return None
    match = _dissent_cues(re.escape(words[-1])).search(" ".join(split_sentences(normalize_answer(answer))))
    return match.group().strip() if match else None
