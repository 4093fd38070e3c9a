"""What a run's profile looks like to a reader: the scored summary rows of `hallucination report`
(`summary`), how many answers a `--reader` model read (`readings`) and the self-contained HTML page (`html`,
matplotlib imported there only). The paper's published
estimates beside a profile are the sibling package `hallucination.paper_figures`.

May import: `labels`, `reader`, `tasks`, `scorers`, `profile`, `reference` of this domain; `lexprobe.engine`,
`lexprobe.reporting`, `lexprobe.models`. Never `lexprobe.investigation`: the demo's page combining both domains is
`lexprobe.demo.investigation_rows`.
"""
