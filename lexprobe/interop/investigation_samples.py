"""An investigation run's episodes and a QA run's graded questions as Inspect samples, one record file at a time:
the transcript of both turns as messages, the court-adopted hypothesis (or the reference answer) as the target, and
lexprobe's scores (`score_episode`'s metrics, the QA label and rubric share) as `Score`s with their reasons."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.log import EvalMetric, EvalSample, EvalScore
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score

from lexprobe.errors import BadInputError
from lexprobe.interop.messages import transcript_messages
from lexprobe.investigation.agent.episode import EPISODES_DIR, Episode
from lexprobe.investigation.environment.format import Question, load_environment
from lexprobe.investigation.qa.runner import QA_DIR, QARecord
from lexprobe.investigation.scoring.inputs import resolve_env_dir
from lexprobe.investigation.scoring.metrics import ADOPTED, DEFINITIONS, METRICS, score_episode

__all__ = ["EpisodeSamples", "QASamples", "episode_files", "qa_files"]


def episode_files(run_dir: Path) -> list[Path]:
    """The episode records of a run directory (`episodes/*.json`), sorted by name."""
    return sorted(path for path in (Path(run_dir) / EPISODES_DIR).glob("*.json") if path.is_file())


def qa_files(run_dir: Path) -> list[Path]:
    """The QA records of a run directory (`qa/*.qa.json`), sorted by name."""
    return sorted(path for path in (Path(run_dir) / QA_DIR).glob("*.qa.json") if path.is_file())


def _read(path: Path, model: type[Episode] | type[QARecord]) -> Episode | QARecord:
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BadInputError(f"{path}: not a lexprobe {model.__name__} record ({str(exc).splitlines()[0]})") from None


def _final_text(episode: Episode) -> str:
    """The episode's last assistant text (the verdict reply, or a QA's final answer)."""
    return episode.verdict_reply or episode.summary


def verdict_score(episode: Episode) -> Score:
    """Every hypothesis's verdict against the truth, as one score (value: label -> verdict)."""
    lines = [f"{v.label} ({v.kind}): {v.verdict or 'no verdict'}{' - ' + v.reason if v.reason else ''}"
             for v in episode.verdicts]  # fmt: skip
    return Score(value={v.label: v.verdict or "none" for v in episode.verdicts},
                 explanation="\n".join(lines) or "no verdicts read")  # fmt: skip


def episode_scores(episode: Episode) -> dict[str, Score]:
    """lexprobe's metrics of one episode (`score_episode`), each a score with its definition as explanation (a
    metric the episode has no value for, such as the accuracy of a class it has no hypothesis of, is left out)."""
    scored = score_episode(episode)
    scores = {"verdicts": verdict_score(episode)}
    for name in METRICS:
        value = getattr(scored, name)
        if value is not None:
            scores[name] = Score(value=value, explanation=DEFINITIONS[name])
    return scores


@dataclass
class EpisodeSamples:
    """The samples of an investigation run directory (iterate once); `results` then gives the mean of each
    metric over the episodes."""

    run_dir: Path
    sums: dict[str, list[float]] = field(default_factory=dict)

    def __iter__(self) -> Iterator[EvalSample]:
        for path in episode_files(self.run_dir):
            episode = _read(path, Episode)
            assert isinstance(episode, Episode)
            yield self.sample(episode)

    def sample(self, episode: Episode) -> EvalSample:
        """One episode as a sample (epoch: the episode's epoch + 1, Inspect's epochs count from 1)."""
        scores = episode_scores(episode)
        for name, score in scores.items():
            if name in METRICS:
                self.sums.setdefault(name, []).append(float(score.value))  # type: ignore[arg-type]
        messages = transcript_messages(episode.transcript, episode.model)
        adopted = [v.label for v in episode.verdicts if v.kind == ADOPTED]
        metadata = episode.model_dump(mode="json", exclude={"transcript", "summary", "verdict_reply"})
        return EvalSample(id=episode.episode_id, epoch=episode.epoch + 1, input=_first_user(messages),
                          target=adopted or "", messages=messages,
                          output=ModelOutput.from_content(episode.model, _final_text(episode)),
                          scores=scores, metadata=metadata)  # fmt: skip

    def results(self) -> list[EvalScore]:
        """The mean of each metric over the episodes that have it."""
        metrics = {name: EvalMetric(name=name, value=sum(v) / len(v), params={"episodes": len(v)})
                   for name, v in self.sums.items() if v}  # fmt: skip
        return [
            EvalScore(
                name="case_solved",
                scorer="lexprobe/investigation",
                scored_samples=len(self.sums.get("case_solved", [])),
                metrics=metrics,
            )
        ]


def _first_user(messages: list) -> str:
    return next((m.text for m in messages if m.role == "user"), "")


@dataclass
class QASamples:
    """The samples of a QA run directory (iterate once); `results` then gives the label counts and mean score."""

    run_dir: Path
    labels: dict[str, int] = field(default_factory=dict)
    shares: list[float] = field(default_factory=list)
    questions: dict[str, dict[str, Question]] = field(default_factory=dict)

    def __iter__(self) -> Iterator[EvalSample]:
        for path in qa_files(self.run_dir):
            record = _read(path, QARecord)
            assert isinstance(record, QARecord)
            yield self.sample(record)

    def question(self, record: QARecord) -> Question | None:
        """The record's question as its environment states it (None when the environment is not found)."""
        env_dir = resolve_env_dir(record.episode, self.run_dir, None)
        if env_dir is None:
            return None
        if str(env_dir) not in self.questions:
            _, questions = load_environment(env_dir)
            self.questions[str(env_dir)] = {q.question_id: q for q in questions.questions}
        return self.questions[str(env_dir)].get(record.question_id)

    def sample(self, record: QARecord) -> EvalSample:
        """One graded question as a sample: the label (with the reason) and the rubric share as scores."""
        self.labels[record.label] = self.labels.get(record.label, 0) + 1
        scores = {"qa_label": Score(value=record.label, answer=record.answer, explanation=record.reason,
                                    metadata={"grades": record.grades, "judge": record.judge,
                                              "judge_reply": record.judge_reply})}  # fmt: skip
        if record.score is not None:
            self.shares.append(record.score)
            scores["rubric_share"] = Score(value=record.score, explanation="share of rubric items satisfied")
        question = self.question(record)
        messages = transcript_messages(record.episode.transcript, record.model)
        metadata = record.model_dump(mode="json", exclude={"episode"}) | {"environment_found": question is not None}
        if question is not None:
            metadata["rubric"] = [item.model_dump(mode="json") for item in question.rubric]
        return EvalSample(id=record.qa_id, epoch=1, input=question.question if question else _first_user(messages),
                          target=question.answer if question else "", messages=messages,
                          output=ModelOutput.from_content(record.model, _final_text(record.episode)),
                          scores=scores, metadata=metadata)  # fmt: skip

    def results(self) -> list[EvalScore]:
        """The share of each label and the mean rubric share."""
        total = sum(self.labels.values())
        metrics = {f"{label}_share": EvalMetric(name=f"{label}_share", value=count / total)
                   for label, count in sorted(self.labels.items())}  # fmt: skip
        if self.shares:
            metrics["rubric_share"] = EvalMetric(name="rubric_share", value=sum(self.shares) / len(self.shares))
        return [EvalScore(name="qa_label", scorer="lexprobe/qa", scored_samples=len(self.shares), metrics=metrics)]
