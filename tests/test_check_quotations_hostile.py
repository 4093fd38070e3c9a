"""Issue #34, quotations on hostile input through the real command: `lexprobe check --json` in a fresh interpreter
(the console entry point, as the installed script runs it) on documents with unbalanced quotation marks, a 10 MB
quotation and thousands of citations on one page. Each must complete, print one JSON document on stdout, and say
in the reasons which limit it applied (no timing is asserted: a runaway would show as the subprocess timeout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from lexprobe.check.quotations import CHECKED_CHARS
from lexprobe.check.quote_verdicts import MAX_SHOWN_CHARS, QUOTE_VERDICTS

ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"
MONELL = "Monell v. Department of Social Services, 436 U.S. 658"
HELD = (
    "Congress did intend municipalities and other local government units to be included among those persons to "
    "whom § 1983 applies."
)
FIELDS = {"text", "span", "citation", "verdict", "page", "pin_ok", "reason", "evidence"}


def check_json(tmp_path: Path, db: Path, text: str) -> tuple[int, dict]:
    """Run `lexprobe check FILE --db DB --json` in a new process; return its exit code and parsed stdout."""
    document = tmp_path / "hostile.txt"
    document.write_text(text, encoding="utf-8")
    env = os.environ.copy()  # PYTHONPATH (the worktree) and LEXPROBE_DATA reach the child
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "check", str(document), "--db", str(db), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    payload = json.loads(done.stdout)  # stdout is exactly one JSON document
    for quotation in payload["quotations"]:
        assert set(quotation) == FIELDS and quotation["verdict"] in QUOTE_VERDICTS
        assert 0 <= quotation["citation"] < len(payload["citations"])
    assert sum(payload["summary"]["quotations"].values()) == len(payload["quotations"])
    return done.returncode, payload


def test_unbalanced_quotation_marks(tmp_path: Path, case_db_path: Path) -> None:
    text = (
        'An opening straight mark that never closes: "oops, and on it goes.\n'
        "A stray closing mark ” here, an opening curly one “ there, and another “ that never closes.\n"
        f'Then a real one: “{HELD}” {MONELL}, 690 (1978). And a closing mark without its opening," {MONELL}.\n'
        + "“never closed " * 1_000
        + "\n"
    )
    code, payload = check_json(tmp_path, case_db_path, text)
    assert code == 0
    (quotation,) = payload["quotations"]  # the unbalanced marks start no quotation
    assert quotation["text"] == HELD and quotation["verdict"] == "verified" and quotation["page"] == 690
    start, end = quotation["span"]
    assert text[start:end] == f"“{HELD}”"


def test_a_ten_megabyte_quotation(tmp_path: Path, case_db_path: Path) -> None:
    body = HELD + " " + "and more words " * 700_000  # about 10 MB
    text = f"The Court said “{body}” {MONELL}, 690 (1978).\n"
    assert len(text.encode()) > 10_000_000
    _, payload = check_json(tmp_path, case_db_path, text)
    (quotation,) = payload["quotations"]
    assert f"only its first {CHECKED_CHARS:,} characters were checked" in quotation["reason"]
    assert (
        len(quotation["text"]) <= MAX_SHOWN_CHARS + 1 and quotation["span"][1] - quotation["span"][0] == len(body) + 2
    )


def test_thousands_of_citations_on_one_page(tmp_path: Path, case_db_path: Path) -> None:
    pins = "; ".join(f"Monell, 436 U.S. at {660 + i % 50}" for i in range(3_000))
    quoted = " ".join(f"“{HELD}” {MONELL}, {690 + i % 2} (1978)." for i in range(40))
    text = f"{quoted} See {pins}.\n"
    _, payload = check_json(tmp_path, case_db_path, text)
    assert len(payload["citations"]) > 3_000
    verdicts = [quotation["verdict"] for quotation in payload["quotations"]]
    assert verdicts == ["verified"] * 40
    pins_ok = [quotation["pin_ok"] for quotation in payload["quotations"]]
    assert pins_ok == [True, False] * 20  # page 690 is right, 691 is not: said, without changing the verdict
    assert "not on the pin page 691" in payload["quotations"][1]["reason"]
