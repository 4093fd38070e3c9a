"""The investigation environment format (InvestigationWorlds, Section 1.1): a corpus of documents, the entities that
recur across them, the canonical fact table and the hypothesis DAG, plus the factual-QA questions.

On disk an environment is a directory:

    ENV/
      environment.json    Environment (this module), schema_version SCHEMA_VERSION
      questions.json      QuestionSet (factual QA: question, answer, rubric items), schema_version SCHEMA_VERSION
      corpus/             the documents in their native formats (pdf, docx, xlsx, pptx, txt)
      extracted/          extracted text, written by lexprobe.documents (agent tools read this, never corpus/)

Hypotheses: exactly one court-adopted (h*), one court-rejected (h-dagger) and the synthetic alternatives (two by
default). Every hypothesis names the fact ids that support and refute it. Every document carries a role:
- `merits`: a real exhibit from the record;
- `signal`: synthetic, asserts (or patterns, in shards) a ground fact that supports the adopted hypothesis;
- `pro_alternative`: synthetic, supports an alternative hypothesis with an injected fact;
- `refuting`: synthetic, carries the fact that refutes an alternative;
- `noise`: synthetic, on-topic for the case world but bearing on no hypothesis;
- `chaff`: synthetic, off-topic filler of realistic business records.

A hypothesis's `sub_claims` are the DAG's inner nodes: each has an id, a label, the ground fact ids under it and,
for the party hypotheses, the court's ruling on it (accepted | rejected | not_reached) with the verified opinion
quote giving the reason; an alternative's sub-claims carry no ruling (None: the court never saw them). A rubric
item of a factual-QA question names the ground fact it checks (`fact_id`), or None when it restates the answer.

The case info records the model that built the environment (`generator`, and the `judge` of its documents) so
that scoring can compare models across generators (Section 4.4); files without it load with both empty.

Schema versions: 2 (this one) adds sub-claim objects and rubric items' `fact_id`. Version 1 files still load: a
sub-claim given as a string becomes `{sub_claim_id: "<hypothesis_id>_<k>" (k from 1), label: the string}` with no
facts and no ruling; `save_environment` always writes the current version; a newer version than this lexprobe
reads is refused.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lexprobe.errors import BadInputError, InputNotFoundError
from lexprobe.investigation.environment.roles import (
    Role,  # re-exported: defined apart so that light modules can name roles
)

SCHEMA_VERSION = 2
ENVIRONMENT_FILE = "environment.json"
QUESTIONS_FILE = "questions.json"
CORPUS_DIR = "corpus"
EXTRACTED_DIR = "extracted"

DocumentFormat = Literal["pdf", "docx", "xlsx", "pptx", "txt"]


class HypothesisKind(StrEnum):
    """Which hypothesis of the DAG this is."""

    court_adopted = "court_adopted"
    court_rejected = "court_rejected"
    alternative = "alternative"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class CaseInfo(_Model):
    """The case the environment is built from."""

    case_id: str = Field(description="Stable identifier, e.g. 'cacd-2-16-cv-06794'.")
    name: str = Field(description="Caption, e.g. 'Marshall v. Northrop Grumman Corp.'.")
    court: str = Field(default="", description="Court, e.g. 'C.D. Cal.'.")
    docket: str = Field(default="", description="Docket number.")
    category: str = Field(default="", description="Federal case type (employment, contract, ...).")
    dispositive_question: str = Field(description="The root of the DAG: the legal question the motion decided.")
    disposition: str = Field(default="", description="granted | denied | granted_in_part (the court's ruling).")
    fictional: bool = Field(default=False, description="True for hand-written or synthetic cases (say so to users).")
    source: str = Field(default="", description="Where the record came from (RECAP docket, fixture, dataset).")
    generator: str = Field(
        default="",
        description="The model spec that built the environment (extraction, alternatives, documents), "
        "'hand-written' for a hand-written one; empty when not recorded (environments built before this field).",
    )
    judge: str = Field(default="", description="The model spec that judged the generated documents, when recorded.")


class Entity(_Model):
    """A person, organization, instrument or artifact recurring across documents (disambiguated)."""

    entity_id: str
    name: str
    kind: Literal["person", "organization", "instrument", "artifact", "place", "other"] = "other"
    aliases: list[str] = Field(default_factory=list)
    description: str = ""


class Fact(_Model):
    """One atomic, citation-bearing factual proposition of the canonical fact table."""

    fact_id: str
    text: str
    source: Literal["opinion", "souf", "rsouf", "brief", "injected"] = "opinion"
    disputed: bool = False
    citation: str = Field(default="", description="Exhibit, docket or opinion page the fact is sourced from.")
    highlight: str = Field(default="", description="Verbatim quote from the source supporting the fact.")


RulingValue = Literal["accepted", "rejected", "not_reached"]


class SubClaim(_Model):
    """One inner node of a hypothesis DAG: a factual sub-claim, the facts under it and the court's ruling on it."""

    sub_claim_id: str = Field(description="Unique within its hypothesis, e.g. 'hd_2'.")
    label: str = Field(description="The sub-claim, one factual sentence (may be empty for a flat fallback group).")
    facts: list[str] = Field(default_factory=list, description="Ground fact ids under the sub-claim.")
    ruling: RulingValue | None = Field(
        default=None, description="The court's ruling on it; None when the court did not rule on it (alternatives)."
    )
    rationale: str = Field(default="", description="Verified opinion quote giving the ruling's reason (may be empty).")


