"""Send a run's pending single-turn requests through provider batch APIs and store the answers as ordinary
responses (same cache keys, usage and cost fields; cost at the batch price; telemetry event `batch`). How batches are
resumed, polled, collected and resubmitted (at most `MAX_ROUNDS` per request in one command): docs/scale.md,
"Provider batch APIs".
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lexprobe.engine.batch.ledger import BatchLedger, BatchRow
from lexprobe.engine.batch.providers import (
    BatchPoll,
    BatchProvider,
    ItemResult,
    batchable,
    entry_bytes,
    open_provider,
    split_batches,
)
from lexprobe.engine.store import TelemetryRow
from lexprobe.engine.summary import RunSummary
from lexprobe.errors import LexprobeError
from lexprobe.models.errors import ModelConfigError, ModelError, TransientModelError
from lexprobe.models.types import Request, Response

if TYPE_CHECKING:
    from lexprobe.engine.executor import Engine

logger = logging.getLogger(__name__)

#: Batches one request may be put in by one command before it is left pending.
MAX_ROUNDS = 3
#: The first wait between polls when neither the config nor LEXPROBE_BATCH_POLL_S sets one.
DEFAULT_POLL_S = 30.0
#: The wait doubles after each poll up to this many times the first wait.
POLL_GROWTH_CAP = 20
#: Answers committed per transaction while a batch's results are read.
COMMIT_CHUNK = 500


#: An item's new (state, reason, custom id).
Mark = tuple[str, str | None, str]


#: Reasons or custom ids one line names before "and N more".
LISTED = 3


def listed(parts: list[str]) -> str:
    """`parts` joined with "; ", the first `LISTED` of them."""
    more = len(parts) - LISTED
    return "; ".join(parts[:LISTED]) + (f"; and {more} more" if more > 0 else "")


class ResultTally:
    """What one ended batch's results said, item by item (`_ModelBatches._collect`): the first outcome of each custom
    id (the one kept), the result lines whose custom id could not be read, and the duplicates (a second result for one
    custom id, with the same answer or another: reported on stderr and in the batch's note and item reason, never
    stored)."""

    def __init__(self) -> None:
        self.first: dict[str, tuple[str, str | None, str, str]] = {}  # custom id -> (outcome, reason, where, digest)
        self.unreadable: list[str] = []
        self.duplicates: dict[str, list[tuple[str, bool]]] = {}  # custom id -> [(where, differs from the first)]

    @staticmethod
    def digest(result: ItemResult) -> str:
        """A fingerprint of a result's outcome and answer (to tell a repeated result from a different one)."""
        text = json.dumps([result.outcome, result.payload, result.reason], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def duplicate(self, result: ItemResult) -> bool:
        """True (and recorded) when `result` is a second result for a custom id already seen."""
        first = self.first.get(result.custom_id)
        if first is None:
            return False
        self.duplicates.setdefault(result.custom_id, []).append((result.where, self.digest(result) != first[3]))
        return True

    def keep(self, result: ItemResult, outcome: str, reason: str | None) -> None:
        """Record the first result of its custom id, and the outcome it was given."""
        self.first[result.custom_id] = (outcome, reason, result.where, self.digest(result))

    def counts(self) -> tuple[int, int]:
        """(succeeded, failed) among the kept outcomes."""
        succeeded = sum(1 for outcome, *_ in self.first.values() if outcome == "succeeded")
        return succeeded, len(self.first) - succeeded

    def what(self, custom_id: str) -> str:
        """One line on the results of a duplicated custom id, and which is kept."""
        where, others = self.first[custom_id][2], self.duplicates[custom_id]
        differ = "different answers" if any(differs for _, differs in others) else "the same answer"
        places = ", ".join(place for place in (where, *(w for w, _ in others)) if place)
        kept = f" ({where})" if where else ""
        return f"{custom_id} has {len(others) + 1} results ({places}) with {differ}: the first{kept} is kept"

    def duplicate_marks(self) -> list[Mark]:
        """The kept items' marks again, their reason naming the duplicates."""
        marks: list[Mark] = []
        for custom_id in self.duplicates:
            outcome, reason, _, _ = self.first[custom_id]
            marks.append((outcome, "; ".join(part for part in (reason, self.what(custom_id)) if part), custom_id))
        return marks

    def note(self) -> str:
        """The batch's note on duplicates ("" when none)."""
        if not self.duplicates:
            return ""
        return f"duplicate results for {len(self.duplicates)} custom id(s), the first kept: " + listed(
            [self.what(custom_id) for custom_id in self.duplicates]
        )

    def warnings(self, missing: int) -> list[str]:
        """The warnings for stderr: each duplicate, and the unreadable lines."""
        lines = [f"duplicate result: {self.what(custom_id)}" for custom_id in self.duplicates]
        if self.unreadable:
            lines.append(f"{len(self.unreadable)} result line(s) could not be read ({listed(self.unreadable)}): "
                         f"the {missing} item(s) without a result go into a new batch")  # fmt: skip
        return lines


def poll_seconds(configured: float | None) -> float:
    """The first wait between polls: the config's, else LEXPROBE_BATCH_POLL_S, else `DEFAULT_POLL_S`."""
    if configured is not None:
        return configured
    try:
        value = float(os.environ.get("LEXPROBE_BATCH_POLL_S", ""))
    except ValueError:
        return DEFAULT_POLL_S
    return value if value > 0 else DEFAULT_POLL_S


async def run_batches(engine: Engine, requests: Sequence[Request], summary: RunSummary, stop: asyncio.Event) -> list:
    """Answer the `batchable` requests among `requests` through batch APIs; return the others (sent as usual)."""
    rest = [request for request in requests if not batchable(request.model)]
    by_model: dict[str, list[Request]] = defaultdict(list)
    for request in requests:
        if batchable(request.model):
            by_model[request.model].append(request)
    if by_model:
        ledger = BatchLedger(engine.store)
        await asyncio.gather(*(_ModelBatches(engine, ledger, spec, group, summary, stop).run()
                               for spec, group in by_model.items()))  # fmt: skip
    return rest


@dataclass
class _Open:
    """A batch being waited for."""

    row: BatchRow
    items: dict[str, str]  # custom id -> request id
    provider_id: str | None
    fresh: bool = False  # written by this process and never sent: no need to look for it on the provider
    polls: int = field(default=0)


class _ModelBatches:
    """The batches of one model spec in one engine run."""

    def __init__(self, engine: Engine, ledger: BatchLedger, spec: str, requests: list[Request],
                 summary: RunSummary, stop: asyncio.Event) -> None:  # fmt: skip
        self.engine, self.ledger, self.spec, self.summary, self.stop = engine, ledger, spec, summary, stop
        self.pending = {request.request_id: request for request in requests}
        self.tries: Counter[str] = Counter()
        self.open: list[_Open] = []
        self.provider: BatchProvider | None = None

    @property
    def stopping(self) -> bool:
        return self.stop.is_set() or self.engine.stopping

    async def run(self) -> None:
        """Resume, submit, poll and collect until every request is answered or out of rounds (or a stop)."""
        self.provider = open_provider(self.spec)
        try:
            self._resume()
            self._intend(list(self.pending.values()))
            delay = first = poll_seconds(self.engine.config.batch_poll_s)
            while self.open and not self.stopping:
                changed = await self._cycle()
                if not self.open or self.stopping:
                    break
                delay = first if changed else min(delay * 2, first * POLL_GROWTH_CAP)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), delay)
        finally:
            await self.provider.aclose()

    def _resume(self) -> None:
        """Take up the open batches of earlier runs that hold a request of this run; close those whose every
        request already has a response."""
        done = None
        for row in self.ledger.batches(open_only=True, model=self.spec):
            items = {cid: rid for cid, rid, state in self.ledger.items(row.local_id) if state == "submitted"}
            if not any(rid in self.pending for rid in items.values()):
                done = self.engine.store.completed_ids() if done is None else done
                if all(rid in done for rid in items.values()):  # its answers were stored before a crash
                    self.ledger.set_collected(row.local_id, (row.succeeded, row.failed))
                continue  # another engine run's batch (the judge's, say): left for it
            self.open.append(_Open(row, items, row.provider_id))
            for rid in items.values():
                self.tries[rid] += 1
            logger.warning("%s: resuming batch %s (%s, %d requests)", self.spec, row.provider_id or row.local_id,
                           row.state, row.requests)  # fmt: skip

    def _intend(self, requests: list[Request]) -> None:
        """Write new batches for `requests` not in an open batch (split at the provider's limits)."""
        assert self.provider is not None
        covered = {rid for batch in self.open for rid in batch.items.values()}
        todo = [request for request in requests if request.request_id not in covered]
        if not todo:
            return
        round_ = self.ledger.round_of([request.request_id for request in todo])
        # sized with placeholder custom ids as long as the real ones (`ledger.custom_id`)
        placeholder = "lx" + "0" * 16
        sizes = [entry_bytes(self.provider.entry(f"{placeholder}-{i}", request)) for i, request in enumerate(todo)]
        for part in split_batches(sizes, self.provider.max_requests, self.provider.max_bytes):
            group = [todo[index] for index in part]
            local_id, ids = self.ledger.add_intent(
                self.provider.spec.backend, self.spec, [request.request_id for request in group], round_
            )
            row = next(row for row in self.ledger.batches(open_only=True, model=self.spec) if row.local_id == local_id)
            self.open.append(_Open(row, dict(zip(ids, (r.request_id for r in group), strict=True)), None, fresh=True))
            for request in group:
                self.tries[request.request_id] += 1

    async def _cycle(self) -> bool:
        """Create what is not created yet, poll the rest once, collect what ended; True when anything changed."""
        changed = False
        for batch in list(self.open):
            if self.stopping:
                break
            try:
                if batch.provider_id is None:
                    changed |= await self._create(batch)
                    continue
                poll = await self.provider.poll(batch.provider_id)  # type: ignore[union-attr]
            except Exception as exc:  # classified: a passing fault waits for the next cycle
                self._fault(exc, batch)
                continue
            batch.polls += 1
            self.ledger.set_state(batch.row.local_id, poll.status, poll.counts, poll.note)
            if not poll.ended:
                continue
            try:  # a fault while reading results: the batch stays open and is read again (stored answers kept)
                await self._collect(batch, poll)
            except Exception as exc:  # classified as above
                self._fault(exc, batch)
                continue
            self.open.remove(batch)
            changed = True
        if changed:
            self._resubmit()
        return changed

    def _fault(self, exc: Exception, batch: _Open) -> None:
        """A failed provider call: passing faults are retried on the next cycle, the rest end the run."""
        assert self.provider is not None
        if isinstance(exc, LexprobeError):  # the run store's own errors (a full disk) are no provider fault
            raise exc
        error = exc if isinstance(exc, ModelError) else self.provider.classify(exc)
        if not isinstance(error, TransientModelError):
            raise ModelConfigError(f"{self.spec}: batch {batch.provider_id or batch.row.local_id}: {error}") from exc
        batch.fresh = False  # a create that failed may still have reached the provider: look for it first
        logger.warning("%s: batch %s: %s; trying again at the next poll", self.spec,
                       batch.provider_id or batch.row.local_id, error)  # fmt: skip

    async def _create(self, batch: _Open) -> bool:
        """Find the batch on the provider (unless this process wrote it and never sent it), else create it."""
        assert self.provider is not None
        row = batch.row
        if not batch.fresh:
            known = {other.provider_id for other in self.ledger.batches() if other.provider_id}
            found = await self.provider.find(row.local_id, row.created_at, len(batch.items), known)
            if found is not None:
                self.ledger.set_submitted(row.local_id, found, "found")
                batch.provider_id = found
                logger.warning("%s: batch %s was created before the crash: found as %s", self.spec, row.local_id,
                               found)  # fmt: skip
                return True
        answered = [cid for cid, rid in batch.items.items() if rid not in self.pending]
        if answered:  # answered meanwhile (a run without --batch): not sent
            self.ledger.set_items([("missing", "answered before this batch was created", cid) for cid in answered])
            for cid in answered:
                del batch.items[cid]
        if not batch.items:
            self.ledger.set_collected(row.local_id, (0, 0), "nothing left to send")
            self.open.remove(batch)
            return True
        entries = [self.provider.entry(cid, self.pending[rid]) for cid, rid in batch.items.items()]
        batch.fresh = False
        provider_id, status = await self.provider.submit(row.local_id, entries)
        self.ledger.set_submitted(row.local_id, provider_id, status)
        batch.provider_id = provider_id
        logger.info("%s: submitted batch %s (%d requests)", self.spec, provider_id, len(entries))
        return True

    async def _collect(self, batch: _Open, poll: BatchPoll) -> None:
        """Commit the answers of an ended batch in the order they come; mark what has none. A result line that
        could not be read fails its item (or, when its custom id cannot be read either, the items left without a
        result); a second result for one custom id is reported and the first kept (`ResultTally`)."""
        assert self.provider is not None and batch.provider_id is not None
        latency = max(0.0, time.time() - (batch.row.submitted_at or batch.row.created_at))
        results = ResultTally()
        answers: list[tuple[str, Response]] = []
        marks: list[Mark] = []
        async for result in self.provider.results(batch.provider_id, poll):
            rid = batch.items.get(result.custom_id)
            if not result.custom_id:
                results.unreadable.append(result.reason or "unreadable result")
                continue
            if rid is None:  # not this batch's (a batch found by mistake): ignored
                continue
            if results.duplicate(result):
                continue
            request = self.pending.get(rid)
            outcome, reason = result.outcome, result.reason
            if outcome == "succeeded" and request is not None:
                try:
                    answers.append((rid, self.provider.response(result.payload, request, latency)))
                except (ModelError, ValueError) as exc:
                    outcome, reason = "errored", f"{exc}, {result.where}" if result.where else str(exc)
                    if not isinstance(exc, ModelError):
                        reason = f"unreadable answer: {reason}"
            results.keep(result, outcome, reason)
            marks.append((outcome, reason, result.custom_id))
            if len(answers) >= COMMIT_CHUNK:
                self._commit(batch, answers, marks)
                answers, marks = [], []
        missing = [cid for cid in batch.items if cid not in results.first]
        if results.unreadable:  # lines whose custom id could not be read: the items without a result failed there
            why = listed(results.unreadable)
            marks += [("errored", why, cid) for cid in missing]
        else:
            marks += [("missing", poll.note or f"no result (batch {poll.status})", cid) for cid in missing]
        marks += results.duplicate_marks()
        self._commit(batch, answers, marks)
        note = "; ".join(part for part in (poll.note, results.note()) if part)
        succeeded, failed = results.counts()
        self.ledger.set_collected(batch.row.local_id, (succeeded, failed + len(missing)), note)
        for message in (poll.note, *results.warnings(len(missing))):
            if message:
                logger.warning("%s: batch %s %s", self.spec, batch.provider_id, message)

    def _commit(self, batch: _Open, answers: list[tuple[str, Response]], marks: list[Mark]) -> None:
        """Write answers to the cache and the run store (one transaction), then the items' states."""
        engine, store, round_ = self.engine, self.engine.store, batch.row.round
        rows = []
        for rid, response in answers:
            request = self.pending.pop(rid)
            if engine.cache is not None:
                engine.cache.put(request.response_key(), request.model, response)
            rows.append((rid, response, TelemetryRow(rid, request.model, round_, "batch", None, response.latency_s)))
        if rows:
            store.record_responses(rows)
            engine.answered.add(self.spec)
        for _, response, _ in rows:
            self.summary.sent += 1
            self.summary.batched += 1
            self.summary.usage = self.summary.usage + response.usage
            self.summary.add_cost(response.cost_usd)
            engine.progress.advance(response)
        for outcome, reason, cid in marks:
            if outcome == "succeeded":
                continue
            rid = batch.items[cid]
            if rid in self.pending:
                error = f"batch {outcome}: {reason}"
                store.record_telemetry(TelemetryRow(rid, self.spec, round_, "retry", error, None))
        if marks:
            self.ledger.set_items(marks)

    def _resubmit(self) -> None:
        """Put the requests left unanswered by ended batches into new ones, up to `MAX_ROUNDS` each."""
        covered = {rid for batch in self.open for rid in batch.items.values()}
        left = [request for rid, request in self.pending.items() if rid not in covered]
        again = [request for request in left if self.tries[request.request_id] < MAX_ROUNDS]
        exhausted = [request for request in left if self.tries[request.request_id] >= MAX_ROUNDS]
        if exhausted:
            reasons = self.ledger.last_reasons()
            for request in exhausted:
                why = reasons.get(request.request_id, "no answer")
                error = f"no answer after {self.tries[request.request_id]} batches (last: {why})"
                self.engine._record_failure(request, self.tries[request.request_id], error, False, self.summary)
                self.pending.pop(request.request_id)
        if again:
            logger.warning("%s: %d request(s) without an answer go into a new batch", self.spec, len(again))
            self._intend(again)
