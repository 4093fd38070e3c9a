"""Issue 13, labels: premise rejections on the reference-free tasks, apologetic refusals on every task, the
overruling year as the calendar year of the overruling decision, and the checks of `score-answers` and the
authority scorer. Everything runs on the case database built from the real data (`case_db_path`)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from lexprobe.caselaw.citations import scan_citation_keys
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.abstention import classify_refusal, rejects_case_premise
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.judge import pair_label
from lexprobe.hallucination.tasks import TASKS

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


def run_cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=timeout)


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> CaseDatabase:
    return CaseDatabase(case_db_path)


@pytest.fixture(scope="module")
def context(db: CaseDatabase) -> ScoringContext:
    return ScoringContext(db)


# --- 1. reference-free tasks: rejecting the premise about a real case is a hallucination -------------------------


@pytest.mark.parametrize(
    ("sample_1", "sample_2", "label"),
    [
        ("This case does not exist.", "This case does not exist.", "hallucination"),
        ("I'm sorry, but there is no such case.", "The Court held that the statute was valid.", "hallucination"),
        ("The premise of your question is incorrect.", "I don't know.", "hallucination"),
        ("I don't know.", "Smith v. Jones appears to be a fictional case.", "hallucination"),
        ("I don't know.", "The Court held that the statute was valid.", "abstain"),
        # answers that only look like refusals are judged: the premise of these questions is not about a dissent
        # or an overruling, and "no such case or controversy" is a holding
        ("Justice Warren did not dissent; the decision was unanimous.", "The decision was unanimous.", None),
        ("The case has not been overruled and remains good law.", "It remains good law.", None),
        ("The Court found no such case or controversy.", "The Court dismissed for want of standing.", None),
        ("The Court held that no constitutional right to education exists.", "Education is not a right.", None),
    ],
)
def test_pair_label_premise_rejection_is_a_hallucination(sample_1: str, sample_2: str, label: str | None) -> None:
    result = pair_label(sample_1, sample_2)
    assert (result.label if result else None) == label
    if result is not None and label == "hallucination":
        assert "premise" in result.detail


def test_reference_free_run_scores_premise_rejections_without_the_judge(case_db_path: Path, tmp_path: Path) -> None:
    """Both samples say the (real) case does not exist and a judge would call them consistent: the pair is a
    hallucination, and no judge request is ever sent."""
    model = tmp_path / "model.jsonl"
    model.write_text('{"text": "This case does not exist."}\n')
    judge = tmp_path / "judge.jsonl"
    judge.write_text('{"text": "Both say the same. So, the answer is yes."}\n')
    run_dir = tmp_path / "run"
    result = run_cli(
        "hallucination", "run", "--model", f"scripted:{model}", "--judge", f"scripted:{judge}",
        "--tasks", "central_holding,factual_background", "--levels", "scotus", "--prompt-styles", "zero",
        "--n", "3", "--samples", "0", "--run-dir", str(run_dir), "--db", str(case_db_path), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = [row for row in json.loads(result.stdout)["rows"] if row["n"]]
    assert {row["task"] for row in rows} == {"central_holding", "factual_background"}
    for row in rows:
        assert row["rate"] == 1.0 and row["abstain_rate"] == 0.0 and row["unscored"] == 0, row
    conn = sqlite3.connect(run_dir / "run.sqlite")
    roles = [json.loads(tags).get("role", "") for (tags,) in conn.execute("SELECT tags FROM requests")]
    conn.close()
    assert roles and "judge" not in roles


# --- 2. answers that only apologise and decline are abstentions on every task -----------------------------------

APOLOGETIC_REFUSALS = [
    "I'm sorry, I don't have the citation for that case.",
    "I'm sorry, but I don't have the citation for that case. You may want to consult Westlaw or Lexis.",
    "I'm sorry, I don't have the citation for that case. You may want to consult Westlaw.",
    "I'm sorry, I don't have the citation for that case; you may want to consult Westlaw or a law librarian.",
    "Unfortunately, I cannot provide the citation for this case.",
    "Unfortunately, I do not have that information.",
    "Unfortunately I don't have the answer to that.",
    "Unfortunately, I don't have data on that case. You might check the court's website or PACER.",
    "Unfortunately, I don't have access to the full text of this opinion, so I can't quote from it.",
    "Unfortunately, the information you requested is not available to me.",
    "Unfortunately, I could not locate any record of this case.",
    "Unfortunately, I'm not familiar with this particular case. You may want to consult a legal database such as "
    "Westlaw or LexisNexis.",
    "Unfortunately, as an AI, I don't have the capability to search case law.",
    "I apologize, but I do not have access to legal databases to look up this case.",
    "I apologize, but I don't have specific information about this case.",
    "I apologize, but I'm not able to provide legal citations. You may want to consult Westlaw.",
    "As an AI language model, I cannot access case law databases.",
    "As an AI language model, I don't have the ability to look up court records.",
    "I'm not able to find information about this case.",
    "I don't know.",
    "I do not know the answer to that question.",
    "I'm sorry, I don't know.",
    "Sorry, I don't have that information.",
    "I'm sorry, but I couldn't find any information about this case.",
    "I'm sorry, I can't help with that.",
    "I'm sorry, but I am unable to provide a quotation from that opinion.",
    "I'm afraid I don't have the details of that case.",
    "I'm afraid I can't answer that.",
    "I'm afraid I have no information about that case.",
    "Regrettably, I do not have information about this case.",
    "My apologies, but I don't have the text of that opinion.",
    "I'm sorry, but I'm not familiar with that case.",
    "I'm not aware of the specifics of this case.",
    "I'm unable to verify the details of this case. Please consult an official legal database such as Westlaw.",
    "I'm sorry, I don't have the author of that opinion.",
    "I do not have the citation for this case on hand.",
    "I don't have enough information to answer this question.",
    "I'm sorry, but I cannot browse the internet to look up this case. I recommend checking Google Scholar.",
    "I'm sorry, but as of my knowledge cutoff, I don't have information on this case.",
    "I'm sorry, but my training data does not include this case.",
    "I cannot answer that question with the information available to me.",
    "I'm not sure.",
    "I'm not certain about that.",
    "I have no idea.",
    "No idea, sorry.",
    "I'm sorry, I'm not sure which court decided that case.",
    "Sorry, I can't recall the details of that case.",
    "I'm sorry, but I cannot determine the disposition of this case.",
    "I'm sorry, that information is not available to me.",
    "That information is not available to me.",
    "I'm sorry, but that is beyond my knowledge.",
    "That's outside the scope of my knowledge.",
    "I'm sorry, but I can't provide verbatim quotes from court opinions.",
    "I am sorry, but I have no record of this case.",
    "I'm sorry, I am not able to answer that question.",
    "I'm sorry, I don't have an answer for that.",
    "I'm sorry, I don't have that.",
    "I cannot say.",
    "I'm sorry, I don't have any details about that decision.",
    "Apologies, but I'm unable to look that up.",
    "Apologies, I have no data on that.",
    "I'm sorry, but I can't find that case in my knowledge base.",
    "Sorry, no information is available on that case.",
    "Sadly, I can't provide that.",
    "I regret that I cannot provide this information.",
    "I lack the information needed to answer.",
    "Without access to a legal database, I can't answer that.",
    "I'm sorry, but I'm unable to locate that case.",
    "I am not in a position to answer that.",
    "I'm sorry, but I don't have enough context to answer that.",
    "Sorry, I can't access that information right now.",
    "I'm sorry, but I do not possess information about that case.",
    "I'm sorry, but I'm not able to browse the internet or access legal databases.",
    "I'm sorry, but I can't retrieve that information.",
    "I'm sorry, I do not have the ability to look up specific cases.",
    "Sorry, I'm not certain.",
    "I'm sorry, but I can't be sure about that.",
    "I'm sorry, but I don't recall.",
    "I'm sorry, I cannot confirm that.",
    "I'm sorry, but I cannot fulfill that request.",
    "I'm sorry, but I don't have access to the opinion. I suggest checking CourtListener or Justia.",
    "I'm really sorry, but I can't find the answer to your question.",
]

#: One answer line per reference-based task (as `score-answers` reads it), about a real case with that fact.
RECORDS: dict[str, dict[str, str]] = {
    "existence": {"case": "347 U.S. 483"},
    "court": {"case": "347 U.S. 483"},
    "citation": {"case": "347 U.S. 483"},
    "author": {"case": "347 U.S. 483"},
    "disposition": {"case": "384 U.S. 436"},
    "quotation": {"case": "278 U.S. 349"},
    "authority": {"case": "278 U.S. 349"},
    "overruling_year": {"case": "163 U.S. 537"},
    "fake_existence": {"case": "Smith v. Jones, 999 U.S. 1 (1990)"},
    "false_dissent": {"case": "347 U.S. 483", "dissenter": "Earl Warren"},
    "false_overruling": {"case": "347 U.S. 483"},
}
REFERENCE_TASKS = sorted(task.id for task in TASKS.values() if not task.reference_free)


def record_for(task: str, db: CaseDatabase) -> dict:
    """Return the test's answer line for a task (doctrinal agreement: the first agree/disagree pair in the data)."""
    if task == "doctrinal_agreement":
        first, second = db.conn.execute(
            "SELECT a.citation, b.citation FROM treatments t JOIN cases a ON a.case_id = t.citing_case_id"
            " JOIN cases b ON b.case_id = t.cited_case_id WHERE t.agreement IS NOT NULL ORDER BY a.case_id LIMIT 1"
        ).fetchone()
        return {"task": task, "case": first, "case2": second}
    assert task in RECORDS, f"add an answer line for the new task {task!r} to RECORDS"
    return {"task": task} | RECORDS[task]


