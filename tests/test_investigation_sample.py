"""The hand-written sample environment (a fictional contract case): ablation levels, determinism, fact phrases
verifiable from the extracted text, refutable alternatives, and a clean validation."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from lexprobe.documents.extract import extract_text
from lexprobe.investigation.environment.format import (
    CORPUS_DIR,
    ENVIRONMENT_FILE,
    QUESTIONS_FILE,
    HypothesisKind,
    Role,
    load_environment,
)
from lexprobe.investigation.environment.ladder import LEVELS as ABLATION_LEVELS
from lexprobe.investigation.environment.validate import errors_in, validate_environment
from lexprobe.investigation.sample.build import build_sample_environment, load_sample_case, select_documents

ALL_ROLES = set(Role)
EXPECTED_COUNTS = {"merits": 14, "+pro_alternative": 18, "+noise": 30, "+chaff50": 34, "+chaff100": 38}
EXPECTED_ROLES = {
    "merits": {Role.merits},
    "+pro_alternative": {Role.merits, Role.pro_alternative},  # pro-alternative documents only
    "+noise": {Role.merits, Role.signal, Role.pro_alternative, Role.refuting, Role.noise},
    "+chaff50": ALL_ROLES,
    "+chaff100": ALL_ROLES,
}
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def normalize(text: str) -> str:
    """Case-fold, straighten quotes and collapse whitespace (line wrapping differs by format)."""
    return re.sub(r"\s+", " ", text.translate(_QUOTES)).strip().lower()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sample")
    return {level: build_sample_environment(root / level.lstrip("+"), level) for level in ABLATION_LEVELS}


@pytest.fixture(scope="module")
def texts(built: dict[str, Path]) -> dict[str, str]:
    """doc id -> normalized extracted text, for the full corpus."""
    env, _ = load_environment(built["+chaff100"])
    corpus = built["+chaff100"] / CORPUS_DIR
    return {doc.doc_id: normalize(extract_text(corpus / doc.path)) for doc in env.documents}


# --- the data ---------------------------------------------------------------------------------------------------


def test_case_is_marked_fictional_and_sized_as_specified():
    case = load_sample_case()
    assert case.case.fictional is True
    assert "(fictional)" in case.case.name and "fictional" in case.case.source.lower()
    assert 8 <= len(case.entities) <= 15
    assert 15 <= len(case.facts) <= 30
    assert 25 <= len(case.documents) <= 40
    assert 10 <= len(case.questions.questions) <= 14
    kinds = Counter(h.kind for h in case.hypotheses)
    assert kinds == {HypothesisKind.court_adopted: 1, HypothesisKind.court_rejected: 1, HypothesisKind.alternative: 2}
    assert any(entity.aliases for entity in case.entities)


def test_references_resolve_and_every_fact_is_carried():
    case = load_sample_case()
    facts = {fact.fact_id for fact in case.facts}
    entities = {entity.entity_id for entity in case.entities}
    hypotheses = {h.hypothesis_id for h in case.hypotheses}
    carried = {fact_id for doc in case.documents for fact_id in doc.document.facts}
    assert carried <= facts
    assert facts == carried, f"facts no document carries: {sorted(facts - carried)}"
    for doc in case.documents:
        annotation = doc.document
        assert annotation.author is None or annotation.author in entities
        assert set(annotation.mentions) <= entities
        assert annotation.target_hypothesis is None or annotation.target_hypothesis in hypotheses
        assert annotation.date == doc.content.date[:10]
    for hypothesis in case.hypotheses:
        assert set(hypothesis.supporting_facts) | set(hypothesis.refuting_facts) <= facts


def test_documents_come_in_series_and_entities_recur():
    case = load_sample_case()
    series = Counter(doc.document.series for doc in case.documents if doc.document.series)
    assert series and all(count >= 2 for count in series.values()), series
    order = [doc for doc in case.documents if doc.document.series == "lot2-order"]
    assert {doc.document.doc_type for doc in order} >= {"purchase_order", "invoice", "spreadsheet"}
    mentions = Counter(entity for doc in case.documents for entity in doc.document.mentions)
    assert all(mentions[entity.entity_id] >= 2 for entity in case.entities)


def test_questions_have_answers_rubrics_and_facts():
    case = load_sample_case()
    facts = {fact.fact_id for fact in case.facts}
    for question in case.questions.questions:
        assert question.question.strip() and question.answer.strip()
        assert 2 <= len(question.rubric) <= 4
        assert question.facts and set(question.facts) <= facts


# --- ablation levels --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ABLATION_LEVELS)
def test_each_level_has_the_right_roles_and_counts(built: dict[str, Path], level: str):
    env, questions = load_environment(built[level])
    assert env.ablation == level
    assert len(env.documents) == EXPECTED_COUNTS[level]
    assert {doc.role for doc in env.documents} == EXPECTED_ROLES[level]
    files = sorted(path.name for path in (built[level] / CORPUS_DIR).iterdir())
    assert files == sorted(doc.path for doc in env.documents)
    carried = {fact_id for doc in env.documents for fact_id in doc.facts}
    assert questions.questions and all(carried.issuperset(q.facts) for q in questions.questions)


def test_levels_are_cumulative_and_chaff50_is_half_the_chaff(built: dict[str, Path]):
    ids = {level: {doc.doc_id for doc in load_environment(built[level])[0].documents} for level in ABLATION_LEVELS}
    for smaller, larger in itertools.pairwise(ABLATION_LEVELS):
        assert ids[smaller] < ids[larger]
    roles = {doc.doc_id: doc.role for doc in load_environment(built["+chaff100"])[0].documents}
    chaff50 = {doc_id for doc_id in ids["+chaff50"] if roles[doc_id] == Role.chaff}
    chaff100 = {doc_id for doc_id in ids["+chaff100"] if roles[doc_id] == Role.chaff}
    assert chaff50 < chaff100 and len(chaff50) == math.ceil(len(chaff100) / 2)
    case = load_sample_case()
    assert [d.document.doc_id for d in select_documents(case, "+chaff50")] == [
        d.document.doc_id for d in select_documents(case, "+chaff50")
    ]


def test_merits_level_keeps_only_answerable_questions(built: dict[str, Path]):
    _, merits = load_environment(built["merits"])
    _, full = load_environment(built["+chaff100"])
    assert len(full.questions) == len(load_sample_case().questions.questions)
    dropped = {q.question_id for q in full.questions} - {q.question_id for q in merits.questions}
    assert dropped == {"q11", "q12"}  # they rest on refuting documents


def test_paths_do_not_depend_on_the_level(built: dict[str, Path]):
    full = {doc.doc_id: doc.path for doc in load_environment(built["+chaff100"])[0].documents}
    for level in ABLATION_LEVELS:
        for doc in load_environment(built[level])[0].documents:
            assert doc.path == full[doc.doc_id]


def test_unknown_level_and_existing_directory_are_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="unknown ablation level"):
        build_sample_environment(tmp_path / "x", "+everything")
    out = build_sample_environment(tmp_path / "env", "+chaff100")
    with pytest.raises(FileExistsError):
        build_sample_environment(out, "merits")
    (out / "extracted").mkdir()
    build_sample_environment(out, "merits", overwrite=True)
    assert len(list((out / CORPUS_DIR).iterdir())) == EXPECTED_COUNTS["merits"]
    assert not (out / "extracted").exists()


# --- determinism ------------------------------------------------------------------------------------------------


def test_building_twice_gives_identical_bytes(tmp_path: Path, built: dict[str, Path]):
    again = build_sample_environment(tmp_path / "again", "+chaff100")
    first = built["+chaff100"]
    for name in (ENVIRONMENT_FILE, QUESTIONS_FILE):
        assert (again / name).read_bytes() == (first / name).read_bytes()
    names = sorted(path.name for path in (first / CORPUS_DIR).iterdir())
    assert names == sorted(path.name for path in (again / CORPUS_DIR).iterdir())
    for name in names:
        assert (again / CORPUS_DIR / name).read_bytes() == (first / CORPUS_DIR / name).read_bytes(), name


# --- the corpus ---------------------------------------------------------------------------------------------------


def test_all_formats_and_roles_present(built: dict[str, Path]):
    env, _ = load_environment(built["+chaff100"])
    assert {doc.format for doc in env.documents} == {"pdf", "docx", "xlsx", "pptx", "txt"}
    assert {doc.role for doc in env.documents} == ALL_ROLES
    merits_types = {doc.doc_type for doc in env.documents if doc.role == Role.merits}
    assert merits_types >= {"contract", "email", "deposition", "invoice", "calendar", "chat"}


def test_every_document_extracts_and_states_its_facts(texts: dict[str, str]):
    case = load_sample_case()
    for doc in case.documents:
        text = texts[doc.document.doc_id]
        assert text, doc.document.doc_id
        for fact_id in doc.document.facts:
            phrases = doc.key_phrases.get(fact_id)
            assert phrases, f"{doc.document.doc_id}: no key phrase for {fact_id}"
            for phrase in phrases:
                assert normalize(phrase) in text, f"{doc.document.doc_id} ({doc.document.path}): {fact_id} {phrase!r}"


def test_pattern_fact_is_spread_over_three_documents_none_states_it_alone(texts: dict[str, str]):
    case = load_sample_case()
    assert case.patterns
    for fact_id in case.patterns:
        shards = [doc for doc in case.documents if fact_id in doc.document.facts]
        assert len(shards) >= 3
        assert all(doc.document.role == Role.signal for doc in shards)
        phrases = [normalize(phrase) for doc in shards for phrase in doc.key_phrases[fact_id]]
        assert len(set(phrases)) == len(phrases)  # each shard has its own phrase
        for doc_id, text in texts.items():
            assert not all(phrase in text for phrase in phrases), f"{doc_id} states {fact_id} alone"
        assert any(fact_id in h.supporting_facts for h in case.hypotheses if h.kind == HypothesisKind.court_adopted)


def test_each_alternative_is_supported_and_refuted_by_documents(built: dict[str, Path]):
    env, _ = load_environment(built["+chaff100"])
    for alternative in env.hypotheses_of(HypothesisKind.alternative):
        serving = [doc for doc in env.documents if doc.target_hypothesis == alternative.hypothesis_id]
        supporting, refuting_facts = set(alternative.supporting_facts), set(alternative.refuting_facts)
        pro = [d for d in serving if d.role == Role.pro_alternative and supporting & set(d.facts)]
        refuting = [d for d in serving if d.role == Role.refuting and refuting_facts & set(d.facts)]
        assert pro, alternative.hypothesis_id
        assert refuting, alternative.hypothesis_id
    merits_facts = {fact_id for doc in env.documents if doc.role == Role.merits for fact_id in doc.facts}
    for alternative in env.hypotheses_of(HypothesisKind.alternative):  # refutable from the record alone, too
        assert merits_facts & set(alternative.refuting_facts), alternative.hypothesis_id


@pytest.mark.parametrize("level", ABLATION_LEVELS)
def test_validator_reports_no_errors(built: dict[str, Path], level: str):
    problems = validate_environment(built[level])
    assert errors_in(problems) == []
    assert problems == [], [str(p) for p in problems]  # not even a warning


def test_cli_builds_and_refuses_to_overwrite(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from lexprobe.cli.investigation import investigation_app

    runner = CliRunner()
    out = tmp_path / "env"
    first = runner.invoke(investigation_app, ["sample", "--out", str(out), "--ablation", "merits"])
    assert first.exit_code == 0, first.output
    assert (out / "environment.json").is_file()
    again = runner.invoke(investigation_app, ["sample", "--out", str(out)])
    assert again.exit_code == 2 and "--force" in again.output
    forced = runner.invoke(investigation_app, ["sample", "--out", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
