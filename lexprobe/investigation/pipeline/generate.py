"""Stage `generate`: write, check, judge and render every planned document.

Each specification (from `doc_plans` and `shard_plans`) goes through rounds: the generator writes a
`DocumentContent` JSON; code checks it (a body of real text; a date in the window, filled in from the window when
missing; no ids, role words or exercise vocabulary leaking into the text); the judge reads the rendered text
against the specification and answers accept or reject with reasons (a JSON verdict); an accepted document is
rendered into OUT/corpus/<doc_id>.<format> with `render_document` (deterministic: the seed comes from the build
seed and the spec id). A refused draft (by schema, code, judge or renderer) is recorded with its reasons and
the spec is regenerated with those reasons, up to `regenerations` times (3 by default: four drafts in all).
A spec that never passes is recorded as failed and left out of the corpus.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.documents.content import DocType, DocumentContent, parse_iso
from lexprobe.documents.render import render_document
from lexprobe.investigation.environment import CORPUS_DIR, DocumentFormat, Role
from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.llm import Ask, ask_json
from lexprobe.investigation.pipeline.planning import DocSpec, all_specs
from lexprobe.investigation.pipeline.record import case_id, neutral_doc_id
from lexprobe.investigation.pipeline.registry import LLM_SETTINGS, stage
from lexprobe.investigation.pipeline.templates import render_prompt

DATE_SLACK = timedelta(days=31)
MIN_BODY_CHARS = 60
_LEAKS = re.compile(
    r"\b(?:gf|op|inj|alt)_[A-Za-z0-9_]+|\bpro[_ -]alternative\b|\bchaff\b|\bhypothes[ie]s\b|\bground fact|"
    r"\binjected fact|\bsignal document|\bnoise document|\[PAGE \d+\]|\bfact_id\b|\bshard\b",
    re.I,
)


class JudgeVerdict(BaseModel):
    """The judge's verdict on one document."""

    verdict: Literal["accept", "reject"]
    reasons: list[str] = Field(max_length=5)


class Rejection(BaseModel):
    """One refused draft of one spec."""

    spec_id: str
    draft: int
    by: Literal["schema", "code", "judge", "render"]
    reasons: list[str]


class GeneratedDoc(BaseModel):
    """An accepted, rendered synthetic document."""

    spec_id: str
    doc_id: str
    path: str = Field(description="Relative to corpus/.")
    format: DocumentFormat
    drafts: int
    seed: int
    content: DocumentContent


class FailedSpec(BaseModel):
    """A spec that never passed; it is left out of the corpus."""

    spec_id: str
    role: Role
    reasons: list[str]


class GenerationResult(BaseModel):
    """The `generate` stage's output."""

    documents: list[GeneratedDoc] = Field(default_factory=list)
    rejections: list[Rejection] = Field(default_factory=list)
    failed: list[FailedSpec] = Field(default_factory=list)


def check_document(content: DocumentContent, spec: DocSpec) -> tuple[DocumentContent, list[str]]:
    """Return the draft with doc_type and a missing date filled in from the spec, and why code refuses it."""
    content = content.model_copy(update={"doc_type": DocType(spec.doc_type), "date": content.date or spec.date_from})
    problems = []
    text = " ".join(str(v) for v in content.model_dump(mode="json", exclude={"doc_type", "date"}).values())
    if not content.body or len(" ".join(str(b.model_dump()) for b in content.body)) < MIN_BODY_CHARS:
        problems.append("the body is empty or too short for the doc_type")
    leak = _LEAKS.search(text)
    if leak:
        problems.append(f"the text contains exercise vocabulary or an internal id ({leak.group(0)!r}); remove it")
    date, start, end = parse_iso(content.date or ""), parse_iso(spec.date_from), parse_iso(spec.date_to)
    if date and start and end and not (start - DATE_SLACK <= date <= end + DATE_SLACK):
        problems.append(f"dated {content.date}, outside the window {spec.date_from} to {spec.date_to}")
    return content, problems


def spec_seed(settings_seed: int, spec_id: str) -> int:
    """Return the rendering seed of one spec: stable, and different from spec to spec."""
    return settings_seed + int(hashlib.sha1(spec_id.encode()).hexdigest()[:6], 16)


def plain_text(content: DocumentContent, seed: int) -> str:
    """Return the document as the txt renderer prints it (what the judge reads)."""
    with tempfile.TemporaryDirectory() as folder:
        return render_document(content, Path(folder) / "doc.txt", "txt", seed).read_text(encoding="utf-8")


