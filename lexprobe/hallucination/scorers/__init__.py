"""Judging answers per task: the table of reference-based scorers by task id (`by_task`), the reference-free
contradiction judge (`judge`), the optional model reader of answers the rules leave unscored (`model_reader`), the
confidence of greedy answers (`calibration`), scoring answers produced elsewhere (`external`) and validating the
judge and the reader against human coders (`labelsheet`, `reader_sheet`).

May import: `labels`, `reader`, `tasks`, `prompts`, `help_facts` of this domain; `lexprobe.caselaw`, `lexprobe.engine`,
`lexprobe.models`, `lexprobe.stats`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext
    from lexprobe.hallucination.scorers.calibration import (
        CALIBRATION_TEMPERATURE,
        DEFAULT_SAMPLES,
        Confidence,
        agrees,
        confidence,
        is_calibrated,
    )
    from lexprobe.hallucination.scorers.external import LineError, read_answer_lines, reference_for, score_lines
    from lexprobe.hallucination.scorers.judge import (
        SAMPLE_TEMPERATURE,
        SAMPLES,
        judge_prompt,
        judge_request,
        pair_label,
        parse_verdict,
        verdict_label,
    )
    from lexprobe.hallucination.scorers.labelsheet import (
        SHEET_COLUMNS,
        agreement_report,
        agreement_table,
        export_label_sheet,
        key_path,
        read_coded_sheet,
        write_label_sheet,
    )
    from lexprobe.hallucination.scorers.model_reader import ReaderPass, parse_reading, reader_request, reader_score
    from lexprobe.hallucination.scorers.reader_sheet import export_reader_sheet, reader_agreement, write_reader_sheet

__all__ = [
    "CALIBRATION_TEMPERATURE",
    "DEFAULT_SAMPLES",
    "SAMPLES",
    "SAMPLE_TEMPERATURE",
    "SCORERS",
    "SHEET_COLUMNS",
    "Confidence",
    "LineError",
    "ReaderPass",
    "ScoringContext",
    "agreement_report",
    "agreement_table",
    "agrees",
    "confidence",
    "export_label_sheet",
    "export_reader_sheet",
    "is_calibrated",
    "judge_prompt",
    "judge_request",
    "key_path",
    "pair_label",
    "parse_reading",
    "parse_verdict",
    "read_answer_lines",
    "read_coded_sheet",
    "reader_agreement",
    "reader_request",
    "reader_score",
    "reference_for",
    "score_lines",
    "verdict_label",
    "write_label_sheet",
    "write_reader_sheet",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "CALIBRATION_TEMPERATURE": "calibration",
        "Confidence": "calibration",
        "DEFAULT_SAMPLES": "calibration",
        "LineError": "external",
        "ReaderPass": "model_reader",
        "SAMPLES": "judge",
        "SAMPLE_TEMPERATURE": "judge",
        "SCORERS": "by_task",
        "SHEET_COLUMNS": "labelsheet",
        "ScoringContext": "by_task",
        "agreement_report": "labelsheet",
        "agreement_table": "labelsheet",
        "agrees": "calibration",
        "confidence": "calibration",
        "export_label_sheet": "labelsheet",
        "export_reader_sheet": "reader_sheet",
        "is_calibrated": "calibration",
        "judge_prompt": "judge",
        "judge_request": "judge",
        "key_path": "labelsheet",
        "pair_label": "judge",
        "parse_reading": "model_reader",
        "parse_verdict": "judge",
        "read_answer_lines": "external",
        "read_coded_sheet": "labelsheet",
        "reader_agreement": "reader_sheet",
        "reader_request": "model_reader",
        "reader_score": "model_reader",
        "reference_for": "external",
        "score_lines": "external",
        "verdict_label": "judge",
        "write_label_sheet": "labelsheet",
        "write_reader_sheet": "reader_sheet",
    },
)
