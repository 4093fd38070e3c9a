"""Factual QA over an environment's corpus (InvestigationWorlds, Appendix D.3).

For each question of `questions.json`: the QA prompt with the same tools as an investigation and its own budgets
(`HarnessSettings`; the CLI's defaults are Appendix A's, `harness.QA_TOOL_BUDGET` / `QA_TURN_BUDGET`); the final
answer is what follows the last `ANSWER:` in the model's final reply (no `ANSWER:` line: the answer is missing and
the question is `incorrect`, with that reason). A judge model then gets the question, the reference answer,
the model's answer and the rubric items, and returns one boolean per item as a JSON array. A reply that is not
such an array (wrong length, not booleans, no array) is `unscored`, with the judge's text kept, never guessed.
A question whose model call stays unanswered after the engine's retries is `pending` (rerun to resume).

Score per question: the share of rubric items satisfied; `correct` when all are. Records are saved as
`RUN_DIR/qa/<id>.json` (the tool loop's transcript, the answer, the grades) after every step, like episodes.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.interrupt import stop_on_sigint
from lexprobe.engine.summary import permanent_failures_error
from lexprobe.errors import BadInputError, LexprobeError
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import Episode, safe_name
from lexprobe.investigation.agent.harness import Agent, HarnessSettings
from lexprobe.investigation.agent.run import QA_KIND, RunUnit, open_run, run_gated
from lexprobe.investigation.environment.format import Question
from lexprobe.models.registry import check_model
from lexprobe.models.types import Message

QA_DIR = "qa"
_ANSWER = re.compile(r"ANSWER:", re.IGNORECASE)
_ARRAY = re.compile(r"\[[^\[\]]*\]", re.DOTALL)


class QARecord(BaseModel):
    """One question answered by one model, and its grade."""

    model_config = ConfigDict(extra="forbid")

    qa_id: str
    question_id: str
    environment: str
    model: str
    judge: str
    answer: str | None = Field(default=None, description="Text after ANSWER:, or None when there was none.")
    grades: list[bool] | None = Field(default=None, description="One boolean per rubric item; None when unscored.")
    judge_reply: str = ""
    label: Literal["correct", "partial", "incorrect", "unscored", "pending"] = "pending"
    score: float | None = None
    reason: str = ""
    episode: Episode


def extract_answer(reply: str) -> str | None:
    """Return what follows the last `ANSWER:` of a reply (stripped), or None when there is none."""
    matches = list(_ANSWER.finditer(reply or ""))
    if not matches:
        return None
    text = reply[matches[-1].end() :].strip()
    return text or None


def parse_grades(reply: str, items: int) -> list[bool] | None:
    """Return the judge's booleans when the reply holds a JSON array of exactly `items` booleans, else None (the
    last such array counts when the judge restates itself)."""
    for candidate in reversed(_ARRAY.findall(reply or "")):
        try:
            values = json.loads(candidate.lower())
        except json.JSONDecodeError:
            continue
        if isinstance(values, list) and len(values) == items and all(isinstance(v, bool) for v in values):
            return values
    return None


def qa_id(case_id: str, level: str, question_id: str, model: str) -> str:
    """Return the id of one question answered by one model: `<case>|<level>|<question>|<model>` (the level as the
    environment records it, so one run directory holds the QA of every level of a case; without a level, the
    `<case>|<question>|<model>` of earlier versions)."""
    return f"{case_id}|{level}|{question_id}|{model}" if level else f"{case_id}|{question_id}|{model}"


class QARunner:
    """A tool-using answer to one question (an `Agent`), then the rubric judge."""

    def __init__(self, engine: Engine, view: CorpusView, settings: HarnessSettings, question: Question, run_dir: Path,
                 judge: str, corpus_hash: str = "") -> None:  # fmt: skip
        case_id = view.environment.case.case_id
        name = qa_id(case_id, view.environment.ablation, question.question_id, settings.model)
        self.agent = Agent(engine, view, settings, run_dir, name, corpus_hash=corpus_hash, folder=QA_DIR, task="qa")
        self.question, self.judge, self.run_dir = question, judge, run_dir
        self.record = QARecord(qa_id=name, question_id=question.question_id, environment=case_id,
                               model=settings.model, judge=judge, episode=self.agent.episode)  # fmt: skip

    async def finish(self, final_reply: str) -> None:
        """Read the answer and ask the judge for the rubric."""
        record, agent = self.record, self.agent
        record.answer = extract_answer(final_reply)
        if record.answer is None:
            record.label, record.score, record.reason = "incorrect", 0.0, "no 'ANSWER:' line in the final reply"
            if agent.episode.summary_truncated:
                record.reason += " (the reply was cut by the output token cap)"
            return
        rubric = [item.text for item in self.question.rubric]
        prompt = agent.settings.prompts.render("rubric_judge.j2", question=self.question.question,
                                               answer=self.question.answer, response=record.answer,
                                               rubric_items=rubric)  # fmt: skip
        reply = await agent.ask(f"{agent.episode.episode_id}|judge", [Message(role="user", content=prompt)],
                                model=self.judge)  # fmt: skip
        record.judge_reply = reply.text
        record.grades = parse_grades(reply.text, len(rubric))
        if record.grades is None:
            record.label, record.score = "unscored", None
            record.reason = f"the judge gave no array of {len(rubric)} booleans"
            return
        record.score = sum(record.grades) / len(rubric)
        record.label = "correct" if all(record.grades) else ("partial" if any(record.grades) else "incorrect")
        record.reason = f"{sum(record.grades)} of {len(rubric)} rubric items satisfied"

    async def run_question(self) -> QARecord:
        """Run the question (resuming stored steps) and save its record."""
        episode = await self.agent.run("qa.j2", self.finish, question=self.question.question)
        self.record.episode = episode
        if episode.status == "failed":  # a model call stayed unanswered: rerun to resume
            self.record.label, self.record.score, self.record.reason = "pending", None, episode.error
        save_record(self.record, self.run_dir)
        return self.record


def save_record(record: QARecord, run_dir: Path) -> Path:
    """Write `record` as `run_dir/qa/<id>.qa.json` and return the path."""
    path = Path(run_dir) / QA_DIR / f"{safe_name(record.episode.episode_id)}.qa.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return path


@dataclass
class QAUnit(RunUnit[QARecord]):
    """One question of one environment, answered with the tools and graded by `judge`."""

    question: Question | None = None
    judge: str = ""

    async def run(self, engine: Engine, view: CorpusView, run_dir: Path) -> QARecord:
        """Answer and grade the question; its records are saved in `run_dir/qa/`."""
        assert self.question is not None
        runner = QARunner(engine, view, self.settings, self.question, run_dir, self.judge, self.corpus_hash)
        return await runner.run_question()

    def save(self, result: QARecord, run_dir: Path) -> None:
        """Write the question's episode record and its graded record into `run_dir/qa/`."""
        result.episode.save(run_dir, QA_DIR)
        save_record(result, run_dir)


