"""The terminal tables of `lexprobe hallucination` (and of `lexprobe demo`): rate tables with their footnote and
notes, the side-by-side table of several runs, the breakdowns and calibration table, sample coverage."""

from __future__ import annotations

from lexprobe.cli.output import err, new_table, out, wide
from lexprobe.hallucination.profile.stats import BALANCED_TASKS, SINGLE_CLASS_NOTE
from lexprobe.hallucination.report.summary import ReportRow
from lexprobe.hallucination.run.runner import SELF_JUDGED
from lexprobe.hallucination.tasks import TASKS, task_names
from lexprobe.hallucination.tasks.coverage import dropped_text
from lexprobe.reporting.numbers import fixed, rate_se
from lexprobe.terminal import safe_markup, safe_text

__all__ = [
    "headline_cell",
    "print_coverage",
    "print_notes",
    "print_readers",
    "print_reference",
    "print_report",
    "print_side_by_side",
    "print_skipped",
    "print_statistics",
    "rate_footnote",
    "side_by_side_cell",
]


def rate_footnote() -> str:
    """Return the footnote under every rate table: what each rate column is."""
    return (
        "rate (s.e.) = hallucinations / scored answers (abstentions count as non-hallucinations; unscored answers, "
        "count and share in their column, left out of n); s.e. = sqrt(p(1-p)/n). For disposition and doctrinal "
        "agreement the headline rate is the class-balanced rate, marked 'balanced' (mean of the per-class rates, "
        "class = the true answer; s.e. = sqrt(sum p_c(1-p_c)/n_c) / C), with the raw rate beside it. strict (s.e.) = "
        "the study's Eq. 1 as written: unscored answers counted as hallucinations (answers without a reference left "
        f"out). Reference-free tasks ({task_names(lambda t: t.reference_free).replace('_', ' ')}) count "
        "contradictions between two samples found by the judge: their rates are lower bounds."
    )


def _cells(*values: object) -> list[str]:
    """Table cells of values read from runs (model specs, notes, group names): control and bidi characters shown as
    escapes, Rich markup escaped (`safe_markup`)."""
    return [safe_markup(str(value)) for value in values]


def headline_cell(rate: float | None, se: float | None, name: str) -> str:
    """Return a headline rate cell, "0.500 (0.020) balanced" for a class-balanced rate."""
    return rate_se(rate, se) + (" balanced" if name == "balanced" and rate is not None else "")


def print_report(model: str, rows: list[ReportRow], *, self_judged: bool = False) -> None:
    """Print the rate table (`self_judged`: the model judged its own reference-free pairs, marked on their rows):
    headline rate (balanced where the task has one) with the raw rate beside it, strict rate, abstentions, unscored
    and pending answers, and the row's note."""
    columns = ("task", "level", "prompt", "n", "rate (s.e.)", "raw rate (s.e.)", "strict (s.e.)", "abstain",
               "unscored", "pending", "note")  # fmt: skip
    left = ("task", "level", "prompt", "note")
    table = new_table(f"hallucination rates: {safe_markup(model)}", columns, left, ("note",), no_wrap=True)
    for row in rows:
        headline = row.headline
        raw = rate_se(row.rate, row.se) if headline[2] == "balanced" else ""
        abstain = "-" if row.abstain_rate is None else f"{row.abstain_rate:.3f}"
        asked = row.n + row.unscored
        unscored = f"{row.unscored} ({row.unscored / asked:.0%})" if row.unscored else "0"
        task = row.task + (f" ({SELF_JUDGED})" if self_judged and TASKS.get(row.task) and
                           TASKS[row.task].reference_free else "")  # fmt: skip
        strict = rate_se(row.strict_rate, row.strict_se)
        table.add_row(*_cells(task, row.level, row.prompt_style, row.n, headline_cell(*headline), raw, strict,
                              abstain, unscored, row.pending, row.note))  # fmt: skip
    console = wide(180)
    console.print(table)
    out.print(rate_footnote(), highlight=False, soft_wrap=True)
    print_notes([(row.task, row.note) for row in rows])


def print_notes(notes: list[tuple[str, str]]) -> None:
    """Print each task's row note once, unwrapped, under a rate table (the table may wrap the note column)."""
    for task, note in dict.fromkeys((task, note) for task, note in notes if note):
        why = " (its items have one class, so its balanced rate is its raw rate)" if note == SINGLE_CLASS_NOTE else ""
        out.print(f"note: {safe_markup(task)}: {safe_markup(note)}{why}", highlight=False, soft_wrap=True, emoji=False)


