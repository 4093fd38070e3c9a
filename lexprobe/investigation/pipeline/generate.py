"""Stage `generate`: write, check, deduplicate, judge and render every planned document, in batches, resumable per
document.

Specifications (from `doc_plans` and `shard_plans`) not restored from a checkpoint are processed in batches of
`settings.generate_batch` (32 by default); every request of a batch goes out together (the engine's concurrency
bounds what is in flight). Within a batch each spec goes through rounds: the generator writes a `DocumentContent`
JSON; code checks it (a body of real text; a date in the window, filled in from the window when missing; no ids,
role words or exercise vocabulary leaking into the text); dedup refuses a draft whose title is near-identical to
an accepted document's (the planner's title comparison: `planning.similar_title`) or whose plain text is
(Jaccard similarity of word 5-gram shingles >= `TEXT_SIMILARITY`), naming the earlier document's title; the judge
reads the rendered text against the specification and answers accept or reject with reasons (a JSON verdict); an
accepted document is rendered into OUT/documents/<doc_id>.<format> (`RENDERED_DIR`; the level corpora link or
copy it) with `render_document` (deterministic: the seed comes from the build seed and the spec id). A refused
draft (by schema, code, dedup, judge or renderer) is recorded with its reasons and the spec is regenerated with
those reasons, up to `regenerations` times (3 by default: four drafts in all). A spec that never passes is
recorded as failed and left out of the corpus.

Checkpoints: once a document is accepted and rendered, or finally fails, OUT/stages/generate/<spec_id>.json is
written atomically with its `GeneratedDoc` or `FailedSpec` and its rejections, under a key digesting the spec, the
settings the stage reads, its templates and the writer's background (story, entities, disputed facts). A rerun of
the stage (after a kill, or when an upstream change leaves the specs as they were) restores every spec whose
checkpoint holds the current key and asks nothing for it; any other spec is written afresh. Log: one line per batch.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexprobe.documents.content import DocType, DocumentContent, parse_iso
from lexprobe.documents.render import render_document
from lexprobe.investigation.environment.format import DocumentFormat, Role
from lexprobe.investigation.pipeline.context import RENDERED_DIR, STAGES_DIR, StageContext
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.llm import Ask, ask_json, render_prompt, templates_digest
from lexprobe.investigation.pipeline.planning import DocSpec, all_specs, similar_title, title_key
from lexprobe.investigation.pipeline.reading import case_id, neutral_doc_id
from lexprobe.investigation.pipeline.registry import LLM_SETTINGS, stage
from lexprobe.investigation.pipeline.runner import digest, write_atomic

CHECKPOINT_DIR = "generate"  # OUT/stages/generate/<spec_id>.json: one checkpoint per finished spec
TEMPLATES = ("generate_document", "judge_document")
SETTINGS = (*LLM_SETTINGS, "judge", "regenerations", "seed", "case_id")
TEXT_SIMILARITY = 0.8  # Jaccard similarity of word 5-gram shingles at which two texts count as near-identical
SHINGLE_WORDS = 5
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
    by: Literal["schema", "code", "dedup", "judge", "render"]
    reasons: list[str]


class GeneratedDoc(BaseModel):
    """An accepted, rendered synthetic document."""

    spec_id: str
    doc_id: str
    path: str = Field(description="Relative to documents/ (RENDERED_DIR) and to a level's corpus/.")
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


def shingles(text: str) -> frozenset[int]:
    """Return the hashed word `SHINGLE_WORDS`-grams of `text` (lower case), the whole text when shorter."""
    words = re.findall(r"\w+", text.lower())
    size = min(SHINGLE_WORDS, len(words)) or 1
    return frozenset(hash(tuple(words[i : i + size])) for i in range(max(len(words) - size + 1, 1)))


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """Return the Jaccard similarity of two shingle sets (0 when both are empty)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


@dataclass
class DedupIndex:
    """Titles and text shingles of the documents accepted (or claimed by a draft in the current round)."""

    titles: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    texts: list[frozenset[int]] = field(default_factory=list)

    def add(self, title: str, text: str) -> int:
        """Add a document; return its position (for `remove`)."""
        self.titles.append(title)
        self.keys.append(title_key(title))
        self.texts.append(shingles(text))
        return len(self.titles) - 1

    def remove(self, position: int) -> None:
        """Forget a claimed draft that was refused later (its entry stops matching anything)."""
        self.keys[position], self.texts[position] = "\x00", frozenset()

    def clash(self, title: str, text: str) -> str | None:
        """Return why a draft duplicates an earlier document (naming its title), or None."""
        if (twin := similar_title(title, self.keys)) is not None:
            return f"its title is nearly the same as that of another document ({self.titles[twin]!r}); choose another"
        own = shingles(text)
        for position, other in enumerate(self.texts):
            if other and jaccard(own, other) >= TEXT_SIMILARITY:
                earlier = self.titles[position]
                return f"its text nearly repeats another document ({earlier!r}); write a different document"
        return None


