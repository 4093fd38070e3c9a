"""What a resumed hallucination run hands the engine: the requests of the items not yet answered in full.

A paper-size plan is ~45,000 items and ~450,000 requests. Rebuilding every request on a rerun (and hashing each
to compare it with the stored one) costs far more than the rerun's real work when nearly everything is answered.
An item's requests are a function of the item (its id, prompt, tags, max_tokens) and of code constants (the
calibration and pair samples' temperature, seeds and tags), so for an item whose every request is answered it is
enough to check its first request's cache key against the store (the key pins what the store's own check
compares, `RunStore.add_requests`: the model, the prompt, max_tokens and the sampling parameters), provided one item
of each shape (task, level, style, samples) is checked in full, request by request (it pins the constants). Those
items are then counted as done, not built. Every other item (one with a request unanswered, or the first of its
shape) goes to the engine in full, whose `add_requests` compares each of its requests with the store as before.
(Tags are in no key: the run's settings, checked by `check_settings` before, decide them.)
"""

from __future__ import annotations

from lexprobe.engine.store import RunStore
from lexprobe.hallucination.run.items import Item
from lexprobe.models.types import Request


def requests_to_run(store: RunStore, items: list[Item], model: str) -> tuple[list[Request], int]:
    """Return (the requests to pass to `Engine.run`, how many more requests are answered and checked: its
    `settled`). On a store with no answer this is every request of every item and 0.

    Raises `RunConflictError` when an answered item's first request is stored with other content (the run
    directory holds another job), naming that request."""
    done = store.completed_ids()
    if not done:
        return [request for item in items for request in item.requests(model)], 0
    requests: list[Request] = []
    firsts: dict[str, str] = {}
    shapes: set[tuple] = set()
    settled = 0
    for item in items:
        shape = (item.task, item.level, item.prompt_style, item.reference_free, item.calibration_samples)
        ids = item.request_ids()
        if shape in shapes and all(request_id in done for request_id in ids):
            first = item.first_request(model)
            firsts[first.request_id] = first.cache_key()
            settled += len(ids)
        else:  # unanswered, or the one item of its shape checked request by request
            shapes.add(shape)
            requests.extend(item.requests(model))
    store.check_keys(firsts)
    return requests, settled
