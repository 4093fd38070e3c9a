"""Issue 14, whole records: chunked reading (reading.py), the opinion read in full, split rulings, non-SJ opinions.

The pipeline is driven by the FakeLLM of tests/test_investigation_pipeline.py; a long opinion is written as a text
file with "## Page N" headings (what lexprobe.documents writes for PDFs), so the chunks carry real page markers.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from pydantic import BaseModel
from test_investigation_pipeline import (
    CAPTION,
    DAGS,
    GROUND,
    OPINION,
    RULING,
    SMALL,
    FakeLLM,
    build_until,
    canned_answers,
    opinion_answer,
    quiet,
    write_record,
)

from lexprobe.investigation.pipeline.context import STAGES_DIR, TEXT_DIR, BuildSettings, LLMCall, StageError
from lexprobe.investigation.pipeline.hypotheses import PartyDags, RulingDraft, settle_ruling
from lexprobe.investigation.pipeline.opinion import OpinionDraft, merge_drafts
from lexprobe.investigation.pipeline.reading import (
    MIN_CHUNK_CHARS,
    SourceRead,
    cap,
    chunk_asks,
    chunk_chars,
    chunk_item,
    chunks,
    context_tokens,
    page_span,
    part_label,
    reading_report,
)
from lexprobe.investigation.pipeline.runner import run_build

# --- reading.py units -----------------------------------------------------------------------------------------


def paged_text(pages: int, line: str = "The witness described the warehouse routine in ordinary detail. ") -> str:
    """Return a text of `pages` pages with "[PAGE N]" markers, each page a few hundred characters."""
    return "".join(f"[PAGE {n}]\n{line * 6}\n\n" for n in range(1, pages + 1))


def test_chunks_cover_every_character_and_break_at_page_markers() -> None:
    text = paged_text(60)
    parts = chunks(text, 2_000, overlap=200)
    assert len(parts) > 1 and all(p.count == len(parts) for p in parts)
    assert [p.index for p in parts] == list(range(1, len(parts) + 1))
    assert parts[0].start == 0 and parts[-1].end == len(text)
    covered = [False] * len(text)
    for part in parts:
        assert part.text == text[part.start : part.end] and len(part.text) <= 2_000
        covered[part.start : part.end] = [True] * (part.end - part.start)
    assert all(covered)
    for before, after in itertools.pairwise(parts):
        assert after.start < before.end  # they overlap: a sentence cut at a border is whole in one of them
        assert text.startswith("[PAGE ", before.end)  # every cut before a page marker
    assert page_span(text, parts[0])[0] == 1 and page_span(text, parts[-1])[1] == 60
    assert "of 60 (part 1 of" in part_label(text, parts[0])


def test_chunks_fall_back_to_blank_lines_sentences_and_hard_cuts() -> None:
    prose = ("A sentence about storage. " * 40 + "\n\n") * 10
    parts = chunks(prose, 1_500, overlap=0)
    assert all(prose[p.end - 2 : p.end] == "\n\n" for p in parts[:-1])
    sentences = "A sentence about storage. " * 400
    parts = chunks(sentences, 1_500, overlap=0)
    assert all(p.text.endswith(". ") for p in parts[:-1])
    solid = "x" * 5_000
    parts = chunks(solid, 1_500, overlap=100)
    assert "".join(p.text[100 if p.index > 1 else 0 :] for p in parts) == solid
    assert chunks("short", 1_500) == [chunks("short", 1_500)[0]] and chunks("short", 1_500)[0].text == "short"
    assert len(chunks("", 1_500)) == 1


def test_chunk_item_keeps_the_first_chunk_resume_compatible() -> None:
    parts = chunks(paged_text(40), 2_000)
    assert chunk_item("opinion", parts[0]) == "opinion"
    assert chunk_item("opinion", parts[1]) == "opinion#c2"


@pytest.mark.parametrize(
    ("text", "label_one", "items", "labelled"),
    [
        ("short", False, ["opinion"], [False]),  # one chunk: the source's own item, no part label
        ("short", True, ["opinion"], [True]),  # one chunk, labelled anyway (statements of facts)
        (paged_text(40), False, ["opinion", "opinion#c2", "opinion#c3"], [True, True, True]),
    ],
)
def test_chunk_asks_sends_one_request_per_chunk(
    text: str, label_one: bool, items: list[str], labelled: list[bool]
) -> None:
    parts = chunks(text, 2_000)[:3]
    asks = chunk_asks("opinion", text, parts, lambda chunk, part: f"{part}|{chunk}", label_one=label_one)
    assert [a.item for a in asks] == items
    for ask, part, has_label in zip(asks, parts, labelled, strict=True):
        label = part_label(text, part) if has_label else ""
        assert ask.prompt == f"{label}|{part.text}"


def test_chunk_size_follows_the_models_context_and_the_cap_is_the_users() -> None:
    local = BuildSettings(generator="local")
    assert context_tokens(local) == 4096 and chunk_chars(local) == MIN_CHUNK_CHARS
    api = BuildSettings(generator="openai/gpt-4o-mini", max_tokens=2048)
    assert context_tokens(api) == 128_000
    assert chunk_chars(api) == (128_000 - 2048) * 3 - 6_000
    assert context_tokens(BuildSettings(generator="anthropic/claude-x")) == 128_000
    assert context_tokens(BuildSettings(generator="fake")) == 8_192
    assert context_tokens(BuildSettings(generator="openai/x", context_tokens=16_000)) == 16_000
    assert chunk_chars(BuildSettings(generator="fake", context_tokens=16_000, max_tokens=1000), 1_000) == 44_000
    text = "y" * 50_000
    assert cap(text, BuildSettings()) == text  # no cap by default: everything is read
    assert cap(text, BuildSettings(max_input_chars=1_000)) == "y" * 1_000


class _Reads(BaseModel):
    reads: list[SourceRead] = []


def test_reading_report_takes_the_most_any_stage_read() -> None:
    outputs: dict[str, BaseModel] = {
        "opinion": _Reads(reads=[SourceRead(source_id="op", filename="op.pdf", stage="opinion", chars=1000,
                                            chars_read=1000)]),
        "ruling": _Reads(reads=[SourceRead(source_id="op", filename="op.pdf", stage="ruling", chars=1000,
                                           chars_read=400)]),
        "souf": _Reads(reads=[SourceRead(source_id="st", filename="st.pdf", stage="souf", chars=800,
                                         chars_read=200)]),
    }  # fmt: skip
    rows = {r["filename"]: r for r in reading_report(outputs)}
    assert rows["op.pdf"]["chars_read"] == 1000 and rows["op.pdf"]["share"] == 1.0
    assert rows["op.pdf"]["stages"] == ["opinion", "ruling"]
    assert rows["st.pdf"]["share"] == 0.25


# --- a 320-page opinion and a long brief: every page reaches a model ------------------------------------------

PAGES = 320
PAGE_300 = "On October 12, 2021, a Norcross technician switched off the Room 4 door alarm for six hours."
LATE_GROUP = "Room 4 was left open to warm air in October."
EMPTY_OPINION_PART = {"case": "", "citation": "", "court": "", "story": "", "facts": [], "arguments": []}


def filler(n: int, what: str = "discussion") -> str:
    """Return one page of unremarkable text (about 1,100 characters)."""
    return f"Page {n} of the {what} reviews the testimony of the warehouse staff about routine matters. " * 12


def long_opinion() -> str:
    """Return OPINION stretched to PAGES pages: its pages 1-2, filler pages (PAGE_300 on page 300), its conclusion."""
    head, tail = OPINION.split("III. CONCLUSION")
    middle = "".join(f"\n## Page {n}\n{filler(n)}{PAGE_300 if n == 300 else ''}\n" for n in range(3, PAGES + 1))
    return f"{head}{middle}III. CONCLUSION{tail}"


def long_brief() -> str:
    """Return the plaintiff's brief, 120 pages long, whose last page argues a point no earlier page makes."""
    head = "PLAINTIFF'S MEMORANDUM IN OPPOSITION TO DEFENDANT'S MOTION FOR SUMMARY JUDGMENT\nAttorneys for Plaintiff\n"
    pages = "".join(f"\n## Page {n}\n{filler(n, 'argument')}\n" for n in range(1, 120))
    return f"{CAPTION}{head}{pages}\n## Page 120\nPOINT III. {LATE_GROUP}\n"


