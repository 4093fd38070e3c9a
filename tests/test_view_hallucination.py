"""The hallucination view's data (issue 32, part A): the side index next to the store (built once, rebuilt when
the store changes, in the cache folder when the run directory is read-only, never inside run.sqlite), the
queries on it, a unit's detail, and the report's rate cells linking to the viewer. Real scripted runs."""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from pathlib import Path

import pytest
from test_view_fixtures import HOSTILE_ANSWER, Runs, cli, hallucination_runs  # noqa: F401

from lexprobe.errors import BadInputError
from lexprobe.view.app import plan_view
from lexprobe.view.hallucination.detail import unit_detail
from lexprobe.view.hallucination.index import INDEX_NAME, ensure_index
from lexprobe.view.hallucination.queries import UnitStore, fts_query, parse_query


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _store(runs: Runs) -> UnitStore:
    plan = plan_view([runs.yes, runs.hostile], [], runs.case_db)
    return UnitStore(plan.indexes, plan.labels)


def test_index_lives_next_to_the_store_and_is_built_once(hallucination_runs: Runs) -> None:  # noqa: F811
    store_file = hallucination_runs.yes / "run.sqlite"
    before = _digest(store_file)
    heard: list[str] = []
    first = ensure_index(hallucination_runs.yes, hallucination_runs.case_db, notify=heard.append)
    assert first.path == hallucination_runs.yes / INDEX_NAME
    ensure_index(hallucination_runs.yes, hallucination_runs.case_db, notify=heard.append)
    assert len([line for line in heard if "indexing" in line]) <= 1  # the second call reuses the index
    assert _digest(store_file) == before  # the run's own database is untouched
    tables = {name for (name,) in sqlite3.connect(store_file).execute("SELECT name FROM sqlite_master")}
    assert "units" not in tables and "answers" not in tables
    # 4 cases x existence (zero, few) + factual_background (zero-shot only): 12 units, calibration samples left out
    assert first.units == 12
    assert set(first.facets["task"]) == {"existence", "factual_background"}


def test_index_is_rebuilt_when_the_store_changes(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "run.sqlite").write_bytes((hallucination_runs.yes / "run.sqlite").read_bytes())
    built = ensure_index(copy, hallucination_runs.case_db)
    conn = sqlite3.connect(copy / "run.sqlite")
    with conn:
        conn.execute("DELETE FROM scores WHERE rowid = (SELECT MAX(rowid) FROM scores)")
    conn.close()
    heard: list[str] = []
    rebuilt = ensure_index(copy, hallucination_runs.case_db, notify=heard.append)
    assert heard and "indexing" in heard[0]
    assert rebuilt.path == built.path


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to a read-only folder")
def test_read_only_run_directory_indexes_in_the_cache(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "run.sqlite").write_bytes((hallucination_runs.yes / "run.sqlite").read_bytes())
    folder.chmod(0o555)
    try:
        heard: list[str] = []
        index = ensure_index(folder, None, notify=heard.append)
        assert not (folder / INDEX_NAME).exists()
        assert index.path.is_file() and "not writable" in heard[0]
    finally:
        folder.chmod(0o755)


