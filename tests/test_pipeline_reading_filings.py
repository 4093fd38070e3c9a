"""Issue 14, whole records: the statements of facts (cross-motions kept apart), the briefs and the merits exhibits
are read whole, in chunks, and the build report says how much of each record file reached a model.

The pipeline is driven by the FakeLLM of tests/test_investigation_pipeline.py. Where it matters, the fake answers
each chunk from the chunk's own text (numbered facts, responses, brief sentences and names it finds there), so a
fact can only reach an output if the page it is on was sent to the model. The long statement of facts is a real
320-page PDF rendered with reportlab and extracted by lexprobe.documents.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from reportlab.pdfgen import canvas
from test_investigation_pipeline import CAPTION, SMALL, FakeLLM, canned_answers, quiet, write_record

from lexprobe.investigation.pipeline.context import LLMCall
from lexprobe.investigation.pipeline.facts import (
    GroundFactDraft,
    ResponsePartDraft,
    StatementPartDraft,
    merge_slices,
    merge_souf,
)
from lexprobe.investigation.pipeline.runner import run_build

FILLER = (
    "Counsel's index of the declarations, deposition excerpts and business records filed with this statement, "
    "listed in the order the parties produced them, with no fact asserted on this page. "
)

# --- a fake model that reads the chunk it is sent ---------------------------------------------------------------

_STATEMENT_FACT = re.compile(r"^(\d+)\.\s+(.+?)\s*\((Ex\.\s*\d+)\.?\)", re.M)
_RESPONSE = re.compile(r"(?:^|\s)(\d+)\.\s+(Undisputed|Disputed)\.\s*([^0-9]*?)(?=\s+\d+\.\s|$)", re.M)


def _chunk_text(call: LLMCall) -> str:
    """The source text of a chunk request: what follows the prompt's last "...:" heading line."""
    return call.prompt.rsplit(":\n", 1)[-1]


def souf_from_chunk(call: LLMCall) -> dict:
    """Answer a statement or response part with the numbered facts that are in the part's own text."""
    text = _chunk_text(call)
    movant = "plaintiff" if "filed by the plaintiff" in call.prompt else "defendant"
    if call.schema["title"] == "StatementPartDraft":
        facts = [
            {"number": n, "text": t, "cited_exhibit": ex, "page": None} for n, t, ex in _STATEMENT_FACT.findall(text)
        ]
        return {"movant": movant, "facts": facts}
    facts = [
        {"number": n, "text": "", "status": s.lower(), "dispute_reason": r.strip(), "cited_exhibit": None}
        for n, s, r in _RESPONSE.findall(text)
    ]
    other = "defendant" if movant == "plaintiff" else "plaintiff"
    return {"movant": other, "facts": facts}


_BRIEF_SENTENCE = re.compile(r"([A-Z][^.]*?)\s*\((Ex\.\s*\d+)\)\.")
_LISTED = re.compile(r'\{"id": "([^"]+)", "text": "([^"]+)"')


def ground_from_prompt(call: LLMCall) -> dict:
    """Answer a brief part with its cited sentences; answer the table request with one fact per listed source."""
    if call.item.startswith("brief@"):
        found = _BRIEF_SENTENCE.findall(_chunk_text(call))
        return {"facts": [{"text": t, "citation": ex, "page": None} for t, ex in found]}
    listed = _LISTED.findall(call.prompt)
    return {"facts": [{"key": ref.replace(":", "_"), "text": text, "sources": [ref], "embedding": "direct"}
                      for ref, text in listed]}  # fmt: skip


def reading_llm() -> FakeLLM:
    """A FakeLLM whose statement, response, brief and table answers come from each request's own text."""
    return FakeLLM(canned_answers(souf=souf_from_chunk, ground_facts=ground_from_prompt,
                                  **{"ground_facts/brief": ground_from_prompt}))  # fmt: skip


NAMES = ("Bellwether Farms LLC", "Norcross Cold Storage Inc.", "Luis Ortega", "Marisol Vega")


def mentions_from_chunk(call: LLMCall) -> dict:
    """Answer an entity-mention part with the known names its text contains; the merge with one entity per name."""
    if call.item == "merge":
        names = re.findall(r'\{"name": "([^"]+)", "kind": "(\w+)"', call.prompt)
        return {"entities": [{"key": n, "name": n, "kind": k, "aliases": [], "description": "x"} for n, k in names]}
    text = _chunk_text(call)
    kinds = {"Luis Ortega": "person", "Marisol Vega": "person"}
    return {"mentions": [{"name": n, "kind": kinds.get(n, "organization"), "context": "x"} for n in NAMES if n in text]}


