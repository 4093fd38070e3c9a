"""What a run's batches are doing, read from its store without sending anything: `lexprobe batch status` and the
"answers by batch" counts of the reports."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from lexprobe.engine.batch.ledger import BatchLedger
from lexprobe.engine.store import RunStore


def batched_answers(store: RunStore) -> int:
    """How many stored answers came by a provider's batch API (telemetry event `batch`); 0 at once, without reading
    the telemetry, for a run that never batched (no ledger)."""
    if not BatchLedger(store).exists():
        return 0
    (count,) = store.conn.execute(
        "SELECT COUNT(DISTINCT t.request_id) FROM telemetry t JOIN responses r ON r.request_id = t.request_id "
        "WHERE t.event = 'batch'"
    ).fetchone()
    return count


def batch_status(run_dir: Path) -> dict[str, Any]:
    """Every batch of the run at `run_dir` (state, counts, age, item states, why items have no answer, note), the
    answers that came by batch and the run's pending count. Opens the store read-only; raises `StoreError` for a
    folder that is no run."""
    store = RunStore.open_read_only(run_dir)
    try:
        ledger = BatchLedger(store)
        rows = ledger.batches() if ledger.exists() else []
        items: dict[str, dict[str, int]] = {}
        reasons: dict[str, dict[str, int]] = {}
        if rows:
            for local_id, state, reason, count in store.conn.execute(
                "SELECT local_id, state, COALESCE(reason, ''), COUNT(*) FROM batch_items GROUP BY local_id, state, 3"
            ):
                items.setdefault(local_id, {})
                items[local_id][state] = items[local_id].get(state, 0) + count
                if state not in ("submitted", "succeeded"):
                    why = f"{state}: {reason}" if reason else state
                    reasons.setdefault(local_id, {})[why] = count
        now = time.time()
        batches = [row.as_dict(now) | {"items": items.get(row.local_id, {}), "reasons": reasons.get(row.local_id, {})}
                   for row in rows]  # fmt: skip
        counts = store.counts()
        return {
            "run_dir": str(run_dir),
            "batches": batches,
            "open": sum(1 for row in rows if not row.collected),
            "answers": counts["completed"],
            "batched_answers": batched_answers(store),
            "pending": counts["pending"],
        }
    finally:
        store.close()


def age_text(seconds: float) -> str:
    """Return an age as '42s', '17m', '5.2h' or '3.0d'."""
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f}m"
    if seconds < 172800:
        return f"{seconds / 3600:.1f}h"
    return f"{seconds / 86400:.1f}d"


def batch_counts(run_dir: Path) -> dict[str, Any]:
    """{"run_dir", "answers", "batched_answers"} of one run directory, for the reports (read-only)."""
    store = RunStore.open_read_only(run_dir)
    try:
        return {
            "run_dir": str(run_dir),
            "answers": store.counts()["completed"],
            "batched_answers": batched_answers(store),
        }
    finally:
        store.close()


def batch_count_lines(rows: list[dict[str, Any]]) -> list[str]:
    """One line per run whose answers came (partly) by batch, for the terminal report; none when no answer did."""
    return [
        f"answers by batch (provider batch API): {row['batched_answers']:,} of {row['answers']:,} ({row['run_dir']})"
        for row in rows
        if row["batched_answers"]
    ]
