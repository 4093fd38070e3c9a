"""The stored item: what every request of one question shares (its task, level, prompt style, case, the case's
breakdown covariates and the reference answer), kept once per item in the run store's `items` table
(`RunStore.add_items`, `items`, `item`) under the item's id, never in the requests' tags. The reference is typed,
its task's model (`TaskSpec.reference_type`); its JSON is the model's fields without a task key, read on load with
the model of the item's task, so an older run's references load as they were written.

An item's requests are the greedy request (its id is the item's), its calibration samples (tag `of`: the item's id)
and, for a reference-free task, its two samples (tag `pair`: the item's id); the judge's and the model reader's
requests name it the same way (`item_id_of`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_serializer, model_validator

from lexprobe.engine.store import RunStore
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.base import TaskReference
from lexprobe.models.types import Request

__all__ = ["ItemRecord", "item_id_of", "item_of"]


class ItemRecord(BaseModel):
    """One item as the run store keeps it (JSON in `items.body`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    level: str
    prompt_style: str
    case_id: str = ""  # "" for an item about no case in the database (a fabricated one)
    covariates: dict[str, str] = {}  # year, circuit, prominence, court_id as text, empty values left out
    reference: TaskReference = TaskReference()

    @model_validator(mode="before")
    @classmethod
    def _typed_reference(cls, data: Any) -> Any:
        """Read a reference given as JSON with the model of the item's task (a task no longer known: no fields)."""
        if isinstance(data, Mapping) and isinstance(data.get("reference"), Mapping):
            task = TASKS.get(str(data.get("task")))
            reference = task.reference_of(data["reference"]) if task else TaskReference()
            data = {**data, "reference": reference}
        return data

    @field_serializer("reference")
    def _reference_json(self, reference: TaskReference) -> dict[str, Any]:
        return reference.as_json()

    @classmethod
    def from_legacy_tags(cls, store: RunStore, request: Request) -> ItemRecord:
        """Return the item of a request in a store written before the `items` table: every request carried its item
        in its tags (the reference as a JSON string); `damaged` naming the request's row when they cannot be read."""
        tags = dict(request.tags)
        fields = {key: tags.pop(key, "") for key in ("task", "level", "prompt_style", "case_id")}
        for engine_tag in ("role", "of", "pair"):
            tags.pop(engine_tag, None)
        reference = tags.pop("reference", "{}")
        try:
            return cls(**fields, covariates=tags, reference=json.loads(reference))
        except (ValueError, TypeError):  # not JSON, or not the JSON of the task's reference (ValidationError)
            why = f"tag 'reference' is not the JSON object of a {fields['task']} reference"
            raise store.damaged("requests", request.request_id, "body", why) from None


def item_id_of(request: Request) -> str:
    """Return the id of the item a request asks about: its `of` or `pair` tag, else its own id (a greedy request)."""
    return request.tags.get("of") or request.tags.get("pair") or request.request_id


def item_of(store: RunStore, items: Mapping[str, str], request: Request) -> ItemRecord:
    """Return the item of `request` from the `items` bodies of its store (`RunStore.items`), or from the request's
    own tags in a store written before items were stored. Raises `damaged` naming the row that cannot be read."""
    item_id = item_id_of(request)
    body = items.get(item_id)
    if body is None:
        return ItemRecord.from_legacy_tags(store, request)
    try:
        return ItemRecord.model_validate_json(body)
    except (ValidationError, ValueError) as exc:
        reason = str(exc).splitlines()[0][:120]
        raise store.damaged("items", item_id, "body", f"not a stored item ({reason})") from None
