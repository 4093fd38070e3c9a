"""Issue 14, the ablation ladder: one definition of the five cumulative levels
(lexprobe.investigation.environment.ladder), used by the pipeline and the sample; one build assembling every level
into its own folder (hard links of OUT/documents/); the validator's level-awareness."""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from test_investigation_pipeline import SMALL, FakeLLM, canned_answers, cli, quiet, write_record
from typer.testing import CliRunner

from lexprobe.documents.corpus import extract_corpus
from lexprobe.investigation.environment.format import (
    CORPUS_DIR,
    ENVIRONMENT_FILE,
    Document,
    Role,
    load_environment,
)
from lexprobe.investigation.environment.ladder import (
    LEVELS,
    chaff_half,
    level_slug,
    level_sort_key,
    parse_levels,
    roles_at,
    select,
)
from lexprobe.investigation.environment.validate import errors_in, validate_environment
from lexprobe.investigation.pipeline.context import RENDERED_DIR
from lexprobe.investigation.pipeline.runner import run_build
from lexprobe.investigation.sample.build import build_sample_environment, load_sample_case, select_documents
from lexprobe.investigation.scoring.summary import ablation_sort_key

SLUGS = ["merits", "pro_alternative", "noise", "chaff50", "chaff100"]
EXHIBITS = ("exhibit_1_storage_agreement.txt", "exhibit_2_room4_log.txt", "exhibit_3_ortega_email.txt")


def doc(doc_id: str, role: str, series: str | None = None) -> Document:
    return Document(doc_id=doc_id, path=f"{doc_id}.txt", format="txt", doc_type="memo", role=role, series=series)


def one_of_each() -> list[Document]:
    return [doc(f"d_{role.value}", role.value) for role in Role]


def chaff(count: int) -> list[Document]:
    """Chaff in series of three (the last series may be shorter)."""
    return [doc(f"c{n:03d}", "chaff", f"series_{n // 3}") for n in range(count)]


# --- the ladder itself ------------------------------------------------------------------------------------------


def test_levels_are_cumulative_and_pro_alternative_adds_only_pro_alternative_documents() -> None:
    docs = one_of_each() + chaff(4)

    def roles(level: str) -> Counter[str]:
        return Counter(d.role.value for d in select(docs, level))

    assert roles("merits") == {"merits": 1}
    assert roles("+pro_alternative") == {"merits": 1, "pro_alternative": 1}
    assert roles("+noise") == {"merits": 1, "pro_alternative": 1, "noise": 1, "signal": 1, "refuting": 1}
    assert roles("+chaff50") == roles("+noise") + Counter(chaff=3)  # 5 chaff: ceil(5 / 2)
    assert roles("+chaff100") == roles("+noise") + Counter(chaff=5)
    ids = [{d.doc_id for d in select(docs, level)} for level in LEVELS]
    assert all(small < large for small, large in itertools.pairwise(ids))
    assert roles_at("+pro_alternative") == {Role.merits, Role.pro_alternative}
    assert [level_slug(level) for level in LEVELS] == SLUGS


def test_chaff50_is_a_seeded_stable_subset_of_chaff100_keeping_series_whole() -> None:
    docs = one_of_each() + chaff(19)  # 20 chaff in all
    full = {d.doc_id for d in select(docs, "+chaff100") if d.role == Role.chaff}
    halves = {seed: {d.doc_id for d in select(docs, "+chaff50", seed) if d.role == Role.chaff} for seed in range(6)}
    for seed, half in halves.items():
        assert half < full and len(half) == math.ceil(len(full) / 2) == 10
        assert half == chaff_half(list(reversed(docs)), seed)  # input order does not matter
        series = Counter(d.series for d in docs if d.doc_id in half)
        sizes = Counter(d.series for d in docs if d.role == Role.chaff)
        assert sum(count != sizes[name] for name, count in series.items()) <= 1  # one series split at most
    assert len({frozenset(half) for half in halves.values()}) > 1  # the seed picks the half


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("all", list(LEVELS)),
        ("+noise, merits", ["merits", "+noise"]),
        ("+pro_alt,noise,chaff100,+noise", ["+pro_alternative", "+noise", "+chaff100"]),
    ],
)
def test_parse_levels_reads_all_lists_and_old_aliases(text: str, expected: list[str]) -> None:
    assert parse_levels(text) == expected


