"""Build the hand-written sample environment (a FICTIONAL contract case) from its JSON data, at one ablation level.

The case lives as data beside this module:
- `case.json`: the case info, entities, canonical facts, hypotheses, `key_phrases` (per fact: phrases that every
  document carrying the fact contains, so a reader, or a test, can verify the fact from the text) and `patterns`
  (facts no single document states: each of their documents carries one shard, with its own key phrase);
- `documents.json`: every document's annotation (role, format, facts, target hypothesis, series, entities) and its
  full `DocumentContent`; a document's own `key_phrases` override the fact's defaults;
- `questions.json`: the factual-QA questions, with answers, rubric items and the fact ids they rest on.

`build_sample_environment(out_dir, ablation)` renders the documents of that ablation level into `out_dir/corpus/`
(deterministic bytes: a fixed house-style seed per document) and writes environment.json and questions.json.
Corpus file names (`DOC-0001.pdf`, ...) number all documents by date, so a name says nothing about a role and a
document keeps its name at every level.

Ablation levels: `lexprobe.investigation.environment.ladder` (the one ladder of Section 4.2: `merits`,
`+pro_alternative` adds the pro-alternative documents only, `+noise` adds noise, signal and refuting documents,
`+chaff50` a seeded half of the chaff (seed 0), `+chaff100` all of it). questions.json keeps the questions whose
facts the level's corpus carries.
"""

from __future__ import annotations

import json
import shutil
import zlib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from lexprobe.documents.content import DocumentContent
from lexprobe.documents.render import render_document
from lexprobe.investigation.environment.format import (
    CORPUS_DIR,
    ENVIRONMENT_FILE,
    EXTRACTED_DIR,
    CaseInfo,
    Document,
    Entity,
    Environment,
    Fact,
    Hypothesis,
    QuestionSet,
    save_environment,
)
from lexprobe.investigation.environment.ladder import DEFAULT_LEVEL, canonical_level, select

_PACKAGE = "lexprobe.investigation.sample"


@dataclass(frozen=True)
class SampleDocument:
    """One document of the sample case: its annotation (path included), its content and its render seed."""

    document: Document
    content: DocumentContent
    seed: int
    key_phrases: dict[str, list[str]] = field(default_factory=dict)  # fact id -> phrases its text contains


@dataclass(frozen=True)
class SampleCase:
    """The whole sample case as loaded from the package data (every document, every level)."""

    case: CaseInfo
    entities: list[Entity]
    facts: list[Fact]
    hypotheses: list[Hypothesis]
    documents: list[SampleDocument]
    questions: QuestionSet
    patterns: dict[str, str]  # pattern fact id -> how its shards combine

    def document(self, doc_id: str) -> SampleDocument:
        """Return the document with this id (KeyError when there is none)."""
        for doc in self.documents:
            if doc.document.doc_id == doc_id:
                return doc
        raise KeyError(doc_id)


def _read(name: str) -> dict[str, Any]:
    return json.loads(resources.files(_PACKAGE).joinpath(name).read_text(encoding="utf-8"))


@cache
def load_sample_case() -> SampleCase:
    """Return the sample case (all documents, every role) from the package data; cached, treat as read-only."""
    data, docs, questions = _read("case.json"), _read("documents.json"), _read("questions.json")
    defaults: dict[str, list[str]] = data["key_phrases"]
    raw_docs = docs["documents"]
    numbered = sorted(raw_docs, key=lambda raw: (raw["content"].get("date") or "", raw["doc_id"]))
    number = {raw["doc_id"]: n for n, raw in enumerate(numbered, start=1)}
    documents = []
    for raw in raw_docs:
        content = DocumentContent.model_validate(raw["content"])
        overrides = raw.get("key_phrases", {})
        annotation = Document(
            doc_id=raw["doc_id"],
            path=f"DOC-{number[raw['doc_id']]:04d}.{raw['format']}",
            format=raw["format"],
            doc_type=raw["doc_type"],
            date=content.date[:10] if content.date else None,
            author=raw["author"],
            mentions=raw["mentions"],
            role=raw["role"],
            facts=raw["facts"],
            target_hypothesis=raw["target_hypothesis"],
            series=raw["series"],
            title=content.title or content.subject,
        )
        phrases = {fact_id: list(overrides.get(fact_id, defaults.get(fact_id, []))) for fact_id in raw["facts"]}
        documents.append(SampleDocument(annotation, content, zlib.crc32(raw["doc_id"].encode("utf-8")), phrases))
    return SampleCase(
        case=CaseInfo.model_validate(data["case"]),
        entities=[Entity.model_validate(e) for e in data["entities"]],
        facts=[Fact.model_validate(f) for f in data["facts"]],
        hypotheses=[Hypothesis.model_validate(h) for h in data["hypotheses"]],
        documents=documents,
        questions=QuestionSet.model_validate(questions),
        patterns=dict(data["patterns"]),
    )


def select_documents(case: SampleCase, ablation: str = DEFAULT_LEVEL) -> list[SampleDocument]:
    """Return the documents of one ablation level (`lexprobe.investigation.environment.ladder.select`, seed 0), in data
    order. Raises ValueError for an unknown level."""
    kept = {doc.doc_id for doc in select([d.document for d in case.documents], ablation)}
    return [doc for doc in case.documents if doc.document.doc_id in kept]


def build_sample_environment(out_dir: Path, ablation: str = DEFAULT_LEVEL, *, overwrite: bool = False) -> Path:
    """Render the sample environment at `ablation` into `out_dir` and return `out_dir`.

    Writes corpus/ (every document of the level, rendered deterministically), environment.json and questions.json
    (the questions answerable from that corpus). Raises ValueError for an unknown level and FileExistsError when
    `out_dir` already holds an environment, unless `overwrite`, which replaces its corpus/ and removes its (now
    stale) extracted/.
    """
    case = load_sample_case()
    documents = select_documents(case, ablation)
    out_dir = Path(out_dir)
    corpus = out_dir / CORPUS_DIR
    existing = (out_dir / ENVIRONMENT_FILE).exists() or (corpus.is_dir() and any(corpus.iterdir()))
    if existing and not overwrite:
        raise FileExistsError(f"{out_dir} already holds an environment; pass overwrite=True to replace it")
    for stale in (corpus, out_dir / EXTRACTED_DIR):
        if stale.is_dir():
            shutil.rmtree(stale)
    corpus.mkdir(parents=True, exist_ok=True)
    for doc in documents:
        render_document(doc.content, corpus / doc.document.path, doc.document.format, seed=doc.seed)
    carried = {fact_id for doc in documents for fact_id in doc.document.facts}
    questions = QuestionSet(questions=[q for q in case.questions.questions if carried.issuperset(q.facts)])
    env = Environment(
        case=case.case,
        entities=case.entities,
        facts=case.facts,
        hypotheses=case.hypotheses,
        documents=[doc.document for doc in documents],
        ablation=canonical_level(ablation),
    )
    save_environment(out_dir, env, questions)
    return out_dir
