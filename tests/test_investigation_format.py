"""Investigation environments: the validator (every check, every problem at once, with its location), the local
import of the published dataset layout through `datasets`, the attorney review workbook round trip (pass rates and
agreement against hand-computed values) and the `lexprobe investigation` commands."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from lexprobe.cli.investigation import investigation_app
from lexprobe.investigation.environment.format import (
    CaseInfo,
    Document,
    Entity,
    Environment,
    Fact,
    Hypothesis,
    HypothesisKind,
    Question,
    QuestionSet,
    Role,
    RubricItem,
    load_environment,
    save_environment,
)
from lexprobe.investigation.environment.hf_dataset import HFDatasetError, import_hf_case, import_hf_cases, load_hf_cases
from lexprobe.investigation.environment.validate import Problem, errors_in, validate_environment
from lexprobe.investigation.review.sheets import (
    COLUMNS,
    DOCUMENTS,
    REVIEWER_LABEL,
    ReviewSheetError,
    read_review_sheets,
    sample_documents,
    write_review_sheet,
)

ADOPTED, REJECTED, ALT1, ALT2 = HypothesisKind.court_adopted, HypothesisKind.court_rejected, "h1", "h2"
FORMULA_CLAIM = '=HYPERLINK("http://example.com") Acme delivered defective widgets.'  # must stay text in xlsx
# (doc_id, path, role, facts, target): indices 0..8 are used by the breakage table below.
DOCS = [
    ("d_merits", "exhibit_a.txt", Role.merits, ["f1", "f3"], None),
    ("d_signal", "memo_signal.txt", Role.signal, ["f2"], None),
    ("d_pro1", "email_pro1.txt", Role.pro_alternative, ["f4"], ALT1),
    ("d_ref1", "letter_ref1.txt", Role.refuting, ["f5"], ALT1),
    ("d_pro2", "email_pro2.txt", Role.pro_alternative, ["f6"], ALT2),
    ("d_ref2", "letter_ref2.txt", Role.refuting, ["f7"], ALT2),
    ("d_noise", "calendar_noise.txt", Role.noise, ["f8"], None),
    ("d_chaff1", "invoice_chaff1.txt", Role.chaff, [], None),
    ("d_chaff2", "invoice_chaff2.txt", Role.chaff, [], None),
]


def make_environment() -> tuple[Environment, QuestionSet]:
    """A small fictional case: two party hypotheses, two alternatives, one document of each kind of evidence."""
    facts = [
        Fact(fact_id="f1", text="Acme shipped 500 widgets on 2019-03-01."),
        Fact(fact_id="f2", text="Widget Co. signed the delivery receipt."),
        Fact(fact_id="f3", text="Widget Co. reported 120 defective widgets.", disputed=True),
        Fact(fact_id="f4", text="A Widget Co. manager emailed that the widgets arrived late.", source="injected"),
        Fact(fact_id="f5", text="The carrier log shows delivery on the agreed date.", source="injected"),
        Fact(fact_id="f6", text="Acme's sales lead promised a discount that was never applied.", source="injected"),
        Fact(fact_id="f7", text="The discount offer expired before the order was placed.", source="injected"),
        Fact(fact_id="f8", text="Acme held its quarterly sales meeting in April 2019."),
    ]
    hypotheses = [
        Hypothesis(hypothesis_id="h_star", kind=ADOPTED, claim="Acme delivered conforming widgets on time.",
                   supporting_facts=["f1", "f2"], refuting_facts=["f3"], party="plaintiff"),
        Hypothesis(hypothesis_id="h_dag", kind=REJECTED, claim=FORMULA_CLAIM,
                   supporting_facts=["f3"], refuting_facts=["f1"], party="defendant"),
        Hypothesis(hypothesis_id=ALT1, kind=HypothesisKind.alternative, claim="The widgets arrived late.",
                   supporting_facts=["f4"], refuting_facts=["f5"]),
        Hypothesis(hypothesis_id=ALT2, kind=HypothesisKind.alternative, claim="Acme overcharged Widget Co.",
                   supporting_facts=["f6"], refuting_facts=["f7"]),
    ]  # fmt: skip
    documents = [
        Document(doc_id=doc_id, path=path, format="txt", doc_type=path.split("_")[0], date="2019-03-01",
                 author="e_alice" if doc_id == "d_merits" else None,
                 mentions=["e_acme", "e_widget"] if role != Role.chaff else [], role=role, facts=facts_,
                 target_hypothesis=target, title=doc_id)
        for doc_id, path, role, facts_, target in DOCS
    ]  # fmt: skip
    env = Environment(
        case=CaseInfo(case_id="acme-v-widget", name="Acme Corp. v. Widget Co.", court="D. Del.",
                      dispositive_question="Did Acme breach the supply contract?", disposition="granted",
                      fictional=True, source="test fixture"),
        entities=[Entity(entity_id="e_alice", name="Alice Smith", kind="person"),
                  Entity(entity_id="e_acme", name="Acme Corp.", kind="organization"),
                  Entity(entity_id="e_widget", name="Widget Co.", kind="organization")],
        facts=facts, hypotheses=hypotheses, documents=documents,
    )  # fmt: skip
    questions = QuestionSet(questions=[
        Question(question_id="q1", question="How many widgets did Acme ship?", answer="500",
                 rubric=[RubricItem(item_id="r1", text="500 widgets")], facts=["f1"]),
    ])  # fmt: skip
    return env, questions


def doc_text(doc_id: str) -> str:
    return f"{doc_id.upper()}\nFrom: Alice Smith\nDate: 2019-03-01\n\nText of {doc_id} about the widget shipment.\n"


def write_environment(env_dir: Path, env: Environment, questions: QuestionSet) -> Path:
    save_environment(env_dir, env, questions)
    (env_dir / "corpus").mkdir(exist_ok=True)
    for doc in env.documents:
        target = env_dir / "corpus" / doc.path
        if ".." not in doc.path and not doc.path.startswith("/") and not target.exists():
            target.write_text(doc_text(doc.doc_id), encoding="utf-8")
    return env_dir


@pytest.fixture
def env_dir(tmp_path: Path) -> Path:
    return write_environment(tmp_path / "env", *make_environment())


def found(problems: list[Problem], location: str, text: str, severity: str = "error") -> bool:
    return any(p.location == location and text in p.message and p.severity == severity for p in problems)


def test_valid_environment_has_no_problems(env_dir: Path) -> None:
    assert validate_environment(env_dir, extract=False) == []
    env, questions = load_environment(env_dir)
    assert len(env.documents) == 9 and questions.questions[0].rubric[0].text == "500 widgets"


# --- breakages: (name, mutate(env, questions, env_dir), location, message fragment, severity) --------------------

Mutate = Callable[[Environment, QuestionSet, Path], None]


def _symlink_out(env: Environment, q: QuestionSet, root: Path) -> None:
    outside = root.parent / "outside.txt"
    outside.write_text("secret", encoding="utf-8")
    (root / "corpus" / "link.txt").symlink_to(outside)
    env.documents[4].path = "link.txt"


def _second_alternative_unrefutable(env: Environment, q: QuestionSet, root: Path) -> None:
    env.facts.append(Fact(fact_id="f9", text="Nobody ever wrote this down.", source="injected"))
    env.hypotheses[2].refuting_facts = ["f9"]


BREAKAGES: list[tuple[str, Mutate, str, str, str]] = [
    ("dangling fact in hypothesis", lambda e, q, r: e.hypotheses[0].supporting_facts.append("f99"),
     "environment.json:hypotheses[0].supporting_facts[2]", "unknown fact id 'f99'", "error"),
    ("dangling fact in document", lambda e, q, r: e.documents[1].facts.append("f98"),
     "environment.json:documents[1].facts[1]", "unknown fact id 'f98'", "error"),
    ("dangling fact in question", lambda e, q, r: q.questions[0].facts.append("f97"),
     "questions.json:questions[0].facts[1]", "unknown fact id 'f97'", "error"),
    ("dangling author", lambda e, q, r: setattr(e.documents[0], "author", "e_nobody"),
     "environment.json:documents[0].author", "unknown entity id 'e_nobody'", "error"),
    ("dangling mention", lambda e, q, r: e.documents[2].mentions.append("e_ghost"),
     "environment.json:documents[2].mentions[2]", "unknown entity id 'e_ghost'", "error"),
    ("dangling target", lambda e, q, r: setattr(e.documents[3], "target_hypothesis", "h9"),
     "environment.json:documents[3].target_hypothesis", "unknown hypothesis id 'h9'", "error"),
    ("two court_adopted", lambda e, q, r: setattr(e.hypotheses[1], "kind", ADOPTED),
     "environment.json:hypotheses", "2 court_adopted hypotheses (h_star, h_dag); need exactly one", "error"),
    ("no court_rejected", lambda e, q, r: setattr(e.hypotheses[1], "kind", ADOPTED),
     "environment.json:hypotheses", "0 court_rejected hypotheses; need exactly one", "error"),
    ("no alternative", lambda e, q, r: setattr(e, "hypotheses", e.hypotheses[:2]),
     "environment.json:hypotheses", "no alternative hypothesis", "error"),
    ("alternative without refuter", lambda e, q, r: setattr(e.hypotheses[3], "refuting_facts", []),
     "environment.json:hypotheses[3].refuting_facts", "has no refuting fact", "error"),
    ("refuter not in corpus", _second_alternative_unrefutable,
     "environment.json:hypotheses[2].refuting_facts", "unrefutable from the corpus", "error"),
    ("refuting document off target", _second_alternative_unrefutable,
     "environment.json:documents[3].facts", "carries none of the refuting facts of its target 'h1'", "warning"),
    ("alternative not additive", lambda e, q, r: e.hypotheses[2].supporting_facts.append("f3"),
     "environment.json:hypotheses[2].supporting_facts[1]", "refutes the court-adopted hypothesis", "warning"),
    ("missing file", lambda e, q, r: (r / "corpus" / "memo_signal.txt").unlink(),
     "environment.json:documents[1].path", "corpus/memo_signal.txt does not exist", "error"),
    ("format/suffix mismatch", lambda e, q, r: setattr(e.documents[2], "format", "pdf"),
     "environment.json:documents[2].format", "'pdf' does not match the file suffix '.txt'", "error"),
    ("path traversal", lambda e, q, r: setattr(e.documents[3], "path", "../x.txt"),
     "environment.json:documents[3].path", "escapes corpus/", "error"),
    ("absolute path", lambda e, q, r: setattr(e.documents[3], "path", "/etc/hostname.txt"),
     "environment.json:documents[3].path", "absolute path", "error"),
    ("backslashes", lambda e, q, r: setattr(e.documents[3], "path", "sub\\x.txt"),
     "environment.json:documents[3].path", "POSIX separators", "error"),
    ("symlink out of corpus", _symlink_out,
     "environment.json:documents[4].path", "resolves outside corpus/", "error"),
    ("unlisted corpus file", lambda e, q, r: (r / "corpus" / "stray.txt").write_text("x"),
     "corpus/stray.txt", "no document lists", "warning"),
    ("merits with target", lambda e, q, r: setattr(e.documents[0], "target_hypothesis", ALT1),
     "environment.json:documents[0].target_hypothesis", "merits document", "error"),
    ("pro_alternative without target", lambda e, q, r: setattr(e.documents[2], "target_hypothesis", None),
     "environment.json:documents[2].target_hypothesis", "must name the alternative", "error"),
    ("refuting targets a party hypothesis", lambda e, q, r: setattr(e.documents[5], "target_hypothesis", "h_dag"),
     "environment.json:documents[5].target_hypothesis", "not the court_rejected hypothesis 'h_dag'", "error"),
    ("signal without party fact", lambda e, q, r: setattr(e.documents[1], "facts", ["f8"]),
     "environment.json:documents[1].facts", "signal document must carry", "error"),
    ("noise bearing on a hypothesis", lambda e, q, r: e.documents[6].facts.append("f1"),
     "environment.json:documents[6].facts[1]", "noise document should bear on no hypothesis", "warning"),
    ("chaff with facts", lambda e, q, r: setattr(e.documents[7], "facts", ["f8"]),
     "environment.json:documents[7].facts", "chaff document", "error"),
    ("duplicate fact id", lambda e, q, r: setattr(e.facts[7], "fact_id", "f1"),
     "environment.json:facts[7].fact_id", "duplicate id 'f1' (first at facts[0])", "error"),
    ("duplicate document id", lambda e, q, r: setattr(e.documents[8], "doc_id", "d_chaff1"),
     "environment.json:documents[8].doc_id", "duplicate id 'd_chaff1'", "error"),
    ("duplicate document path", lambda e, q, r: setattr(e.documents[8], "path", "invoice_chaff1.txt"),
     "environment.json:documents[8].path", "duplicate path 'invoice_chaff1.txt'", "error"),
    ("duplicate entity id", lambda e, q, r: setattr(e.entities[2], "entity_id", "e_acme"),
     "environment.json:entities[2].entity_id", "duplicate id 'e_acme'", "error"),
    ("duplicate hypothesis id", lambda e, q, r: setattr(e.hypotheses[3], "hypothesis_id", ALT1),
     "environment.json:hypotheses[3].hypothesis_id", "duplicate id 'h1'", "error"),
    ("duplicate question id", lambda e, q, r: q.questions.append(q.questions[0].model_copy()),
     "questions.json:questions[1].question_id", "duplicate id 'q1'", "error"),
    ("duplicate rubric item", lambda e, q, r: q.questions[0].rubric.append(RubricItem(item_id="r1", text="x")),
     "questions.json:questions[0].rubric[1].item_id", "duplicate rubric item id 'r1'", "error"),
    ("empty answer", lambda e, q, r: setattr(q.questions[0], "answer", "  "),
     "questions.json:questions[0].answer", "empty answer", "error"),
    ("no rubric", lambda e, q, r: setattr(q.questions[0], "rubric", []),
     "questions.json:questions[0].rubric", "no rubric item", "error"),
    ("non-ISO date", lambda e, q, r: setattr(e.documents[7], "date", "March 1, 2019"),
     "environment.json:documents[7].date", "not an ISO date", "warning"),
]  # fmt: skip


@pytest.mark.parametrize(("mutate", "location", "fragment", "severity"), [b[1:] for b in BREAKAGES],
                         ids=[b[0] for b in BREAKAGES])  # fmt: skip
def test_each_breakage_is_reported_where_it_is(
    tmp_path: Path, mutate: Mutate, location: str, fragment: str, severity: str
) -> None:
    env, questions = make_environment()
    root = write_environment(tmp_path / "env", env, questions)
    mutate(env, questions, root)
    save_environment(root, env, questions)
    problems = validate_environment(root, extract=False)
    assert found(problems, location, fragment, severity), "\n".join(map(str, problems))


def test_many_problems_are_reported_at_once(tmp_path: Path) -> None:
    env, questions = make_environment()
    root = write_environment(tmp_path / "env", env, questions)
    chosen = [b for b in BREAKAGES if b[0] in {
        "dangling fact in hypothesis", "dangling author", "two court_adopted", "missing file", "path traversal",
        "chaff with facts", "duplicate document id", "empty answer", "unlisted corpus file", "dangling mention",
    }]  # fmt: skip
    for _, mutate, *_ in chosen:
        mutate(env, questions, root)
    save_environment(root, env, questions)
    problems = validate_environment(root, extract=False)
    for name, _, location, fragment, severity in chosen:
        assert found(problems, location, fragment, severity), name
    # the traversal target is never read: the unlisted letter_ref1.txt is the original file left behind
    assert found(problems, "corpus/letter_ref1.txt", "no document lists", "warning")
    assert len(errors_in(problems)) >= 8


def test_schema_errors_are_located_one_problem_each(env_dir: Path) -> None:
    raw = json.loads((env_dir / "environment.json").read_text())
    raw["documents"][0]["facts"] = "f1"  # not a list
    raw["facts"][2]["disputed"] = "maybe"
    raw["hypotheses"][3]["kind"] = "bogus"
    del raw["case"]["dispositive_question"]
    raw["colour"] = "blue"
    raw["documents"][1]["facts"] = ["f2", "f404"]  # a valid element: cross-references still run
    (env_dir / "environment.json").write_text(json.dumps(raw))
    problems = validate_environment(env_dir, extract=False)
    for location, fragment in [
        ("environment.json:documents[0].facts", "valid list"),
        ("environment.json:facts[2].disputed", "valid boolean"),
        ("environment.json:hypotheses[3].kind", "court_adopted"),
        ("environment.json:case.dispositive_question", "required field missing"),
        ("environment.json:colour", "unknown field"),
        ("environment.json:documents[1].facts[1]", "unknown fact id 'f404'"),
    ]:
        assert found(problems, location, fragment), (location, "\n".join(map(str, problems)))
    # a broken element is left out without false alarms: f3 (defined by the broken fact) still resolves, the
    # hypothesis counts are skipped, and the broken document's file is not "unlisted"
    assert not any("unknown fact id 'f3'" in p.message for p in problems)
    assert not any(p.location == "environment.json:hypotheses" for p in problems)
    assert not any(p.location == "corpus/exhibit_a.txt" for p in problems)


def test_newer_schema_not_json_and_missing_files(env_dir: Path, tmp_path: Path) -> None:
    raw = json.loads((env_dir / "environment.json").read_text())
    raw["schema_version"] = 99
    (env_dir / "environment.json").write_text(json.dumps(raw))
    assert validate_environment(env_dir, extract=False) == [
        Problem("environment.json:schema_version", "99 is newer than this lexprobe reads (2); upgrade")
    ]
    (env_dir / "environment.json").write_text("{not json")
    assert found(validate_environment(env_dir, extract=False), "environment.json", "not JSON (line 1")
    assert found(validate_environment(tmp_path / "nowhere"), "environment.json", "not found")
    (env_dir / "environment.json").write_text("[]")
    (env_dir / "questions.json").write_text(json.dumps({"questions": [{"question_id": "q1", "question": "?"}]}))
    problems = validate_environment(env_dir, extract=False)
    assert found(problems, "environment.json", "must hold a JSON object")
    assert found(problems, "questions.json:questions[0].answer", "required field missing")


# --- extraction (needs lexprobe.documents) -----------------------------------------------------------------------


def test_extraction_problems_name_the_file(env_dir: Path) -> None:
    pytest.importorskip("lexprobe.documents.extract")
    render = pytest.importorskip("lexprobe.documents.render")
    from lexprobe.documents.content import DocumentContent

    assert validate_environment(env_dir, extract=True) == []
    env, questions = load_environment(env_dir)
    corpus = env_dir / "corpus"

    def replace(index: int, name: str, content: bytes | None = None) -> None:
        (corpus / env.documents[index].path).unlink()
        env.documents[index].path, env.documents[index].format = name, name.rsplit(".", 1)[1]
        if content is not None:
            (corpus / name).write_bytes(content)

    replace(0, "exhibit_a.pdf")  # a real PDF: extracts
    memo = {"doc_type": "memo", "title": "Shipment", "body": [{"kind": "paragraph", "text": "Acme shipped 500."}]}
    render.render_document(DocumentContent.model_validate(memo), corpus / "exhibit_a.pdf")
    replace(1, "memo_signal.pdf", b"%PDF-1.4 this is not a pdf")
    replace(7, "sheet.xlsx", b"PK\x03\x04 truncated zip")
    replace(8, "blank.txt", b"  \n\n ")
    save_environment(env_dir, env, questions)
    problems = validate_environment(env_dir, extract=True)
    assert [(p.location, p.severity) for p in problems] == [
        ("corpus/memo_signal.pdf", "error"), ("corpus/sheet.xlsx", "error"), ("corpus/blank.txt", "warning"),
    ]  # fmt: skip
    assert all("cannot extract text: corrupt or unreadable" in p.message for p in errors_in(problems))
    assert problems[2].message == "extracted text is empty"
    assert validate_environment(env_dir, extract=False) == []  # the same files pass without extraction


# --- the published dataset layout (local copy, read with datasets) -----------------------------------------------


def dataset_row(case_id: str, *, role: str = "signal") -> dict:
    env, questions = make_environment()
    return {
        "case_id": case_id,
        "case_name": env.case.name,
        "court": env.case.court,
        "category": "contract",
        "dispositive_question": env.case.dispositive_question,
        "disposition": "granted",
        "entities": [{"id": e.entity_id, "name": e.name, "kind": e.kind} for e in env.entities],
        "facts": [{"id": f.fact_id, "proposition": f.text, "type": "injected_supporting" if f.source == "injected"
                   else "ground"} for f in env.facts],
        "hypotheses": [{"id": h.hypothesis_id, "label": {"court_adopted": "adopted", "court_rejected": "rejected"}
                        .get(h.kind.value, "alt"), "claim": h.claim, "supporting_fact_ids": h.supporting_facts,
                        "refuting_fact_ids": h.refuting_facts} for h in env.hypotheses],
        "documents": [{"doc_id": d.doc_id, "filename": d.path.replace(".txt", ".pdf") if i else d.path,
                       "doc_type": d.doc_type, "role": role if d.role == Role.signal else d.role.value,
                       "date": d.date, "author": d.author, "mentions": d.mentions, "facts": d.facts,
                       "target_hypothesis": d.target_hypothesis, "text": None if i == 0 else doc_text(d.doc_id)}
                      for i, d in enumerate(env.documents)],
        "questions": [{"question": q.question, "answer": q.answer, "rubric": [r.text for r in q.rubric],
                       "facts": q.facts} for q in questions.questions],
    }  # fmt: skip


def write_dataset(folder: Path, rows: list[dict]) -> Path:
    """The assumed layout: a JSON Lines case table and native files under files/<case_id>/ (here the merits
    exhibit only; the other documents are inline texts)."""
    folder.mkdir(parents=True)
    with (folder / "cases.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
            files = folder / "files" / row["case_id"]
            files.mkdir(parents=True)
            (files / "exhibit_a.txt").write_text("NATIVE EXHIBIT A\nAcme shipped 500 widgets.\n", encoding="utf-8")
    return folder


def test_hf_dataset_round_trip(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "hf", [dataset_row("acme-v-widget"), dataset_row("beta-v-gamma")])
    assert load_hf_cases(dataset) == ["acme-v-widget", "beta-v-gamma"]
    out = import_hf_case(dataset, "beta-v-gamma", tmp_path / "envs" / "beta", extract=False)
    assert validate_environment(out, extract=False) == []
    env, questions = load_environment(out)
    expected, expected_questions = make_environment()
    assert env.case.case_id == "beta-v-gamma" and env.case.category == "contract"
    assert [(h.hypothesis_id, h.kind, h.supporting_facts, h.refuting_facts) for h in env.hypotheses] == [
        (h.hypothesis_id, h.kind, h.supporting_facts, h.refuting_facts) for h in expected.hypotheses
    ]
    assert [f.source for f in env.facts] == [f.source for f in expected.facts]
    assert [(d.doc_id, d.role, d.facts, d.target_hypothesis, d.author) for d in env.documents] == [
        (d.doc_id, d.role, d.facts, d.target_hypothesis, d.author) for d in expected.documents
    ]
    # the native file is copied; inline texts of .pdf documents become .txt corpus files
    assert (out / "corpus" / "exhibit_a.txt").read_text().startswith("NATIVE EXHIBIT A")
    assert env.documents[1].path == "memo_signal.txt" and env.documents[1].format == "txt"
    assert (out / "corpus" / "memo_signal.txt").read_text() == doc_text("d_signal")
    assert questions.questions[0].question_id == "q001"
    assert questions.questions[0].rubric == expected_questions.questions[0].rubric
    with pytest.raises(FileExistsError):
        import_hf_case(dataset, "beta-v-gamma", out, extract=False)
    both = import_hf_cases(dataset, tmp_path / "all", extract=False)
    assert [p.name for p in both] == ["acme-v-widget", "beta-v-gamma"]


def test_hf_dataset_errors_name_row_and_field(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "hf", [dataset_row("a"), dataset_row("b", role="sigil")])
    where = r"row 1 \(case 'b'\): documents\[1\]\.role"
    with pytest.raises(HFDatasetError, match=where + ": unknown document role 'sigil'"):
        import_hf_case(dataset, "b", tmp_path / "b", extract=False)
    with pytest.raises(HFDatasetError, match="no case 'zzz'"):
        import_hf_case(dataset, "zzz", tmp_path / "z", extract=False)
    with pytest.raises(HFDatasetError, match="no case table"):
        load_hf_cases(tmp_path)


def test_hf_dataset_parquet_with_bytes(tmp_path: Path) -> None:
    import datasets

    row = dataset_row("acme-v-widget")
    for i, document in enumerate(row["documents"]):
        document["filename"] = document["filename"].replace(".pdf", ".txt")
        document["bytes"] = doc_text(document["doc_id"]).upper().encode() if i == 2 else None
        document["text"] = doc_text(document["doc_id"])  # no files/ folder here: every document has its text
    folder = tmp_path / "hf"
    (folder / "data").mkdir(parents=True)
    datasets.Dataset.from_list([row]).to_parquet(str(folder / "data" / "train-00000-of-00001.parquet"))
    out = import_hf_case(folder, "acme-v-widget", tmp_path / "env", extract=False)
    assert (out / "corpus" / "email_pro1.txt").read_text() == doc_text("d_pro1").upper()
    assert (out / "corpus" / "memo_signal.txt").read_text() == doc_text("d_signal")


# --- attorney review ---------------------------------------------------------------------------------------------

needs_extract = pytest.mark.skipif(
    importlib.util.find_spec("lexprobe.documents.extract") is None,
    reason="lexprobe.documents.extract not available yet",
)


def cells(path: Path) -> dict[str, list[list[object]]]:
    workbook = openpyxl.load_workbook(path)
    return {ws.title: [[c.value for c in row] for row in ws.iter_rows()] for ws in workbook.worksheets}


def fill(sheet: Path, target: Path, verdicts: dict[tuple[str, str], str], name: str | None = None) -> Path:
    """Copy the sheet as one reviewer: `verdicts` maps (sheet, item id) to the verdict cell's value."""
    workbook = openpyxl.load_workbook(sheet)
    if name is not None:
        instructions = workbook["Instructions"]
        row = next(r for r in range(1, 20) if instructions.cell(r, 1).value == REVIEWER_LABEL)
        instructions.cell(row, 2).value = name
    for (sheet_name, item), value in verdicts.items():
        ws = workbook[sheet_name]
        column = COLUMNS[sheet_name].index("verdict") + 1
        row = next(r for r in range(2, ws.max_row + 1) if ws.cell(r, 1).value == item)
        ws.cell(row, column).value = value
    workbook.save(target)
    return target


