"""InvestigationWorlds (the investigation domain): environments built from summary-judgment records, agents that
investigate them with tools, and the scores of what they concluded. One package per concept:

- `environment/`: the environment format, document roles, the ablation ladder, validation, the corpus hash, the
  Hugging Face import. Imports no other investigation package.
- `shell/`: the read-only sandboxed shell of the agent's `shell` tool and which documents a command showed.
  Imports no other lexprobe package.
- `agent/`: the two-turn protocol, its tools, prompts, verdict parsing, the episode record, runs. Imports
  `environment`, `shell`.
- `qa/`: factual QA with the same tools, graded by a judge. Imports `agent`, `environment`.
- `scoring/`: pure functions over episodes and QA records (Section 4). Imports `agent`, `environment`, `qa`.
- `reference/`: the paper's numbers and their comparison with a user's scores. Imports `agent`, `scoring`.
- `report/`: the HTML page of a study. Imports `scoring`, `reference`.
- `review/`: attorney review workbooks. Imports `environment`.
- `pipeline/`: building an environment from a record (the construction stages). Imports `environment`.
- `sample/`: the packaged sample environment. Imports `environment`.

The package templates (`templates/`: prompts and report pages) are loaded as `lexprobe.investigation:<name>`.
Nothing here imports `lexprobe.hallucination`.
"""
