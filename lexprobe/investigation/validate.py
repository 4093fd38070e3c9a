"""Check an environment directory against the format of `lexprobe.investigation.environment`, reporting every
problem at once (never stopping at the first), each with the place to fix it.

`validate_environment(env_dir)` returns a list of `Problem`s; an environment is usable when none of them is an
`error` (warnings flag what is suspicious but legal). Locations name a JSON path inside a file
(`environment.json:documents[3].facts[1]`, `questions.json:questions[0].rubric`) or a corpus file
(`corpus/email_004.pdf`). The checks, in order (docs/investigation.md lists them with the reasons):

1. schema: environment.json and questions.json parse and match the models, one problem per pydantic error; a newer
   schema_version stops the check of that file. Elements that fail the schema are left out of the checks below
   (their ids still count as defined), and checks that need a complete section are skipped for that section;
2. unique ids: entities, facts, hypotheses, documents (and document paths), questions, rubric items per question,
   sub-claims per hypothesis;
3. references: every fact id (hypotheses and their sub-claims, documents, questions and their rubric items),
   entity id (author, mentions) and target hypothesis resolves;
4. hypotheses: exactly one court_adopted and one court_rejected, at least one alternative; every alternative has a
   refuting fact that some document carries (else it is unrefutable: an error, but a warning naming the level at
   `merits` and `+pro_alternative`, whose ladder has no refuting documents; see `lexprobe.investigation.ladder`;
   unknown level names are checked as any other level); an alternative's supporting fact listed as
   refuting the adopted hypothesis breaks additivity (warning); a sub-claim's facts are among its hypothesis's
   supporting facts (warning);
5. roles: merits documents name no target hypothesis; pro_alternative and refuting documents target an
   alternative (and carry one of its supporting / refuting facts: warning); signal documents carry a fact
   supporting a party hypothesis; noise documents bear on no hypothesis (warning); chaff documents carry no facts;
6. files: an environment without documents (an empty corpus: a record with no merits exhibits at `merits`) is a
   warning; every document's path stays inside corpus/ (no `..`, no absolute path, no symbolic link on the way:
   lexprobe never follows one), exists, has the suffix of its declared format; corpus files no document lists
   (warning; a symbolic link: error); with `extract=True` every file extracts (`lexprobe.documents.extract`, read
   without following links) to non-empty text (empty: warning);
7. questions: non-empty question and answer, at least one rubric item;
8. the extracted-text cache (extracted/, when present): a real folder holding no symbolic link and nothing but
   folders and regular files; manifest.json entries name corpus paths and their own `REL.txt` (never a path
   elsewhere or outside) (errors); malformed entries, stale entries and texts that do not match their recorded
   hash are ignored by runs and re-extracted (warnings).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from lexprobe.investigation.environment import (
    CORPUS_DIR,
    ENVIRONMENT_FILE,
    EXTRACTED_DIR,
    QUESTIONS_FILE,
    SCHEMA_VERSION,
    Document,
    Entity,
    Environment,
    Fact,
    Hypothesis,
    HypothesisKind,
    Question,
    QuestionSet,
    Role,
)
from lexprobe.investigation.ladder import LEVELS, roles_at

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an environment: where (file:JSON path, or corpus/<file>), what, and how bad."""

    location: str
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        """Return {"location", "message", "severity"} (the JSON form of `lexprobe investigation validate`)."""
        return asdict(self)


class EnvironmentInvalid(ValueError):
    """An environment has errors; `.problems` holds every problem found (warnings included)."""

    def __init__(self, env_dir: Path, problems: list[Problem]) -> None:
        self.env_dir = env_dir
        self.problems = problems
        errors = [p for p in problems if p.severity == "error"]
        super().__init__(f"{env_dir}: {len(errors)} error(s), first: {errors[0] if errors else '-'}")


def errors_in(problems: Iterable[Problem]) -> list[Problem]:
    """Return the problems of severity `error`."""
    return [p for p in problems if p.severity == "error"]