DOC_IDS = [d[0] for d in DOCS]
ALICE = {
    **{("Hypotheses", h): "pass" for h in ("h_star", "h_dag")},
    **{("Alternatives", h): "pass" for h in ("h1", "h2")},
    **{("Documents", d): "fail" if d == "d_chaff1" else "pass" for d in DOC_IDS},
    **{("Metadata", d): "fail" if d == "d_merits" else " Pass " for d in DOC_IDS},  # case and spaces are ignored
}
BOB = {
    ("Hypotheses", "h_star"): "pass", ("Hypotheses", "h_dag"): "pass",
    ("Alternatives", "h1"): "pass", ("Alternatives", "h2"): "fail",
    ("Documents", "d_signal"): "fail", ("Documents", "d_chaff1"): "pass", ("Documents", "d_chaff2"): "pass",
}  # fmt: skip


@needs_extract
def test_review_sheet_contents_and_determinism(env_dir: Path, tmp_path: Path) -> None:
    counts = write_review_sheet(env_dir, tmp_path / "a.xlsx", per_role=3, seed=0)
    assert counts == {"Hypotheses": 2, "Alternatives": 2, "Documents": 9, "Metadata": 9}
    write_review_sheet(env_dir, tmp_path / "b.xlsx", per_role=3, seed=0)
    sheet = cells(tmp_path / "a.xlsx")
    assert sheet == cells(tmp_path / "b.xlsx")
    assert list(sheet) == ["Instructions", "Hypotheses", "Alternatives", "Documents", "Metadata"]
    assert [row[:2] for row in sheet["Hypotheses"][1:]] == [["h_star", "court_adopted"], ["h_dag", "court_rejected"]]
    assert sheet["Hypotheses"][1][4] == (
        "f1: Acme shipped 500 widgets on 2019-03-01.\nf2: Widget Co. signed the delivery receipt."
    )
    assert sheet["Hypotheses"][2][3] == FORMULA_CLAIM
    assert sheet["Alternatives"][1][3] == "f5: The carrier log shows delivery on the agreed date."
    documents = {row[0]: row for row in sheet["Documents"][1:]}
    assert tuple(sheet["Documents"][0]) == COLUMNS[DOCUMENTS]
    assert documents["d_pro1"][4] == doc_text("d_pro1").strip()  # the extracted text
    assert documents["d_pro1"][6] == "h1: The widgets arrived late."
    assert {row[0]: row[5] for row in sheet["Metadata"][1:]}["d_merits"] == "Alice Smith (e_alice)"
    workbook = openpyxl.load_workbook(tmp_path / "a.xlsx")
    assert workbook["Hypotheses"]["D3"].data_type == "s"  # "=HYPERLINK..." is text, not a formula
    validations = workbook["Documents"].data_validations.dataValidation
    assert [(str(v.sqref), v.formula1) for v in validations] == [("H2:H10", '"pass,fail"')]
    # the per-role sample is seeded: one per role, chaff and alternatives' documents vary with the seed
    env, _ = load_environment(env_dir)
    draws = {tuple(d.doc_id for d in sample_documents(env, 1, seed)) for seed in range(10)}
    assert len(draws) > 1 and all(len(draw) == 6 for draw in draws)
    assert sample_documents(env, 1, 5) == sample_documents(env, 1, 5)


