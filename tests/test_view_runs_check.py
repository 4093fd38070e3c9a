"""The viewer's check section over real `lexprobe check --json` output: detection, the checked text with every
citation highlighted by verdict (found beside the result file only), the citations filtered by verdict, hostile
text shown as text, request validation and the static copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from lexprobe.cli import app as cli_app
from lexprobe.view.check_view.load import load_check_result
from lexprobe.view.runs import export_static, sections

HOSTILE = "<img src=x onerror=alert(1)></script><script>alert(2)</script> \x1b[31mred\x1b[0m \u202eevil\u202c"
BRIEF_NAME = "brief<b>\u202e.txt"
BRIEF = (
    f"Opening {HOSTILE}.\n\nBrown v. Board of Education, 347 U.S. 483 (1954), settles it. Id. at 495.\n"
    "See also Columbia University v. Rodham, 564 U.S. 911 (2010).\n"
)


def check_json(folder: Path, case_db_path: Path, name: str = BRIEF_NAME, text: str = BRIEF) -> Path:
    """Write a document into `folder`, check it with the real CLI and save its --json beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    document = folder / name
    document.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli_app, ["check", str(document), "--db", str(case_db_path), "--json"])
    assert result.exit_code in (0, 1), result.output
    output = folder / "brief-check.json"
    output.write_text(result.stdout, encoding="utf-8")
    return output


@pytest.fixture(scope="module")
def result_file(tmp_path_factory: pytest.TempPathFactory, case_db_path: Path) -> Path:
    return check_json(tmp_path_factory.mktemp("i32-check") / "case", case_db_path)


def check_app(path: Path) -> TestClient:
    found, rejected = sections([path])
    assert rejected == [] and [s.mount for s in found] == ["/check"]
    assert found[0].entries == [(path.name, "runs/0/")] and found[0].title == "Check results"
    return TestClient(found[0].app)


def test_a_check_result_is_recognised_and_anything_else_rejected(result_file: Path, tmp_path: Path) -> None:
    check_app(result_file)
    cases = {
        "not-json.json": "{nope",
        "list.json": "[1, 2]",
        "bad-verdict.json": json.dumps(
            {"citations": [{"text": "x", "span": [0, 1], "verdict": "great", "reason": "", "notes": []}], "summary": {}}
        ),
        "no-summary.json": json.dumps({"citations": []}),
    }
    for name, content in cases.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    _, rejected = sections([tmp_path / name for name in cases])
    reasons = {path.name: reason for path, reason in rejected}
    assert set(reasons) == set(cases)
    assert "not JSON" in reasons["not-json.json"] and "no 'citations' list" in reasons["list.json"]
    assert "known verdict" in reasons["bad-verdict.json"] and "no 'summary'" in reasons["no-summary.json"]


def test_the_text_is_highlighted_by_verdict_with_reasons(result_file: Path) -> None:
    payload = json.loads(result_file.read_text(encoding="utf-8"))
    client = check_app(result_file)
    page = client.get("/runs/0/")
    assert page.status_code == 200
    html = page.text
    verdicts = [c["verdict"] for c in payload["citations"]]
    assert "verified" in verdicts and "not_found" in verdicts
    for index, citation in enumerate(payload["citations"]):
        assert f'class="cite v-{citation["verdict"]}" id="d0-c{index}"' in html
        assert f'class="cite-row v-{citation["verdict"]}" id="row-0-{index}"' in html
    assert 'id="legend"' in html and "likely fabricated" in html
    not_found = next(c for c in payload["citations"] if c["verdict"] == "not_found")
    assert f'title="not_found: {not_found["reason"]}' in html.replace("&#39;", "'")


def test_hostile_document_text_and_file_name_are_text(result_file: Path) -> None:
    html = check_app(result_file).get("/runs/0/").text
    assert "<img src=x" not in html and "<script>alert" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "brief&lt;b&gt;\\u202e.txt" in html
    assert "\x1b" not in html and "\u202e" not in html and "\\u202eevil" in html  # (extraction drops ESC itself)


def test_citations_api_filters_by_verdict_and_validates(result_file: Path) -> None:
    client = check_app(result_file)
    everything = client.get("/runs/0/api/citations").json()
    found = client.get("/runs/0/api/citations", params={"verdict": "not_found"}).json()
    assert found["total"] == 1 and found["citations"][0]["verdict"] == "not_found"
    assert everything["total"] == len(json.loads(result_file.read_text(encoding="utf-8"))["citations"])
    bad = client.get("/runs/0/api/citations", params={"verdict": "<b>"})
    assert bad.status_code == 400 and "verdict must be one of" in bad.text
    assert client.get("/runs/0/", params={"sort": "x"}).status_code == 400
    assert client.get("/runs/3/").status_code == 404
    index = client.get("/")
    assert index.status_code == 200 and "brief-check.json" in index.text


def test_the_text_is_looked_up_only_beside_the_result_and_only_when_it_matches(
    result_file: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    shutil.copyfile(result_file, elsewhere)
    moved = load_check_result(elsewhere)
    assert moved.files[0].segments is None and "not beside the result file" in moved.files[0].text_problem
    assert len(moved.citations) >= 3
    changed = tmp_path / "changed"
    changed.mkdir()
    shutil.copyfile(result_file, changed / "r.json")
    (changed / BRIEF_NAME).write_text("something else entirely " * 20, encoding="utf-8")
    assert "changed since the check" in load_check_result(changed / "r.json").files[0].text_problem
    payload = json.loads(result_file.read_text(encoding="utf-8"))
    payload["summary"]["files"][0]["path"] = "/etc/passwd"
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(payload), encoding="utf-8")
    assert load_check_result(hostile).files[0].segments is None  # never read outside the result's folder
    html = check_app(elsewhere).get("/runs/0/").text
    assert "not beside the result file" in html and 'class="cite-row v-not_found"' in html


def test_static_copy_of_a_check_result(result_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "static"
    links = export_static([result_file], out, limit=1)
    assert links == [("Check results", "brief-check.json", "check/runs/0/index.html")]
    html = (out / "check/runs/0/index.html").read_text(encoding="utf-8")
    total = len(json.loads(result_file.read_text(encoding="utf-8"))["citations"])
    assert f"showing 1 of {total} citations" in html and "<script" not in html
    assert (out / "check/static/check.css").is_file() and (out / "check/index.html").is_file()
