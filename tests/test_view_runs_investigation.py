"""The viewer's investigation and QA sections (lexprobe.view.runs) over real runs made by the real CLI with scripted
models: detection, the side index next to the run (never inside run.sqlite), filters and paging in SQL, the episode
page (transcript, folded outputs, documents opened and seen with roles, verdicts against the truth, coverage and
signal recall as the scoring functions give them), a document's extracted text confined to the environment, QA
questions with rubric grades, hostile text shown as text, request validation and the static copy."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from lexprobe.cli import app as cli_app
from lexprobe.investigation.agent.episode import load_episodes
from lexprobe.investigation.environment.format import Document, load_environment, save_environment
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.investigation.scoring.coverage import coverage
from lexprobe.investigation.scoring.metrics import score_episode
from lexprobe.view.investigation.documents import MAX_SHOWN_CHARS
from lexprobe.view.investigation.index import INDEX_NAME
from lexprobe.view.runs import export_static, sections

HOSTILE = "<img src=x onerror=alert(1)></script><script>alert(2)</script> \x1b[31mred\x1b[0m \u202eevil\u202c \x07bell"
HOSTILE_NAME = "evil<b>\u202e.txt"
VERDICT_KEY = "give your view on each hypothesis"


def call(name: str, **arguments: object) -> dict:
    return {"name": name, "arguments": arguments}


def write_script(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return f"scripted:{path}"


def hostile_environment(folder: Path, level: str) -> Path:
    """The sample environment at `level` with one more document whose file name, id and text are hostile."""
    env = build_sample_environment(folder, level)
    (env / "corpus" / HOSTILE_NAME).write_text(f"Memo.\n{HOSTILE}\n" + "filler line\n" * 3, encoding="utf-8")
    environment, questions = load_environment(env)
    evil = Document(doc_id="DOC-EVIL<i>", path=HOSTILE_NAME, format="txt", doc_type="memo", role="noise", title=HOSTILE)
    environment.documents.append(evil)
    save_environment(env, environment, questions)
    return env


def invoke(*args: str) -> None:
    result = CliRunner().invoke(cli_app, list(args))
    assert result.exit_code == 0, result.output


AGENT = [
    {"tool_calls": [call("glob", pattern="**")]},
    {"tool_calls": [call("grep", pattern="capacitor")]},
    {"tool_calls": [call("read", path="DOC-0003.pdf"), call("read", path=HOSTILE_NAME)]},
    {"text": f"Summary: the capacitor was swapped. {HOSTILE}"},
    {"when": VERDICT_KEY, "text": '[{"label": "H1", "verdict": "A", "reason": "' + HOSTILE.replace('"', "") + '"}, '
                                  '{"label": "H2", "verdict": "B"}, {"label": "H3", "verdict": "C"}, '
                                  '{"label": "H4", "verdict": "B"}]'},
]  # fmt: skip


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An investigation run (two environments x two epochs) and a QA run, made by `lexprobe investigation run` and
    `lexprobe investigation qa` with scripted models."""
    root = tmp_path_factory.mktemp("i32-runs")
    with pytest.MonkeyPatch.context() as patch:  # the CLI's cache (unused: --no-cache) never the user's
        patch.setenv("LEXPROBE_CACHE", str(root / "cache"))
        # The model's name seeds each episode's hypothesis order, so the agent script is named relative to `root`
        # (the same name on every machine, not a temporary path): which episodes are solved is then the same every
        # time. Under this name epoch 0 shows the court-adopted hypothesis as H1 (solved), epoch 1 does not.
        patch.chdir(root)
        merits = hostile_environment(root / "env-merits", "merits")
        noise = hostile_environment(root / "env-noise", "+noise")
        write_script(root / "investigator.jsonl", AGENT)
        agent = "scripted:investigator.jsonl"
        run_dir = root / "run"
        invoke("investigation", "run", str(merits), str(noise), "--model", agent, "--run-dir", str(run_dir),
               "--epochs", "2", "--tool-budget", "6", "--no-cache")  # fmt: skip
        qa_agent = write_script(root / "qa-agent.jsonl", [
            {"tool_calls": [call("read", path=HOSTILE_NAME)]},
            {"text": f"From the documents.\nANSWER: 229 units failed. {HOSTILE}"},
        ])  # fmt: skip
        judge = write_script(root / "judge.jsonl", [{"text": "[true, false]"}])
        qa_dir = root / "qa-run"
        invoke("investigation", "qa", str(merits), "--model", qa_agent, "--judge", judge, "--run-dir", str(qa_dir),
               "--tool-budget", "3", "--no-cache")  # fmt: skip
    solved = {score_episode(episode).case_solved for episode in load_episodes(run_dir)}
    assert solved == {True, False}, "the filter tests need solved and unsolved episodes"
    return {"root": root, "run": run_dir, "qa": qa_dir, "merits": merits}


