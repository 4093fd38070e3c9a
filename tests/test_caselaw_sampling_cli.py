"""Stratified sampling, the `lexprobe data` commands, and a build killed half-way."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lexprobe.caselaw.build import remove_stale_builds
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import allocate, sample_cases

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


@pytest.mark.parametrize(
    ("sizes", "n", "expected_total"),
    [
        ({"a": 10, "b": 10, "c": 10}, 9, 9),
        ({"a": 1, "b": 10, "c": 10}, 9, 9),
        ({"a": 0, "b": 2, "c": 2}, 10, 4),
        ({"a": 5}, 3, 3),
    ],
)
def test_allocate_fills_equal_shares_and_spreads_shortfalls(sizes: dict, n: int, expected_total: int) -> None:
    quotas = allocate(sizes, n, random.Random(1))
    assert sum(quotas.values()) == expected_total
    assert all(quotas[s] <= sizes[s] for s in sizes)
    if n <= sum(sizes.values()):
        full = [s for s in sizes if quotas[s] < sizes[s]]
        assert max(quotas[s] for s in full) - min(quotas[s] for s in full) <= 1


def test_scotus_sample_is_stratified_and_reproducible(case_db_path: Path) -> None:
    db = CaseDatabase(case_db_path)
    first = sample_cases(db, "scotus", 500, seed=47)
    again = sample_cases(db, "scotus", 500, seed=47)
    other = sample_cases(db, "scotus", 500, seed=48)
    assert [r["case_id"] for r in first.rows] == [r["case_id"] for r in again.rows]
    assert [r["case_id"] for r in first.rows] != [r["case_id"] for r in other.rows]
    assert len(first.rows) == 500 and len({r["case_id"] for r in first.rows}) == 500
    per_year: dict[str, int] = {}
    for row in first.rows:
        per_year[row["stratum"]] = per_year.get(row["stratum"], 0) + 1
    assert max(per_year.values()) - min(per_year.values()) <= 1 or first.short_strata
    db.close()


def test_short_strata_and_shortfall_are_reported(case_db_path: Path) -> None:
    db = CaseDatabase(case_db_path)
    result = sample_cases(db, "coa", 100_000, seed=1)
    assert result.shortfall > 0 and result.short_strata
    assert len(result.rows) == result.eligible
    db.close()


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=env or os.environ.copy(), timeout=300)


def test_cli_info_case_and_sample(case_db_path: Path, tmp_path: Path) -> None:
    info = run_cli("data", "info", "--db", str(case_db_path), "--json")
    assert info.returncode == 0, info.stderr
    payload = json.loads(info.stdout)
    assert payload["coverage"]["scotus"]["cases"] > 30_000

    case = run_cli("data", "case", "163 U.S. 537", "--db", str(case_db_path))
    assert case.returncode == 0, case.stderr
    assert "Plessy" in case.stdout and "1896" in case.stdout and "1954" in case.stdout and "Brown" in case.stdout

    case_json = json.loads(run_cli("data", "case", "163 U.S. 537", "--db", str(case_db_path), "--json").stdout)
    assert case_json["case"]["case"]["overruled_year"] == 1954

    out = tmp_path / "sample.jsonl"
    sample = run_cli("data", "sample", "--level", "scotus", "--n", "50", "--seed", "47", "--out", str(out),
                     "--db", str(case_db_path))  # fmt: skip
    assert sample.returncode == 0, sample.stderr
    assert len(out.read_text().splitlines()) == 50
    assert "drew 50" in sample.stderr


def test_cli_errors_are_one_line_with_exit_codes(case_db_path: Path, tmp_path: Path) -> None:
    missing = run_cli("data", "info", "--db", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "lexprobe data build" in missing.stderr
    bad_level = run_cli("data", "sample", "--level", "moon", "--db", str(case_db_path))
    assert bad_level.returncode == 2 and "scotus" in bad_level.stderr
    unknown = run_cli("data", "case", "999 U.S. 999", "--db", str(case_db_path))
    assert unknown.returncode == 1 and "no case matches" in unknown.stderr
    no_source = run_cli("data", "build", "--source", str(tmp_path / "nothing"), "--db", str(tmp_path / "x.sqlite"))
    assert no_source.returncode == 2 and "missing source" in no_source.stderr
    assert not (tmp_path / "x.sqlite").exists()


def test_killed_build_leaves_the_previous_database(case_db_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "caselaw.sqlite"
    shutil.copy(case_db_path, target)
    before = CaseDatabase(target).table_counts()
    process = subprocess.Popen([LEXPROBE, "data", "build", "--db", str(target)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 120
    temp_file = None
    while time.monotonic() < deadline and temp_file is None:
        temp_file = next(tmp_path.glob(".caselaw.sqlite.*.building"), None)
        time.sleep(0.05)
    assert temp_file is not None, "the build never started writing"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert CaseDatabase(target).table_counts() == before
    assert remove_stale_builds(target) == [temp_file]
    assert not temp_file.exists()
