"""What a run did, for people and for JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from lexprobe.models.types import Usage


@dataclass
class RunSummary:
    """Counts of one engine run. `cost_usd` is what this run spent (None when a price is unknown)."""

    total: int = 0
    already_done: int = 0
    cache_hits: int = 0
    sent: int = 0
    failed: int = 0
    retries: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    elapsed_s: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when every request of the run has a response."""
        return self.failed == 0

    def add_cost(self, cost: float | None) -> None:
        """Add one call's cost; an unknown cost makes the total unknown."""
        if self.cost_usd is not None:
            self.cost_usd = None if cost is None else self.cost_usd + cost

    def absorb(self, other: RunSummary) -> None:
        """Add the counts of a later engine run of the same job (e.g. the judge requests after the samples)."""
        self.total += other.total
        self.already_done += other.already_done
        self.cache_hits += other.cache_hits
        self.sent += other.sent
        self.failed += other.failed
        self.retries += other.retries
        self.usage = self.usage + other.usage
        self.add_cost(other.cost_usd)
        self.elapsed_s += other.elapsed_s
        self.errors += other.errors

    def to_dict(self) -> dict:
        """Return the summary as plain JSON-ready data."""
        data = asdict(self)
        data["usage"] = self.usage.model_dump()
        data["complete"] = self.complete
        return data

    def one_line(self) -> str:
        """Return a one-line human summary."""
        cost = "n/a" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        line = (
            f"{self.total} requests: {self.already_done} done before, {self.cache_hits} from cache, "
            f"{self.sent} sent, {self.failed} still pending; {self.retries} retries; "
            f"{self.usage.input_tokens + self.usage.output_tokens:,} tokens; {cost} spent; {self.elapsed_s:.1f}s"
        )
        return line