def print_skipped(skipped: list[tuple[str, str, str, str]]) -> None:
    """Say on stderr which task x level x style combinations were not asked, and why (one line each).

    Combinations the study never defines (a few-shot variant of a zero-shot-only task) are left out.
    """
    for task, level, style, reason in skipped:
        if "-shot template" not in reason:
            err.print(f"[dim]skipped {task} / {level} / {style}: {reason}[/]", highlight=False, soft_wrap=True)


def print_coverage(coverage: list[dict]) -> None:
    """Print, per task and level, how many sampled cases the task could use and why it dropped the others."""
    if not coverage:
        return
    several = len({row.get("model") for row in coverage}) > 1
    columns = (*(("model",) if several else ()), "task", "level", "sampled", "usable", "dropped (why)")
    table = new_table(
        "sample coverage: sampled cases each task could use", columns, plain=("dropped (why)",), no_wrap=True
    )
    for row in coverage:
        sampled = "-" if row["sampled"] is None else str(row["sampled"])
        cells = (row["task"], row["level"], sampled, str(row["usable"]), dropped_text(row))
        table.add_row(*_cells(*((row.get("model"),) if several else ()), *cells))
    console = wide(132)
    console.print(table)


def print_readers(readers: list[dict], *, with_model: bool = False) -> None:
    """Print how many answers each `--reader` model read (`report.readings.reader_counts` rows), one line each;
    nothing when no reader read any answer."""
    from lexprobe.hallucination.report.readings import reader_line

    for row in readers:
        out.print(safe_text(reader_line(row, with_model=with_model)), highlight=False, markup=False, soft_wrap=True)


def print_side_by_side(rates: list[dict], models: list[str]) -> None:
    """Print one rate table with a column per model (the layout of the study's Tables 3-6)."""
    table = new_table(
        "hallucination rates, models side by side: rate (s.e.) [n]; strict (s.e.)",
        map(safe_markup, ("task", "level", "prompt", *models)),
        no_wrap=True,
    )
    cells: dict[tuple[str, str, str], dict[str, str]] = {}
    for row in rates:
        key = (row["task"] + (" (lower bound)" if row["lower_bound"] else ""), row["level"], row["prompt_style"])
        judged = f" {SELF_JUDGED}" if row.get("self_judged") else ""
        cells.setdefault(key, {})[row["model"]] = side_by_side_cell(row) + judged
    for (task, level, style), by_model in cells.items():
        table.add_row(*_cells(task, level, style, *(by_model.get(model, "-") for model in models)))
    console = wide(160)
    console.print(table)
    out.print(rate_footnote(), highlight=False, soft_wrap=True)
    print_notes([(row["task"], row["note"]) for row in rates])


def side_by_side_cell(row: dict) -> str:
    """Return one model's cell of the side-by-side table: headline rate (s.e.) [n] (balanced where the task has
    one, then the raw rate), the strict rate, and the row's note."""
    balanced = row["task"] in BALANCED_TASKS
    headline = (row["balanced_rate"], row["balanced_se"], "balanced") if balanced else (row["rate"], row["se"], "rate")
    parts = [f"{headline_cell(*headline)} [{row['n']}]"]
    if balanced:
        parts.append(f"raw {rate_se(row['rate'], row['se'])}")
    if row["strict_rate"] is not None:
        parts.append(f"strict {rate_se(row['strict_rate'], row['strict_se'])}")
    return "; ".join(parts + ([row["note"]] if row["note"] else []))