async def run_qa(
    env_dirs: list[Path],
    settings: HarnessSettings,
    judge: str,
    run_dir: Path,
    cache: ResponseCache | None,
    config: EngineConfig,
    *,
    concurrency: int = 2,
    on_record: Callable[[QARecord], None] | None = None,
    permanent_failures: dict[str, str] | None = None,
) -> list[QARecord]:
    """Answer and grade every question of every environment; returns the records in order. Requests that failed
    permanently are added to `permanent_failures` (request id -> reason) when it is given (see `run_gated`).

    Raises `RunConflictError` when `run_dir` holds another model's run, a hallucination run or QA with other
    settings (investigation episodes of the same model may share it), and `RunDirectoryLocked` while another
    process runs there."""
    meta = settings.to_meta() | {"judge": judge}
    store, views, hashes = open_run(env_dirs, run_dir, QA_KIND, settings.model, "qa_settings", meta)
    jobs = [
        QAUnit(env_dir=str(view.env_dir), corpus_hash=digest, settings=settings, run_dir=Path(run_dir), view=view,
               name=qa_id(view.environment.case.case_id, view.environment.ablation, question.question_id,
                          settings.model),
               question=question, judge=judge)
        for view, digest in zip(views, hashes, strict=True)
        for question in view.questions.questions
    ]  # fmt: skip
    return await run_gated(store, cache, config, jobs, concurrency, on_record, unit="question(s)",
                           permanent_failures=permanent_failures)  # fmt: skip


def load_qa_records(run_dir: Path) -> list[QARecord]:
    """Return the QA records of a run directory, sorted by id."""
    folder = Path(run_dir) / QA_DIR
    return [QARecord.model_validate_json(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.qa.json"))]


@dataclass
class QARun:
    """The graded questions, and the requests that failed permanently (request id -> reason)."""

    records: list[QARecord]
    permanent: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        """How many questions, their mean rubric score over the graded ones, and how many were unscored."""
        scored = [r.score for r in self.records if r.score is not None]
        unscored = sum(r.label == "unscored" for r in self.records)
        mean = f"{sum(scored) / len(scored):.3f}" if scored else "-"
        return f"{len(self.records)} questions; mean rubric score {mean} over {len(scored)} graded; {unscored} unscored"

    def failure(self) -> LexprobeError | None:
        """Exit 2 when requests failed permanently: a rerun would fail the same way."""
        return permanent_failures_error(self.permanent)


def check_qa_models(model: str, judge: str | None, *, batch: bool, ray: str | None) -> str:
    """Return the judge's spec (default: the model under test) once both models are usable; BadInputError for
    --batch with --ray (with --ray each question, its judge's call included, runs whole on a worker)."""
    judge_model = judge or model
    check_model(model)
    check_model(judge_model)
    if batch and ray is not None:
        raise BadInputError(
            "--batch and --ray cannot be combined here: with --ray each question runs whole on a "
            "Ray worker, its judge's call included, sent there one by one; drop one of them"
        )
    return judge_model


def run_questions(env_dirs: list[Path], settings: HarnessSettings, judge: str, run_dir: Path,
                  cache: ResponseCache | None, config: EngineConfig, concurrency: int) -> QARun:  # fmt: skip
    """Answer and grade every question of `env_dirs`; Ctrl-C stops every question at its next step (exit 130)."""
    permanent: dict[str, str] = {}
    with stop_on_sigint():
        records = asyncio.run(run_qa(env_dirs, settings, judge, run_dir, cache, config, concurrency=concurrency,
                                     permanent_failures=permanent))  # fmt: skip
    return QARun(records, permanent)
