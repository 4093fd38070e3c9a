"""Issue 31, section 4: the run store at paper size. The fast paths give exactly what the straightforward ones gave.

- `read_units` (one streamed SQL pass over the unit rows) equals the object-based aggregation it replaced, computed
  here from `RunStore.requests()`, `responses()` and `scores()`, on a realistic store: a real plan (reference-based,
  calibrated and reference-free tasks on the offline case database), varied answers, pending requests, judge
  verdicts and the real scorers' scores; and the report rows and JSON built from both are equal.
- `RunStore.add_requests` (set-based) counts, orders and refuses exactly as before: duplicates inside one call,
  ids already stored, a changed request raising `RunConflictError` with nothing written.
- `estimate_run` without a cache computes no response key, and gives the same estimate as with an empty cache.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.estimate import estimate_run
from lexprobe.engine.store import RunConflictError, RunStore, TelemetryRow
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER
from lexprobe.hallucination.profile.results import SKIPPED_ROLES, Unit, _number, read_units
from lexprobe.hallucination.report.summary import pending_judge_requests, report_json, report_rows, score_run
from lexprobe.hallucination.run.items import ItemPlan, plan_items, store_items
from lexprobe.hallucination.run.runner import estimate_plan, judge_estimates
from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext
from lexprobe.hallucination.scorers.calibration import Confidence, confidence
from lexprobe.hallucination.scorers.judge import judge_request, pair_label, verdict_label
from lexprobe.hallucination.tasks import resolve_tasks
from lexprobe.hallucination.tasks.item import item_of
from lexprobe.models import identity
from lexprobe.models.types import Message, Request, Response, ToolCall, ToolSpec, Usage

TASKS = "existence,disposition,author,overruling_year,fake_existence,factual_background,false_dissent"
ANSWERS = ("Yes", "No", "Yes, it exists.", "Affirmed.", "Reversed", "I don't know.", "1990", "Justice Scalia",
           "The court held that the statute was constitutional.", "")  # fmt: skip


def reference_units(store: RunStore, model: str) -> list[Unit]:
    """The aggregation `read_units` replaced: every row loaded as objects, the skipped roles dropped after."""
    scores = store.scores()
    responses = store.responses()
    items = store.items()
    units = []
    for request in store.requests():
        if request.tags.get("role") in SKIPPED_ROLES:
            continue
        item = item_of(store, items, request)
        tags = {**item.covariates, "task": item.task, "level": item.level, "prompt_style": item.prompt_style,
                "case_id": item.case_id}  # fmt: skip
        label, detail = scores.get((request.request_id, REFERENCE_SCORER), (None, {}))
        confidence = scores.get((request.request_id, CONFIDENCE_SCORER))
        answer = responses.get(request.request_id)
        units.append(
            Unit(
                model=model, task=tags.get("task", ""), level=tags.get("level", ""),
                prompt_style=tags.get("prompt_style", ""), label=label, detail=str(detail.get("detail", "")),
                case_id=tags.get("case_id", ""), year=_number(tags.get("year"), int),
                circuit=tags.get("circuit") or None, prominence=_number(tags.get("prominence"), float),
                court_id=tags.get("court_id") or None, answer=answer.text if answer else "",
                reference=item.reference,
                confidence=confidence[1].get("confidence") if confidence and confidence[0] == "measured" else None,
            )
        )  # fmt: skip
    return units


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A scripted model's spec (its answers are written into the store directly; the file is for `check_model`)."""
    script = tmp_path_factory.mktemp("script") / "answers.jsonl"
    script.write_text('{"text": "Yes"}\n')
    return f"scripted:{script}"


@pytest.fixture(scope="module")
def plan(case_db_path: Path) -> ItemPlan:
    """A real plan: reference-based, calibrated (K = 3) and reference-free tasks at two levels, both styles."""
    return plan_items(CaseDatabase(case_db_path), resolve_tasks(TASKS), ["scotus", "coa"], ["zero", "few"], 6, 11, 3)


