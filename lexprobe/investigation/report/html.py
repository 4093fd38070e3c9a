"""`lexprobe investigation score RUN_DIR... --html FILE`: one self-contained HTML page of an investigation study
(figures embedded as SVG data URIs, no scripts, nothing loaded from the network), with figures like the
InvestigationWorlds paper's: case solved per model with 95% intervals against the naive baselines (cf. Figure 4),
believe vs do-not-believe class accuracy, coverage against signal recall (cf. Figure 7) and case solved by
ablation level (cf. Figure 5); tables state n and the definitions (`scoring.DEFINITIONS`).

With the paper's block (`paper`: `lexprobe.investigation.paper_figures.compare.paper_comparison`), its numbers are shown
too: grey rows under the user's in the tables, grey bars in the case-solved figure, grey crosses (and the middle
cluster's box) in the strategy figure, and a section listing every shipped row and each comparison with its
difference, test and design notes.

Input is the typed summary of `scoring.summarize` (`ScoreSummary`, read by attribute; its `recall_by_role` and
`settings` included) plus the per-episode coverage points, so the page shows exactly the numbers `--json` prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

import lexprobe
from lexprobe.investigation.scoring.metrics import DEFINITIONS
from lexprobe.investigation.scoring.schema import (
    BaselineSummary,
    CoveragePoint,
    ModelSummary,
    RoleRecall,
    ScoreSummary,
    ScoringSettings,
)
from lexprobe.reporting.figures import INK, MUTED, PALETTE, bar_chart, new_figure
from lexprobe.reporting.html import figure, write_report
from lexprobe.reporting.numbers import pct
from lexprobe.terminal import safe_text

BASELINE_NAMES = {
    "uniform_random": "uniform random",
    "believe_one": "believe one at random",
    "always_reject": "always reject",
}
_BASELINE_STYLE = {"uniform_random": ":", "believe_one": "--", "always_reject": "-."}


def _color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _style_axes(fig: Figure, title: str, xlabel: str, ylabel: str, *, percent_x: bool = False) -> None:
    ax = fig.axes[0]
    ax.set_title(title, loc="left", fontsize=12, color=INK, pad=10)
    ax.set_xlabel(xlabel, fontsize=10, color=INK)
    ax.set_ylabel(ylabel, fontsize=10, color=INK)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    if percent_x:
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, alignment="left")


def _errors(values: Sequence[float | None], cis: Sequence[Sequence[float] | None]) -> np.ndarray:
    """Asymmetric error bar lengths (2, n) from intervals; 0 where there is none."""
    low = [max(0.0, v - ci[0]) if v is not None and ci else 0.0 for v, ci in zip(values, cis, strict=True)]
    high = [max(0.0, ci[1] - v) if v is not None and ci else 0.0 for v, ci in zip(values, cis, strict=True)]
    return np.array([low, high])


Baselines = dict[str, BaselineSummary]


def _baseline_lines(ax, baselines: Baselines, names: Sequence[str]) -> None:
    for name in names:
        if name in baselines:
            ax.axhline(baselines[name].case_solved, color=MUTED, linestyle=_BASELINE_STYLE.get(name, "--"),
                       linewidth=1.1, zorder=1, label=f"baseline: {BASELINE_NAMES.get(name, name)} "
                       f"({pct(baselines[name].case_solved)})")  # fmt: skip


PAPER_GREY = "#9a9a9a"


def _paper_case_solved(block: dict | None) -> list[tuple[str, float]]:
    """(tick label, share) of the paper's per-model case-solved rows (Section 4.1; generator rows left out)."""
    if not block:
        return []
    return [(f"paper: {r['subject']}, n={r.get('n_cases', '?')}", r["value"] / 100) for r in block["rows"]
            if r["metric"] == "case_solved" and r["kind"] == "model" and not r.get("generator")]  # fmt: skip


