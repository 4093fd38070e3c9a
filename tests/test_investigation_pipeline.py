"""The InvestigationWorlds construction pipeline (lexprobe.investigation.pipeline and `investigation build`).

Exact behaviour is driven by `FakeLLM`, a test double injected as the build's `llm`: it answers each stage's calls
with canned JSON per (stage, item) and records every call. The fictional record (a cold-storage contract dispute)
is written into tmp_path. Real-data tests read the Marshall v. Northrop RECAP filings; one CLI test runs the
embedded model end to end and checks the machinery, not the content.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import typer
from typer.testing import CliRunner

from lexprobe.caselaw.paths import data_root
from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.investigation_build import register
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.store import RunStore
from lexprobe.investigation.environment.format import Document, Role, load_environment
from lexprobe.investigation.environment.ladder import select as select_documents
from lexprobe.investigation.environment.validate import errors_in, validate_environment
from lexprobe.investigation.pipeline.context import (
    RENDERED_DIR,
    STAGES_DIR,
    Answer,
    BuildSettings,
    LLMCall,
    StageContext,
    StageError,
)
from lexprobe.investigation.pipeline.hypotheses import AlternativesDraft, PartyDagDraft, repair_dag, settle_alternatives
from lexprobe.investigation.pipeline.ingest import ClassificationDraft, DocCategory, classify_by_rules
from lexprobe.investigation.pipeline.opinion import OpinionDraft, find_quote, page_of, verify_opinion
from lexprobe.investigation.pipeline.registry import STAGE_ORDER, stages
from lexprobe.investigation.pipeline.runner import EngineTextSource, run_build

# --- the fictional record -------------------------------------------------------------------------------------

CAPTION = """UNITED STATES DISTRICT COURT
EASTERN DISTRICT OF WASHINGTON

BELLWETHER FARMS LLC,
Plaintiff,
v.
NORCROSS COLD STORAGE INC.,
Defendant.

Case No. 2:22-cv-00417
"""

OPINION = (
    CAPTION
    + """
MEMORANDUM OPINION AND ORDER GRANTING DEFENDANT'S MOTION FOR SUMMARY JUDGMENT

## Page 1
I. BACKGROUND
Bellwether Farms LLC grows apples near Chelan, Washington. Norcross Cold Storage Inc. operates a cold-storage
warehouse in Wenatchee. On August 20, 2021, the parties signed a storage agreement under which Norcross agreed
to hold Bellwether's fruit at 32 to 36 degrees Fahrenheit. (Ex. 1 at 3.)
On September 3, 2021, Bellwether delivered 1,200 bins of Honeycrisp apples to Norcross's Wenatchee facility.
(Ex. 2.) Norcross's temperature logs record that Room 4 stayed between 33 and 35 degrees Fahrenheit from
September 3 through October 29, 2021. (Ex. 2.)
## Page 2
On September 1, 2021, Bellwether's operations manager, Luis Ortega, wrote to the harvest crew that they were
"rushing the pick" because of an incoming storm. (Ex. 3.) When Bellwether withdrew the fruit on October 29,
2021, it found that roughly 40 percent of the apples showed bruising and de-
cay. (SUF 6.)
II. DISCUSSION
A. Temperature. Bellwether says Norcross let the room warm up. The only evidence of the room's temperature is
the daily log, and it shows no reading outside the contract range. No reasonable jury could find a breach.
B. Cause. The record points to damage at harvest: the crew was told to hurry before the storm.
III. CONCLUSION
Defendant's motion for summary judgment is GRANTED. IT IS SO ORDERED.
"""
)

RECORD = {
    "opinion.txt": OPINION,
    "defendant_statement.txt": CAPTION
    + """
DEFENDANT'S STATEMENT OF UNDISPUTED MATERIAL FACTS
Attorneys for Defendant
1. On August 20, 2021, the parties signed a storage agreement requiring 32 to 36 degrees Fahrenheit. (Ex. 1.)
2. Bellwether delivered 1,200 bins of Honeycrisp apples on September 3, 2021. (Ex. 2.)
3. Room 4 stayed between 33 and 35 degrees Fahrenheit throughout the storage period. (Ex. 2.)
4. On September 1, 2021, Luis Ortega told the harvest crew they were rushing the pick. (Ex. 3.)
5. On October 29, 2021, about 40 percent of the apples showed bruising and decay. (Ex. 2.)
""",
    "plaintiff_response.txt": CAPTION
    + """
PLAINTIFF'S RESPONSE TO DEFENDANT'S STATEMENT OF UNDISPUTED MATERIAL FACTS
Attorneys for Plaintiff
1. Undisputed. 2. Undisputed.
3. Disputed. The log is handwritten and was never checked against the sensor data.
4. Disputed. The email concerned a different orchard block. 5. Undisputed.
""",
    "defendant_brief.txt": CAPTION
    + """
MEMORANDUM IN SUPPORT OF DEFENDANT'S MOTION FOR SUMMARY JUDGMENT
Attorneys for Defendant
POINT I. Room 4 was kept within the contract range. POINT II. The fruit was bruised at harvest.
""",
    "plaintiff_brief.txt": CAPTION
    + """
PLAINTIFF'S MEMORANDUM IN OPPOSITION TO DEFENDANT'S MOTION FOR SUMMARY JUDGMENT
Attorneys for Plaintiff
POINT I. Norcross let Room 4 warm up. POINT II. The apples left the orchard sound.
""",
    "exhibit_1_storage_agreement.txt": """COLD STORAGE AGREEMENT
This agreement is made on August 20, 2021 between Bellwether Farms LLC and Norcross Cold Storage Inc.
Section 3. Temperature. Norcross shall hold the fruit at 32 to 36 degrees Fahrenheit.
Section 7. Liability. Norcross's liability is limited to the storage fees paid.
""",
    "exhibit_2_room4_log.txt": """EXHIBIT 2
NORCROSS COLD STORAGE - ROOM 4 DAILY LOG
2021-09-03  received 1,200 bins Honeycrisp (Bellwether)  34 F
2021-09-30  34 F
2021-10-29  released 1,200 bins to Bellwether  35 F
""",
    "exhibit_3_ortega_email.txt": """From: Luis Ortega
To: Harvest crew
Date: 2021-09-01
Subject: Storm coming

