"""The terminal tables of `lexprobe investigation score`: one small function per table, each reading the typed
`ScoreSummary` (lexprobe.investigation.scoring.schema) by attribute, so the terminal shows the numbers `--json`
prints (shares as percentages with one decimal). Untrusted names (models, levels, roles) are escaped for rich and
made safe for the terminal (`safe_markup`: control and bidi characters shown as escapes).

Adding a table: write `_print_<name>(console, summary)` next to the others and call it from `print_summary`.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from rich.console import Console
from rich.table import Table

from lexprobe.cli.output import new_table, wide
from lexprobe.investigation.scoring.schema import Analyses, GroupSummary, RoleRecall, ScoreSummary, VerdictCounts
from lexprobe.reporting.numbers import interval, num, pct
from lexprobe.terminal import safe_markup, safe_text


def _table(title: str, columns: Sequence[str], left: Sequence[str] = ("model",)) -> Table:
    return new_table(title, columns, left)


#: The scores table's metric columns, in order, by `ModelSummary` attribute (None: the case-solved interval; the
#: paper lines fill the same cells).
_SCORE_METRICS = ("case_solved", None, "believe_acc", "reject_acc", "worst_class_acc", "commit_rate", "committed_acc",
                  "coverage", "signal_recall")  # fmt: skip
_SCORE_COLUMNS = (
    "model",
    "n",
    "case solved",
    "95% CI",
    "believe",
    "don't believe",
    "worst class",
    "commit",
    "committed acc",
    "coverage",
    "signal recall",
)


def _metric_cells(g: GroupSummary, metrics: Sequence[str | None] = _SCORE_METRICS) -> list[str]:
    """The cells of `metrics` (attributes of `g`, shares as percentages; None: the case-solved interval)."""
    return [interval(g.case_solved_ci) if metric is None else pct(getattr(g, metric)) for metric in metrics]


def _print_scores(console: Console, summary: ScoreSummary, reference: dict | None = None) -> None:
    table = _table("Investigation scores", _SCORE_COLUMNS)
    for m in summary.models:
        table.add_row(safe_markup(m.model), str(m.n_episodes), *_metric_cells(m))
    for name, b in summary.baselines.items():  # an exact baseline has no interval, coverage nor signal recall
        cells = [pct(getattr(b, metric)) if metric else "" for metric in _SCORE_METRICS[:7]]
        table.add_row(f"[dim]baseline: {safe_markup(name)}[/]", "exact", *cells, "", "")
    if reference is not None:  # the paper's numbers as extra grey rows, each with its section and sample
        from lexprobe.investigation.paper_figures.compare import paper_lines

        for line in paper_lines(reference):
            cells = [line["cells"].get(metric, "") if metric else "" for metric in _SCORE_METRICS]
            label = f"{line['label']} ({line['where']})"  # the full sample is in the reference rows table
            n = f"{line['n']} cases" if line["n"] else "not printed"
            table.add_row(*(f"[grey50]{safe_markup(c)}[/]" for c in (label, n, *cells)))
    console.print(table)
    seen = "; ".join(f"{safe_markup(m.model)} {pct(m.seen_share)}" for m in summary.models)
    console.print(f"seen in search (documents listed or matched, opened or not / corpus documents): {seen}")


def _print_levels(console: Console, summary: ScoreSummary) -> None:
    if len(summary.levels()) <= 1:
        return
    table = _table(
        "By ablation level",
        ("model", "level", "n", "case solved", "95% CI", "worst class", "coverage", "signal recall"),
        left=("model", "level"),
    )
    for m in summary.models:
        for level, c in m.by_ablation.items():
            cells = _metric_cells(c, ("case_solved", None, "worst_class_acc", "coverage", "signal_recall"))
            table.add_row(safe_markup(m.model), safe_markup(level), str(c.n_episodes), *cells)
    console.print(table)


#: The usage table's cells: (`ModelSummary` attribute path, decimals).
_USAGE_CELLS = (
    ("tool_calls.mean", 1),
    ("tool_calls.denied_mean", 1),
    ("tokens.input.mean", 0),
    ("tokens.output.mean", 0),
    ("cost_usd.mean", 4),
    ("cost_usd.total", 2),
    ("wall_s.mean", 1),
)


def _print_usage(console: Console, summary: ScoreSummary) -> None:
    table = _table(
        "Usage per episode (mean; totals)",
        ("model", "tool calls", "denied", "input tokens", "output tokens", "cost $", "cost total $", "wall s"),
    )
    for m in summary.models:
        cells = [num(attrgetter(path)(m), digits) for path, digits in _USAGE_CELLS]
        unknown = f" ({m.cost_usd.unknown} unknown)" if m.cost_usd.unknown else ""
        table.add_row(safe_markup(m.model), *cells[:5], cells[5] + unknown, cells[6])
    console.print(table)


def _print_comparisons(console: Console, summary: ScoreSummary) -> None:
    if not summary.comparisons:
        return
    table = _table(
        "Paired comparisons (b − a, bootstrap over shared environments; ablation rows: Figure 5)",
        ("kind", "a", "b", "envs", "case solved", "95% CI", "> 0", "worst class", "95% CI ", "> 0 "),
        left=("kind", "a", "b"),
    )
    for c in summary.comparisons:
        kind = c.kind + (f": {c.model}" if c.model else "")
        differences = (c.case_solved, c.worst_class_acc)
        cells = [cell for d in differences for cell in (pct(d.difference), interval(d.ci), pct(d.share_above_zero))]
        table.add_row(*map(safe_markup, (kind, c.a, c.b)), str(c.n_environments), *cells)
    console.print(table)


_VERDICT_NAMES = {"believe": "believe", "reject": "don't believe", "dont_know": "don't know"}


def _print_transitions(console: Console, summary: ScoreSummary) -> None:
    """Figure 6: verdicts on the alternative hypotheses at level a (rows) against level b (columns), per table the
    paired verdicts counted, those left out as unparsed, and believe at a and at b."""
    if not summary.level_transitions:
        return
    table = _table(
        "Verdicts on the alternatives, level a -> b (Figure 6; pairs with a parsed verdict at both levels)",
        ("model", "a -> b", "pairs", "unparsed", "believe at a", "believe at b", "verdict at a",
         *(f"-> {name}" for name in _VERDICT_NAMES.values())),
        left=("model", "a -> b", "verdict at a"),
    )  # fmt: skip
    for t in summary.level_transitions:
        for index, (verdict, name) in enumerate(_VERDICT_NAMES.items()):
            first = index == 0
            table.add_row(
                safe_markup(t.model) if first else "", safe_markup(f"{t.a} -> {t.b}") if first else "",
                str(t.n_pairs) if first else "", str(t.n_unparsed) if first else "",
                f"{t.believe_a} ({pct(t.share_believe_a)})" if first else "",
                f"{t.believe_b} ({pct(t.share_believe_b)})" if first else "",
                name, *(str(t.counts[verdict][other]) for other in _VERDICT_NAMES),
                end_section=index == len(_VERDICT_NAMES) - 1,
            )  # fmt: skip
    console.print(table)


def _print_roles(console: Console, rows: Sequence[RoleRecall]) -> None:
    if not rows:
        return
    table = _table(
        "Recall by document role (mean share of the role's documents opened per episode)",
        ("model", "role", "episodes", "documents", "recall"),
        left=("model", "role"),
    )
    for row in rows:
        names = map(safe_markup, (row.model, row.role))
        table.add_row(*names, str(row.episodes), num(row.documents_mean, 1), pct(row.recall))
    console.print(table)


# --- the analyses of Section 4 (scoring/analyses.py) ----------------------------------------------------------


def _interval(ci: Sequence[float] | None, digits: int = 2) -> str:
    return "–" if not ci else f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _print_completeness(console: Console, a: Analyses) -> None:
    scored = "only complete outputs scored (--complete-only)" if a.complete_only else "every finished episode scored"
    table = _table(f"Complete outputs (Section 4.1; {scored})", ("model", "episodes", "finished", "complete outputs"))
    for row in a.completeness:
        table.add_row(safe_markup(row.model), str(row.n_episodes), str(row.n_finished),
                      f"{row.n_complete} / {row.n_episodes}")  # fmt: skip
    console.print(table)


def _verdict_count_cells(v: VerdictCounts) -> list[str]:
    return [str(v.n_episodes), f"{v.n_committed} / {v.n_verdicts} ({pct(v.commit_rate)})",
            f"{v.n_committed_correct} / {v.n_committed} ({pct(v.committed_acc)})",
            f"{v.n_solved} / {v.n_episodes} ({pct(v.case_solved)})", str(v.n_believe_adopted),
            str(v.n_believe_adopted_and_other)]  # fmt: skip


def _print_shared(console: Console, a: Analyses) -> None:
    columns = ("model", "episodes", "committed", "committed correct", "solved", "believe h*", "h* + another")
    shared = a.shared_cases
    table = _table(f"On the {shared.n_cases} case(s) every model completed (Section 4.1)", columns)
    for row in shared.per_model:
        table.add_row(safe_markup(row.model), *_verdict_count_cells(row))
    console.print(table)
    table = _table("Believing h* and an alternative (scored episodes)", columns)
    for row in a.believe_adopted_and_other:
        table.add_row(safe_markup(row.model), *_verdict_count_cells(row))
    console.print(table)


def _print_strategy(console: Console, a: Analyses) -> None:
    table = _table(
        "Strategy vs case solved (Section 4.3; point-biserial r, 95% cluster-bootstrap CI over environments)",
        ("model", "variable", "n", "envs", "r", "95% CI", "mean if solved", "mean if not"),
        left=("model", "variable"),
    )
    for row in a.strategy:
        table.add_row(safe_markup(row.model), row.variable, str(row.n), str(row.n_environments), num(row.r, 2),
                      _interval(row.ci), num(row.mean_solved, 3), num(row.mean_unsolved, 3))  # fmt: skip
    console.print(table)


def _print_generators(console: Console, a: Analyses) -> None:
    g = a.generators
    if g is None:
        return
    title = "Case solved by generator (Section 4.4" + (f"; {g.n_unrecorded} episode(s) without a generator)" if
                                                       g.n_unrecorded else ")")  # fmt: skip
    table = _table(title, ("generator", "model", "n", "cases", "case solved", "95% CI"), left=("generator", "model"))
    for r in g.rates:
        table.add_row(safe_markup(r.generator), safe_markup(r.model), str(r.n_episodes), str(r.n_cases),
                      pct(r.case_solved), interval(r.case_solved_ci))  # fmt: skip
    console.print(table)
    for pair in g.pairs:
        rho = num(pair.spearman_rho, 2)
        table = _table(
            f"{pair.a} vs {pair.b} on the {pair.n_cases} case(s) both built: Spearman's rho {rho} "
            f"over {pair.n_models} model(s) (b − a, paired bootstrap over cases)",
            ("model", "a", "b", "b − a", "95% CI"),
        )
        for m in pair.models:
            table.add_row(safe_markup(m.model), pct(m.a), pct(m.b), pct(m.difference), interval(m.ci))
        console.print(table)


def _print_analyses(console: Console, summary: ScoreSummary) -> None:
    """Section 4's analyses (docs/investigation.md, "Section 4 analyses"), when the summary carries them."""
    if summary.analyses is None:
        return
    _print_completeness(console, summary.analyses)
    _print_shared(console, summary.analyses)
    _print_strategy(console, summary.analyses)
    _print_generators(console, summary.analyses)


