"""The paper's published estimates in the HTML report (`write_html_report(..., reference=...)`): grey columns beside
the user's models in the rate tables, a comparison table with the difference, the test and the design notes, a
figure marking the paper's four models beside each user rate, and the paper's tables in full."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lexprobe.reporting.figures import MUTED, PALETTE, apply_house_style
from lexprobe.reporting.html import figure

#: Marker of each paper model in the comparison figure (grey: the reference, never a user's colour).
PAPER_MARKERS = {"GPT 4": "s", "GPT 3.5": "^", "PaLM 2": "D", "Llama 2": "v"}
YOURS = "yours (±1.96 s.e.)"
GREY_SHADES = {"GPT 4": "#555555", "GPT 3.5": "#7a7a7a", "PaLM 2": "#999999", "Llama 2": "#b5b5b5"}


def _index(paper: dict) -> dict[tuple, dict]:
    return {(v["quantity"], v["task"], v["level"], v["prompt_style"], v["model"]): v for v in paper["values"]}


def add_paper_columns(tables: list[dict], paper: dict | None) -> list[dict]:
    """Give each rate table (`html_report.rate_tables`) one grey column per court level after the user's models:
    `paper_cells`, per row and level the paper's hallucination rate of each of its four models ({"model", "text",
    "title"}: where it is printed), and `paper_models`. Without the paper's block the tables get empty lists, so
    the page is today's."""
    index = _index(paper) if paper else {}
    names = paper["models"] if paper else []
    for table in tables:
        table["paper_models"] = names
        for row in table["body"]:
            cells = []
            for level in table["level_ids"] if names else ():
                found = [(name, index.get(("hallucination_rate", row["task_id"], level, row["style"], name)))
                         for name in names]  # fmt: skip
                cells.append([{"model": name, "text": value["printed"], "title": _where(value)}
                              for name, value in found if value])  # fmt: skip
            row["paper_cells"] = cells
    return tables


def _where(value: dict) -> str:
    window = f"; {value['window']}" if value["window"] else ""
    n = f"; n={value['n']}" if value["n"] else ""
    return f"{value['table']}, {value['task_printed']} {value['prompt_printed']}, {value['column']}{n}{window}"


def comparison_rows(paper: dict) -> list[dict]:
    """Return the rows of the comparison table, one per user estimate: what it measures, the user's value, each
    paper model's value with the difference (yours - paper) and the test, where the paper prints them, and what
    differs in the design."""
    grouped: dict[tuple, list[dict]] = {}
    for c in paper["comparisons"]:
        grouped.setdefault((c["model"], c["quantity"], c["task"], c["level"], c["prompt_style"]), []).append(c)
    rows = []
    for (model, quantity, task, level, style), group in grouped.items():
        yours, first = group[0]["yours"], group[0]["paper"]
        what = f"{paper['quantities'].get(quantity, quantity)}: {task.replace('_', ' ')}"
        rows.append({
            "model": model, "what": what, "level": level or "–", "style": style or "–",
            "yours": estimate_text(yours["value"], yours["se"]), "n": yours["n"],
            "paper": [{"model": c["paper"]["model"], "printed": c["paper"]["printed"],
                       "difference": f"{c['difference']:+.3f}", "test": c["test"]} for c in group],
            "where": _where(first).replace(f" / {first['model']}", ""), "design": group[0]["design"],
        })  # fmt: skip
    return rows


def estimate_text(value: float | None, se: float | None = None) -> str:
    """Return an estimate as a report prints it: "0.125", with its s.e. "0.125 (0.010)", "–" for none."""
    if value is None:
        return "–"
    return f"{value:.3f}" if se is None else f"{value:.3f} ({se:.3f})"


def paper_table_views(paper: dict) -> list[dict]:
    """Return every shipped table of the paper for the report's appendix: title, where printed, note, column groups
    (a court level's heading over its models) and rows (task and prompt, or the LLM of Appendix Table 4) whose
    cells hold the estimate and its standard error apart, so the 12 columns fit the page."""
    by_table: dict[str, list[dict]] = {}
    for value in paper["values"]:
        by_table.setdefault(value["table_id"], []).append(value)
    views = []
    for table in paper["tables"]:
        values = by_table.get(table["id"], [])
        columns = list(dict.fromkeys(_column_of(v) for v in values))
        rows: dict[tuple, dict[tuple, dict]] = {}
        for v in values:
            value, _, se = v["printed"].partition(" ")
            rows.setdefault(_row_of(v), {})[_column_of(v)] = {"value": value, "se": se}
        groups = [{"heading": heading, "models": [sub for head, sub in columns if head == heading]}
                  for heading in dict.fromkeys(head for head, _ in columns)]  # fmt: skip
        views.append({
            "title": f"{table['table']}: {table['title']}", "where": table["where"], "note": table["note"],
            "groups": groups,
            "rows": [{"task": task, "prompt": prompt,
                      "cells": [cells.get(column, {"value": "–", "se": ""}) for column in columns]}
                     for (task, prompt), cells in rows.items()],
        })  # fmt: skip
    return views