def json_path(parts: Iterable[str | int]) -> str:
    """Return a pydantic-style location as a JSON path: ("documents", 3, "facts", 1) -> "documents[3].facts[1]"."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@dataclass
class _Parsed:
    """The elements of one file that passed the schema, with their original indices."""

    sections: dict[str, list[tuple[int, Any]]] = field(default_factory=dict)
    incomplete: set[str] = field(default_factory=set)  # sections where some element failed the schema
    extra_ids: dict[str, set[str]] = field(default_factory=dict)  # ids of elements that failed the schema
    extra_paths: set[str] = field(default_factory=set)  # paths of documents that failed the schema
    level: str | None = None  # environment.json's `ablation`, when it is a string

    def of(self, section: str) -> list[tuple[int, Any]]:
        return self.sections.get(section, [])


_ENV_SECTIONS: dict[str, tuple[type[BaseModel], str]] = {
    "entities": (Entity, "entity_id"),
    "facts": (Fact, "fact_id"),
    "hypotheses": (Hypothesis, "hypothesis_id"),
    "documents": (Document, "doc_id"),
}
_QUESTION_SECTIONS: dict[str, tuple[type[BaseModel], str]] = {"questions": (Question, "question_id")}


class _Report:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, file: str, where: Iterable[str | int] | str, message: str, severity: Severity = "error") -> None:
        path = where if isinstance(where, str) else json_path(where)
        self.problems.append(Problem(f"{file}:{path}" if path else file, message, severity))


def validate_environment(env_dir: Path, *, extract: bool = True) -> list[Problem]:
    """Return every problem of the environment directory `env_dir` (empty: valid), errors and warnings in check
    order. Never raises for a broken environment (a missing directory or environment.json is a problem too);
    `extract=False` skips the text extraction of corpus files (the slow part)."""
    env_dir = Path(env_dir)
    report = _Report()
    env = _parse(env_dir / ENVIRONMENT_FILE, Environment, _ENV_SECTIONS, report, required=True)
    questions = _parse(env_dir / QUESTIONS_FILE, QuestionSet, _QUESTION_SECTIONS, report, required=False)
    if env is None:
        return report.problems
    questions = questions or _Parsed()
    _check_unique_ids(env, questions, report)
    _check_references(env, questions, report)
    _check_hypotheses(env, report)
    _check_roles(env, report)
    _check_files(env_dir, env, report, extract)
    _check_questions(questions, report)
    _check_extracted(env_dir, report)
    return report.problems


# --- 1. schema -------------------------------------------------------------------------------------------------


def _parse(
    path: Path,
    model: type[BaseModel],
    sections: dict[str, tuple[type[BaseModel], str]],
    report: _Report,
    *,
    required: bool,
) -> _Parsed | None:
    name = path.name
    if not path.is_file():
        if required:
            report.add(name, "", f"not found in {path.parent}")
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        report.add(name, "", "not UTF-8 text")
        return None
    except json.JSONDecodeError as exc:
        report.add(name, "", f"not JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}")
        return None
    if not isinstance(raw, dict):
        report.add(name, "", f"must hold a JSON object, not {type(raw).__name__}")
        return None
    version = raw.get("schema_version", SCHEMA_VERSION)
    if isinstance(version, int) and version > SCHEMA_VERSION:
        report.add(name, "schema_version", f"{version} is newer than this lexprobe reads ({SCHEMA_VERSION}); upgrade")
        return None
    parsed = _Parsed(level=raw.get("ablation") if isinstance(raw.get("ablation"), str) else None)
    try:
        whole = model.model_validate(raw)
    except ValidationError as exc:
        for error in exc.errors():
            report.add(name, error["loc"], _pydantic_message(error))
    else:
        parsed.sections = {key: list(enumerate(getattr(whole, key))) for key in sections}
        return parsed
    for key, (item_model, id_field) in sections.items():  # salvage the elements that do pass
        items = raw.get(key, [])
        if not isinstance(items, list):
            parsed.incomplete.add(key)
            continue
        good: list[tuple[int, Any]] = []
        for index, item in enumerate(items):
            try:
                good.append((index, item_model.model_validate(item)))
            except ValidationError:
                parsed.incomplete.add(key)
                if isinstance(item, dict) and isinstance(item.get(id_field), str):
                    parsed.extra_ids.setdefault(key, set()).add(item[id_field])
                if key == "documents" and isinstance(item, dict) and isinstance(item.get("path"), str):
                    parsed.extra_paths.add(_normal_path(item["path"]))
        parsed.sections[key] = good
    return parsed


def _pydantic_message(error: Any) -> str:
    kind = error.get("type", "")
    if kind == "missing":
        return "required field missing"
    if kind == "extra_forbidden":
        return "unknown field (not in the schema)"
    message = error.get("msg", "invalid")
    value = repr(error.get("input"))
    return f"{message} (got {value[:60]}{'...' if len(value) > 60 else ''})"


# --- 2./3. ids and references ----------------------------------------------------------------------------------


def _check_unique_ids(env: _Parsed, questions: _Parsed, report: _Report) -> None:
    for section, (_, id_field) in _ENV_SECTIONS.items():
        _unique(
            ENVIRONMENT_FILE, section, [(i, getattr(item, id_field)) for i, item in env.of(section)], id_field, report
        )
    _unique(
        ENVIRONMENT_FILE,
        "documents",
        [(i, _normal_path(doc.path)) for i, doc in env.of("documents")],
        "path",
        report,
        what="path",
    )
    _unique(
        QUESTIONS_FILE, "questions", [(i, q.question_id) for i, q in questions.of("questions")], "question_id", report
    )
    for i, question in questions.of("questions"):
        seen: dict[str, int] = {}
        for j, item in enumerate(question.rubric):
            if item.item_id in seen:
                report.add(
                    QUESTIONS_FILE,
                    ["questions", i, "rubric", j, "item_id"],
                    f"duplicate rubric item id {item.item_id!r} (first at rubric[{seen[item.item_id]}])",
                )
            seen.setdefault(item.item_id, j)
    for i, hyp in env.of("hypotheses"):
        _unique(
            ENVIRONMENT_FILE,
            f"hypotheses[{i}].sub_claims",
            [(j, sub.sub_claim_id) for j, sub in enumerate(hyp.sub_claims)],
            "sub_claim_id",
            report,
        )


def _unique(file: str, section: str, ids: list[tuple[int, str]], id_field: str, report: _Report, what: str = "id"):
    seen: dict[str, int] = {}
    for index, value in ids:
        if value in seen:
            report.add(
                file, [section, index, id_field], f"duplicate {what} {value!r} (first at {section}[{seen[value]}])"
            )
        seen.setdefault(value, index)


def _ids(env: _Parsed, section: str) -> set[str]:
    id_field = _ENV_SECTIONS[section][1]
    return {getattr(item, id_field) for _, item in env.of(section)} | env.extra_ids.get(section, set())


def _check_references(env: _Parsed, questions: _Parsed, report: _Report) -> None:
    facts, entities, hypotheses = _ids(env, "facts"), _ids(env, "entities"), _ids(env, "hypotheses")

    def fact_refs(file: str, base: list[str | int], fact_ids: list[str]) -> None:
        for j, fact_id in enumerate(fact_ids):
            if fact_id not in facts:
                report.add(file, [*base, j], f"unknown fact id {fact_id!r}")

    for i, hyp in env.of("hypotheses"):
        fact_refs(ENVIRONMENT_FILE, ["hypotheses", i, "supporting_facts"], hyp.supporting_facts)
        fact_refs(ENVIRONMENT_FILE, ["hypotheses", i, "refuting_facts"], hyp.refuting_facts)
        for j, sub in enumerate(hyp.sub_claims):
            fact_refs(ENVIRONMENT_FILE, ["hypotheses", i, "sub_claims", j, "facts"], sub.facts)
    for i, doc in env.of("documents"):
        fact_refs(ENVIRONMENT_FILE, ["documents", i, "facts"], doc.facts)
        if doc.author is not None and doc.author not in entities:
            report.add(ENVIRONMENT_FILE, ["documents", i, "author"], f"unknown entity id {doc.author!r}")
        for j, entity_id in enumerate(doc.mentions):
            if entity_id not in entities:
                report.add(ENVIRONMENT_FILE, ["documents", i, "mentions", j], f"unknown entity id {entity_id!r}")
        if doc.target_hypothesis is not None and doc.target_hypothesis not in hypotheses:
            report.add(
                ENVIRONMENT_FILE,
                ["documents", i, "target_hypothesis"],
                f"unknown hypothesis id {doc.target_hypothesis!r}",
            )
    for i, question in questions.of("questions"):
        fact_refs(QUESTIONS_FILE, ["questions", i, "facts"], question.facts)
        for j, item in enumerate(question.rubric):
            if item.fact_id is not None and item.fact_id not in facts:
                report.add(
                    QUESTIONS_FILE, ["questions", i, "rubric", j, "fact_id"], f"unknown fact id {item.fact_id!r}"
                )


# --- 4. hypotheses ---------------------------------------------------------------------------------------------


def _check_hypotheses(env: _Parsed, report: _Report) -> None:
    hypotheses = env.of("hypotheses")
    for i, hyp in hypotheses:
        if not hyp.claim.strip():
            report.add(ENVIRONMENT_FILE, ["hypotheses", i, "claim"], "empty claim")
    for i, fact in env.of("facts"):
        if not fact.text.strip():
            report.add(ENVIRONMENT_FILE, ["facts", i, "text"], "empty fact text")
    for i, hyp in hypotheses:
        _check_sub_claim_facts(i, hyp, report)
    complete = "hypotheses" not in env.incomplete
    if complete:
        for kind in (HypothesisKind.court_adopted, HypothesisKind.court_rejected):
            found = [h.hypothesis_id for _, h in hypotheses if h.kind == kind]
            if len(found) != 1:
                listed = f" ({', '.join(found)})" if found else ""
                report.add(
                    ENVIRONMENT_FILE, "hypotheses", f"{len(found)} {kind.value} hypotheses{listed}; need exactly one"
                )
        if not any(h.kind == HypothesisKind.alternative for _, h in hypotheses):
            report.add(ENVIRONMENT_FILE, "hypotheses", "no alternative hypothesis; need at least one")
    carried = {fact_id for _, doc in env.of("documents") for fact_id in doc.facts}
    adopted = [h for _, h in hypotheses if h.kind == HypothesisKind.court_adopted]
    adopted_refuters = set(adopted[0].refuting_facts) if len(adopted) == 1 else set()
    for i, hyp in hypotheses:
        if hyp.kind != HypothesisKind.alternative:
            continue
        if not hyp.refuting_facts:
            report.add(
                ENVIRONMENT_FILE,
                ["hypotheses", i, "refuting_facts"],
                f"alternative {hyp.hypothesis_id!r} has no refuting fact: it cannot be refuted",
            )
        elif "documents" not in env.incomplete and not carried.intersection(hyp.refuting_facts):
            message, severity = _unrefutable(hyp, env.level)
            report.add(ENVIRONMENT_FILE, ["hypotheses", i, "refuting_facts"], message, severity)
        for j, fact_id in enumerate(hyp.supporting_facts):
            if fact_id in adopted_refuters:
                report.add(
                    ENVIRONMENT_FILE,
                    ["hypotheses", i, "supporting_facts", j],
                    f"fact {fact_id!r} supports alternative {hyp.hypothesis_id!r} but refutes the court-adopted "
                    f"hypothesis {adopted[0].hypothesis_id!r} (alternatives must be additive)",
                    "warning",
                )


def _check_sub_claim_facts(index: int, hyp: Hypothesis, report: _Report) -> None:
    """Warn about sub-claim facts that are not among the hypothesis's supporting facts."""
    supporting = set(hyp.supporting_facts)
    for j, sub in enumerate(hyp.sub_claims):
        for k, fact_id in enumerate(sub.facts):
            if fact_id not in supporting:
                report.add(
                    ENVIRONMENT_FILE,
                    ["hypotheses", index, "sub_claims", j, "facts", k],
                    f"fact {fact_id!r} sits under sub-claim {sub.sub_claim_id!r} but is not among the supporting "
                    f"facts of {hyp.hypothesis_id!r}",
                    "warning",
                )


