"""The fast paths of issue 17 give exactly what the slow ones gave.

- Court extraction: `courts._find` tries only the courts-db regexes that may span the text (screened by first
  character) instead of `courts_db.find_court`'s ~8,400; the reader's court finder
  (`reader.candidates.courts`) must name the same courts with `resolve_court` as with `resolve_court_reference` (the
  unscreened path) on every answer, realistic ones drawn as bench/scoring.py draws them and edge cases, and
  `courts._courts_db_find` must return the same ids as `courts_db.find_court`.
- Cache replay: `Request.response_key()` is memoized per model identity; the key is the same one as before.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import courts_db
import pytest

from lexprobe.caches import clear_all
from lexprobe.caselaw import courts
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.answers import answer_text
from lexprobe.hallucination.reader.candidates import courts as courts_named
from lexprobe.models.identity import model_identity
from lexprobe.models.types import Message, Request, ToolCall, ToolSpec

BENCH = Path(__file__).resolve().parents[1] / "bench"

EDGE_CASES = [
    "",
    "   ",
    "I'm not sure.",
    "A federal district court.",
    "A federal court of appeals.",
    "the district court",
    "The court of appeals affirmed.",
    "a state supreme court",
    "the state supreme court",
    "Supreme Court",
    "The Supreme Court.",
    "SCOTUS",
    "scotus decided it",
    "U.S. Sup. Ct.",
    "It was decided by the U.S. Supreme Court in 1954.",
    "The Supreme Court of California",
    "Supreme Court of Delaware",
    "The case was decided by the Supreme Court of Pennsylvania in 1921.",
    "Supreme Judicial Court of Massachusetts",
    "The Court of Appeals of New York",
    "New York Court of Appeals",
    "Court of Appeals of Texas",
    "Ninth Circuit",
    "the 9th Cir.",
    "It was decided by the 5th Cir",
    "CA9",
    "C.A.D.C.",
    "D.C. Circuit",
    "Federal Circuit",
    "The Eleventh Circuit reversed.",
    "the Twelfth Circuit",
    "the 14th Circuit",
    "Court of Appeals for the Ninth Circuit",
    "United States Court of Appeals for the District of Columbia Circuit",
    "N.D. Cal.",
    "S.D.N.Y.",
    "D. Md.",
    "E.D. Pa.",
    "It was decided in the N.D. Ill. in 1990.",
    "Northern District of California",
    "Eastern District of Pennsylvania and then affirmed",
    "U.S. District Court for the Northern District of California",
    "District Court, M.D. Pennsylvania",
    "United States District Court for the District of Kansas",
    "District of Michigan",
    "District of Wisconsin",
    "District of Mississippi",
    "the Southern District of California",
    "United States Circuit Court for the District of Western Kentucky",
    "The Tax Court",
    "United States Tax Court",
    "Court of Federal Claims",
    "the Court of Claims",
    "Bankruptcy Court for the Southern District of New York",
    "Commonwealth Court of Pennsylvania",
    "Superior Court of New Jersey, Appellate Division",
    "County Circuit Court",
    "Circuit Court of Cook County",
    "Cour d'appel du Québec",
    "Éire Supreme Court",
    "Supreme Court of The Commonwealth of The Northern Mariana Islands",
    "It was decided by the New York State Hospital Commission",
    "Brown v. Board of Education, 347 U.S. 483 (1954), was decided by the Supreme Court of the United States.",
    "Yes, Brown v. Board is a real case decided by the Warren Court.",
    "Court",
    "circuit",
    "district",
    "D.",
]


def bench_module(name: str) -> Any:
    """Import one of the bench scripts (bench/ is not a package)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def drawn_court_answers(case_db_path: Path) -> list[str]:
    """1,000 court answers drawn as bench/scoring.py draws them (real cases, real courts), each distinct one once."""
    db = CaseDatabase(case_db_path)
    try:
        answers = bench_module("scoring").make_answers(db, 1000, seed=17)["court"]
    finally:
        db.close()
    return list(dict.fromkeys(answer for answer, _ in answers))


def test_extract_court_equals_the_unscreened_reference_on_drawn_answers(drawn_court_answers: list[str]) -> None:
    clear_all()  # the screen and its compiled patterns start empty, as in a new process
    answers = drawn_court_answers + EDGE_CASES
    assert len(drawn_court_answers) > 500  # varied: most drawn answers are distinct
    fast = [[c.value for c in courts_named(answer_text(answer))] for answer in answers]
    reference = [
        [c.value for c in courts_named(answer_text(answer), courts.resolve_court_reference)] for answer in answers
    ]
    differing = [(a, f, r) for a, f, r in zip(answers, fast, reference, strict=True) if f != r]
    assert differing == []
    found = [court for named in fast for court in named]
    assert len(set(found)) > 20  # many courts, not just "scotus" and the circuits
    assert {"scotus", "ca9", "cadc"} <= set(found)