@pytest.mark.parametrize("text", ["", " , ", "merits,+everything"])
def test_parse_levels_refuses_unknown_or_empty(text: str) -> None:
    with pytest.raises(ValueError, match="ablation level"):
        parse_levels(text)


def test_scoring_orders_levels_by_the_ladder() -> None:
    shuffled = ["zzz", "+chaff100", "+pro_alt", "merits", "+chaff50", "+noise", "+pro_alternative"]
    assert sorted(shuffled, key=ablation_sort_key) == [
        "merits", "+pro_alternative", "+pro_alt", "+noise", "+chaff50", "+chaff100", "zzz"]  # fmt: skip
    assert ablation_sort_key is not None and level_sort_key("+noise") == ablation_sort_key("+noise")


# --- one build, every level -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def all_levels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("ladder")
    record = write_record(root / "record")
    settings = SMALL.model_copy(update={"levels": list(LEVELS), "chaff_docs": 5, "seed": 3})
    result = run_build(record, root / "env", settings, llm=FakeLLM(canned_answers()), log=quiet)
    return root / "env", result


@pytest.fixture(scope="module")
def sample_full(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("sample") / "full", "+chaff100")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("source", ["pipeline", "sample"])
def test_pipeline_and_sample_select_through_the_ladder(
    source: str, level: str, all_levels: tuple[Path, object], sample_full: Path
) -> None:
    if source == "pipeline":
        out, _ = all_levels
        everything = load_environment(out / "chaff100")[0].documents
        chosen = [d.doc_id for d in load_environment(out / level_slug(level))[0].documents]
        seed = 3
    else:
        everything = load_environment(sample_full)[0].documents
        chosen = [d.document.doc_id for d in select_documents(load_sample_case(), level)]
        seed = 0
    assert chosen == [d.doc_id for d in select(everything, level, seed)]


def test_levels_all_writes_one_valid_environment_per_level(all_levels: tuple[Path, object]) -> None:
    out, result = all_levels
    assert sorted(p.name for p in out.iterdir() if (p / ENVIRONMENT_FILE).is_file()) == sorted(SLUGS)
    assert not (out / ENVIRONMENT_FILE).exists() and not (out / CORPUS_DIR).exists()
    report = result.report  # type: ignore[attr-defined]
    assert report.levels == list(LEVELS) and report.ablation == "merits"
    assert report.documents_by_role == report.documents_by_level["merits"] == {"merits": 3}
    assert report.documents_by_level["+pro_alternative"] == {"merits": 3, "pro_alternative": 2}
    assert report.documents_by_level["+chaff50"]["chaff"] == 3 and report.documents_by_level["+chaff100"]["chaff"] == 5
    assert errors_in_lines(report.validator) == []
    saved = json.loads((out / "build_report.json").read_text())
    assert saved["documents_by_level"] == report.documents_by_level
    rendered = out / RENDERED_DIR
    for level, slug in zip(LEVELS, SLUGS, strict=True):
        env, _ = load_environment(out / slug)
        assert env.ablation == level
        problems = validate_environment(out / slug)
        assert errors_in(problems) == [], problems
        for document in env.documents:
            path = out / slug / CORPUS_DIR / document.path
            assert path.is_file() and not path.is_symlink()
            if document.role != Role.merits:
                assert os.stat(path).st_ino == os.stat(rendered / document.path).st_ino
        corpus = extract_corpus(out / slug / CORPUS_DIR)
        assert corpus.extracted_count == 0 and not corpus.errors  # every level's extracted/ was filled, and matches
        assert sorted(corpus.documents) == sorted(d.path for d in env.documents)


