"""Issue 44, item 15: a loader names the place of a bad line (line and byte offset) and names UTF-16 as UTF-16.

The CAP loader said "found 1 lines that are not JSON" for a file of thousands of lines, and "lines that are not
UTF-8" / "not JSON" on every line of a file saved as UTF-16. The CourtListener readers (API pages, bulk CSV) said
"not UTF-8 (byte 0)" or "unreadable" for the same file. Real files through the real loaders.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.records import EmptySourceError, LoadOptions
from lexprobe.caselaw.sources import cap, courtlistener_api, courtlistener_bulk
from lexprobe.caselaw.sources.encoding import wide_encoding
from lexprobe.errors import BadInputError

REAL_CASE = next((data_root() / "formats" / "cap_static" / "a2d" / "100" / "cases").glob("*.json"))


def real_case(case_id: int) -> dict:
    case = copy.deepcopy(json.loads(REAL_CASE.read_text(encoding="utf-8")))
    case["id"] = case_id
    return case


def test_a_bad_cap_line_is_named_by_line_and_byte_offset(tmp_path: Path) -> None:
    lines = [json.dumps(real_case(1)), json.dumps(real_case(2)), '{"id": 3, "name": broken', json.dumps(real_case(4))]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cap.load(path)
    assert len(result.cases) == 3
    (issue,) = [issue for issue in result.issues if "invalid JSON" in issue.message]
    offset = len(lines[0].encode()) + len(lines[1].encode()) + 2
    assert issue.location == f"{path}:3" and issue.message.endswith(f"(byte {offset:,})")
    assert path.read_bytes()[offset:].startswith(b'{"id": 3, "name": broken')  # where to look, exactly


def test_a_cap_file_of_bad_lines_says_where_the_first_ones_are(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n\nnot json\nnor this\n'))  # offsets in the decompressed text
    with pytest.raises(EmptySourceError) as caught:
        cap.load(path)
    assert "2 lines that are not JSON (junk.jsonl.gz line 3, byte 10, junk.jsonl.gz line 4, byte 19)" in str(
        caught.value
    )


def test_a_bad_element_of_a_cap_array_is_named_by_line_and_byte_offset(tmp_path: Path) -> None:
    text = "[\n" + json.dumps(real_case(1), indent=2) + ',\n  {"id": 2, oops}\n]\n'
    path = tmp_path / "CasesMetadata.json"
    path.write_text(text, encoding="utf-8")
    result = cap.load(path)
    (issue,) = [issue for issue in result.issues if "invalid JSON" in issue.message]
    offset = int(issue.message.rsplit("byte ", 1)[1].rstrip(")").replace(",", ""))
    assert issue.location == f"{path}:{text.count(chr(10), 0, text.index('oops')) + 1}"
    assert path.read_bytes()[offset:].startswith(b"oops")


@pytest.mark.parametrize(
    ("encoding", "name"),
    [
        ("utf-16", "UTF-16 little-endian with a byte-order mark"),
        ("utf-16-le", "UTF-16 little-endian without a byte-order mark"),
        ("utf-16-be", "UTF-16 big-endian without a byte-order mark"),
        ("utf-32", "UTF-32 little-endian with a byte-order mark"),
    ],
)
def test_a_utf16_cap_file_is_named_utf16(tmp_path: Path, encoding: str, name: str) -> None:
    path = tmp_path / "cases.json"
    path.write_bytes((json.dumps(real_case(1)) + "\n").encode(encoding))
    with pytest.raises(EmptySourceError) as caught:
        cap.load(path)
    message = str(caught.value)
    assert f"1 files not in UTF-8 (cases.json: {name}, not UTF-8: convert it first (iconv -f" in message
    assert "lines that are not" not in message  # one problem for the file, not one per line


def test_utf8_text_is_never_taken_for_utf16() -> None:
    assert wide_encoding(json.dumps(real_case(1)).encode()) is None
    assert wide_encoding("Übersicht über die Fälle, 中文".encode()) is None
    assert wide_encoding(b"") is None and wide_encoding(b"{") is None


def test_the_courtlistener_readers_name_utf16_too(tmp_path: Path) -> None:
    page = tmp_path / "clusters.jsonl"
    page.write_bytes((json.dumps({"id": 1, "case_name": "X v. Y"}) + "\n").encode("utf-16"))
    with pytest.raises(EmptySourceError) as caught:
        courtlistener_api.load_files([page])
    assert "UTF-16 little-endian with a byte-order mark, not UTF-8" in str(caught.value)

    bulk = tmp_path / "opinion-clusters-2024-12-31.csv"
    bulk.write_bytes("id,case_name\n1,X v. Y\n".encode("utf-16"))
    with pytest.raises(BadInputError, match="UTF-16 little-endian with a byte-order mark, not UTF-8"):
        list(courtlistener_bulk.load_files([bulk], LoadOptions()).bundles)
