"""The shipped InvestigationWorlds reference rows against the paper's own text (issue 33), parsed at test time from
`investigation-worlds.txt` in the papers folder (`papers_root()`).

Covered: the whole body of Sections 4.1 to 4.4 (from the "4.1 Investigation" heading to "5 Related Work"), every
number printed there, and the Appendix A sentence with the investigation harness's budget. Two directions:
(a) every shipped value is printed where its row says, in the words its row quotes, and equals the printed number;
(b) every number printed in Sections 4.1-4.4 (model names, figure and appendix names aside) lies inside a shipped
row's quote and is one of that row's values, so no printed number is left out. Independent regular expressions
over the text then re-read the main series (coverage and signal recall per model, the transitions, the ablation
changes, the shared-case counts) without the quotes. Skipped only when the paper's text is absent outside CI.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from tool_requirements import in_ci

from lexprobe.caselaw.paths import papers_root
from lexprobe.investigation.paper_figures.compare import proportion_se, two_proportion_z, two_sided_z
from lexprobe.investigation.paper_figures.rows import PaperRow, load_paper_figures

SECTIONS = {  # the heading each covered section starts at (a line of its own)
    "4.1 Investigation": r"4\.1\s+Investigation",
    "4.2 Counterfactual Ablations over Document Roles": r"4\.2\s+Counterfactual Ablations over Document Roles",
    "4.3 Investigative Strategies": r"4\.3\s+Investigative Strategies",
    "4.4 Robustness to Generator Choice": r"4\.4\s+Robustness to Generator Choice",
}
END = r"5\s+Related Work"
APPENDIX = "Appendix A (Resource budgets)"
#: Digits that are names, not values: model versions, figure and appendix names.
NAMES = re.compile(
    r"(?:Haiku|Sonnet)\s+\d\.\d|GPT[- ]\d\.\d(?:[- ]mini)?|Qwen[- ]3\.6[- ]35B|DeepSeek\s+[Vv]4(?:\s+Flash)?"
    r"|Figure\s+\d+|Appendix\s+[A-Z]"
)
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?")
WORDS = {"one": 1.0}


def paper_text() -> str:
    path = papers_root() / load_paper_figures().file
    if not path.is_file():
        if in_ci():
            pytest.fail(f"{path} is missing: the papers must be present under CI=true")
        pytest.skip(f"{path} is absent (set LEXPROBE_PAPERS)")
    return path.read_text(encoding="utf-8")


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def sections() -> dict[str, str]:
    """Section title -> its body as one line (whitespace collapsed), read out of the paper's text."""
    text = paper_text()
    starts = []
    for title, heading in SECTIONS.items():
        found = re.search(rf"^\s*{heading}\s*$", text, re.MULTILINE)
        assert found, f"heading {title!r} not found in the paper's text"
        starts.append((found.end(), found.start(), title))
    end = re.search(rf"^\s*{END}\s*$", text, re.MULTILINE)
    assert end, "heading '5 Related Work' not found"
    bounds = [start for _, start, _ in starts[1:]] + [end.start()]
    result = {title: flat(text[body:stop]) for (body, _, title), stop in zip(starts, bounds, strict=True)}
    result[APPENDIX] = flat(text)
    return result


def numbers(text: str) -> list[float]:
    words = [WORDS[w] for w in re.findall(r"\b[a-z]+\b", text) if w in WORDS]  # after the digits
    return [float(n) for n in NUMBER.findall(NAMES.sub(" ", text).replace("$", " "))] + words


def row_values(row: PaperRow) -> set[float]:
    values = {row.value, row.low, row.high, row.successes, row.trials, row.n_cases, row.ci_level, row.a, row.b}
    values |= set(row.ci or ())
    return {float(v) for v in values if v is not None}


# --- (a) every shipped value is the printed one ---------------------------------------------------------------


def test_every_shipped_value_equals_the_printed_one(sections: dict[str, str]) -> None:
    rows = load_paper_figures().rows
    assert len({r.id for r in rows}) == len(rows) == 63
    for row in rows:
        body = sections[row.section]
        assert row.quote in body, f"{row.id}: quote not in {row.section}: {row.quote!r}"
        assert row.printed in row.quote, f"{row.id}: {row.printed!r} is not in its quote"
        printed = numbers(row.printed)
        if row.kind == "range":
            assert printed == [row.low, row.high], row.id
        elif row.trials is not None and "/" in row.printed:
            assert printed == [row.successes, row.trials, row.value], row.id
        else:
            assert printed[0] == row.value, (row.id, printed, row.value)
        for value in row_values(row):  # counts and intervals are printed in the quote too (or are its sample)
            assert value in [*numbers(row.quote), float(row.n_cases or -1), float(row.trials or -1)], (row.id, value)