@pytest.fixture(scope="module")
def realistic_store(
    plan: ItemPlan, model: str, case_db_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str]:
    """A run store from a real plan: varied answers (1 in 9 requests left pending), judge verdicts, real scores."""
    db = CaseDatabase(case_db_path)
    requests = [request for item in plan.items for request in item.requests(model)]
    assert {r.tags.get("role", "") for r in requests} >= {"", "calibration", "sample0", "sample1"}
    run_dir = tmp_path_factory.mktemp("realistic") / "run"
    store = RunStore.open(run_dir)
    try:
        store.set_meta("model", model)
        assert store.add_requests(requests) == len(requests)
        store_items(store, plan.items)
        rng = random.Random(31)

        def answer(request: Request) -> tuple[str, Response, TelemetryRow]:
            response = Response(text=rng.choice(ANSWERS), usage=Usage(input_tokens=9, output_tokens=3))
            return request.request_id, response, TelemetryRow(request.request_id, model, 1, "ok", None, 0.1)

        store.record_responses([answer(r) for i, r in enumerate(requests) if i % 9 != 4])
        judges = pending_judge_requests(store, model)
        assert judges
        store.add_requests(judges)
        for i, judge in enumerate(judges):
            if i % 4:
                verdict = rng.choice(("Yes, they contradict each other.", "No.", "unclear"))
                store.record_response(judge.request_id, Response(text=verdict))
        score_run(store, ScoringContext(db))
    finally:
        store.close()
    return run_dir, model


def test_streamed_units_equal_the_object_based_aggregation(realistic_store: tuple[Path, str]) -> None:
    run_dir, model = realistic_store
    store = RunStore.open_read_only(run_dir)
    try:
        expected = reference_units(store, model)
        units = read_units(store, model)
    finally:
        store.close()
    assert units == expected
    labels = {unit.label for unit in units}
    assert {"correct", "hallucination", None} <= labels and len(labels) >= 4  # scored, unscored and pending units
    assert any(unit.confidence is not None for unit in units) and any(unit.reference_free for unit in units)
    assert json.dumps(report_json(model, report_rows(units))) == json.dumps(report_json(model, report_rows(expected)))


def test_a_unit_row_whose_tags_column_is_not_json_is_decided_by_its_body(
    realistic_store: tuple[Path, str], tmp_path: Path
) -> None:
    run_dir, model = realistic_store
    copy = tmp_path / "run"
    copy.mkdir()
    (copy / "run.sqlite").write_bytes((run_dir / "run.sqlite").read_bytes())
    with sqlite3.connect(copy / "run.sqlite") as conn:
        assert conn.execute("UPDATE requests SET tags = 'not json'").rowcount > 0
    conn.close()
    store = RunStore.open_read_only(copy)
    try:
        assert read_units(store, model) == reference_units(store, model)
    finally:
        store.close()


def request(rid: str, prompt: str = "q") -> Request:
    return Request.from_prompt("scripted:x.jsonl", prompt, id=rid, tags={"task": "t"})


def test_add_requests_counts_orders_and_refuses_as_before(tmp_path: Path) -> None:
    store = RunStore.open(tmp_path / "run")
    try:
        assert store.add_requests([request("a"), request("b"), request("a")]) == 2  # a repeat inside one call
        assert store.add_requests([request("b"), request("c"), request("d"), request("c")]) == 2
        assert store.add_requests([]) == 0
        rows = store.conn.execute("SELECT request_id, seq, tags FROM requests ORDER BY seq").fetchall()
        assert rows == [("a", 0, '{"task": "t"}'), ("b", 1, '{"task": "t"}'), ("c", 2, '{"task": "t"}'),
                        ("d", 3, '{"task": "t"}')]  # fmt: skip
        assert [r.request_id for r in store.requests()] == ["a", "b", "c", "d"]
        with pytest.raises(RunConflictError, match="'c' is already in"):
            store.add_requests([request("e"), request("c", "another question")])
        with pytest.raises(RunConflictError, match="'f' is already in"):  # two contents for one new id in one call
            store.add_requests([request("f"), request("f", "another question")])
        assert store.counts()["requests"] == 4  # a refused call writes nothing
    finally:
        store.close()


