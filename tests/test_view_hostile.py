"""The viewer under attack (issue 44, items 1, 11-14): the Host header check of every lexprobe server, a damaged
`view-index.sqlite` rebuilt, numbers beyond 64 bits in paths, a run deleted, replaced or changed while served,
`view --out` into a file, a foreign folder or over an older copy, and every long text of the JSON cut the same way.
Real scripted runs (tests/test_view_fixtures.py), real SQLite, a real `lexprobe view` on loopback."""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient
from test_view_fixtures import Runs, cli, hallucination_runs, start_viewer, stop_viewer  # noqa: F401

from lexprobe.local_server import allowed_hosts
from lexprobe.view.app import build_app, plan_view
from lexprobe.view.check_view.app import CheckPages
from lexprobe.view.check_view.app import build_app as build_check_app
from lexprobe.view.hallucination.index import INDEX_NAME, ensure_index
from lexprobe.view.hallucination.queries import UnitQuery, UnitStore
from lexprobe.view.investigation.pages import RunPages
from lexprobe.view.investigation.pages import build_app as build_runs_app
from lexprobe.view.out_folder import MARKER
from lexprobe.view.security import CUT_NOTE, MAX_FIELD_CHARS

LOCAL = "http://127.0.0.1"


def _copy_run(source: Path, target: Path) -> Path:
    """A run directory holding a copy of `source`'s store (and no index yet)."""
    target.mkdir(parents=True)
    shutil.copyfile(source / "run.sqlite", target / "run.sqlite")
    return target


def _client(runs: Runs, *run_dirs: Path) -> TestClient:
    return TestClient(build_app(plan_view(list(run_dirs), [], runs.case_db)), base_url=LOCAL)


# --- 1. the Host header ------------------------------------------------------------------------------------------


def test_a_request_for_another_host_gets_400_and_no_data(hallucination_runs: Runs) -> None:  # noqa: F811
    started = start_viewer(str(hallucination_runs.hostile))
    try:
        port = started.url.rstrip("/").rsplit(":", 1)[1]
        units = started.url + "hallucination/api/units"
        for evil in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}", f"localhost.:{port}"):
            response = httpx.get(units, headers={"Host": evil}, timeout=10)
            assert response.status_code == 400, evil
            assert "total" not in response.text and "zebra" not in response.text
        for good in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"LOCALHOST:{port}"):
            response = httpx.get(units, headers={"Host": good}, params={"q": "zebra"}, timeout=10)
            assert response.status_code == 200 and response.json()["total"] == 8, good
    finally:
        stop_viewer(started)


def test_the_allowed_hosts_are_the_bound_address_loopback_and_the_users(hallucination_runs: Runs) -> None:  # noqa: F811
    assert allowed_hosts("127.0.0.1") == ["127.0.0.1", "localhost", "[::1]"]
    assert allowed_hosts("::1") == ["[::1]", "localhost", "127.0.0.1"]
    assert "192.0.2.7" in allowed_hosts("192.0.2.7") and "viewer.lan" in allowed_hosts("192.0.2.7", ["Viewer.LAN"])
    assert socket.gethostname().lower() in allowed_hosts("0.0.0.0") and "0.0.0.0" in allowed_hosts("0.0.0.0")
    plan = plan_view([hallucination_runs.yes], [], hallucination_runs.case_db)
    app = build_app(plan, "127.0.0.1", ("viewer.lan",))
    for base, status in (("http://[::1]:8765", 200), ("http://viewer.lan", 200), ("http://localhost", 200),
                         ("http://evil.example", 400), ("http://[::2]:8765", 400)):  # fmt: skip
        assert TestClient(app, base_url=base).get("/hallucination/api/facets").status_code == status, base


# --- 12. numbers in paths; runs deleted, replaced or changed while served ----------------------------------------


def test_a_number_beyond_64_bits_in_any_path_is_404(hallucination_runs: Runs) -> None:  # noqa: F811
    client = _client(hallucination_runs, hallucination_runs.yes)
    huge = "99999999999999999999999"
    for path in (f"/hallucination/api/unit/0/{huge}", f"/hallucination/api/unit/{huge}/0",
                 "/hallucination/api/unit/0/9223372036854775808"):  # fmt: skip
        response = client.get(path)
        assert response.status_code == 404 and "Traceback" not in response.text
    assert client.get("/hallucination/api/unit/0/1").status_code == 200  # a real unit still opens
    for app in (build_check_app(CheckPages([])), build_runs_app(RunPages("investigation", []))):
        sub = TestClient(app)
        for path in (f"/runs/{huge}/", f"/runs/{huge}/api/rows", f"/runs/0/documents/k/{huge}.html"):
            assert sub.get(path).status_code == 404


