"""Issue 15, "coverage = opened": coverage and signal recall count the documents an agent OPENED (content shown:
read, shell cat/head/sed -n/grep -C on a file, ...), never those it only SAW IN SEARCH (glob, the grep tool, ls,
find, grep -l, grep match lines), which get their own share. Scripted agents on the sample environment, the shell
command classifier table-driven, old episode records (read calls only), and `investigation show`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from tool_requirements import needs_bwrap
from typer.testing import CliRunner

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import Episode, ToolCallRecord, load_episodes
from lexprobe.investigation.agent.harness import HarnessSettings
from lexprobe.investigation.agent.run import run_investigations
from lexprobe.investigation.agent.tools import MAX_OUTPUT_CHARS, Toolbox
from lexprobe.investigation.environment.format import load_environment
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.investigation.scoring.coverage import coverage, opened_documents, seen_documents
from lexprobe.investigation.scoring.metrics import DEFINITIONS
from lexprobe.investigation.scoring.summary import summarize
from lexprobe.investigation.shell.shell_reads import shell_documents, split_command

MARKER = "I15-SUMMARY"  # the summary text: the verdict turn (which quotes it) is answered by `when`
VERDICTS = {"when": MARKER, "text": '[{"label": "H1", "verdict": "C"}, {"label": "H2", "verdict": "C"}, '
            '{"label": "H3", "verdict": "C"}, {"label": "H4", "verdict": "C"}]'}  # fmt: skip


@pytest.fixture(scope="module")
def sample_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample case at +noise: 30 documents (merits, signal, pro_alternative, refuting, noise)."""
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "+noise")


def call(name: str, **arguments: object) -> dict:
    return {"name": name, "arguments": arguments}


def play(env: Path, tmp_path: Path, calls: list[dict]) -> Episode:
    """Run one episode of a scripted agent making `calls` one per turn, then summarizing."""
    script = tmp_path / "agent.jsonl"
    lines = [{"tool_calls": [c]} for c in calls] + [{"text": f"{MARKER}: a summary."}, VERDICTS]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    settings = HarnessSettings(model=f"scripted:{script}", tool_budget=30, turn_budget=25)
    config = EngineConfig(progress=False, max_retries=0)
    (episode,) = asyncio.run(run_investigations([env], settings, tmp_path / "run", ResponseCache(), config))
    assert episode.status == "complete", episode.error
    return episode


def doc_ids(env: Path, *paths: str) -> set[str]:
    environment, _ = load_environment(env)
    by_path = {doc.path: doc.doc_id for doc in environment.documents}
    return {by_path[path] for path in paths}


SEARCHES = [
    call("shell", command="ls"),
    call("glob", pattern="**/*"),
    call("grep", pattern="Kestrel"),
    call("shell", command="grep -l Corvane *"),
    call("shell", command="grep -rn KX-220 ."),
    call("shell", command="find . -name '*.txt'"),
    call("shell", command="wc -l DOC-0008.txt"),
    call("shell", command="grep -c Kestrel DOC-0009.docx"),
    call("shell", command="cat DOC-0001.pptx | wc -l"),
]


@needs_bwrap
def test_an_agent_that_only_lists_and_searches_opens_nothing(sample_env: Path, tmp_path: Path) -> None:
    episode = play(sample_env, tmp_path, SEARCHES)
    assert [c.opened for c in episode.tool_calls] == [[]] * len(SEARCHES)
    environment, _ = load_environment(sample_env)
    cov = coverage(episode, environment)
    assert (cov.n_opened, cov.coverage, cov.signal_recall) == (0, 0.0, 0.0)  # touched-based coverage was 1.0
    assert all(recall == 0.0 for recall in cov.recall_by_role.values() if recall is not None)
    assert cov.n_seen == 30 and cov.seen_share == 1.0  # `ls` at the corpus root lists every document
    grep_tool = episode.tool_calls[2]
    assert sorted(grep_tool.seen) == ["DOC-0008.txt", "DOC-0009.docx", "DOC-0011.xlsx", "DOC-0032.pptx",
                                      "DOC-0034.docx", "DOC-0038.pdf"]  # fmt: skip
    assert "DOC-0021.txt" in episode.tool_calls[3].seen and "DOC-0008.txt" in episode.tool_calls[4].seen
    assert episode.tool_calls[6].seen == ["DOC-0008.txt"]  # wc prints the name, never the content
    assert episode.tool_calls[7].seen == [] and episode.tool_calls[8].seen == []
    summary = summarize([episode], {episode.env_dir: environment}, replicates=50)
    model = summary.models[0]
    assert (model.coverage, model.signal_recall, model.seen_share) == (0.0, 0.0, 1.0)
    assert "seen_share" in summary.model_dump()["models"][0]