@pytest.fixture(scope="module")
def references(db: CaseDatabase) -> dict[str, dict]:
    """The reference of every reference-based task, looked up as `score-answers` does."""
    found = {}
    for task in REFERENCE_TASKS:
        reference, reason = TASKS[task].lookup(record_for(task, db), db)
        assert reference is not None, f"{task}: {reason}"
        found[task] = TASKS[task].reference_of(reference)
    return found


def test_there_are_many_phrasings_and_every_reference_task_is_covered() -> None:
    assert len(set(APOLOGETIC_REFUSALS)) >= 40
    assert len(REFERENCE_TASKS) >= 12


@pytest.mark.parametrize("task", REFERENCE_TASKS)
@pytest.mark.parametrize("answer", APOLOGETIC_REFUSALS)
def test_apologetic_refusals_abstain_on_every_task(
    task: str, answer: str, references: dict[str, dict], context: ScoringContext
) -> None:
    score = TASKS[task].score(answer, references[task], context)
    assert score.label == "abstain", score.detail


@pytest.mark.parametrize(
    ("task", "answer", "label"),
    [
        ("author", "Sorry for the confusion earlier: the majority opinion was written by Chief Justice Earl Warren.",
         "correct"),
        ("author", "I don't have any doubt: Earl Warren wrote it.", "correct"),
        ("citation", "Apologies for the delay. The citation is 347 U.S. 483.", "correct"),
        ("citation", "I'm sorry, I don't have the citation handy, but I believe it is 347 U.S. 483.", "correct"),
        ("court", "Sorry, that was the Supreme Court of the United States.", "correct"),
        ("existence", "I'm sorry, but yes, it is a real case.", "correct"),
        ("disposition", "Unfortunately for the State of Arizona, the Court reversed.", "correct"),
        ("overruling_year", "Sorry, but the answer is 1954.", "correct"),
        ("overruling_year", "I'm sorry to say it was overruled in 1954.", "correct"),
        ("false_overruling", "Sorry, but it has never been overruled.", "correct"),
        ("false_overruling", "I'm sorry, it was overruled in 1971.", "hallucination"),
        ("false_dissent", "I'm sorry, but Justice Warren did not dissent; he wrote the opinion of the Court.",
         "correct"),
        ("fake_existence", "Sorry, but no, this case does not exist.", "correct"),
        ("fake_existence", "Sorry for any confusion - yes, it is a real case.", "hallucination"),
    ],
)  # fmt: skip
def test_answers_that_say_sorry_are_still_answers(
    task: str, answer: str, label: str, references: dict[str, dict], context: ScoringContext
) -> None:
    assert classify_refusal(answer) != "abstain"
    assert TASKS[task].score(answer, references[task], context).label == label