def _unrefutable(hyp: Hypothesis, level: str | None) -> tuple[str, Severity]:
    """Return the problem of an alternative no corpus document refutes: an error, except at a ladder level with no
    refuting documents (merits, +pro_alternative), where it is what the level measures (a warning)."""
    message = (
        f"no document carries any refuting fact of alternative {hyp.hypothesis_id!r} "
        f"({', '.join(hyp.refuting_facts)}): it is unrefutable from the corpus"
    )
    if level in LEVELS and Role.refuting not in roles_at(level):
        return f"{message}; expected at level {level!r}: refuting documents join at +noise", "warning"
    return message, "error"


# --- 5. roles --------------------------------------------------------------------------------------------------


def _check_roles(env: _Parsed, report: _Report) -> None:
    by_id = {h.hypothesis_id: h for _, h in env.of("hypotheses")}
    party_support = {
        fact_id
        for h in by_id.values()
        if h.kind in (HypothesisKind.court_adopted, HypothesisKind.court_rejected)
        for fact_id in h.supporting_facts
    }
    bearing = {fact_id for h in by_id.values() for fact_id in (*h.supporting_facts, *h.refuting_facts)}
    hypotheses_known = "hypotheses" not in env.incomplete
    for i, doc in env.of("documents"):
        where: list[str | int] = ["documents", i]
        target = by_id.get(doc.target_hypothesis) if doc.target_hypothesis else None
        if doc.role == Role.merits and doc.target_hypothesis is not None:
            report.add(
                ENVIRONMENT_FILE,
                [*where, "target_hypothesis"],
                "a merits document is a real exhibit and serves no target hypothesis",
            )
        elif doc.role in (Role.pro_alternative, Role.refuting):
            if doc.target_hypothesis is None:
                report.add(
                    ENVIRONMENT_FILE,
                    [*where, "target_hypothesis"],
                    f"a {doc.role.value} document must name the alternative it serves",
                )
            elif target is not None and target.kind != HypothesisKind.alternative:
                report.add(
                    ENVIRONMENT_FILE,
                    [*where, "target_hypothesis"],
                    f"a {doc.role.value} document must target an alternative, not the {target.kind.value} "
                    f"hypothesis {target.hypothesis_id!r}",
                )
            elif target is not None:
                wanted = target.supporting_facts if doc.role == Role.pro_alternative else target.refuting_facts
                side = "supporting" if doc.role == Role.pro_alternative else "refuting"
                if wanted and not set(wanted).intersection(doc.facts):
                    report.add(
                        ENVIRONMENT_FILE,
                        [*where, "facts"],
                        f"carries none of the {side} facts of its target {target.hypothesis_id!r}",
                        "warning",
                    )
        elif doc.role == Role.signal and hypotheses_known and not party_support.intersection(doc.facts):
            report.add(
                ENVIRONMENT_FILE,
                [*where, "facts"],
                "a signal document must carry a fact supporting the court-adopted or court-rejected hypothesis",
            )
        elif doc.role == Role.noise:
            for j, fact_id in enumerate(doc.facts):
                if fact_id in bearing:
                    report.add(
                        ENVIRONMENT_FILE,
                        [*where, "facts", j],
                        f"a noise document should bear on no hypothesis, but fact {fact_id!r} does",
                        "warning",
                    )
        elif doc.role == Role.chaff and doc.facts:
            report.add(ENVIRONMENT_FILE, [*where, "facts"], "a chaff document is off-topic filler and carries no facts")
        if doc.role in (Role.noise, Role.chaff) and doc.target_hypothesis is not None:
            report.add(
                ENVIRONMENT_FILE,
                [*where, "target_hypothesis"],
                f"a {doc.role.value} document serves no hypothesis",
                "warning",
            )
        if doc.date is not None and not _is_iso_date(doc.date):
            report.add(ENVIRONMENT_FILE, [*where, "date"], f"{doc.date!r} is not an ISO date (YYYY-MM-DD)", "warning")


