"""Factual-QA scores per model (`lexprobe investigation qa-score`), from the records of `investigation qa`.

The paper's rubric judge (InvestigationWorlds, Appendix D.3) returns one boolean per rubric item of a question; the
paper gives no formula for pooling those grades, so lexprobe reports two named estimators, each with its n:

- `mean_rubric_score`: per question, the share of its rubric items the judge marked satisfied; the mean of that
  share over the model's graded questions (every question weighs the same, whatever its number of items);
- `fully_correct`: the share of the model's graded questions with every rubric item satisfied (label `correct`).

Graded questions are those labelled `correct`, `partial` or `incorrect`; a final reply without an `ANSWER:` line
is graded `incorrect` with score 0 (the paper's harness keys on that terminator). Questions whose judge reply could
not be read as one boolean per item (`unscored`) and questions whose run did not finish (`pending`: no judge reply
yet) are never counted as 0: they are left out of both means and counted apart (`n_unscored`, `n_pending`).

Intervals: 95% percentile intervals of a cluster bootstrap over cases (an environment's case id): each resample
draws the model's cases with replacement, keeps every graded question of a drawn case, and recomputes the
estimator as a ratio of the drawn cases' sums (seeded, reproducible). None with fewer than two cases.
Records pooled from several run directories count once each (two runs of one question are two attempts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field, ValidationError

from lexprobe.errors import BadInputError
from lexprobe.investigation.qa.runner import QA_DIR, QARecord
from lexprobe.investigation.scoring.schema import Record
from lexprobe.models.errors import ModelConfigError
from lexprobe.models.spec import parse_model_spec
from lexprobe.reporting.html import write_report
from lexprobe.stats import cluster_bootstrap_totals, cluster_sums, percentile_interval

GRADED = ("correct", "partial", "incorrect")

QA_DEFINITIONS: dict[str, str] = {
    "mean_rubric_score": "mean rubric score: per graded question, the share of its rubric items the judge marked "
    "satisfied (Appendix D.3), averaged over graded questions",
    "fully_correct": "fully correct: share of graded questions with every rubric item satisfied",
    "ci": "95% interval: percentile interval of a cluster bootstrap over cases (resampling cases with replacement, "
    "every graded question of a drawn case kept); none with fewer than two cases",
    "graded": "graded: questions labelled correct, partial or incorrect; a reply without an ANSWER: line is graded "
    "incorrect with score 0",
    "unscored": "unscored: the judge's reply was not one boolean per rubric item; left out of the means, never "
    "counted as 0",
    "pending": "pending: the question's run did not finish (no judge reply yet); left out of the means (rerun "
    "`investigation qa` to resume)",
}


class QAModelScore(Record):
    """The factual-QA scores of one model (definitions in `QA_DEFINITIONS`)."""

    model: str
    judge: str
    self_graded: bool = Field(description="The judge is the model under test.")
    n_records: int = Field(description="QA records of this model, graded or not.")
    n_graded: int = Field(description="Questions the means are computed over.")
    n_cases: int = Field(description="Cases (bootstrap clusters) with at least one graded question.")
    n_unscored: int
    n_pending: int
    n_no_answer: int = Field(description="Graded questions without an ANSWER: line (score 0).")
    mean_rubric_score: float | None
    mean_rubric_score_ci: tuple[float, float] | None
    fully_correct: float | None
    fully_correct_ci: tuple[float, float] | None


class QASummary(Record):
    """`investigation qa-score`'s result: one row per model, the judge, the bootstrap settings and notes."""

    judge: str
    run_dirs: list[str]
    replicates: int
    seed: int
    level: float
    models: list[QAModelScore]
    warnings: list[str] = Field(default_factory=list, description="Self-grading: a judge that is a model under test.")
    notes: list[str] = Field(
        default_factory=list, description="Questions left out of the means, models without a score."
    )
    definitions: dict[str, str] = Field(default_factory=lambda: dict(QA_DEFINITIONS))


# --- reading and checking records ------------------------------------------------------------------------------