def test_a_run_deleted_while_served_is_one_json_error_naming_it(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    run = _copy_run(hallucination_runs.hostile, tmp_path / "served")
    client = _client(hallucination_runs, run)
    assert client.get("/hallucination/api/units").json()["total"] == 12
    shutil.rmtree(run)
    for path in ("/hallucination/api/units", "/hallucination/api/unit/0/1", "/hallucination/api/facets",
                 "/hallucination/api/same?key=x"):  # fmt: skip
        response = client.get(path)
        assert response.status_code == 410, path
        error = response.json()["error"]
        assert str(run) in error and "restart lexprobe view" in error and list(response.json()) == ["error"]
    page = client.get("/hallucination/report/")
    assert page.status_code == 410 and "restart lexprobe view" in page.text and "Traceback" not in page.text


def test_a_run_replaced_or_changed_while_served_is_refused(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    run = _copy_run(hallucination_runs.hostile, tmp_path / "served")
    client = _client(hallucination_runs, run)
    assert client.get("/hallucination/api/units", params={"q": "zebra"}).json()["total"] == 8
    shutil.rmtree(run)  # another run put in its place, with or without a viewer index of its own
    _copy_run(hallucination_runs.yes, run)
    response = client.get("/hallucination/api/units", params={"q": "zebra"})
    assert response.status_code == 409 and str(run) in response.json()["error"]
    assert "changed after lexprobe view started" in response.json()["error"]
    ensure_index(run, hallucination_runs.case_db)
    response = client.get("/hallucination/api/units", params={"q": "zebra"})
    assert response.status_code == 409 and "restart lexprobe view" in response.json()["error"]

    other = _copy_run(hallucination_runs.hostile, tmp_path / "changed")
    client = _client(hallucination_runs, other)
    conn = sqlite3.connect(other / "run.sqlite")
    with conn:  # the same file, other answers: the index no longer shows it
        conn.execute("DELETE FROM scores WHERE rowid = (SELECT MAX(rowid) FROM scores)")
    conn.close()
    response = client.get("/hallucination/api/units")
    assert response.status_code == 409 and "answers not indexed" in response.json()["error"]


# --- 11. a damaged index is built again ----------------------------------------------------------------------------

DAMAGE = {
    "units replaced": "DROP TABLE units; CREATE TABLE units (uid INTEGER PRIMARY KEY, junk TEXT);",
    "FTS table dropped": "DROP TABLE answers;",
    "FTS index emptied": "INSERT INTO answers(answers) VALUES ('delete-all');",
    "FTS shadow rows deleted": "DELETE FROM answers_data WHERE id > 1;",
    "an index dropped": "DROP INDEX units_label;",
    "texts emptied": "DELETE FROM texts;",
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_index_is_rebuilt_and_search_finds_again(
    hallucination_runs: Runs,  # noqa: F811
    tmp_path: Path,
    damage: str,
) -> None:
    run = _copy_run(hallucination_runs.hostile, tmp_path / "run")
    ensure_index(run, hallucination_runs.case_db)
    conn = sqlite3.connect(run / INDEX_NAME)
    conn.executescript(DAMAGE[damage])
    conn.commit()
    conn.close()
    heard: list[str] = []
    index = ensure_index(run, hallucination_runs.case_db, notify=heard.append)
    assert heard and "built again" in heard[0], damage
    store = UnitStore([index], [index.model])
    found = store.page(UnitQuery(search="zebra"))
    assert found["total"] == 8 and len(found["rows"]) == 8
    unit = store.unit(0, found["rows"][0]["uid"])
    assert unit is not None and "zebra" in unit["answer"]
    assert store.page(UnitQuery(exact={"label": ("hallucination", "correct")}))["total"] > 0


def test_an_intact_index_is_not_rebuilt(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    run = _copy_run(hallucination_runs.hostile, tmp_path / "run")
    ensure_index(run, hallucination_runs.case_db)
    heard: list[str] = []
    ensure_index(run, hallucination_runs.case_db, notify=heard.append)
    assert heard == []


# --- 14. every long text cut the same way -------------------------------------------------------------------------


def test_every_long_text_of_the_json_is_cut_at_200000(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    run = _copy_run(hallucination_runs.hostile, tmp_path / "long")
    long_answer = "zebra " + "\x1b" + "w" * 419_993
    assert len(long_answer) == 420_000
    conn = sqlite3.connect(run / "run.sqlite")
    with conn:
        (request_id,) = conn.execute(
            "SELECT request_id FROM requests WHERE request_id LIKE 'existence|%' "
            "AND json_extract(body, '$.tags.role') IS NULL ORDER BY seq LIMIT 1"
        ).fetchone()
        conn.execute("UPDATE responses SET body = json_set(body, '$.text', ?) WHERE request_id = ?",
                     (long_answer, request_id))  # fmt: skip
    conn.close()
    client = _client(hallucination_runs, run)
    row = next(row for row in client.get("/hallucination/api/units", params={"size": 500}).json()["rows"]
               if row["request_id"] == request_id)  # fmt: skip
    body = client.get(f"/hallucination/api/unit/0/{row['uid']}").json()
    same = client.get("/hallucination/api/same", params={"key": body["unit"]["item_key"]}).json()["rows"]
    for answer in (body["unit"]["answer"], body["detail"]["answer"], same[0]["answer"]):
        assert answer.endswith(CUT_NOTE) and answer.startswith("zebra \\x1b")  # cut, then made visible
        assert len(answer) == MAX_FIELD_CHARS + len(CUT_NOTE) + len("\\x1b") - 1
    assert body["unit"]["answer"] == body["detail"]["answer"] == same[0]["answer"]
    out = tmp_path / "copy"
    result = cli("view", str(run), "--db", str(hallucination_runs.case_db), "--out", str(out))
    assert result.returncode == 0, result.stderr
    data = (out / "hallucination" / "data-0.js").read_text(encoding="utf-8")
    assert "w" * MAX_FIELD_CHARS not in data and data.count("cut at 200,000 characters") == 2  # answer and detail


# --- 13. view --out ----------------------------------------------------------------------------------------------


def _export(runs: Runs, out: Path, *extra: str):
    return cli("view", str(runs.yes), "--db", str(runs.case_db), "--out", str(out), "--json", *extra)


def test_out_into_a_file_is_one_line_exit_2(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    target = tmp_path / "a-file"
    target.write_text("keep me", encoding="utf-8")
    result = _export(hallucination_runs, target)
    assert result.returncode == 2 and "not a folder" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert target.read_text(encoding="utf-8") == "keep me"


def test_out_refuses_a_foreign_folder_unless_forced(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    site = tmp_path / "site"
    (site / "static").mkdir(parents=True)
    (site / "index.html").write_text("my own page", encoding="utf-8")
    result = _export(hallucination_runs, site)
    assert result.returncode == 2 and "--force" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert (site / "index.html").read_text(encoding="utf-8") == "my own page"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site"]  # no temporary folder left
    result = _export(hallucination_runs, site, "--force")
    assert result.returncode == 0, result.stderr
    assert "my own page" not in (site / "index.html").read_text(encoding="utf-8") and (site / MARKER).is_file()
    result = _export(hallucination_runs, hallucination_runs.yes.parent, "--force")  # the folder holding the run
    assert result.returncode == 2 and "one of the paths to copy" in result.stderr
    assert (hallucination_runs.yes / "run.sqlite").is_file()


def test_out_replaces_an_earlier_copy_whole(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "copy"
    assert _export(hallucination_runs, out).returncode == 0
    (out / "hallucination" / "data-7.js").write_text("// of an older, larger copy", encoding="utf-8")
    (out / "investigation").mkdir()
    result = _export(hallucination_runs, out)  # an earlier copy: no --force needed
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["index"] == str(out / "index.html")
    assert not (out / "hallucination" / "data-7.js").exists() and not (out / "investigation").exists()
    assert (out / "hallucination" / "data-0.js").is_file() and (out / MARKER).is_file()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["copy"]  # nothing left beside it