class Checkpoint(BaseModel):
    """One finished spec, saved as OUT/stages/generate/<spec_id>.json."""

    key: str
    spec_id: str
    document: GeneratedDoc | None = None
    failed: FailedSpec | None = None
    rejections: list[Rejection] = Field(default_factory=list)


def checkpoint_path(ctx: StageContext, spec_id: str) -> Path:
    """Return where the checkpoint of `spec_id` is kept."""
    return ctx.out_dir / STAGES_DIR / CHECKPOINT_DIR / f"{spec_id}.json"


def checkpoint_key(ctx: StageContext, spec: DocSpec, background: dict) -> str:
    """Return the digest a checkpoint must hold to be reused: spec, settings read, templates, writer's background."""
    settings = {k: ctx.settings.judge_model if k == "judge" else getattr(ctx.settings, k) for k in SETTINGS}
    return digest(
        {
            "spec": spec.model_dump(mode="json"),
            "settings": settings,
            "templates": templates_digest(TEMPLATES),
            "background": background,
        }
    )


def load_checkpoint(ctx: StageContext, spec_id: str, key: str) -> Checkpoint | None:
    """Return the checkpoint of `spec_id` when it is readable and holds `key`, else None."""
    path = checkpoint_path(ctx, spec_id)
    try:
        checkpoint = Checkpoint.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return checkpoint if checkpoint.key == key and checkpoint.spec_id == spec_id else None


@stage("generate", output=GenerationResult, templates=TEMPLATES, settings=SETTINGS, version=2)
def generate(ctx: StageContext) -> GenerationResult:
    """Write every planned document, batch by batch, reusing valid checkpoints. Never raises for a document that
    fails: it is recorded and left out."""
    specs = all_specs(ctx.output("doc_plans"), ctx.output("shard_plans"))
    entities: EntityTable = ctx.output("entities")
    background = {
        "story": ctx.output("opinion").story,
        "entities": [{"id": e.entity_id, "name": e.name, "aliases": e.aliases} for e in entities.entities],
        "disputed": [f.text for f in ctx.output("ground_facts").facts][:30],
    }
    run = _Generation(ctx, {e.entity_id: e.name for e in entities.entities}, background, case_id(ctx))
    keys = {s.spec_id: checkpoint_key(ctx, s, background) for s in specs}
    todo = [s for s in specs if not run.restore(load_checkpoint(ctx, s.spec_id, keys[s.spec_id]))]
    if len(todo) < len(specs):
        ctx.log(f"  generate: {len(specs) - len(todo)} of {len(specs)} document(s) restored from checkpoints")
    size = ctx.settings.generate_batch
    batches = [todo[k : k + size] for k in range(0, len(todo), size)]
    for number, batch in enumerate(batches, start=1):
        ctx.log(f"  generate: batch {number}/{len(batches)}: {run.batch(batch, keys)}")
    order = {s.spec_id: n for n, s in enumerate(specs)}
    result = run.result
    result.documents.sort(key=lambda d: order[d.spec_id])
    result.failed.sort(key=lambda f: order[f.spec_id])
    counts = f"{len(result.documents)} accepted, {len(result.failed)} failed, {len(result.rejections)} refused"
    ctx.log(f"  generate: {counts}")
    return result


