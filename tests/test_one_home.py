"""One home per concept (issue 16, step 4): the shared helpers, table-driven, and the rule that each concept has
one module: eyecite extraction (`caselaw.citations.eyecite_citations`), case-name comparison
(`caselaw.case_names`), markup to text (`caselaw.sources.markup`), CSV tables (`caselaw.sources.tables`)."""

from __future__ import annotations

import ast
import gzip
from pathlib import Path

import pytest

from lexprobe.caselaw.case_names import comparable_name, names_match, normalize_case_name
from lexprobe.caselaw.citations import Citation, eyecite_citations, parse_citations
from lexprobe.caselaw.records import LoadResult
from lexprobe.caselaw.sources.markup import convert_markup, markup_text, parse_markup
from lexprobe.caselaw.sources.tables import RowError, int_field, load_rows, open_text, read_header, require_columns
from lexprobe.check.extract import chunk_bounds, flatten, history_before, name_before, year_after
from lexprobe.check.resolve import canonical_parts, first_number
from lexprobe.errors import BadInputError

PACKAGE = Path(__file__).parents[1] / "lexprobe"


def _modules() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(PACKAGE)): ast.parse(path.read_text(encoding="utf-8")) for path in PACKAGE.rglob("*.py")
    }


# ------------------------------------------------------------------------------------------------- one home each


@pytest.mark.parametrize(
    ("what", "home"),
    [
        ("get_citations", "caselaw/citations.py"),  # the one call into eyecite's extraction
        ("normalize_case_name", "caselaw/case_names.py"),
        ("names_match", "caselaw/case_names.py"),
        ("element_text", "caselaw/sources/markup.py"),
        ("convert_markup", "caselaw/sources/markup.py"),
        ("require_columns", "caselaw/sources/tables.py"),
    ],
)
def test_one_module_holds_each_concept(what: str, home: str) -> None:
    """Only `home` defines `what` (or, for eyecite's `get_citations`, imports it)."""
    holders = set()
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == what:
                holders.add(name)
            imported = isinstance(node, ast.ImportFrom) and (node.module or "").startswith("eyecite")
            if imported and any(alias.name == what for alias in node.names):
                holders.add(name)
    assert holders == {home}


def test_one_public_extract_citations() -> None:
    """One public function named `extract_citations` (the checker's, returning `FoundCitation`s)."""
    defined = [
        name
        for name, tree in _modules().items()
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "extract_citations"
    ]
    assert defined == ["check/extract.py"]


# ------------------------------------------------------------------------------------------------------ eyecite


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("   ", []),
        (
            "Brown, 347 U.S. 483, 74 S. Ct. 686 (1954)",
            [Citation("347", "U.S.", "483"), Citation("74", "S. Ct.", "686")],
        ),
        ("1 Cranch 137", [Citation("5", "U.S.", "137")]),
    ],
)
def test_parse_citations(text: str, expected: list[Citation]) -> None:
    assert parse_citations(text) == expected


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("1 Cranch 137", ("5", "U.S.", "137")),
        ("347 U.S. 483", ("347", "U.S.", "483")),
        ("576 U.S. ___", ("576", "U.S.", None)),
    ],
)
def test_eyecite_citations_and_canonical_parts(text: str, parts: tuple[str | None, ...]) -> None:
    (found,) = eyecite_citations(text)
    assert canonical_parts(found) == parts


@pytest.mark.parametrize(
    ("pin", "page"),
    [(None, None), ("", None), ("495", 495), ("at 322-23", 322), (" at 5 n.3", 5), ("*738", None), ("at *5", None)],
)
def test_first_number(pin: str | None, page: int | None) -> None:
    assert first_number(pin) == page


# --------------------------------------------------------------------------------------------- around a citation

CITED = "See Smith v. Jones, 100 F.3d 1 (9th Cir. 1999), cert. denied, 522 U.S. 1 (1999)."


@pytest.mark.parametrize(
    ("reader", "expected"),
    [
        (lambda: name_before(CITED, CITED.index("100 F.3d"), 0), ("Smith v. Jones", 4)),
        (lambda: year_after(CITED, CITED.index("1 (9th") + 1, len(CITED)), (1999, "ca9", 46)),
        (lambda: history_before(CITED, CITED.index("522"), 0), "cert. denied"),
        (lambda: history_before(CITED, CITED.index("100 F.3d"), 0), None),
    ],
)
def test_context_readers(reader, expected) -> None:
    assert reader() == expected


@pytest.mark.parametrize("text", ["", "one", "a b\n\nc " * 500, "Sentence one. Sentence two. " * 700])
def test_chunks_cover_the_text(text: str) -> None:
    bounds = chunk_bounds(text, size=1000)
    assert "".join(text[start:end] for start, end in bounds) == text
    assert all(start < end for start, end in bounds)


