"""One unit in full, read from the run's store (read-only): the prompt, the answer, the reference it was scored
against, its calibration samples with their agreement, for a reference-free pair both samples and the judge's
prompt and verdict, and for a label a `--reader` model gave, the reader's prompt and reply. Every text is cut at
`security.MAX_FIELD_CHARS` (`security.cut_text`), as every field of the viewer's JSON is."""

from __future__ import annotations

import json
from pathlib import Path

from lexprobe.engine.sqlite_util import DamagedRowError
from lexprobe.engine.store import RunStore
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER
from lexprobe.hallucination.tasks.item import item_id_of, item_of
from lexprobe.models.types import Request, Response
from lexprobe.view.security import cut_text


def _shown(request: Request, response: Response | None) -> dict:
    """Return a request as the detail view shows it: its id, prompt, answer (None while pending) and temperature."""
    prompt = "\n\n".join(f"{message.role}: {message.content or ''}" for message in request.messages)
    return {
        "request_id": request.request_id,
        "prompt": cut_text(prompt),
        "answer": cut_text(response.text) if response is not None else None,
        "temperature": request.temperature,
    }


def _stored(store: RunStore, request_id: str) -> dict | None:
    request = store.request(request_id)
    return _shown(request, store.response(request_id)) if request is not None else None


def _reader(store: RunStore, request_id: str, model: str) -> dict | None:
    """Return the newest reader request of the unit `request_id` by `model` (`<unit id>|reader|<key prefix>`: its
    prompt and reply), or None."""
    found = [pair for pair in store.requests_under(f"{request_id}|reader|") if pair[0].model == model]
    return _shown(*found[-1]) if found else None


def _score(store: RunStore, request_id: str, scorer: str) -> dict | None:
    found = store.score(request_id, scorer)
    return None if found is None else {"label": found[0], **found[1]}


def _reference(store: RunStore, request: Request) -> dict:
    """Return the reference of the unit's stored item (what a damaged item holds, cut, when it cannot be read)."""
    item_id = item_id_of(request)
    body = store.item(item_id)
    try:
        return item_of(store, {item_id: body} if body is not None else {}, request).reference.as_json()
    except DamagedRowError:
        return {"unreadable": str(body if body is not None else request.tags.get("reference"))[:200]}


def unit_detail(run_dir: Path, request_id: str) -> dict | None:
    """Return everything the detail view shows for the unit `request_id` of the run, or None when the store has no
    such request. Raises `StoreError` naming the file when the store cannot be read."""
    store = RunStore.open_read_only(run_dir)
    try:
        request = store.request(request_id)
        if request is None:
            return None
        detail = {
            **_shown(request, store.response(request_id)),
            "reference": json.dumps(_reference(store, request), indent=2, sort_keys=True, ensure_ascii=False),
            "score": _score(store, request_id, REFERENCE_SCORER),
            "confidence": _score(store, request_id, CONFIDENCE_SCORER),
            "samples": [],
            "partner": None,
            "judge": None,
            "reader": None,
        }
        reader = (detail["score"] or {}).get("reader")
        if isinstance(reader, str) and reader:  # the label is the reader's (`--reader`): its prompt and reply
            detail["reader"] = _reader(store, request_id, reader)
        if request.tags.get("role") == "sample0" and request.tags.get("pair"):
            pair = request.tags["pair"]
            detail["partner"] = _stored(store, f"{pair}#1")
            detail["judge"] = _stored(store, f"{pair}|judge")
        else:
            detail["samples"] = [
                {"request_id": sample.request_id, "answer": cut_text(answer.text) if answer is not None else None}
                for sample, answer in store.requests_under(f"{request_id}@")
            ]
        return detail
    finally:
        store.close()
