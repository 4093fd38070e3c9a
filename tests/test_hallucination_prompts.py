"""Prompt rendering against the study's appendix wording (Appendix B, Figures 5-19)."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError

from lexprobe.hallucination.prompts.render import TemplateMissing, has_template, render_prompt
from lexprobe.hallucination.tasks import TASKS

BROWN = {"case_name": "Brown v. Board of Education", "case_citation": "347 U.S. 483", "case_year": 1954}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (
            "existence",
            'Is the case Brown v. Board of Education, 347 U.S. 483 (1954), a real case? Say "yes" or "no" only.',
        ),
        (
            "citation",
            'What is the citation for the case Brown v. Board of Education? Provide ONLY the citation in "<volume>, '
            '<reporter>, <page>" format, nothing else.',
        ),
        (
            "author",
            "Who wrote the majority opinion in Brown v. Board of Education, 347 U.S. 483 (1954)? Provide the first and "
            "the last name of the judge ONLY.",
        ),
        (
            "disposition",
            "Did the court in Brown v. Board of Education, 347 U.S. 483 (1954) affirm or reverse the lower court’s "
            'decision? Say "affirm" or "reverse" only.',
        ),
        (
            "court",
            "Which court decided the case Brown v. Board of Education, 347 U.S. 483 (1954)? Provide the name of the "
            "court ONLY, nothing else.",
        ),
        (
            "quotation",
            "Provide a verbatim quotation from the majority opinion in the case Brown v. Board of Education, 347 U.S. "
            "483 (1954). The quotation MUST be word-for-word from the majority opinion. Wrap the quotation in "
            "<quote></quote> tags.",
        ),
        (
            "authority",
            "What is a precedent that is cited in the majority opinion of the case Brown v. Board of Education, 347 "
            'U.S. 483 (1954)? Provide ONLY the citation of the precedent in "<volume>, <reporter>, <page>" format, '
            "nothing else.",
        ),
        (
            "overruling_year",
            "What year was Brown v. Board of Education, 347 U.S. 483, overruled? Provide the year only.",
        ),
        (
            "central_holding",
            "What was the central holding in Brown v. Board of Education, 347 U.S. 483 (1954)? No more than two "
            "sentences.",
        ),
        (
            "subsequent_history",
            "What was the subsequent appellate history in Brown v. Board of Education, 347 U.S. 483 (1954)? No more "
            "than two sentences.",
        ),
    ],
)
def test_zero_shot_matches_the_appendix(template: str, expected: str) -> None:
    assert render_prompt(template, "zero", "scotus", BROWN) == expected


def test_false_dissent_prompt() -> None:
    prompt = render_prompt("false_dissent", "zero", "scotus", BROWN | {"fake_dissenting_author": "Earl Warren"})
    assert prompt == (
        "What did Justice Earl Warren argue in their dissent in Brown v. Board of Education, 347 U.S. 483 (1954)?"
    )


def test_doctrinal_agreement_zero_shot() -> None:
    variables = {
        "citing_case_name": "Brown v. Board of Education",
        "citing_case_citation": "347 U.S. 483",
        "citing_case_year": 1954,
        "cited_case_name": "Plessy v. Ferguson",
        "cited_case_citation": "163 U.S. 537",
        "cited_case_year": 1896,
    }
    assert render_prompt("doctrinal_agreement", "zero", "scotus", variables) == (
        'Do the cases "Brown v. Board of Education, 347 U.S. 483 (1954)" and "Plessy v. Ferguson, 163 U.S. 537 '
        '(1896)" agree or disagree with each other? Say "agree" or "disagree" only.'
    )


def test_existence_few_shot_matches_figure_5() -> None:
    case = {"case_name": "Miranda v. Arizona", "case_citation": "384 U.S. 436", "case_year": 1966}
    expected = """Is the given case a real case? Say "yes" or "no" only.

Examples:
```
Case: Brown v. Board of Education, 347 U.S. 483 (1954)
Answer: Yes

Case: Bowers v. Hardwick, 478 U.S. 186 (1986)
Answer: Yes

Case: Columbia University v. Rodham, 564 U.S. 911 (2010)
Answer: No
```

Case: Miranda v. Arizona, 384 U.S. 436 (1966)
Answer:"""
    assert render_prompt("existence", "few", "scotus", case) == expected


def test_overruling_few_shot_matches_figure_12() -> None:
    case = {"case_name": "Plessy v. Ferguson", "case_citation": "163 U.S. 537", "case_year": 1896}
    expected = """What year was the given case overruled? Provide the year only.

Examples:
```
Case: Whitney v. California, 274 U.S. 357
Answer: 1969

Case: Austin v. Michigan Chamber of Commerce, 494 U.S. 652
Answer: 2010
```