@needs_extract
def test_review_round_trip_pass_rates_and_agreement(env_dir: Path, tmp_path: Path) -> None:
    blank = tmp_path / "sheet.xlsx"
    write_review_sheet(env_dir, blank, per_role=3, seed=0)
    alice = fill(blank, tmp_path / "alice.xlsx", ALICE, name="Alice Attorney")
    bob = fill(blank, tmp_path / "bob.xlsx", BOB)
    report = read_review_sheets(env_dir, [alice, bob])
    assert report.reviewers == {"Alice Attorney": "alice.xlsx", "bob": "bob.xlsx"}
    assert report.blank == {"Alice Attorney": 0, "bob": 15}
    rows = {row.stage: row for row in report.stages}
    assert list(rows) == [
        "Party hypotheses", "Alternative hypotheses", "Documents: merits", "Documents: signal",
        "Documents: pro_alternative", "Documents: refuting", "Documents: noise", "Documents: chaff",
        "Document metadata", "All stages",
    ]  # fmt: skip
    party, alternatives, signal, chaff = (rows[s] for s in ("Party hypotheses", "Alternative hypotheses",
                                                            "Documents: signal", "Documents: chaff"))  # fmt: skip
    assert (party.n, party.passed, party.shared, party.agreement, party.kappa) == (4, 4, 2, 1.0, 1.0)
    # alternatives: alice pass/pass, bob pass/fail: p_o = 1/2, p_e = 1 * 1/2, kappa 0
    assert (alternatives.n, alternatives.pass_rate, alternatives.agreement, alternatives.kappa) == (4, 0.75, 0.5, 0)
    assert (signal.n, signal.passed, signal.shared, signal.agreement) == (2, 1, 1, 0.0)
    assert (chaff.n, chaff.passed, chaff.shared, chaff.agreement, chaff.kappa) == (4, 3, 2, 0.5, 0.0)
    merits, metadata = rows["Documents: merits"], rows["Document metadata"]
    assert (merits.n, merits.pass_rate, merits.shared, merits.agreement, merits.kappa) == (1, 1.0, 0, None, None)
    assert (metadata.n, metadata.passed, metadata.shared) == (9, 8, 0)
    # all stages: 22 + 7 verdicts, 20 + 5 pass; 7 shared items, 4 agree; alice 6 pass / 1 fail, bob 5 / 2 on them:
    # p_o = 28/49, p_e = (6*5 + 1*2)/49 = 32/49, kappa = (28 - 32) / (49 - 32) = -4/17
    total = rows["All stages"]
    assert (total.n, total.passed, total.shared, total.comparisons) == (29, 25, 7, 7)
    assert total.agreement == pytest.approx(4 / 7) and total.kappa == pytest.approx(-4 / 17)
    [pair] = report.pairs
    assert pair.reviewers == ("Alice Attorney", "bob") and pair.n == 7 and pair.kappa == pytest.approx(-4 / 17)
    # a third reviewer: party hypotheses h_star fail, h_dag pass. Comparisons: h_star agrees 1 of 3 pairs, h_dag
    # 3 of 3 -> 4/6; kappa per pair on party items: alice-bob 1, alice-carol 0, bob-carol 0 -> mean 1/3
    carol = fill(blank, tmp_path / "carol.xlsx", {("Hypotheses", "h_star"): "fail", ("Hypotheses", "h_dag"): "pass"})
    party3 = read_review_sheets(env_dir, [alice, bob, carol]).stages[0]
    assert (party3.n, party3.passed, party3.shared, party3.comparisons) == (6, 5, 2, 6)
    assert party3.agreement == pytest.approx(4 / 6) and party3.kappa == pytest.approx(1 / 3)