def errors_in_lines(lines: list[str] | None) -> list[str]:
    assert lines is not None
    return [line for line in lines if ": error: " in line]


def test_merits_level_warns_about_unrefutable_alternatives_naming_the_level(all_levels: tuple[Path, object]) -> None:
    out, _ = all_levels
    for slug in ("merits", "pro_alternative"):
        warnings = [p for p in validate_environment(out / slug, extract=False) if "unrefutable" in p.message]
        assert warnings and all(p.severity == "warning" for p in warnings)
        assert all("refuting documents join at +noise" in p.message and slug in p.message for p in warnings)


@pytest.mark.parametrize("level", ["+noise", "+chaff100", "+pro_alt", "legacy-level"])
def test_unrefutable_alternatives_stay_errors_at_other_or_unknown_levels(
    level: str, all_levels: tuple[Path, object], tmp_path: Path
) -> None:
    out, _ = all_levels
    copy = shutil.copytree(out / "merits", tmp_path / "env")
    data = json.loads((copy / ENVIRONMENT_FILE).read_text())
    data["ablation"] = level
    (copy / ENVIRONMENT_FILE).write_text(json.dumps(data))
    errors = [p for p in errors_in(validate_environment(copy, extract=False)) if "unrefutable" in p.message]
    assert errors and all("join at" not in p.message for p in errors)


def test_record_without_merits_exhibits_builds_every_level_without_errors(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record", skip=EXHIBITS)
    settings = SMALL.model_copy(update={"levels": list(LEVELS)})
    result = run_build(record, tmp_path / "env", settings, llm=FakeLLM(canned_answers()), log=quiet)
    assert result.report.documents_by_level["merits"] == {}  # type: ignore[union-attr]
    merits = validate_environment(tmp_path / "env" / "merits")
    assert errors_in(merits) == [], merits
    assert any("the corpus at level 'merits' is empty" in p.message and p.severity == "warning" for p in merits)
    for slug in SLUGS[1:]:
        assert errors_in(validate_environment(tmp_path / "env" / slug, extract=False)) == []


def test_one_level_build_then_levels_all_reassembles_only(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    out = tmp_path / "env"
    llm = FakeLLM(canned_answers())
    first = run_build(record, out, SMALL, llm=llm, log=quiet)
    assert first.report.folders == {"+chaff100": "."}  # type: ignore[union-attr]
    assert load_environment(out)[0].ablation == "+chaff100"
    calls = len(llm.calls)
    again = run_build(record, out, SMALL.model_copy(update={"levels": parse_levels("merits,+chaff100")}), llm=llm,
                      log=quiet)  # fmt: skip
    assert again.ran == ["assemble"] and len(llm.calls) == calls
    assert not (out / ENVIRONMENT_FILE).exists() and not (out / CORPUS_DIR).exists()
    assert [load_environment(out / slug)[0].ablation for slug in ("merits", "chaff100")] == ["merits", "+chaff100"]
    assert errors_in(validate_environment(out / "chaff100")) == []
    synthetic = [d for d in load_environment(out / "chaff100")[0].documents if d.role != Role.merits]
    assert synthetic and all((out / RENDERED_DIR / d.path).is_file() for d in synthetic)
    assert run_build(record, out, again.outputs["assemble"] and SMALL.model_copy(
        update={"levels": ["merits", "+chaff100"]}), llm=llm, log=quiet).ran == []  # fmt: skip


@pytest.mark.parametrize("levels", ["merits,+everything", ",", "chaff75"])
def test_cli_refuses_bad_levels_with_one_line_and_exit_2(levels: str, tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    result = CliRunner().invoke(cli(), ["build", str(record), "--out", str(tmp_path / "env"), "--levels", levels])
    assert result.exit_code == 2, result.output
    assert "ablation level" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "env").exists()
