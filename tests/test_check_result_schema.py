"""Issue #49: the published result format. `lexprobe check --json` (in a fresh process, as a user runs it) validates
against docs/check-result.schema.json (draft 2020-12) for real documents: a text with every citation verdict and
several quotation verdicts, the two hand-checked briefs, one of them as a PDF; and every field it writes is described
there, so the schema cannot fall behind the output. The `--judge` holdings are validated in test_check_holdings.py."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from service_support import BRIEFS, SCHEMA, cli_check_json, validate, write_pdf

from lexprobe.check.result_json import SCHEMA_VERSION

EVERY_VERDICT = Path(__file__).parent / "data" / "check" / "every_verdict.txt"


def test_the_schema_is_a_versioned_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"].endswith(f":{SCHEMA_VERSION}")


def test_a_text_with_every_verdict_validates(case_db_path: Path) -> None:
    result = cli_check_json(EVERY_VERDICT, case_db_path)
    validate(result)
    assert result["schema_version"] == SCHEMA_VERSION
    assert {c["verdict"] for c in result["citations"]} == {"verified", "mismatch", "not_found", "unverifiable"}
    assert {q["verdict"] for q in result["quotations"]} >= {"verified", "altered", "unverifiable"}
    assert [c["pin"] for c in result["citations"]][:2] == ["495", "495"]


@pytest.mark.parametrize("name", ["suppression_memo", "first_amendment_brief"])
def test_the_hand_checked_briefs_validate_as_text_and_pdf(name: str, case_db_path: Path, tmp_path: Path) -> None:
    text = (BRIEFS / f"{name}.txt").read_text(encoding="utf-8")
    for path in (BRIEFS / f"{name}.txt", write_pdf(text, tmp_path / f"{name}.pdf")):
        result = cli_check_json(path, case_db_path)
        validate(result)
        assert result["quotations"] and any(q["evidence"] for q in result["quotations"])


def test_an_invalid_result_is_refused() -> None:
    result = {"schema_version": "1.0", "citations": [], "quotations": [], "summary": {}}
    with pytest.raises(jsonschema.ValidationError):
        validate(result)
    bad_verdict = {"text": "1 U.S. 1", "span": [0, 8], "verdict": "FOUND", "case": None, "reason": "", "notes": [],
                   "pin": None}  # fmt: skip
    valid = cli_like_empty()
    jsonschema.validate(valid, SCHEMA)
    with pytest.raises(jsonschema.ValidationError, match="'FOUND' is not one of"):
        jsonschema.validate({**valid, "citations": [bad_verdict]}, SCHEMA)


def cli_like_empty() -> dict:
    """The result of checking a document without citations."""
    counts = {"verified": 0, "mismatch": 0, "not_found": 0, "unverifiable": 0}
    quotations = dict.fromkeys(
        ("verified", "altered", "not_found", "separate_opinion", "other_case", "unverifiable"), 0
    )
    files = [{"path": "empty.txt", "first": 0, "count": 0, **counts}]
    return {"schema_version": SCHEMA_VERSION, "citations": [], "quotations": [],
            "summary": {**counts, "quotations": quotations, "files": files}}  # fmt: skip
