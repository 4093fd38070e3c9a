"""The hallucination profile of scored runs: the scored units read from run stores, which units a profile pools and
in which order (`results`), the rate tables, breakdowns and justice bias (`stats`) and the
calibration curves and ECE (`calibration`, numpy imported there only).

May import: `labels`, `reader`, `tasks` of this domain; `lexprobe.caselaw`, `lexprobe.engine`, `lexprobe.stats`.
"""
