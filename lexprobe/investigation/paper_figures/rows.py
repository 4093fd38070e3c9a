"""The InvestigationWorlds reference rows: every number the paper's Section 4 text (and the investigation budget
of its Appendix A) prints, typed by hand into `investigation_worlds.json`, each with where it is printed, the exact
words it is printed in, and the paper's sample. `tests/test_reference_iw_paper.py` checks them against the
paper's text. Values are as printed: percentages (33.3 means 33.3%), percentage points, counts."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources

DATA_FILE = "investigation_worlds.json"


@dataclass(frozen=True)
class PaperRow:
    """One printed number of the paper. `kind`: model (one model's value), baseline (a naive policy), pool (all
    six models together), range (a printed range: `low`-`high`, no single value) or design (a sample size or a
    corpus composition). `successes`/`trials`: the counts when the paper prints them."""

    id: str
    section: str
    where: str
    metric: str
    subject: str
    kind: str
    printed: str
    unit: str
    sample: str
    quote: str
    value: float | None = None
    low: float | None = None
    high: float | None = None
    successes: int | None = None
    trials: int | None = None
    n_cases: int | None = None
    level: str | None = None
    level_a: str | None = None
    level_b: str | None = None
    generator: str | None = None
    ci: tuple[float, float] | None = None
    ci_level: int | None = None
    ci_excludes_zero: bool | None = None
    significant: bool | None = None
    approximate: bool = False
    a: float | None = None
    b: float | None = None
    models: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        """The row as JSON-ready data, fields that are not set left out."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()
                if v is not None and v != () and not (k == "approximate" and not v)}  # fmt: skip

    def shown(self) -> str:
        """The value as a reader sees it, in the paper's digits: "33.3%", "29/87 (33.3%)", "3–6%", "-22 points"."""
        if self.kind == "range":
            return self.printed if self.unit == "%" else f"{self.printed} {self.unit}"
        if self.unit == "%":
            return f"{self.successes}/{self.trials} ({_number(self.value)}%)" if self.trials else self.printed
        if self.unit == "points":
            return f"{self.value:+g} points"
        if self.unit == "rho":
            return self.printed
        return f"{_number(self.value)} {self.unit}"


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


@dataclass(frozen=True)
class PaperFigures:
    """The shipped data: the paper's title, its text file's name, what is covered, what is not, the rows."""

    paper: str
    file: str
    covered: tuple[str, ...]
    not_printed: str
    rows: tuple[PaperRow, ...]

    def by_id(self, row_id: str) -> PaperRow:
        """The row named `row_id` (KeyError when there is none)."""
        for row in self.rows:
            if row.id == row_id:
                return row
        raise KeyError(row_id)


@cache
def load_paper_figures() -> PaperFigures:
    """Read the shipped InvestigationWorlds rows (package data)."""
    raw = json.loads(resources.files(__package__).joinpath(DATA_FILE).read_text(encoding="utf-8"))
    rows = []
    for item in raw["rows"]:
        item = dict(item)
        if "ci" in item:
            item["ci"] = tuple(item["ci"])
        item["models"] = tuple(item.get("models", ()))
        rows.append(PaperRow(**item))
    return PaperFigures(raw["paper"], raw["file"], tuple(raw["covered"]), raw["not_printed"], tuple(rows))
