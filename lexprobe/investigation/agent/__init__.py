"""The investigating agent (InvestigationWorlds, Section 3.1, Appendix D.4): the agent loop and two-turn protocol
(`harness`), the tools it calls (`tools`, through a tool protocol: `protocol`) over a read-only copy of the corpus
(`corpus_view`), the prompts (`prompts`), reading the Turn-2 verdicts (`verdicts`; a reply that copied the prompt's
example in `verdict_example`), the episode record (`episode`), and a run of episodes over several environments and
epochs into one run directory (`run`).

May import: `lexprobe.investigation.environment`, `lexprobe.investigation.shell`, `lexprobe.engine`,
`lexprobe.models`, `lexprobe.documents`, `lexprobe.errors`. Scoring, QA and the reports build on it, never the
reverse.
"""
