"""Issue 13, samples and data: the study's date windows, per-task sample coverage with drop reasons,
`--complete-cases`, the self-judged marking of reference-free rates, and `--design paper` with a priced dry run.

Real case database (session fixture), the scripted replay model, real run stores; no mocks of lexprobe's code."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import PAPER_YEARS, case_facts, parse_year_windows, sample_cases, subsample
from lexprobe.engine.store import RunStore
from lexprobe.errors import BadInputError
from lexprobe.hallucination.run.items import plan_items
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.coverage import BUILDER_DROPPED
from lexprobe.hallucination.tasks.item import ItemRecord
from lexprobe.models.pricing import price_for

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=600)


def script(tmp_path: Path, text: str = "Yes") -> str:
    path = tmp_path / "script.jsonl"
    path.write_text(json.dumps({"text": text}) + "\n")
    return f"scripted:{path}"


def asked(run_dir: Path) -> dict[str, set[str]]:
    """Return the case ids each task asked about, read from the run store's items."""
    store = RunStore.open_read_only(run_dir)
    try:
        by_task: dict[str, set[str]] = defaultdict(set)
        for item in (ItemRecord.model_validate_json(body) for body in store.items().values()):
            if item.case_id:
                by_task[item.task].add(item.case_id)
        return dict(by_task)
    finally:
        store.close()


def case_years(db_path: Path, case_ids: set[str]) -> list[int]:
    conn = sqlite3.connect(db_path)
    marks = ",".join("?" * len(case_ids))
    years = [row[0] for row in conn.execute(f"SELECT year FROM cases WHERE case_id IN ({marks})", list(case_ids))]
    conn.close()
    return years


# --- date windows ---------------------------------------------------------------------------------------------


def test_parse_year_windows() -> None:
    levels = ["scotus", "coa", "district"]
    assert parse_year_windows("paper", levels) == PAPER_YEARS
    assert PAPER_YEARS == {"scotus": (1794, 2015), "coa": (1895, 2019), "district": (1932, 2019)}
    assert parse_year_windows("all", levels) == dict.fromkeys(levels)
    assert parse_year_windows("1900-1950", ["scotus"]) == {"scotus": (1900, 1950)}
    # levels not named keep the study's window; any level spelling; LEVEL=all lifts the window
    assert parse_year_windows("usdc=1950-1960, supreme=all", levels) == {
        "scotus": None, "coa": (1895, 2019), "district": (1950, 1960)}  # fmt: skip
    for bad in ("1960-1950", "scotus=abc", "nowhere=1900-1950", "scotus", "1900"):
        with pytest.raises(BadInputError):
            parse_year_windows(bad, levels)


