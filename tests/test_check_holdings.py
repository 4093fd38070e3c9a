"""Issue #34, holdings and propositions: `lexprobe check --judge MODEL` on a brief citing Monell v. Department of
Social Services from the real data, with scripted judges (supported, contradicted, not_supported, a reply that
gives no verdict), the response cache (a rerun sends nothing), the `--json` shape, a replaced prompt template,
hostile judge output on the `--html` page opened in headless Chromium, and the embedded model end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from page_checks import render_page
from service_support import validate
from tool_requirements import needs_chromium
from typer.testing import CliRunner

from lexprobe.check.extract import extract_citations
from lexprobe.check.holdings import (
    CONTRADICTED,
    HOLDING_VERDICTS,
    MAX_PASSAGE_CHARS,
    MAX_PROPOSITION_CHARS,
    NOT_SUPPORTED,
    SUPPORTED,
    find_propositions,
    parse_reply,
    split_passages,
)
from lexprobe.cli.check import register
from lexprobe.cli.handler import LexprobeGroup

app = typer.Typer(cls=LexprobeGroup)
register(app)


@app.callback()
def _main() -> None:
    """Test app: `check` registered as in lexprobe.cli."""


MONELL = "Monell v. Department of Social Services, 436 U.S. 658, 691 (1978)"
SUPPORTED_SENTENCE = "A municipality cannot be held liable under section 1983 solely because it employs a tortfeasor."
CONTRADICTED_SENTENCE = "Local governing bodies can never be sued directly under section 1983 for any relief."
UNSUPPORTED_SENTENCE = "Municipal fire departments must always paint their engines red under the statute."
GARBLED_SENTENCE = "The Court discussed official policy of the municipal employer at some length."
BRIEF = (
    f"{SUPPORTED_SENTENCE} {MONELL}. {CONTRADICTED_SENTENCE} Id. at 690. {UNSUPPORTED_SENTENCE} See id. at 694. "
    f"{GARBLED_SENTENCE} Id. at 694.\n"
)
# each line answers the prompt naming its proposition (the passages may hold any sentence's words)
SCRIPT = [
    {
        "when": "Proposition: A municipality cannot",
        "text": "VERDICT: supported\nREASON: The Court says so at page 691.",
    },
    {
        "when": "Proposition: Local governing bodies",
        "text": "Verdict: **contradicted**\nReason: the Court held they can be sued.",
    },
    {
        "when": "Proposition: Municipal fire departments",
        "text": "not supported - nothing in the passages mentions engines.",
    },
    {"when": "Proposition: The Court discussed", "text": "I would rather not say; it is complicated."},
]


def run_cli(*args: str):
    return CliRunner().invoke(app, ["check", *args])


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def script(tmp_path: Path, lines: list[dict]) -> str:
    path = tmp_path / "judge.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return f"scripted:{path}"


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("VERDICT: supported\nREASON: yes", SUPPORTED),
        ("verdict - Contradicted. The dissent says it.", CONTRADICTED),
        ("VERDICT: not_supported", NOT_SUPPORTED),
        ("Verdict: not supported", NOT_SUPPORTED),
        ("**Unsupported**: nothing says so", NOT_SUPPORTED),
        ("Supported. The Court held it.", SUPPORTED),
        ("Verdict: supported\n...on reflection, VERDICT: contradicted", CONTRADICTED),  # the last verdict line
        ("The proposition is partly supported and partly contradicted.", None),  # no plain verdict: never guessed
        (
            "The opinion of the Court in Monell v. Dep't of Soc. Servs. supports the proposition.",
            SUPPORTED,
        ),  # the embedded model
        ("The opinion does not support the proposition.", NOT_SUPPORTED),
        ("The opinion contradicts it.", CONTRADICTED),
        ("The opinion may not support it.", None),  # a hedge
        ("It is not true that the opinion supports it.", None),
        ("The majority supports it, but the dissent contradicts it.", None),
        ("It supports nothing.\nVERDICT: banana", None),
        ("", None),
        ("banana", None),
    ],
)
def test_parse_reply_is_lenient_but_never_guesses(reply: str, verdict: str | None) -> None:
    assert parse_reply(reply)[0] == verdict


def test_parse_reply_keeps_the_reason() -> None:
    assert parse_reply("VERDICT: supported\nREASON:  the Court   says so.")[1] == "the Court says so."
    assert len(parse_reply("x" * 50_000)[1]) <= 600


def test_propositions_citation_sentences_and_inline_citations() -> None:
    text = (
        "Segregated schools deprive children of equal protection of the laws. Brown v. Board of Education, 347 U.S. "
        "483, 495 (1954). See also Monell v. Department of Social Services, 436 U.S. 658 (1978). The Court held in "
        "Monell, 436 U.S. at 690, that local governments are persons under section 1983. Id. at 691 (holding that "
        "there is no respondeat superior liability). “Separate educational facilities are inherently unequal.” Brown,"
        " 347 U.S. at 495."
    )
    found = extract_citations(text)
    propositions = find_propositions(text, found)
    assert [p.text for p in propositions] == [
        "Segregated schools deprive children of equal protection of the laws.",
        "Segregated schools deprive children of equal protection of the laws.",  # the "See also" sentence: Monell
        "The Court held in Monell, that local governments are persons under section 1983.",  # the name stays
        "holding that there is no respondeat superior liability",
        "“Separate educational facilities are inherently unequal.”",
    ]
    names = [found[p.case_index].name for p in propositions][:2]
    assert names == ["Brown v. Board of Education", "Monell v. Department of Social Services"]
    assert text[propositions[0].span[0] : propositions[0].span[1]].endswith("(1954).")


def test_a_ten_megabyte_sentence_gives_one_cut_proposition() -> None:
    import dataclasses

    tail = f"{MONELL}."
    found = extract_citations(tail)
    big = "municipal liability words " * 400_000  # 10.4 MB, no sentence end
    shifted = [dataclasses.replace(c, span=(c.span[0] + len(big), c.span[1] + len(big))) for c in found]
    propositions = find_propositions(big + tail, shifted)
    assert len(propositions) == 1 and propositions[0].cut
    assert len(propositions[0].text) <= MAX_PROPOSITION_CHARS + 1


def test_passages_are_bounded_even_without_sentence_ends() -> None:
    text = "word " * 10_000 + "\n\nA short paragraph. Another sentence here."
    spans = split_passages(text)
    assert all(end - start <= MAX_PASSAGE_CHARS for start, end in spans)
    assert text[spans[-1][0] : spans[-1][1]] == "A short paragraph. Another sentence here."


def test_json_holdings_with_each_scripted_verdict(tmp_path: Path, case_db_path: Path) -> None:
    judge = script(tmp_path, SCRIPT)
    result = run_cli(str(write(tmp_path, "brief.txt", BRIEF)), "--db", str(case_db_path), "--json", "--judge", judge)
    assert result.exit_code == 1, result.output  # a proposition contradicted
    payload = json.loads(result.stdout)
    assert set(payload) == {"schema_version", "citations", "quotations", "holdings", "summary"}
    validate(payload)  # the published result format (docs/check-result.schema.json), holdings included
    holdings = payload["holdings"]
    fields = {"sentence", "span", "citation", "verdict", "judge", "judged_by", "passages", "reason", "cached"}
    assert [set(h) for h in holdings] == [fields] * 4
    assert [h["verdict"] for h in holdings] == ["supported", "contradicted", "not_supported", "unjudged"]
    assert [h["sentence"] for h in holdings] == [SUPPORTED_SENTENCE, CONTRADICTED_SENTENCE, UNSUPPORTED_SENTENCE,
                                                 GARBLED_SENTENCE]  # fmt: skip
    assert [h["citation"] for h in holdings] == [0, 1, 2, 3]
    assert all(h["judge"] == judge for h in holdings)
    assert [h["judged_by"] for h in holdings] == ["model", "model", "model", None]
    assert "a model's judgement" in holdings[0]["reason"] and "page 691" in holdings[0]["reason"]
    assert "I would rather not say" in holdings[3]["reason"]  # the judge's text kept
    passage = holdings[0]["passages"][0]
    assert set(passage) == {"text", "opinion_id", "opinion_type", "author", "page", "score"}
    assert passage["score"] > 0 and passage["opinion_type"] in ("lead", "combined", "concurrence", "dissent")
    assert "liable solely because it employs a tortfeasor" in passage["text"]  # BM25 ranks the holding first
    start, end = holdings[0]["span"]
    assert BRIEF[start:end] == f"{SUPPORTED_SENTENCE} {MONELL}."
    assert payload["summary"]["holdings"] == {"judge": judge, "supported": 1, "contradicted": 1, "not_supported": 1,
                                              "unjudged": 1, "skipped": 0}  # fmt: skip
    assert "4 of 4 proposition(s) asked, 0 answered from the cache, 3 given a verdict" in result.stderr


def test_rerun_sends_nothing(tmp_path: Path, case_db_path: Path) -> None:
    judge = script(tmp_path, SCRIPT)
    brief = str(write(tmp_path, "brief.txt", BRIEF))
    first = run_cli(brief, "--db", str(case_db_path), "--json", "--judge", judge)
    again = run_cli(brief, "--db", str(case_db_path), "--json", "--judge", judge)
    assert [h["cached"] for h in json.loads(first.stdout)["holdings"]] == [False] * 4
    holdings = json.loads(again.stdout)["holdings"]
    assert [h["cached"] for h in holdings] == [True] * 4
    assert [h["verdict"] for h in holdings] == ["supported", "contradicted", "not_supported", "unjudged"]
    assert "4 of 4 proposition(s) asked, 4 answered from the cache" in again.stderr


def test_without_judge_no_holdings_key(tmp_path: Path, case_db_path: Path) -> None:
    result = run_cli(str(write(tmp_path, "brief.txt", BRIEF)), "--db", str(case_db_path), "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert "holdings" not in payload and "holdings" not in payload["summary"]


def test_supported_only_exits_zero_and_table_labels_the_model(tmp_path: Path, case_db_path: Path) -> None:
    judge = script(tmp_path, SCRIPT)
    brief = write(tmp_path, "brief.txt", f"{SUPPORTED_SENTENCE} {MONELL}.\n")
    result = run_cli(str(brief), "--db", str(case_db_path), "--judge", judge)
    assert result.exit_code == 0, result.output
    shown = " ".join(result.stdout.split())  # the table wraps at the terminal's width
    assert "judged by the model" in shown and "model's verdict" in shown
    assert "(a model's judgement): 1 supported, 0 contradicted, 0 not_supported, 0 unjudged, 0 skipped" in shown


def test_case_without_text_is_not_judged(tmp_path: Path, case_db_path: Path) -> None:
    judge = script(tmp_path, [{"text": "VERDICT: supported"}])
    brief = write(tmp_path, "brief.txt", "Widgets infringe every patent claim in the circuit. Smith v. Jones, "
                                         "123 F.3d 456 (9th Cir. 1999).\n")  # fmt: skip
    result = run_cli(str(brief), "--db", str(case_db_path), "--json", "--judge", judge)
    holdings = json.loads(result.stdout)["holdings"]
    assert [h["verdict"] for h in holdings] == ["unjudged"]
    assert holdings[0]["passages"] == [] and holdings[0]["reason"].startswith("not judged")
    assert "0 of 1 proposition(s) asked" in result.stderr


def test_judge_template_is_replaceable(tmp_path: Path, case_db_path: Path) -> None:
    source = "CUSTOM PROMPT for {{ case }}: {{ proposition }}\n{% for p in passages %}[{{ p.label }}] {{ p.text }}\n"
    template = write(tmp_path, "mine.j2", source + "{% endfor %}")
    judge = script(tmp_path, [{"when": "CUSTOM PROMPT for Monell", "text": "VERDICT: not_supported"}])
    brief = write(tmp_path, "brief.txt", f"{SUPPORTED_SENTENCE} {MONELL}.\n")
    result = run_cli(str(brief), "--db", str(case_db_path), "--json", "--judge", judge, "--judge-template",
                     str(template))  # fmt: skip
    assert [h["verdict"] for h in json.loads(result.stdout)["holdings"]] == ["not_supported"]
    broken = write(tmp_path, "broken.j2", "{% for x in %}")
    result = run_cli(str(brief), "--db", str(case_db_path), "--judge", judge, "--judge-template", str(broken))
    assert result.exit_code == 2 and "does not compile" in result.output
    unknown = write(tmp_path, "unknown.j2", "{{ no_such_variable }}")
    result = run_cli(str(brief), "--db", str(case_db_path), "--judge", judge, "--judge-template", str(unknown))
    assert result.exit_code == 2 and "does not render" in result.output


def test_unusable_judge_fails_before_any_work(tmp_path: Path, case_db_path: Path) -> None:
    brief = write(tmp_path, "brief.txt", f"{SUPPORTED_SENTENCE} {MONELL}.\n")
    result = run_cli(str(brief), "--db", str(case_db_path), "--judge", f"scripted:{tmp_path / 'missing.jsonl'}")
    assert result.exit_code == 2 and result.stdout == ""


def test_thousands_of_citations_are_bounded_by_judge_max(tmp_path: Path, case_db_path: Path) -> None:
    sentence = "A municipality cannot be held liable solely for employing a tortfeasor. Monell, 436 U.S. at 691. "
    text = f"{SUPPORTED_SENTENCE} {MONELL}. " + sentence * 2_000
    judge = script(tmp_path, [{"text": "VERDICT: supported"}])
    result = run_cli(str(write(tmp_path, "many.txt", text)), "--db", str(case_db_path), "--json", "--judge", judge,
                     "--judge-max", "3")  # fmt: skip
    payload = json.loads(result.stdout)
    assert len(payload["holdings"]) == 3
    assert len(payload["citations"]) > 1_900  # one proposition per citation here
    assert payload["summary"]["holdings"]["skipped"] == len(payload["citations"]) - 3
    assert "not judged" in result.stderr and "--judge-max 3" in result.stderr


HOSTILE = "VERDICT: supported\nREASON: <script>alert(1)</script><img src=x onerror=alert(2)> \u202eevil\x1b[31m"


@needs_chromium
def test_html_escapes_hostile_judge_output(tmp_path: Path, case_db_path: Path) -> None:
    judge = script(tmp_path, [{"text": HOSTILE}])
    page = tmp_path / "check.html"
    brief = write(tmp_path, "brief.txt", f"{SUPPORTED_SENTENCE} <b>bold</b> {MONELL}.\n")
    result = run_cli(str(brief), "--db", str(case_db_path), "--judge", judge, "--html", str(page))
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    assert "<h3>Propositions</h3>" in html and 'class="badge hv-supported"' in html
    assert "model&#x27;s judgement" in html and "passages shown to the judge" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)" in html and "<img" not in html
    assert "<b>bold" not in html and "\u202e" not in html and "\x1b" not in html
    rendered = render_page(page, screenshot=tmp_path / "check.png")
    assert rendered.ok, rendered.to_json()
    assert not rendered.dialogs


def test_embedded_model_judges_end_to_end(tmp_path: Path, case_db_path: Path) -> None:
    brief = write(tmp_path, "brief.txt", f"{SUPPORTED_SENTENCE} {MONELL}.\n")
    result = run_cli(str(brief), "--db", str(case_db_path), "--json", "--judge", "local", "--judge-timeout", "300")
    assert result.exit_code in (0, 1), result.output
    holdings = json.loads(result.stdout)["holdings"]
    assert len(holdings) == 1 and holdings[0]["verdict"] in HOLDING_VERDICTS and holdings[0]["judge"] == "local"
    assert holdings[0]["passages"]


def test_several_files_index_the_combined_citations(tmp_path: Path, case_db_path: Path) -> None:
    judge = script(tmp_path, SCRIPT)
    first = write(tmp_path, "first.txt", "Brown v. Board of Education, 347 U.S. 483 (1954).\n")  # no proposition
    second = write(tmp_path, "second.txt", f"{SUPPORTED_SENTENCE} {MONELL}.\n")
    result = run_cli(str(first), str(second), "--db", str(case_db_path), "--json", "--judge", judge)
    payload = json.loads(result.stdout)
    assert [h["citation"] for h in payload["holdings"]] == [1]
    assert payload["citations"][1]["text"].startswith("Monell")
