"""Issue 47, item 1: a hallucination item is stored once in the run store's `items` table; a run store written
before that (every request carrying its item in its tags, no `items` table) is still read the same."""

from __future__ import annotations

import json
from pathlib import Path

from lexprobe.engine.store import RunStore
from lexprobe.hallucination.profile.results import read_units
from lexprobe.hallucination.run.items import Item, store_items
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.author import AuthorReference
from lexprobe.hallucination.tasks.base import TaskReference
from lexprobe.hallucination.tasks.item import ItemRecord
from lexprobe.hallucination.tasks.quotation import OpinionReference
from lexprobe.models.types import Request, Response

ITEM = Item("author|scotus|zero|c1", "author", "scotus", "zero", "scotus:347_U.S._483", "Who wrote Brown?",
            TASKS["author"].reference_of({"author": "Earl Warren", "decided": "1954-05-17"}), 16, calibration_samples=1,
            covariates={"year": "1954"})  # fmt: skip


def _units(run_dir: Path) -> list:
    store = RunStore.open_read_only(run_dir)
    try:
        return read_units(store, "m")
    finally:
        store.close()


def test_an_item_is_stored_once_and_its_requests_carry_only_role_tags(tmp_path: Path) -> None:
    store = RunStore.open(tmp_path / "new")
    try:
        requests = ITEM.requests("scripted:x")
        assert [r.tags for r in requests] == [{}, {"role": "calibration", "of": ITEM.item_id}]
        store.add_requests(requests)
        assert store_items(store, [ITEM]) == 1 and store_items(store, [ITEM]) == 0
        store.record_response(ITEM.item_id, Response(text="Earl Warren"))
    finally:
        store.close()
    (unit,) = _units(tmp_path / "new")
    assert (unit.task, unit.case_id, unit.year, unit.answer) == ("author", "scotus:347_U.S._483", 1954, "Earl Warren")
    assert unit.reference == ITEM.reference


def test_a_store_written_before_items_reads_its_items_from_the_tags(tmp_path: Path) -> None:
    legacy = {"task": "author", "level": "scotus", "prompt_style": "zero", "case_id": "scotus:347_U.S._483",
              "year": "1954", "reference": json.dumps(ITEM.reference.as_json())}  # fmt: skip
    store = RunStore.open(tmp_path / "old")
    try:
        store.add_requests([Request.from_prompt("scripted:x", "Who wrote Brown?", id=ITEM.item_id, tags=legacy)])
        store.record_response(ITEM.item_id, Response(text="Earl Warren"))
        store.conn.execute("DROP TABLE items")
        store.conn.commit()
    finally:
        store.close()
    (unit,) = _units(tmp_path / "old")
    assert (unit.task, unit.level, unit.case_id, unit.year) == ("author", "scotus", "scotus:347_U.S._483", 1954)
    assert unit.reference == ITEM.reference


def test_a_stored_reference_is_read_with_its_tasks_model_and_written_back_as_it_was() -> None:
    body = ITEM.record().model_dump_json()
    assert json.loads(body)["reference"] == {"author": "Earl Warren", "decided": "1954-05-17"}  # no task key added
    item = ItemRecord.model_validate_json(body)
    assert isinstance(item.reference, AuthorReference) and item.reference.author == "Earl Warren"
    # an older run's reference: a key no field names is ignored, an id written as a number is read as text
    old = ItemRecord(task="quotation", level="scotus", prompt_style="zero", reference={"opinion_id": 7, "text": "x"})
    assert old.reference == OpinionReference(opinion_id="7") and old.reference.as_json() == {"opinion_id": "7"}
    assert TASKS["existence"].reference_of({}) == TaskReference()
