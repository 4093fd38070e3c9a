"""What a run did, for people and for JSON, and the exit it calls for."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from lexprobe.errors import EXIT_PENDING, LexprobeError
from lexprobe.models.replica_stats import ReplicaCount, counts_text, merge_counts
from lexprobe.models.types import Usage


class RequestsPending(LexprobeError):
    """Requests still lack an answer after their retries ran out (transient failures): rerun to resume (exit 1)."""

    exit_code = EXIT_PENDING


class RequestsFailed(LexprobeError):
    """Requests failed permanently (context overflow, exhausted script, HTTP 400): retrying will not help (exit 2)."""


@dataclass
class RunSummary:
    """Counts of one engine run. `cost_usd` is what this run spent (None when a price is unknown).

    `failed` counts every request left without an answer, `failed_permanent` the part of them that failed for a
    reason retrying cannot fix; `errors` keeps the first few reasons of all of them as 'REQUEST_ID: reason',
    `permanent_errors` those of the permanent ones. `replicas` counts the requests and errors of each replica of a
    replicated model (`openai-compatible/MODEL@URL1,URL2,...`), empty when none was used.
    """

    total: int = 0
    already_done: int = 0
    cache_hits: int = 0
    sent: int = 0
    batched: int = 0  # the part of `sent` answered by a provider's batch API
    failed: int = 0
    failed_permanent: int = 0
    retries: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    elapsed_s: float = 0.0
    errors: list[str] = field(default_factory=list)
    permanent_errors: list[str] = field(default_factory=list)
    replicas: list[ReplicaCount] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when every request of the run has a response."""
        return self.failed == 0

    @property
    def done(self) -> int:
        """Requests with an answer: done before, from the cache, or sent now."""
        return self.already_done + self.cache_hits + self.sent

    @property
    def remaining(self) -> int:
        """Requests without an answer (failed, or never sent because the run was interrupted)."""
        return self.total - self.done

    def add_cost(self, cost: float | None) -> None:
        """Add one call's cost; an unknown cost makes the total unknown."""
        if self.cost_usd is not None:
            self.cost_usd = None if cost is None else self.cost_usd + cost

    def absorb(self, other: RunSummary) -> None:
        """Add the counts of a later engine run of the same job (e.g. the judge requests after the samples)."""
        for item in fields(self):
            if item.name not in ("cost_usd", "replicas"):  # the counts, usage and error lists add up
                setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))
        self.add_cost(other.cost_usd)
        self.replicas = merge_counts(self.replicas, other.replicas)

    def to_dict(self) -> dict:
        """Return the summary as plain JSON-ready data."""
        data = asdict(self)
        data["usage"] = self.usage.model_dump()
        data["complete"] = self.complete
        return data

    def one_line(self) -> str:
        """Return a one-line human summary."""
        cost = "n/a" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        permanent = f" ({self.failed_permanent} failed permanently)" if self.failed_permanent else ""
        batched = f" ({self.batched} by batch)" if self.batched else ""
        line = (
            f"{self.total} requests: {self.already_done} done before, {self.cache_hits} from cache, "
            f"{self.sent} sent{batched}, {self.remaining} still pending{permanent}; {self.retries} retries; "
            f"{self.usage.input_tokens + self.usage.output_tokens:,} tokens; {cost} spent; {self.elapsed_s:.1f}s"
        )
        replicas = counts_text(self.replicas)
        return f"{line}; {replicas}" if replicas else line

    def failure(self) -> LexprobeError | None:
        """Return the error a command ends with when requests lack an answer, or None when every one has one.

        Permanent failures win: `RequestsFailed` (exit 2) names the first failed request and its reason; otherwise
        `RequestsPending` (exit 1) says how many are pending and why the first one is.
        """
        if self.failed_permanent:
            first = self.permanent_errors[0] if self.permanent_errors else "no reason recorded"
            others = self.failed - self.failed_permanent
            rest = f"; {others} more still pending (rerun to resume them)" if others else ""
            return RequestsFailed(permanent_message(self.failed_permanent, first) + rest)
        if self.failed:
            first = f" ({self.errors[0]})" if self.errors else ""
            return RequestsPending(
                f"{self.failed} request(s) still pending after retries{first}; rerun the same command to resume"
            )
        return None


def permanent_message(count: int, first: str) -> str:
    """Return the one-line reason of a command ending with permanent failures; `first` is 'REQUEST_ID: reason'."""
    return f"{count} request(s) failed permanently, retrying will not help: {first}"


def permanent_failures_error(failures: dict[str, str]) -> RequestsFailed | None:
    """Return the exit-2 error for requests that failed permanently (request id -> reason), or None when none did."""
    if not failures:
        return None
    request_id, reason = next(iter(failures.items()))
    return RequestsFailed(permanent_message(len(failures), f"{request_id}: {reason}"))