def section(paths: list[Path], mount: str):
    found, rejected = sections(paths)
    assert rejected == []
    return next(s for s in found if s.mount == mount)


def test_sections_sort_the_paths_and_reject_the_rest(runs: dict[str, Path]) -> None:
    stray = runs["root"] / "notes.txt"
    stray.write_text("hello", encoding="utf-8")
    found, rejected = sections([runs["run"], runs["qa"], runs["merits"], stray, runs["root"] / "missing"])
    assert [(s.mount, s.title, s.entries) for s in found] == [
        ("/investigation", "Investigation runs", [("run", "runs/0/")]),
        ("/qa", "QA runs", [("qa-run", "runs/0/")]),
    ]
    reasons = dict(rejected)
    assert "without episode or QA records" in reasons[runs["merits"]]
    assert "not a `lexprobe check --json` result" in reasons[stray]
    assert reasons[runs["root"] / "missing"] == "no such file or directory"
    assert all("\n" not in reason for reason in reasons.values())


def test_the_index_lives_next_to_the_store_and_follows_the_records(runs: dict[str, Path]) -> None:
    store = runs["run"] / "run.sqlite"
    before = store.read_bytes()
    client = TestClient(section([runs["run"]], "/investigation").app)
    assert (runs["run"] / INDEX_NAME).is_file()
    assert store.read_bytes() == before
    with sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True) as connection:  # no table of the viewer's in it
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert not {"episodes", "qa"} & tables
    assert client.get("/runs/0/api/rows").json()["total"] == 4
    extra = runs["run"] / "episodes" / "zz-broken.json"
    extra.write_text("{not json", encoding="utf-8")
    try:
        rows = client.get("/runs/0/api/rows").json()
        assert rows["total"] == 5  # rebuilt: the new file is listed, with why it cannot be read
        broken = [row for row in rows["rows"] if row["key"] == "zz-broken"]
        assert broken[0]["status"] == "unreadable" and "not a readable record" in broken[0]["problem"]
    finally:
        extra.unlink()
    assert client.get("/runs/0/api/rows").json()["total"] == 4