def test_estimate_without_a_cache_computes_no_response_key(tmp_path: Path) -> None:
    script = tmp_path / "x.jsonl"
    script.write_text('{"text": "Yes"}\n')
    requests = [Request.from_prompt(f"scripted:{script}", f"question {i}", id=f"q{i}") for i in range(50)]
    without = estimate_run(requests, None, None)
    assert not any("_response_digests" in r.__dict__ for r in requests)  # no key was computed (they are memoized)
    with_cache = estimate_run(requests, None, ResponseCache(tmp_path / "cache"))
    assert all("_response_digests" in r.__dict__ for r in requests)
    assert asdict(without) == asdict(with_cache) and without.requests == without.to_send == 50


def test_model_identity_is_resolved_once_per_spec_while_pinned(tmp_path: Path) -> None:
    script = tmp_path / "x.jsonl"
    script.write_text('{"text": "Yes"}\n')
    spec = f"scripted:{script}"
    before = identity.model_identity(spec)
    with identity.pinned_identities():
        assert identity.model_identity(spec) == before
        script.write_text('{"text": "No"}\n')  # inside the block the identity resolved first is kept
        assert identity.model_identity(spec) == before
    assert identity.model_identity(spec) != before  # outside it, the edited file is another identity


def plain_digest(request: Request, model: str) -> str:
    """The request key as it was computed before messages were encoded once each: one dump of the whole payload."""
    sampled = request.sampled
    payload = {
        "model": model, "messages": [m.model_dump(mode="json") for m in request.messages],
        "tools": [t.model_dump(mode="json") for t in request.tools], "schema": request.schema_,
        "temperature": request.temperature, "max_tokens": request.max_tokens, "stop": list(request.stop),
        "seed": request.seed if sampled else None, "sample_index": request.sample_index if sampled else 0,
    }  # fmt: skip
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def test_request_keys_are_byte_identical_to_one_dump_of_the_payload(realistic_store: tuple[Path, str]) -> None:
    call = ToolCall(id="c1", name="search", arguments={"q": "Marbury \u00e9 \u2014", "n": [1, 2.5, None]})
    varied = [
        Request.from_prompt("openai/gpt-4o", "Wer hat \u201eRoe\u201c entschieden? \U0001f600", system="Be brief."),
        Request.from_prompt("local", 'quote "x"\n\\y', temperature=None, max_tokens=None, seed=3, sample_index=2),
        Request.from_prompt("scripted:a.jsonl", "q", temperature=0.7, seed=9, stop=("\n", "END"),
                            schema={"type": "object", "properties": {"b": {"type": "integer"}}}),
        Request(model="anthropic/claude", temperature=0.0, seed=5, tools=(ToolSpec(name="search", description="d"),),
                messages=(Message(role="user", content="find"), Message(role="assistant", tool_calls=(call,)),
                          Message(role="tool", content="[]", tool_call_id="c1", name="search"))),
    ]  # fmt: skip
    store = RunStore.open_read_only(realistic_store[0])
    try:
        stored = store.requests()[:200]
    finally:
        store.close()
    for request in varied + stored:
        assert request.cache_key() == plain_digest(request, request.model)
        assert request.model_copy(update={"model": "other"}).cache_key() == plain_digest(request, "other")
    message = varied[0].messages[1]
    assert message.model_copy(update={"content": "x"}).canonical_json != message.canonical_json


def test_a_dry_run_that_builds_one_request_per_item_estimates_the_full_plan(
    plan: ItemPlan, model: str, realistic_store: tuple[Path, str], tmp_path: Path
) -> None:
    judges = judge_estimates(plan.items, "openai/gpt-4o")
    full = [request for item in plan.items for request in item.requests(model)] + judges
    assert [rid for item in plan.items for rid in item.request_ids()] == [r.request_id for r in full[: -len(judges)]]
    assert all(item.first_request(model) == item.requests(model)[0] for item in plan.items)
    store = RunStore.open_read_only(realistic_store[0])  # some requests done, some pending
    try:
        estimate = estimate_plan(plan.items, model, judges, store, None)
        assert asdict(estimate) == asdict(estimate_run(full, store, None))
        assert 0 < estimate.already_done < estimate.requests == len(full)
        empty = RunStore.in_memory()
        assert asdict(estimate_plan(plan.items, model, judges, empty, None)) == asdict(estimate_run(full, empty, None))
        cached = estimate_plan(plan.items, model, judges, store, ResponseCache(tmp_path / "cache"))
        assert asdict(cached) == asdict(estimate_run(full, store, ResponseCache(tmp_path / "cache")))
    finally:
        store.close()
    with pytest.raises(ValueError, match="alike"):
        estimate_run(full[:1], None, ResponseCache(tmp_path / "cache"), alike={full[0].request_id: ["x"]})