def exhibit_from_chunk(call: LLMCall) -> dict:
    """Annotate an exhibit part with the listed entities its text names; summaries say which part was read."""
    if call.item.startswith("summary@"):
        return {"summary": "Whole: " + " | ".join(re.findall(r"^\d+\. (.*)$", call.prompt, re.M))}
    listing = json.loads(re.search(r"ENTITIES:\n(\[.*?\])\n", call.prompt, re.S).group(1))
    text = _chunk_text(call)
    mentions = [e["id"] for e in listing if e["name"] in text]
    part = re.search(r"part (\d+) of (\d+)", call.prompt)
    summary = f"part {part.group(1) if part else 1}"
    return {"doc_type": "other", "title": "Exhibit", "date": None, "author": None, "mentions": mentions,
            "summary": summary}  # fmt: skip


# --- records ----------------------------------------------------------------------------------------------------


def render_statement_pdf(path: Path, pages: int, facts: dict[int, list[str]]) -> None:
    """Render a statement of facts of `pages` pages: the caption and title on page 1, `facts[page]` lines on their
    pages, filler everywhere else."""
    pdf = canvas.Canvas(str(path))
    for page in range(1, pages + 1):
        lines = []
        if page == 1:
            lines += [*CAPTION.strip().splitlines(), "DEFENDANT'S STATEMENT OF UNDISPUTED MATERIAL FACTS",
                      "Attorneys for Defendant"]  # fmt: skip
        lines += facts.get(page, [])
        lines += [FILLER[i : i + 95] for i in range(0, len(FILLER), 95)] * 4
        y = 800
        for line in lines:
            pdf.drawString(36, y, line)
            y -= 13
        pdf.showPage()
    pdf.save()


LONG_STATEMENT_FACTS = {
    1: ["1. On August 20, 2021, the parties signed a storage agreement. (Ex. 1.)"],
    2: ["2. Bellwether delivered 1,200 bins of Honeycrisp apples on September 3, 2021. (Ex. 2.)"],
    300: ["41. The Room 4 compressor was shut down for repairs on October 12, 2021. (Ex. 9.)"],
}
LONG_RESPONSE = (
    CAPTION
    + """
PLAINTIFF'S RESPONSE TO DEFENDANT'S STATEMENT OF UNDISPUTED MATERIAL FACTS
Attorneys for Plaintiff
1. Undisputed. 2. Undisputed.
41. Disputed. The repair lasted three days, not one.
"""
)


def long_statement_record(folder: Path) -> Path:
    """The fictional record with its statement of facts replaced by a 320-page PDF (fact 41 only on page 300)."""
    write_record(folder, skip=("defendant_statement.txt", "plaintiff_response.txt"))
    render_statement_pdf(folder / "defendant_statement.pdf", 320, LONG_STATEMENT_FACTS)
    (folder / "plaintiff_response.txt").write_text(LONG_RESPONSE, encoding="utf-8")
    return folder


def test_a_fact_only_on_page_300_of_a_long_statement_reaches_ground_truth(tmp_path: Path) -> None:
    record = long_statement_record(tmp_path / "record")
    llm = reading_llm()
    result = run_build(record, tmp_path / "env", SMALL, llm=llm, until="ground_facts", log=quiet)
    souf, table = result.outputs["souf"], result.outputs["ground_facts"]
    statement_calls = [c for c in llm.calls if c.item.startswith("statement@")]
    assert len(statement_calls) > 20  # 320 pages do not fit one request: read in parts, every part asked
    assert any("[PAGE 300]" in c.prompt for c in statement_calls)
    by_number = {f.number: f for f in souf.facts}
    assert set(by_number) == {"1", "2", "41"}  # a single statement keeps the printed numbers
    late = by_number["41"]
    assert "compressor" in late.text and late.cited_exhibit == "Ex. 9"
    assert late.status == "disputed" and late.dispute_reason == "The repair lasted three days, not one."
    assert late.movant == "defendant" and late.statement == ""
    ground = next(f for f in table.facts if f.sources == ["souf:41"])
    assert "compressor" in ground.text and ground.source == "rsouf" and ground.disputed
    assert ground.citation == "Ex. 9"
    read = {r.filename: r for r in souf.reads}
    assert read["defendant_statement.pdf"].chars_read == read["defendant_statement.pdf"].chars > 200_000