def test_read_only_run_directory_puts_the_index_in_the_user_cache(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tool_requirements import require_read_only_mounts, run_with_read_only

    require_read_only_mounts()
    import shutil
    import sys

    copy = tmp_path / "run-copy"
    shutil.copytree(runs["run"], copy)
    (copy / INDEX_NAME).unlink(missing_ok=True)
    script = (
        "import sys; from pathlib import Path; from lexprobe.view.runs import sections; "
        "found, rejected = sections([Path(sys.argv[1])]); print([s.entries for s in found], rejected)"
    )
    result = run_with_read_only([copy], [sys.executable, "-c", script, str(copy)])
    assert result.returncode == 0, result.stderr
    assert "is not writable: its viewer index goes to" in result.stderr
    assert not (copy / INDEX_NAME).exists()
    cache = tmp_path / "read-only-cache"
    cache.mkdir()
    monkeypatch.setenv("LEXPROBE_CACHE", str(cache))
    refused = run_with_read_only([copy, cache], [sys.executable, "-c", script, str(copy)])
    assert refused.returncode == 0, refused.stderr
    assert "its viewer index cannot be built" in refused.stdout and refused.stdout.startswith("[] ")


def test_filters_and_paging_run_on_the_server(runs: dict[str, Path]) -> None:
    client = TestClient(section([runs["run"]], "/investigation").app)
    everything = client.get("/runs/0/api/rows").json()["rows"]
    environments = {row["environment"] for row in everything}
    levels = {row["ablation"] for row in everything}
    assert len(everything) == 4 and levels == {"merits", "+noise"} and len(environments) == 1
    first = client.get("/runs/0/api/rows", params={"limit": 3, "page": 1}).json()
    second = client.get("/runs/0/api/rows", params={"limit": 3, "page": 2}).json()
    assert first["total"] == second["total"] == 4 and len(first["rows"]) == 3 and len(second["rows"]) == 1
    assert {r["key"] for r in first["rows"]} | {r["key"] for r in second["rows"]} == {r["key"] for r in everything}
    solved = client.get("/runs/0/api/rows", params={"outcome": "yes"}).json()
    unsolved = client.get("/runs/0/api/rows", params={"outcome": "no"}).json()
    assert solved["total"] + unsolved["total"] == 4
    model = everything[0]["model"]
    assert client.get("/runs/0/api/rows", params={"model": model}).json()["total"] == 4
    assert client.get("/runs/0/api/rows", params={"model": "nobody"}).json()["total"] == 0
    by_level = client.get("/runs/0/api/rows", params={"sort": "-ablation"}).json()["rows"]
    assert [row["ablation"] for row in by_level] == ["merits", "merits", "+noise", "+noise"]
    ascending = client.get("/runs/0/api/rows", params={"sort": "ablation"}).json()["rows"]
    assert [row["ablation"] for row in ascending] == ["+noise", "+noise", "merits", "merits"]
    assert ascending[0]["key"] < ascending[1]["key"]  # ties broken by key
    page = client.get("/runs/0/", params={"outcome": "no"})
    assert page.status_code == 200 and f"{unsolved['total']} of 4 match" in page.text


def test_index_scores_are_the_scoring_functions(runs: dict[str, Path]) -> None:
    client = TestClient(section([runs["run"]], "/investigation").app)
    rows = {row["episode_id"]: row for row in client.get("/runs/0/api/rows").json()["rows"]}
    for episode in load_episodes(runs["run"]):
        environment = load_environment(Path(episode.env_dir))[0]
        score, cover = score_episode(episode), coverage(episode, environment)
        row = rows[episode.episode_id]
        assert bool(row["solved"]) == score.case_solved
        assert (row["believe_acc"], row["reject_acc"]) == (score.believe_acc, score.reject_acc)
        assert (row["coverage"], row["signal_recall"]) == (cover.coverage, cover.signal_recall)
        assert row["tool_calls"] == 4 and row["tool_budget"] == 6


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"page": "0"}, "page must be a whole number"),
        ({"page": "x"}, "page must be a whole number"),
        ({"outcome": "maybe"}, "outcome must be one of"),
        ({"model": "m" * 501}, "longer than 500"),
        ({"order": "key"}, "unknown parameter 'order'"),
        ({"sort": "problem"}, "sort must be one of"),
        ({"sort": "key; DROP TABLE episodes"}, "sort must be one of"),
        ({"limit": "100000"}, "limit must be a whole number"),
    ],
)
def test_bad_parameters_are_400_with_a_message(runs: dict[str, Path], params: dict, message: str) -> None:
    client = TestClient(section([runs["run"]], "/investigation").app)
    response = client.get("/runs/0/api/rows", params=params)
    assert response.status_code == 400 and message in response.text


