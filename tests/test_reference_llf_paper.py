"""The shipped reference rows of *Large Legal Fictions* against the paper's own text: the tables are parsed out of
`large-legal-fictions.txt` here, at test time, and every shipped cell must equal the printed one and every printed
cell must be shipped (so no typing error, and no left-out value, survives). Skipped only where the papers are absent
and CI is not "true"."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from lexprobe.caselaw.paths import papers_root
from lexprobe.hallucination.paper_figures.data import paper_tables, paper_values, parse_cell

PAPER = "large-legal-fictions.txt"
#: The task names as the tables print them (a trailing "a"/"b" is a footnote mark).
PRINTED_TASKS = ("Existence", "Court", "Citation", "Author", "Disposition", "Quotation", "Authority",
                 "Overruling year", "Doctrinal agreement", "Factual background", "Procedural posture",
                 "Subsequent history", "Core legal question", "Central holding", "False dissent premise",
                 "False overruling premise", "False existence")  # fmt: skip
#: table id -> (caption as printed, in the Online Appendix?)
CAPTIONS = {
    "main-3": ("Table 3: Hallucination rates across levels of the federal judiciary (low complexity tasks)", False),
    "main-4": ("Table 4: Hallucination rates across levels of the federal judiciary (moderate complexity "
               "tasks)", False),
    "main-5": ("Table 5: Hallucination rates across levels of the federal judiciary (high complexity tasks)", False),
    "main-6": ("Table 6: Hallucination rates across levels of the federal judiciary (contra-factual tasks)", False),
    "main-7": ("Table 7: Expected calibration error (ECE) across levels of the federal judiciary", False),
    "appendix-3": ("Table 3: Temperature-scaled expected calibration error (ECE) across levels of the federal "
                   "judiciary", True),
    "appendix-5": ("Table 5: Hallucination rates across levels of the federal judiciary (fake existence task)", True),
    "appendix-6": ("Table 6: Absention rates across levels of the federal judiciary (resource-aware tasks)", True),
}  # fmt: skip
TOKEN = re.compile(
    r"(?P<cell>\d\.\d{3} \(\d\.\d{3}\))|(?P<dash>(?<![\w-])-(?![\w-]))|(?P<prompt>Zero-shot|Few-shot)"
    r"|(?P<task>" + "|".join(sorted(map(re.escape, PRINTED_TASKS), key=len, reverse=True)) + r")(?P<mark>[ab])?\b"
)
HEADING = re.compile(r"(SCOTUS|USCOA|USDC) \((\d{4}-\d{4}); n=(\d+)\)")
FOOTNOTE = re.compile(r"^\u2022 (\d{4}-\d{4}) \(n=(\d+)\)\s*$", re.MULTILINE)


@pytest.fixture(scope="module")
def paper_text() -> str:
    path = papers_root() / PAPER
    if not path.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the paper's text is not at {path.resolve()} (set LEXPROBE_PAPERS)")
        pytest.skip(f"the paper's text is not at {path.resolve()}")
    return path.read_text(encoding="utf-8")


def table_region(text: str, caption: str, appendix: bool) -> str:
    """The text from a table's caption to its closing note (or, for a table without one, the next heading)."""
    start = text.index(caption, text.index("Online Appendix") if appendix else 0)
    end = text.find("\u2022 Note:", start)
    return text[start + len(caption) : end]


def parse_rows(region: str) -> list[dict]:
    """Rows in print order: task, footnote mark, prompt and the cells. A prompt label opens a row; a task name
    belongs to the row before it when that row has none (the layout prints a two-row task's name on its second
    line), and to the rows after it otherwise."""
    rows: list[dict] = []
    task, mark = None, None
    for token in TOKEN.finditer(region):
        if token["task"]:
            if rows and rows[-1]["task"] is None:
                rows[-1]["task"], rows[-1]["mark"] = token["task"], token["mark"]
            task, mark = token["task"], token["mark"]
        elif token["prompt"]:
            rows.append({"task": task, "mark": mark, "prompt": token["prompt"], "cells": []})
            task, mark = None, None
        else:
            rows[-1]["cells"].append(token[0])
    return rows


