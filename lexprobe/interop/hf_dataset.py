"""`lexprobe export --format hf`: the hallucination items as a Hugging Face dataset folder: one parquet file per task
config (`data/<task>/test.parquet`), the flat `legal_eval` config in `nguha/legal-eval`'s schema, the dataset card
and `eval.yaml` (`hf_card.py`). Nothing is pushed: the folder loads with `datasets.load_dataset(DIR, name=TASK)`.

With a run directory the items are the run's (its store's items, prompts, answers and labels, streamed as
`hallucination_samples` streams them); without one they are sampled from the case database exactly as
`hallucination run` samples them (`plan_items`, the same options).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.engine.store import RunStore
from lexprobe.errors import BadInputError
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER
from lexprobe.hallucination.profile.results import SKIPPED_ROLES
from lexprobe.hallucination.run.items import plan_items
from lexprobe.hallucination.run.runner import ProfileSettings
from lexprobe.hallucination.tasks.base import TaskReference
from lexprobe.hallucination.tasks.item import ItemRecord, item_id_of, item_of
from lexprobe.interop.hf_card import SOURCE_LICENSES, SPLIT, card_text, eval_yaml_text
from lexprobe.interop.inspect_log import run_kind

__all__ = ["BENCHMARK", "FLAT_CONFIG", "HFExport", "answer_key", "export_hf_dataset"]

FLAT_CONFIG = "legal_eval"
BENCHMARK = "lexprobe/large_legal_fictions"
#: Task configs whose reference is one value an answer states: how to write it as a string to look for.
_KEYS = {
    "existence": lambda ref: "Yes",
    "author": lambda ref: (ref.author or "").split()[-1] if getattr(ref, "author", None) else "",
    "disposition": lambda ref: ref.disposition or "",
    "overruling_year": lambda ref: str(ref.year) if ref.year else "",
}


def answer_key(task: str, reference: TaskReference) -> str:
    """The reference as a string a containment check looks for in an answer ("" where no string decides: the
    contra-factual and reference-free tasks, and those scored by lexprobe's reader: citations, courts, quotations)."""
    key = _KEYS.get(task)
    return key(reference) if key else ""


@dataclass
class HFExport:
    """What one export wrote."""

    out: Path
    rows: dict[str, int]
    with_run: bool
    seconds: float
    eval_tasks: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The export as the command's --json prints it."""
        return {"format": "hf", "out": str(self.out), "configs": self.rows, "with_run": self.with_run,
                "eval_yaml_tasks": self.eval_tasks, "seconds": round(self.seconds, 3)}  # fmt: skip


def item_row(item_id: str, item: ItemRecord, prompt: str) -> dict[str, Any]:
    """One item as a row: its keys, prompt, covariates and reference (`hf_card.REFERENCE_FIELDS`)."""
    key = answer_key(item.task, item.reference)
    covariates = {name: item.covariates.get(name, "") for name in ("year", "circuit", "prominence", "court_id")}
    return {"id": item_id, "task": item.task, "level": item.level, "prompt_style": item.prompt_style,
            "case_id": item.case_id, **covariates, "prompt": prompt,
            "reference": json.dumps(item.reference.as_json(), sort_keys=True, ensure_ascii=False),
            "answer_key": key, "eval_method": "contains" if key else "lexprobe"}  # fmt: skip


def run_rows(run_dir: Path) -> Iterator[dict[str, Any]]:
    """The rows of a hallucination run: each item with the model's answer and lexprobe's label (streamed)."""
    store = RunStore.open_read_only(run_dir)
    try:
        model = store.get_meta("model") or ""
        for row in store.rows(not_roles=SKIPPED_ROLES, scorers=(REFERENCE_SCORER, CONFIDENCE_SCORER)):
            item_id = item_id_of(row.request)
            body = store.item(item_id)
            item = item_of(store, {item_id: body} if body is not None else {}, row.request)
            label, detail = row.scores.get(REFERENCE_SCORER, (None, {}))
            confidence = row.scores.get(CONFIDENCE_SCORER, ("", {}))
            yield item_row(item_id, item, row.request.messages[-1].content) | {
                "model": model, "answer": row.response.text if row.response is not None else None,
                "label": label, "label_detail": str(detail.get("detail", "")) if label else None,
                "confidence": confidence[1].get("confidence") if confidence[0] == "measured" else None,
            }  # fmt: skip
    finally:
        store.close()


def sampled_rows(db: CaseDatabase, settings: ProfileSettings) -> Iterator[dict[str, Any]]:
    """The rows of the items `hallucination run` would ask with `settings` (no model, no answers)."""
    plan = plan_items(
        db, settings.tasks, settings.levels, settings.styles, settings.n, settings.seed,
        years=settings.windows, complete_cases=settings.complete_cases, task_n=settings.task_n,
    )  # fmt: skip
    for item in plan.items:
        yield item_row(item.item_id, item.record(), item.prompt)


class _Writers:
    """One parquet writer per config, opened at its first row; rows written in batches (pyarrow)."""

    BATCH = 2000

    def __init__(self, out: Path) -> None:
        self.out = out
        self.writers: dict[str, Any] = {}
        self.pending: dict[str, list[dict[str, Any]]] = {}
        self.rows: dict[str, int] = {}

    def add(self, config: str, row: dict[str, Any]) -> None:
        self.pending.setdefault(config, []).append(row)
        self.rows[config] = self.rows.get(config, 0) + 1
        if len(self.pending[config]) >= self.BATCH:
            self.flush(config)

    def flush(self, config: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = self.pending.pop(config, [])
        if config not in self.writers:  # every column text, but the confidence
            schema = pa.schema([(key, pa.float64() if key == "confidence" else pa.string()) for key in rows[0]])
            path = self.out / "data" / config / f"{SPLIT}.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.writers[config] = pq.ParquetWriter(path, schema)
        writer = self.writers[config]
        writer.write_table(pa.Table.from_pylist(rows, schema=writer.schema))

    def close(self) -> None:
        for config in list(self.pending):
            self.flush(config)
        for writer in self.writers.values():
            writer.close()


def _write_rows(out: Path, rows: Iterator[dict[str, Any]]) -> tuple[dict[str, int], list[str]]:
    """Write every row to its task's config and, flat, to `legal_eval`; return the row counts and the configs whose
    every row has an answer key (what eval.yaml can score)."""
    writers = _Writers(out)
    contained: dict[str, bool] = {}
    try:
        for row in rows:
            writers.add(row["task"], row)
            contained[row["task"]] = contained.get(row["task"], True) and bool(row["answer_key"])
            writers.add(FLAT_CONFIG, {"benchmark": BENCHMARK, "task_name": f"{row['task']}_{row['level']}_"
                                      f"{row['prompt_style']}", "input": row["prompt"], "answer": row["answer_key"],
                                      "eval_method": row["eval_method"]})  # fmt: skip
    finally:
        writers.close()
    if not writers.rows:
        raise BadInputError("no item to export: the run or the sample holds none")
    return writers.rows, [task for task, ok in contained.items() if ok]


def _sources(db: CaseDatabase | None) -> dict[str, str]:
    """The licence of every source the case database was built from (every known source without a database)."""
    read = json.loads(db.build_info().get("rows_read", "{}")) if db is not None else dict.fromkeys(SOURCE_LICENSES, 1)
    return {source: SOURCE_LICENSES.get(source, (source, "see the source"))[1] for source, n in read.items() if n}


def export_hf_dataset(out: Path, *, run_dir: Path | None, db: CaseDatabase | None,
                      settings: ProfileSettings | None, sampling: str, force: bool = False) -> HFExport:  # fmt: skip
    """Write the dataset folder `out` from the hallucination run `run_dir`, else from the items `settings` sample
    from `db`; `sampling` is the card's words on how. Raises `BadInputError` for an `out` that exists without
    `force`, a run that is not a hallucination run, or nothing to export."""
    began = time.monotonic()
    out = Path(out)
    if out.exists():
        if not force:
            raise BadInputError(f"--out {out} already exists; pass --force to replace it")
        if out.is_dir() and any(out.iterdir()) and not (out / "eval.yaml").is_file():
            raise BadInputError(f"--out {out} is a folder but no earlier export (no eval.yaml): not replaced")
        shutil.rmtree(out) if out.is_dir() else out.unlink()
    if run_dir is not None and run_kind(run_dir, "hallucination"):
        rows = run_rows(run_dir)
    elif db is not None and settings is not None:
        rows = sampled_rows(db, settings)
    else:
        raise BadInputError("give a hallucination run directory, or a case database to sample items from")
    counts, contained = _write_rows(out, rows)
    configs = [*sorted(name for name in counts if name != FLAT_CONFIG), FLAT_CONFIG]
    (out / "README.md").write_text(card_text(configs, counts, _sources(db), sampling, run_dir is not None), "utf-8")
    (out / "eval.yaml").write_text(eval_yaml_text(sorted(contained)), encoding="utf-8")
    return HFExport(
        out, {name: counts[name] for name in configs}, run_dir is not None, time.monotonic() - began, sorted(contained)
    )