def _column_of(value: dict) -> tuple[str, str]:
    """(group heading, column) of a value: the court level's heading and the paper model, or ("", the printed
    column) for Appendix Table 4."""
    if value["level"] is None:
        return ("", value["column"])
    return (value["column"].rsplit(" / ", 1)[0], value["model"])


def _row_of(value: dict) -> tuple[str, str]:
    return (value["model"], "") if value["level"] is None else (value["task_printed"], value["prompt_printed"])


def _label(text: str) -> str:
    return text.replace("$", r"\$")  # matplotlib would read "$...$" in a (hostile) model name as mathtext


def _comparison_chart(rows: dict[tuple, list[dict]]) -> Figure:
    """The user's rates (dots, ±1.96 s.e.), one row each, with the paper's models as grey marks."""
    height = 1.6 + 0.32 * len(rows)
    fig = Figure(figsize=(8.5, height), dpi=100, facecolor="white")  # fixed margins: long row labels stay whole
    FigureCanvasAgg(fig)
    fig.subplots_adjust(left=0.4, right=0.98, top=1 - 0.45 / height, bottom=0.55 / height)
    ax = fig.add_subplot()
    apply_house_style(ax)
    labels = []
    for y, ((model, task, level, style), group) in enumerate(rows.items()):
        yours = group[0]["yours"]
        spread = 1.96 * (yours["se"] or 0)
        low, high = max(0.0, yours["value"] - spread), min(1.0, yours["value"] + spread)
        ax.errorbar([yours["value"]], [y], xerr=[[yours["value"] - low], [high - yours["value"]]], fmt="o",
                    color=PALETTE[0], markersize=5, capsize=2, zorder=3, label=None if y else YOURS)  # fmt: skip
        for c in group:
            name = c["paper"]["model"]
            ax.plot([c["paper"]["value"]], [y], PAPER_MARKERS.get(name, "x"), color=GREY_SHADES.get(name, MUTED),
                    markersize=6, alpha=0.9, label=f"{name} (paper)" if y == 0 else None)  # fmt: skip
        short = model if len(model) <= 24 else f"…{model[-23:]}"
        labels.append(_label(f"{task.replace('_', ' ')} / {level} / {style} · {short}"))
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlim(-0.02, 1.02)
    ax.invert_yaxis()
    ax.set_xlabel("Hallucination rate", fontsize=9)
    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="upper center", ncol=5, frameon=False)
    return fig


def comparison_figure(paper: dict) -> dict | None:
    """Return the report figure of the user's hallucination rates (dots, ±1.96 s.e.) with the paper's four models
    as grey reference marks on each row, or None when no rate of the user's has a paper counterpart."""
    rates = [c for c in paper["comparisons"] if c["quantity"] == "hallucination_rate"]
    if not rates:
        return None
    rows: dict[tuple, list[dict]] = {}
    for c in rates:
        rows.setdefault((c["model"], c["task"], c["level"], c["prompt_style"]), []).append(c)
    caption = (
        f"Each row is one of your rates (dot, ±1.96 s.e.); grey marks are the paper's GPT 4, GPT 3.5, PaLM 2 and "
        f"Llama 2 for the same task, court level and prompt style (its Tables 3-6 and Appendix Table 5). "
        f"{paper['rate_kind']} The designs differ (sample, date window, data source, judge): see the "
        "comparison table."
    )
    title = "Your hallucination rates beside the paper's (reference marks)"
    return figure(title, lambda: _comparison_chart(rows), caption)


def paper_view(paper: dict | None) -> dict | None:
    """Return what the report template needs of a `reference` block, None without one."""
    if not paper:
        return None
    return {
        "paper": paper["paper"],
        "models": paper["models"],
        "rate_kind": paper["rate_kind"],
        "judge": paper["judge"],
        "data_source": paper["data_source"],
        "comparisons": comparison_rows(paper),
        "tables": paper_table_views(paper),
        "value_count": len(paper["values"]),
    }