@needs_extract
def test_malformed_review_sheets_name_file_sheet_and_cell(env_dir: Path, tmp_path: Path) -> None:
    blank = tmp_path / "sheet.xlsx"
    write_review_sheet(env_dir, blank, per_role=3, seed=0)
    alice = fill(blank, tmp_path / "alice.xlsx", {**ALICE, ("Documents", "d_noise"): "maybe",
                                                   ("Alternatives", "h2"): 1})  # fmt: skip
    workbook = openpyxl.load_workbook(alice)
    workbook["Metadata"]["A4"] = "d_unknown"
    workbook.save(alice)
    row = [r[0] for r in cells(alice)["Documents"]].index("d_noise") + 1
    with pytest.raises(ReviewSheetError) as caught:
        read_review_sheets(env_dir, [alice, fill(blank, tmp_path / "bob.xlsx", BOB, name="alice")])
    assert caught.value.errors == [
        "alice.xlsx:Alternatives!E3: verdict 1 is not one of pass, fail",
        f"alice.xlsx:Documents!H{row}: verdict 'maybe' is not one of pass, fail",
        "alice.xlsx:Metadata!A4: unknown item 'd_unknown' for this environment",
        "bob.xlsx: reviewer 'alice' also filled alice.xlsx",
    ]
    other = tmp_path / "other"
    env, questions = make_environment()
    env.case.case_id = "other-case"
    write_environment(other, env, questions)
    with pytest.raises(ReviewSheetError, match=r"alice.xlsx:Instructions!B4: sheet of case 'acme-v-widget'"):
        read_review_sheets(other, [fill(blank, tmp_path / "alice.xlsx", ALICE)])
    (tmp_path / "junk.xlsx").write_text("not a workbook")
    with pytest.raises(ReviewSheetError, match=r"junk\.xlsx: cannot open as \.xlsx"):
        read_review_sheets(env_dir, [tmp_path / "junk.xlsx"])


