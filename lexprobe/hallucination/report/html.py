"""`lexprobe hallucination report --html FILE`: one self-contained HTML page (figures embedded as SVG data URIs, no
scripts, nothing loaded from the network) with tables laid out like the study's Tables 3-7 and figures like its
Figures 1-8. Every table and figure states n, the estimator, and what is a lower bound.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from pathlib import Path

import lexprobe
from lexprobe.hallucination.paper_figures.html import estimate_text
from lexprobe.hallucination.profile.results import Unit
from lexprobe.hallucination.profile.stats import (
    BALANCED_TASKS,
    CIRCUIT_FIRST_YEAR,
    COMPLEXITY_ORDER,
    ERAS,
    LEVEL_ORDER,
    PROMPT_STYLE_TEXT,
)
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.coverage import dropped_text
from lexprobe.reporting.circuit_map import circuit_map
from lexprobe.reporting.figures import bar_chart, calibration_curve, line_chart, scatter_with_diagonal
from lexprobe.reporting.html import figure, write_report

LEVEL_NAMES = {"scotus": "SCOTUS", "coa": "USCOA", "district": "USDC"}
#: The last sentence of every caption with error bars.
_SE_NOTE = "Bars and whiskers: rate ± 1.96 s.e. (binomial), cut at 0% and 100%."
TABLE_GROUPS = (
    ("low", "Low complexity tasks (cf. Table 3)"),
    ("moderate", "Moderate complexity tasks (cf. Table 4)"),
    ("high", "High complexity tasks (cf. Table 5); reference-free rates are lower bounds"),
    ("false premise", "Contra-factual tasks (cf. Table 6)"),
)


def viewer_link(viewer_url: str, row: dict) -> str:
    """Return the address of the run viewer (`lexprobe view`) showing the answers behind one rate cell: its task,
    court level, prompt style and model as the list's filters (`viewer_url` is the viewer's root, e.g.
    "http://127.0.0.1:8765/", or a relative "../" from a page the viewer serves)."""
    from urllib.parse import urlencode

    query = urlencode({"task": row["task"], "level": row["level"], "style": row["prompt_style"], "model": row["model"]})
    return f"{viewer_url.rstrip('/')}/hallucination/?{query}" if viewer_url else ""


def _cell_link(viewer_url: str, row: dict | None) -> str:
    return viewer_link(viewer_url, row) if viewer_url and row is not None else ""


def rate_tables(
    rates: list[dict], models: list[str], self_judged: Collection[str] = (), viewer_url: str = ""
) -> list[dict]:
    """Return the study-style tables: per complexity class, rows task x prompt, columns level x model; a
    reference-free cell of a model in `self_judged` (it judged its own pairs) is marked; with `viewer_url` each
    cell links to its answers in the run viewer (`viewer_link`)."""
    tables = []
    for complexity, title in TABLE_GROUPS:
        rows = [row for row in rates if row["complexity"] == complexity]
        if not rows:
            continue
        levels = [level for level in LEVEL_ORDER if any(row["level"] == level for row in rows)]
        cells: dict[tuple[str, str], dict[tuple[str, str], dict]] = defaultdict(dict)
        for row in rows:
            cells[(row["task"], row["prompt_style"])][(row["level"], row["model"])] = row
        body = []
        for (task, style), by_column in cells.items():
            body.append(
                {
                    "task": task.replace("_", " ") + (" †" if TASKS.get(task) and TASKS[task].reference_free else ""),
                    "prompt": {"zero": "Zero-shot", "few": "Few-shot"}.get(style, style),
                    "task_id": task,
                    "style": style,
                    "cells": [
                        rate_cell(by_column.get((level, model)), self_judged=model in self_judged)
                        | {"href": _cell_link(viewer_url, by_column.get((level, model)))}
                        for level in levels
                        for model in models
                    ],
                }
            )
        tables.append(
            {"title": title, "levels": [LEVEL_NAMES.get(lv, lv) for lv in levels], "level_ids": levels, "body": body}
        )
    return tables


def rate_cell(row: dict | None, *, self_judged: bool = False) -> dict:
    """Return one cell of a rate table: the headline rate (s.e.) (the class-balanced rate of disposition and doctrinal
    agreement, named), the raw rate beside a balanced one, the strict rate, n, the unscored count, the note, and
    whether a reference-free rate is self-judged (`self_judged`: the row's model judged its own pairs)."""
    if row is None:
        return {"text": "–", "raw": "", "strict": "", "n": None, "unscored": 0, "note": "", "self_judged": False}
    balanced = row["task"] in BALANCED_TASKS
    headline = estimate_text(row["balanced_rate"], row["balanced_se"]) + " balanced" if balanced else ""
    return {
        "text": headline or estimate_text(row["rate"], row["se"]),
        "raw": estimate_text(row["rate"], row["se"]) if balanced else "",
        "strict": estimate_text(row["strict_rate"], row["strict_se"]) if row["strict_rate"] is not None else "",
        "n": row["n"],
        "unscored": row["unscored"],
        "note": row["note"],
        "self_judged": bool(self_judged and row["lower_bound"]),
    }


def _series(groups: list[dict], order: list[str], models: list[str]) -> tuple[dict, dict, dict]:
    index = {(g["model"], g["group"]): g for g in groups}
    rates = {m: [index[(m, o)]["rate"] if (m, o) in index else None for o in order] for m in models}
    errors = {m: [index[(m, o)]["se"] if (m, o) in index else None for o in order] for m in models}
    counts = {m: sum(index[(m, o)]["n"] for o in order if (m, o) in index) for m in models}
    return rates, errors, counts


def _n_text(counts: dict[str, int]) -> str:
    return "; ".join(f"{model}: n={n}" for model, n in counts.items())


def _rate_bars(
    rows: list[dict],
    order: list[str],
    labels: list[str],
    models: list[str],
    *,
    title: str,
    chart_title: str,
    lead: str,
    answers: str,
    note: str = "",
) -> dict:
    """A figure of the hallucination rate by group, one bar per model, its caption naming each model's n:
    "LEAD (n per model); ANSWERS. NOTE" and the error-bar note."""
    rates, errors, counts = _series(rows, order, models)
    return figure(
        title,
        lambda: bar_chart(labels, rates, errors, "Hallucination rate", chart_title, percent=True),
        f"{lead} ({_n_text(counts)}); {answers}. {note}{_SE_NOTE}",
    )


def _rate_figures(found: dict, models: list[str], answers: str) -> list[dict]:
    """The bar figures: by task complexity, by court level (cf. Figures 1, 2)."""
    result = []
    present = [c for c in COMPLEXITY_ORDER if any(g["group"] == c for g in found["complexity"])]
    if present:
        result.append(_rate_bars(
            found["complexity"], present, present, models, title="Hallucination rate by task complexity (cf. Figure 1)",
            chart_title="Rate by task complexity",
            lead="All true-premise tasks pooled except doctrinal agreement, as in the study", answers=answers,
            note="The high class includes reference-free tasks, whose rates are lower bounds. ",
        ))  # fmt: skip
    levels = [lv for lv in LEVEL_ORDER if any(g["group"] == lv for g in found["level"])]
    if levels:
        result.append(_rate_bars(
            found["level"], levels, [LEVEL_NAMES[lv] for lv in levels], models,
            title="Hallucination rate by court level (cf. Figure 2)", chart_title="Rate by court level",
            lead="Reference-based true-premise tasks pooled", answers=answers,
        ))  # fmt: skip
    return result


def _circuit_figure(found: dict, answers: str) -> dict:
    """The circuit map (cf. Figure 3), models pooled; a note instead of an all-grey map when no circuit has data."""
    pooled_circuits: dict[str, list[dict]] = defaultdict(list)
    for group in found["circuit"]:
        pooled_circuits[group["group"]].append(group)
    circuit_rates = {
        circuit: (
            sum(g["rate"] * g["n"] for g in groups) / sum(g["n"] for g in groups)
            if sum(g["n"] for g in groups)
            else None,
            sum(g["n"] for g in groups),
        )
        for circuit, groups in pooled_circuits.items()
    }
    circuit_title = "Hallucination rate by circuit (cf. Figure 3)"
    if all(rate is None for rate, _ in circuit_rates.values()):  # an all-grey map shows nothing: say why instead
        return {"title": circuit_title, "uri": None, "empty": True, "caption": "Not drawn: " + (
            "no scored answer about a Courts of Appeals case"
            + (" (this run asked no appeals-court questions)" if not circuit_rates else "")
            + f"; the map pools reference-based true-premise USCOA tasks on cases decided from {CIRCUIT_FIRST_YEAR}."
        )}  # fmt: skip
    return figure(
        circuit_title,
        lambda: circuit_map(circuit_rates, "Courts of Appeals: rate by circuit"),
        f"Reference-based true-premise USCOA tasks and models pooled, cases decided from {CIRCUIT_FIRST_YEAR} "
        f"(post-1981, as in the study) (n={sum(n for _, n in circuit_rates.values())}); {answers}; grey "
        "circuits have no scored answers.",
    )


def _time_figures(found: dict, models: list[str], answers: str) -> list[dict]:
    """The SCOTUS line figures: by case prominence and by decision year (cf. Figures 4, 5)."""
    result = []
    deciles = [f"{low}-{low + 10}" for low in range(0, 100, 10)]
    if found["prominence"]:
        rates, errors, counts = _series(found["prominence"], deciles, models)
        result.append(figure(
            "Hallucination rate by case prominence (cf. Figure 4)",
            lambda: line_chart([low + 5 for low in range(0, 100, 10)], rates, errors, "Prominence percentile "
                               "(decile midpoint)", "Hallucination rate", "SCOTUS: rate by prominence", percent=True),
            f"SCOTUS reference-based tasks pooled ({_n_text(counts)}); {answers}; prominence = the case's "
            f"citation-network authority percentile within the Supreme Court. {_SE_NOTE}",
        ))  # fmt: skip
    if found["decade"]:
        decades = sorted({g["group"] for g in found["decade"]})
        rates, errors, counts = _series(found["decade"], decades, models)
        xs = [int(d[:-1]) + 5 for d in decades]
        bands = [(start, end + 1, name) for name, start, end in ERAS if end >= xs[0] - 5 and start <= xs[-1] + 5]
        result.append(figure(
            "Hallucination rate by decision year (cf. Figure 5)",
            lambda: line_chart(xs, rates, errors, "Decision year (decade midpoint)", "Hallucination rate",
                               "SCOTUS: rate by decade", bands=bands[-6:], percent=True),
            f"SCOTUS reference-based tasks pooled ({_n_text(counts)}); {answers}; shaded bands are Chief Justice "
            f"eras. {_SE_NOTE}",
        ))  # fmt: skip
    return result


def _justice_figures(stats: dict, models: list[str]) -> list[dict]:
    """One justice-bias scatter per model with author answers (cf. Figure 6)."""
    result = []
    for model in models:
        points = [(row["justice"], float(row["true"]), float(row["named"]))
                  for row in stats["justice_bias"] if row["model"] == model]  # fmt: skip
        if points:
            total = int(sum(p[1] for p in points))
            result.append(figure(
                f"Justice bias: {model} (cf. Figure 6)",
                lambda points=points: scatter_with_diagonal(points, "True majority opinions in the sample",
                                                            "Times named as author", "Named vs true authors"),
                f"SCOTUS author questions (n={total}); points above the line are justices the model names more "
                "often than they wrote; answers naming no one on the roster are counted under the name given.",
            ))  # fmt: skip
    return result


def _late_figures(stats: dict, models: list[str], answers: str) -> list[dict]:
    """The contra-factual bars and the calibration curves (cf. Figures 7, 8)."""
    found, result = stats["breakdowns"], []
    if found["contra_factual"]:
        cells = sorted({g["group"] for g in found["contra_factual"]})
        result.append(_rate_bars(
            found["contra_factual"], cells, cells, models,
            title="Contra-factual (false-premise) hallucination rate (cf. Figure 7)", chart_title="False-premise tasks",
            lead="Answers accepting a false premise are hallucinations; rejecting it is correct", answers=answers,
        ))  # fmt: skip
    curves = stats["calibration_curves"]
    if curves:
        result.append(figure(
            "Calibration curves (cf. Figure 8)",
            lambda: calibration_curve(curves, "Calibration, calibrated tasks pooled"),
            f"Equal-mass bins of confidence (share of K samples at temperature 1 agreeing with the greedy answer) "
            f"against the share of greedy answers that are correct, true-premise reference-based tasks pooled "
            f"({'; '.join(f'{m}: n={sum(b[2] for b in c)}' for m, c in curves.items())}); {answers}.",
        ))  # fmt: skip
    return result


def figures(stats: dict, models: list[str]) -> list[dict]:
    """Return the figures of the report (cf. the study's Figures 1-8), each with a caption naming n and the
    estimator; a figure with no data at all (the circuit map of a run without appeals-court answers) comes back
    with `empty` set, no image and a one-line reason instead."""
    found = stats["breakdowns"]
    answers = PROMPT_STYLE_TEXT[stats["estimators"]["prompt_style"]] + " (--prompt-style)"
    return [
        *_rate_figures(found, models, answers),
        _circuit_figure(found, answers),
        *_time_figures(found, models, answers),
        *_justice_figures(stats, models),
        *_late_figures(stats, models, answers),
    ]


def coverage_rows(coverage: list[dict]) -> list[dict]:
    """Return the rows of the sample-coverage table: per model, task and level, the sampled cases, the cases the
    task could use and why it dropped the others (`hallucination/tasks/coverage.py`)."""
    return [
        {
            "model": row.get("model", ""),
            "task": row["task"].replace("_", " "),
            "level": LEVEL_NAMES.get(row["level"], row["level"]),
            "sampled": "–" if row.get("sampled") is None else row["sampled"],
            "usable": row["usable"],
            "dropped": dropped_text(row),
        }
        for row in coverage
    ]


def summary_cards(names: list[str], stats: dict, units: list[Unit]) -> list[dict]:
    """Return one headline card per model: the pooled rate (s.e.) and n, the pooled ECE both ways, and the unscored
    and pending answers."""
    pooled = {g["model"]: g for g in stats["breakdowns"]["model"]}
    ece = {row["model"]: row for row in stats["calibration"] if row["task"] == "pooled"}
    return [
        {
            "model": name,
            "rate": estimate_text(pooled[name]["rate"], pooled[name]["se"]) if name in pooled else "–",
            "n": pooled[name]["n"] if name in pooled else 0,
            "ece_width": estimate_text(ece[name]["ece_width"], ece[name]["ece_width_se"]) if name in ece else "–",
            "ece_mass": estimate_text(ece[name]["ece_mass_debiased"], ece[name]["ece_mass_debiased_se"])
            if name in ece
            else "–",
            "ece_n": ece[name]["n"] if name in ece else 0,
            "unscored": sum(u.label == "unscored" for u in units if u.model == name),
            "pending": sum(u.label is None for u in units if u.model == name),
        }
        for name in names
    ]


def write_html_report(
    path: Path,
    models: list[dict],
    stats: dict,
    units: list[Unit],
    investigation: list[dict] | None = None,
    coverage: list[dict] | None = None,
    viewer_url: str = "",
    paper: dict | None = None,
    investigation_notes: list[str] | None = None,
) -> None:
    """Write the report page to `path` (parent folders created); `investigation`, the rows of the demo's
    investigation table (`lexprobe.demo.investigation_rows`), adds the demo's investigation section;
    `coverage` (rows of `coverage.Coverage` with their model) adds the sample-coverage table; `viewer_url` (the run
    viewer's root) links every rate cell to the answers behind it (`viewer_link`); `paper`, the block of
    `lexprobe.hallucination.paper_figures.compare.paper_comparison`, adds the paper's estimates (grey columns, a
    comparison table, reference marks in a figure, the paper's tables). Raises OSError when the file cannot be
    written."""
    from lexprobe.hallucination.paper_figures.html import add_paper_columns, comparison_figure, paper_view

    names = [model["model"] for model in models]
    marked = comparison_figure(paper) if paper else None
    self_judged = {m["model"] for m in models if m.get("self_judged")}
    write_report(
        path,
        "lexprobe.hallucination:report.html.j2",
        version=lexprobe.__version__,
        models=models,
        summary=summary_cards(names, stats, units),
        tables=add_paper_columns(rate_tables(stats["rates"], names, self_judged, viewer_url=viewer_url), paper),
        paper=paper_view(paper),
        model_names=names,
        balanced=[row for row in stats["rates"] if row["task"] in BALANCED_TASKS],
        calibration=stats["calibration"],
        figures=figures(stats, names) + ([marked] if marked else []),
        estimators=stats["estimators"],
        investigation=list(investigation or []),
        investigation_notes=list(investigation_notes or []),
        coverage=coverage_rows(coverage or []),
        fmt=estimate_text,
    )