def print_statistics(stats: dict) -> None:
    """Print balanced rates, the main breakdowns and the calibration table."""
    console = wide(160)
    balanced = [row for row in stats["rates"] if row["task"] in BALANCED_TASKS]
    if balanced:
        columns = ("model", "task", "level", "prompt", "n", "balanced (s.e.)", "raw rate (s.e.)", "note")
        title = "class-balanced rates (the headline of these tasks): mean of per-class rates (s.e.)"
        table = new_table(title, columns, plain=("note",), no_wrap=True)
        for row in balanced:
            table.add_row(*_cells(row["model"], row["task"], row["level"], row["prompt_style"], row["n"],
                                  rate_se(row["balanced_rate"], row["balanced_se"]), rate_se(row["rate"], row["se"]),
                                  row["note"]))  # fmt: skip
        console.print(table)
    style = stats["estimators"]["prompt_style"]
    for name, title in (("level", "by court level"), ("complexity", "by task complexity"),
                        ("contra_factual", "contra-factual (false-premise) tasks")):  # fmt: skip
        groups = stats["breakdowns"][name]
        if not groups:
            continue
        table = new_table(
            f"{title}, {style} answers (--prompt-style): rate (s.e.) [n]", ("model", "group", "rate"), no_wrap=True
        )
        for group in groups:
            table.add_row(
                *_cells(group["model"], group["group"], f"{rate_se(group['rate'], group['se'])} [{group['n']}]")
            )
        console.print(table)
    rows = stats["calibration"]
    if rows:
        columns = ("model", "task", "level", "prompt", "n", "conf", "acc", "ECE width/plug-in", "ECE mass/debiased",
                   "Platt ECE width", "Platt ECE mass")  # fmt: skip
        table = new_table("expected calibration error: (s.e.) bootstrap", columns, no_wrap=True)
        for row in rows:
            table.add_row(
                *_cells(row["model"], row["task"], row["level"], row["prompt_style"], row["n"]),
                fixed(row["mean_confidence"]), fixed(row["accuracy"]),
                rate_se(row["ece_width"], row["ece_width_se"]),
                rate_se(row["ece_mass_debiased"], row["ece_mass_debiased_se"]),
                fixed(row["platt_ece_width"]), fixed(row["platt_ece_mass_debiased"]),
            )  # fmt: skip
        console.print(table)
        out.print(
            f"ECE: {stats['estimators']['ece_width']}; {stats['estimators']['ece_mass_debiased']}; "
            f"{stats['estimators']['bins']} bins; {stats['estimators']['platt']}. Confidence = share of K samples at "
            "temperature 1 agreeing with the greedy answer; the debiased estimator can fall below 0 on small n. "
            f"Pooled rows: {stats['estimators']['pooled']}.",
            highlight=False,
            soft_wrap=True,
        )


def reference_cell(comparison: dict) -> str:
    """Return one paper model's cell beside a user's row, on three lines: the paper's value (s.e.), the difference
    (yours - paper) and the two-sided z-test (or why there is none)."""
    return f"{comparison['paper']['printed']}\nd={comparison['difference']:+.3f}\n{comparison['test']}"


def print_reference(reference: dict) -> None:
    """Print the paper's published estimates beside the user's rows (`hallucination report --reference paper`): per
    model, one row per estimate the paper has a counterpart for, a column per paper model, then what differs in
    the design of each comparison."""
    comparisons = reference["comparisons"]
    paper = reference["paper"]["title"]
    if not comparisons:
        out.print(f"reference: no row of yours measures a task, level and prompt style of {paper}; its "
                  f"{len(reference['values'])} values are in --json (reference.values) and --html.",
                  highlight=False, soft_wrap=True)  # fmt: skip
        return
    groups: dict[str, dict[tuple, list[dict]]] = {}
    for comparison in comparisons:
        key = tuple(comparison[k] for k in ("quantity", "task", "level", "prompt_style"))
        groups.setdefault(comparison["model"], {}).setdefault(key, []).append(comparison)
    notes = []
    for model, rows_of_model in groups.items():
        table = new_table(
            f"{safe_markup(model)} beside the paper ({paper}): paper value (s.e.), d = yours - paper, two-sided z-test",
            ("quantity", "task", "level", "prompt", "yours (s.e.) [n]", *reference["models"]),
            no_wrap=True,
        )
        for (quantity, task, level, style), rows in rows_of_model.items():
            yours = rows[0]["yours"]
            by_paper_model = {row["paper"]["model"]: reference_cell(row) for row in rows}
            label = (reference["quantities"].get(quantity, quantity), task, level or "-", style or "-")
            table.add_row(*label, f"{rate_se(yours['value'], yours['se'])} [{yours['n']}]",
                          *(by_paper_model.get(name, "-") for name in reference["models"]))  # fmt: skip
            first = rows[0]["paper"]
            where = f"{first['table']}, {first['task_printed']} {first['prompt_printed']}".strip()
            notes.append(f"{model} / {' / '.join(label)} ({where}): {'; '.join(rows[0]['design'])}")
        wide(200).print(table)
    out.print(f"reference: {reference['rate_kind']} {reference['judge']}.", highlight=False, soft_wrap=True)
    for note in notes:
        out.print(f"design: {safe_text(note)}", highlight=False, markup=False, soft_wrap=True)
    matched = {tuple(c["paper"][k] for k in ("table_id", "quantity", "task", "level", "prompt_style", "model"))
               for c in comparisons}  # fmt: skip
    out.print(f"reference: {len(reference['values']) - len(matched)} more of the paper's values have no row of "
              f"yours to stand beside; all {len(reference['values'])} are in --json (reference.values) and --html.",
              highlight=False, soft_wrap=True)  # fmt: skip
