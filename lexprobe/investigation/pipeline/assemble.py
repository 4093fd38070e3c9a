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
- Hypotheses and facts (`hypotheses_and_facts`) and questions.json (`questions_from_stubs`, the same at every
  level): the ground truth docs/investigation.md ("Environment format") describes, from the stage outputs. A ruling
  that adopts no single party raises StageError rather than pick a winner (the build should have stopped before).
- `lexprobe.investigation.environment.validate.validate_environment` checks each level (without extracting again: the
  extraction's errors and empty texts are added from the extraction itself); its problems go into the report,
  prefixed with the level's folder when there are several.
"""

from __future__ import annotations

import errno
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
    Fact,
    Hypothesis,
    HypothesisKind,
    Question,
    QuestionSet,
    RubricItem,
    SubClaim,
    save_environment,
)
from lexprobe.investigation.environment.ladder import level_slug, select
from lexprobe.investigation.pipeline.context import RENDERED_DIR, StageContext, StageError
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.facts import OTHER_PARTY, FactTable, GroundFact
from lexprobe.investigation.pipeline.generate import GenerationResult, Rejection, all_specs
from lexprobe.investigation.pipeline.hypotheses import AlternativesResult, PartyDags, PartyHypothesis, Ruling
from lexprobe.investigation.pipeline.ingest import IngestResult
from lexprobe.investigation.pipeline.opinion import OpinionResult, QuestionStub
from lexprobe.investigation.pipeline.reading import case_id, neutral_doc_id, reading_report
from lexprobe.investigation.pipeline.registry import stage

BUILD_REPORT = "build_report.json"
SKETCH_SUFFIX = "_sketch"
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


def validate_levels(ctx: StageContext, folders: dict[str, Path], extraction: dict[Path, Any]) -> list[str]:
    """Return every level's validator problems (prefixed with the level's folder when there are several); files are
    not extracted again: the problems of the level's `extraction` are used."""
    from lexprobe.investigation.environment.validate import validate_environment

    found: list[str] = []
    for level_dir in folders.values():
        problems = [str(p) for p in validate_environment(level_dir, extract=False)]
        prefix = f"{level_dir.name}/" if ctx.settings.levels else ""
        found += [prefix + line for line in problems + extraction_problems(extraction[level_dir])]
    return found


def hypotheses_and_facts(ctx: StageContext) -> tuple[list[Hypothesis], list[Fact]]:
    """Return the hypothesis DAG (party hypotheses by the ruling, then the alternatives) and every fact.

    Raises StageError when the ruling adopts neither party alone (a split ruling has no court-adopted hypothesis).
    """
    table: FactTable = ctx.output("ground_facts")
    dags: PartyDags = ctx.output("party_dags")
    ruling: Ruling = ctx.output("ruling")
    alts: AlternativesResult = ctx.output("alternatives")
    adopted_party = str(ruling.adopted_party)
    if adopted_party not in OTHER_PARTY:
        raise StageError(
            "assemble",
            "ruling",
            f"the ruling adopts {adopted_party!r}, not one party: no single court-adopted hypothesis can be "
            "assembled (a split ruling is recorded as split and never given a winner)",
        )
    adopted = dags.of(adopted_party)
    rejected = dags.of(OTHER_PARTY[adopted_party])
    hypotheses = [
        party_hypothesis(adopted, HypothesisKind.court_adopted, ruling),
        party_hypothesis(
            rejected,
            HypothesisKind.court_rejected,
            ruling,
            refuting_facts=[f for f in adopted.supporting_facts if f not in rejected.supporting_facts],
        ),
    ]
    for alt in alts.alternatives:
        hypotheses.append(
            Hypothesis(
                hypothesis_id=alt.hypothesis_id,
                kind=HypothesisKind.alternative,
                claim=alt.claim,
                sub_claims=unruled_sub_claims(alt.hypothesis_id, alt.sub_claims),
                supporting_facts=[*alt.ground_fact_ids, *alt.supporting_facts],
                refuting_facts=[*alt.refuting_ground, *alt.refuting_injected],
            )
        )
    facts = [Fact.model_validate(f.model_dump(include=set(Fact.model_fields))) for f in table.facts]
    facts += [
        Fact(fact_id=f.fact_id, text=f.text, source="injected", citation=f"synthetic ({f.polarity} {f.hypothesis_id})")
        for f in alts.injected_facts
    ]
    return hypotheses, facts


