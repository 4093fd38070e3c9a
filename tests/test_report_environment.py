"""The one report environment (`lexprobe.reporting.html`): every HTML report extends the base template, the CSS
lives in one place, text is escaped, and a variable a writer forgot fails loudly (StrictUndefined)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import jinja2
import pytest

from lexprobe.check.render_html import CheckedDocument, render_html
from lexprobe.check.verify import CitationVerdict
from lexprobe.reporting.html import render_report, report_environment, write_report
from lexprobe.reporting.numbers import interval, num, pct

REPORTS = [
    "lexprobe.hallucination:report.html.j2",
    "lexprobe.investigation:report.html.j2",
    "lexprobe.investigation:qa_report.html.j2",
    "lexprobe.check:report.html.j2",
]


def _source(template: str) -> str:
    package, _, name = template.partition(":")
    return resources.files(package).joinpath("templates", name).read_text(encoding="utf-8")


@pytest.mark.parametrize("template", REPORTS)
def test_every_report_extends_the_base(template: str) -> None:
    source = _source(template)
    assert source.startswith('{% extends "base.html.j2" %}')
    assert "<style" not in source and "<html" not in source and ":root" not in source


@pytest.mark.parametrize("template", REPORTS)
def test_a_missing_variable_fails_loudly(template: str) -> None:
    with pytest.raises(jinja2.UndefinedError):
        render_report(template)


@pytest.mark.parametrize(
    ("template", "found"),
    [
        ("base.html.j2", True),
        ("lexprobe.hallucination:report.html.j2", True),
        ("lexprobe.hallucination:no_such.html.j2", False),
        ("lexprobe.no_such_package:report.html.j2", False),
        ("no_such.html.j2", False),
    ],
)
def test_template_names(template: str, found: bool) -> None:
    if found:
        assert report_environment().get_template(template)
    else:
        with pytest.raises(jinja2.TemplateNotFound):
            report_environment().get_template(template)


def test_the_css_lives_in_the_base() -> None:
    page = render_report("base.html.j2")
    assert page.count("<style>") == 1 and ":root { --ink:" in page and "<main>" in page


def test_the_environment_escapes_and_is_strict() -> None:
    environment = report_environment()
    assert environment is report_environment()
    assert environment.undefined is jinja2.StrictUndefined
    assert environment.from_string("{{ x }}").render(x="<b>&") == "&lt;b&gt;&amp;"


def test_check_page_on_the_base_escapes_model_and_document_text() -> None:
    text = "See <b>x</b>, 1 U.S. 1."
    verdict = CitationVerdict("1 U.S. 1", (14, 22), "verified", None, "ok <i>", ("note & more",))
    page = render_html([CheckedDocument("a<b>.txt", text, [verdict])], title="T & <T>")
    assert "<title>T &amp; &lt;T&gt;</title>" in page and "<h2>a&lt;b&gt;.txt</h2>" in page
    assert "&lt;b&gt;x&lt;/b&gt;" in page and 'title="verified: ok &lt;i&gt;' in page
    assert '<mark class="v-verified" id="d0-c0"' in page and ".v-not_found { background: #ffc4c4;" in page
    assert "<main>" not in page  # the check page keeps its own frame


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (pct(1 / 3), "33.3%"),
        (pct(0.5, 0), "50%"),
        (pct(None), "–"),
        (interval((0.2, 0.45)), "[20.0, 45.0]"),
        (interval(None), "–"),
        (interval(()), "–"),
        (num(1234.5), "1,234.50"),
        (num(2.25, 1), "2.2"),
        (num(None), "–"),
    ],
)
def test_number_formats(text: str, expected: str) -> None:
    assert text == expected


def test_templates_get_the_number_formats() -> None:
    page = report_environment().from_string("{{ pct(x) }} {{ interval(ci) }} {{ num(n, 0) }}")
    assert page.render(x=0.25, ci=[0.1, 0.2], n=1500) == "25.0% [10.0, 20.0] 1,500"


def test_write_report_creates_the_folder(tmp_path: Path) -> None:
    page = tmp_path / "a" / "b" / "page.html"
    write_report(page, "base.html.j2")
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
