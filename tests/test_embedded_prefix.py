"""The embedded model's KV-cache prefix reuse: answers identical to fresh calls, and the reuse actually happens.

Real components: the embedded SmolLM2 GGUF through llama.cpp, and real few-shot prompts rendered from the
hallucination templates for cases of the real case database (built once per session by `case_db_path`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.run.items import Item, plan_items
from lexprobe.hallucination.tasks import TASKS
from lexprobe.models.local import PREFILL_CHUNK, LlamaCppModel, reusable_prefix
from lexprobe.models.spec import parse_model_spec
from lexprobe.models.types import Request

pytest.importorskip("llama_cpp")

TASK_IDS = ("existence", "citation", "court")
MAX_TOKENS = 16  # enough for the answers to differ from one case to the next; keeps the test short


def few_shot_items(db_path: Path, cases: int = 3) -> dict[str, list[Item]]:
    """Return the few-shot Supreme Court items of `TASK_IDS` for `cases` sampled cases, per task."""
    database = CaseDatabase(db_path)
    try:
        plan = plan_items(database, [TASKS[t] for t in TASK_IDS], ["scotus"], ["few"], cases, 47)
    finally:
        database.close()
    by_task: dict[str, list[Item]] = {task: [] for task in TASK_IDS}
    for item in plan.items:
        by_task[item.task].append(item)
    assert all(len(items) >= 2 for items in by_task.values()), {t: len(i) for t, i in by_task.items()}
    return by_task


def request(item: Item, **params) -> Request:
    return Request.from_prompt("local", item.prompt, max_tokens=MAX_TOKENS, temperature=0.0, **params)


def interleaved_requests(by_task: dict[str, list[Item]]) -> list[tuple[str, Request]]:
    """Return labelled requests in an order where the shared prefix keeps changing: two cases of one task in a row
    (long shared prefix), a switch of task and an unrelated prompt (prefix shared only up to the end of the chat
    template's default system prompt), a prompt with its own system prompt (sharing nothing), the same prompt twice
    in a row, a sampled request repeated, and a return to an earlier task."""
    existence, citation, court = by_task["existence"], by_task["citation"], by_task["court"]
    unrelated = Request.from_prompt("local", "Name one famous court case.", max_tokens=MAX_TOKENS, temperature=0.0)
    own_system = Request.from_prompt(
        "local", "Name one famous court case.", system="Answer briefly.", max_tokens=MAX_TOKENS, temperature=0.0
    )
    sampled = Request.from_prompt("local", citation[0].prompt, max_tokens=MAX_TOKENS, temperature=1.0, seed=7)
    return [
        ("existence 0", request(existence[0])),
        ("existence 1", request(existence[1])),
        ("citation 0", request(citation[0])),
        ("citation 0 sampled", sampled),
        ("citation 0 sampled again", sampled),
        ("court 0", request(court[0])),
        ("court 1", request(court[1])),
        ("court 1 again", request(court[1])),
        ("unrelated", unrelated),
        ("own system prompt", own_system),
        ("existence 0 again", request(existence[0])),
        ("citation 1", request(citation[1])),
        ("existence 2", request(existence[-1])),
    ]


@pytest.fixture(scope="module")
def models() -> Iterator[tuple[LlamaCppModel, LlamaCppModel]]:
    """The embedded model twice: with prefix reuse (the default) and reset before every call (a fresh call)."""
    reusing = LlamaCppModel(parse_model_spec("local"))
    fresh = LlamaCppModel(parse_model_spec("local"), prefix_reuse=False)
    yield reusing, fresh
    asyncio.run(reusing.aclose())
    asyncio.run(fresh.aclose())


def test_reusable_prefix_ends_on_a_chunk_boundary_inside_the_trusted_prefix() -> None:
    """The kept prefix is shared, trusted (evaluated in whole chunks), a multiple of the chunk, and never the whole
    prompt."""
    chunk = 4
    cached = list(range(20))
    assert reusable_prefix(cached, 20, [*range(11), 99, 98], chunk) == 8  # shares 11: down to 8
    assert reusable_prefix(cached, 8, list(range(20)), chunk) == 8  # only 8 were evaluated in whole chunks
    assert reusable_prefix(cached, 20, list(range(12)), chunk) == 8  # the last prompt token is always evaluated
    assert reusable_prefix(cached, 20, list(range(13)), chunk) == 12
    assert reusable_prefix(cached, 20, [5, *range(1, 20)], chunk) == 0  # differs at the first token
    assert reusable_prefix(cached, 0, list(range(20)), chunk) == 0  # nothing cached
    assert reusable_prefix(cached, 20, [0, 1, 2], chunk) == 0  # shorter than one chunk


def test_prefix_reuse_answers_are_identical_to_fresh_calls(case_db_path: Path, models) -> None:
    """Over real few-shot prompts in an order where the shared prefix keeps changing, every answer (text, finish,
    token counts) with prefix reuse equals the answer of a call that starts from an empty cache; the reuse is used
    for the few-shot prompts that follow one of the same task, and never for a prompt sharing too little."""
    reusing, fresh = models
    labelled = interleaved_requests(few_shot_items(case_db_path))
    reused: dict[str, int] = {}
    for label, req in labelled:
        with_reuse = asyncio.run(reusing.generate(req))
        reused[label] = reusing.last_reused_prompt_tokens
        from_scratch = asyncio.run(fresh.generate(req))
        assert fresh.last_reused_prompt_tokens == 0
        assert (with_reuse.text, with_reuse.finish_reason, with_reuse.usage) == (
            from_scratch.text,
            from_scratch.finish_reason,
            from_scratch.usage,
        ), label
        assert reused[label] % PREFILL_CHUNK == 0 and reused[label] < with_reuse.usage.input_tokens, label
    for label in ("existence 1", "citation 0 sampled", "citation 0 sampled again", "court 1", "court 1 again"):
        assert reused[label] > 0, (label, reused)
    assert reused["existence 0"] == 0 and reused["own system prompt"] == 0, reused  # first call; nothing shared
    assert reused["unrelated"] < reused["court 1"] and reused["citation 0"] < reused["citation 0 sampled"], reused
    assert reused["court 1 again"] >= reused["court 1"]  # a repeated prompt keeps all but its last partial chunk
    assert reusing.reused_prompt_tokens == sum(reused.values()) > 0
    assert fresh.reused_prompt_tokens == 0 and fresh.prompt_tokens == reusing.prompt_tokens


def test_kv_cache_holds_exactly_the_evaluated_tokens_after_reuse(case_db_path: Path, models) -> None:
    """llama.cpp's memory removal works in this version: after a call that reused a prefix, the cache holds
    positions 0 to n_tokens - 1 and nothing past them, and removing a suffix leaves exactly the prefix."""
    import llama_cpp

    reusing, _ = models
    existence = few_shot_items(case_db_path)["existence"]
    asyncio.run(reusing.generate(request(existence[0])))
    asyncio.run(reusing.generate(request(existence[1])))
    assert reusing.last_reused_prompt_tokens > 0
    llm = reusing._llm
    memory = llama_cpp.llama_get_memory(llm.ctx)
    assert llama_cpp.llama_memory_seq_pos_min(memory, 0) == 0
    assert llama_cpp.llama_memory_seq_pos_max(memory, 0) == llm.n_tokens - 1
    keep = PREFILL_CHUNK
    assert llm._ctx.kv_cache_seq_rm(-1, keep, -1)
    assert llama_cpp.llama_memory_seq_pos_max(memory, 0) == keep - 1
    llm.reset()  # the cache no longer matches input_ids; the next call starts afresh