@pytest.mark.parametrize(
    ("text", "flat"), [("477\nU.S.  242", "477 U.S. 242"), ("a\n\n\nb", "a\nb"), ("plain", "plain")]
)
def test_flatten_keeps_offsets(text: str, flat: str) -> None:
    result, mapping = flatten(text)
    assert result == flat
    assert all(text[mapping[i]] == char or char in " \n" for i, char in enumerate(result))


# ----------------------------------------------------------------------------------------------------- case names


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        ("Brown v. Board of Educ.", "brown v board of education"),
        ("Smith et al. v. Jones", "smith v jones"),
        ("Gonzáles v. U.S.", "gonzales v united states"),
    ],
)
def test_normalize_case_name(name: str, normalized: str) -> None:
    assert normalize_case_name(name) == normalized


@pytest.mark.parametrize(
    ("document", "database", "matches"),
    [
        ("N.Y. Times Co. v. Sullivan", "New York Times Company v. Sullivan", True),
        ("TVA", "Tennessee Valley Authority v. Hill", True),
        ("Plessy v. Ferguson", "Brown v. Ferguson", False),
        ("Brown v. Bd. of Educ.", "Brown v. Board of Education of Topeka", True),
    ],
)
def test_names_match(document: str, database: str, matches: bool) -> None:
    assert names_match(document, [database])[0] is matches


def test_comparable_name_extends_normalization() -> None:
    assert comparable_name("NLRB v. Jones & Laughlin Steel Corp.").startswith("national labor relations board v")


# --------------------------------------------------------------------------------------------------------- markup


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        ("<div><p>One <i>two</i></p><script>x</script><p>three<br>four</p></div>", "One two\nthree\nfour"),
        ("<?xml version='1.0'?><opinion><author>Holmes</author><p>Text</p></opinion>", "Holmes\nText"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_markup_text(markup: str, text: str) -> None:
    assert markup_text(markup) == text


def test_parse_markup_of_nothing_is_none() -> None:
    assert parse_markup(" ") is None


@pytest.mark.parametrize(
    ("data", "text", "noted"),
    [
        (b"<div><p>One <i>two</i></p><p>three<br>four</p></div>", "One two\n\nthree\nfour", False),
        (b"<opinion><p>A <page-number>*5</page-number>B</p></opinion>", "A B", False),
        (b"<opinion><p>A <b>B</p></opinion>", "A B", True),  # not well-formed: read as HTML, with a note
    ],
)
def test_convert_markup(data: bytes, text: str, noted: bool) -> None:
    converted, note = convert_markup(data)
    assert converted == text
    assert (note is not None) is noted


# ---------------------------------------------------------------------------------------------------------- tables


@pytest.mark.parametrize(
    ("header", "error"),
    [
        (["a", "b", "c"], None),
        (["a"], "t.csv: not the table, missing columns b"),
        ([], "t.csv: not the table, missing columns a, b"),
    ],
)
def test_require_columns(header: list[str], error: str | None) -> None:
    if error is None:
        require_columns(header, ("a", "b"), Path("t.csv"), "not the table")
    else:
        with pytest.raises(BadInputError, match=error):
            require_columns(header, ("a", "b"), Path("t.csv"), "not the table")


def test_read_header_strips_names() -> None:
    assert read_header(iter([[" a ", "b"]]), Path("t.csv"), ("a",), "not the table") == ["a", "b"]


@pytest.mark.parametrize(("text", "value"), [("12", 12), (" 7 ", 7), ("", None), ("  ", None)])
def test_int_field(text: str, value: int | None) -> None:
    assert int_field({"n": text}, "n") == value


def test_int_field_rejects_words() -> None:
    with pytest.raises(RowError, match="n 'x' is not an integer"):
        int_field({"n": "x"}, "n")


def test_load_rows_turns_bad_rows_into_issues() -> None:
    result = LoadResult()
    rows = [(2, ["1", "a"]), (3, ["2"]), (4, ["x", "b"]), (5, ["4", "d"])]
    built = load_rows(rows, ["n", "s"], Path("t.csv"), "test", result, lambda row, line: (int_field(row, "n"), line))
    assert built == [(1, 2), (4, 5)]
    assert result.rows_read == 4
    assert [(issue.location, issue.message) for issue in result.issues] == [
        ("t.csv:3", "1 fields where the header has 2"),
        ("t.csv:4", "n 'x' is not an integer"),
    ]


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_open_text_reads_plain_and_gzip(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"t{suffix}"
    data = "\ufeffa,b\n1,2\n".encode()
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    with open_text(path) as handle:
        assert handle.read() == "a,b\n1,2\n"