@pytest.mark.parametrize("answer", EDGE_CASES)
def test_resolve_court_equals_the_reference_on_edge_cases(answer: str) -> None:
    assert courts.resolve_court(answer) == courts.resolve_court_reference(answer)


def _court_strings(count: int, seed: int) -> list[str]:
    """Texts courts-db's regexes are written for: court names, citation strings, abbreviations, with and without a
    leading "The" and in other cases, sampled from every kind of court (bankruptcy courts too)."""
    rng = random.Random(seed)
    texts = []
    for court in rng.sample(courts_db.courts, count):
        for field in ("name", "citation_string", "name_abbreviation"):
            value = str(court.get(field) or "")
            if value:
                texts.append(rng.choice([value, value.upper(), value.lower(), f"The {value}", f"{value} in 1950"]))
    return texts


def test_screened_courts_db_find_equals_courts_db_find_court() -> None:
    texts = _court_strings(150, seed=17) + [text for text in EDGE_CASES if courts._squash(text)]
    for text in texts:
        assert sorted(courts._courts_db_find(text)) == sorted(courts_db.find_court(text, bankruptcy=False)), text


def test_screen_files_every_non_bankruptcy_regex() -> None:
    filed = {(pattern, court["id"]) for patterns in courts._screen().values() for pattern, court in patterns}
    expected = {
        (pattern.replace("\\\\", "\\"), court["id"])
        for court in courts_db.courts
        if court["type"] != "bankruptcy"
        for pattern in [*court["regex"], court["name"]]
    }
    assert filed == expected


# ------------------------------------------------------------------------------------------ response_key memo


def _digest_as_before(request: Request, model: str) -> str:
    """The response key as lexprobe has always computed it: SHA-256 of the sorted JSON of what decides the answer."""
    payload = {
        "model": model,
        "messages": [m.model_dump(mode="json") for m in request.messages],
        "tools": [t.model_dump(mode="json") for t in request.tools],
        "schema": request.schema_,
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "stop": list(request.stop),
        "seed": request.seed if request.sampled else None,
        "sample_index": request.sample_index if request.sampled else 0,
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def test_response_key_is_unchanged_and_computed_once(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text('{"text": "first"}\n', encoding="utf-8")
    request = Request.from_prompt(f"scripted:{script}", "Is Brown v. Board a real case?")
    key = request.response_key()
    assert key == _digest_as_before(request, model_identity(request.model))
    assert key != request.cache_key()  # named by the file's content, not by its path
    assert request.response_key() is key  # the same string object: memoized, not computed again

    # an edited script is another model: the same request object gets a new key, the old one is kept for the old file
    script.write_text('{"text": "second"}\n', encoding="utf-8")
    edited = request.response_key()
    assert edited != key
    assert edited == _digest_as_before(request, model_identity(request.model))
    assert request.response_key() is edited

    # copies: a plain copy has the same key, a changed copy its own
    assert request.model_copy().response_key() == edited
    changed = request.model_copy(update={"max_tokens": 9})
    assert changed.response_key() == _digest_as_before(changed, model_identity(changed.model)) != edited

    hosted = Request.from_prompt("openai/gpt-4o-mini", "Hi?")
    assert hosted.response_key() == hosted.cache_key() == _digest_as_before(hosted, "openai/gpt-4o-mini")


@pytest.mark.parametrize(
    "request_",
    [
        Request.from_prompt("local", "Was Brown v. Board decided in 1954?"),
        Request.from_prompt("openai/gpt-4o-mini", 'Quote: "model":"x","sample_index":3 \\ \u00e9\u00e8 \u6cd5 \x00'),
        Request.from_prompt(
            "anthropic/claude-x", "Sampled?", system="Be brief.", temperature=0.7, seed=3, sample_index=2
        ),
        Request(
            model="openai-compatible/m@http://127.0.0.1:1/v1",
            messages=(
                Message(role="user", content="Search."),
                Message(
                    role="assistant",
                    tool_calls=(ToolCall(id="c1", name="search", arguments={"model": "local", "sample_index": 1}),),
                ),
                Message(role="tool", content="found", tool_call_id="c1", name="search"),
            ),
            tools=(
                ToolSpec(name="search", parameters={"type": "object", "properties": {"model": {"type": "string"}}}),
            ),
            schema={"type": "object", "properties": {"model": {"type": "string"}}},
            stop=("\n\n",),
            temperature=None,
            max_tokens=None,
        ),
    ],
)
def test_cache_and_response_keys_are_the_same_as_before(request_: Request) -> None:
    assert request_.cache_key() == _digest_as_before(request_, request_.model)
    assert request_.response_key() == _digest_as_before(request_, model_identity(request_.model))