def opinion_by_part(call: LLMCall) -> dict:
    """Answer each opinion part from its own text: the canned facts for part 1, the page-300 fact where it is."""
    if "[PAGE 1]\n" in call.prompt:
        return opinion_answer()
    if PAGE_300 in call.prompt:
        fact = {"fact_id": "op_DOOR_ALARM_OFF", "text": PAGE_300, "cited_exhibit": None, "highlight_text": PAGE_300,
                "opinion_page": None}  # fmt: skip
        return EMPTY_OPINION_PART | {"facts": [fact]}
    return EMPTY_OPINION_PART


def ground_with_page_300(call: LLMCall) -> dict:
    """The table answer: the canned facts, plus the page-300 fact when the prompt lists it."""
    extra = [{"key": "DOOR_ALARM_OFF", "text": PAGE_300, "sources": ["op_DOOR_ALARM_OFF"], "embedding": "direct"}]
    return {"facts": GROUND["facts"] + (extra if "op_DOOR_ALARM_OFF" in call.prompt else [])}


def plaintiff_dag_by_part(call: LLMCall) -> dict:
    """Part 1 gives the canned groups; the part holding the last page adds a group and repeats one (case changed)."""
    if LATE_GROUP in call.prompt:
        return {"claim": "", "sub_claims": [
            {"label": LATE_GROUP, "supporting_fact_ids": ["gf_DOOR_ALARM_OFF"], "source_section": "POINT III"},
            {"label": "the apples  ARRIVED sound.", "supporting_fact_ids": ["gf_AGREEMENT_RANGE"],
             "source_section": ""}]}  # fmt: skip
    return DAGS["plaintiff"]