# --- (b) every printed value of the covered sections is shipped -----------------------------------------------


def test_every_number_printed_in_sections_4_1_to_4_4_is_shipped(sections: dict[str, str]) -> None:
    rows = load_paper_figures().rows
    missing = []
    counted = 0
    for title in SECTIONS:
        body = sections[title]
        masked = NAMES.sub(lambda m: "#" * len(m.group()), body).replace("$", " ")
        spans = []
        for row in rows:
            if row.section == title:
                start = body.find(row.quote)
                assert start >= 0 and body.find(row.quote, start + 1) < 0, f"{row.id}: quote not unique"
                assert start == 0 or not body[start - 1].isalnum(), f"{row.id}: quote starts inside a word"
                spans.append((start, start + len(row.quote), row))
        for match in NUMBER.finditer(masked):
            counted += 1
            value = float(match.group())
            covering = [row for start, stop, row in spans if start <= match.start() < stop]
            if not any(value in row_values(row) for row in covering):
                missing.append(f"{title}: {body[max(0, match.start() - 40) : match.end() + 20]!r}")
    assert not missing, "printed but not shipped:\n" + "\n".join(missing)
    assert counted == 76  # the four sections print 76 numbers (names aside): all read, none skipped


def test_the_text_prints_nothing_beyond_the_covered_per_model_series(sections: dict[str, str]) -> None:
    """The paper's per-model series that the text gives: case solved for two models only (the figures hold the
    others; they are not shipped, as the data says)."""
    body = sections["4.1 Investigation"]
    assert len(re.findall(r"case-solved rate \(\d", body)) == 1  # only Haiku's is printed with the phrase
    assert "not shipped" in load_paper_figures().not_printed


# --- independent re-reading of the main series ----------------------------------------------------------------

ALIASES = {"Sonnet 4.6": "sonnet", "DeepSeek V4 Flash": "deepseek", "GPT-5.4 mini": "gpt-5.4-mini"}


def test_coverage_and_signal_recall_per_model(sections: dict[str, str]) -> None:
    reference = load_paper_figures()
    found = re.findall(
        r"(Sonnet 4\.6|DeepSeek V4 Flash|GPT-5\.4 mini)[^()]*\((\d+(?:\.\d+)?)% coverage, (\d+(?:\.\d+)?)% signal "
        r"recall\)",
        sections["4.3 Investigative Strategies"],
    )
    assert len(found) == 3
    for name, coverage, recall in found:
        key = ALIASES[name]
        assert reference.by_id(f"coverage/{key}").value == float(coverage)
        assert reference.by_id(f"signal_recall/{key}").value == float(recall)
    low, high, c_low, c_high, r_low, r_high = map(float, re.search(
        r"open (\d+(?:\.\d+)?)–(\d+)% of the corpus.*?cluster at (\d+)–(\d+)% coverage and (\d+)–(\d+)% signal",
        sections["4.3 Investigative Strategies"]).groups()[:2] + re.search(
        r"cluster at (\d+)–(\d+)% coverage and (\d+)–(\d+)% signal", sections["4.3 Investigative Strategies"]
    ).groups())  # fmt: skip
    assert (reference.by_id("coverage/range").low, reference.by_id("coverage/range").high) == (low, high)
    assert (reference.by_id("coverage/middle_cluster").low, reference.by_id("coverage/middle_cluster").high) == (
        c_low, c_high)  # fmt: skip
    cluster = reference.by_id("signal_recall/middle_cluster")
    assert (cluster.low, cluster.high) == (r_low, r_high)