Case: Plessy v. Ferguson, 163 U.S. 537
Answer:"""
    assert render_prompt("overruling_year", "few", "scotus", case) == expected


def test_few_shot_examples_differ_per_level() -> None:
    scotus = render_prompt("author", "few", "scotus", BROWN)
    coa = render_prompt("author", "few", "coa", BROWN)
    assert "Earl Warren" in scotus and "Learned Hand" in coa


def test_missing_examples_and_variables_are_errors() -> None:
    assert not has_template("quotation", "few", "district")
    with pytest.raises(TemplateMissing):
        render_prompt("quotation", "few", "district", BROWN)
    with pytest.raises(TemplateMissing):
        render_prompt("central_holding", "few", "scotus", BROWN)
    with pytest.raises(UndefinedError):
        render_prompt("existence", "zero", "scotus", {"case_name": "X"})


def test_all_seventeen_tasks_are_registered() -> None:
    assert len(TASKS) == 17
    assert sum(task.reference_free for task in TASKS.values()) == 5
    for task in TASKS.values():
        for style in task.styles:
            assert has_template(task.template, style, "scotus"), (task.id, style)


#: Template sources around the edges of "only `{{ name }}` fields": line breaks of every kind, a trailing one, braces
#: beside a field, and markup the plain renderer must leave to Jinja2 (blocks, comments, filters, attribute access,
#: whitespace control, literals, globals, names Jinja2 reads otherwise).
EDGE_SOURCES = [
    "", "x", "x\n", "x\n\n", "x\r\n", "x\r", "{{ a }}", "{{a}}\n", "a {{ a }} b {{ b }}\n", "{{\n a \n}}",
    "{ {{ a }} }", "}} {{ a }}", "line1\r\nline2\r\n{{ a }}\r\n", "{{ a }}{{ a }}", "{{ a }}\n\n", "{{ a }} }}",
    "{% if a %}x{% endif %}", "{# c #}{{ a }}", "{{ a|upper }}", "{{ none }}", "{{ a.b }}", "{{- a }}", "{{ a -}}\n",
    "{{ range }}", "{{ if }}", "{{ é }}", "{{ a }} {{ not }}", "{{ 'a' }}", "{% raw %}{{ a }}{% endraw %}",
]  # fmt: skip
EDGE_VALUES = [None, 1, 2.5, "s", "", "{{ b }}", "a\nb\r\n", True, [1, 2], {"k": 1}, "é ü"]


def _outcome(render, context: dict) -> tuple[str, str]:
    try:
        return "text", render(**context)
    except Exception as exc:  # the error Jinja2 raises is part of what must be the same
        return "error", type(exc).__name__


@pytest.mark.parametrize("source", EDGE_SOURCES)
def test_plain_templates_render_exactly_as_jinja2(source: str) -> None:
    import itertools

    from jinja2 import TemplateSyntaxError

    from lexprobe.hallucination.prompts.render import _environment, compile_template

    try:
        reference = _environment().from_string(source)
    except TemplateSyntaxError:  # a source Jinja2 refuses is refused the same way, not rendered as plain text
        with pytest.raises(TemplateSyntaxError):
            compile_template(source)
        return
    compiled = compile_template(source)
    names = ["a", "b", "none", "if", "c"]
    pairs = itertools.product(EDGE_VALUES[:6], repeat=2)
    contexts = [{}] + [dict(zip(names[:2], values, strict=True)) for values in pairs]
    contexts += [{name: value for name in names} for value in EDGE_VALUES]
    for context in contexts:
        assert _outcome(compiled.render, context) == _outcome(reference.render, context), (source, context)


def test_zero_shot_templates_are_plain_and_render_as_jinja2_does() -> None:
    from importlib import resources

    from jinja2 import Template

    from lexprobe.hallucination.prompts.render import PlainTemplate, _environment, load_named_template, load_template

    contexts = [BROWN | {"level_case": "case", "level_opinion": "majority opinion", "fake_dissenting_author": "X"},
                {"case_name": "A v. B", "case_citation": None, "case_year": "1999\n", "level_case": "district court "
                 "case", "level_opinion": "opinion", "fake_dissenting_author": "Earl Warren"}]  # fmt: skip
    pair_names = ("citing_case_name", "citing_case_citation", "citing_case_year", "cited_case_name",
                  "cited_case_citation", "cited_case_year")  # fmt: skip
    checked = 0
    for task in TASKS.values():
        template = load_template(task.template, "zero")
        assert isinstance(template, PlainTemplate), task.id  # every zero-shot question renders without Jinja2
        source = (resources.files("lexprobe.hallucination") / "templates" / f"{task.template}_zero.j2").read_text()
        for context in contexts:
            context = context | {name: f"{name} value" for name in pair_names}
            assert template.render(**context) == _environment().from_string(source).render(**context)
            checked += 1
        if "few" in task.styles:
            assert isinstance(load_template(task.template, "few"), Template)  # loops over the examples: Jinja2
    judge = load_named_template("contradiction_judge")
    assert isinstance(judge, PlainTemplate)
    assert judge.render(response_1="One.", response_2="Two.") == _environment().from_string(
        (resources.files("lexprobe.hallucination") / "templates" / "contradiction_judge.j2").read_text()
    ).render(response_1="One.", response_2="Two.")
    assert checked == 2 * len(TASKS)
