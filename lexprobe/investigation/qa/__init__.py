"""Factual QA on an environment (`lexprobe investigation qa`): each question of `questions.json` asked with the same
tools as an investigation and its own budgets, the answer graded against the question's rubric by a judge model,
one `QARecord` per question beside the run's episodes (`runner`). Scoring the records is
`lexprobe.investigation.scoring.qa`.

May import: `lexprobe.investigation.agent`, `lexprobe.investigation.environment`, `lexprobe.engine`,
`lexprobe.models`.
"""
