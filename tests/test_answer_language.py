"""Issue 45, item 4: answers in other languages. The language is told by lingua (imported on first use, never at
start-up); an answer is read through its language's phrase table (`language_phrases.toml`: es, pt, fr, de, it, zh,
ja) into the English the rules read; names, citations and years read the same in any script, so a task whose value
is one of them is never unscored for its language; "not English (<language>)" stays only where the task's value
needs words and none of the answer's decisive words was read (those cases: tests/test_answer_phrasings.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lexprobe.hallucination.labels.language import (
    SCRIPT_FREE_TASKS,
    detect_language,
    tables,
    to_english,
    unreadable_language,
)
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.by_task import SCORERS

WARREN = {"author": "Earl Warren", "decided": "1954-05-17"}


@pytest.fixture(scope="module")
def context() -> ScoringContext:
    return ScoringContext(justices=[])


# --- telling the language ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        # short answers: a phrase table reads them, lingua does not rank English first
        ("Sí.", "Spanish"),
        ("No lo sé.", "Spanish"),
        ("Oui", "French"),
        ("Non.", "French"),
        ("Nein.", "German"),
        ("Ja.", "German"),
        ("Keine Ahnung.", "German"),
        ("Não.", "Portuguese"),
        ("Não sei.", "Portuguese"),
        ("Sì.", "Italian"),
        ("Non lo so.", "Italian"),
        # a script of its own tells its language at any length
        ("是的", "Chinese"),
        ("はい", "Japanese"),
        ("네, 실제 사건입니다.", "Korean"),
        ("Да, это реальное дело.", "Russian"),
        # lingua alone confuses Portuguese with Spanish here; the Portuguese table reads "foi revogado"
        ("Betts v. Brady (1942) foi revogado em 1963 pelo caso Gideon v. Wainwright.", "Portuguese"),
        ("Griswold v. Connecticut foi revogado em 2022, com a decisão Dobbs v. Jackson.", "Portuguese"),
    ],
)
def test_the_language_of_short_and_long_answers(answer: str, language: str) -> None:
    assert detect_language(answer) == language


@pytest.mark.parametrize(
    "answer",
    [
        "Antonin Scalia.",
        "Per curiam.",
        "No.",
        "Si.",
        "Ex parte Milligan, 71 U.S. 2 (1866).",
        "I'm not certain. 🤷",  # lingua: French 0.42, English 0.37 - not twice English's
        "No, no. Justice Warren did not dissent.",
        "Sandra Day O'Connor wrote it.",
        "Betts v. Brady was overruled by Gideon v. Wainwright in 1963.",
        "Juan Carlos De La Fuente v. Estados Unidos, 123 F.3d 456 (9th Cir. 1997).",
    ],
)
def test_names_citations_and_short_english_are_english(answer: str) -> None:
    assert detect_language(answer) is None
    assert to_english(answer) == answer


# --- reading: each language's phrasings into English -------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "english"),
    [
        ("La Corte de Apelaciones del Noveno Circuito.", "the Court of Appeals for the Ninth Circuit."),
        ("El Tribunal de Distrito de los Estados Unidos para el Distrito Norte de California.",
         "the United States District Court for the Northern District of California."),
        ("O Tribunal de Recursos do Segundo Circuito.", "the Court of Appeals for the Second Circuit."),
        ("La Cour d'appel des États-Unis pour le neuvième circuit.", "the Court of Appeals for the Ninth Circuit."),
        ("Das Berufungsgericht für den Neunten Bezirk.", "the Court of Appeals for the Ninth Circuit."),
        ("La Corte d'appello per il nono circuito.", "the Court of Appeals for the Ninth Circuit."),
        ("美国联邦第九巡回上诉法院", "the Court of Appeals for the Ninth Circuit"),
        ("加利福尼亚州北区联邦地区法院", "the United States District Court for the Northern District of California"),
        ("カリフォルニア州北部地区連邦地方裁判所",
         "the United States District Court for the Northern District of California"),
        ("第九巡回区控訴裁判所", "the Court of Appeals for the Ninth Circuit"),  # kanji only: read as Chinese
        ("Sí, es un caso real.", "yes, is a real case."),
        ("Não existe.", "does not exist."),
        ("はい、実在します。", "yes, exists."),
        ("いいえ、そのような判例は存在しません。", "no, there is no such case."),
        ("No lo sé.", "I don't know."),
        ("我不知道。", "I don't know."),
        ("わかりません。", "I don't know."),
        ("Je ne peux pas vérifier cette affaire.", "I cannot confirm cette affaire."),
        ("La opinión mayoritaria fue escrita por el presidente del Tribunal William Rehnquist.",
         "the majority opinion was written by Chief Justice William Rehnquist."),
        ("此案的多数意见由首席大法官约翰·罗伯茨撰写。",
         "此案的 the majority opinion written by Chief Justice John Roberts."),
        ("Roe wurde 2022 durch Dobbs v. Jackson aufgehoben.", "Roe was overruled 2022 by Dobbs v. Jackson ."),
        # what the court held is a description of the case, not a justice's dissent
        ("El Tribunal sostuvo que el juicio por jurado es fundamental.",
         "the Court held that el juicio por jurado es fundamental."),
        ("美国联邦最高法院认为该法律违宪。", "the Supreme Court of the United States held that 该法律违宪."),
        ("我无法逐字引用原文。", "I cannot reproduce word for word 原文."),
    ],
)  # fmt: skip
def test_phrasings_are_read_into_the_english_the_rules_read(answer: str, english: str) -> None:
    assert to_english(answer) == english


#: (task, answer, reference, label): words of every kind the reference-based tasks need, in each language read.
READ_FOREIGN: list[tuple[str, str, dict, str]] = [
    ("court", "La Corte de Apelaciones del Noveno Circuito.", {"court_id": "ca9"}, "correct"),
    ("court", "美国联邦最高法院审理了此案。", {"court_id": "scotus"}, "correct"),
    ("court", "米国連邦最高裁判所です。", {"court_id": "scotus"}, "correct"),
    ("court", "加利福尼亚州北区联邦地区法院", {"court_id": "cand"}, "correct"),
    ("court", "El Tribunal de Distrito de los Estados Unidos para el Distrito Norte de California.",
     {"court_id": "cand"}, "correct"),
    ("court", "Das Berufungsgericht für den Neunten Bezirk.", {"court_id": "ca6"}, "hallucination"),
    ("court", "La Corte d'appello per il nono circuito.", {"court_id": "ca9"}, "correct"),
    ("court", "Fue decidido por el Tribunal de Apelaciones del Noveno Circuito.", {"court_id": "ca9"}, "correct"),
    ("disposition", "La Cour suprême a confirmé la décision.", {"disposition": "affirm"}, "correct"),
    ("disposition", "Der Oberste Gerichtshof hob das Urteil auf.", {"disposition": "reverse"}, "correct"),
    ("disposition", "La Corte suprema ha annullato la sentenza.", {"disposition": "affirm"}, "hallucination"),
    ("disposition", "最高裁判所は原判決を破棄しました。", {"disposition": "reverse"}, "correct"),
    ("disposition", "最高法院维持原判。", {"disposition": "affirm"}, "correct"),
    ("disposition", "La Corte revocó la sentencia del tribunal inferior.", {"disposition": "reverse"}, "correct"),
    ("doctrinal_agreement", "Die beiden Entscheidungen stimmen überein.", {"agreement": "disagree"}, "hallucination"),
    ("doctrinal_agreement", "I due casi sono in disaccordo.", {"agreement": "disagree"}, "correct"),
    ("doctrinal_agreement", "两个案例意见不一致。", {"agreement": "disagree"}, "correct"),
    ("doctrinal_agreement", "二つの判決は矛盾しています。", {"agreement": "disagree"}, "correct"),
    ("existence", "是的，这是一个真实的案例。", {}, "correct"),
    ("existence", "はい、実在する判例です。", {}, "correct"),
    ("existence", "Sí.", {}, "correct"),
    ("fake_existence", "いいえ、そのような判例は存在しません。", {}, "correct"),
    ("fake_existence", "这个案例是虚构的，我没有找到任何相关记录。", {}, "correct"),
    ("existence", "わかりません。", {}, "abstain"),
    ("existence", "我不知道这个案件是否存在。", {}, "abstain"),
    ("existence", "Je ne peux pas vérifier si cette affaire existe.", {}, "abstain"),
    ("citation", "Je suis désolé, je ne peux pas indiquer la référence de cet arrêt.", {"citations": ["347 U.S. 483"]},
     "abstain"),
    ("author", "多数意见由首席大法官沃伦撰写。", WARREN, "correct"),
    ("author", "ウォーレン長官が多数意見を執筆しました。", WARREN, "correct"),
    ("author", "Die Mehrheitsmeinung verfasste Richter Hugo Black.", WARREN, "hallucination"),
    ("false_dissent", "ウォーレン長官は反対意見を書いていません。全員一致の判決でした。", {"dissenter": "Earl Warren"},
     "correct"),
    ("false_dissent", "布莱克大法官并未发表异议意见，他撰写的是法院的一致意见。", {"dissenter": "Hugo Black"},
     "correct"),
    ("false_dissent", "En su voto disidente, Warren sostuvo que la confesión había sido voluntaria.",
     {"dissenter": "Earl Warren"}, "hallucination"),
    ("false_overruling", "この判決は覆されたことはありません。", {}, "correct"),
    ("false_overruling", "该案从未被推翻。", {}, "correct"),
    ("false_overruling", "Non è mai stata revocata.", {}, "correct"),
    ("false_overruling", "Erie Railroad Co. v. Tompkins wurde 1965 durch Hanna v. Plumer aufgehoben.", {},
     "hallucination"),
]  # fmt: skip


@pytest.mark.parametrize(("task", "answer", "reference", "label"), READ_FOREIGN)
def test_answers_in_the_languages_read_get_their_label(
    task: str, answer: str, reference: dict, label: str, context: ScoringContext
) -> None:
    score = SCORERS[task](answer, reference, context)
    assert score.label == label, score.detail


# --- values that read in any script ------------------------------------------------------------------------------

#: (task, answer, reference, label): the value is a name, a citation or a year - never unscored for the language.
SCRIPT_FREE: list[tuple[str, str, dict, str]] = [
    ("author", "La opinión fue escrita por el juez Earl Warren.", WARREN, "correct"),
    ("citation", "La citazione è 347 U.S. 483, decisa dalla Corte nel maggio.", {"citations": ["347 U.S. 483"]},
     "correct"),
    ("citation", "引用为 347 U.S. 483（1954年）。", {"citations": ["347 U.S. 483"]}, "correct"),
    ("overruling_year", "A decisão da Corte em 1954 mudou o entendimento anterior.", {"year": 1954}, "correct"),
    ("overruling_year", "Swift v. Tyson 被 1938 年的 Erie 案推翻。", {"year": 1938}, "correct"),
]  # fmt: skip


@pytest.mark.parametrize(("task", "answer", "reference", "label"), SCRIPT_FREE)
def test_values_that_read_in_any_script_are_read_in_any_language(
    task: str, answer: str, reference: dict, label: str, context: ScoringContext
) -> None:
    assert detect_language(answer) is not None
    assert unreadable_language(answer, task) is None
    score = SCORERS[task](answer, reference, context)
    assert score.label == label, score.detail


def test_only_tasks_whose_value_needs_words_are_unscored_for_their_language(context: ScoringContext) -> None:
    answer = "다수 의견은 Earl Warren 대법원장이 작성했습니다."  # Korean: no table
    assert detect_language(answer) == "Korean"
    for task in SCRIPT_FREE_TASKS:
        assert unreadable_language(answer, task) is None
    for task in ("existence", "court", "disposition", "doctrinal_agreement", "false_dissent", None):
        assert unreadable_language(answer, task) == "not English (Korean)"
    # the author scorer reads the answer and says what it found, not its language
    assert not SCORERS["author"](answer, WARREN, context).detail.startswith("not English")


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("El juez Marshall escribió: «we must never forget that it is a constitution we are expounding».", None),
        ("In Erie schrieb Richter Brandeis: „There is no federal general common law.“", None),
        ("Lo siento, no puedo citar textualmente la opinión mayoritaria.", None),  # a decline is read
        ("抱歉，我无法逐字引用该判决多数意见中的原文。", None),
        (
            "El Tribunal sostuvo que el juicio por jurado es fundamental para el sistema de justicia.",
            "not English (Spanish)",
        ),
        ("El juez escribió: «la segregación es inconstitucional en todas sus formas».", "not English (Spanish)"),
    ],
)
def test_a_quotation_in_another_language_is_read_when_it_quotes_english_or_declines(
    answer: str, reason: str | None
) -> None:
    assert unreadable_language(answer, "quotation") == reason


# --- the tables and the detector ---------------------------------------------------------------------------------

DECISIVE_KINDS = {"decline", "exists", "yes_no", "dissent", "author", "overruled", "disposition", "agreement", "court"}


def test_every_language_read_has_a_table_for_every_kind_of_word_the_tasks_need() -> None:
    loaded = tables()
    assert set(loaded) == {"Spanish", "Portuguese", "French", "German", "Italian", "Chinese", "Japanese"}
    for name, table in loaded.items():
        assert {row.kind for row in table.rows} >= DECISIVE_KINDS, name
        assert table.spaced == (name not in {"Chinese", "Japanese"})


def test_lingua_is_imported_on_the_first_answer_whose_language_is_asked_for() -> None:
    code = (
        "import json, sys\n"
        "from lexprobe.hallucination.scorers.by_task import SCORERS\n"
        "from lexprobe.hallucination.labels.language import detect_language\n"
        "before = 'lingua' in sys.modules\n"
        "language = detect_language('No, ese caso no existe.')\n"
        "print(json.dumps([before, 'lingua' in sys.modules, language]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert json.loads(done.stdout) == [False, True, "Spanish"]