@stage(
    "generate",
    output=GenerationResult,
    templates=("generate_document", "judge_document"),
    settings=(*LLM_SETTINGS, "judge", "regenerations", "seed", "case_id"),
)
def generate(ctx: StageContext) -> GenerationResult:
    """Write every planned document. Never raises for a document that fails: it is recorded and left out."""
    specs = {s.spec_id: s for s in all_specs(ctx.output("doc_plans"), ctx.output("shard_plans"))}
    entities: EntityTable = ctx.output("entities")
    names = {e.entity_id: e.name for e in entities.entities}
    background = {
        "story": ctx.output("opinion").story,
        "entities": [{"id": e.entity_id, "name": e.name, "aliases": e.aliases} for e in entities.entities],
        "disputed": [f.text for f in ctx.output("ground_facts").facts][:30],
    }
    case, result = case_id(ctx), GenerationResult()
    feedback: dict[str, str] = {}
    pending = list(specs)
    for round_ in range(ctx.settings.regenerations + 1):
        if not pending:
            break
        ctx.log(f"  generate: draft {round_ + 1}: writing {len(pending)} document(s)")
        draft_round = _Round(ctx, round_, feedback, names, background, case, result)
        draft_round.judge_and_render(draft_round.write([specs[s] for s in pending]))
        pending = [s for s in pending if s in draft_round.refused]
    for spec_id in pending:
        reasons = [r for rej in result.rejections if rej.spec_id == spec_id for r in rej.reasons][-3:]
        result.failed.append(FailedSpec(spec_id=spec_id, role=specs[spec_id].role, reasons=reasons))
    counts = f"{len(result.documents)} accepted, {len(result.failed)} failed, {len(result.rejections)} refused"
    ctx.log(f"  generate: {counts}")
    return result


@dataclass
class _Round:
    """One draft round: the specs still pending, what the writer needs, and where results go."""

    ctx: StageContext
    number: int
    feedback: dict[str, str]
    names: dict[str, str]
    background: dict
    case: str
    result: GenerationResult
    refused: set[str] = field(default_factory=set)

    def refuse(self, spec_id: str, by: str, reasons: list[str]) -> None:
        self.result.rejections.append(Rejection(spec_id=spec_id, draft=self.number + 1, by=by, reasons=reasons))  # type: ignore[arg-type]
        self.feedback[spec_id] = "; ".join(reasons)
        self.refused.add(spec_id)

    def author(self, spec: DocSpec) -> str:
        return self.names.get(spec.author_entity, "an employee")

    def write(self, specs: list[DocSpec]) -> list[tuple[DocSpec, DocumentContent, int, str]]:
        """Ask for one draft per spec; return the drafts that pass the code checks, with seed and plain text."""
        asks = [
            Ask(
                s.spec_id,
                render_prompt(
                    "generate_document",
                    spec=s,
                    author=self.author(s),
                    feedback=self.feedback.get(s.spec_id, ""),
                    **self.background,
                ),
            )
            for s in specs
        ]
        failures: dict[str, str] = {}
        first = self.number * self.ctx.settings.max_attempts
        drafts = ask_json(self.ctx, asks, DocumentContent, give_up="none", first_attempt=first, failures=failures)
        passed = []
        for spec, draft in zip(specs, drafts, strict=True):
            if draft is None:
                self.refuse(spec.spec_id, "schema", [failures.get(spec.spec_id, "no valid document JSON")])
                continue
            content, problems = check_document(draft, spec)
            if problems:
                self.refuse(spec.spec_id, "code", problems)
                continue
            seed = spec_seed(self.ctx.settings.seed, spec.spec_id)
            passed.append((spec, content, seed, plain_text(content, seed)))
        return passed

    def judge_and_render(self, drafts: list[tuple[DocSpec, DocumentContent, int, str]]) -> None:
        """Ask the judge about each draft; render the accepted ones into corpus/."""
        asks = [
            Ask(
                f"{spec.spec_id}#{self.number + 1}",
                render_prompt("judge_document", spec=spec, author=self.author(spec), text=self.ctx.clip(text)),
                role="judge",
            )
            for spec, _, _, text in drafts
        ]
        failures: dict[str, str] = {}
        first = self.number * self.ctx.settings.max_attempts
        verdicts = ask_json(self.ctx, asks, JudgeVerdict, give_up="none", first_attempt=first, failures=failures)
        for (spec, content, seed, _), ask, verdict in zip(drafts, asks, verdicts, strict=True):
            if verdict is None:
                self.refuse(spec.spec_id, "judge", [f"the judge gave no valid verdict: {failures.get(ask.item, '')}"])
            elif verdict.verdict == "reject":
                self.refuse(spec.spec_id, "judge", verdict.reasons or ["rejected without a reason"])
            else:
                self.render(spec, content, seed)

    def render(self, spec: DocSpec, content: DocumentContent, seed: int) -> None:
        doc_id = neutral_doc_id(self.case, spec.spec_id)
        relative = f"{doc_id}.{spec.format}"
        try:
            render_document(content, self.ctx.out_dir / CORPUS_DIR / relative, spec.format, seed)
        except Exception as exc:  # a renderer failure refuses the draft like any other problem
            self.refuse(spec.spec_id, "render", [f"{type(exc).__name__}: {exc}"])
            return
        document = GeneratedDoc(
            spec_id=spec.spec_id,
            doc_id=doc_id,
            path=relative,
            format=spec.format,
            drafts=self.number + 1,
            seed=seed,
            content=content,
        )
        self.result.documents.append(document)