def _is_iso_date(value: str) -> bool:
    try:
        date.fromisoformat(value[:10])
    except ValueError:
        return False
    return len(value) == 10 or value[10] in "T "


# --- 6. files --------------------------------------------------------------------------------------------------


def _normal_path(path: str) -> str:
    return str(PurePosixPath(path)) if path else path


def corpus_path_problem(path: str) -> str | None:
    """Return why the document path `path` (relative to corpus/) is not a plain relative POSIX path inside the
    corpus (absolute, `..`, backslashes, empty), or None when it is. Symlinks are checked by `resolve_in_corpus`."""
    if not path.strip():
        return "empty path"
    if "\\" in path:
        return "backslash in path: use POSIX separators"
    if PurePosixPath(path).is_absolute() or PureWindowsPath(path).drive:
        return "absolute path: must be relative to corpus/"
    if ".." in PurePosixPath(path).parts:
        return "path escapes corpus/ ('..')"
    return None


def resolve_in_corpus(env_dir: Path, path: str) -> Path:
    """Return the file a document path names, under ENV/corpus/. Raises ValueError when the path is not a plain
    relative path (`corpus_path_problem`), resolves outside corpus/ (a symlink pointing out), or reaches the file
    through any symbolic link (corpus/ itself, a folder, the file: lexprobe never follows one)."""
    from lexprobe.documents.corpus import link_problem, shown

    problem = corpus_path_problem(path)
    if problem:
        raise ValueError(problem)
    corpus = Path(env_dir) / CORPUS_DIR
    if corpus.is_symlink():
        raise ValueError(f"{CORPUS_DIR}/ is a symbolic link (to {shown(os.readlink(corpus))}); it is never followed")
    target = corpus / path
    resolved = target.resolve()
    if not resolved.is_relative_to(corpus.resolve()):
        raise ValueError(f"resolves outside corpus/ (symlink to {shown(str(resolved))})")
    linked = link_problem(corpus, _normal_path(path))
    if linked and "symbolic link" in linked:
        raise ValueError(f"{CORPUS_DIR}/{linked}")
    return target