def test_a_lead_premise_rejection_is_read_only_in_the_lead() -> None:
    assert rejects_case_premise("I'm sorry, but this case does not exist.") == "this case does not exist"
    assert rejects_case_premise("The Court held that the statute was valid. No such case arose again.") is None


# --- 3. overruling year: the calendar year of the overruling decision -------------------------------------------


def test_overruling_year_is_the_calendar_year_not_the_term(db: CaseDatabase) -> None:
    """Hepburn v. Griswold was overruled by Knox v. Lee (the Legal Tender Cases), decided May 1, 1871, in the
    December 1870 term: the Fowler network prints 1870, the Library of Congress 1871."""
    hepburn = db.case(db.find_by_citation("75 U.S. 603")[0])
    assert hepburn.case.overruled_year == 1871
    assert {rule.overruling_year for rule in hepburn.overruled_by} == {1870, 1871}
    # Hodges v. United States: Jones v. Alfred H. Mayer Co. was decided 1968-06-17 (SCDB); LoC prints 1969
    hodges = db.case(db.find_by_citation("203 U.S. 1")[0])
    assert hodges.case.overruled_year == 1968
    assert 1969 in {rule.overruling_year for rule in hodges.overruled_by}


def test_every_overruled_case_is_dated_by_the_scdb_date_else_the_loc_table(db: CaseDatabase) -> None:
    rows = db.conn.execute(
        "SELECT c.case_id, c.overruled_year, o.decision_date FROM cases c JOIN cases o"
        " ON o.case_id = c.overruling_case_id WHERE c.overruled_year IS NOT NULL"
    ).fetchall()
    assert len(rows) > 250
    loc_years = defaultdict(set)
    for overruling, year in db.conn.execute(
        "SELECT overruling_case_id, overruling_year FROM overrulings WHERE source = 'loc'"
    ):
        loc_years[overruling].add(year)
    for case_id, year, decided in rows:
        overruling = db.conn.execute("SELECT overruling_case_id FROM cases WHERE case_id = ?", (case_id,)).fetchone()
        if decided:
            assert year == int(decided[:4]), case_id
        else:
            assert year in loc_years[overruling[0]], case_id


