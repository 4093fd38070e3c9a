"""The published estimates of *Large Legal Fictions* (Dahl et al.) shipped as package data.

`large_legal_fictions.json` holds Tables 3-7 of the main text and Appendix Tables 3-6 cell by cell as printed
("0.204 (0.006)": estimate and standard error; "-": not measured), with each table's title, where it is printed,
its column headings (court level, date window, sample size) and footnotes (a row's own window and sample size).
`paper_values()` unfolds them into one `PaperValue` per printed number pair. A test parses the paper's text
and checks the shipped cells against it both ways.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources

DATA_FILE = "large_legal_fictions.json"
PAPER_MODELS = ("GPT 4", "GPT 3.5", "PaLM 2", "Llama 2")
_CELL = re.compile(r"(?P<value>\d\.\d{3})(?: \((?P<se>\d\.\d{3})\))?")


@dataclass(frozen=True)
class PaperValue:
    """One number the paper prints, with where it is printed and how it was estimated."""

    table_id: str
    table: str
    where: str
    quantity: str
    task: str
    task_printed: str
    level: str | None
    column: str
    model: str
    prompt_style: str | None
    prompt_printed: str
    value: float
    se: float | None
    n: int | None
    window: str | None
    printed: str

    def to_dict(self) -> dict:
        """Return the value as JSON-ready data."""
        return asdict(self)


@cache
def paper_tables() -> dict:
    """Return the shipped tables as stored (`large_legal_fictions.json`): {"paper", "cell_format", "tables"}."""
    text = resources.files("lexprobe.hallucination.paper_figures").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def parse_cell(cell: str) -> tuple[float, float | None] | None:
    """Return (estimate, standard error or None) of a printed cell, None for a dash. Raises ValueError on any other
    text."""
    if cell.strip() == "-":
        return None
    match = _CELL.fullmatch(cell.strip())
    if not match:
        raise ValueError(f"not a printed estimate: {cell!r}")
    return float(match["value"]), float(match["se"]) if match["se"] else None


@cache
def paper_values() -> tuple[PaperValue, ...]:
    """Return every number pair the shipped tables print (dashes left out: the paper did not measure them)."""
    values = []
    for table in paper_tables()["tables"]:
        if table["id"] == "appendix-4":
            values.extend(_pooled_values(table))
            continue
        models = table["models"]
        for row in table["rows"]:
            footnote = row["footnote"] or {}
            for index, cell in enumerate(row["cells"]):
                parsed = parse_cell(cell)
                if parsed is None:
                    continue
                column = table["columns"][index // len(models)]
                model = models[index % len(models)]
                values.append(PaperValue(
                    table_id=table["id"], table=table["table"], where=table["where"], quantity=table["quantity"],
                    task=row["task"], task_printed=row["task_printed"], level=column["level"],
                    column=f"{column['heading']} / {model}", model=model, prompt_style=row["prompt_style"],
                    prompt_printed=row["prompt_printed"], value=parsed[0], se=parsed[1],
                    n=footnote.get("n", column["n"]), window=footnote.get("window", column["window"]), printed=cell,
                ))  # fmt: skip
    return tuple(values)


def _pooled_values(table: dict) -> list[PaperValue]:
    """Appendix Table 4: one row per LLM, unscaled and scaled pooled ECE, no s.e., n or window printed."""
    values = []
    for row in table["rows"]:
        for column, cell in zip(table["columns"], row["cells"], strict=True):
            parsed = parse_cell(cell)
            if parsed is None:
                continue
            values.append(PaperValue(
                table_id=table["id"], table=table["table"], where=table["where"], quantity=column["quantity"],
                task="pooled", task_printed="(all tasks pooled)", level=None, column=column["heading"],
                model=row["model"], prompt_style=None, prompt_printed="", value=parsed[0], se=parsed[1], n=None,
                window=None, printed=cell,
            ))  # fmt: skip
    return values