def test_verdict_transitions(sections: dict[str, str]) -> None:
    reference = load_paper_figures()
    body = sections["4.2 Counterfactual Ablations over Document Roles"]
    k_a, n_a, p_a, k_b, n_b, p_b = re.search(r"from (\d+)/(\d+) \(([\d.]+)%\) to (\d+)/(\d+) \(([\d.]+)%\)",
                                             body).groups()  # fmt: skip
    merits, pro = reference.by_id("transitions/believe_merits"), reference.by_id("transitions/believe_pro_alternative")
    assert (merits.successes, merits.trials, merits.value) == (int(k_a), int(n_a), float(p_a))
    assert (pro.successes, pro.trials, pro.value) == (int(k_b), int(n_b), float(p_b))
    switched, from_reject, from_unknown = map(int, re.search(
        r"Of the (\d+) verdicts that switch to believe, (\d+) previously expressed do not believe and (\d+) "
        r"expressed do not know", body).groups())  # fmt: skip
    assert reference.by_id("transitions/to_believe").value == switched
    assert reference.by_id("transitions/reject_to_believe").value == from_reject
    assert reference.by_id("transitions/dont_know_to_believe").value == from_unknown
    # the paper's own arithmetic: the switches add up, believe at b = switches + the one that stayed
    stayed = reference.by_id("transitions/believe_to_believe").value
    assert from_reject + from_unknown == switched and switched + stayed == pro.successes
    assert round(100 * merits.successes / merits.trials, 1) == merits.value
    assert round(100 * pro.successes / pro.trials, 1) == pro.value


def test_ablation_changes(sections: dict[str, str]) -> None:
    reference = load_paper_figures()
    body = sections["4.2 Counterfactual Ablations over Document Roles"]
    found = dict(re.findall(r"(Haiku 4\.5|GPT-5\.4-mini) \(\$(-\d+)\$ points\)", body))
    assert reference.by_id("ablation_change/haiku").value == float(found["Haiku 4.5"])
    assert reference.by_id("ablation_change/gpt-5.4-mini").value == float(found["GPT-5.4-mini"])
    assert reference.by_id("ablation_change/gpt-5.5").value == float(re.search(r"GPT-5\.5 increases by (\d+) points",
                                                                                body).group(1))  # fmt: skip
    low, high = map(float, re.search(r"declines range from (\d+) to (\d+) percentage points", body).groups())
    declines = reference.by_id("ablation_change/declines")
    assert (declines.low, declines.high) == (low, high)


def test_case_solved_and_shared_cases(sections: dict[str, str]) -> None:
    reference = load_paper_figures()
    body = sections["4.1 Investigation"]
    haiku, sonnet = map(float, re.search(r"rate \(([\d.]+)%\), followed by Sonnet 4\.6 \(([\d.]+)%\)", body).groups())
    assert reference.by_id("case_solved/haiku").value == haiku
    assert reference.by_id("case_solved/sonnet").value == sonnet
    k_h, n_h, p_h, k_s, n_s, p_s = re.search(
        r"Haiku solves (\d+)/(\d+) cases \(([\d.]+)%\), compared with (\d+)/(\d+) \(([\d.]+)%\)", body
    ).groups()
    for row_id, k, n, p in (("case_solved_shared/haiku", k_h, n_h, p_h), ("case_solved_shared/sonnet", k_s, n_s, p_s)):
        row = reference.by_id(row_id)
        assert (row.successes, row.trials, row.value) == (int(k), int(n), float(p))
        assert round(100 * row.successes / row.trials, 1) == row.value
    baseline = reference.by_id("baseline/uniform_random").value
    assert round(100 * (1 / 3) * (2 / 3) ** 3, 1) == baseline  # the exact uniform-random policy for 4 hypotheses


# --- the statistics the comparisons use -----------------------------------------------------------------------


def test_z_test_from_standard_errors_and_counts() -> None:
    z, p = two_sided_z(1.96, 1.0, 0.0)
    assert z == pytest.approx(1.96) and p == pytest.approx(0.05, abs=5e-4)
    assert two_sided_z(0.3, 0.0, 0.0) is None
    assert proportion_se(1, 4) == pytest.approx(math.sqrt(0.25 * 0.75 / 4))
    z, p = two_proportion_z(29, 87, 25, 87)
    expected = (29 / 87 - 25 / 87) / math.sqrt(proportion_se(29, 87) ** 2 + proportion_se(25, 87) ** 2)
    assert z == pytest.approx(expected) and 0 < p < 1
    assert two_proportion_z(0, 5, 3, 506) is None and two_proportion_z(1, 0, 1, 2) is None  # no s.e. on a side
    assert two_proportion_z(5, 5, 3, 506) is None


def test_papers_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LEXPROBE_PAPERS", str(tmp_path))
    assert papers_root() == tmp_path
    monkeypatch.delenv("LEXPROBE_PAPERS")
    monkeypatch.setenv("LEXPROBE_DATA", str(tmp_path / "data"))
    assert papers_root() == tmp_path / "papers"
