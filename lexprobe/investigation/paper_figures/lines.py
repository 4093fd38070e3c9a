"""The paper's per-model numbers grouped as score-table lines: one line per (model, sample) with the metrics the
paper prints for it, so the terminal and the HTML report can show them as extra (grey) rows under the user's."""

from __future__ import annotations

from lexprobe.investigation.paper_figures.compare import MODEL_METRICS

_LABELS = {"uniform_random": "baseline uniform random", "believe_one": "baseline believe one at random",
           "always_reject": "baseline always reject"}  # fmt: skip


def paper_lines(block: dict) -> list[dict]:
    """Lines {"label", "subject", "sample", "where", "n", "cells": {metric: shown}} from a `reference` block's
    model and baseline rows (the generator rows of Section 4.4 and the ranges are left to the full list)."""
    lines: dict[tuple[str, str], dict] = {}
    for row in block["rows"]:
        if row["kind"] not in ("model", "baseline") or row.get("generator") or row["metric"] not in (
            *MODEL_METRICS, "believe_acc", "reject_acc"):  # fmt: skip
            continue
        key = (row["subject"], row["sample"])
        label = f"paper: {_LABELS.get(row['subject'], row['subject'])}"
        line = lines.setdefault(key, {"label": label, "subject": row["subject"], "sample": row["sample"],
                                      "where": set(), "n": row.get("n_cases"), "cells": {}})  # fmt: skip
        line["where"].add(row["section"].split(" ", 1)[0])
        line["cells"][row["metric"]] = row["shown"]
    result = []
    for line in lines.values():
        line["where"] = "§" + ", §".join(sorted(line["where"]))
        result.append(line)
    return result