def party_hypothesis(
    hypothesis: PartyHypothesis, kind: HypothesisKind, ruling: Ruling, refuting_facts: list[str] | None = None
) -> Hypothesis:
    """Return a party hypothesis of the DAG: its claim, its sub-claims with the court's rulings, its facts."""
    return Hypothesis(
        hypothesis_id=hypothesis.hypothesis_id,
        kind=kind,
        claim=hypothesis.claim,
        sub_claims=party_sub_claims(hypothesis, ruling),
        supporting_facts=hypothesis.supporting_facts,
        refuting_facts=refuting_facts or [],
        party=hypothesis.party,
    )


def party_sub_claims(hypothesis: PartyHypothesis, ruling: Ruling) -> list[SubClaim]:
    """Return a party hypothesis's sub-claims with their fact ids and the court's ruling and rationale on each."""
    rulings = {r.sub_claim_id: r for r in ruling.sub_claim_rulings}
    sub_claims = []
    for sub in hypothesis.sub_claims:
        entry = rulings.get(sub.sub_claim_id)
        sub_claims.append(
            SubClaim(
                sub_claim_id=sub.sub_claim_id,
                label=sub.label,
                facts=list(sub.supporting_facts),
                ruling=entry.ruling if entry else None,
                rationale=entry.rationale_quote if entry else "",
            )
        )
    return sub_claims


def unruled_sub_claims(hypothesis_id: str, labels: list[str]) -> list[SubClaim]:
    """Return sub-claims `<hypothesis_id>_<k>` (k from 1) for labels the court never ruled on (alternatives)."""
    return [SubClaim(sub_claim_id=f"{hypothesis_id}_{k}", label=label) for k, label in enumerate(labels, start=1)]


# Sentence-initial words lower-cased after "States that" (any other first word may be a name and is kept).
_LEADING_WORDS = frozenset((
    "a", "an", "the", "on", "in", "at", "by", "during", "after", "before", "from", "between", "when", "while",
    "each", "every", "no", "all", "some", "about", "roughly", "approximately", "nearly", "over", "under", "its",
    "his", "her", "their", "this", "that", "these", "those", "it", "they", "he", "she", "there", "one", "two",
))  # fmt: skip


def checkable_statement(text: str) -> str:
    """Return a fact's text as a rubric statement: "States that <text>" (a leading function word lower-cased,
    names and other capitalised words kept)."""
    text = " ".join(text.split()).rstrip()
    first = text.split(" ", 1)[0]
    if first.lower() in _LEADING_WORDS and first[:1].isupper() and first[1:] == first[1:].lower():
        text = first.lower() + text[len(first) :]
    if not re.search(r"[.!?]$", text):
        text += "."
    return f"States that {text}"


def rubric_for(stub: QuestionStub, facts: list[GroundFact]) -> list[RubricItem]:
    """Return one rubric item per ground fact the stub rests on, or a single `_sketch` item from its answer
    sketch when it rests on none."""
    if not facts:
        sketch = " ".join(stub.answer_sketch.split())
        return [RubricItem(item_id=f"{stub.id}{SKETCH_SUFFIX}", text=f"Gives, in substance, the answer: {sketch}")]
    return [
        RubricItem(item_id=f"{stub.id}_{k}", text=checkable_statement(fact.text), fact_id=fact.fact_id)
        for k, fact in enumerate(facts, start=1)
    ]


def questions_from_stubs(opinion: OpinionResult, table: FactTable) -> QuestionSet:
    """Return one factual-QA question per question stub: the ground facts its opinion facts became, its sketch as
    the answer and one rubric item per ground fact (see the module docstring)."""
    questions, seen = [], set()
    for stub in opinion.stubs():
        if stub.id in seen:
            continue
        seen.add(stub.id)
        facts = [f for f in table.facts if set(f.sources) & set(stub.fact_ids)]
        questions.append(
            Question(
                question_id=stub.id,
                question=stub.question,
                answer=stub.answer_sketch,
                rubric=rubric_for(stub, facts),
                facts=[f.fact_id for f in facts],
            )
        )
    return QuestionSet(questions=questions)


def sketch_only(questions: QuestionSet) -> list[str]:
    """Return the ids of questions whose rubric rests on no ground fact (the `_sketch` item), for a build report."""
    return [q.question_id for q in questions.questions if any(r.item_id.endswith(SKETCH_SUFFIX) for r in q.rubric)]
