"""The dataset card (README.md with YAML front matter) and the `eval.yaml` of an exported Hugging Face dataset folder.

The front matter names each config's parquet file (`configs`), the licence as the Hub spells one that is mixed
(`license: other`, `license_name`, `license_details`), and the card's body the licence of every source the case
database was built from (/work/shared/data/README.md, docs/caselaw.md), how the items were sampled and which fields
are references. `eval.yaml` is the file `inspect eval hf/OWNER/NAME` reads (`inspect_ai/_eval/task/hf.py`: `tasks`,
each with `config`, `split`, `field_spec`, `solvers`, `scorers`): one task per config whose items have an answer a
string-containment scorer can check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

__all__ = ["SOURCE_LICENSES", "SPLIT", "card_text", "eval_yaml_text"]

#: The one split every config has.
SPLIT = "test"
#: Each source of the case database (`build_info.rows_read` names it): what it is and its licence or terms.
SOURCE_LICENSES: dict[str, tuple[str, str]] = {
    "scdb": ("Supreme Court Database 2024_01 (Spaeth et al.)", "research use; cite The Supreme Court Database"),
    "fowler": ("Fowler & Jeon Supreme Court citation network", "academic replication data; cite Fowler & Jeon, "
               "Social Networks 30(1) 2008"),
    "fowler-edges": ("Fowler & Jeon citation edges", "academic replication data; cite Fowler & Jeon (2008)"),
    "loc-overruled": ("Library of Congress, Table of Supreme Court Decisions Overruled", "US government work, public "
                      "domain"),
    "opinions": ("CourtListener opinions (Free Law Project)", "opinions public domain; metadata BSD-3-Clause"),
    "treatments": ("Free Law Project citator pairs", "BSD-3-Clause"),
    "songer": ("U.S. Courts of Appeals Database update (Songer; Kuersten-Haire)", "research use; cite the "
               "database"),
    "cap": ("Caselaw Access Project", "case law public domain; tools MIT"),
    "courtlistener": ("CourtListener bulk data", "opinions public domain; metadata BSD-3-Clause"),
}  # fmt: skip

REFERENCE_FIELDS = {
    "reference": "the reference answer lexprobe scores against (JSON, the task's fields; `{}` for a task without "
    "one: existence, the reference-free tasks)",
    "answer_key": "the reference as one string a containment check can use, where the task has one (else empty)",
    "eval_method": "`contains` where `answer_key` decides; `lexprobe` where only lexprobe's reader, judge or "
    "premise check can score the answer (`inspect eval lexprobe/hallucination`)",
}


def _front_matter(configs: Sequence[str], sources: Mapping[str, str]) -> dict[str, Any]:
    names = "; ".join(f"{SOURCE_LICENSES.get(s, (s, ''))[0]}: {licence}" for s, licence in sources.items())
    return {
        "configs": [{"config_name": name, "data_files": [{"split": SPLIT, "path": f"data/{name}/{SPLIT}.parquet"}]}
                    for name in configs],
        "license": "other",
        "license_name": "mixed-public-sources",
        "license_details": names,
        "language": ["en"],
        "task_categories": ["question-answering"],
        "tags": ["legal", "hallucination", "lexprobe"],
        "pretty_name": "lexprobe Large Legal Fictions items",
    }  # fmt: skip


def card_text(configs: Sequence[str], rows: Mapping[str, int], sources: Mapping[str, str], sampling: str,
              with_run: bool) -> str:  # fmt: skip
    """Return README.md: the front matter, then the card (configs and their rows, sampling, reference fields,
    licences per source)."""
    header = yaml.safe_dump(_front_matter(configs, sources), sort_keys=False, allow_unicode=True)
    lines = ["---", header.rstrip(), "---", "", "# lexprobe Large Legal Fictions items", "",
             "Items of the Large Legal Fictions hallucination profile (Dahl et al. 2024) as lexprobe samples and "
             "renders them" + (", with one model's answers and lexprobe's labels." if with_run else "."), "",
             "## Configs", "", "| config | rows |", "|---|---|"]  # fmt: skip
    lines += [f"| `{name}` | {rows.get(name, 0):,} |" for name in configs]
    lines += ["", "`legal_eval` is the same items flat, in `nguha/legal-eval`'s schema (benchmark, task_name, input, "
              "answer, eval_method).", "", "## How the items were sampled", "", sampling, "",
              "## Reference fields", ""]  # fmt: skip
    lines += [f"- `{name}`: {text}" for name, text in REFERENCE_FIELDS.items()]
    if with_run:
        lines += ["- `answer`, `label`, `label_detail`, `confidence`: the model's answer and lexprobe's label "
                  "(correct, hallucination, abstain, unscored) with its reason; not references"]  # fmt: skip
    lines += ["", "## Licences of the underlying data", "", "| source | licence or terms |", "|---|---|"]
    lines += [f"| {SOURCE_LICENSES.get(s, (s, ''))[0]} | {licence} |" for s, licence in sources.items()]
    lines += ["", "Prompts are lexprobe's templates (lexprobe's licence); facts are the sources'. `eval.yaml` runs "
              "the configs with a containment answer under `inspect eval hf/OWNER/NAME`; lexprobe's own scoring "
              "is `inspect eval lexprobe/hallucination`.", ""]  # fmt: skip
    return "\n".join(lines)


def eval_yaml_text(contained: Sequence[str]) -> str:
    """Return eval.yaml: one Inspect task per config in `contained` (items with a containment answer), the prompt
    as input, `answer_key` as target, scored by `includes`."""
    tasks = [{"id": name, "config": name, "split": SPLIT,
              "field_spec": {"input": "prompt", "target": "answer_key", "id": "id",
                             "metadata": ["task", "level", "prompt_style", "case_id", "reference"]},
              "solvers": [{"name": "generate"}], "scorers": [{"name": "includes"}]}
             for name in contained]  # fmt: skip
    return yaml.safe_dump({"tasks": tasks}, sort_keys=False)
