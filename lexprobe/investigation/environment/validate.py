"""Check an environment directory against the format of `lexprobe.investigation.environment.format`, reporting every
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
   `merits` and `+pro_alternative`, whose ladder has no refuting documents; see
   `lexprobe.investigation.environment.ladder`; unknown level names are checked as any other level); an
   alternative's supporting fact listed as refuting the adopted hypothesis breaks additivity (warning); a
   sub-claim's facts are among its hypothesis's supporting facts (warning);
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

Checks 6 and 8 live in `lexprobe.investigation.environment.validate_files`; `Problem` and the other record types in
`lexprobe.investigation.environment.validate_report`. This module re-exports the public names (`__all__`).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from lexprobe.investigation.environment import format as environment
from lexprobe.investigation.environment.format import (
    ENVIRONMENT_FILE,
    QUESTIONS_FILE,
    SCHEMA_VERSION,
    Hypothesis,
    HypothesisKind,
    Role,
)
from lexprobe.investigation.environment.ladder import LEVELS, roles_at
from lexprobe.investigation.environment.validate_files import (
    check_extracted,
    check_files,
    corpus_path_problem,
    normal_path,
    resolve_in_corpus,
)
from lexprobe.investigation.environment.validate_report import (
    EnvironmentInvalid,
    ParsedFile,
    Problem,
    ProblemReport,
    Severity,
    errors_in,
    json_path,
)

__all__ = [
    "EnvironmentInvalid",
    "Problem",
    "Severity",
    "corpus_path_problem",
    "errors_in",
    "json_path",
    "resolve_in_corpus",
    "validate_environment",
]

_ENV_SECTIONS: dict[str, tuple[type[BaseModel], str]] = {
    "entities": (environment.Entity, "entity_id"),
    "facts": (environment.Fact, "fact_id"),
    "hypotheses": (Hypothesis, "hypothesis_id"),
    "documents": (environment.Document, "doc_id"),
}
_QUESTION_SECTIONS: dict[str, tuple[type[BaseModel], str]] = {"questions": (environment.Question, "question_id")}


def validate_environment(env_dir: Path, *, extract: bool = True) -> list[Problem]:
    """Return every problem of the environment directory `env_dir` (empty: valid), errors and warnings in check
    order. Never raises for a broken environment (a missing directory or environment.json is a problem too);
    `extract=False` skips the text extraction of corpus files (the slow part)."""
    env_dir = Path(env_dir)
    report = ProblemReport()
    env = _parse(env_dir / ENVIRONMENT_FILE, environment.Environment, _ENV_SECTIONS, report, required=True)
    questions = _parse(env_dir / QUESTIONS_FILE, environment.QuestionSet, _QUESTION_SECTIONS, report, required=False)
    if env is None:
        return report.problems
    questions = questions or ParsedFile()
    _check_unique_ids(env, questions, report)
    _check_references(env, questions, report)
    _check_hypotheses(env, report)
    _check_roles(env, report)
    check_files(env_dir, env, report, extract)
    _check_questions(questions, report)
    check_extracted(env_dir, report)
    return report.problems


# --- 1. schema -------------------------------------------------------------------------------------------------


def _parse(
    path: Path,
    model: type[BaseModel],
    sections: dict[str, tuple[type[BaseModel], str]],
    report: ProblemReport,
    *,
    required: bool,
) -> ParsedFile | None:
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
    parsed = ParsedFile(level=raw.get("ablation") if isinstance(raw.get("ablation"), str) else None)
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
                    parsed.extra_paths.add(normal_path(item["path"]))
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


def _check_unique_ids(env: ParsedFile, questions: ParsedFile, report: ProblemReport) -> None:
    for section, (_, id_field) in _ENV_SECTIONS.items():
        _unique(
            ENVIRONMENT_FILE, section, [(i, getattr(item, id_field)) for i, item in env.of(section)], id_field, report
        )
    _unique(
        ENVIRONMENT_FILE,
        "documents",
        [(i, normal_path(doc.path)) for i, doc in env.of("documents")],
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


def _unique(
    file: str, section: str, ids: list[tuple[int, str]], id_field: str, report: ProblemReport, what: str = "id"
):
    seen: dict[str, int] = {}
    for index, value in ids:
        if value in seen:
            report.add(
                file, [section, index, id_field], f"duplicate {what} {value!r} (first at {section}[{seen[value]}])"
            )
        seen.setdefault(value, index)


def _ids(env: ParsedFile, section: str) -> set[str]:
    id_field = _ENV_SECTIONS[section][1]
    return {getattr(item, id_field) for _, item in env.of(section)} | env.extra_ids.get(section, set())


def _check_references(env: ParsedFile, questions: ParsedFile, report: ProblemReport) -> None:
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


def _check_hypotheses(env: ParsedFile, report: ProblemReport) -> None:
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


def _check_sub_claim_facts(index: int, hyp: Hypothesis, report: ProblemReport) -> None:
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


def _check_roles(env: ParsedFile, report: ProblemReport) -> None:
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
            _check_alternative_document(doc, where, target, report)
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


def _check_alternative_document(
    doc: environment.Document, where: list[str | int], target: Hypothesis | None, report: ProblemReport
) -> None:
    """A pro-alternative or refuting document names an alternative hypothesis and carries one of its facts of its
    side."""
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


def _is_iso_date(value: str) -> bool:
    try:
        date.fromisoformat(value[:10])
    except ValueError:
        return False
    return len(value) == 10 or value[10] in "T "


# --- 6. files --------------------------------------------------------------------------------------------------


def _check_questions(questions: ParsedFile, report: ProblemReport) -> None:
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