We are rushing the pick today. Get the Honeycrisp block in before the storm hits tonight.
Luis
""",
    "attachment_a.txt": """FAX TRANSMITTAL
To: Clerk's office    Pages: 3
Please find the enclosed papers for filing.
""",
}


def write_record(folder: Path, skip: tuple[str, ...] = ()) -> Path:
    """Write the fictional record into `folder` (leaving out `skip`) and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in RECORD.items():
        if name not in skip:
            (folder / name).write_text(text, encoding="utf-8")
    return folder


# --- canned model answers -------------------------------------------------------------------------------------

HIGHLIGHTS = {
    # curly quotes and a line break where the opinion has straight quotes and another break: still verbatim
    "op_AGREEMENT_RANGE": "the parties signed a storage agreement under which Norcross agreed\nto hold "
    "Bellwether\u2019s fruit at 32 to 36 degrees Fahrenheit",
    "op_DELIVERY": "Bellwether delivered 1,200 bins of Honeycrisp apples to Norcross's Wenatchee facility",
    "op_ROOM4_TEMPERATURES": "temperature logs record that Room 4 stayed between 33 and 35 degrees Fahrenheit",
    "op_RUSHED_PICK": "Luis Ortega, wrote to the harvest crew that they were \u201crushing the pick\u201d because of "
    "an incoming storm",
    "op_BRUISING": "it found that roughly 40 percent of the apples showed bruising and decay",  # "de-\ncay"
    "op_COMPRESSOR_FAILED": "Norcross admitted that a compressor in Room 4 failed for three days in October",
}


def opinion_answer(fabricated_only: bool = False) -> dict:
    ids = ["op_COMPRESSOR_FAILED"] if fabricated_only else list(HIGHLIGHTS)
    facts = [
        {"fact_id": i, "text": HIGHLIGHTS[i].replace("\n", " "), "cited_exhibit": "Ex. 2" if "ROOM4" in i else None,
         "highlight_text": HIGHLIGHTS[i], "opinion_page": None}
        for i in ids
    ]  # fmt: skip
    stubs = [
        {"id": "ROOM4_RANGE", "fact_ids": ["op_ROOM4_TEMPERATURES"], "question": "What temperatures did Room 4 hold?",
         "answer_sketch": "Between 33 and 35 degrees Fahrenheit."},
        {"id": "PICK_PACE", "fact_ids": ["op_RUSHED_PICK"], "question": "How was the harvest crew told to pick?",
         "answer_sketch": "They were rushing the pick before a storm."},
        {"id": "COMPRESSOR", "fact_ids": ["op_COMPRESSOR_FAILED"], "question": "Did a compressor fail?",
         "answer_sketch": "Yes, for three days."},
    ]  # fmt: skip
    branch = {"id": "arg_1a", "label": "the room log", "sources": [
        {"id": "src_ex2", "doc": "Ex. 2", "description": "Room 4 log", "question_stubs": stubs}]}  # fmt: skip
    return {
        "case": "Bellwether Farms LLC v. Norcross Cold Storage Inc.",
        "citation": "No. 2:22-cv-00417",
        "court": "E.D. Wash.",
        "story": "Bellwether Farms grows apples near Chelan. In September 2021 it stored 1,200 bins of Honeycrisp "
        "apples at Norcross Cold Storage in Wenatchee; the fruit came out bruised in late October.",
        "facts": facts,
        "arguments": [{"id": "arg_1", "label": "Did Norcross keep Room 4 in range?", "argument_type":
                       "factual_analysis", "branches": [branch], "note": ""}],
    }  # fmt: skip


SOUF = {
    "movant": "defendant",
    "facts": [
        {"number": "1", "text": "The storage agreement required 32 to 36 degrees Fahrenheit.", "status": "undisputed",
         "dispute_reason": "", "cited_exhibit": "Ex. 1"},
        {"number": "2", "text": "Bellwether delivered 1,200 bins on September 3, 2021.", "status": "undisputed",
         "dispute_reason": "", "cited_exhibit": "Ex. 2"},
        {"number": "3", "text": "Room 4 stayed between 33 and 35 degrees.", "status": "disputed",
         "dispute_reason": "The log was never checked against sensor data.", "cited_exhibit": "Ex. 2"},
        {"number": "4", "text": "Ortega told the crew they were rushing the pick.", "status": "disputed",
         "dispute_reason": "", "cited_exhibit": "Ex. 3"},
        {"number": "5", "text": "About 40 percent of the apples showed bruising on October 29, 2021.",
         "status": "undisputed", "dispute_reason": "", "cited_exhibit": "Ex. 2"},
    ],
}  # fmt: skip

GROUND = {
    "facts": [
        {"key": "AGREEMENT_RANGE", "text": "The storage agreement required storage at 32 to 36 degrees Fahrenheit.",
         "sources": ["op_AGREEMENT_RANGE", "souf:1"], "embedding": "direct"},
        {"key": "DELIVERY", "text": "Bellwether delivered 1,200 bins of Honeycrisp apples on September 3, 2021.",
         "sources": ["op_DELIVERY", "souf:2"], "embedding": "direct"},
        {"key": "ROOM4_IN_RANGE", "text": "Room 4 stayed between 33 and 35 degrees Fahrenheit until October 29, 2021.",
         "sources": ["op_ROOM4_TEMPERATURES", "souf:3"], "embedding": "pattern"},
        {"key": "RUSHED_PICK", "text": "Ortega told the harvest crew on September 1, 2021 to hurry the pick.",
         "sources": ["op_RUSHED_PICK", "souf:4"], "embedding": "direct"},
        {"key": "BRUISING", "text": "About 40 percent of the apples were bruised when withdrawn on October 29, 2021.",
         "sources": ["op_BRUISING", "souf:5", "op_NOT_A_FACT"], "embedding": "either"},
        {"key": "ORPHAN", "text": "A fact citing nothing real.", "sources": ["souf:99"], "embedding": "direct"},
    ]
}  # fmt: skip

BRIEF_FACTS = {"facts": [{"text": "Room 4 was kept within the contract range.", "citation": "Ex. 2", "page": None}]}

