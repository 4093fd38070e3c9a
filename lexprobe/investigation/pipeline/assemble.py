"""Stage `assemble`: write the environment (environment.json, questions.json, corpus/, extracted/) at the ablation
level chosen for the build, validate it and report.

- Merits exhibits are copied into corpus/ under neutral ids (`doc_<hash>`: neither the role nor the original file
  name shows); each carries the ground facts whose citation names its exhibit label ("Ex. 3" <-> a file or stamp
  "Exhibit 3"; best effort).
- Synthetic documents come from `generate`; a file missing from corpus/ is rendered again from the stored content
  and seed (rendering is deterministic).
- Hypotheses: the court-adopted and court-rejected party hypotheses (the rejected one is refuted by the adopted
  one's facts it does not share), and the alternatives (supported by their reused ground facts and injected
  supporting facts, refuted by their refuting facts).
- The corpus is selected with `ablation.select_documents`; an alternative whose refuting documents all failed
  (and whose refuters no other document carries) loses its pro-alternative documents too, so that nothing in the
  corpus supports an alternative the corpus cannot refute. corpus/ is then made to hold exactly the selected files.
- questions.json: one question per verified question stub (answer = its answer sketch, one rubric item).
- `lexprobe.investigation.validate.validate_environment` checks the result when that module is present; its
  problems go into the report (at the `merits` level the alternatives are unrefutable from the corpus by design).
"""

from __future__ import annotations

import importlib
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexprobe.investigation.environment import (
    CORPUS_DIR,
    CaseInfo,
    Document,
    Environment,
    Hypothesis,
    HypothesisKind,
    save_environment,
)
from lexprobe.investigation.pipeline.ablation import select_documents
from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.facts import FactTable
from lexprobe.investigation.pipeline.generate import GenerationResult, Rejection
from lexprobe.investigation.pipeline.hypotheses import Ruling
from lexprobe.investigation.pipeline.ingest import IngestResult
from lexprobe.investigation.pipeline.opinion import OpinionResult
from lexprobe.investigation.pipeline.planning import all_specs
from lexprobe.investigation.pipeline.record import case_id, neutral_doc_id
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.truth import hypotheses_and_facts, questions_from_stubs

BUILD_REPORT = "build_report.json"
_SUFFIX_FORMAT = {".pdf": "pdf", ".docx": "docx", ".xlsx": "xlsx", ".pptx": "pptx", ".txt": "txt", ".md": "txt"}


class BuildReport(BaseModel):
    """The `assemble` stage's output, also written to OUT/build_report.json."""

    case_id: str
    ablation: str
    documents_by_role: dict[str, int] = Field(description="Documents in the corpus at this ablation level.")
    generated_by_role: dict[str, int] = Field(description="Synthetic documents accepted, at any level.")
    failed_specs: list[str] = Field(default_factory=list)
    rejections: int = 0
    rejections_by: dict[str, int] = Field(default_factory=dict)
    rejection_log: list[Rejection] = Field(default_factory=list)
    dropped_by_stage: dict[str, int] = Field(default_factory=dict, description="Items code removed, per stage.")
    left_out: list[str] = Field(default_factory=list)
    questions: int = 0
    validator: list[str] | None = Field(default=None, description="Problems found; None: no validator available.")
    usage: dict[str, Any] | None = Field(default=None, description="Tokens and cost of the build, per stage.")
    warnings: list[str] = Field(default_factory=list)


_EXHIBIT_LABEL = re.compile(r"(?<![a-z])(?:exhibit|ex)[\s._-]*([a-z]{0,2}\d+[a-z]?|[a-z])(?![a-z0-9])", re.I)


def exhibit_labels(filename: str, text: str) -> set[str]:
    """Return the exhibit labels a record file goes by ("3", "p31"), from its name and its first/last lines."""
    found = _EXHIBIT_LABEL.findall(Path(filename).stem) + _EXHIBIT_LABEL.findall(text[:300] + " " + text[-300:])
    return {label.lower() for label in found}


def merits_documents(ctx: StageContext, case: str, table: FactTable) -> list[Document]:
    """Copy the merits exhibits into corpus/ and return their documents."""
    ingest: IngestResult = ctx.output("ingest")
    annotations = {a.source_id: a for a in ctx.output("exhibits").exhibits} if "exhibits" in ctx.outputs else {}
    documents = []
    for source in ingest.corpus_documents:
        suffix = Path(source.filename).suffix.lower()
        doc_id = neutral_doc_id(case, f"merits:{source.source_id}")
        path = f"{doc_id}{'.txt' if suffix == '.md' else suffix}"
        target = ctx.out_dir / CORPUS_DIR / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ctx.record_dir / source.filename, target)
        labels = exhibit_labels(source.filename, ctx.text_of(source.source_id))
        facts = [f.fact_id for f in table.facts if labels & {x.lower() for x in _EXHIBIT_LABEL.findall(f.citation)}]
        note = annotations.get(source.source_id)
        documents.append(
            Document(
                doc_id=doc_id,
                path=path,
                format=_SUFFIX_FORMAT[suffix],  # type: ignore[arg-type]
                doc_type=note.doc_type if note else source.doc_kind,
                date=note.date if note else None,
                author=note.author if note else None,
                mentions=note.mentions if note else [],
                role="merits",
                facts=facts,
                title=note.title if note else source.title,
            )
        )
    return documents