def ruling_by_part(call: LLMCall) -> dict:
    """Part 1 rejects hd_1 (quoting page 1); the part with the conclusion accepts it and states the disposition."""
    if "[PAGE 1]\n" in call.prompt:
        quote = "temperature logs record that Room 4 stayed between 33 and 35 degrees Fahrenheit"
        return {"movant": "defendant", "sub_claim_rulings": [
            {"sub_claim_id": "hd_1", "ruling": "rejected", "rationale_quote": quote}]}  # fmt: skip
    if "III. CONCLUSION" in call.prompt:
        return RULING
    return {}


def long_record(tmp_path: Path) -> Path:
    record = write_record(tmp_path / "record", skip=("opinion.txt", "plaintiff_brief.txt"))
    (record / "opinion.txt").write_text(long_opinion(), encoding="utf-8")
    (record / "plaintiff_brief.txt").write_text(long_brief(), encoding="utf-8")
    return record


def long_llm() -> FakeLLM:
    return FakeLLM(
        canned_answers(
            opinion=opinion_by_part,
            ground_facts=ground_with_page_300,
            ruling=ruling_by_part,
            **{"party_dags/plaintiff": plaintiff_dag_by_part},
        )
    )


def test_a_fact_only_on_page_300_reaches_the_opinion_facts_and_the_ground_truth(tmp_path: Path) -> None:
    record, llm = long_record(tmp_path), long_llm()
    settings = SMALL.model_copy(update={"context_tokens": 16_000})
    result = run_build(record, tmp_path / "env", settings, llm=llm, until="ruling", log=quiet)
    opinion = result.outputs["opinion"]
    items = llm.items("opinion")
    assert opinion.chunks == len(items) > 5 and items[:2] == ["opinion", "opinion#c2"]
    assert any("of 320 (part 2 of" in c.prompt for c in llm.calls if c.stage == "opinion")
    door = next(f for f in opinion.facts if f.fact_id == "op_DOOR_ALARM_OFF")
    assert door.opinion_page == 300 and door.match == "exact"
    assert {"op_RUSHED_PICK", "op_BRUISING"} <= {f.fact_id for f in opinion.facts}  # part 1's facts kept too
    table = result.outputs["ground_facts"]
    assert any("op_DOOR_ALARM_OFF" in f.sources for f in table.facts)
    # every page was read, and the build's reading report says so
    (read,) = opinion.reads
    assert read.chars_read == read.chars == len((tmp_path / "env" / TEXT_DIR / "opinion.txt").read_text("utf-8"))
    rows = {r["filename"]: r for r in reading_report(result.outputs)}
    assert rows["opinion.txt"]["share"] == 1.0 and {"opinion", "ruling"} <= set(rows["opinion.txt"]["stages"])
    assert rows["plaintiff_brief.txt"]["share"] == 1.0 and "party_dags" in rows["plaintiff_brief.txt"]["stages"]
    # party_dags: the long brief in parts, merged by label; the opinion as verified facts and arguments, not text
    dags: PartyDags = result.outputs["party_dags"]
    assert llm.items("party_dags").count("plaintiff") == 1 and "plaintiff#c2" in llm.items("party_dags")
    labels = [s.label for s in dags.plaintiff.sub_claims]
    assert labels.count("The apples arrived sound.") == 1 and LATE_GROUP in labels
    merged = next(s for s in dags.plaintiff.sub_claims if s.label == "The apples arrived sound.")
    assert merged.supporting_facts == ["gf_DELIVERY", "gf_AGREEMENT_RANGE"]
    dag_prompts = [c.prompt for c in llm.calls if c.stage == "party_dags"]
    assert all("No reasonable jury could find a breach" not in p for p in dag_prompts)
    assert all(PAGE_300 in p and "Did Norcross keep Room 4 in range?" in p for p in dag_prompts)
    # ruling: one request per part; the verified ruling nearer the end wins and the conflict is recorded
    ruling = result.outputs["ruling"]
    assert ruling.chunks == len(llm.items("ruling")) > 5  # its prompt is longer: its own chunk size
    assert next(r for r in ruling.sub_claim_rulings if r.sub_claim_id == "hd_1").ruling == "accepted"
    assert any(d.item == "hd_1.ruling" and "nearer the end" in d.reason for d in ruling.dropped)
    assert ruling.disposition == "granted" and ruling.adopted_hypothesis == "hd"