def case_solved_chart(models: list[ModelSummary], baselines: Baselines, block: dict | None = None) -> Figure:
    """Bars of case solved per model with their 95% intervals; the uniform-random and believe-one baselines as
    reference lines; with the paper's block, the paper's rates as grey hatched bars after the user's."""
    names = [m.model for m in models]
    paper = _paper_case_solved(block)
    fig, ax = new_figure(width=max(6.5, 2.5 + 0.9 * len(names) + 1.2 * len(paper)))
    values = [m.case_solved for m in models]
    xs = np.arange(len(names), dtype=float)
    ys = np.array([np.nan if v is None else v for v in values])
    ax.bar(xs, np.nan_to_num(ys), width=0.6, color=[_color(i) for i in range(len(names))], zorder=2)
    ax.errorbar(xs, np.nan_to_num(ys), yerr=_errors(values, [m.case_solved_ci for m in models]), fmt="none",
                ecolor=INK, elinewidth=0.9, capsize=3, zorder=3, label="95% interval (cluster bootstrap)")  # fmt: skip
    _baseline_lines(ax, baselines, ("uniform_random", "believe_one"))
    if paper:
        paper_xs = np.arange(len(names), len(names) + len(paper), dtype=float)
        ax.bar(paper_xs, [v for _, v in paper], width=0.6, color="#e3e3e3", edgecolor=PAPER_GREY, hatch="//",
               zorder=2, label="paper (InvestigationWorlds, Section 4.1; no interval printed)")  # fmt: skip
        xs = np.append(xs, paper_xs)
        names = names + [label for label, _ in paper]
        ys = np.append(ys, [v for _, v in paper])
    ax.set_xticks(xs, names, rotation=0 if len(names) <= 4 else 30, ha="center" if len(names) <= 4 else "right",
                  fontsize=8 if paper else None)  # fmt: skip
    if paper:
        fig.set_figheight(fig.get_figheight() + 1.0)  # room for the rotated paper labels
    ax.tick_params(axis="x", length=0)
    ax.set_ylim(0, max(1.0 if not len(ys) else min(1.0, float(np.nanmax(np.append(ys, 0))) + 0.25), 0.3))
    _style_axes(fig, "Case solved per model", "", "Case solved")
    return fig


def class_accuracy_chart(models: list[ModelSummary], baselines: Baselines) -> Figure:
    """Grouped bars: believe-class and do-not-believe-class accuracy per model, then per naive baseline."""
    groups = [m.model for m in models] + [f"[{BASELINE_NAMES.get(n, n)}]" for n in baselines]
    rows: list[ModelSummary | BaselineSummary] = [*models, *baselines.values()]
    series = {
        "believe class (h*)": [r.believe_acc for r in rows],
        "do-not-believe class": [r.reject_acc for r in rows],
        "worst class": [r.worst_class_acc for r in rows],
    }
    return bar_chart(groups, series, ylabel="Accuracy", title="Class accuracy (baselines in brackets)", percent=True)


def _paper_strategy(block: dict | None) -> tuple[list[tuple[str, float, float]], list[dict]]:
    """The paper's (model, coverage, signal recall) means of Section 4.3 and its printed ranges for a cluster."""
    if not block:
        return [], []
    rows = block["rows"]
    coverage = {r["subject"]: r["value"] / 100 for r in rows if r["metric"] == "coverage" and r["kind"] == "model"}
    recall = {r["subject"]: r["value"] / 100 for r in rows if r["metric"] == "signal_recall" and r["kind"] == "model"}
    pairs = [(name, coverage[name], recall[name]) for name in coverage if name in recall]
    ranges = [r for r in rows if r["kind"] == "range" and r["metric"] in ("coverage", "signal_recall")
              and r.get("models")]  # fmt: skip
    boxes = []
    for subject in dict.fromkeys(r["subject"] for r in ranges):
        cov = [r for r in ranges if r["subject"] == subject and r["metric"] == "coverage"]
        rec = [r for r in ranges if r["subject"] == subject and r["metric"] == "signal_recall"]
        if cov and rec:
            models = ", ".join(cov[0]["models"])
            label = f"paper: middle cluster ({cov[0]['shown']} coverage,\n{rec[0]['shown']} recall: {models})"
            boxes.append({"label": label,
                          "x": (cov[0]["low"] / 100, cov[0]["high"] / 100),
                          "y": (rec[0]["low"] / 100, rec[0]["high"] / 100)})  # fmt: skip
    return pairs, boxes