def _check_files(env_dir: Path, env: _Parsed, report: _Report, extract: bool) -> None:
    corpus = env_dir / CORPUS_DIR
    documents = env.of("documents")
    if not documents and "documents" not in env.incomplete:
        at = f" at level {env.level!r}" if env.level else ""
        report.add(ENVIRONMENT_FILE, "documents", f"no documents: the corpus{at} is empty", "warning")
    if corpus.is_symlink():
        report.add(f"{CORPUS_DIR}/", "", f"is a symbolic link (to {_link_target(corpus)}); it is never followed")
        return
    if not corpus.is_dir():
        if documents:
            report.add(f"{CORPUS_DIR}/", "", f"corpus directory missing in {env_dir}")
        return
    extract_text, extraction_error = _extractor() if extract else (None, None)
    for i, doc in documents:
        where: list[str | int] = ["documents", i]
        suffix = PurePosixPath(doc.path).suffix.lower().lstrip(".")
        shown_suffix = f".{suffix}" if suffix else "(none)"
        if suffix != doc.format:
            report.add(
                ENVIRONMENT_FILE,
                [*where, "format"],
                f"declared format {doc.format!r} does not match the file suffix {shown_suffix!r}",
            )
        try:
            target = resolve_in_corpus(env_dir, doc.path)
        except ValueError as exc:
            report.add(ENVIRONMENT_FILE, [*where, "path"], f"{doc.path!r}: {exc}")
            continue
        shown = f"{CORPUS_DIR}/{_normal_path(doc.path)}"
        if not target.exists():
            broken = " (broken symlink)" if target.is_symlink() else ""
            report.add(ENVIRONMENT_FILE, [*where, "path"], f"{shown} does not exist{broken}")
            continue
        if not target.is_file():
            report.add(ENVIRONMENT_FILE, [*where, "path"], f"{shown} is not a file")
            continue
        if extract_text is None:
            continue
        try:
            text = extract_text(corpus, _normal_path(doc.path))
        except extraction_error as exc:  # type: ignore[misc]
            report.add(shown, "", f"cannot extract text: {getattr(exc, 'reason', exc)}")
            continue
        except Exception as exc:  # an extractor bug must not hide the remaining problems
            report.add(shown, "", f"text extraction failed unexpectedly: {type(exc).__name__}: {exc}")
            continue
        if not text.strip():
            report.add(shown, "", "extracted text is empty", "warning")
    listed = {_normal_path(doc.path) for _, doc in documents} | env.extra_paths
    for relative in _corpus_files(corpus):
        if relative in listed:
            continue
        if (corpus / relative).is_symlink():
            report.add(
                f"{CORPUS_DIR}/{relative}",
                "",
                f"symbolic link (to {_link_target(corpus / relative)}) in corpus/: never followed; delete it",
            )
        else:
            report.add(f"{CORPUS_DIR}/{relative}", "", "file in corpus/ that no document lists", "warning")