DAGS = {
    "plaintiff": {"claim": "Norcross let Room 4 warm up and the apples rotted in storage.", "sub_claims": [
        {"label": "The apples arrived sound.", "supporting_fact_ids": ["gf_DELIVERY", "gf_NO_SUCH_FACT"],
         "source_section": "POINT II"},
        {"label": "The fruit came out bruised.", "supporting_fact_ids": ["gf_BRUISING"], "source_section": "POINT I"},
    ]},
    "defendant": {"claim": "Room 4 stayed cold; the fruit was bruised at a rushed harvest.", "sub_claims": [
        {"label": "Room 4 held the contract range.", "supporting_fact_ids": ["gf_ROOM4_IN_RANGE",
         "gf_AGREEMENT_RANGE"], "source_section": "POINT I"},
        {"label": "The crew rushed the pick.", "supporting_fact_ids": ["gf_RUSHED_PICK"], "source_section": "POINT II"},
    ]},
}  # fmt: skip

RULING = {
    "movant": "defendant",
    "disposition": "granted",
    "dispositive_question": "Did the apples spoil because storage failed or because of harvest damage?",
    "adopted_party": "defendant",
    "sub_claim_rulings": [
        {"sub_claim_id": "hp_1", "ruling": "rejected", "rationale_quote": ""},
        {"sub_claim_id": "hp_2", "ruling": "rejected", "rationale_quote": "this sentence is not in the opinion at all"},
        {"sub_claim_id": "hd_1", "ruling": "accepted",
         "rationale_quote": "it shows no reading outside the contract range"},
        {"sub_claim_id": "hd_2", "ruling": "accepted", "rationale_quote": ""},
    ],
    "summary": "The court granted summary judgment to Norcross.",
}  # fmt: skip


def injected(text: str, doc_type: str = "email") -> dict:
    return {"text": text, "embedding": "direct", "doc_type_hint": doc_type, "entity_hint": "e_norcross"}


def alternatives_answer(refutable: bool = True) -> dict:
    first = {
        "claim": "A third-party trucker left the bins on an unrefrigerated dock for a day before delivery.",
        "sub_claims": ["The fruit waited on a hot dock."],
        "ground_fact_ids": ["gf_DELIVERY", "gf_BRUISING", "gf_AGREEMENT_RANGE"],
        "injected_supporting": [injected("Valley Haulers logged a 20-hour dock wait for the Bellwether bins.")],
        "injected_refuting": [injected("Valley Haulers' GPS shows the truck went straight from the orchard to "
                                       "Wenatchee in two hours.", "report")] if refutable else [],
        "ground_refuting_fact_ids": [],
        "why_plausible": "A dock delay would explain bruising.", "why_refuted": "The GPS trace shows no delay.",
    }  # fmt: skip
    second = {
        "claim": "A Norcross forklift driver dropped several bins during intake on September 3, 2021.",
        "sub_claims": ["Bins were dropped at intake."],
        "ground_fact_ids": ["gf_DELIVERY", "gf_BRUISING", "gf_ROOM4_IN_RANGE"],
        "injected_supporting": [injected("An intake note mentions two bins tipped by a forklift.", "note")],
        "injected_refuting": [],
        "ground_refuting_fact_ids": ["gf_RUSHED_PICK"],
        "why_plausible": "Dropped bins bruise fruit.", "why_refuted": "The bruising pattern matches the rushed pick.",
    }  # fmt: skip
    return {"alternatives": [first, second]}


ALL_TRUE = {"additive": True, "refutable": True, "factual": True, "distinct": True, "reasons": []}
ENTITIES = {
    "entities": [
        {"key": "BELLWETHER", "name": "Bellwether Farms LLC", "kind": "organization", "aliases": ["Bellwether"],
         "description": "The grower."},
        {"key": "NORCROSS", "name": "Norcross Cold Storage Inc.", "kind": "organization", "aliases": ["Norcross"],
         "description": "The warehouse."},
        {"key": "ORTEGA", "name": "Luis Ortega", "kind": "person", "aliases": [], "description": "The manager."},
    ]
}  # fmt: skip
MENTIONS = {"mentions": [{"name": "Bellwether", "kind": "organization", "context": "grower"},
                         {"name": "Norcross Cold Storage Inc.", "kind": "organization", "context": "warehouse"},
                         {"name": "Luis Ortega", "kind": "person", "context": "manager"},
                         {"name": "Room 4", "kind": "place", "context": "storage room"}]}  # fmt: skip
TARGETS = {"signal": "gf_ROOM4_IN_RANGE", "pro_alternative:alt_1": "inj_alt_1_s1", "refuting:alt_1": "inj_alt_1_r1",
           "pro_alternative:alt_2": "inj_alt_2_s1", "refuting:alt_2": "gf_RUSHED_PICK"}  # fmt: skip


def code_words(key: str, count: int, length: int = 6) -> str:
    """Return `count` pseudo-words, stable for `key` and different from key to key (distinct titles and texts)."""
    letters = "".join("abdefghijklmnopu"[int(c, 16)] for c in hashlib.shake_256(key.encode()).hexdigest(count * length))
    return " ".join(letters[n * length : (n + 1) * length] for n in range(count))


def doc_plan_answer(call: LLMCall) -> dict:
    count = call.schema["properties"]["specs"]["minItems"]
    spec = {"series": f"{call.item} series", "doc_type": "memo", "format": "pdf", "title": "Room note",
            "author_entity": "e_norcross", "date_from": "2021-09-01", "date_to": "2021-10-31",
            "target_fact": TARGETS.get(call.item.split("#")[0]), "brief": "A short internal note."}  # fmt: skip
    formats = ["pdf", "docx", "txt", "xlsx", "pptx"]
    titles = [f"Room note {code_words(f'{call.item}/{n}', 2)}" for n in range(count)]  # distinct: no title dedup
    return {"specs": [spec | {"format": formats[n % len(formats)], "title": titles[n]} for n in range(count)]}


SHARDS = {
    "synthesis_check": "Together the readings show Room 4 stayed in range.",
    "shards": [
        {"shard_text": "September readings of 34 F", "doc_type": "spreadsheet", "format": "xlsx",
         "author_entity": "e_norcross", "date": "2021-09-30", "instructions": "A monthly log."},
        {"shard_text": "An October maintenance visit found the compressor fine", "doc_type": "email", "format": "txt",
         "author_entity": "e_norcross", "date": "2021-10-10", "instructions": "A technician's email."},
        {"shard_text": "The release slip lists 35 F at pickup", "doc_type": "note", "format": "pdf",
         "author_entity": "e_norcross", "date": "2021-10-29", "instructions": "A release slip."},
    ],
}  # fmt: skip