class Hypothesis(_Model):
    """One reading of the case: a claim, its sub-claims, and the facts that support and refute it."""

    hypothesis_id: str
    kind: HypothesisKind
    claim: str = Field(description="One-sentence statement the agent believes or rejects.")
    sub_claims: list[SubClaim] = Field(default_factory=list, description="The DAG's inner nodes (see SubClaim).")
    supporting_facts: list[str] = Field(default_factory=list)
    refuting_facts: list[str] = Field(default_factory=list)
    party: Literal["plaintiff", "defendant", ""] = ""

    @model_validator(mode="before")
    @classmethod
    def _version_1_sub_claims(cls, data: Any) -> Any:
        """Accept version-1 sub-claims (strings) by making them sub-claim objects `<hypothesis_id>_<k>` (k from 1)
        without facts or ruling."""
        if isinstance(data, dict) and isinstance(data.get("sub_claims"), list):
            hypothesis_id = data.get("hypothesis_id")
            prefix = hypothesis_id if isinstance(hypothesis_id, str) else "h"
            upgraded = [{"sub_claim_id": f"{prefix}_{k}", "label": item} if isinstance(item, str) else item
                        for k, item in enumerate(data["sub_claims"], start=1)]  # fmt: skip
            data = {**data, "sub_claims": upgraded}
        return data


class Document(_Model):
    """One file of the corpus with its annotation."""

    doc_id: str
    path: str = Field(description="Path relative to corpus/ (POSIX separators).")
    format: DocumentFormat
    doc_type: str = Field(description="email, memo, contract, deposition, invoice, ... (see lexprobe.documents).")
    date: str | None = Field(default=None, description="ISO date the document bears, where it has one.")
    author: str | None = Field(default=None, description="Entity id of the author.")
    mentions: list[str] = Field(default_factory=list, description="Entity ids the document mentions.")
    role: Role
    facts: list[str] = Field(default_factory=list, description="Fact ids the document carries (asserts).")
    target_hypothesis: str | None = Field(default=None, description="The hypothesis a synthetic document serves.")
    series: str | None = Field(default=None, description="Id of the coherent series the document belongs to.")
    title: str = ""


class Environment(_Model):
    """environment.json."""

    schema_version: int = SCHEMA_VERSION
    case: CaseInfo
    entities: list[Entity] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    hypotheses: list[Hypothesis] = Field(default_factory=list)
    documents: list[Document] = Field(default_factory=list)
    ablation: str = Field(default="+chaff100", description="Ablation level the corpus was assembled at.")

    def fact(self, fact_id: str) -> Fact | None:
        """Return the fact with this id, or None."""
        return next((fact for fact in self.facts if fact.fact_id == fact_id), None)

    def hypotheses_of(self, kind: HypothesisKind) -> list[Hypothesis]:
        """Return the hypotheses of one kind."""
        return [h for h in self.hypotheses if h.kind == kind]


class RubricItem(_Model):
    """One point a correct answer must make (a checkable statement the judge grades true or false)."""

    item_id: str
    text: str
    fact_id: str | None = Field(
        default=None, description="The ground fact this item checks; None when it restates the answer itself."
    )


class Question(_Model):
    """One factual-QA question over the corpus."""

    question_id: str
    question: str
    answer: str
    rubric: list[RubricItem] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list, description="Fact ids the answer rests on.")


class QuestionSet(_Model):
    """questions.json."""

    schema_version: int = SCHEMA_VERSION
    questions: list[Question] = Field(default_factory=list)


def load_environment(env_dir: Path) -> tuple[Environment, QuestionSet]:
    """Read environment.json and questions.json (an absent questions.json is an empty set).

    Raises FileNotFoundError when environment.json is missing and ValueError (naming the file and the pydantic
    error locations) when either file does not match the schema or has a newer schema_version.
    """
    env_dir = Path(env_dir)
    env = _read(env_dir / ENVIRONMENT_FILE, Environment)
    questions_path = env_dir / QUESTIONS_FILE
    questions = _read(questions_path, QuestionSet) if questions_path.is_file() else QuestionSet()
    return env, questions


def _read(path: Path, model: type[_Model]):
    if not path.is_file():
        raise InputNotFoundError(f"{path} not found")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
    version = raw.get("schema_version", SCHEMA_VERSION) if isinstance(raw, dict) else SCHEMA_VERSION
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise ValueError(f"{path}: schema_version {version} is newer than this lexprobe reads ({SCHEMA_VERSION})")
    try:
        return model.model_validate(raw)
    except Exception as exc:  # pydantic.ValidationError: name every location
        raise ValueError(f"{path}: does not match the {model.__name__} schema: {exc}") from None


def save_environment(env_dir: Path, env: Environment, questions: QuestionSet | None = None) -> None:
    """Write environment.json (and questions.json when given) at the current SCHEMA_VERSION (an environment read
    from an older version is written in the current one), pretty-printed with stable key order."""
    env_dir = Path(env_dir)
    env_dir.mkdir(parents=True, exist_ok=True)
    env = env.model_copy(update={"schema_version": SCHEMA_VERSION})
    (env_dir / ENVIRONMENT_FILE).write_text(env.model_dump_json(indent=2) + "\n", encoding="utf-8")
    if questions is not None:
        questions = questions.model_copy(update={"schema_version": SCHEMA_VERSION})
        (env_dir / QUESTIONS_FILE).write_text(questions.model_dump_json(indent=2) + "\n", encoding="utf-8")
