"""Stage `assemble`: write the environment -- environment.json, questions.json, corpus/, extracted/ -- at every
ablation level the build asks for (`BuildSettings.assembled_levels`), validate each and report.

- Levels come from `lexprobe.investigation.environment.ladder` (the one definition of the ladder). With `levels`
  empty the build writes its one level, `ablation`, at OUT itself (the layout of earlier builds); with `levels` set
  (`--levels all` or a comma list) it writes one complete environment per level at OUT/<slug>/ (merits,
  pro_alternative, noise, chaff50, chaff100), each valid on its own and recording its level in environment.json's
  `ablation`. A stale environment left at OUT itself by an earlier one-level build (environment.json,
  questions.json, corpus/, extracted/) is removed then, so OUT is never mistaken for one.
- Merits exhibits are copied into each level's corpus/ under neutral ids (`doc_<hash>`: neither the role nor the
  original file name shows); each carries the ground facts whose citation names its exhibit label ("Ex. 3" <-> a
  file or stamp "Exhibit 3"; best effort).
- Synthetic documents come from `generate`, rendered once into OUT/documents/ (`RENDERED_DIR`). A file found only
  in OUT/corpus/ (where earlier builds rendered) is hard-linked into OUT/documents/ first; a file missing from both
  is rendered again from the stored content and seed (rendering is deterministic). Each level's corpus/ gets hard
  links to OUT/documents/ (a copy where the file system refuses links: EXDEV, EPERM, ...), never symbolic links.
- Hypotheses: the court-adopted and court-rejected party hypotheses (the rejected one is refuted by the adopted
  one's facts it does not share), and the alternatives (supported by their reused ground facts and injected
  supporting facts, refuted by their refuting facts).
- `refutable_only` runs on the full corpus, before any level is selected: an alternative whose refuting documents
  all failed (and whose refuters no other document carries) loses its pro-alternative documents at every level.
  Each level's documents are then `ladder.select(..., seed=BuildSettings.seed)`; its corpus/ is made to hold
  exactly those files.
- extracted/: the largest level's corpus is extracted once (`lexprobe.documents.corpus.extract_corpus`); every
  other level's cache is seeded with (hard links of) those texts and that manifest, so its own `extract_corpus`
  only hashes its files and finds them cached.
- questions.json: `truth.questions_from_stubs`, the same at every level.
- `lexprobe.investigation.environment.validate.validate_environment` checks each level (without extracting again: the
  extraction's errors and empty texts are added from the extraction itself); its problems go into the report,
  prefixed with the level's folder when there are several.
"""

from __future__ import annotations

import errno
import importlib
import os
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexprobe.investigation.environment.format import (
    CORPUS_DIR,
    ENVIRONMENT_FILE,
    EXTRACTED_DIR,
    QUESTIONS_FILE,
    CaseInfo,
    Document,
    Environment,
    Hypothesis,
    HypothesisKind,
    QuestionSet,
    save_environment,
)
from lexprobe.investigation.environment.ladder import level_slug, select
from lexprobe.investigation.pipeline.context import RENDERED_DIR, StageContext
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.facts import FactTable
from lexprobe.investigation.pipeline.generate import GenerationResult, Rejection
from lexprobe.investigation.pipeline.hypotheses import Ruling
from lexprobe.investigation.pipeline.ingest import IngestResult
from lexprobe.investigation.pipeline.opinion import OpinionResult
from lexprobe.investigation.pipeline.planning import all_specs
from lexprobe.investigation.pipeline.reading import case_id, neutral_doc_id, reading_report
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.truth import hypotheses_and_facts, questions_from_stubs

BUILD_REPORT = "build_report.json"
_SUFFIX_FORMAT = {".pdf": "pdf", ".docx": "docx", ".xlsx": "xlsx", ".pptx": "pptx", ".txt": "txt", ".md": "txt"}
_NO_LINK = {errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EACCES}