def document_answer(call: LLMCall) -> dict:
    window_start = re.search(r"dated between (\S+) and", call.prompt)
    return {
        "doc_type": "memo",
        "title": f"Room 4 note {code_words(call.item.split('#')[0], 2)}",
        "date": window_start.group(1) if window_start else "2021-09-15",
        "author": "Norcross Cold Storage Inc.",
        "recipients": ["Warehouse staff"],
        "subject": "Room 4 routine",
        "body": [{"kind": "paragraph", "text": "Room 4 readings were taken at 6 a.m. and 6 p.m. and the doors were "
                  "checked. Nothing unusual was noted during the shift."},
                 {"kind": "paragraph", "text": f"Code words: {code_words(call.item.split('#')[0], 16)}."}],
    }  # fmt: skip


Canned = dict | str | Callable[[LLMCall], Any] | list


class FakeLLM:
    """Answers stage calls from a table keyed by (stage, item) or by stage; records every call.

    A value may be an answer, a list (one answer per attempt, the last one repeating) or a function of the call.
    An answer that is a dict is sent as JSON. A missing key fails the test loudly.
    """

    def __init__(self, table: dict[tuple[str, str] | str, Canned]) -> None:
        self.table = table
        self.calls: list[LLMCall] = []

    def complete(self, calls: list[LLMCall]) -> list[Answer]:
        answers = []
        for call in calls:
            self.calls.append(call)
            base_item = call.item.split("#")[0].split("@")[0]
            key: Any = next((k for k in ((call.stage, call.item), (call.stage, base_item), call.stage)
                             if k in self.table), None)  # fmt: skip
            assert key is not None, f"no canned answer for {call.stage}/{call.item}"
            value = self.table[key]
            if isinstance(value, list):
                value = value[min(call.attempt, len(value) - 1)]
            if callable(value):
                value = value(call)
            answers.append(Answer(value if isinstance(value, str) else json.dumps(value)))
        return answers

    def items(self, stage: str) -> list[str]:
        return [c.item for c in self.calls if c.stage == stage]


def judge_document(call: LLMCall) -> dict:
    return {"verdict": "accept", "reasons": []}


def canned_answers(**overrides: Canned) -> dict:
    table: dict = {
        ("ingest", "attachment_a"): {"category": "procedural", "doc_kind": "fax_cover", "reason": "A fax cover sheet."},
        "opinion": opinion_answer(),
        "souf": SOUF,
        ("ground_facts", "brief"): BRIEF_FACTS,  # the map over the briefs' parts: items "brief@<source id>"
        "ground_facts": GROUND,
        ("party_dags", "plaintiff"): DAGS["plaintiff"],
        ("party_dags", "defendant"): DAGS["defendant"],
        "ruling": RULING,
        ("entities", "merge"): ENTITIES,
        "entities": MENTIONS,
        "exhibits": {"doc_type": "other", "title": "Exhibit", "date": "2021-09-03", "author": "e_norcross",
                     "mentions": ["e_bellwether", "e_nobody"], "summary": "A record of the Bellwether fruit."},
        ("alternatives", "alternatives"): alternatives_answer(),
        "alternatives": ALL_TRUE,  # the judge's items are alt_1@<attempt> and alt_2@<attempt>
        "doc_plans": doc_plan_answer,
        "shard_plans": SHARDS,
        "generate": lambda call: judge_document(call) if call.role == "judge" else document_answer(call),
    }  # fmt: skip
    for key, value in overrides.items():
        table[tuple(key.split("/")) if "/" in key else key] = value
    return table


SMALL = BuildSettings(generator="fake", docs_per_role=1, chaff_docs=2, shard_facts=1, max_attempts=2, fictional=True)


def quiet(_: str) -> None:
    pass


# --- unit checks ----------------------------------------------------------------------------------------------


def test_find_quote_forgives_layout_not_words() -> None:
    source = 'He said "rushing the\npick" at the well-\nknown orchard.\n[PAGE 2]\nRoom 4 stayed at 34 degrees.'
    assert find_quote("He said \u201crushing the pick\u201d at the well-known orchard", source) is not None
    assert find_quote("He said \u201crushing the pick\u201d at the wellknown orchard", source) is not None
    assert find_quote("He said rushing the pick at the orchard", source) is None  # words missing
    assert find_quote("he said", source) is None  # too short to prove anything
    assert page_of("Room 4 stayed at 34", source) == 2


def test_verify_opinion_drops_fabricated_quotes_and_their_stubs() -> None:
    text = OPINION.replace("## Page 1", "[PAGE 1]").replace("## Page 2", "[PAGE 2]")
    result = verify_opinion(OpinionDraft.model_validate(opinion_answer()), text, "opinion")
    kept = {f.fact_id for f in result.facts}
    assert kept == set(HIGHLIGHTS) - {"op_COMPRESSOR_FAILED"}
    assert any(d.item == "op_COMPRESSOR_FAILED" and "not found verbatim" in d.reason for d in result.dropped)
    assert {s.id for s in result.stubs()} == {"ROOM4_RANGE", "PICK_PACE"}  # COMPRESSOR pointed only at the fake
    assert next(f for f in result.facts if f.fact_id == "op_RUSHED_PICK").opinion_page == 2
    assert next(f for f in result.facts if f.fact_id == "op_BRUISING").match == "compact"  # "de-\ncay"


def test_party_dag_unknown_ids_are_dropped_and_recorded() -> None:
    known = {"gf_DELIVERY", "gf_BRUISING"}
    hypothesis, dropped = repair_dag(PartyDagDraft.model_validate(DAGS["plaintiff"]), "plaintiff", known, [])
    assert hypothesis.supporting_facts == ["gf_DELIVERY", "gf_BRUISING"]
    assert [d.item for d in dropped] == ["hp_1:gf_NO_SUCH_FACT"]
    only_unknown = PartyDagDraft.model_validate(
        {"claim": "x", "sub_claims": [{"label": "y", "supporting_fact_ids": ["gf_X"], "source_section": ""}]}
    )
    hypothesis, dropped = repair_dag(only_unknown, "plaintiff", known, [])
    assert hypothesis.sub_claims == [] and "without any known fact" in dropped[-1].reason