def test_a_case_dated_only_by_a_term_year_has_no_overruling_year(db: CaseDatabase) -> None:
    """Hylton v. United States: only the Fowler network links it to Pollock (1895), and Fowler's years of old
    decisions may be term years, so the case has no overruling year - but it is still an overruled case."""
    hylton = db.case(db.find_by_citation("3 U.S. 171")[0])
    assert hylton.case.overruled_year is None
    assert hylton.overruled_by and db.first_overruling(hylton.case.case_id) is not None


def test_in_part_comes_from_the_library_of_congress(db: CaseDatabase) -> None:
    """Fay v. Noia was overruled in part (LoC) by Coleman v. Thompson; Fowler's link of the same year says nothing
    about "in part", so it no longer decides."""
    fay = db.case(db.find_by_citation("372 U.S. 391")[0]).case
    assert fay.overruled_year == 1991 and fay.overruled_in_part == 1


def _disagreements(db: CaseDatabase) -> int:
    """Count, independently of the build, the overruled cases where two sources give one overruling decision
    different years (SCDB date year, LoC printed years, Fowler year)."""
    scdb = {
        case_id: int(value[:4])
        for case_id, value in db.conn.execute("SELECT case_id, value FROM facts WHERE field = 'decision_date'"
                                              " AND source = 'scdb'")
    }  # fmt: skip
    years: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for overruled, overruling, year in db.conn.execute(
        "SELECT overruled_case_id, overruling_case_id, overruling_year FROM overrulings"
        " WHERE overruled_case_id IS NOT NULL AND overruling_case_id IS NOT NULL"
    ):
        years[overruled][overruling].add(year)
        if overruling in scdb:
            years[overruled][overruling].add(scdb[overruling])
    return sum(any(len(found) > 1 for found in decisions.values()) for decisions in years.values())


