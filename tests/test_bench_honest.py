"""The honest benchmarks work: `lexprobe.caches.clear_all` empties the memo caches a first user would not have;
bench/scoring.py draws varied answers and scores every task cold; bench/check.py finds the same verdicts in a fresh
`lexprobe check` process, a fresh library process and this one, and chunked parsing matches one eyecite call on the
whole text; bench/engine_overhead.py gets identical answers on both paths.

Everything runs SMALL here (a few pages, a few dozen answers, a few prompts) to check behaviour, never timing; the
figures are in BENCHMARKS.md.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from lexprobe.caches import clear_all
from lexprobe.caselaw import case_names, citations, courts, judges
from lexprobe.caselaw.query import CaseDatabase

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(name: str) -> Any:
    """Import one of the bench scripts (bench/ is not a package)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


def test_clear_all_empties_the_citation_court_and_judge_memos() -> None:
    memos = [
        citations.parse_citation,
        citations.citation_key,
        courts.resolve_court,
        case_names.normalize_case_name,
        judges._parse,
    ]
    assert citations.parse_citation("Brown v. Board of Education, 347 U.S. 483 (1954)") is not None
    assert citations.citation_key("347 U. S. 483") == "347 U.S. 483"
    assert courts.resolve_court("the Ninth Circuit") == "ca9"
    case_names.normalize_case_name("Brown v. Board of Education")
    judges._parse("Justice Hugo Black")
    assert all(memo.cache_info().currsize > 0 for memo in memos)
    cleared = clear_all()
    assert all(memo.cache_info().currsize == 0 for memo in memos)
    assert {
        "lexprobe.caselaw.citations.parse_citation",
        "lexprobe.caselaw.courts.resolve_court",
        "lexprobe.caselaw.courts._name_index",
        "lexprobe.caselaw.judges._parse",
    } <= set(cleared)
    assert all(name.startswith(("lexprobe.caselaw.", "lexprobe.check.", "lexprobe.hallucination.")) for name in cleared)
    # the code still answers the same after clearing (the tables are rebuilt on use)
    assert courts.resolve_court("the Ninth Circuit") == "ca9"