def test_run_samples_within_the_papers_window_by_default(case_db_path: Path, tmp_path: Path) -> None:
    """The offline Supreme Court data runs 1754-2024; the old sampler drew from every year."""
    run_dir = tmp_path / "run"
    result = run_cli("hallucination", "run", "--model", script(tmp_path), "--tasks", "existence", "--n", "400",
                     "--prompt-styles", "zero", "--samples", "0", "--run-dir", str(run_dir), "--db", str(case_db_path),
                     "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    years = case_years(case_db_path, asked(run_dir)["existence"])
    assert len(years) == 400 and min(years) >= 1794 and max(years) <= 2015
    out = json.loads(result.stdout)
    assert out["samples"]["scotus"]["years"] == "1794-2015"
    settings = RunStore.open_read_only(run_dir).get_meta("settings")
    assert settings["years"] == {"scotus": [1794, 2015]}


def test_years_option_overrides_the_window(case_db_path: Path, tmp_path: Path) -> None:
    common = ("--tasks", "existence", "--n", "300", "--prompt-styles", "zero", "--samples", "0", "--db",
              str(case_db_path))  # fmt: skip
    narrow = tmp_path / "narrow"
    result = run_cli("hallucination", "run", "--model", script(tmp_path), *common, "--years", "scotus=1950-1960",
                     "--run-dir", str(narrow))  # fmt: skip
    assert result.returncode == 0, result.stderr
    years = case_years(case_db_path, asked(narrow)["existence"])
    assert min(years) >= 1950 and max(years) <= 1960
    everything = tmp_path / "all"
    result = run_cli("hallucination", "run", "--model", script(tmp_path), *common, "--years", "all", "--run-dir",
                     str(everything))  # fmt: skip
    assert result.returncode == 0, result.stderr
    years = case_years(case_db_path, asked(everything)["existence"])
    assert min(years) < 1794 and max(years) > 2015
    bad = run_cli("hallucination", "run", "--model", script(tmp_path), *common, "--years", "scotus=2015-1794",
                  "--run-dir", str(tmp_path / "bad"))  # fmt: skip
    assert bad.returncode == 2 and "first year is after the last" in bad.stderr


# --- coverage -------------------------------------------------------------------------------------------------


def test_needs_agree_with_the_builders(case_db_path: Path) -> None:
    """Every sampled case a task drops lacks a fact its `needs` names, and every case it asks has them all: the
    declared needs are what `--complete-cases` and the drop reasons rest on."""
    db = CaseDatabase(case_db_path)
    tasks = [task for task in TASKS.values() if not task.population]
    assert all(task.needs for task in tasks), "a task drawn from the sample declares no needs"
    plan = plan_items(db, tasks, ["scotus"], ["zero"], 300, 5, years={"scotus": PAPER_YEARS["scotus"]})
    rows = {(row.task, row.level): row for row in plan.coverage}
    for task in tasks:
        row = rows[(task.id, "scotus")]
        assert BUILDER_DROPPED not in row.dropped, (task.id, row.dropped)
        assert row.usable + sum(row.dropped.values()) == row.sampled == 300
        used = {item.case_id for item in plan.items if item.task == task.id}
        facts = case_facts(db, used, task.needs)
        assert all(set(task.needs) <= facts[case_id] for case_id in used), task.id
    assert rows[("author", "scotus")].dropped.get("no majority author", 0) > 0
    assert rows[("quotation", "scotus")].dropped.get("no majority opinion text", 0) > 0
    db.close()


def test_coverage_in_terminal_json_store_and_html(case_db_path: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    tasks = "existence,author,quotation,overruling_year"
    args = ("hallucination", "run", "--model", script(tmp_path), "--tasks", tasks, "--levels", "scotus,coa", "--n",
            "40", "--prompt-styles", "zero", "--samples", "0", "--run-dir", str(run_dir), "--db",
            str(case_db_path))  # fmt: skip
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    coverage = {(row["task"], row["level"]): row for row in json.loads(result.stdout)["coverage"]}
    used = asked(run_dir)
    author = coverage[("author", "scotus")]
    assert author["source"] == "sample" and author["sampled"] == 40
    assert author["usable"] == len(used["author"]) and author["usable"] + sum(author["dropped"].values()) == 40
    assert set(author["dropped"]) == {"no majority author"}
    assert coverage[("quotation", "scotus")]["dropped"] == {"no majority opinion text": 40 - len(used["quotation"])}
    assert coverage[("existence", "coa")] == {"task": "existence", "level": "coa", "source": "sample", "sampled": 40,
                                              "usable": 0, "dropped": {"no case name": 40}, "note": ""}  # fmt: skip
    overruled = coverage[("overruling_year", "scotus")]
    assert overruled["source"] == "population" and overruled["sampled"] is None and "overruled" in overruled["note"]

    text = run_cli(*args)  # resumes: the same settings
    assert text.returncode == 0, text.stderr
    assert "sample coverage" in text.stdout and "no majority author" in text.stdout

    report = run_cli("hallucination", "report", str(run_dir), "--json", "--html", str(tmp_path / "r.html"))
    assert report.returncode == 0, report.stderr
    stored = {(row["task"], row["level"]): row for row in json.loads(report.stdout)["coverage"]}
    assert stored[("author", "scotus")] == author | {"model": json.loads(report.stdout)["models"][0]["model"]}
    html = (tmp_path / "r.html").read_text()
    assert "Sample coverage" in html and "no majority author" in html
    plain = run_cli("hallucination", "report", str(run_dir))
    assert "sample coverage" in plain.stdout and "no case name" in plain.stdout


def test_complete_cases_share_one_sample(case_db_path: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    tasks = "existence,author,quotation,disposition,false_overruling"
    result = run_cli("hallucination", "run", "--model", script(tmp_path), "--tasks", tasks, "--n", "30",
                     "--prompt-styles", "zero", "--samples", "0", "--complete-cases", "--run-dir", str(run_dir),
                     "--db", str(case_db_path), "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    sample = out["samples"]["scotus"]
    assert sample["require"] == ["name", "author", "disposition", "opinion_text"]
    conn = sqlite3.connect(case_db_path)
    complete = conn.execute(
        "SELECT COUNT(*) FROM cases c WHERE level = 'scotus' AND name != '' AND citation LIKE '% U.S. %' AND year "
        "BETWEEN 1794 AND 2015 AND author != '' AND disposition != '' AND EXISTS (SELECT 1 FROM opinions o "
        "WHERE o.opinion_id = c.majority_opinion_id AND o.text != '')"
    ).fetchone()[0]
    conn.close()
    assert sample["eligible"] == complete and sample["drawn"] == 30
    used = asked(run_dir)
    assert used["existence"] == used["author"] == used["quotation"] == used["disposition"]
    assert len(used["existence"]) == 30
    for row in out["coverage"]:
        if row["task"] != "false_overruling":
            assert row["usable"] == row["sampled"] == 30 and row["dropped"] == {}, row
    # a fact that only keeps a false premise false does not restrict the shared sample
    overruling = next(row for row in out["coverage"] if row["task"] == "false_overruling")
    assert set(overruling["dropped"]) <= {"overruled (the false premise would be true)"}
    assert used["false_overruling"] <= used["existence"]


def test_subsample_is_a_stratified_part_of_the_sample(case_db_path: Path) -> None:
    db = CaseDatabase(case_db_path)
    rows = sample_cases(db, "scotus", 1000, 3, PAPER_YEARS["scotus"]).rows
    db.close()
    part = subsample(rows, 100, 3)
    assert len(part) == 100 and part == subsample(rows, 100, 3)
    assert {r["case_id"] for r in part} <= {r["case_id"] for r in rows}
    per_stratum: dict[str, int] = defaultdict(int)
    for row in part:
        per_stratum[row["stratum"]] += 1
    assert max(per_stratum.values()) <= 2  # 100 of ~220 year strata: at most one each, plus rounding
    assert subsample(rows, 5000, 3) == rows


# --- self-judged ----------------------------------------------------------------------------------------------


def test_self_judged_is_warned_and_marked_everywhere(case_db_path: Path, tmp_path: Path) -> None:
    model = script(tmp_path, "So, the answer is yes.")
    run_dir = tmp_path / "run"
    args = ("hallucination", "run", "--model", model, "--tasks", "existence,factual_background", "--n", "5",
            "--prompt-styles", "zero", "--samples", "0", "--run-dir", str(run_dir), "--db",
            str(case_db_path))  # fmt: skip
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    assert "judges its own reference-free pairs" in result.stderr and "stronger judge" in result.stderr
    out = json.loads(result.stdout)
    assert out["self_judged"] is True
    marks = {row["task"]: row["self_judged"] for row in out["rows"]}
    assert marks == {"existence": False, "factual_background": True}
    table = run_cli(*args)
    assert "factual_background (self-judged)" in table.stdout.replace("\n", "")
    report = run_cli("hallucination", "report", str(run_dir), "--json", "--html", str(tmp_path / "r.html"))
    assert report.returncode == 0, report.stderr
    reported = json.loads(report.stdout)
    assert reported["models"][0]["self_judged"] is True and reported["self_judged"] is True
    assert {row["task"]: row["self_judged"] for row in reported["rates"]} == marks
    assert {row["task"]: row["self_judged"] for row in reported["rows"]} == marks
    html = (tmp_path / "r.html").read_text()
    assert "· self-judged" in html and ": self-judged)" in html


def test_a_separate_judge_is_not_self_judged(case_db_path: Path, tmp_path: Path) -> None:
    judge = tmp_path / "judge.jsonl"
    judge.write_text(json.dumps({"text": "So, the answer is no."}) + "\n")
    result = run_cli("hallucination", "run", "--model", script(tmp_path), "--judge", f"scripted:{judge}", "--tasks",
                     "factual_background", "--n", "3", "--samples", "0", "--run-dir", str(tmp_path / "run"), "--db",
                     str(case_db_path), "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "judges its own" not in result.stderr
    out = json.loads(result.stdout)
    assert out["self_judged"] is False and not any(row["self_judged"] for row in out["rows"])


# --- the paper's design ---------------------------------------------------------------------------------------


def test_design_paper_settings() -> None:
    from lexprobe.hallucination.run.runner import design_settings

    levels, styles, n, k, task_n = design_settings("paper", None, None, None, None)
    assert (levels, styles, n, k) == (["scotus", "coa", "district"], ["zero", "few"], 5000, 10)
    assert task_n["central_holding"] == 100 and task_n["doctrinal_agreement"] == 5000
    assert task_n["overruling_year"] is None and task_n["false_dissent"] == task_n["false_overruling"] == 1000
    assert design_settings("paper", "scotus", "zero", 50, 0)[:4] == (["scotus"], ["zero"], 50, 0)  # options win
    with pytest.raises(BadInputError):
        design_settings("other", None, None, None, None)


def test_design_paper_dry_run_prices_judge_requests_at_the_judge(case_db_path: Path, tmp_path: Path) -> None:
    result = run_cli("hallucination", "run", "--model", "openai/gpt-4o", "--judge", "openai/gpt-4.1", "--design",
                     "paper", "--levels", "scotus", "--tasks", "factual_background,overruling_year", "--dry-run",
                     "--run-dir", str(tmp_path / "run"), "--db", str(case_db_path), "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    estimate = json.loads(result.stdout)
    shares = {share["model"]: share for share in estimate["by_model"]}
    conn = sqlite3.connect(case_db_path)
    overruled = conn.execute(
        "SELECT COUNT(*) FROM cases WHERE level = 'scotus' AND overruled_year IS NOT NULL AND "
        "COALESCE(overruled_in_part, 0) = 0 AND name != '' AND citation IS NOT NULL"
    ).fetchone()[0]
    conn.close()
    # 100 reference-free cases x 2 samples (zero-shot only); every overruled case x 2 styles x (greedy + K = 10)
    assert shares["openai/gpt-4o"]["requests"] == 100 * 2 + overruled * 2 * 11
    judge = shares["openai/gpt-4.1"]
    assert judge["requests"] == 100
    price = price_for("openai", "gpt-4.1")
    expected = (judge["input_tokens"] * price.input + judge["max_output_tokens"] * price.output) / 1e6
    assert judge["max_cost_usd"] == pytest.approx(expected)
    assert estimate["requests"] == sum(share["requests"] for share in shares.values())
    assert estimate["max_cost_usd"] == pytest.approx(sum(share["max_cost_usd"] for share in shares.values()))
    text = run_cli("hallucination", "run", "--model", "openai/gpt-4o", "--judge", "openai/gpt-4.1", "--design",
                   "paper", "--levels", "scotus", "--tasks", "factual_background", "--dry-run", "--run-dir",
                   str(tmp_path / "run"), "--db", str(case_db_path))  # fmt: skip
    assert text.returncode == 0, text.stderr
    assert "openai/gpt-4.1: 100 requests" in text.stdout and "openai/gpt-4o: 200 requests" in text.stdout


def test_data_sample_uses_the_paper_window_unless_told_otherwise(case_db_path: Path) -> None:
    """`data sample` draws within the same window as `hallucination run` (the study's), and --years overrides it."""
    default = run_cli("data", "sample", "--db", str(case_db_path), "--n", "3000")
    assert default.returncode == 0, default.stderr
    years = [json.loads(line)["year"] for line in default.stdout.splitlines()]
    low, high = PAPER_YEARS["scotus"]
    assert years and low <= min(years) and max(years) <= high
    assert f"decided in {low}-{high}" in default.stderr
    everything = run_cli("data", "sample", "--db", str(case_db_path), "--n", "3000", "--years", "all")
    assert everything.returncode == 0, everything.stderr
    all_years = [json.loads(line)["year"] for line in everything.stdout.splitlines()]
    assert min(all_years) < low or max(all_years) > high  # the offline data runs 1792-2024
    bad = run_cli("data", "sample", "--db", str(case_db_path), "--years", "1990-x")
    assert bad.returncode == 2 and "--years" in bad.stderr and "Traceback" not in bad.stderr