def _link_target(path: Path) -> str:
    from lexprobe.documents.corpus import shown

    try:
        return shown(os.readlink(path))
    except OSError:
        return "?"


def _corpus_files(corpus: Path) -> list[str]:
    """Every file (and symlink) under corpus/, relative POSIX paths, sorted; symlinked folders are not entered."""
    found: list[str] = []
    for root, dirs, files in os.walk(corpus):
        base = Path(root).relative_to(corpus)
        found.extend((base / name).as_posix() for name in files)
        found.extend((base / name).as_posix() for name in dirs if (Path(root) / name).is_symlink())
    return sorted(found)


def _extractor() -> tuple[Any, tuple[type[Exception], ...]]:
    """Return (extract(corpus, rel) -> text, the errors it raises for a bad file): files are read without following
    links (`lexprobe.documents.corpus.extract_confined`)."""
    from lexprobe.documents.corpus import UnsafePathError, extract_confined
    from lexprobe.documents.extract import ExtractionError

    return (lambda corpus, rel: extract_confined(corpus, rel).text), (ExtractionError, UnsafePathError)


# --- 7. questions ----------------------------------------------------------------------------------------------


def _check_questions(questions: _Parsed, report: _Report) -> None:
    for i, question in questions.of("questions"):
        where: list[str | int] = ["questions", i]
        if not question.question.strip():
            report.add(QUESTIONS_FILE, [*where, "question"], "empty question")
        if not question.answer.strip():
            report.add(QUESTIONS_FILE, [*where, "answer"], "empty answer")
        if not question.rubric:
            report.add(QUESTIONS_FILE, [*where, "rubric"], "no rubric item: a question needs at least one")
        for j, item in enumerate(question.rubric):
            if not item.text.strip():
                report.add(QUESTIONS_FILE, [*where, "rubric", j, "text"], "empty rubric item")