def test_alternative_contracts_catch_unrefutable_and_thin_alternatives(tmp_path: Path) -> None:
    ctx = build_until(tmp_path, "ruling")
    table, dags = ctx.outputs["ground_facts"], ctx.outputs["party_dags"]
    _, problems = settle_alternatives(AlternativesDraft.model_validate(alternatives_answer()), table, dags)
    assert problems == []
    _, problems = settle_alternatives(AlternativesDraft.model_validate(alternatives_answer(refutable=False)), table,
                                      dags)  # fmt: skip
    assert problems == ["alt_1: no refuting fact (injected or table id)"]
    thin = alternatives_answer()
    thin["alternatives"][1]["ground_fact_ids"] = ["gf_DELIVERY", "gf_MADE_UP", "gf_DELIVERY"]
    thin["alternatives"][1]["injected_supporting"] = [injected(table.facts[0].text)]  # restates a table fact
    thin["alternatives"][1]["ground_refuting_fact_ids"] = ["gf_DELIVERY"]
    result, problems = settle_alternatives(AlternativesDraft.model_validate(thin), table, dags)
    assert any("reuses 1 known fact id" in p for p in problems)
    assert any("restates table fact gf_AGREEMENT_RANGE" in p for p in problems)
    assert any("both reused as support and refuters" in p for p in problems)
    assert any(d.item == "alt_2:gf_MADE_UP" for d in result.dropped)


def test_ablation_levels_select_cumulative_roles() -> None:
    docs = [Document(doc_id=f"d{i}", path=f"d{i}.txt", format="txt", doc_type="memo", role=role)
            for i, role in enumerate(["merits", "signal", "pro_alternative", "refuting", "noise",
                                      "chaff", "chaff", "chaff", "chaff"])]  # fmt: skip

    def roles(level: str) -> list[str]:
        return [d.role.value for d in select_documents(docs, level)]

    assert roles("merits") == ["merits"]
    assert roles("+pro_alternative") == ["merits", "pro_alternative"]
    assert roles("+noise") == ["merits", "signal", "pro_alternative", "refuting", "noise"]
    assert roles("+chaff50").count("chaff") == 2 and "noise" in roles("+chaff50")
    assert roles("+chaff100").count("chaff") == 4
    with pytest.raises(ValueError, match="unknown ablation level"):
        select_documents(docs, "+everything")


# --- stage behaviour with the fake model ----------------------------------------------------------------------


def build_until(tmp_path: Path, until: str, llm: FakeLLM | None = None, **settings: Any) -> StageContext:
    """Run the build up to `until` and return a context holding every output so far."""
    record = write_record(tmp_path / "record")
    llm = llm or FakeLLM(canned_answers())
    config = SMALL.model_copy(update=settings)
    result = run_build(record, tmp_path / "env", config, llm=llm, until=until, log=quiet)
    return StageContext(record_dir=record, out_dir=tmp_path / "env", settings=config, llm=llm, outputs=result.outputs)


def test_opinion_stage_retries_then_stops_naming_stage_item_and_output(tmp_path: Path) -> None:
    llm = FakeLLM(canned_answers(opinion=opinion_answer(fabricated_only=True)))
    with pytest.raises(StageError) as caught:
        build_until(tmp_path, "opinion", llm)
    message = str(caught.value)
    assert "stage 'opinion' failed on 'opinion'" in message and "after 2 attempt(s)" in message
    assert "highlight_text quotes occurs in the opinion" in message and "last output" in message
    attempts = [c for c in llm.calls if c.stage == "opinion"]
    assert [c.attempt for c in attempts] == [0, 1]
    assert "YOUR PREVIOUS ANSWER WAS REFUSED" in attempts[1].prompt
    assert (tmp_path / "env" / STAGES_DIR / "01_ingest.json").is_file()
    assert not (tmp_path / "env" / STAGES_DIR / "02_opinion.json").exists()


def test_invalid_json_is_retried_with_the_schema_in_every_call(tmp_path: Path) -> None:
    llm = FakeLLM(canned_answers(souf=["{not json", {"movant": "nobody"}, SOUF]))
    ctx = build_until(tmp_path, "souf", llm, max_attempts=3)
    assert len(ctx.outputs["souf"].facts) == 5
    souf_calls = [c for c in llm.calls if c.stage == "souf"]
    # one statement and one response, each read in one part: each item tried three times
    for item, title in (
        ("statement@defendant_statement", "StatementPartDraft"),
        ("response@plaintiff_response", "ResponsePartDraft"),
    ):
        calls = [c for c in souf_calls if c.item == item]
        assert [c.attempt for c in calls] == [0, 1, 2]
        assert "not JSON" in calls[1].prompt and "movant" in calls[2].prompt
        assert all(c.schema["title"] == title for c in calls)
    assert len(souf_calls) == 6
    assert ctx.outputs["souf"].facts[3].dispute_reason == "(the response gives no reason)"


def test_party_dags_reject_answers_without_known_ids_and_ruling_is_checked(tmp_path: Path) -> None:
    unknown_only = {"claim": "x", "sub_claims": [{"label": "y", "supporting_fact_ids": ["gf_X"], "source_section": ""}]}
    llm = FakeLLM(canned_answers(**{"party_dags/plaintiff": [unknown_only, DAGS["plaintiff"]]}))
    ctx = build_until(tmp_path, "ruling", llm)
    assert [c.attempt for c in llm.calls if c.stage == "party_dags" and c.item == "plaintiff"] == [0, 1]
    table, dags, ruling = ctx.outputs["ground_facts"], ctx.outputs["party_dags"], ctx.outputs["ruling"]
    assert "gf_ORPHAN" not in table.ids() and "gf_BRUISING" in table.ids()
    assert any(d.item == "gf_BRUISING.sources" for d in table.dropped)
    assert any(d.item == "hp_1:gf_NO_SUCH_FACT" for d in dags.dropped)
    assert ruling.adopted_hypothesis == "hd" and ruling.disposition == "granted"
    assert any(d.item == "hp_2.rationale_quote" for d in ruling.dropped)