def test_a_user_cap_reads_less_and_the_report_says_so(tmp_path: Path) -> None:
    record, llm = long_record(tmp_path), long_llm()
    settings = SMALL.model_copy(update={"context_tokens": 16_000, "max_input_chars": 60_000})
    result = run_build(record, tmp_path / "env", settings, llm=llm, until="opinion", log=quiet)
    opinion = result.outputs["opinion"]
    assert "op_DOOR_ALARM_OFF" not in {f.fact_id for f in opinion.facts}  # page 300 is past the cap
    assert opinion.reads[0].chars_read == 60_000 < opinion.reads[0].chars
    rows = {r["filename"]: r for r in reading_report(result.outputs)}
    assert 0 < rows["opinion.txt"]["share"] < 0.25


def test_merged_opinion_parts_drop_repeated_highlights_and_merge_arguments_by_label() -> None:
    first = OpinionDraft.model_validate(opinion_answer())
    second = OpinionDraft.model_validate(opinion_answer())
    second.arguments[0].label = "  did NORCROSS keep room 4 in range? "
    second.arguments[0].branches[0].label = "A second line"
    second.case = ""
    merged, dropped = merge_drafts([first, second])
    assert len(merged.facts) == len(first.facts)  # the overlap repeats every highlight
    assert len(dropped) == len(first.facts) and all("repeats the highlight" in d.reason for d in dropped)
    assert len(merged.arguments) == 1 and [b.label for b in merged.arguments[0].branches] == [
        "the room log",
        "A second line",
    ]
    assert merged.case == first.case


# --- ground truth you can trust: split rulings, non-SJ opinions -------------------------------------------------

SPLIT_RULING = RULING | {
    "disposition": "granted_in_part",
    "adopted_party": "defendant",  # the model picks a winner; code records the split
    "sub_claim_rulings": [
        {"sub_claim_id": "hp_1", "ruling": "accepted", "rationale_quote": ""},
        {"sub_claim_id": "hp_2", "ruling": "rejected", "rationale_quote": ""},
        {"sub_claim_id": "hd_1", "ruling": "accepted",
         "rationale_quote": "it shows no reading outside the contract range"},
        {"sub_claim_id": "hd_2", "ruling": "rejected", "rationale_quote": ""},
    ],
}  # fmt: skip


