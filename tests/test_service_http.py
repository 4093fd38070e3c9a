"""`lexprobe serve`'s HTTP API (issue 49, points 3 and 4): uploads of text, PDF and DOCX and a JSON text answer what
`lexprobe check --json` prints; /api/case; the bearer token and the Host check on a real uvicorn on 127.0.0.1; the
body limit (413), the concurrency limit (503); no request reads a file by path; the upload leaves nothing behind."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from service_support import BRIEF, served
from starlette.testclient import TestClient
from typer.testing import CliRunner

from lexprobe.cli import app as cli_app
from lexprobe.service.http_api import ServeSettings, build_app, create_app

LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def service(case_db_path: Path) -> Iterator[object]:
    from lexprobe.service.check_service import CheckService

    warm = CheckService(case_db_path)
    yield warm
    warm.close()


@pytest.fixture(scope="module")
def client(service: object) -> Iterator[TestClient]:
    with TestClient(build_app(service, ServeSettings()), base_url=LOCAL) as test_client:
        yield test_client


def _pdf(text: str) -> bytes:
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    page = canvas.Canvas(buffer)
    y = 800
    for line in text.splitlines():
        for start in range(0, len(line), 90):
            page.drawString(40, y, line[start : start + 90])
            y -= 14
    page.save()
    return buffer.getvalue()


def _docx(text: str) -> bytes:
    import docx

    document = docx.Document()
    for line in text.splitlines():
        document.add_paragraph(line)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


DOCUMENTS = {"brief.txt": lambda: BRIEF.encode(), "brief.pdf": lambda: _pdf(BRIEF), "brief.docx": lambda: _docx(BRIEF)}


def _cli_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, data: bytes, db: Path) -> dict:
    """`lexprobe check NAME --db DB --json` run in a folder holding the document."""
    (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli_app, ["check", name, "--db", str(db), "--json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_an_upload_answers_what_check_json_prints(
    client: TestClient, case_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    data = DOCUMENTS[name]()
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "temporary"))
    (tmp_path / "temporary").mkdir()
    answer = client.post("/api/check", files={"file": (name, data)})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert list((tmp_path / "temporary").iterdir()) == []  # the upload's temporary folder is gone
    (tmp_path / "cli").mkdir()
    expected = _cli_json(tmp_path / "cli", monkeypatch, name, data, case_db_path)
    assert answer.json() == expected
    verdicts = [citation["verdict"] for citation in answer.json()["citations"]]
    assert {"verified", "mismatch", "not_found"} <= set(verdicts)


def test_a_json_text_has_the_verdicts_of_the_same_document(
    client: TestClient, case_db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = client.post("/api/check", json={"text": BRIEF})
    assert answer.status_code == 200, answer.text
    expected = _cli_json(tmp_path, monkeypatch, "brief.txt", BRIEF.encode(), case_db_path)
    got = answer.json()
    assert got["citations"] == expected["citations"] and got["quotations"] == expected["quotations"]
    for files in (got["summary"]["files"], expected["summary"]["files"]):
        for entry in files:
            entry.pop("path")
    assert got["summary"] == expected["summary"]


def test_the_report_carries_the_text_and_the_annotated_page(client: TestClient) -> None:
    answer = client.post("/api/report", files={"file": ("brief <b>.txt", BRIEF.encode())})
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["documents"][0]["text"].strip() == BRIEF.strip()
    assert '<mark class="v-not_found"' in report["html"] and "<script" not in report["html"]
    assert "brief &lt;b&gt;.txt" in report["html"]


def test_the_annotated_docx_has_the_verdicts_of_the_check(client: TestClient, service: object) -> None:
    from test_check_annotated_docx import colours, highlights

    from lexprobe.check.annotated_docx import DOCX_MEDIA_TYPE
    from lexprobe.check.render_html import COLOURS

    answer = client.post("/api/annotated.docx", files={"file": ("brief <x>.pdf", _pdf(BRIEF))})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == DOCX_MEDIA_TYPE
    assert answer.headers["content-disposition"] == 'attachment; filename="brief_x-check.docx"'
    assert answer.headers["content-security-policy"].startswith("default-src 'none'")
    result = client.post("/api/check", files={"file": ("brief.pdf", _pdf(BRIEF))}).json()
    marks, comments, _ = highlights(answer.content)
    cited = [mark for mark in marks if comments[mark["id"]].startswith("citation ")]
    assert [mark["text"] for mark in cited] == [c["text"] for c in result["citations"]]
    assert [colours(mark["runs"][0]) for mark in cited] == [COLOURS[c["verdict"]] for c in result["citations"]]
    from_text = client.post("/api/annotated.docx", json={"text": BRIEF})
    assert from_text.status_code == 200 and from_text.content.startswith(b"PK")
    assert from_text.headers["content-disposition"] == 'attachment; filename="text-check.docx"'
    assert client.post("/api/annotated.docx", files={"file": ("brief.rtf", b"{\\rtf1}")}).status_code == 400
    with TestClient(build_app(service, ServeSettings(max_upload_bytes=2_000)), base_url=LOCAL) as small:
        assert small.post("/api/annotated.docx", json={"text": "y" * 5_000}).status_code == 413
    app = create_app(service, ServeSettings(slots=1))
    with TestClient(app, base_url=LOCAL) as busy:
        assert app.state.slots.try_take()
        assert busy.post("/api/annotated.docx", json={"text": BRIEF}).status_code == 503
        app.state.slots.give_back()


def test_a_case_by_citation_or_name(client: TestClient) -> None:
    found = client.get("/api/case/347 U.S. 483")
    assert found.status_code == 200, found.text
    assert "Brown" in json.dumps(found.json())
    missing = client.get("/api/case/999 U.S. 999")
    assert missing.status_code == 404 and "error" in missing.json()


def test_bad_bodies_are_clear_4xx(client: TestClient) -> None:
    assert client.post("/api/check", content=b"text", headers={"content-type": "text/plain"}).status_code == 415
    assert client.post("/api/check", json={"path": "/etc/passwd"}).status_code == 422
    assert client.post("/api/check", json=["text"]).status_code == 422
    assert client.post("/api/check", files={"other": ("a.txt", b"x")}).status_code == 422
    unknown = client.post("/api/check", files={"file": ("brief.rtf", b"{\\rtf1}")})
    assert unknown.status_code == 400 and "unknown format" in unknown.json()["error"]


def test_no_request_reads_a_file_by_path(client: TestClient) -> None:
    secret = "root:x:0:0"
    by_name = client.post("/api/check", files={"file": ("/etc/passwd", b"no citations here")})
    assert by_name.status_code in (200, 400) and secret not in by_name.text
    by_text = client.post("/api/report", json={"text": "/etc/passwd"})
    assert by_text.status_code == 200 and secret not in by_text.text
    for path in ("/static/../../../etc/passwd", "/static/%2e%2e%2fhttp_api.py", "/static/..%2F..%2Fetc%2Fpasswd",
                 "/api/case/..%2F..%2F..%2Fetc%2Fpasswd", "/etc/passwd"):  # fmt: skip
        answer = client.get(path)
        assert answer.status_code in (400, 404) and secret not in answer.text and "import" not in answer.text


def test_a_body_over_the_limit_is_413(service: object) -> None:
    with TestClient(build_app(service, ServeSettings(max_upload_bytes=2_000)), base_url=LOCAL) as small:
        assert small.post("/api/check", files={"file": ("brief.txt", b"x" * 5_000)}).status_code == 413
        assert small.post("/api/check", json={"text": "y" * 5_000}).status_code == 413
        assert small.post("/api/check", json={"text": BRIEF}).status_code == 200


def test_every_slot_busy_is_503(service: object) -> None:
    app = create_app(service, ServeSettings(slots=2))
    with TestClient(app, base_url=LOCAL) as busy:
        assert app.state.slots.try_take() and app.state.slots.try_take()
        answer = busy.post("/api/check", json={"text": BRIEF})
        assert answer.status_code == 503 and "busy" in answer.json()["error"]
        assert answer.headers["retry-after"] == "1"
        app.state.slots.give_back()
        assert busy.post("/api/check", json={"text": BRIEF}).status_code == 200
        app.state.slots.give_back()


@pytest.fixture(scope="module")
def token_server(service: object) -> Iterator[str]:
    """A real uvicorn on 127.0.0.1 serving the API behind the token "s3cret"."""
    with served(build_app(service, ServeSettings(token="s3cret"))) as url:
        yield url


def test_the_token_is_needed_on_every_request(token_server: str) -> None:
    for path in ("/", "/openapi.json", "/api/case/347 U.S. 483"):
        refused = httpx.get(token_server + path)
        assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer")
        assert httpx.get(token_server + path, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert httpx.post(token_server + "/api/annotated.docx", json={"text": BRIEF}).status_code == 401
    good = {"Authorization": "Bearer s3cret"}
    assert httpx.get(token_server + "/openapi.json", headers=good).status_code == 200
    answer = httpx.post(token_server + "/api/check", json={"text": BRIEF}, headers=good, timeout=60)
    assert answer.status_code == 200 and answer.json()["citations"]


def test_a_foreign_host_is_refused(token_server: str) -> None:
    good = {"Authorization": "Bearer s3cret"}
    assert httpx.get(token_server + "/openapi.json", headers={**good, "Host": "evil.example"}).status_code == 400
    assert httpx.get(token_server + "/openapi.json", headers={**good, "Host": "localhost"}).status_code == 200


def test_any_other_address_needs_a_token() -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "--token" in result.output
