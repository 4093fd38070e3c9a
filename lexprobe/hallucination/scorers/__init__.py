"""Judging answers per task: the table of reference-based scorers by task id (`by_task`), the reference-free
contradiction judge (`judge`), the optional model reader of answers the rules leave unscored (`model_reader`), the
confidence of greedy answers (`calibration`), scoring answers produced elsewhere (`external`) and validating the
judge and the reader against human coders (`labelsheet`, `reader_sheet`).

May import: `labels`, `reader`, `tasks`, `prompts`, `help_facts` of this domain; `lexprobe.caselaw`, `lexprobe.engine`,
`lexprobe.models`, `lexprobe.stats`.
"""