READS = [
    call("read", path="DOC-0034.docx"),
    call("shell", command="cat DOC-0008.txt"),
    call("shell", command="head -n 3 DOC-0006.txt"),
    call("shell", command="sed -n '1,4p' DOC-0013.xlsx"),
    call("shell", command="grep -C 2 Corvane DOC-0021.txt"),
    call("shell", command="cat DOC-0030.pdf | grep -i pallet"),
    call("shell", command="grep Corvane DOC-0026.docx"),  # no match: nothing of it shown
]


@needs_bwrap
def test_read_cat_head_sed_grep_context_and_a_pipeline_open_documents(sample_env: Path, tmp_path: Path) -> None:
    episode = play(sample_env, tmp_path, READS)
    assert [c.opened for c in episode.tool_calls] == [
        ["DOC-0034.docx"], ["DOC-0008.txt"], ["DOC-0006.txt"], ["DOC-0013.xlsx"], ["DOC-0021.txt"], ["DOC-0030.pdf"],
        [],
    ]  # fmt: skip
    environment, _ = load_environment(sample_env)
    opened = doc_ids(sample_env, "DOC-0034.docx", "DOC-0008.txt", "DOC-0006.txt", "DOC-0013.xlsx", "DOC-0021.txt",
                     "DOC-0030.pdf")  # fmt: skip
    assert opened_documents(episode, environment) == opened
    cov = coverage(episode, environment)
    assert cov.coverage == pytest.approx(6 / 30)
    assert cov.signal_recall == pytest.approx(3 / 19)  # m12, m05, s01 of 14 merits + 5 signal documents
    assert cov.recall_by_role["noise"] == pytest.approx(1 / 5)
    assert cov.recall_by_role["pro_alternative"] == pytest.approx(1 / 4)
    assert cov.recall_by_role["refuting"] == pytest.approx(1 / 2)
    assert cov.seen_share == 0.0  # nothing came from a search
    reads_only = coverage(episode, environment, reads_only=True)
    assert reads_only.coverage == pytest.approx(1 / 30)