def test_alternatives_judge_refusal_is_recorded_and_regenerated(tmp_path: Path) -> None:
    not_refutable = ALL_TRUE | {"refutable": False, "reasons": ["the GPS fact is missing"]}
    llm = FakeLLM(canned_answers(**{"alternatives/alt_1": lambda c: not_refutable if c.item.endswith("@0")
                                    else ALL_TRUE}))  # fmt: skip
    ctx = build_until(tmp_path, "alternatives", llm)
    result = ctx.outputs["alternatives"]
    assert [c.attempt for c in llm.calls if c.item == "alternatives"] == [0, 1]
    assert any("not refutable" in r.reason for r in result.refusals)
    assert {c.check for c in result.checks if c.by == "judge"} == {"additive", "refutable", "factual", "distinct"}
    assert all(c.passed for c in result.checks)


def test_generation_rejections_are_recorded_and_give_up_after_three_regenerations(tmp_path: Path) -> None:
    def judge(call: LLMCall) -> dict:
        if call.item.startswith("noise_001"):
            return {"verdict": "reject", "reasons": ["it discusses the storage temperature"]}
        if call.item == "chaff_001#1":
            return {"verdict": "reject", "reasons": ["too short for a memo"]}
        return {"verdict": "accept", "reasons": []}

    llm = FakeLLM(canned_answers(generate=lambda c: judge(c) if c.role == "judge" else document_answer(c)))
    ctx = build_until(tmp_path, "generate", llm, regenerations=3)
    result = ctx.outputs["generate"]
    noise = [r for r in result.rejections if r.spec_id == "noise_001"]
    assert [r.draft for r in noise] == [1, 2, 3, 4] and all(r.by == "judge" for r in noise)
    assert [f.spec_id for f in result.failed] == ["noise_001"]
    accepted = {d.spec_id: d for d in result.documents}
    assert "noise_001" not in accepted and accepted["chaff_001"].drafts == 2
    regenerated = [c for c in llm.calls if c.stage == "generate" and c.item == "chaff_001"]
    assert "too short for a memo" in regenerated[-1].prompt
    assert len(accepted) == 10  # 8 planned + 3 shards - 1 failed
    for doc in accepted.values():
        assert (ctx.out_dir / RENDERED_DIR / doc.path).is_file() and doc.path.startswith("doc_")


def test_full_build_writes_a_valid_environment(tmp_path: Path) -> None:
    llm = FakeLLM(canned_answers())
    record = write_record(tmp_path / "record")
    result = run_build(record, tmp_path / "env", SMALL, llm=llm, log=quiet)
    env_dir = tmp_path / "env"
    assert result.ran == list(STAGE_ORDER) and result.skipped == []
    assert sorted(p.name for p in (env_dir / STAGES_DIR).glob("*.json")) == [s.file_name for s in stages()]
    env, questions = load_environment(env_dir)
    problems = validate_environment(env_dir)
    assert errors_in(problems) == [], problems
    assert {h.kind.value: h.hypothesis_id for h in env.hypotheses if h.kind.value != "alternative"} == {
        "court_adopted": "hd", "court_rejected": "hp"}  # fmt: skip
    roles = {d.role.value for d in env.documents}
    assert roles == {"merits", "signal", "pro_alternative", "refuting", "noise", "chaff"}
    merits = [d for d in env.documents if d.role == Role.merits]
    assert len(merits) == 3 and all(d.path.startswith("doc_") for d in env.documents)
    assert next(d for d in merits if d.path.endswith(".txt") and "gf_ROOM4_IN_RANGE" in d.facts)  # Ex. 2 cites
    corpus_text = "\n".join(p.read_text(errors="ignore") for p in (env_dir / "corpus").glob("*.txt"))
    for revealing in ("MEMORANDUM OPINION", "STATEMENT OF UNDISPUTED", "IN OPPOSITION", "FAX TRANSMITTAL"):
        assert revealing not in corpus_text
    ingest = result.outputs["ingest"]
    by_file = {d.filename: d for d in ingest.documents}
    assert by_file["attachment_a.txt"].decided_by == "model" and by_file["attachment_a.txt"].category == "procedural"
    assert by_file["opinion.txt"].category == DocCategory.opinion and by_file["opinion.txt"].rule == "title:opinion"
    assert by_file["plaintiff_brief.txt"].party == "plaintiff"
    assert [q.question_id for q in questions.questions] == ["ROOM4_RANGE", "PICK_PACE"]
    assert questions.questions[0].facts == ["gf_ROOM4_IN_RANGE"]
    report = json.loads((env_dir / "build_report.json").read_text())
    assert report["documents_by_role"]["merits"] == 3 and report["validator"] is not None
    assert report["dropped_by_stage"]["opinion"] >= 1


def test_more_than_eight_documents_per_role_are_planned_in_batches(tmp_path: Path) -> None:
    """--docs-per-role above the plan schema's cap of 8 used to fail every signal, noise, pro-alternative and
    refuting plan (the schema asked for N, the parser capped at 8); every role is now planned in batches."""
    llm = FakeLLM(canned_answers())
    record = write_record(tmp_path / "record")
    settings = SMALL.model_copy(update={"docs_per_role": 11, "chaff_docs": 0})
    result = run_build(record, tmp_path / "env", settings, llm=llm, until="doc_plans", log=quiet)
    plan = result.outputs["doc_plans"]
    counts = Counter(spec.role.value for spec in plan.specs)
    assert counts == {"signal": 11, "noise": 11, "pro_alternative": 22, "refuting": 22}, counts
    assert plan.dropped == []
    assert all(":" in spec.series and "#" not in spec.series for spec in plan.specs)
    assert len({spec.spec_id for spec in plan.specs}) == len(plan.specs)