def printed_tables(text: str) -> dict:
    """Every level table parsed from the text: id -> {"headings", "footnotes", "rows"}."""
    found = {}
    for table_id, (caption, appendix) in CAPTIONS.items():
        region = table_region(text, caption, appendix)
        found[table_id] = {
            "headings": HEADING.findall(region),
            "footnotes": FOOTNOTE.findall(region),
            "rows": parse_rows(region),
        }
    return found


def test_every_shipped_level_table_cell_equals_the_printed_one_and_every_printed_cell_is_shipped(paper_text):
    printed = printed_tables(paper_text)
    shipped = {table["id"]: table for table in paper_tables()["tables"] if table["id"] != "appendix-4"}
    assert set(shipped) == set(printed)
    for table_id, table in shipped.items():
        found = printed[table_id]
        headings = [(c["heading"].split(" ")[0], c["window"], str(c["n"])) for c in table["columns"]]
        assert headings == found["headings"], table_id
        ours = [(r["task_printed"], r["prompt_printed"], r["cells"]) for r in table["rows"]]
        theirs = [(r["task"], r["prompt"], r["cells"]) for r in found["rows"]]
        assert ours == theirs, table_id
        marks = sorted({r["mark"] for r in found["rows"] if r["mark"]})
        windows = dict(zip(marks, found["footnotes"], strict=True))
        for row, printed_row in zip(table["rows"], found["rows"], strict=True):
            expected = windows.get(printed_row["mark"])
            got = (row["footnote"]["window"], str(row["footnote"]["n"])) if row["footnote"] else None
            assert got == expected, (table_id, row["task_printed"])


def test_the_pooled_ece_table_is_shipped_as_printed(paper_text):
    region = paper_text[paper_text.index("Table 4: Scaled and unscaled ECE", paper_text.index("Online Appendix")) :]
    region = region[: region.index("Appendix E")]
    printed = re.findall(r"^(GPT 4|GPT 3\.5|PaLM 2|Llama 2)\s+(\d\.\d{3})\s+(\d\.\d{3})\s*$", region, re.MULTILINE)
    table = next(t for t in paper_tables()["tables"] if t["id"] == "appendix-4")
    assert [(r["model"], *r["cells"]) for r in table["rows"]] == printed
    assert [c["heading"] for c in table["columns"]] == ["ECE (unscaled)", "ECE (scaled)"]
    assert "ECE (unscaled)\tECE (scaled)" in region


def test_every_printed_number_pair_is_one_reference_value(paper_text):
    printed = printed_tables(paper_text)
    cells = sum(len(r["cells"]) - r["cells"].count("-") for table in printed.values() for r in table["rows"])
    values = paper_values()
    assert len(values) == cells + 8  # + Appendix Table 4: 4 LLMs x 2 columns
    for value in values:
        assert parse_cell(value.printed) == (value.value, value.se)
        assert value.model in ("GPT 4", "GPT 3.5", "PaLM 2", "Llama 2")


def test_the_tables_name_lexprobe_tasks_levels_and_styles():
    from lexprobe.hallucination.tasks import TASKS

    for value in paper_values():
        assert value.task in TASKS or value.task == "pooled"
        assert value.level in ("scotus", "coa", "district", None)
        assert value.prompt_style in ("zero", "few", None)
        assert value.window is None or re.fullmatch(r"\d{4}-\d{4}", value.window)
    rows = {(v.table_id, v.task, v.level, v.prompt_style, v.model): v for v in paper_values()}
    assert rows[("main-3", "existence", "scotus", "zero", "GPT 4")].value == 0.204  # the first cell of Table 3
    overruling = rows[("main-4", "overruling_year", "scotus", "few", "GPT 4")]
    assert (overruling.value, overruling.se, overruling.n, overruling.window) == (0.725, 0.028, 279, "1810-2022")


def test_papers_root_follows_the_environment(monkeypatch, tmp_path: Path):
    from lexprobe.caselaw.paths import data_root

    monkeypatch.setenv("LEXPROBE_PAPERS", str(tmp_path))
    assert papers_root() == tmp_path
    monkeypatch.delenv("LEXPROBE_PAPERS")
    assert papers_root() == data_root().parent / "papers"


def test_parse_cell_refuses_what_is_not_a_printed_estimate():
    assert parse_cell("0.204 (0.006)") == (0.204, 0.006)
    assert parse_cell("0.190") == (0.19, None)
    assert parse_cell("-") is None
    with pytest.raises(ValueError):
        parse_cell("0.2 (x)")