def strategy_chart(models: list[ModelSummary], points: list[CoveragePoint], block: dict | None = None) -> Figure:
    """Coverage against signal recall: one small point per episode, one large marker per model mean, and the line
    y = x, where an agent opening documents uniformly at random would lie; with the paper's block, the paper's
    model means as grey crosses and its printed cluster ranges as a grey box."""
    paper, boxes = _paper_strategy(block)
    fig, ax = new_figure(width=9.4 if paper or boxes else 6.8, height=5.2)
    names = [m.model for m in models]
    drawn = [p for p in points if p.coverage is not None and p.signal_recall is not None]
    high = max([0.05] + [max(p.coverage, p.signal_recall) for p in drawn]  # type: ignore[type-var]
               + [max(c, r) for _, c, r in paper] + [b["y"][1] for b in boxes])  # fmt: skip
    limit = min(1.0, high * 1.1)
    ax.plot([0, limit], [0, limit], color=MUTED, linestyle="--", linewidth=1, label="uniform retrieval (y = x)",
            zorder=1)  # fmt: skip
    for index, name in enumerate(names):
        mine = [p for p in drawn if p.model == name]
        if not mine:
            continue
        xs = [p.coverage for p in mine]
        ys = [p.signal_recall for p in mine]
        ax.scatter(xs, ys, s=14, color=_color(index), alpha=0.35, linewidth=0, zorder=2)
        ax.scatter([float(np.mean(xs))], [float(np.mean(ys))], s=90, color=_color(index), edgecolor="white",
                   linewidth=1, zorder=3, label=f"{name} (n={len(mine)})")  # fmt: skip
    for index, (name, coverage, recall) in enumerate(paper):
        ax.scatter([coverage], [recall], s=60, marker="X", color=PAPER_GREY, zorder=4,
                   label="paper: model means (Section 4.3)" if index == 0 else None)  # fmt: skip
        ax.annotate(name, (coverage, recall), xytext=(5, 4), textcoords="offset points", fontsize=7,
                    color=PAPER_GREY)  # fmt: skip
    for box in boxes:
        (x0, x1), (y0, y1) = box["x"], box["y"]
        ax.fill_between([x0, x1], y0, y1, color=PAPER_GREY, alpha=0.2, linewidth=0, zorder=1, label=box["label"])
    ax.set_xlim(0, limit)
    ax.set_ylim(0, limit)
    ax.grid(axis="x", color="#e6e6e6", linewidth=0.8)
    _style_axes(fig, "Investigative strategy", "Coverage (share of corpus opened)",
                "Signal recall (merits + signal opened)", percent_x=True)  # fmt: skip
    if not drawn:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center", color=MUTED, fontsize=11)
    return fig


def ablation_chart(models: list[ModelSummary], baselines: Baselines, levels: list[str]) -> Figure:
    """Case solved by `levels` (the summary's, in the ladder's order), one line per model with 95% intervals,
    baselines as reference lines."""
    fig, ax = new_figure(width=max(6.5, 2.5 + 1.1 * len(levels)))
    xs = np.arange(len(levels), dtype=float)
    for index, model in enumerate(models):
        cells = [model.by_ablation.get(level) for level in levels]
        values = [c.case_solved if c else None for c in cells]
        cis = [c.case_solved_ci if c else None for c in cells]
        ys = np.array([np.nan if v is None else v for v in values])
        offset = (index - (len(models) - 1) / 2) * 0.04
        ax.errorbar(xs + offset, ys, yerr=_errors(values, cis), fmt="-o", color=_color(index), markersize=4,
                    linewidth=1.6, elinewidth=0.9, capsize=2, label=model.model, zorder=3)  # fmt: skip
    _baseline_lines(ax, baselines, ("uniform_random", "believe_one"))
    ax.set_xticks(xs, levels)
    ax.set_xlim(-0.4, len(levels) - 0.6)
    ax.set_ylim(0, 1.0)
    _style_axes(fig, "Case solved by corpus level (cumulative ablation)", "Ablation level", "Case solved")
    return fig