def read_qa_records(run_dir: Path) -> list[QARecord]:
    """Return the QA records of a run directory (`RUN_DIR/qa/*.qa.json`), sorted by file name. Raises
    `BadInputError` when `run_dir` is not a directory, holds no record, or a record cannot be read (naming the
    file)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise BadInputError(f"{run_dir} is not a directory")
    paths = sorted((run_dir / QA_DIR).glob("*.qa.json"))
    if not paths:
        raise BadInputError(f"{run_dir} holds no QA records ({run_dir / QA_DIR}/*.qa.json); run `investigation qa`")
    return [_read_record(path) for path in paths]


def _read_record(path: Path) -> QARecord:
    try:
        record = QARecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(f"{path}: cannot read the QA record ({exc})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "record"
        raise BadInputError(f"{path}: not a QA record ({where}: {first.get('msg', 'invalid')})") from None
    if record.label in GRADED and record.score is None:
        raise BadInputError(f"{path}: QA record labelled {record.label!r} without a score")
    return record


def same_model(a: str, b: str) -> bool:
    """Whether two model specs name the same model (equal strings, or specs that parse to the same backend, name,
    file and server: `local` and `local/smollm2`)."""
    if a.strip() == b.strip():
        return True
    try:
        left, right = parse_model_spec(a), parse_model_spec(b)
    except ModelConfigError:
        return False
    fields = ("backend", "name", "path", "base_url")
    return [getattr(left, name) for name in fields] == [getattr(right, name) for name in fields]


def check_judge(records: Sequence[tuple[Path, QARecord]], judge: str) -> None:
    """Refuse (`BadInputError`) records graded by different judges, or by a judge other than `judge`; each message
    names both judges and a run directory holding the other one."""
    if not records:
        return
    first_dir, first = records[0]
    for run_dir, record in records:
        if not same_model(record.judge, first.judge):
            raise BadInputError(f"mixed judges: {first_dir} was graded by {first.judge!r}, {run_dir} by "
                                f"{record.judge!r}; score each judge's records separately")  # fmt: skip
    if not same_model(first.judge, judge):
        raise BadInputError(f"the records in {first_dir} were graded by {first.judge!r}, not by --judge {judge!r}")


# --- the cluster bootstrap ---------------------------------------------------------------------------------------


def cluster_ratio_ci(
    clusters: Sequence[str], numerators: Sequence[float], *, replicates: int, seed: int, level: float
) -> tuple[float, float] | None:
    """Percentile interval of mean(numerators) (one value per observation) under a cluster bootstrap: clusters
    drawn with replacement (`lexprobe.stats`, seeded), every observation of a drawn cluster kept, the mean
    recomputed as sum / count over the drawn observations. None with fewer than two clusters or no resamples."""
    keys, sums = cluster_sums(list(clusters), [(1.0, float(value)) for value in numerators])
    if len(keys) < 2 or replicates < 1:
        return None
    totals = cluster_bootstrap_totals(sums, replicates=replicates, seed=seed)
    return percentile_interval(totals[:, 1] / totals[:, 0], level)  # every cluster holds an observation: no 0/0


# --- aggregation ---------------------------------------------------------------------------------------------------


def _model_score(model: str, judge: str, records: Sequence[QARecord], replicates: int, seed: int,
                 level: float) -> QAModelScore:  # fmt: skip
    graded = sorted((r for r in records if r.label in GRADED), key=lambda r: r.environment)
    cases = [r.environment for r in graded]
    scores = [float(r.score or 0.0) for r in graded]
    correct = [float(r.label == "correct") for r in graded]
    n = len(graded)
    ci = {"replicates": replicates, "seed": seed, "level": level}
    return QAModelScore(
        model=model,
        judge=judge,
        self_graded=same_model(model, judge),
        n_records=len(records),
        n_graded=n,
        n_cases=len(set(cases)),
        n_unscored=sum(r.label == "unscored" for r in records),
        n_pending=sum(r.label == "pending" for r in records),
        n_no_answer=sum(r.answer is None for r in graded),
        mean_rubric_score=math.fsum(scores) / n if n else None,
        mean_rubric_score_ci=cluster_ratio_ci(cases, scores, **ci),
        fully_correct=sum(correct) / n if n else None,
        fully_correct_ci=cluster_ratio_ci(cases, correct, **ci),
    )


def _warnings(scores: Sequence[QAModelScore]) -> list[str]:
    return [
        f"{score.model} is graded by itself (the judge is the model under test): self-grading can favour its own "
        "answers"
        for score in scores
        if score.self_graded
    ]


def _notes(scores: Sequence[QAModelScore]) -> list[str]:
    notes = []
    for score in scores:
        if score.n_unscored or score.n_pending:
            notes.append(f"{score.model}: {score.n_unscored} unscored and {score.n_pending} pending question(s) "
                         f"left out of the means (n={score.n_graded} graded)")  # fmt: skip
        if not score.n_graded:
            notes.append(f"{score.model}: no graded question, so no score")
    return notes


def summarize_qa(
    run_dirs: Sequence[Path], judge: str, *, replicates: int = 2000, seed: int = 0, level: float = 0.95
) -> QASummary:
    """Read the QA records of `run_dirs`, check they were all graded by `judge`, and score each model (pooled over
    the run directories). Raises `BadInputError` on a run directory given twice, without records or with an
    unreadable record, and on mixed judges or a judge other than `judge`."""
    seen: dict[Path, Path] = {}
    records: list[tuple[Path, QARecord]] = []
    for run_dir in run_dirs:
        key = Path(run_dir).resolve()
        if key in seen:
            raise BadInputError(f"{run_dir} is given twice (as {seen[key]}); each run directory counts once")
        seen[key] = Path(run_dir)
        records.extend((Path(run_dir), record) for record in read_qa_records(Path(run_dir)))
    check_judge(records, judge)
    by_model: dict[str, list[QARecord]] = {}
    for _, record in records:
        by_model.setdefault(record.model, []).append(record)
    judged_by = records[0][1].judge
    scores = [
        _model_score(model, judged_by, group, replicates, seed, level) for model, group in sorted(by_model.items())
    ]
    return QASummary(judge=judged_by, run_dirs=[str(path) for path in run_dirs], replicates=replicates, seed=seed,
                     level=level, models=scores, warnings=_warnings(scores), notes=_notes(scores))  # fmt: skip


# --- the HTML page ------------------------------------------------------------------------------------------------


def write_qa_report(path: Path, summary: QASummary) -> None:
    """Write `summary` as one self-contained HTML page (`templates/qa_report.html.j2` on the shared report base,
    the look of the investigation report; every model-given text autoescaped). Raises OSError when it cannot be
    written."""
    import lexprobe

    write_report(path, "lexprobe.investigation:qa_report.html.j2", version=lexprobe.__version__, summary=summary)


__all__ = [
    "GRADED",
    "QA_DEFINITIONS",
    "QAModelScore",
    "QASummary",
    "check_judge",
    "cluster_ratio_ci",
    "read_qa_records",
    "same_model",
    "summarize_qa",
    "write_qa_report",
]
