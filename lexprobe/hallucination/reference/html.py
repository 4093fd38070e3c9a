"""The paper's published estimates in the HTML report (`write_html_report(..., reference=...)`): grey columns beside
the user's models in the rate tables, a comparison table with the difference, the test and the design notes, a
figure marking the paper's four models beside each user rate, and the paper's tables in full."""

from __future__ import annotations

from lexprobe.reporting.figures import INK, MUTED, figure_to_data_uri, new_figure

#: Marker of each paper model in the comparison figure (grey: the reference, never a user's colour).
PAPER_MARKERS = {"GPT 4": "s", "GPT 3.5": "^", "PaLM 2": "D", "Llama 2": "v"}
GREY_SHADES = {"GPT 4": "#555555", "GPT 3.5": "#7a7a7a", "PaLM 2": "#999999", "Llama 2": "#b5b5b5"}


def _index(reference: dict) -> dict[tuple, dict]:
    return {(v["quantity"], v["task"], v["level"], v["prompt_style"], v["model"]): v for v in reference["values"]}


def add_reference_columns(tables: list[dict], reference: dict | None) -> list[dict]:
    """Give each rate table (`html_report.rate_tables`) the paper's hallucination rate for each row, level and
    paper model as `paper_cells` (grey columns after the user's models of each level), and `paper_models`. Without
    a reference the tables get empty lists, so the page is today's."""
    index = _index(reference) if reference else {}
    names = reference["models"] if reference else []
    for table in tables:
        table["paper_models"] = names
        for row in table["body"]:
            cells = []
            for level in table["level_ids"]:
                for name in names:
                    value = index.get(("hallucination_rate", row["task_id"], level, row["style"], name))
                    cells.append({"level": level, "text": value["printed"] if value else "–",
                                  "title": _where(value) if value else "the paper prints no value here"})  # fmt: skip
            row["paper_cells"] = cells
    return tables


def _where(value: dict) -> str:
    window = f"; {value['window']}" if value["window"] else ""
    n = f"; n={value['n']}" if value["n"] else ""
    return f"{value['table']}, {value['task_printed']} {value['prompt_printed']}, {value['column']}{n}{window}"


def comparison_rows(reference: dict) -> list[dict]:
    """Return the rows of the comparison table: user estimate, paper value and where it is printed, the difference
    (yours - paper), the test, and what differs in the design."""
    rows = []
    for c in reference["comparisons"]:
        yours, paper = c["yours"], c["paper"]
        rows.append({
            "model": c["model"], "quantity": reference["quantities"].get(c["quantity"], c["quantity"]),
            "task": c["task"].replace("_", " "), "level": c["level"] or "–", "style": c["prompt_style"] or "–",
            "yours": _value(yours["value"], yours["se"]), "n": yours["n"], "paper_model": paper["model"],
            "paper": paper["printed"], "where": _where(paper), "difference": f"{c['difference']:+.3f}",
            "test": c["test"], "design": c["design"],
        })  # fmt: skip
    return rows


def _value(value: float | None, se: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if se is None else f"{value:.3f} ({se:.3f})"


def paper_table_views(reference: dict) -> list[dict]:
    """Return every shipped table of the paper for the report's appendix: title, where printed, headings, rows."""
    by_table: dict[str, list[dict]] = {}
    for value in reference["values"]:
        by_table.setdefault(value["table_id"], []).append(value)
    views = []
    for table in reference["tables"]:
        values = by_table.get(table["id"], [])
        columns = list(dict.fromkeys(v["column"] for v in values))
        rows: dict[tuple, dict[str, str]] = {}
        for v in values:
            rows.setdefault((v["task_printed"], v["prompt_printed"]), {})[v["column"]] = v["printed"]
        views.append({
            "title": f"{table['table']}: {table['title']}", "where": table["where"], "note": table["note"],
            "columns": columns,
            "rows": [{"task": task, "prompt": prompt, "cells": [cells.get(col, "–") for col in columns]}
                     for (task, prompt), cells in rows.items()],
        })  # fmt: skip
    return views


def _label(text: str) -> str:
    return text.replace("$", r"\$")  # matplotlib would read "$...$" in a (hostile) model name as mathtext


def comparison_figure(reference: dict) -> dict | None:
    """Return the report figure of the user's hallucination rates (dots, ±1.96 s.e.) with the paper's four models
    as grey reference marks on each row, or None when no rate of the user's has a paper counterpart."""
    rates = [c for c in reference["comparisons"] if c["quantity"] == "hallucination_rate"]
    if not rates:
        return None
    rows: dict[tuple, list[dict]] = {}
    for c in rates:
        rows.setdefault((c["model"], c["task"], c["level"], c["prompt_style"]), []).append(c)
    title = "Your hallucination rates beside the paper's (reference marks)"
    fig, ax = new_figure(7.5, 1.2 + 0.32 * len(rows))
    labels = []
    for y, ((model, task, level, style), group) in enumerate(rows.items()):
        yours = group[0]["yours"]
        spread = 1.96 * (yours["se"] or 0)
        low, high = max(0.0, yours["value"] - spread), min(1.0, yours["value"] + spread)
        ax.errorbar([yours["value"]], [y], xerr=[[yours["value"] - low], [high - yours["value"]]], fmt="o",
                    color=INK, markersize=5, capsize=2, label="yours (±1.96 s.e.)" if y == 0 else None)  # fmt: skip
        for c in group:
            name = c["paper"]["model"]
            ax.plot([c["paper"]["value"]], [y], PAPER_MARKERS.get(name, "x"), color=GREY_SHADES.get(name, MUTED),
                    markersize=6, alpha=0.9, label=f"{name} (paper)" if y == 0 else None)  # fmt: skip
        labels.append(_label(f"{task.replace('_', ' ')} / {level} / {style} · {model}"))
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlim(-0.02, 1.02)
    ax.invert_yaxis()
    ax.set_xlabel("Hallucination rate", fontsize=9)
    ax.legend(fontsize=7, loc="lower right", frameon=False)
    caption = (
        f"Each row is one of your rates (dot, ±1.96 s.e.); grey marks are the paper's GPT 4, GPT 3.5, PaLM 2 and "
        f"Llama 2 for the same task, court level and prompt style (its Tables 3-6 and Appendix Table 5). "
        f"{reference['rate_kind']} The designs differ (sample, date window, data source, judge): see the "
        "comparison table."
    )
    try:
        uri = figure_to_data_uri(fig, "svg")
    except ValueError as exc:
        return {"title": title, "uri": None, "caption": f"{caption} Not drawn: {exc}", "empty": False}
    return {"title": title, "uri": uri, "caption": caption, "empty": False}


def reference_view(reference: dict | None) -> dict | None:
    """Return what the report template needs of a `reference` block, None without one."""
    if not reference:
        return None
    return {
        "paper": reference["paper"],
        "models": reference["models"],
        "rate_kind": reference["rate_kind"],
        "judge": reference["judge"],
        "data_source": reference["data_source"],
        "comparisons": comparison_rows(reference),
        "tables": paper_table_views(reference),
        "values": len(reference["values"]),
    }