def figures(
    summary: ScoreSummary,
    points: list[CoveragePoint],
    *,
    dont_know_as_reject: bool = True,
    paper: dict | None = None,
) -> list[dict]:
    """The report's figures, each with a caption naming n and the estimator (and, with the paper's block, the
    paper's marks)."""
    marks = (" Grey hatched bars: the paper's printed rates (InvestigationWorlds Section 4.1, each with its sample "
             "in the label; no interval printed)." if paper else "")  # fmt: skip
    strategy_marks = (" Grey crosses: the paper's model means (Section 4.3); grey box: the range the paper prints "
                      "for its middle cluster." if paper else "")  # fmt: skip
    models, baselines = summary.models, summary.baselines
    correct = DEFINITIONS["reject_acc" if dont_know_as_reject else "reject_acc_strict"].split(": ", 1)[1]
    n_text = "; ".join(f"{m.model}: n={m.n_episodes}" for m in models)
    n_hyp = next(iter(baselines.values())).n_hypotheses if baselines else 4
    result = [
        figure(
            "Case solved per model (cf. Figure 4)",
            lambda: case_solved_chart(models, baselines, paper),
            f"Share of episodes that believe the court-adopted hypothesis and no other ({n_text}). Whiskers: 95% "
            "percentile interval of a cluster bootstrap over environments. Reference lines: exact expected case "
            f"solved of the naive policies for {n_hyp} hypotheses.{marks}",
        ),
        figure(
            "Class accuracy",
            lambda: class_accuracy_chart(models, baselines),
            "Believe class: h* verdicts that are believe; do-not-believe class: verdicts on the other hypotheses "
            f"that are correct ({correct}); worst class: the smaller of the two ({n_text}). Bracketed groups: the "
            "naive baselines, exact expectations.",
        ),
    ]
    if points:
        result.append(
            figure(
                "Coverage and signal recall (cf. Figure 7)",
                lambda: strategy_chart(models, list(points), paper),
                f"One small point per episode with a known corpus (n={len(points)}), one large marker per model "
                "mean. Coverage: share of the corpus's documents opened (content shown by read or a shell cat, "
                "head, sed, grep -C ...; listings and search hits do not count); signal recall: share of the merits "
                "and signal documents opened. The dashed line "
                f"is uniform retrieval.{strategy_marks}",
            )
        )
    if len(levels := summary.levels()) > 1:
        counts = "; ".join(
            f"{m.model} {level}: n={cell.n_episodes}" for m in models for level, cell in m.by_ablation.items()
        )
        result.append(
            figure(
                "Case solved by ablation level (cf. Figure 5)",
                lambda: ablation_chart(models, baselines, levels),
                f"Cumulative corpus levels ({counts}). Whiskers: 95% cluster-bootstrap intervals per level; paired "
                "differences between consecutive levels are in the comparisons table.",
            )
        )
    return result


def write_investigation_report(
    path: Path,
    summary: ScoreSummary,
    *,
    runs: Sequence[str] = (),
    points: Sequence[CoveragePoint] = (),
    role_rows: Sequence[RoleRecall] | None = None,
    notes: Sequence[str] = (),
    settings: ScoringSettings | None = None,
    paper: dict | None = None,
) -> None:
    """Write the report page to `path` (parent folders created). `summary` is `scoring.summarize`'s result,
    `points` `scoring.coverage_points`; `role_rows` (default: the summary's `recall_by_role`) and `settings`
    (default: the summary's; seed, replicates, dont_know_as_reject, printed with the method) override the
    summary's; `notes` are shown as caveats (missing environments, left-out episodes); `paper` (the block of
    `lexprobe.investigation.paper_figures.compare.paper_comparison`, or None) adds the paper's rows. Raises OSError
    when the page cannot be written."""
    from lexprobe.investigation.paper_figures.compare import paper_lines

    settings = settings or summary.settings
    strict = settings is not None and not settings.dont_know_as_reject
    partial = settings is not None and settings.partial_verdicts
    rules = {  # the definitions of the rules this summary used
        "reject_acc": DEFINITIONS["reject_acc_strict" if strict else "reject_acc"],
        "case_solved": DEFINITIONS["case_solved_partial" if partial else "case_solved"],
    }
    write_report(
        path,
        "lexprobe.investigation:report.html.j2",
        version=lexprobe.__version__,
        summary=summary,
        models=summary.models,
        baselines=summary.baselines,
        baseline_names=BASELINE_NAMES,
        comparisons=summary.comparisons,
        levels=summary.levels(),
        runs=list(runs),
        role_rows=list(summary.recall_by_role if role_rows is None else role_rows),
        notes=list(notes),
        settings=settings,
        definitions=DEFINITIONS | rules,
        figures=figures(summary, list(points), dont_know_as_reject=not strict, paper=paper),
        paper=paper,
        paper_lines=paper_lines(paper) if paper else [],
        visible=safe_text,  # control and bidi characters of user names in the paper section shown as escapes
    )