def test_unknown_runs_records_and_documents_are_404(runs: dict[str, Path]) -> None:
    client = TestClient(section([runs["run"]], "/investigation").app)
    assert client.get("/runs/7/").status_code == 404
    assert client.get("/runs/0/episodes/nope.html").status_code == 404
    assert client.get("/runs/0/episodes/..%2F..%2Frun.html").status_code in (400, 404)
    key = client.get("/runs/0/api/rows").json()["rows"][0]["key"]
    assert client.get(f"/runs/0/documents/{key}/999.html").status_code == 404


def _merits_key(client: TestClient) -> str:
    rows = client.get("/runs/0/api/rows").json()["rows"]
    return next(row["key"] for row in rows if row["ablation"] == "merits")


def test_episode_page_shows_the_transcript_verdicts_and_scores(runs: dict[str, Path]) -> None:
    client = TestClient(section([runs["run"]], "/investigation").app)
    key = _merits_key(client)
    page = client.get(f"/runs/0/episodes/{key}.html")
    assert page.status_code == 200
    html = page.text
    assert "Turn 1: investigate with tools" in html and "Turn 2: verdicts from the summary alone" in html
    assert html.count('<details class="output">') == 4  # every tool output folded
    assert "opened: " in html and "seen in search (" in html and "(merits)" in html
    assert "4 of 6 tool calls" in html
    episode = next(e for e in load_episodes(runs["run"]) if e.ablation == "merits")
    cover = coverage(episode, load_environment(runs["merits"])[0])
    assert f"{cover.n_opened} of {cover.n_documents} documents opened" in html
    assert "court_adopted" in html and "do not believe" in html and ">correct<" in html


def test_hostile_text_is_escaped_and_made_visible(runs: dict[str, Path]) -> None:
    client = TestClient(section([runs["run"]], "/investigation").app)
    key = _merits_key(client)
    html = client.get(f"/runs/0/episodes/{key}.html").text
    assert "<img src=x" not in html and "<script>alert" not in html and "</script><script>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "\x1b" not in html and "\u202e" not in html and "\x07" not in html
    assert "\\x1b[31mred" in html and "\\u202eevil" in html
    assert "DOC-EVIL&lt;i&gt;" in html


def test_document_page_shows_the_extracted_text_confined_and_bounded(runs: dict[str, Path]) -> None:
    client = TestClient(section([runs["run"]], "/investigation").app)
    key = _merits_key(client)
    environment = load_environment(runs["merits"])[0]
    evil = next(n for n, doc in enumerate(environment.documents) if doc.path == HOSTILE_NAME)
    page = client.get(f"/runs/0/documents/{key}/{evil}.html")
    assert page.status_code == 200
    assert "&lt;img src=x onerror=alert(1)&gt;" in page.text and "\u202e" not in page.text
    assert "evil&lt;b&gt;\\u202e.txt" in page.text
    pdf = next(n for n, doc in enumerate(environment.documents) if doc.path == "DOC-0003.pdf")
    assert "capacitor" in client.get(f"/runs/0/documents/{key}/{pdf}.html").text.lower()


def test_a_long_document_is_cut_and_says_so(tmp_path: Path) -> None:
    from lexprobe.view.investigation.documents import read_document

    env = build_sample_environment(tmp_path / "env", "merits")
    (env / "corpus" / "long.txt").write_text("x" * (MAX_SHOWN_CHARS + 50), encoding="utf-8")
    document = Document(doc_id="L", path="long.txt", format="txt", doc_type="memo", role="noise")
    shown = read_document(env, document)
    assert shown.cut and len(shown.text) == MAX_SHOWN_CHARS and shown.total_chars >= MAX_SHOWN_CHARS + 50
    outside = read_document(env, Document(doc_id="E", path="../environment.json", format="txt", doc_type="memo",
                                          role="noise"))  # fmt: skip
    assert outside.text is None and "refused" in outside.problem
    (env / "corpus" / "link.txt").symlink_to(env / "environment.json")
    linked = read_document(env, Document(doc_id="K", path="link.txt", format="txt", doc_type="memo", role="noise"))
    assert linked.text is None and linked.problem