def _print_reference(console: Console, reference: dict) -> None:
    """Every shipped paper row, then each comparison of a user number with a paper row (difference, test, design)."""
    table = _table(f"Reference rows: {reference['paper']} (as printed)", ("where", "subject", "metric", "value",
                   "sample"), left=("where", "subject", "metric", "sample"))  # fmt: skip
    for row in reference["rows"]:
        table.add_row(*(safe_markup(str(c)) for c in (row["where"], row["subject"], row["metric"], row["shown"],
                                                      row["sample"])))  # fmt: skip
    console.print(table, emoji=False)
    if not reference["comparisons"]:
        console.print("no score of yours measures what a paper row measures: no comparison", highlight=False)
        return
    table = _table("Yours against the paper (difference: yours − paper, percentage points; notes below the table)",
                   ("metric", "yours", "paper", "difference", "test", "notes"),
                   left=("metric", "yours", "paper", "test", "notes"))  # fmt: skip
    footnotes: dict[str, int] = {}  # one numbered note per distinct "test; what differs" text
    for c in reference["comparisons"]:
        user, paper, test = c["user"], c["paper"], c["test"]
        note = f"test: {c['test_note']}. What differs: " + "; ".join(c["design"])
        number = footnotes.setdefault(note, len(footnotes) + 1)
        tested = f"z={test['z']:.2f}, p={test['p']:.3f}" if test else "no test"
        table.add_row(*(safe_markup(str(x)) for x in (
            c["metric_label"], f"{user['model']}: {user['shown']}",
            f"{paper['subject']}: {paper['shown']} ({paper['where']})", c["difference_shown"], tested,
            f"[{number}]")))  # fmt: skip
    console.print(table, emoji=False)
    for note, number in footnotes.items():
        console.print(f"[{number}] {safe_text(note)}", highlight=False, emoji=False, soft_wrap=True, markup=False)
    for note in reference["notes"]:
        console.print(safe_markup(note), highlight=False, emoji=False, soft_wrap=True)


