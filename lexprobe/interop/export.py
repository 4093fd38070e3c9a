"""`lexprobe export`: the one library call behind the command, choosing the format (`inspect`: an Inspect `.eval`
log of a run, `inspect_log.py`; `hf`: a Hugging Face dataset folder, `hf_dataset.py`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexprobe.errors import BadInputError, InputNotFoundError

__all__ = ["FORMATS", "ExportRequest", "SampleOptions", "export"]

FORMATS = ("inspect", "hf")


@dataclass(frozen=True)
class SampleOptions:
    """How `--format hf` without a run samples items: `hallucination run`'s options of the same names."""

    tasks: str = "all"
    levels: str | None = None
    prompt_styles: str | None = None
    n: int | None = None
    seed: int = 47
    years: str = "paper"
    complete_cases: bool = False
    design: str | None = None

    def settings(self) -> Any:
        """The `ProfileSettings` `hallucination run` makes of these options (no model: nothing is asked)."""
        from lexprobe.caselaw.sampling import parse_year_windows
        from lexprobe.hallucination.run.runner import ProfileSettings, design_settings
        from lexprobe.hallucination.tasks import resolve_tasks

        levels, styles, n, _, task_n = design_settings(self.design, self.levels, self.prompt_styles, self.n, 0)
        return ProfileSettings(model="", tasks=resolve_tasks(self.tasks), levels=levels, styles=styles, n=n,
                               seed=self.seed, years=parse_year_windows(self.years, levels),
                               complete_cases=self.complete_cases, task_n=task_n, design=self.design or "")  # fmt: skip

    def describe(self, settings: Any) -> str:
        """The card's words on how the items were sampled."""
        meta = settings.to_meta()
        return (f"Sampled by lexprobe's `hallucination run` sampler (stratified by court level within the study's "
                f"date windows unless `years` says otherwise), seed {meta['seed']}: tasks {', '.join(meta['tasks'])}; "
                f"levels {', '.join(meta['levels'])}; prompt styles {', '.join(meta['styles'])}; n = {meta['n']} "
                f"cases per level; years {meta['years']}; complete cases only: {meta['complete_cases']}.")  # fmt: skip


@dataclass(frozen=True)
class ExportRequest:
    """What `lexprobe export` was asked."""

    format: str
    out: Path | None
    run_dir: Path | None = None
    kind: str | None = None
    force: bool = False
    db: Path | None = None
    sample: SampleOptions = SampleOptions()


def _run_sampling(run_dir: Path) -> str:
    from lexprobe.engine.store import RunStore

    store = RunStore.open_read_only(run_dir)
    try:
        settings = store.get_meta("settings") or {}
    finally:
        store.close()
    return (
        f"The items of the hallucination run {run_dir.name} (model {settings.get('model', '?')}), sampled by "
        f"lexprobe's `hallucination run` with: " + "; ".join(f"{k} {v}" for k, v in sorted(settings.items()))
    )


def _export_hf(request: ExportRequest, open_db: Callable[[Path | None], Any]) -> dict[str, Any]:
    from lexprobe.interop.hf_dataset import export_hf_dataset

    if request.run_dir is not None:
        if not Path(request.run_dir).is_dir():
            raise InputNotFoundError(f"run directory {request.run_dir} does not exist")
        db = open_db(request.db) if request.db is not None else None
        result = export_hf_dataset(request.out, run_dir=request.run_dir, db=db, settings=None,
                                   sampling=_run_sampling(request.run_dir), force=request.force)  # fmt: skip
    else:
        settings = request.sample.settings()
        db = open_db(request.db)
        result = export_hf_dataset(request.out, run_dir=None, db=db, settings=settings,
                                   sampling=request.sample.describe(settings), force=request.force)  # fmt: skip
    if db is not None:
        db.close()
    return result.as_json()


def export(request: ExportRequest, open_db: Callable[[Path | None], Any],
           progress: Callable[[int], None] = lambda done: None) -> dict[str, Any]:  # fmt: skip
    """Run one export and return its summary (what `--json` prints); `open_db` opens the case database (`--db`, or
    the default), `progress` hears how many samples an Inspect export has written. Raises `BadInputError` for an
    unknown format, an Inspect export without a run directory and whatever the format's export raises."""
    if request.format not in FORMATS:
        raise BadInputError(f"unknown format {request.format!r}; valid: {', '.join(FORMATS)}")
    if request.out is None:
        raise BadInputError("--out is required: the .eval file (inspect) or the folder (hf) to write")
    if request.format == "hf":
        return _export_hf(request, open_db)
    if request.run_dir is None:
        raise BadInputError("--format inspect exports a run: give its RUN_DIR")
    from lexprobe.interop.inspect_log import export_inspect_log

    result = export_inspect_log(request.run_dir, request.out, kind=request.kind, force=request.force,
                                progress=progress)  # fmt: skip
    return result.as_json()
