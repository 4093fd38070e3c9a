"""bench/build_scale.py: the scale benchmark builds every ablation level from the Marshall filings plus the
written-for-the-test opinion and statements, with the deterministic scripted generator and judge of
bench/scripted_builder.py, and every level validates.

The build here is SMALL (the `small` size preset, 4 of the 28 real filings) so that it takes seconds; the paper-sized
run is recorded in BENCHMARKS.md.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lexprobe.caselaw.paths import data_root
from lexprobe.investigation.pipeline.opinion import find_quote

BENCH = Path(__file__).resolve().parents[1] / "bench"
MARSHALL = data_root() / "sj_records" / "marshall_v_northrop"


def bench_module(name: str) -> Any:
    """Import one of the bench scripts (bench/ is not a package)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


def read_report(capsys: pytest.CaptureFixture[str]) -> dict:
    return json.loads(capsys.readouterr().out)


def test_small_bench_builds_every_level_validated_with_consistent_requests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not MARSHALL.is_dir():
        pytest.skip(f"{MARSHALL} not available")
    build_scale = bench_module("build_scale")
    out = tmp_path / "out"
    status = build_scale.main(["--out", str(out), "--size", "small", "--filings", "few", "--json", "--keep"])
    report = read_report(capsys)
    assert status == 0, report["levels"]
    # one environment folder per ablation level, each validated without errors
    assert set(report["levels"]) == set(build_scale.all_levels())
    for level, summary in report["levels"].items():
        assert Path(summary["folder"]).parent == out and (Path(summary["folder"]) / "environment.json").is_file()
        assert summary["errors"] == 0, (level, summary["error_examples"])
    top = report["levels"]["+chaff100"]
    assert report["documents_at_top_level"] == top["documents"] > 0
    assert top["roles"]["chaff"] >= 1 and top["roles"]["noise"] >= 1 and "merits" not in top["roles"]
    assert report["levels"]["merits"]["documents"] == 0  # every real exhibit is an expert's: no merits exhibit
    # requests: every accepted document written once and judged once (nothing was refused or failed)
    generated = report["generated"]
    assert generated["rejections"] == 0 and generated["failed"] == 0
    assert report["requests"]["generate/generator"] == generated["accepted"] == report["requests"]["generate/judge"]
    assert len(set(generated["spec_ids"])) == generated["accepted"] == top["documents"]
    assert report["requests_total"] == sum(report["requests"].values())
    for stage in ("opinion", "souf", "ground_facts", "party_dags", "ruling", "alternatives", "doc_plans"):
        assert report["requests"].get(f"{stage}/generator", 0) >= 1, stage
    # timings and memory are measured; the record (with the written-for-the-test filings) was kept on request
    seconds = report["seconds"]
    assert 0 < seconds["scripted_generator"] < seconds["build"] <= seconds["total"]
    assert set(seconds["stages"]) >= {"ingest", "generate", "assemble"}
    assert report["peak_memory_mb"]["self"] > 0
    record = out / "record"
    assert len(list(record.glob("gov.uscourts.cacd.657892.*.pdf"))) == len(build_scale.FEW_FILINGS)
    assert (record / "fiction_opinion_order_granting_partial_summary_judgment.txt").is_file()
    # a second run into the same folder is refused: the bench measures cold builds only
    assert build_scale.main(["--out", str(out), "--size", "small"]) == 2


def test_written_for_the_test_opinion_is_long_and_its_quotes_are_verbatim() -> None:
    fiction = bench_module("marshall_fiction")
    text = fiction.opinion_text()
    assert text.count("## Page ") >= 30 and "FICTIONAL" in text and "GRANTED" in text
    quotes = fiction.quotable_sentences()
    assert len(quotes) > 100 and all(find_quote(q, text) for q in quotes[::25])
    facts = fiction.statement_facts()
    assert [f.number for f in facts] == list(range(1, 41)) and any(f.disputed for f in facts)
    response = fiction.response_text()
    assert all(f"{f.number}. {f.text}" in response for f in facts)


def test_scripted_builder_answers_follow_the_schema_and_the_prompt() -> None:
    from lexprobe.documents.content import DocumentContent
    from lexprobe.investigation.pipeline.context import LLMCall, output_schema, with_array_size
    from lexprobe.investigation.pipeline.generate import DocPlanDraft

    scripted = bench_module("scripted_builder")
    builder = scripted.ScriptedBuilder(["The committee met on March 3, 2012 and reviewed every fund in the lineup."],
                                       [], ["Northrop Grumman Corporation"])  # fmt: skip
    schema = with_array_size(output_schema(DocPlanDraft), "specs", 5)
    prompt = 'FACTS THIS ROLE MAY TARGET:\n[{"id": "gf_A", "text": "a"}, {"id": "inj_alt_1_s1", "text": "b"}]'
    plan = DocPlanDraft.model_validate_json(builder.complete([LLMCall("doc_plans", "signal#2", "generator", prompt,
                                                                      schema)])[0].text)  # fmt: skip
    assert len(plan.specs) == 5 and {s.target_fact for s in plan.specs} == {"gf_A", "inj_alt_1_s1"}
    assert all(s.date_from <= s.date_to for s in plan.specs) and len({s.title for s in plan.specs}) == 5
    prompt = "- doc_type: chat\n- title: Shuttle notes\n- dated between 2013-04-01 and 2013-04-09 (put the date"
    docs = [
        DocumentContent.model_validate_json(
            builder.complete([LLMCall("generate", item, "generator", prompt, output_schema(DocumentContent))])[0].text
        )
        for item in ("noise_001", "noise_002")
    ]
    assert all("2013-04-01" <= d.date <= "2013-04-09" and d.body[0].kind == "chat_message" for d in docs)
    assert docs[0].body != docs[1].body
    assert builder.counts == Counter({("doc_plans", "generator"): 1, ("generate", "generator"): 2})