@needs_bwrap
def test_show_marks_opened_and_seen(sample_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import lexprobe.cli.output
    from lexprobe.cli.investigation import investigation_app

    monkeypatch.setattr(lexprobe.cli.output.out, "width", 80)  # a narrow console: call lines must still not wrap
    episode = play(sample_env, tmp_path, [call("shell", command="cat DOC-0008.txt"), call("glob", pattern="*.txt")])
    result = CliRunner().invoke(
        investigation_app, ["show", str(tmp_path / "run"), episode.episode_id], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("call ")]
    assert "-> opened: m05_email_capacitor (merits)" in lines[0] and "seen in search" not in lines[0]
    assert "opened:" not in lines[1] and "seen in search: 5: " in lines[1]
    assert "n01_lot1_delivery_email (noise)" in lines[1]


def test_tools_record_opened_and_seen(sample_env: Path) -> None:
    box = Toolbox(CorpusView.open(sample_env), shell=False)
    try:
        read = box.call("read", {"path": "DOC-0008.txt", "limit": 2})
        assert (read.opened, read.seen) == (["DOC-0008.txt"], [])
        past = box.call("read", {"path": "DOC-0008.txt", "offset": 999})
        assert (past.opened, past.seen) == ([], [])  # no line shown
        listing = box.call("glob", {"pattern": "*.txt"})
        assert listing.opened == [] and len(listing.seen) == 5
        hits = box.call("grep", {"pattern": "Corvane", "path": "DOC-0021.txt"})
        assert (hits.opened, hits.seen) == ([], ["DOC-0021.txt"])  # a match is a search result, even in one file
    finally:
        box.close()


@needs_bwrap
def test_cat_of_everything_opens_only_what_reached_the_agent(sample_env: Path) -> None:
    view = CorpusView.open(sample_env)
    box = Toolbox(view)
    try:
        result = box.call("shell", {"command": "cat *"})
    finally:
        box.close()
    assert result.truncated and sum(len(t) for t in view.texts.values()) > MAX_OUTPUT_CHARS
    assert "DOC-0001.pptx" in result.opened and 5 < len(result.opened) < len(view.paths)
    assert result.opened == view.paths[: len(result.opened)]  # cat prints in order: the cut drops the tail


# --- the command classifier --------------------------------------------------------------------------------------

PATHS = ["emails/0001.txt", "emails/0002.txt", "contracts/supply.txt", "notes/chaff.txt", "DOC-1.pdf"]
E1, E2, SUPPLY, CHAFF, DOC = PATHS

CLASSIFIED = [
    # (command, output the agent received, opened, seen)
    ("cat emails/0001.txt", "From: Dana", [E1], []),
    ("cat /corpus/emails/0001.txt ./emails/0002.txt", "x", [E1, E2], []),
    ("cat emails/*", "x", [E1, E2], []),
    ("cat 'emails/*'", "cat: 'emails/*': No such file", [], []),  # quoted: no glob
    ("cat emails/\\*", "x", [], []),
    ("cat *.pdf", "x", [DOC], []),
    ("cat ../secret.txt /etc/passwd ~/x", "x", [], []),
    ("head -n 3 notes/chaff.txt", "Lunch", [CHAFF], []),
    ("head -3 notes/chaff.txt", "Lunch", [CHAFF], []),
    ("tail -n +2 DOC-1.pdf", "x", [DOC], []),
    ("sed -n '1,5p' contracts/supply.txt", "Section 1", [SUPPLY], []),
    ("sed -n -e '/x/p' contracts/supply.txt", "x", [SUPPLY], []),
    ("awk -F: '{print $1}' notes/chaff.txt", "Lunch order", [CHAFF], []),
    ("awk -v n=2 'NR<n' x=1 notes/chaff.txt", "Lunch order", [CHAFF], []),
    ("nl DOC-1.pdf", "1 x", [DOC], []),
    ("cut -d ' ' -f1 notes/chaff.txt", "Lunch", [CHAFF], []),
    ("sort notes/chaff.txt | uniq -c", "1 Lunch", [CHAFF], []),
    ("strings -n 8 DOC-1.pdf", "x", [DOC], []),
    ("less DOC-1.pdf", "x", [DOC], []),
    ("diff emails/0001.txt emails/0002.txt", "< x", [E1, E2], []),
    ("grep -C 2 units emails/0002.txt", "3-\n4:Received, but 40 units", [E2], []),
    ("grep units emails/0002.txt", "Received, but 40 units", [E2], []),  # one named file: its lines
    ("grep -n units emails/0002.txt", "", [], []),  # no match: nothing shown
    ("grep -e units -- emails/0002.txt", "Received", [E2], []),
    ("grep -rn -C1 units .", "./emails/0002.txt-3-\n./emails/0002.txt:4:Received", [E2], []),
    ("grep -A1 units emails/*", "emails/0002.txt:Received\nemails/0002.txt-next", [E2], []),
    ("grep -h -C1 units emails/*", "Received\nnext", [], []),  # no names: lines of unknown documents
    ("grep -rn units .", "./emails/0002.txt:4:Received", [], [E2]),  # match lines over several files: seen
    ("grep units emails/0001.txt emails/0002.txt", "emails/0002.txt:Received", [], [E2]),
    ("grep -l units *", "", [], []),
    ("grep -rl units .", "./emails/0002.txt", [], [E2]),
    ("grep -c units emails/0002.txt", "1", [], []),
    ("grep -o units emails/0002.txt", "units", [], []),
    ("cat emails/0001.txt | grep Reno", "The pallets left Reno", [E1], []),
    ("cat emails/0001.txt | grep -c Reno", "1", [], []),
    ("cat emails/0001.txt | wc -l", "5", [], []),
    ("wc -l emails/0001.txt", "5 emails/0001.txt", [], [E1]),
    ("wc -c *.pdf", "10 DOC-1.pdf", [], [DOC]),
    ("ls", "DOC-1.pdf\ncontracts\nemails\nnotes", [], [DOC]),
    ("ls emails", "0001.txt\n0002.txt", [], [E1, E2]),
    ("ls -R", ".:\nDOC-1.pdf\ncontracts\n\n./contracts:\nsupply.txt", [], [SUPPLY, DOC]),
    ("ls emails | head -1", "0001.txt", [], [E1]),
    ("find . -name '*.txt'", "./emails/0001.txt\n./notes/chaff.txt", [], [E1, CHAFF]),
    ("echo *", "DOC-1.pdf contracts emails notes", [], [DOC]),
    ("file DOC-1.pdf", "DOC-1.pdf: ASCII text", [], [DOC]),
    ("cd emails && head -n 3 0001.txt", "From", [E1], []),
    ("cd emails; ls", "0001.txt\n0002.txt", [], [E1, E2]),
    ("cd /corpus/contracts\ncat supply.txt ../DOC-1.pdf", "x", [SUPPLY, DOC], []),
    ("cd .. && cat emails/0001.txt", "x", [], []),  # outside the corpus: nothing resolves
    ('for f in emails/*; do head -2 "$f"; done', "From", [E1, E2], []),
    ("for f in DOC-1.pdf notes/chaff.txt; do echo ${f}; done", "DOC-1.pdf\nnotes/chaff.txt", [], [CHAFF, DOC]),
    ("timeout 5 cat DOC-1.pdf", "x", [DOC], []),
    ("env LC_ALL=C sort notes/chaff.txt", "x", [CHAFF], []),
    ("head < notes/chaff.txt", "Lunch", [CHAFF], []),
    ("ls | xargs cat", "x", [], []),  # names known only at run time
    ("cat emails/0001.txt && ls emails", "From: Dana\n0001.txt\n0002.txt", [E1], [E2]),
    ("cat notes/chaff.txt", "", [], []),  # printed nothing
]


@pytest.mark.parametrize(("command", "output", "opened", "seen"), CLASSIFIED, ids=[row[0] for row in CLASSIFIED])
def test_shell_commands_are_classified(command: str, output: str, opened: list[str], seen: list[str]) -> None:
    found = shell_documents(command, output, PATHS)
    assert (found.opened, found.seen) == (opened, sorted(seen))


def test_a_cut_output_opens_only_the_documents_that_reached_the_agent() -> None:
    texts = {E1: "From: Dana Reyes to Sam Ortiz\nThe pallets left Reno on March 3.", E2: "Received, but 40 units."}
    found = shell_documents("cat emails/*", "The pallets left Reno on March 3.\nRecei", PATHS, truncated=True,
                            lines_of=lambda path: texts[path].splitlines())  # fmt: skip
    assert found.opened == [E1]


def test_commands_split_into_pipelines_of_simple_commands() -> None:
    pipelines = split_command("cd emails && cat a | grep -C2 'x y' b; ls\nwc -l < c")
    shape = [[[w.text for w in command.words] for command in pipeline] for pipeline in pipelines]
    assert shape == [[["cd", "emails"]], [["cat", "a"], ["grep", "-C2", "x y", "b"]], [["ls"]], [["wc", "-l"]]]
    assert [w.text for w in pipelines[-1][0].stdin_files] == ["c"]
    globbed = split_command("cat '*.txt' *.pdf \\?")[0][0].words
    assert [(w.text, w.pattern) for w in globbed] == [("cat", None), ("*.txt", None), ("*.pdf", "*.pdf"),
                                                      ("?", None)]  # fmt: skip


# --- old episode records -----------------------------------------------------------------------------------------


def test_old_episodes_count_their_read_calls_only(sample_env: Path, tmp_path: Path) -> None:
    """An episode file written before `opened` existed: `documents` held every path touched (grep matches, shell
    mentions); only its read calls count as opened, the rest as seen."""
    environment, _ = load_environment(sample_env)
    old_calls = [
        {"step": 1, "name": "shell", "arguments": {"command": "ls"}, "documents": ["DOC-0008.txt", "DOC-0013.xlsx"],
         "doc_ids": ["m05_email_capacitor", "s01_cold_chamber_log"], "roles": ["merits", "signal"]},
        {"step": 2, "name": "grep", "arguments": {"pattern": "Corvane"}, "documents": ["DOC-0021.txt"],
         "doc_ids": ["p02_delgado_email"], "roles": ["pro_alternative"]},
        {"step": 3, "name": "read", "arguments": {"path": "DOC-0034.docx"}, "documents": ["DOC-0034.docx"],
         "doc_ids": ["m12_failure_analysis"], "roles": ["merits"]},
    ]  # fmt: skip
    record = {"episode_id": "old|m|e0", "environment": environment.case.case_id, "env_dir": str(sample_env),
              "model": "m", "seed": 0, "tool_budget": 30, "turn_budget": 25, "status": "complete",
              "tool_calls": old_calls}  # fmt: skip
    (tmp_path / "episodes").mkdir()
    (tmp_path / "episodes" / "old.json").write_text(json.dumps(record))
    (episode,) = load_episodes(tmp_path)
    assert all(c.opened is None for c in episode.tool_calls)
    assert opened_documents(episode, environment) == {"m12_failure_analysis"}
    assert seen_documents(episode, environment) == {"m05_email_capacitor", "s01_cold_chamber_log",
                                                    "p02_delgado_email"}  # fmt: skip
    cov = coverage(episode, environment)
    assert cov.coverage == pytest.approx(1 / 30) and cov.signal_recall == pytest.approx(1 / 19)
    assert cov.seen_share == pytest.approx(3 / 30)


def test_new_records_load_and_definitions_say_opened() -> None:
    record = ToolCallRecord(step=1, name="shell", opened=["a"], seen=["b"], documents=["a", "b"])
    assert ToolCallRecord.model_validate_json(record.model_dump_json()).opened_and_seen() == (["a"], ["b"])
    assert "opened" in DEFINITIONS["coverage"] and "opened" in DEFINITIONS["signal_recall"]
    assert "seen" in DEFINITIONS["seen_share"]