def test_filters_sort_page_and_search(hallucination_runs: Runs) -> None:  # noqa: F811
    store = _store(hallucination_runs)
    everything = store.page(parse_query({"size": ["500"]}))
    assert everything["total"] == 24 and len(everything["rows"]) == 24
    assert {row["model"] for row in everything["rows"]} == {
        hallucination_runs.yes_model,
        hallucination_runs.hostile_model,
    }
    named = [row for row in everything["rows"] if row["case_name"]]
    assert named and all(row["citation"] and row["year"] for row in named)  # names from the case database
    existence = store.page(parse_query({"task": ["existence"], "model": [hallucination_runs.yes_model]}))
    assert existence["total"] == 8 and {row["label"] for row in existence["rows"]} == {"correct"}
    few = store.page(parse_query({"task": ["existence"], "style": ["few"], "level": ["scotus"]}))
    assert few["total"] == 8
    years = sorted(row["year"] for row in everything["rows"])
    middle = years[len(years) // 2]
    ranged = store.page(parse_query({"year_from": [str(middle)], "year_to": [str(middle)]}))
    assert ranged["total"] == years.count(middle)
    by_year = store.page(parse_query({"sort": ["year"], "dir": ["desc"], "size": ["500"]}))["rows"]
    assert [row["year"] for row in by_year] == sorted(years, reverse=True)
    page_1 = store.page(parse_query({"sort": ["case"], "size": ["5"]}))
    page_2 = store.page(parse_query({"sort": ["case"], "size": ["5"], "page": ["2"]}))
    assert len(page_1["rows"]) == 5 and len(page_2["rows"]) == 5
    assert {(r["run"], r["uid"]) for r in page_1["rows"]}.isdisjoint({(r["run"], r["uid"]) for r in page_2["rows"]})
    case = named[0]["case_name"]
    by_case = store.page(parse_query({"case": [case[:8]]}))
    assert by_case["total"] >= 6 and all(case[:8].lower() in r["case_name"].lower() for r in by_case["rows"])
    zebra = store.page(parse_query({"q": ["zebra"]}))
    assert zebra["total"] == 8 and {row["model"] for row in zebra["rows"]} == {hallucination_runs.hostile_model}
    assert store.page(parse_query({"q": ["quag*"]}))["total"] == 4  # a prefix search (the reference-free answers)
    assert store.page(parse_query({"q": ['"zebra" OR NEAR(( ^']}))["total"] == 0  # FTS5 syntax is only text


def test_bad_parameters_are_refused_with_a_message() -> None:
    for params, message in (
        ({"colour": ["red"]}, "unknown parameter 'colour'"),
        ({"sort": ["answer; DROP TABLE units"]}, "cannot sort by"),
        ({"dir": ["sideways"]}, "dir must be asc or desc"),
        ({"size": ["501"]}, "size must be between 1 and 500"),
        ({"page": ["zero"]}, "page must be a whole number"),
        ({"case": ["x" * 201]}, "longer than 200"),
    ):
        with pytest.raises(BadInputError, match=re.escape(message)):
            parse_query(params)
    with pytest.raises(BadInputError, match="no word"):
        fts_query('" * ( )')
    assert fts_query('say "hi" now*') == '"say" AND """hi""" AND "now"*'


def test_detail_has_prompt_answer_reference_samples_and_pairs(hallucination_runs: Runs) -> None:  # noqa: F811
    store = _store(hallucination_runs)
    rows = store.page(parse_query({"task": ["existence"], "model": [hallucination_runs.hostile_model]}))["rows"]
    detail = unit_detail(hallucination_runs.hostile, rows[0]["request_id"])
    assert detail["answer"] == HOSTILE_ANSWER
    assert "a real case" in detail["prompt"]
    assert len(detail["samples"]) == 2 and detail["confidence"]["label"] == "measured"
    assert detail["score"]["label"] in ("correct", "hallucination", "abstain", "unscored")
    pair = store.page(parse_query({"task": ["factual_background"], "model": [hallucination_runs.hostile_model]}))
    detail = unit_detail(hallucination_runs.hostile, pair["rows"][0]["request_id"])
    assert detail["partner"]["answer"] and detail["judge"]["answer"] == "They agree. So, the answer is yes."
    assert "Analyze pairs" in detail["judge"]["prompt"] and detail["score"]["label"] == "correct"
    same = store.same_question(pair["rows"][0]["item_key"])
    assert {row["model"] for row in same} == {hallucination_runs.yes_model, hallucination_runs.hostile_model}
    assert unit_detail(hallucination_runs.hostile, "no such request") is None


def test_report_rates_link_to_the_viewer(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    page = tmp_path / "report.html"
    result = cli("hallucination", "report", str(hallucination_runs.yes), "--html", str(page),
                 "--viewer-url", "http://127.0.0.1:9999/")  # fmt: skip
    assert result.returncode == 0, result.stderr
    links = re.findall(r'href="(http://127\.0\.0\.1:9999/hallucination/\?[^"]+)"', page.read_text())
    assert links and any("task=existence&amp;level=scotus&amp;style=few" in link for link in links)
    result = cli("hallucination", "report", str(hallucination_runs.yes), "--html", str(page), "--viewer-url", "")
    assert result.returncode == 0 and "/hallucination/?" not in page.read_text()