# --- the command line --------------------------------------------------------------------------------------------

runner = CliRunner()


def test_cli_validate_exit_codes_and_json(env_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(investigation_app, ["validate", str(env_dir), "--no-extract", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [] and "valid" in result.stderr
    (env_dir / "corpus" / "stray.txt").write_text("x")
    result = runner.invoke(investigation_app, ["validate", str(env_dir), "--no-extract"])
    assert result.exit_code == 0 and "stray.txt" in result.stdout and "1 warning" in result.stderr
    (env_dir / "corpus" / "memo_signal.txt").unlink()
    result = runner.invoke(investigation_app, ["validate", str(env_dir), "--no-extract", "--json"])
    assert result.exit_code == 1
    problems = json.loads(result.stdout)  # pure JSON: the summary is on stderr
    assert {"location": "environment.json:documents[1].path", "severity": "error",
            "message": "corpus/memo_signal.txt does not exist"} in problems  # fmt: skip
    assert result.stderr.strip().endswith("1 error(s), 1 warning(s)")
    result = runner.invoke(investigation_app, ["validate", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "is not a directory" in result.stderr


def test_cli_import_hf(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "hf", [dataset_row("acme-v-widget"), dataset_row("b", role="sigil")])
    args = ["import-hf", str(dataset), "--out", str(tmp_path / "envs"), "--no-extract"]
    result = runner.invoke(investigation_app, args)
    assert result.exit_code == 2 and "2 cases: acme-v-widget, b" in result.stderr
    result = runner.invoke(investigation_app, [*args, "--case", "acme-v-widget"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"acme-v-widget\t{tmp_path / 'envs' / 'acme-v-widget'}\n"
    result = runner.invoke(investigation_app, [*args, "--all", "--force"])
    assert result.exit_code == 2 and "unknown document role 'sigil'" in result.stderr
    broken = dataset_row("c")
    broken["documents"][7]["facts"] = ["f8"]  # chaff carrying a fact: imported, then refused by validation
    dataset = write_dataset(tmp_path / "hf2", [broken])
    result = runner.invoke(investigation_app, ["import-hf", str(dataset), "--out", str(tmp_path / "envs"), "--all"])
    assert result.exit_code == 1 and result.stdout == ""
    assert "environment.json:documents[7].facts" in result.stderr and "1 error(s)" in result.stderr
    assert (tmp_path / "envs" / "c" / "environment.json").is_file()  # kept for inspection


@needs_extract
def test_cli_review_commands(env_dir: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "review.xlsx"
    result = runner.invoke(investigation_app, ["review-sheet", str(env_dir), "--out", str(sheet)])
    assert result.exit_code == 0, result.output
    assert "2 party hypotheses, 2 alternatives, 9 documents" in result.stdout
    result = runner.invoke(investigation_app, ["review-sheet", str(env_dir), "--out", str(sheet)])
    assert result.exit_code == 2 and "--force" in result.stderr
    alice, bob = fill(sheet, tmp_path / "alice.xlsx", ALICE), fill(sheet, tmp_path / "bob.xlsx", BOB)
    result = runner.invoke(investigation_app, ["review-import", str(env_dir), str(alice), str(bob), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["stages"][-1]["stage"] == "All stages" and report["stages"][-1]["n"] == 29
    assert "bob: 15 verdict(s) left blank" in result.stderr
    result = runner.invoke(investigation_app, ["review-import", str(env_dir), str(alice), str(bob)])
    assert result.exit_code == 0 and "Party hypotheses" in result.stdout and "alice vs bob" in result.stdout
    fill(sheet, alice, {**ALICE, ("Hypotheses", "h_dag"): "ok"})
    result = runner.invoke(investigation_app, ["review-import", str(env_dir), str(alice)])
    assert result.exit_code == 2 and "alice.xlsx:Hypotheses!F3: verdict 'ok'" in result.stderr