def print_summary(
    summary: ScoreSummary, role_rows: Sequence[RoleRecall] | None = None, reference: dict | None = None
) -> None:
    """Rich tables of a `summarize` result on stdout; `role_rows` defaults to the summary's `recall_by_role`;
    `reference` (`lexprobe.investigation.paper_figures.compare.paper_comparison`'s block) adds the paper's rows and the
    comparisons with them."""
    # piped output gets room for the wide tables instead of rich's 80-column default
    console = wide(160)
    _print_scores(console, summary, reference)
    _print_levels(console, summary)
    _print_usage(console, summary)
    _print_comparisons(console, summary)
    _print_transitions(console, summary)
    _print_roles(console, summary.recall_by_role if role_rows is None else role_rows)
    _print_analyses(console, summary)
    if summary.unparsed:
        console.print(f"{summary.unparsed} episode(s) had no readable verdict (scored as not solved)", highlight=False)
    if summary.copied_example:
        console.print(f"{summary.copied_example} episode(s) copied the verdict prompt's example (scored as giving no "
                      "verdict: not solved)", highlight=False)  # fmt: skip
    if summary.settings is not None and summary.settings.verdict_rule:
        incomplete = (f"; {summary.incomplete_verdicts} episode(s) gave verdicts on only some hypotheses"
                      if summary.incomplete_verdicts else "")  # fmt: skip
        console.print(f"case-solved rule: {summary.settings.verdict_rule}{incomplete}", highlight=False,
                      soft_wrap=True)  # fmt: skip
    if reference is not None:
        _print_reference(console, reference)
