"""The viewer's HTTP side (issue 32, part A): its JSON API through Starlette's TestClient (filters, sort, paging,
search, detail, bad parameters), the security headers on every response, hostile text made visible, and the real
`lexprobe view` command (a real uvicorn server on loopback: URL on stdout, Ctrl-C, paths it does not know)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient
from test_view_fixtures import (  # noqa: F401
    Runs,
    cli,
    hallucination_runs,
    start_viewer,
    stop_viewer,
    viewer,
)

from lexprobe.local_server import is_loopback
from lexprobe.view.app import build_app, plan_view
from lexprobe.view.security import CONTENT_SECURITY_POLICY


@pytest.fixture(scope="module")
def client(hallucination_runs: Runs) -> TestClient:  # noqa: F811
    plan = plan_view([hallucination_runs.yes, hallucination_runs.hostile], [], hallucination_runs.case_db)
    return TestClient(build_app(plan), base_url="http://127.0.0.1")


def _headers_ok(response: httpx.Response) -> None:
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/static/viewer.css", "/hallucination/", "/hallucination/static/units.js",
                 "/hallucination/api/facets", "/hallucination/api/units?sort=bogus", "/hallucination/report/",
                 "/hallucination/report/report.css", "/no/such/page", "/hallucination/api/unit/9/9"):  # fmt: skip
        _headers_ok(client.get(path))
    page = client.get("/hallucination/").text
    assert "<script>" not in page and " on" not in page.split("<body", 1)[1].split(">", 1)[0]
    assert "<style>" not in client.get("/hallucination/report/").text  # its style sheet is served apart


def test_units_api_filters_sorts_pages_and_searches(client: TestClient, hallucination_runs: Runs) -> None:  # noqa: F811
    facets = client.get("/hallucination/api/facets").json()
    assert facets["total"] == 24 and set(facets["facets"]["model"]) == {hallucination_runs.yes_model,
                                                                         hallucination_runs.hostile_model}  # fmt: skip
    page = client.get("/hallucination/api/units", params={"task": "existence", "style": "zero", "size": 3}).json()
    assert page["total"] == 8 and len(page["rows"]) == 3
    second = client.get("/hallucination/api/units", params={"task": "existence", "style": "zero", "size": 3,
                                                             "page": 3}).json()  # fmt: skip
    assert len(second["rows"]) == 2
    rows = client.get("/hallucination/api/units", params={"sort": "confidence", "dir": "desc", "size": 500}).json()
    confidences = [row["confidence"] for row in rows["rows"] if row["confidence"] is not None]
    assert confidences == sorted(confidences, reverse=True)
    found = client.get("/hallucination/api/units", params={"q": "zebra"}).json()
    assert found["total"] == 8
    two = client.get("/hallucination/api/units", params=[("label", "correct"), ("label", "hallucination")]).json()
    assert all(row["label"] in ("correct", "hallucination") for row in two["rows"])


def test_units_api_refuses_bad_parameters(client: TestClient) -> None:
    for params in ({"sort": "answer"}, {"size": "100000"}, {"page": "-1"}, {"nope": "1"}, {"dir": "up"},
                   {"q": "!!!"}):  # fmt: skip
        response = client.get("/hallucination/api/units", params=params)
        assert response.status_code == 400 and response.json()["error"]
    assert client.get("/hallucination/api/unit/0/999999").status_code == 404
    assert client.get("/hallucination/api/same").status_code == 400


def test_hostile_text_is_made_visible_in_the_api(client: TestClient, hallucination_runs: Runs) -> None:  # noqa: F811
    rows = client.get("/hallucination/api/units", params={"q": "zebra", "size": 1}).json()["rows"]
    detail = client.get(f"/hallucination/api/unit/{rows[0]['run']}/{rows[0]['uid']}").json()
    answer = detail["detail"]["answer"]
    assert "\\x1b[31m" in answer and "\\u202e" in answer and "\\x07" in answer  # shown, not obeyed
    assert "\x1b" not in json.dumps(detail, ensure_ascii=False) and "\u202e" not in answer
    assert "<img src=x onerror=alert(1)>" in answer  # the page sets it as text (the browser tests check it)


def test_lexprobe_view_serves_on_loopback_and_stops_on_ctrl_c(hallucination_runs: Runs) -> None:  # noqa: F811
    started = start_viewer(str(hallucination_runs.yes))
    try:
        assert started.url.startswith("http://127.0.0.1:")
        response = httpx.get(started.url + "hallucination/api/units", params={"size": 2}, timeout=10)
        assert response.status_code == 200 and response.json()["total"] == 12
        _headers_ok(response)
    finally:
        code = stop_viewer(started)
    assert code in (0, 130)
    assert "Traceback" not in started.process.stderr.read()


def test_lexprobe_view_refuses_what_is_not_a_run(tmp_path: Path) -> None:
    result = cli("view", str(tmp_path))
    assert result.returncode == 2 and str(tmp_path) in result.stderr and len(result.stderr.strip().splitlines()) == 1
    result = cli("view", str(tmp_path / "missing"))
    assert result.returncode == 2 and "no such file" in result.stderr


def test_lexprobe_view_warns_off_loopback(hallucination_runs: Runs) -> None:  # noqa: F811
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning is printed, then binding fails (exit 2)
    result = cli("view", str(hallucination_runs.yes), "--host", "192.0.2.1", "--port", "0", timeout=60)
    assert "warning: listening on 192.0.2.1" in result.stderr
    assert result.returncode == 2 and "cannot listen on 192.0.2.1" in result.stderr


def test_view_help_teaches_with_examples() -> None:
    result = cli("view", "--help")
    assert result.returncode == 0 and "Examples" in result.stdout and "--out" in result.stdout