class BuildReport(BaseModel):
    """The `assemble` stage's output, also written to OUT/build_report.json."""

    case_id: str
    ablation: str = Field(description="The first (or only) level assembled.")
    documents_by_role: dict[str, int] = Field(description="Documents in the corpus at the first (or only) level.")
    levels: list[str] = Field(default_factory=list, description="Every level assembled, in ladder order.")
    folders: dict[str, str] = Field(default_factory=dict, description="Level -> its environment folder under OUT.")
    documents_by_level: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="Documents per role in each level's corpus."
    )
    generated_by_role: dict[str, int] = Field(description="Synthetic documents accepted, at any level.")
    failed_specs: list[str] = Field(default_factory=list)
    rejections: int = 0
    rejections_by: dict[str, int] = Field(default_factory=dict)
    rejection_log: list[Rejection] = Field(default_factory=list)
    dropped_by_stage: dict[str, int] = Field(default_factory=dict, description="Items code removed, per stage.")
    left_out: list[str] = Field(default_factory=list)
    questions: int = 0
    validator: list[str] | None = Field(
        default=None, description="Problems found (every level); None: no validator available."
    )
    usage: dict[str, Any] | None = Field(default=None, description="Tokens and cost of the build, per stage.")
    warnings: list[str] = Field(default_factory=list)
    sources_read: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Per record file: characters read by a model / characters in it (reading.reading_report).",
    )


_EXHIBIT_LABEL = re.compile(r"(?<![a-z])(?:exhibit|ex)[\s._-]*([a-z]{0,2}\d+[a-z]?|[a-z])(?![a-z0-9])", re.I)


def exhibit_labels(filename: str, text: str) -> set[str]:
    """Return the exhibit labels a record file goes by ("3", "p31"), from its name and its first/last lines."""
    found = _EXHIBIT_LABEL.findall(Path(filename).stem) + _EXHIBIT_LABEL.findall(text[:300] + " " + text[-300:])
    return {label.lower() for label in found}


def merits_documents(ctx: StageContext, case: str, table: FactTable) -> tuple[list[Document], dict[str, Path]]:
    """Return the merits exhibits' documents and {corpus path: the record file it is copied from}."""
    ingest: IngestResult = ctx.output("ingest")
    annotations = {a.source_id: a for a in ctx.output("exhibits").exhibits} if "exhibits" in ctx.outputs else {}
    documents, sources = [], {}
    for source in ingest.corpus_documents:
        suffix = Path(source.filename).suffix.lower()
        doc_id = neutral_doc_id(case, f"merits:{source.source_id}")
        path = f"{doc_id}{'.txt' if suffix == '.md' else suffix}"
        sources[path] = ctx.record_dir / source.filename
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
    return documents, sources


def synthetic_documents(ctx: StageContext, entities: EntityTable) -> list[Document]:
    """Return the accepted synthetic documents, each rendered in OUT/documents/ (`ensure_rendered`)."""
    specs = {s.spec_id: s for s in all_specs(ctx.output("doc_plans"), ctx.output("shard_plans"))}
    documents = []
    for generated in ctx.output("generate").documents:
        spec = specs[generated.spec_id]
        ensure_rendered(ctx.out_dir, generated.path, generated.content, generated.format, generated.seed)
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


def ensure_rendered(out_dir: Path, path: str, content: Any, file_format: str, seed: int) -> Path:
    """Return OUT/documents/<path>, rendering it from `content` and `seed` when it is missing.

    A file at OUT/corpus/<path> (where `generate` rendered before OUT/documents/ existed) that is not already the
    same file is newer than any OUT/documents/ copy (renders replace files, never write through links): it is
    linked into OUT/documents/ instead."""
    from lexprobe.documents.render import render_document

    rendered = out_dir / RENDERED_DIR / path
    legacy = out_dir / CORPUS_DIR / path
    if legacy.is_file() and not legacy.is_symlink():
        link_or_copy(legacy, rendered)
    elif not (rendered.is_file() and not rendered.is_symlink()):
        _remove(rendered)
        render_document(content, rendered, file_format, seed)
    return rendered


def _remove(path: Path) -> None:
    """Remove a file or link at `path` (a link itself, never its target), if there is one."""
    if path.is_symlink() or path.is_file():
        path.unlink()