def test_cross_motions_are_kept_apart(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    (record / "plaintiff_statement.txt").write_text(
        CAPTION + "\nPLAINTIFF'S STATEMENT OF UNDISPUTED MATERIAL FACTS\nAttorneys for Plaintiff\n"
        "1. The Room 4 door alarm sounded on October 3, 2021. (Ex. 4.)\n"
        "2. Norcross logged no inspection of Room 4 in October 2021. (Ex. 5.)\n",
        encoding="utf-8",
    )
    (record / "defendant_response.txt").write_text(
        CAPTION + "\nDEFENDANT'S RESPONSE TO PLAINTIFF'S STATEMENT OF UNDISPUTED MATERIAL FACTS\n"
        "Attorneys for Defendant\n1. Undisputed. 2. Disputed. Inspections were logged on paper.\n",
        encoding="utf-8",
    )
    llm = reading_llm()
    result = run_build(record, tmp_path / "env", SMALL, llm=llm, until="ground_facts", log=quiet)
    souf = result.outputs["souf"]
    groups = {g.key: g for g in souf.statements}
    assert set(groups) == {"D", "P"}
    assert groups["D"].statement_ids == ["defendant_statement"] and groups["D"].response_ids == ["plaintiff_response"]
    assert groups["P"].statement_ids == ["plaintiff_statement"] and groups["P"].response_ids == ["defendant_response"]
    facts = {f.number: f for f in souf.facts}
    assert set(facts) == {"D-1", "D-2", "D-3", "D-4", "D-5", "P-1", "P-2"}
    assert facts["P-1"].movant == "plaintiff" and "door alarm" in facts["P-1"].text and facts["P-1"].statement == "P"
    assert facts["P-2"].status == "disputed" and facts["P-2"].dispute_reason == "Inspections were logged on paper."
    assert facts["D-3"].status == "disputed" and facts["D-3"].movant == "defendant"
    assert facts["D-1"].status == "undisputed" and "storage agreement" in facts["D-1"].text
    table = result.outputs["ground_facts"]
    kept = {ref for f in table.facts for ref in f.sources}
    assert {"souf:P-1", "souf:P-2", "souf:D-3"} <= kept
    assert next(f for f in table.facts if f.sources == ["souf:P-2"]).source == "rsouf"


def test_a_response_without_its_statement_is_read_as_both(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record", skip=("defendant_statement.txt",))
    (record / "plaintiff_response.txt").write_text(
        CAPTION + "\nPLAINTIFF'S RESPONSE TO DEFENDANT'S STATEMENT OF UNDISPUTED MATERIAL FACTS\n"
        "Attorneys for Plaintiff\n7. Disputed. The log is handwritten.\n",
        encoding="utf-8",
    )
    restated = {"movant": "defendant", "facts": [{"number": "7", "text": "Room 4 stayed at 34 F.", "status":
                "disputed", "dispute_reason": "The log is handwritten.", "cited_exhibit": "Ex. 2"}]}  # fmt: skip
    llm = FakeLLM(canned_answers(souf=restated))
    result = run_build(record, tmp_path / "env", SMALL, llm=llm, until="souf", log=quiet)
    souf = result.outputs["souf"]
    assert [g.response_as_statement for g in souf.statements] == [True]
    assert [(f.number, f.text, f.movant) for f in souf.facts] == [("7", "Room 4 stayed at 34 F.", "defendant")]
    assert {c.item for c in llm.calls if c.stage == "souf"} == {"response@plaintiff_response"}


def test_merge_souf_disputed_in_any_part_wins_and_overlap_repeats_merge() -> None:
    statement = [
        StatementPartDraft.model_validate({"movant": "defendant", "facts": [
            {"number": "¶ 3.", "text": "Room 4 stayed", "cited_exhibit": None},
            {"number": "3", "text": "duplicate inside one part", "cited_exhibit": None}]}),
        StatementPartDraft.model_validate({"movant": "defendant", "facts": [
            {"number": "3", "text": "Room 4 stayed between 33 and 35 degrees.", "cited_exhibit": "Ex. 2"}]}),
    ]  # fmt: skip
    response = [
        ResponsePartDraft.model_validate({"movant": "defendant", "facts": [
            {"number": "3", "text": "", "status": "undisputed", "dispute_reason": "", "cited_exhibit": None}]}),
        ResponsePartDraft.model_validate({"movant": "defendant", "facts": [
            {"number": "3", "text": "", "status": "disputed", "dispute_reason": "", "cited_exhibit": None},
            {"number": "9", "text": "", "status": "undisputed", "dispute_reason": "", "cited_exhibit": None}]}),
    ]  # fmt: skip
    facts, dropped = merge_souf(statement, response)
    assert [(f.number, f.text, f.cited_exhibit, f.status) for f in facts] == [
        ("3", "Room 4 stayed between 33 and 35 degrees.", "Ex. 2", "disputed")
    ]
    assert facts[0].dispute_reason == "(the response gives no reason)"
    reasons = {d.item: d.reason for d in dropped}
    assert "duplicate" in reasons["souf:3"] or any("duplicate" in d.reason for d in dropped)
    assert "no text" in reasons["souf:9"]


ARGUMENT = "The standard of review is well settled and needs no repetition here at length. "
LONG_BRIEF = (
    CAPTION
    + "\nMEMORANDUM IN SUPPORT OF DEFENDANT'S MOTION FOR SUMMARY JUDGMENT\nAttorneys for Defendant\n"
    + "".join(f"## Page {n}\n{ARGUMENT * 3}\n" for n in range(1, 60))
    + "## Page 60\nThe Room 4 thermostat was recalibrated on September 2, 2021 (Ex. 7).\n"
)  # fmt: skip


def test_a_brief_fact_on_its_last_page_reaches_ground_facts_as_brief(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    (record / "defendant_brief.txt").write_text(LONG_BRIEF, encoding="utf-8")
    llm = reading_llm()
    result = run_build(record, tmp_path / "env", SMALL.model_copy(update={"max_tokens": 200}), llm=llm,
                       until="ground_facts", log=quiet)  # fmt: skip
    table = result.outputs["ground_facts"]
    assert len([c for c in llm.calls if c.item.startswith("brief@defendant_brief")]) > 1  # read in parts
    brief = next(b for b in table.brief_facts if "thermostat" in b.text)
    assert brief.fact_id.startswith("brief:defendant_brief:") and brief.party == "defendant"
    fact = next(f for f in table.facts if f.sources == [brief.fact_id])
    assert fact.source == "brief" and fact.citation == "Ex. 7" and not fact.disputed
    table_prompt = next(c.prompt for c in llm.calls if c.stage == "ground_facts" and c.item == "table")
    assert "standard of review" not in table_prompt  # the reduce gets compact lists, never raw text
    assert {r.source_id for r in table.reads} == {"defendant_brief", "plaintiff_brief"}


def test_ground_facts_split_into_slices_when_the_lists_do_not_fit(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record", skip=("defendant_statement.txt",))
    lines = "".join(f"{n}. Bin {n} was weighed at intake on September 3, 2021 by the day crew. (Ex. 2.)\n"
                    for n in range(1, 61))  # fmt: skip
    (record / "defendant_statement.txt").write_text(
        CAPTION + "\nDEFENDANT'S STATEMENT OF UNDISPUTED MATERIAL FACTS\nAttorneys for Defendant\n" + lines,
        encoding="utf-8",
    )
    llm = reading_llm()
    settings = SMALL.model_copy(update={"context_tokens": 2600})  # chunks of the minimum size
    result = run_build(record, tmp_path / "env", settings, llm=llm, until="ground_facts", log=quiet)
    table = result.outputs["ground_facts"]
    requests = [c for c in llm.calls if c.stage == "ground_facts" and c.item.startswith("table")]
    assert table.slices == len(requests) > 1 and requests[1].item == "table#s2"
    listed = [set(_LISTED.findall(c.prompt)) for c in requests]
    assert all(not (a & b) for i, a in enumerate(listed) for b in listed[i + 1 :])  # disjoint slices
    assert "slice 2 of" in requests[1].prompt
    souf_refs = {ref for f in table.facts for ref in f.sources if ref.startswith("souf:")}
    assert souf_refs == {f"souf:{n}" for n in range(1, 61)}
    assert len(table.ids()) == len(table.facts)  # keys unique across slices


def test_merge_slices_merges_near_identical_facts_of_later_slices() -> None:
    first = [GroundFactDraft(key="A", text="Room 4 stayed cold.", sources=["op_A"], embedding="direct")]
    second = [
        GroundFactDraft(key="A", text="Room 4 stayed cold", sources=["souf:3"], embedding="direct"),
        GroundFactDraft(key="A", text="The bins were weighed.", sources=["souf:4"], embedding="direct"),
    ]
    merged = merge_slices([first, second])
    assert [m.sources for m in merged] == [["op_A", "souf:3"], ["souf:4"]]


DOCK_ENTRY = "Routine dock entry: doors checked, bins counted, Norcross Cold Storage Inc. staff on shift. "
LONG_EXHIBIT = (
    "EXHIBIT 4\nNORCROSS COLD STORAGE - DOCK LOG, FALL 2021\n"
    + "".join(f"## Page {n}\n{DOCK_ENTRY * 8}\n" for n in range(1, 41))
    + "## Page 41\nSigned off on October 30, 2021 by the night supervisor Marisol Vega.\n"
)  # fmt: skip


def test_every_page_of_a_long_exhibit_is_read_and_late_mentions_are_kept(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    (record / "exhibit_4_dock_log.txt").write_text(LONG_EXHIBIT, encoding="utf-8")
    llm = FakeLLM(canned_answers(entities=mentions_from_chunk, exhibits=exhibit_from_chunk))
    result = run_build(record, tmp_path / "env", SMALL, llm=llm, until="exhibits", log=quiet)
    entities, exhibits = result.outputs["entities"], result.outputs["exhibits"]
    vega = next(e for e in entities.entities if e.name == "Marisol Vega")
    assert vega.entity_id in entities.mentions["exhibit_4_dock_log"]
    parts = [c for c in llm.calls if c.stage == "entities" and c.item.startswith("exhibit_4_dock_log")]
    assert len(parts) > 1 and parts[-1].item == f"exhibit_4_dock_log#c{len(parts)}"
    annotation = next(a for a in exhibits.exhibits if a.source_id == "exhibit_4_dock_log")
    assert annotation.parts > 1 and vega.entity_id in annotation.mentions
    last = [c for c in llm.calls if c.stage == "exhibits" and c.item == f"exhibit_4_dock_log#c{annotation.parts}"]
    assert last and "Marisol Vega" in last[0].prompt and last[0].schema["title"] == "ExhibitPartDraft"
    assert annotation.summary.startswith("Whole: part 1 | part 2")  # the reduce over every part's summary
    short = next(a for a in exhibits.exhibits if a.source_id == "exhibit_3_ortega_email")
    assert short.parts == 1 and short.summary == "part 1"
    for output in (entities, exhibits):
        read = next(r for r in output.reads if r.source_id == "exhibit_4_dock_log")
        assert read.chars_read == read.chars == len((tmp_path / "env" / "text" / "exhibit_4_dock_log.txt").read_text())


@pytest.mark.parametrize("cap", [None, 5_000])
def test_build_report_shows_characters_read_per_source(tmp_path: Path, cap: int | None, capsys: Any) -> None:
    from lexprobe.cli.investigation_build import _print

    record = write_record(tmp_path / "record")
    (record / "exhibit_4_dock_log.txt").write_text(LONG_EXHIBIT, encoding="utf-8")
    settings = SMALL.model_copy(update={"max_input_chars": cap})
    result = run_build(record, tmp_path / "env", settings, llm=FakeLLM(canned_answers()), log=quiet)
    rows = {r["filename"]: r for r in result.report.sources_read}
    dock = rows["exhibit_4_dock_log.txt"]
    for name in ("opinion.txt", "defendant_statement.txt", "plaintiff_response.txt", "defendant_brief.txt",
                 "exhibit_1_storage_agreement.txt"):  # fmt: skip
        assert rows[name]["share"] == 1.0 and rows[name]["chars_read"] == rows[name]["chars"] > 0
    assert {"souf", "entities"} <= set(rows["defendant_statement.txt"]["stages"])
    assert {"entities", "exhibits"} <= set(dock["stages"])
    if cap is None:
        assert dock["share"] == 1.0 and dock["chars_read"] == dock["chars"] > 20_000
    else:
        assert dock["chars_read"] == cap and dock["share"] == round(cap / dock["chars"], 4) < 1
    saved = json.loads((tmp_path / "env" / "build_report.json").read_text(encoding="utf-8"))
    assert saved["sources_read"] == result.report.sources_read
    capsys.readouterr()
    _print(result, as_json=False)
    printed = capsys.readouterr().out
    assert "exhibit_4_dock_log.txt" in printed and ("100.0" if cap is None else f"{100 * dock['share']:.1f}") in printed
    _print(result, as_json=True)
    payload = json.loads(capsys.readouterr().out)
    assert payload["report"]["sources_read"] == result.report.sources_read