@dataclass
class _Generation:
    """The stage's state across batches: what the writer needs, the dedup index and the result so far."""

    ctx: StageContext
    names: dict[str, str]
    background: dict
    case: str
    result: GenerationResult = field(default_factory=GenerationResult)
    index: DedupIndex = field(default_factory=DedupIndex)

    def restore(self, checkpoint: Checkpoint | None) -> bool:
        """Take a checkpointed spec's outcome into the result; return False when there is none to take."""
        if checkpoint is None:
            return False
        self.result.rejections += checkpoint.rejections
        if checkpoint.document is not None:
            document = checkpoint.document
            self.result.documents.append(document)
            self.index.add(document.content.title or document.spec_id, plain_text(document.content, document.seed))
        elif checkpoint.failed is not None:
            self.result.failed.append(checkpoint.failed)
        return True

    def batch(self, specs: list[DocSpec], keys: dict[str, str]) -> str:
        """Run the draft rounds of one batch, checkpointing each spec as it finishes; return the batch's log line."""
        by_id = {s.spec_id: s for s in specs}
        feedback: dict[str, str] = {}
        rejections: dict[str, list[Rejection]] = {s.spec_id: [] for s in specs}
        pending, written, accepted = list(by_id), 0, 0
        for number in range(self.ctx.settings.regenerations + 1):
            if not pending:
                break
            written += len(pending)
            draft_round = _Round(self, number, feedback, rejections)
            for document in draft_round.judge_and_render(draft_round.write([by_id[s] for s in pending])):
                accepted += 1
                self._save(keys[document.spec_id], document.spec_id, rejections, document=document)
            pending = [s for s in pending if s in draft_round.refused]
        for spec_id in pending:
            reasons = [r for rej in rejections[spec_id] for r in rej.reasons][-3:]
            failed = FailedSpec(spec_id=spec_id, role=by_id[spec_id].role, reasons=reasons)
            self.result.failed.append(failed)
            self._save(keys[spec_id], spec_id, rejections, failed=failed)
        refused = sum(len(r) for r in rejections.values())
        return f"{written} written, {accepted} accepted, {refused} refused, {len(pending)} failed"

    def _save(self, key: str, spec_id: str, rejections: dict[str, list[Rejection]], **outcome: Any) -> None:
        checkpoint = Checkpoint(key=key, spec_id=spec_id, rejections=rejections[spec_id], **outcome)
        write_atomic(checkpoint_path(self.ctx, spec_id), checkpoint.model_dump_json(indent=1))


@dataclass
class _Round:
    """One draft round of one batch: the specs still pending, and where refusals and documents go."""

    run: _Generation
    number: int
    feedback: dict[str, str]
    rejections: dict[str, list[Rejection]]
    refused: set[str] = field(default_factory=set)
    claims: dict[str, int] = field(default_factory=dict)

    @property
    def ctx(self) -> StageContext:
        return self.run.ctx

    def refuse(self, spec_id: str, by: str, reasons: list[str]) -> None:
        rejection = Rejection(spec_id=spec_id, draft=self.number + 1, by=by, reasons=reasons)  # type: ignore[arg-type]
        self.rejections[spec_id].append(rejection)
        self.run.result.rejections.append(rejection)
        self.feedback[spec_id] = "; ".join(reasons)
        self.refused.add(spec_id)
        if spec_id in self.claims:
            self.run.index.remove(self.claims.pop(spec_id))

    def author(self, spec: DocSpec) -> str:
        return self.run.names.get(spec.author_entity, "an employee")

    def write(self, specs: list[DocSpec]) -> list[tuple[DocSpec, DocumentContent, int, str]]:
        """Ask for one draft per spec; return the drafts that pass the code checks and dedup, with seed and text."""
        asks = [
            Ask(
                s.spec_id,
                render_prompt(
                    "generate_document",
                    spec=s,
                    author=self.author(s),
                    feedback=self.feedback.get(s.spec_id, ""),
                    **self.run.background,
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
            text = plain_text(content, seed)
            if clash := self.run.index.clash(content.title or spec.title, text):
                self.refuse(spec.spec_id, "dedup", [clash])
                continue
            self.claims[spec.spec_id] = self.run.index.add(content.title or spec.title, text)
            passed.append((spec, content, seed, text))
        return passed

    def judge_and_render(self, drafts: list[tuple[DocSpec, DocumentContent, int, str]]) -> list[GeneratedDoc]:
        """Ask the judge about each draft; render the accepted ones into documents/ and return them."""
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
        documents = []
        for (spec, content, seed, _), ask, verdict in zip(drafts, asks, verdicts, strict=True):
            if verdict is None:
                self.refuse(spec.spec_id, "judge", [f"the judge gave no valid verdict: {failures.get(ask.item, '')}"])
            elif verdict.verdict == "reject":
                self.refuse(spec.spec_id, "judge", verdict.reasons or ["rejected without a reason"])
            elif document := self.render(spec, content, seed):
                documents.append(document)
        return documents

    def render(self, spec: DocSpec, content: DocumentContent, seed: int) -> GeneratedDoc | None:
        """Render an accepted draft into documents/; return it, or None (refused) when the renderer fails."""
        doc_id = neutral_doc_id(self.run.case, spec.spec_id)
        relative = f"{doc_id}.{spec.format}"
        try:
            render_document(content, self.ctx.out_dir / RENDERED_DIR / relative, spec.format, seed)
        except Exception as exc:  # a renderer failure refuses the draft like any other problem
            self.refuse(spec.spec_id, "render", [f"{type(exc).__name__}: {exc}"])
            return None
        self.claims.pop(spec.spec_id, None)
        document = GeneratedDoc(
            spec_id=spec.spec_id,
            doc_id=doc_id,
            path=relative,
            format=spec.format,
            drafts=self.number + 1,
            seed=seed,
            content=content,
        )
        self.run.result.documents.append(document)
        return document