def test_scoring_bench_draws_varied_answers_and_scores_every_task_cold(
    case_db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scoring = bench_module("scoring")
    db = CaseDatabase(case_db_path)
    try:
        answers = scoring.make_answers(db, 60, seed=3)
    finally:
        db.close()
    assert set(answers) == set(scoring.SCORERS)
    for task, pairs in answers.items():
        assert len(pairs) == 60
        assert len({answer for answer, _ in pairs}) >= 20, task  # varied, not a handful of fixed strings
    sentences = ("existence", "citation", "author", "quotation", "authority", "false_dissent")
    assert all(len({answer for answer, _ in answers[task]}) >= 50 for task in sentences)
    scoring.main(["--answers", "40", "--baseline-subset", "10", "--db", str(case_db_path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["caches_cleared_before_each_task"] is True
    for task, row in report["tasks"].items():
        assert sum(row["labels"].values()) == 40, task
        assert 0 < row["distinct_answers"] <= 40
    for task in ("existence", "citation", "author", "court"):  # realistic mixes: right and wrong answers
        labels = report["tasks"][task]["labels"]
        assert labels.get("correct", 0) > 0 and labels.get("hallucination", 0) > 0, (task, labels)
    assert {"quotation", "authority", "citation"} <= {
        t for t, row in report["tasks"].items() if "speedup_vs_naive" in row
    }


def test_check_bench_same_verdicts_fresh_and_warm_and_chunking_matches_one_call(
    case_db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check = bench_module("check")
    check.main(["--pages", "4", "--runs", "2", "--fresh", "1", "--baseline", "--db", str(case_db_path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["citations"] > 0
    assert report["same_verdicts_everywhere"] is True  # the bench exits otherwise
    assert report["cold_cli_first_s"] is not None and len(report["cold_cli"]["runs_s"]) == 1
    baseline = report["baseline"]
    assert baseline["identical"] is True and baseline["case_citations"] >= report["citations"] // 2


def test_check_bench_chunked_comparison_sees_every_citation() -> None:
    check = bench_module("check")
    paragraph = "See Brown v. Board of Education, 347 U.S. 483, 495 (1954). Id. at 494.\n\n"
    result = check.chunked_vs_whole(paragraph * 300)  # ~22,000 characters: several chunks
    assert result["chunks"] > 1 and result["identical"] is True
    assert result["case_citations"] == 600 and result["other_differences"] == {"only_chunked": [], "only_whole": []}


def test_engine_overhead_bench_gets_identical_answers_on_both_paths(capsys: pytest.CaptureFixture[str]) -> None:
    engine_overhead = bench_module("engine_overhead")
    engine_overhead.main(["--prompts", "4", "--block", "2", "--max-tokens", "4", "--replay", "50", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["overhead"]["identical_answers"] == report["overhead"]["prompts"] == 4
    assert report["cache_replay"]["requests"] == 50


def test_peers_bench_sees_every_exchange_and_its_floor_does_the_same_work(tmp_path: Path, case_db_path: Path) -> None:
    """The peer bench's server layer records each request's arrival and reply; the bare httpx floor sends lexprobe's
    requests and gets the same tokens back, so `check_same_work` passes; a changed prompt makes it fail."""
    peers = bench_module("peers")
    server_module = bench_module("peers_server")
    with server_module.LlamaServer(tmp_path / "server.log") as server:
        peers.warm_up(server)
        sides = peers.Sides(tmp_path, server, case_db_path, 3, peers.INSPECT_VENV / "bin")
        run_dir = sides.fresh("cold")
        command, env = sides.lexprobe(connections=1, cache=sides.fresh("cache"), run_dir=run_dir)
        lexprobe_run = peers.timed(command, env, server)
        requests = peers.lexprobe_requests(run_dir)
        prompts = tmp_path / "prompts.jsonl"
        peers.write_prompts(requests, prompts)
        floor_run = peers.timed(*sides.floor(prompts, connections=1), server)
    for run in (lexprobe_run, floor_run):
        assert run.completions == 3 and len(run.gaps) == 2 and all(gap > 0 for gap in run.gaps)
        assert 0 < run.http_s < run.wall_s and 0 < run.first_s < run.wall_s and run.last_s > 0
    floor_side = json.loads(floor_run.stdout)
    work = peers.check_same_work(requests, floor_side, "test")
    assert work["prompts"] == 3 and work["output_tokens"] == sum(item["output_tokens"] for item in floor_side)
    floor_side[0]["messages"] = [{"role": "user", "content": "something else"}]
    with pytest.raises(peers.BenchError, match="different messages"):
        peers.check_same_work(requests, floor_side, "test")


def test_peers_server_busy_time_counts_overlapping_requests_once() -> None:
    server_module = bench_module("peers_server")
    exchange = server_module.Exchange
    overlapping = [exchange(0.0, 2.0), exchange(0.5, 3.0), exchange(1.0, 1.5), exchange(5.0, 6.0)]
    assert server_module.busy_seconds(overlapping) == pytest.approx(4.0)  # [0, 3] and [5, 6]
    assert server_module.client_gaps([exchange(0.0, 1.0), exchange(1.25, 2.0), exchange(2.5, 3.0)]) == [0.25, 0.5]


def test_peers_table_shows_each_round_and_the_ratio_within_it() -> None:
    """A cold row lists every round's wall time and server speed in the order run, and inspect / lexprobe within each
    round beside their median, so drift of the machine's speed over a row is visible next to the medians."""
    peers = bench_module("peers")
    row = peers.Row("cold, 60 prompts, 4 connections")
    walls = {"lexprobe": (50.0, 60.0, 40.0), "inspect": (55.0, 57.0, 48.0), "floor": (49.0, 58.0, 39.0)}
    for side, values in walls.items():
        for wall in values:
            row.runs[side].append(peers.Run(wall_s=wall, cpu_s=1.0, completions=60, eval_ms=25_000.0, eval_tokens=1000))
    table = peers.markdown([row], {})
    by_round = next(line for line in table.splitlines() if "wall, round by round" in line)
    assert "50.00 / 60.00 / 40.00 s" in by_round and "55.00 / 57.00 / 48.00 s" in by_round
    assert "1.10x / 0.95x / 1.20x (median 1.10x)" in by_round
    speed = next(line for line in table.splitlines() if "server ms per generated token, round by round" in line)
    assert speed.count("25.00 / 25.00 / 25.00 ms") == 3
    single = peers.Row("cold, 60 prompts, 1 connection")
    for side in walls:
        single.runs[side].append(peers.Run(wall_s=1.0, cpu_s=1.0, completions=60, eval_ms=1.0, eval_tokens=1))
    assert "round by round" not in peers.markdown([single], {})


def test_peers_table_compares_the_sides_at_equal_server_time() -> None:
    """The server's speed drifts between runs minutes apart; the bench also states each side's time had the server
    been as busy for it as the row's median over every run (its own time, wall - busy, kept), and the ratio of that."""
    peers = bench_module("peers")
    row = peers.Row("cold, 60 prompts, 1 connection")
    runs = {  # (wall, server busy): lexprobe's own time 2 s, inspect's 10 s, the floor's 0.1 s
        "lexprobe": ((50.0, 48.0), (60.0, 58.0), (40.0, 38.0)),
        "inspect": ((55.0, 45.0), (57.0, 47.0), (48.0, 38.0)),
        "floor": ((49.0, 48.9), (58.0, 57.9), (39.0, 38.9)),
    }
    for side, pairs in runs.items():
        for wall, busy in pairs:
            row.runs[side].append(
                peers.Run(wall_s=wall, cpu_s=1.0, completions=60, eval_ms=1.0, eval_tokens=1, http_s=busy)
            )
    # the median busy time over all nine runs is 47 s
    assert peers.equal_server_time(row) == pytest.approx({"lexprobe": 49.0, "inspect": 57.0, "floor": 47.1})
    table = peers.markdown([row], {})
    line = next(line for line in table.splitlines() if "at equal server time" in line)
    assert "| 49.00 s | 57.00 s | 47.10 s | 1.16x |" in line
    assert "(at equal server time 1.21x)" in table  # the floor's bound, 57 / 47.1
    assert peers.row_json(row)["inspect"]["equal_server_time_s"] == 57.0


def test_peers_bench_runs_inspect_from_its_own_virtualenv_with_lexprobes_openai(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """inspect-ai is installed apart from lexprobe (its dependencies would slow lexprobe's start-up in a shared
    virtualenv), pinned to the openai SDK lexprobe pins; without that virtualenv the bench stops and says how to
    build it."""
    import tomllib

    def pins(lines: list[str]) -> dict[str, str]:
        found = {}
        for line in lines:
            name, sep, version = line.split("#")[0].strip().partition("==")
            if sep:
                found[name.split("[")[0].lower()] = version
        return found

    project = tomllib.loads((BENCH.parent / "pyproject.toml").read_text())
    lexprobe_pins = pins(project["project"]["dependencies"])
    bench_pins = pins((BENCH / "requirements-peers.txt").read_text().splitlines())
    assert bench_pins["openai"] == lexprobe_pins["openai"]
    assert "inspect-ai" in bench_pins
    # Not a dependency of lexprobe's own: only the optional extra `inspect` (issue 48: lexprobe's tasks inside
    # Inspect), pinned as the bench pins it; `lexprobe --help` never imports it (tests/test_startup_imports.py).
    assert "inspect-ai" not in json.dumps(project["project"]["dependencies"])
    assert pins(project["project"]["optional-dependencies"]["inspect"])["inspect-ai"] == bench_pins["inspect-ai"]

    peers = bench_module("peers")
    assert peers.main(["--quick", "--inspect-venv", str(tmp_path / "missing")]) == 2
    message = capsys.readouterr().err
    assert str(tmp_path / "missing") in message and "make bench-peers" in message
    # `make bench-peers` passes it relative to the repository; inspect runs in bench/, so the bench anchors it here
    assert peers.parse_args(["--inspect-venv", ".venv-peers"]).inspect_venv == Path.cwd() / ".venv-peers"
