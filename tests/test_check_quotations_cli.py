"""Issue #34, quotations in `lexprobe check`: the `--json` shape, the table, the exit code and the `--html` page
(opened in headless Chromium), on a brief quoting Monell v. Department of Social Services from the real data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from page_checks import render_page
from tool_requirements import needs_chromium
from typer.testing import CliRunner

from lexprobe.cli.check import register
from lexprobe.cli.handler import LexprobeGroup

app = typer.Typer(cls=LexprobeGroup)
register(app)


@app.callback()
def _main() -> None:
    """Test app: `check` registered as in lexprobe.cli."""


MONELL = "Monell v. Department of Social Services, 436 U.S. 658"
HELD = (
    "Congress did intend municipalities and other local government units to be included among those persons to "
    "whom § 1983 applies."
)
BRIEF = (
    f"The Court held that “{HELD}” {MONELL}, 690 (1978). It added that “the 42d Congress did not intend to subject "
    "a municipal corporation to liability.” Id. at 714. Hostile: “\x1b[31m<script>alert(1)</script>\u202e words "
    "enough to look for” Monell, 436 U.S. at 691.\n"
)


def run_cli(*args: str):
    return CliRunner().invoke(app, ["check", *args])


def brief(tmp_path: Path, text: str = BRIEF) -> Path:
    path = tmp_path / "brief.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_json_quotations_beside_citations(tmp_path: Path, case_db_path: Path) -> None:
    first = tmp_path / "first.txt"
    first.write_text("Brown v. Board of Education, 347 U.S. 483 (1954).\n", encoding="utf-8")
    result = run_cli(str(first), str(brief(tmp_path)), "--db", str(case_db_path), "--json")
    assert result.exit_code == 1, result.output  # a quotation from the dissent, one not found
    payload = json.loads(result.stdout)
    assert set(payload) == {"schema_version", "citations", "quotations", "summary"}
    quotations = payload["quotations"]
    fields = {"text", "span", "citation", "verdict", "page", "pin_ok", "reason", "evidence"}
    assert [set(q) for q in quotations] == [fields] * 3
    assert [q["verdict"] for q in quotations] == ["verified", "separate_opinion", "not_found"]
    # indexes into the combined citations list: the first file has one citation
    assert [q["citation"] for q in quotations] == [1, 2, 3]
    assert payload["citations"][1]["text"].startswith("Monell")
    assert quotations[0]["page"] == 690 and quotations[0]["pin_ok"] is True and quotations[0]["text"] == HELD
    assert quotations[1]["evidence"]["author"] == "Rehnquist" and quotations[1]["page"] == 714
    assert payload["summary"]["quotations"] == {
        "verified": 1,
        "altered": 0,
        "not_found": 1,
        "separate_opinion": 1,
        "other_case": 0,
        "unverifiable": 0,
    }
    text = brief(tmp_path).read_text(encoding="utf-8")
    start, end = quotations[0]["span"]
    assert text[start:end] == f"“{HELD}”"


def test_exit_code_zero_when_every_quotation_verifies(tmp_path: Path, case_db_path: Path) -> None:
    path = brief(tmp_path, f"The Court held that “{HELD}” {MONELL}, 690 (1978).\n")
    result = run_cli(str(path), "--db", str(case_db_path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["quotations"]["verified"] == 1


def test_table_shows_quotations_safely(tmp_path: Path, case_db_path: Path) -> None:
    result = run_cli(str(brief(tmp_path)), "--db", str(case_db_path))
    assert result.exit_code == 1
    assert "separate_opinion" in result.stdout and "quotations: 1 verified" in result.stdout
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert "“[31m<script>" in result.stdout  # the control character is gone, the markup-like text printed as written


@needs_chromium
def test_html_highlights_quotations_with_their_passages(tmp_path: Path, case_db_path: Path) -> None:
    page = tmp_path / "check.html"
    result = run_cli(str(brief(tmp_path)), "--db", str(case_db_path), "--html", str(page))
    assert result.exit_code == 1
    html = page.read_text(encoding="utf-8")
    assert html.count('class="q qv-') == 3 and 'class="badge qv-separate_opinion"' in html
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "\u202e" not in html and "\x1b" not in html
    assert "Rehnquist" in html and "passage in the opinion" in html
    rendered = render_page(page, screenshot=tmp_path / "check.png")
    assert rendered.ok, rendered.to_json()
    assert not rendered.dialogs and not rendered.sideways


def test_render_html_escapes_hostile_quotations(case_db_path: Path) -> None:
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.check.extract import extract_citations
    from lexprobe.check.quote_verdicts import check_quotations
    from lexprobe.check.render_html import CheckedDocument, render_html
    from lexprobe.check.verify import case_lookup_for, verify_citations

    text = f"“<img src=x onerror=alert(1)>\u202e reversed words \x1b[2J here” {MONELL}, 690 (1978)."
    db = CaseDatabase(case_db_path)
    try:
        found = extract_citations(text)
        quotations = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    finally:
        db.close()
    assert [q.verdict for q in quotations] == ["not_found"]
    page = render_html([CheckedDocument("brief\u202e.txt", text, [], quotations)])
    assert "<img" not in page and "&lt;img src=x" in page
    assert "\u202e" not in page and "\x1b" not in page and "\\u202e" in page


def test_quotations_past_the_limit_are_named_on_stderr(
    tmp_path: Path, case_db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document with more quotations than `MAX_QUOTATIONS` lists the first ones and says on stderr how many were
    left unchecked (here the limit is lowered to 2 so that a three-quotation brief passes it)."""
    import lexprobe.check.quotations as quotations_module

    monkeypatch.setattr(quotations_module, "MAX_QUOTATIONS", 2)
    result = run_cli(str(brief(tmp_path)), "--db", str(case_db_path), "--json")
    payload = json.loads(result.stdout)
    assert len(payload["quotations"]) == 2
    assert "1 quotation(s) past the first 2 not checked" in result.stderr