def synthetic_documents(ctx: StageContext, entities: EntityTable) -> list[Document]:
    """Return the accepted synthetic documents (rendering again any file missing from corpus/)."""
    from lexprobe.documents.render import render_document

    specs = {s.spec_id: s for s in all_specs(ctx.output("doc_plans"), ctx.output("shard_plans"))}
    documents = []
    for generated in ctx.output("generate").documents:
        spec = specs[generated.spec_id]
        target = ctx.out_dir / CORPUS_DIR / generated.path
        if not target.is_file():
            render_document(generated.content, target, generated.format, generated.seed)
        content = generated.content
        documents.append(
            Document(
                doc_id=generated.doc_id,
                path=generated.path,
                format=generated.format,
                doc_type=spec.doc_type,
                date=(content.date or spec.date_from)[:10],
                author=spec.author_entity or None,
                mentions=entities.found_in(content.model_dump_json()),
                role=spec.role,
                facts=[spec.target_fact] if spec.target_fact else [],
                target_hypothesis=spec.target_hypothesis,
                series=spec.series,
                title=content.title or spec.title,
            )
        )
    return documents


def refutable_only(documents: list[Document], hypotheses: list[Hypothesis]) -> tuple[list[Document], list[str]]:
    """Drop the pro-alternative documents of alternatives no document refutes; return the rest and what went."""
    carried = {f for d in documents for f in d.facts}
    left_out, kept = [], documents
    for hyp in hypotheses:
        if hyp.kind == HypothesisKind.alternative and not carried & set(hyp.refuting_facts):
            gone = [d.doc_id for d in kept if d.role == "pro_alternative" and d.target_hypothesis == hyp.hypothesis_id]
            kept = [d for d in kept if d.doc_id not in gone]
            if gone:
                left_out.append(
                    f"{len(gone)} pro_alternative document(s) of {hyp.hypothesis_id}: no document refutes it"
                )
    return kept, left_out


def sync_corpus(out_dir: Path, selected: list[Document]) -> None:
    """Create corpus/ if needed and remove every file in it that no selected document lists."""
    corpus = out_dir / CORPUS_DIR
    corpus.mkdir(parents=True, exist_ok=True)
    wanted = {d.path for d in selected}
    for path in sorted(corpus.rglob("*")):
        if path.is_file() and path.relative_to(corpus).as_posix() not in wanted:
            path.unlink()


def run_validator(out_dir: Path) -> list[str] | None:
    """Return the validator's problems as text, or None when lexprobe.investigation.validate is not installed."""
    try:
        module = importlib.import_module("lexprobe.investigation.validate")
    except ImportError:
        return None
    return [str(problem) for problem in module.validate_environment(out_dir)]


@stage("assemble", output=BuildReport, settings=("ablation", "case_id", "category", "fictional", "seed"))
def assemble(ctx: StageContext) -> BuildReport:
    """Write the environment at the chosen ablation level and return the build report."""
    case = case_id(ctx)
    table: FactTable = ctx.output("ground_facts")
    entities: EntityTable = ctx.output("entities")
    opinion: OpinionResult = ctx.output("opinion")
    ruling: Ruling = ctx.output("ruling")
    generation: GenerationResult = ctx.output("generate")
    hypotheses, facts = hypotheses_and_facts(ctx)
    every = merits_documents(ctx, case, table) + synthetic_documents(ctx, entities)
    candidates, left_out = refutable_only(every, hypotheses)
    selected = select_documents(candidates, ctx.settings.ablation)
    sync_corpus(ctx.out_dir, selected)
    info = CaseInfo(
        case_id=case,
        name=opinion.case or case,
        court=opinion.court,
        docket=opinion.citation,
        category=ctx.settings.category,
        dispositive_question=ruling.dispositive_question,
        disposition=ruling.disposition,
        fictional=ctx.settings.fictional,
        source=str(ctx.record_dir),
    )
    env = Environment(
        case=info,
        entities=entities.entities,
        facts=facts,
        hypotheses=hypotheses,
        documents=selected,
        ablation=ctx.settings.ablation,
    )
    questions = questions_from_stubs(opinion, table)
    save_environment(ctx.out_dir, env, questions)
    _extract(ctx.out_dir)
    report = BuildReport(
        case_id=case,
        ablation=ctx.settings.ablation,
        documents_by_role=dict(Counter(d.role.value for d in selected)),
        generated_by_role=dict(Counter(d.role.value for d in every if d.role != "merits")),
        failed_specs=[f.spec_id for f in generation.failed],
        rejections=len(generation.rejections),
        rejections_by=dict(Counter(r.by for r in generation.rejections)),
        rejection_log=generation.rejections,
        dropped_by_stage={
            name: len(getattr(out, "dropped", [])) for name, out in ctx.outputs.items() if getattr(out, "dropped", None)
        },
        left_out=left_out,
        questions=len(questions.questions),
        validator=run_validator(ctx.out_dir),
        usage=ctx.llm.usage() if hasattr(ctx.llm, "usage") else None,
        warnings=ctx.output("ingest").warnings,
    )
    (ctx.out_dir / BUILD_REPORT).write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    ctx.log(f"  assemble: {len(selected)} documents at {ctx.settings.ablation} -> {ctx.out_dir}")
    return report


def _extract(out_dir: Path) -> None:
    """Fill OUT/extracted/ with the corpus's text (the layout agent tools read), when lexprobe.documents has it."""
    try:
        from lexprobe.documents.corpus import extract_corpus
    except ImportError:  # pragma: no cover - the documents package is part of lexprobe
        return
    extract_corpus(out_dir / CORPUS_DIR)