def reference_judges(store: RunStore, judge_model: str) -> list[Request]:
    """`pending_judge_requests` as it was: every request and response loaded as objects."""
    responses = store.responses()
    partners: dict[str, dict[str, Request]] = {}
    for request in store.requests():
        role = request.tags.get("role", "")
        if role.startswith("sample"):
            partners.setdefault(request.tags["pair"], {})[role] = request
    judges = []
    for pair, members in partners.items():
        first, second = members.get("sample0"), members.get("sample1")
        answer_1 = responses.get(first.request_id) if first else None
        answer_2 = responses.get(second.request_id) if second else None
        if answer_1 is None or answer_2 is None or pair_label(answer_1.text, answer_2.text) is not None:
            continue
        tags = {key: value for key, value in first.tags.items() if key not in ("role", "pair")}
        judges.append(judge_request(judge_model, pair, answer_1.text, answer_2.text, tags | {"pair": pair}))
    return judges


def reference_scores(store: RunStore, context: ScoringContext) -> dict[tuple[str, str], tuple[str, dict]]:
    """`score_run` as it was (every row loaded as objects), returning the scores it stored instead of storing them."""
    responses = store.responses()
    requests = store.requests()
    items = store.items()
    samples: dict[str, list[str]] = defaultdict(list)
    expected: dict[str, int] = defaultdict(int)
    for request in requests:
        if request.tags.get("role") == "calibration":
            expected[request.tags["of"]] += 1
            if request.request_id in responses:
                samples[request.tags["of"]].append(responses[request.request_id].text)
    stored: dict[tuple[str, str], tuple[str, dict]] = {}
    for request in requests:
        rid, role = request.request_id, request.tags.get("role", "")
        task, reference = item_of(store, items, request).task, item_of(store, items, request).reference
        if role == "sample0":
            pair = request.tags["pair"]
            answer_1, answer_2 = responses.get(rid), responses.get(f"{pair}#1")
            score = None if answer_1 is None or answer_2 is None else pair_label(answer_1.text, answer_2.text)
            verdict = responses.get(f"{pair}|judge")
            if answer_1 is not None and answer_2 is not None and score is None and verdict is not None:
                score = verdict_label(verdict.text)
        elif role or task not in SCORERS or rid not in responses:
            continue
        else:
            score = SCORERS[task](responses[rid].text, reference, context)
        if score is None:
            continue
        stored[(rid, REFERENCE_SCORER)] = (score.label, {"detail": score.detail})
        if expected.get(rid) and len(samples[rid]) == expected[rid]:
            result = confidence(task, responses[rid].text, score, samples[rid], reference, context)
            stored[(rid, CONFIDENCE_SCORER)] = (
                ("measured", {"confidence": result.value, "agree": result.agree, "k": result.k})
                if isinstance(result, Confidence)
                else ("unscored", {"detail": result.detail})
            )
    return stored


def test_streamed_scoring_and_judge_requests_equal_the_object_based_ones(
    realistic_store: tuple[Path, str], case_db_path: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "run"
    copy.mkdir()
    (copy / "run.sqlite").write_bytes((realistic_store[0] / "run.sqlite").read_bytes())
    store = RunStore.open(copy)
    try:
        assert pending_judge_requests(store, "judge/x") == reference_judges(store, "judge/x")
        context = ScoringContext(CaseDatabase(case_db_path))
        expected = reference_scores(store, ScoringContext(CaseDatabase(case_db_path)))
        store.conn.execute("DELETE FROM scores")
        scores = score_run(store, context)
        assert store.scores() == expected and len(expected) > len(scores) > 0
        assert {rid: (score.label, {"detail": score.detail}) for rid, score in scores.items()} == {
            rid: value for (rid, scorer), value in expected.items() if scorer == REFERENCE_SCORER
        }
    finally:
        store.close()
