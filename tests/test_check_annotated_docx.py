"""The annotated DOCX of a check (`lexprobe.check.annotated_docx`, issue 49's page download): python-docx opens it,
the shaded runs are exactly the spans of the JSON result in their verdict's colours, each carries a comment with the
verdict, the reason and (for a quotation) the evidence passage; a hostile text still gives a valid document, and the
bounds on comments and paragraphs hold."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import docx
import pytest
from docx.oxml.ns import qn
from test_service_http import BRIEF

from lexprobe.check import annotated_docx as module
from lexprobe.check.annotated_docx import annotated_docx, xml_text
from lexprobe.check.quote_verdicts import QuotationVerdict
from lexprobe.check.render_html import COLOURS, QUOTE_COLOURS, CheckedDocument
from lexprobe.check.result_json import check_result
from lexprobe.check.verify import CitationVerdict


@pytest.fixture(scope="module")
def checked(case_db_path: Path) -> Iterator[Callable[..., CheckedDocument]]:
    """`check_one_text` on the test database: a text checked as `lexprobe check` checks a file holding it."""
    from lexprobe.caselaw.query import open_case_database
    from lexprobe.check.run_check import check_one_text

    db = open_case_database(case_db_path)
    yield lambda text, name="brief.txt": check_one_text(name, text, db)
    db.close()


def highlights(data: bytes) -> tuple[list[dict[str, Any]], dict[int, str], Any]:
    """The commented highlights of a .docx in document order (text, fill, colour, underline, comment id), the
    comments' text by id, and the document."""
    word = docx.Document(io.BytesIO(data))
    comments = {comment.comment_id: comment.text for comment in word.comments}
    found: dict[int, dict[str, Any]] = {}
    open_ids: list[int] = []
    for element in word.element.body.iter(qn("w:commentRangeStart"), qn("w:commentRangeEnd"), qn("w:r")):
        if element.tag == qn("w:commentRangeStart"):
            open_ids.append(int(element.get(qn("w:id"))))
        elif element.tag == qn("w:commentRangeEnd"):
            open_ids.remove(int(element.get(qn("w:id"))))
        elif open_ids and element.find(qn("w:rPr") + "/" + qn("w:shd")) is not None:
            run = docx.text.run.Run(element, None)
            entry = found.setdefault(open_ids[-1], {"text": "", "runs": [], "id": open_ids[-1]})
            entry["text"] += run.text
            entry["runs"].append(run)
    return list(found.values()), comments, word


def colours(run: Any) -> tuple[str, str]:
    fill = run._r.find(qn("w:rPr") + "/" + qn("w:shd")).get(qn("w:fill"))
    return "#" + fill.lower(), "#" + str(run.font.color.rgb).lower()


def test_the_highlights_are_the_spans_of_the_result_in_their_verdict_colours(checked: Callable) -> None:
    document = checked(BRIEF)
    result = check_result([document])
    marks, comments, word = highlights(annotated_docx([document], title="Citation check: brief.txt"))
    expected = [("c", c) for c in result["citations"]] + [("q", q) for q in result["quotations"]]
    expected.sort(key=lambda pair: pair[1]["span"])
    assert len(marks) == len(expected) and {c["verdict"] for c in result["citations"]} >= {"verified", "not_found"}
    for mark, (kind, item) in zip(marks, expected, strict=True):
        start, end = item["span"]
        assert mark["text"] == BRIEF[start:end]
        palette = COLOURS if kind == "c" else QUOTE_COLOURS
        assert {colours(run) for run in mark["runs"]} == {palette[item["verdict"]]}
        assert all(bool(run.font.underline) == (kind == "q") for run in mark["runs"])
        comment = comments[mark["id"]]
        label = "citation" if kind == "c" else "quotation"
        assert comment.startswith(f"{label} {item['verdict']}: {item['reason']}")
        if kind == "q" and item["evidence"]:
            assert item["evidence"]["passage"][:200] in comment
    text = "\n".join(paragraph.text for paragraph in word.paragraphs)
    assert "4 citations (2 verified, 1 mismatch, 1 not_found, 0 unverifiable)" in text
    assert "citation not_found: no such case" in text and word.core_properties.title == "Citation check: brief.txt"
    assert BRIEF.splitlines()[1] in text  # the text itself, line by line


HOSTILE = (
    "Null\x00 bell\x07 vt\x0b ff\x0c esc\x1b nonchar\ufffe\uffff <script>alert(1)</script> &amp; ]]>\r\n"
    + "A very long line. " * 20_000
    + "Brown v. Board of Education, 347 U.S. 483, 495 (1954).\r\n\tTabbed. \x01See Roe v. Wade, 410 U.S. 113 (1973).\n"
)