def link_or_copy(source: Path, target: Path) -> None:
    """Make `target` a hard link of `source` (a copy where the file system refuses one); never a symbolic link.
    A `target` already linked to `source` is left as it is; anything else there is replaced, never written through."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file() and not target.is_symlink() and os.path.samefile(source, target):
        return
    _remove(target)
    try:
        os.link(source, target)
    except OSError as exc:
        if exc.errno not in _NO_LINK:
            raise
        shutil.copyfile(source, target)


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


def fill_corpus(level_dir: Path, selected: list[Document], sources: dict[str, Path], rendered: Path) -> None:
    """Make level_dir/corpus/ hold exactly the selected documents' files: hard links of the rendered synthetic
    documents, copies of the record's merits exhibits."""
    corpus = level_dir / CORPUS_DIR
    for doc in selected:
        target = corpus / doc.path
        if doc.path in sources:
            _remove(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(sources[doc.path], target)
        else:
            link_or_copy(rendered / doc.path, target)
    sync_corpus(level_dir, selected)


def sync_corpus(out_dir: Path, selected: list[Document]) -> None:
    """Create corpus/ if needed and remove every file in it that no selected document lists."""
    corpus = out_dir / CORPUS_DIR
    corpus.mkdir(parents=True, exist_ok=True)
    wanted = {d.path for d in selected}
    for path in sorted(corpus.rglob("*")):
        if (path.is_file() or path.is_symlink()) and path.relative_to(corpus).as_posix() not in wanted:
            path.unlink()


def remove_top_level_environment(out_dir: Path) -> None:
    """Remove the environment an earlier one-level build left at OUT itself (its files are in OUT/documents/)."""
    for name in (ENVIRONMENT_FILE, QUESTIONS_FILE):
        _remove(out_dir / name)
    for name in (CORPUS_DIR, EXTRACTED_DIR):
        folder = out_dir / name
        if folder.is_symlink():
            folder.unlink()
        elif folder.is_dir():
            shutil.rmtree(folder)


def extract_levels(level_dirs: list[Path]) -> dict[Path, Any]:
    """Fill each level's extracted/ and return {level folder: its CorpusText}; the largest corpus is extracted, the
    others start from (hard links of) its cached texts and manifest, so each distinct file is extracted once."""
    from lexprobe.documents.corpus import MANIFEST, extract_corpus

    ordered = sorted(level_dirs, key=lambda d: sum(1 for p in (d / CORPUS_DIR).rglob("*") if p.is_file()))
    biggest = ordered[-1]
    results = {biggest: extract_corpus(biggest / CORPUS_DIR)}
    cache = biggest / EXTRACTED_DIR
    for level_dir in ordered[:-1]:
        if (cache / MANIFEST).is_file():
            _seed_cache(cache, level_dir, MANIFEST)
        results[level_dir] = extract_corpus(level_dir / CORPUS_DIR)
    return results


def _seed_cache(cache: Path, level_dir: Path, manifest: str) -> None:
    """Give level_dir/extracted/ the cached texts of its corpus files found in `cache`, and `cache`'s manifest
    (`extract_corpus` then checks each file's hash against it and drops the entries of files this level lacks)."""
    own = level_dir / EXTRACTED_DIR
    if own.is_symlink():
        own.unlink()
    corpus = level_dir / CORPUS_DIR
    for path in sorted(corpus.rglob("*")):
        text = cache / f"{path.relative_to(corpus).as_posix()}.txt"
        if path.is_file() and text.is_file() and not text.is_symlink():
            link_or_copy(text, own / f"{path.relative_to(corpus).as_posix()}.txt")
    own.mkdir(parents=True, exist_ok=True)
    _remove(own / manifest)
    shutil.copyfile(cache / manifest, own / manifest)


def extraction_problems(corpus_text: Any) -> list[str]:
    """Return the validator-style lines of an extraction: files that do not extract (errors), empty texts
    (warnings)."""
    lines = [f"{CORPUS_DIR}/{rel}: error: cannot extract text: {reason}" for rel, reason in corpus_text.errors.items()]
    lines += [f"{CORPUS_DIR}/{rel}: warning: extracted text is empty" for rel, text in corpus_text.texts.items()
              if not text.strip()]  # fmt: skip
    return lines


def run_validator(env_dir: Path, corpus_text: Any = None) -> list[str] | None:
    """Return the validator's problems with `env_dir` as text, or None when
    lexprobe.investigation.environment.validate is not installed. With `corpus_text` (the level's extraction) files
    are not extracted again: its problems are used."""
    try:
        module = importlib.import_module("lexprobe.investigation.environment.validate")
    except ImportError:
        return None
    problems = module.validate_environment(env_dir, extract=corpus_text is None)
    return [str(problem) for problem in problems] + (extraction_problems(corpus_text) if corpus_text else [])


@stage(
    "assemble",
    output=BuildReport,
    settings=("ablation", "levels", "case_id", "category", "fictional", "seed", "generator", "judge"),
    version=2,
)
def assemble(ctx: StageContext) -> BuildReport:
    """Write the environment at every level the build asks for and return the build report."""
    case = case_id(ctx)
    table: FactTable = ctx.output("ground_facts")
    entities: EntityTable = ctx.output("entities")
    opinion: OpinionResult = ctx.output("opinion")
    hypotheses, facts = hypotheses_and_facts(ctx)
    merits, sources = merits_documents(ctx, case, table)
    every = merits + synthetic_documents(ctx, entities)
    candidates, left_out = refutable_only(every, hypotheses)
    questions = questions_from_stubs(opinion, table)
    folders = level_folders(ctx)
    if ctx.settings.levels:
        remove_top_level_environment(ctx.out_dir)
    selections: dict[str, list[Document]] = {}
    for level, level_dir in folders.items():
        selections[level] = select(candidates, level, ctx.settings.seed)
        fill_corpus(level_dir, selections[level], sources, ctx.out_dir / RENDERED_DIR)
        env = Environment(
            case=case_info(ctx, case, opinion),
            entities=entities.entities,
            facts=facts,
            hypotheses=hypotheses,
            documents=selections[level],
            ablation=level,
        )
        save_environment(level_dir, env, questions)
    extraction = extract_levels(list(folders.values()))
    report = build_report(ctx, case, every, selections, left_out, questions)
    report.validator = validate_levels(ctx, folders, extraction)
    (ctx.out_dir / BUILD_REPORT).write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    for level, level_dir in folders.items():
        ctx.log(f"  assemble: {len(selections[level])} documents at {level} -> {level_dir}")
    return report


def level_folders(ctx: StageContext) -> dict[str, Path]:
    """Return {level: its environment folder}: OUT itself for a one-level build, OUT/<slug>/ with `levels` set."""
    if not ctx.settings.levels:
        return {ctx.settings.ablation: ctx.out_dir}
    return {level: ctx.out_dir / level_slug(level) for level in ctx.settings.assembled_levels}


def case_info(ctx: StageContext, case: str, opinion: OpinionResult) -> CaseInfo:
    """Return the environment's case description."""
    ruling: Ruling = ctx.output("ruling")
    return CaseInfo(
        case_id=case,
        name=opinion.case or case,
        court=opinion.court,
        docket=opinion.citation,
        category=ctx.settings.category,
        dispositive_question=ruling.dispositive_question,
        disposition=ruling.disposition,
        fictional=ctx.settings.fictional,
        source=str(ctx.record_dir),
        generator=ctx.settings.generator,
        judge=ctx.settings.judge_model,
    )


def build_report(
    ctx: StageContext,
    case: str,
    every: list[Document],
    selections: dict[str, list[Document]],
    left_out: list[str],
    questions: QuestionSet,
) -> BuildReport:
    """Return the build report (without the validator's problems)."""
    generation: GenerationResult = ctx.output("generate")
    by_level = {level: dict(Counter(d.role.value for d in docs)) for level, docs in selections.items()}
    first = next(iter(selections))
    return BuildReport(
        case_id=case,
        ablation=first,
        documents_by_role=by_level[first],
        levels=list(selections),
        folders={level: level_slug(level) if ctx.settings.levels else "." for level in selections},
        documents_by_level=by_level,
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
        usage=ctx.llm.usage() if hasattr(ctx.llm, "usage") else None,
        warnings=ctx.output("ingest").warnings,
        sources_read=reading_report(ctx.outputs),
    )


def validate_levels(ctx: StageContext, folders: dict[str, Path], extraction: dict[Path, Any]) -> list[str] | None:
    """Return every level's validator problems (prefixed with the level's folder when there are several)."""
    found: list[str] = []
    for level_dir in folders.values():
        problems = run_validator(level_dir, extraction.get(level_dir))
        if problems is None:
            return None
        prefix = f"{level_dir.name}/" if ctx.settings.levels else ""
        found += [prefix + line for line in problems]
    return found