def test_a_split_ruling_is_saved_as_split_and_stops_the_build_at_alternatives(tmp_path: Path) -> None:
    llm = FakeLLM(canned_answers(ruling=SPLIT_RULING))
    with pytest.raises(StageError) as caught:
        build_until(tmp_path, "alternatives", llm)
    error = caught.value
    assert error.stage == "alternatives"
    assert "the court's ruling is split: sub-claims hp_1, hd_1 accepted for both parties" in str(error)
    assert "an investigation environment needs one court-adopted account" in str(error)
    stages = tmp_path / "env" / STAGES_DIR
    saved = json.loads((stages / "06_ruling.json").read_text(encoding="utf-8"))
    ruling = saved.get("output", saved)
    assert ruling["adopted_party"] == "split" and ruling["adopted_hypothesis"] == ruling["rejected_hypothesis"] == ""
    assert [r["ruling"] for r in ruling["sub_claim_rulings"]] == ["accepted", "rejected", "accepted", "rejected"]
    assert (stages / "07_entities.json").is_file()  # entities needs no court-adopted account
    assert not (stages / "09_alternatives.json").exists()
    assert llm.items("alternatives") == []  # stopped before any request


def test_split_is_refused_when_only_one_party_won(tmp_path: Path) -> None:
    ctx = build_until(tmp_path, "party_dags")
    text = OPINION.replace("## Page ", "[PAGE ")
    one_sided = RulingDraft.model_validate(RULING | {"adopted_party": "split"})
    _, problems = settle_ruling(one_sided, ctx.outputs["party_dags"], text)
    assert problems and "only defendant has accepted sub-claims" in problems[0]
    with pytest.raises(ValueError, match="no party hypothesis"):
        ctx.outputs["party_dags"].of("split")  # planning never gets a winner by default


BARE_ORDER = (
    CAPTION
    + """
ORDER ON DEFENDANT'S MOTION FOR SUMMARY JUDGMENT

Upon consideration of Defendant's Motion for Summary Judgment (ECF No. 40), the response and the reply, the
motion is GRANTED. The Clerk shall close the case. IT IS SO ORDERED.
"""
)


def write_opinion(tmp_path: Path, text: str) -> Path:
    record = write_record(tmp_path / "record", skip=("opinion.txt",))
    (record / "opinion.txt").write_text(text, encoding="utf-8")
    return record


def test_a_bare_order_stops_the_build_at_opinion_without_retrying(tmp_path: Path) -> None:
    record = write_opinion(tmp_path, BARE_ORDER)
    llm = FakeLLM(canned_answers(opinion=EMPTY_OPINION_PART | {"ruling_kind": "bare_order"}))
    with pytest.raises(StageError) as caught:
        run_build(record, tmp_path / "env", SMALL, llm=llm, until="ruling", log=quiet)
    error = caught.value
    assert (error.stage, error.item) == ("opinion", "opinion.txt")
    assert "opinion.txt is not a ruling on summary judgment" in str(error) and "bare order" in str(error)
    assert "add the opinion that decides the motion" in str(error)
    assert [c.attempt for c in llm.calls if c.stage == "opinion"] == [0]  # not a model error: asked once


def test_an_opinion_without_facts_or_without_summary_judgment_stops_at_opinion(tmp_path: Path) -> None:
    record = write_opinion(tmp_path, BARE_ORDER)
    llm = FakeLLM(canned_answers(opinion=EMPTY_OPINION_PART))  # says "summary_judgment_opinion" but finds nothing
    with pytest.raises(StageError, match="no fact the court relies on"):
        run_build(record, tmp_path / "env", SMALL, llm=llm, until="opinion", log=quiet)
    other = write_opinion(
        tmp_path / "b",
        BARE_ORDER.replace("Motion for Summary Judgment", "Motion to Dismiss").replace(
            "ORDER ON DEFENDANT'S MOTION FOR SUMMARY JUDGMENT", "MEMORANDUM OPINION AND ORDER"
        ),
    )
    llm = FakeLLM(canned_answers())
    with pytest.raises(StageError, match="never mentions summary judgment"):
        run_build(other, tmp_path / "b" / "env", SMALL, llm=llm, until="opinion", log=quiet)
    assert llm.items("opinion") == []