def test_qa_section_shows_question_answer_rubric_and_grades(runs: dict[str, Path]) -> None:
    client = TestClient(section([runs["qa"]], "/qa").app)
    rows = client.get("/runs/0/api/rows").json()
    _, questions = load_environment(runs["merits"])
    assert rows["total"] == len(questions.questions)
    two = next(q for q in questions.questions if len(q.rubric) == 2)
    row = next(r for r in rows["rows"] if r["question_id"] == two.question_id)
    assert row["label"] == "partial" and row["score"] == 0.5 and row["question"] == two.question
    assert client.get("/runs/0/api/rows", params={"outcome": "partial"}).json()["total"] >= 1
    html = client.get(f"/runs/0/qa/{row['key']}.html").text
    assert two.question.replace("'", "&#39;") in html.replace("&#34;", '"')
    assert "229 units failed." in html and "&lt;img src=x" in html and "<img src=x" not in html
    assert html.count(">satisfied<") == 1 and html.count(">not satisfied<") == 1
    assert two.rubric[0].text.replace("'", "&#39;") in html.replace("&#34;", '"')
    environment = load_environment(runs["merits"])[0]
    evil = next(n for n, doc in enumerate(environment.documents) if doc.path == HOSTILE_NAME)
    assert client.get(f"/runs/0/documents/{row['key']}/{evil}.html").status_code == 200
    assert client.get(f"/runs/0/documents/{row['key']}/0.html").status_code == 404  # never named in its transcript


def test_static_copy_caps_the_rows_and_links_relative(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "static"
    links = export_static([runs["run"], runs["qa"]], out, limit=3)
    assert links == [("Investigation runs", "run", "investigation/runs/0/index.html"),
                     ("QA runs", "qa-run", "qa/runs/0/index.html")]  # fmt: skip
    listing = (out / "investigation/runs/0/index.html").read_text(encoding="utf-8")
    assert "showing 3 of 4 episodes" in listing and "at most 3 rows" in listing
    assert len(list((out / "investigation/runs/0/episodes").glob("*.html"))) == 3
    assert (out / "investigation/static/runs.css").is_file()
    assert "<script" not in listing and 'http-equiv="Content-Security-Policy"' in listing
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<script" not in text and "\x1b" not in text and "\u202e" not in text, page
        assert 'href="/' not in text and "http://" not in text, page


def test_a_run_deleted_while_served_is_one_error_naming_it(runs: dict[str, Path], tmp_path: Path) -> None:
    """Issue 44 (12): not an empty list as if the run had no episodes, not a traceback."""
    copy = tmp_path / "served"
    shutil.copytree(runs["run"], copy)
    client = TestClient(section([copy], "/investigation").app)
    assert client.get("/runs/0/api/rows").json()["total"] == 4
    shutil.rmtree(copy)
    response = client.get("/runs/0/api/rows")
    assert response.status_code == 410 and list(response.json()) == ["error"]
    assert str(copy) in response.json()["error"] and "restart lexprobe view" in response.json()["error"]
    page = client.get("/runs/0/")
    assert page.status_code == 410 and "restart lexprobe view" in page.text and "Traceback" not in page.text


@pytest.mark.parametrize("damage", ["DROP TABLE episodes; CREATE TABLE episodes (key TEXT PRIMARY KEY);",
                                    "DROP INDEX episodes_filter;"])  # fmt: skip
def test_a_damaged_index_is_built_again(runs: dict[str, Path], tmp_path: Path, damage: str) -> None:
    """Issue 44 (11): an index whose meta row still matches but whose tables do not is rebuilt, not trusted."""
    copy = tmp_path / "run"
    shutil.copytree(runs["run"], copy)
    client = TestClient(section([copy], "/investigation").app)
    connection = sqlite3.connect(copy / INDEX_NAME)
    connection.executescript(damage)
    connection.close()
    rows = client.get("/runs/0/api/rows")
    assert rows.status_code == 200 and rows.json()["total"] == 4 and rows.json()["rows"][0]["environment"]