def test_resume_after_a_failed_stage_keeps_earlier_files(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    env_dir = tmp_path / "env"
    broken = FakeLLM(canned_answers(**{"alternatives/alternatives": alternatives_answer(refutable=False)}))
    with pytest.raises(StageError, match=r"stage 'alternatives' failed on 'alternatives'.*no refuting fact"):
        run_build(record, env_dir, SMALL, llm=broken, log=quiet)
    finished = sorted((env_dir / STAGES_DIR).glob("*.json"))
    assert [p.name for p in finished] == [s.file_name for s in stages()[:8]]
    stamps = {p.name: p.stat().st_mtime_ns for p in finished}
    fixed = FakeLLM(canned_answers())
    result = run_build(record, env_dir, SMALL, llm=fixed, log=quiet)
    assert result.skipped == list(STAGE_ORDER[:8]) and result.ran == list(STAGE_ORDER[8:])
    assert {p.name: p.stat().st_mtime_ns for p in finished} == stamps
    assert {c.stage for c in fixed.calls} == {"alternatives", "doc_plans", "shard_plans", "generate"}
    # a setting only the last stage reads reruns only that stage
    again = run_build(record, env_dir, SMALL.model_copy(update={"ablation": "merits"}), llm=fixed, log=quiet)
    assert again.ran == ["assemble"]
    env, _ = load_environment(env_dir)
    assert {d.role.value for d in env.documents} == {"merits"} and len(list((env_dir / "corpus").iterdir())) == 3
    # --stage NAME on an up-to-date build runs nothing before it
    assert run_build(record, env_dir, SMALL, llm=fixed, until="souf", log=quiet).ran == []


@pytest.mark.parametrize(
    ("missing", "stage", "what"),
    [
        ("opinion.txt", "opinion", "the record has no opinion deciding the motion"),
        ("plaintiff_response.txt", "souf", "the record has no response to the statement of facts"),
    ],
)
def test_record_without_a_ground_truth_document_stops_with_what_is_missing(
    tmp_path: Path, missing: str, stage: str, what: str
) -> None:
    record = write_record(tmp_path / "record", skip=(missing,))
    with pytest.raises(StageError) as caught:
        run_build(record, tmp_path / "env", SMALL, llm=FakeLLM(canned_answers()), log=quiet)
    assert caught.value.stage == stage and caught.value.item == "record"
    assert what in str(caught.value) and "will not invent" in str(caught.value)


def test_engine_source_runs_requests_with_schema_ids_retries_and_telemetry(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"text": "{not json"}) + "\n")
    settings = BuildSettings(generator=f"scripted:{script}", max_attempts=2)
    with pytest.raises(StageError, match="stage 'ingest' failed on 'attachment_a'"):
        run_build(record, tmp_path / "bad", settings, engine_config=EngineConfig(progress=False), log=quiet)
    store = RunStore.open(tmp_path / "bad" / "run")
    attempts = store.requests()
    assert [(r.tags["attempt"], r.temperature, r.sample_index) for r in attempts] == [("0", 0.0, 0), ("1", 0.7, 1)]
    assert all(re.fullmatch(r"ingest/attachment_a/generator/[01]/[0-9a-f]{12}", r.request_id) for r in attempts)
    assert attempts[0].schema_ == ClassificationDraft.model_json_schema()
    store.close()

    answer = {"category": "procedural", "doc_kind": "fax_cover", "reason": "A fax cover sheet."}
    script.write_text(json.dumps({"text": json.dumps(answer)}) + "\n")
    source = EngineTextSource(settings, tmp_path / "good" / "run", ResponseCache(tmp_path / "cache"),
                              EngineConfig(progress=False))  # fmt: skip
    try:
        result = run_build(record, tmp_path / "good", settings, llm=source, until="ingest", log=quiet)
        usage = source.usage()
    finally:
        source.close()
    assert result.outputs["ingest"].documents[0].filename == "attachment_a.txt"
    assert usage["total"]["requests"] == 1 and usage["stages"]["ingest"]["input_tokens"] > 0
    assert usage["telemetry_rows"] == 1 and usage["pending"] == 0
    again = run_build(record, tmp_path / "good", settings, until="ingest", cache=ResponseCache(tmp_path / "cache"),
                      engine_config=EngineConfig(progress=False), log=quiet)  # fmt: skip
    assert again.skipped == ["ingest"]


# --- the real Marshall v. Northrop filings --------------------------------------------------------------------

MARSHALL = data_root() / "sj_records" / "marshall_v_northrop"
RECAP = "gov.uscourts.cacd.657892."


@pytest.fixture(scope="module")
def marshall_ingest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, FakeLLM, Path]:
    if not MARSHALL.is_dir():
        pytest.skip(f"{MARSHALL} not available")
    llm = FakeLLM({})  # every Marshall file is decided by a rule: a model call would fail the test
    out = tmp_path_factory.mktemp("marshall")
    result = run_build(MARSHALL, out, BuildSettings(generator="fake"), llm=llm, until="ingest", log=quiet)
    return result.outputs["ingest"], llm, out


def test_marshall_filings_are_extracted_and_classified_by_rules(marshall_ingest: tuple[Any, FakeLLM, Path]) -> None:
    ingest, llm, _ = marshall_ingest
    docs = {d.filename.removeprefix(RECAP).removesuffix(".pdf"): d for d in ingest.documents}
    assert len(docs) == 28 and llm.calls == []
    assert all(d.error is None and d.chars > 0 and d.decided_by == "rule" and d.reason for d in docs.values())
    expected = {
        "168.0": ("procedural", "notice"),  # notice of motion for partial summary judgment
        "196.0": ("procedural", "evidentiary_objections"),
        "196.1": ("procedural", "evidentiary_objections"),
        "175.0_1": ("procedural", "sealing"),
        "182.0": ("procedural", "sealing"),  # order denying applications to seal
        "238.0": ("procedural", "sealing"),
        "168.5_1": ("procedural", "declaration_cover"),  # counsel's declaration with the exhibit index
        "174.3": ("procedural", "correspondence_between_counsel"),
        "168.1_2": ("brief", "brief"),
        "198.1": ("brief", "brief"),
        "168.2_1": ("sealed_placeholder", "sealed_placeholder"),
        "198.2": ("sealed_placeholder", "sealed_placeholder"),
        "198.4": ("sealed_placeholder", "sealed_placeholder"),
        "210.19": ("sealed_placeholder", "sealed_placeholder"),
        # the depositions in this record are of the plaintiffs' experts (Witz, Pomerantz), filed in the Daubert
        # dispute, and 202.4 is their revised reliance spreadsheets: recognized as exhibits, excluded as expert
        "167.3": ("expert_report", "deposition"),
        "167.4": ("expert_report", "deposition"),
        "202.2": ("expert_report", "deposition"),
        "202.4": ("expert_report", "exhibit"),
    }
    for name, (category, kind) in expected.items():
        assert (docs[name].category.value, docs[name].doc_kind) == (category, kind), (name, docs[name].reason)
    assert docs["168.2_1"].stands_for == "statement_of_facts"
    assert docs["198.2"].stands_for == "response_to_statement"
    assert docs["202.2"].rule == "family:expert_dispute" and "202" in docs["202.2"].reason
    assert docs["168.0"].party == "defendant" and docs["202.0"].party == "plaintiff"
    assert ingest.corpus_documents == []  # nothing revealing (nor any merits exhibit) reaches the corpus
    assert any("no readable opinion" in w for w in ingest.warnings)
    assert any("statement of facts (sealed placeholder" in w for w in ingest.warnings)