# --- 8. the extracted-text cache -------------------------------------------------------------------------------


def _check_extracted(env_dir: Path, report: _Report) -> None:
    """Report links and odd files in extracted/ and manifest entries that name other files (errors), and entries a
    run would ignore and extract again (warnings). Never follows a link or reads outside extracted/."""
    cache = env_dir / EXTRACTED_DIR
    if cache.is_symlink():
        report.add(f"{EXTRACTED_DIR}/", "", f"is a symbolic link (to {_link_target(cache)}); it is never followed: "
                   "delete it (the cache is rebuilt)")  # fmt: skip
        return
    if not cache.exists():
        return
    if not cache.is_dir():
        report.add(f"{EXTRACTED_DIR}", "", "is not a folder: delete it (the cache is rebuilt)")
        return
    _check_cache_entries(cache, report)
    _check_manifest(env_dir, cache, report)


def _check_cache_entries(cache: Path, report: _Report) -> None:
    from lexprobe.documents.corpus import shown

    for root, dirs, files in os.walk(cache):
        for name in sorted([*dirs, *files]):
            path = Path(root) / name
            where = f"{EXTRACTED_DIR}/{shown(path.relative_to(cache).as_posix())}"
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                report.add(where, "", f"symbolic link (to {_link_target(path)}): never read; delete it")
            elif not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
                report.add(where, "", "not a regular file: never read; delete it")