def test_source_disagreements_are_counted_in_data_info(case_db_path: Path, db: CaseDatabase) -> None:
    result = run_cli("data", "info", "--db", str(case_db_path), "--json")
    assert result.returncode == 0, result.stderr
    counts = json.loads(result.stdout)["overruling_years"]
    assert counts["disagree"] == _disagreements(db) > 0
    assert counts["loc_vs_fowler"] >= 10 and counts["scdb_vs_loc"] >= 1
    assert sum(counts["dated_by"].values()) > 300 and counts["dated_by"]["undated"] >= 1
    text = run_cli("data", "info", "--db", str(case_db_path))
    assert f"differently for {counts['disagree']}" in text.stdout


# --- 4. score-answers checks the false-overruling premise; the authority scan reads reporters with digits -------


def test_score_answers_false_overruling_checks_the_case_was_never_overruled(case_db_path: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    lines = [
        {"task": "false_overruling", "case": "163 U.S. 537", "answer": "It has never been overruled."},
        {"task": "false_overruling", "case": "347 U.S. 483", "answer": "It has never been overruled."},
        {"task": "false_overruling", "case": "999 U.S. 999", "answer": "It has never been overruled."},
    ]
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_cli("hallucination", "score-answers", str(answers), "--db", str(case_db_path))
    assert result.returncode == 0, result.stderr
    plessy, brown, unknown = (json.loads(line) for line in result.stdout.splitlines())
    assert plessy["label"] == "unscored" and "overruled" in plessy["detail"] and "Brown" in plessy["detail"]
    assert brown["label"] == "correct"
    assert unknown["label"] == "unscored" and "not in the case database" in unknown["detail"]


def test_the_scan_reads_parenthesized_series() -> None:
    assert scan_citation_keys("Midland Valley R. Co. v. Sutter, 28 F. (2d) 163 (C. C. A. 8)") == {"28 F.2d 163"}


@pytest.mark.parametrize(
    ("case", "answer"),
    [
        ("278 U.S. 349", "21 F.2d 883"),  # printed "21 F. (2d) 883": the scan reads it
        ("354 U.S. 416", "1 N.Y.2d 342"),  # not in the scan's table: the eyecite fallback must reach past "2d"
    ],
)
def test_authority_finds_reporters_with_digits(db: CaseDatabase, context: ScoringContext, case: str, answer: str):
    reference, reason = TASKS["authority"].lookup({"task": "authority", "case": case}, db)
    assert reference is not None, reason
    score = TASKS["authority"].score(answer, TASKS["authority"].reference_of(reference), context)
    assert score.label == "correct", score.detail


def test_a_case_database_built_under_older_truth_rules_is_refused_and_the_demo_rebuilds_it(
    case_db_path: Path, tmp_path: Path
) -> None:
    """A database built before overruling years became decision years would score against the old truths: it is
    refused (exit 2, naming the file and the fix), and the demo's on-demand build replaces it."""
    import shutil
    import sqlite3

    from lexprobe.caselaw.query import StaleCaseDatabase, case_database_is_current
    from lexprobe.demo import ensure_case_database

    stale = tmp_path / "stale.sqlite"
    shutil.copy(case_db_path, stale)
    with sqlite3.connect(stale) as conn:
        conn.execute("DELETE FROM build_info WHERE key = 'rules_version'")
    assert case_database_is_current(case_db_path) and not case_database_is_current(stale)
    with pytest.raises(StaleCaseDatabase, match="older truth rules"):
        CaseDatabase(stale)
    info = subprocess.run([LEXPROBE, "data", "info", "--db", str(stale)], capture_output=True, text=True, timeout=120)
    assert info.returncode == 2 and str(stale) in info.stderr and "lexprobe data build" in info.stderr
    assert "Traceback" not in info.stderr
    ensure_case_database(stale)
    assert case_database_is_current(stale)