def test_marshall_build_stops_at_the_missing_opinion(marshall_ingest: tuple[Any, FakeLLM, Path]) -> None:
    _, _, out = marshall_ingest
    messages: list[str] = []
    with pytest.raises(StageError) as caught:
        run_build(MARSHALL, out, BuildSettings(generator="fake"), llm=FakeLLM({}), log=messages.append)
    assert caught.value.stage == "opinion" and "no opinion deciding the motion" in str(caught.value)
    assert "ingest: up to date, skipped" in messages[0]


def test_unreadable_file_gets_a_clear_per_file_error(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    (record / "broken_exhibit.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    ctx = build_until(tmp_path, "ingest")
    broken = next(d for d in ctx.outputs["ingest"].documents if d.filename == "broken_exhibit.pdf")
    assert broken.error and "broken_exhibit.pdf" in broken.error and broken.category is None and not broken.corpus
    assert any("could not be read" in w for w in ctx.outputs["ingest"].warnings)


def test_rules_table_on_short_texts() -> None:
    cases = [
        ("a.txt", CAPTION + "\n[PROPOSED] ORDER GRANTING SUMMARY JUDGMENT\n", "procedural"),
        ("b.txt", CAPTION + "\nCERTIFICATE OF SERVICE\n", "procedural"),
        ("c.txt", "EXHIBIT 111 (Filed Under Seal)", "sealed_placeholder"),
        ("d.txt", CAPTION + "\nEXPERT REPORT OF DR. JANE ROE\n", "expert_report"),
        ("e.txt", CAPTION + "\nDEPOSITION OF MARY SMITH\nQ. Where do you work?\nA. Norcross.\n", "exhibit"),
        ("f.txt", "From: Luis\nTo: Crew\nSubject: reply about the motion\n\nSee you at the orchard.", None),
        ("exhibit_9.txt", "From: Luis\nTo: Crew\nSubject: reply about the motion\n", "exhibit"),
    ]
    for name, text, category in cases:
        decision = classify_by_rules(name, text)
        assert (decision.category.value if decision else None) == category, (name, decision)


# --- the command line -----------------------------------------------------------------------------------------


def cli() -> typer.Typer:
    app = typer.Typer(cls=LexprobeGroup)
    register(app)

    @app.command("noop")
    def noop() -> None:  # a second command keeps `build` a sub-command, as under `lexprobe investigation`
        pass

    return app


def test_cli_rejects_bad_input_with_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    record = write_record(tmp_path / "record")
    missing = runner.invoke(cli(), ["build", str(tmp_path / "nope"), "--out", str(tmp_path / "env")])
    assert missing.exit_code == 2 and "record folder not found" in missing.output
    stage = runner.invoke(cli(), ["build", str(record), "--out", str(tmp_path / "env"), "--stage", "nope"])
    assert stage.exit_code == 2 and "unknown stage" in stage.output
    level = runner.invoke(cli(), ["build", str(record), "--out", str(tmp_path / "env"), "--ablation", "+all"])
    assert level.exit_code == 2 and "unknown ablation level" in level.output
    model = runner.invoke(cli(), ["build", str(record), "--out", str(tmp_path / "env"), "--generator", "nope/x"])
    assert model.exit_code == 2


@pytest.mark.slow
def test_cli_build_with_the_embedded_model_runs_the_machinery(tmp_path: Path) -> None:
    """The 135M model writes poor content: assert it completes or stops with a StageError naming stage and item,
    that every request asked for schema-constrained JSON, that answers which completed parse against their schema,
    that stage files and telemetry were written, and that a rerun skips the finished stages and sends nothing."""
    record = write_record(tmp_path / "record")
    env_dir = tmp_path / "env"
    args = ["build", str(record), "--out", str(env_dir), "--generator", "local", "--docs-per-role", "1",
            "--chaff", "1", "--shards", "0", "--regenerations", "0", "--max-attempts", "3", "--max-tokens", "160",
            "--max-input-chars", "1200"]  # fmt: skip
    runner = CliRunner()
    first = runner.invoke(cli(), args)
    assert first.exit_code in (0, 1), first.output
    failed = re.search(r"stage '(\w+)' failed on '([^']+)'", first.output)
    if first.exit_code == 1:
        assert failed and failed.group(1) in STAGE_ORDER, first.output
    else:
        load_environment(env_dir)  # the build got through assemble and the environment parses
    finished = sorted((env_dir / STAGES_DIR).glob("*.json"))
    store = sqlite3.connect(env_dir / "run" / "run.sqlite")
    requests = [json.loads(body) for (body,) in store.execute("SELECT body FROM requests")]
    responses = {rid: json.loads(body) for rid, body in store.execute("SELECT request_id, body FROM responses")}
    sent = store.execute("SELECT COUNT(*) FROM telemetry WHERE event = 'ok'").fetchone()[0]
    assert requests and sent == len(responses) >= 1
    valid = 0
    for request in requests:
        assert request["schema"] is not None and request["tags"]["stage"] in STAGE_ORDER
        try:
            jsonschema.validate(json.loads(responses[request["id"]]["text"], strict=False), request["schema"])
            valid += 1
        except (KeyError, ValueError, jsonschema.ValidationError):
            pass  # cut off at --max-tokens, or no answer
    if finished:  # ingest asked the model about attachment_a.txt and accepted a schema-valid answer
        assert finished[0].name == "01_ingest.json" and valid >= 1
    stamps = {p.name: p.stat().st_mtime_ns for p in finished}
    second = runner.invoke(cli(), args)
    assert second.exit_code == first.exit_code
    for path in finished:
        assert f"{path.stem.split('_', 1)[1]}: up to date, skipped" in second.output
    assert {p.name: p.stat().st_mtime_ns for p in finished} == stamps
    assert store.execute("SELECT COUNT(*) FROM telemetry WHERE event = 'ok'").fetchone()[0] == sent