def test_a_hostile_text_gives_a_valid_docx(checked: Callable) -> None:
    document = checked(HOSTILE, '<b onmouseover="x">\x1b[31m.txt')
    assert document.verdicts
    marks, comments, word = highlights(annotated_docx([document], title="Citation check: \x00<script>"))
    assert len(marks) == len(document.verdicts) + len(document.quotations) == len(comments)
    for mark, verdict in zip(marks, document.verdicts, strict=False):
        assert mark["text"] == xml_text(HOSTILE[verdict.span[0] : verdict.span[1]])
    text = "\n".join(paragraph.text for paragraph in word.paragraphs)
    assert "<script>alert(1)</script> &amp; ]]>" in text and "\x00" not in text and "\ufffe" not in text
    assert "A very long line. " * 100 in text and "\tTabbed." in text and "\r" not in text
    assert word.core_properties.title == "Citation check: <script>"


def test_forbidden_characters_go_and_spans_still_fit() -> None:
    text = "a\x00b \ud800“quoted\x0b words here” X v. Y, 1 U.S. 1 (1800).\x1f"
    start = text.index("X v.")
    verdict = CitationVerdict(text[start:-1], (start, len(text) - 1), "not_found", None, "no such \x00case")
    quote = QuotationVerdict(text[4:25], (4, 25), 0, "not_found", None, None, "not in \ud800 it", None)
    marks, comments, _ = highlights(annotated_docx([CheckedDocument("a\x00.txt", text, [verdict], [quote])]))
    assert [mark["text"] for mark in marks] == ["“quoted words here”", "X v. Y, 1 U.S. 1 (1800)."]
    assert sorted(comments.values()) == ["citation not_found: no such case", "quotation not_found: not in  it\n"
                                         "cited: X v. Y, 1 U.S. 1 (1800)."]  # fmt: skip


def test_past_the_bounds_findings_are_shaded_without_comments_and_lines_are_joined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(module, "MAX_COMMENTS", 2)
    monkeypatch.setattr(module, "MAX_PARAGRAPHS", 3)
    lines = [f"Case {n} v. Other, {n} U.S. {n} (1900)." for n in range(1, 6)]
    text = "\n".join(lines) + "\n"
    verdicts = []
    for line in lines:
        start = text.index(line)
        verdicts.append(CitationVerdict(line, (start, start + len(line)), "unverifiable", None, "not covered"))
    data = annotated_docx([CheckedDocument("many.txt", text, verdicts)])
    marks, comments, word = highlights(data)
    assert len(marks) == 2 and len(comments) == 2
    shaded = [
        r.text
        for p in word.paragraphs
        for r in p.runs
        if r._r.find(qn("w:rPr") + "/" + qn("w:shd")) is not None and not r.text.startswith(("citation", "quotation"))
    ]
    assert shaded == lines  # every one shaded
    paragraphs = [p.text for p in word.paragraphs]
    assert paragraphs[-3:] == [lines[0], " ".join([*lines[1:], ""]), ""]  # past 3 paragraphs, lines joined
    assert "Only the first 2 findings carry a comment; 3 more" in paragraphs[1]
    assert "Past 3 lines, the line ends are shown as spaces." in paragraphs[1]


def test_check_docx_writes_the_same_document(case_db_path: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    from typer.testing import CliRunner

    from lexprobe.cli import app

    (tmp_path / "brief.txt").write_text(BRIEF, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["check", "brief.txt", "--db", str(case_db_path), "--json", "--docx", "b.docx"])
    assert result.exit_code == 1, result.output  # the brief has a mismatch and a not_found
    citations = json.loads(result.stdout)["citations"]
    marks, comments, _ = highlights((tmp_path / "b.docx").read_bytes())
    cited = [mark for mark in marks if comments[mark["id"]].startswith("citation ")]
    assert [(mark["text"], colours(mark["runs"][0])) for mark in cited] == [
        (c["text"], COLOURS[c["verdict"]]) for c in citations
    ]
    refused = CliRunner().invoke(app, ["check", "brief.txt", "--db", str(case_db_path), "--docx", "no/such/b.docx"])
    assert refused.exit_code == 2 and "cannot write" in refused.output


def test_many_lines_take_linear_time() -> None:
    import time

    text = "Line.\r\n" * 300_000
    start = time.monotonic()
    data = annotated_docx([CheckedDocument("lines.txt", text, [])])
    assert time.monotonic() - start < 60  # python-docx's own add_paragraph made this quadratic: minutes
    paragraphs = docx.Document(io.BytesIO(data)).paragraphs
    assert sum(p.text == "Line." for p in paragraphs) == module.MAX_PARAGRAPHS - 2  # the title's and the name's
    assert "Past 50,000 lines" in paragraphs[1].text