def _check_manifest(env_dir: Path, cache: Path, report: _Report) -> None:
    from lexprobe.documents import corpus as cached

    where = f"{EXTRACTED_DIR}/{cached.MANIFEST}"
    manifest, why = cached.load_manifest(cache)
    if manifest is None:
        if why != "missing" and not (cache / cached.MANIFEST).is_symlink():  # a link is reported already
            report.add(where, "", f"{why}: ignored, every file is extracted again", "warning")
        return
    files = manifest.get("files")
    if not isinstance(files, dict):
        report.add(where, "files", "not an object: ignored, every file is extracted again", "warning")
        return
    current = manifest.get("version") == cached.EXTRACTOR_VERSION
    for rel, entry in files.items():
        location = f"files[{json.dumps(rel)}]"
        problem = cached.relative_path_problem(rel) or corpus_path_problem(rel)
        if problem:
            report.add(where, location, f"{problem}: not a corpus path; never used")
            continue
        hostile = cached.text_path_problem(rel, entry)
        if hostile:
            report.add(where, f"{location}.text", f"{hostile}; never read")
        elif current:
            _check_manifest_entry(env_dir, cache, rel, entry, report, f"{where}:{location}")


def _check_manifest_entry(env_dir: Path, cache: Path, rel: str, entry: Any, report: _Report, where: str) -> None:
    """Warn about an entry a run ignores: malformed, stale (its corpus file changed or is gone) or whose text does
    not match its recorded hash."""
    from lexprobe.documents import corpus as cached

    problem = cached.entry_problem(rel, entry)
    if problem:
        report.add(where, "", f"{problem}: ignored, extracted again", "warning")
        return
    try:
        digest = cached.sha256_confined(env_dir / CORPUS_DIR, rel)
    except FileNotFoundError:
        report.add(
            where, "", f"no file {CORPUS_DIR}/{cached.shown(rel)}: stale entry, removed on the next run", "warning"
        )
        return
    except (OSError, ValueError):  # a link or odd file in corpus/: reported by the file checks
        return
    if digest != entry["sha256"]:
        report.add(where, "", f"{CORPUS_DIR}/{cached.shown(rel)} changed since it was extracted: extracted again",
                   "warning")  # fmt: skip
        return
    if entry.get("text") is None:
        return
    try:
        cached.read_cached_text(cache, rel, entry, cached.MAX_BYTES)
    except FileNotFoundError:
        report.add(where, "", f"{EXTRACTED_DIR}/{cached.shown(rel)}.txt is missing: extracted again", "warning")
    except cached.UnsafePathError as exc:
        if "symbolic link" not in str(exc):  # links are reported by _check_cache_entries
            report.add(where, "", f"{exc}: ignored, extracted again", "warning")
    except (OSError, ValueError) as exc:
        report.add(where, "", f"{exc}: ignored, extracted again", "warning")
