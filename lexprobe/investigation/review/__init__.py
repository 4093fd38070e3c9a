"""Attorney review of a built environment (`lexprobe investigation review` / `review-import`): the review workbook
written for reviewers and the verdicts read back from filled-in copies, with agreement between reviewers
(`sheets`).

May import: `lexprobe.investigation.environment`, `lexprobe.documents`, `lexprobe.stats`, `lexprobe.errors`.
"""
