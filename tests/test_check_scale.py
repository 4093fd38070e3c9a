"""Issue #44, item 6: `lexprobe check` stays near-linear in the number of citations (it was quadratic: each short
form, "supra" and "378 U.S., 485" form looked at every earlier full citation, and a paragraph after a block-quote
candidate read every later citation of the document). No timing is asserted: the resolution is counted (how many
earlier cases each reference is compared with), and the quotation finder runs on a document whose size the old code
could not finish within a subprocess timeout far above what linear work needs. The figures are in BENCHMARKS.md
(bench/check_scale.py)."""

from __future__ import annotations

import json
import string
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from lexprobe.check import resolve
from lexprobe.check.extract import extract_citations

CASES = 1_500


def _name(number: int) -> str:
    """A distinct one-word party name of letters only ("Baa", "Bab", ...)."""
    letters = ""
    for _ in range(3):
        number, digit = divmod(number, 26)
        letters += string.ascii_lowercase[digit]
    return "B" + letters


def _document() -> str:
    fulls = [f"See {_name(i)} v. Dorsey, {100 + i} U.S. {10 + i} (1990)." for i in range(CASES)]
    shorts = [f"See {_name(i)}, {100 + i} U.S. at {11 + i}." for i in range(CASES)]
    supras = [f"See {_name(i)}, supra, at {12 + i}." for i in range(CASES)]
    commas = [f"As said in {_name(i)}, {100 + i} U.S., {13 + i}." for i in range(0, CASES, 10)]
    return "\n\n".join(" ".join(part) for part in (fulls, shorts, supras, commas))


def test_references_are_compared_with_their_candidates_only(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = {"pick_group": 0, "antecedent_matches": 0}
    pick_group, antecedent_matches = resolve.pick_group, resolve.antecedent_matches

    def counting_pick(doc, short, candidates, antecedent):
        compared["pick_group"] += len(candidates)  # the earlier cases handed over to choose from
        return pick_group(doc, short, candidates, antecedent)

    def counting_match(doc, antecedent, number):
        compared["antecedent_matches"] += 1
        return antecedent_matches(doc, antecedent, number)

    monkeypatch.setattr(resolve, "pick_group", counting_pick)
    monkeypatch.setattr(resolve, "antecedent_matches", counting_match)
    found = extract_citations(_document())
    kinds = Counter(c.kind for c in found)
    assert kinds["full"] == kinds["supra"] == CASES and kinds["short"] >= CASES + CASES // 11, kinds
    for citation in found[CASES:]:  # every short form, supra and comma form reaches its own case
        assert citation.refers_to is not None, citation
        target = found[citation.refers_to]
        assert target.volume is not None and target.name.startswith(citation.name.split(",")[0]), citation
    # linear: a few comparisons per reference (quadratic code made ~1,100,000 each, half the earlier cases)
    assert compared["pick_group"] <= 4 * len(found), compared
    assert compared["antecedent_matches"] <= 4 * len(found), compared


QUOTATION_CHILD = """
import sys
from lexprobe.check.extract import FoundCitation
from lexprobe.check.quotations import find_quotations
paragraphs, citations, position = [], [], 0
for i in range(int(sys.argv[1])):
    cite = f"Baa v. Dorsey, {100 + i} U.S. 10 (1990)"
    paragraph = f"{cite}, held that the rule of decision rests on reasons stated and tested by others."
    citations.append(FoundCitation(index=i, kind="full", span=(position, position + len(cite)), text=cite,
        volume=str(100 + i), reporter="U.S.", page="10", name="Baa v. Dorsey", year=1990, court=None, pin=None,
        pin_text=None, group=i, history=None))
    paragraphs.append(paragraph)
    position += len(paragraph) + 2
text = "\\n\\n".join(paragraphs)
print(len(find_quotations(text, citations).items))
"""


def test_the_quotation_finder_reads_each_paragraph_once(tmp_path: Path) -> None:
    """120,000 paragraphs that each open with a citation (every one a block-quote candidate): the linear finder
    needs about 6 s on a 2-core machine, the old one, reading every later citation for each paragraph (7.2 billion
    steps), about 10 minutes (147 s for half as many): the timeout lies 20 times above the one, 5 below the other."""
    done = subprocess.run(
        [sys.executable, "-c", QUOTATION_CHILD, "120000"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) == 0  # each paragraph holds a citation: none is a block quote


def test_the_scale_bench_runs_small(case_db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bench/check_scale.py on a 200-citation brief, with this checkout as its own baseline (behaviour only: the
    brief has the citation kinds it promises, and both codes resolve it identically)."""
    bench = Path(__file__).resolve().parents[1] / "bench"
    sys.path.insert(0, str(bench))
    try:
        import check_scale
    finally:
        sys.path.remove(str(bench))
    text = check_scale.make_brief(case_db_path, 200)
    kinds = Counter(c.kind for c in extract_citations(text))
    assert set(kinds) == {"full", "short", "id", "supra"} and sum(kinds.values()) >= 190, kinds
    root = bench.parent
    check_scale.main(["--sizes", "200", "--db", str(case_db_path), "--before", str(root), "--json"])
    (row,) = json.loads(capsys.readouterr().out)["sizes"]
    assert row["citations"] >= 190 and row["identical"] is True and row["before_killed_after_s"] is None
