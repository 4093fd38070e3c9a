"""Judge validation (Appendix C): blinded label sheets from a real run store, and kappa against human coders."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.labels import register
from lexprobe.engine.store import RunStore
from lexprobe.hallucination.report.summary import pending_judge_requests
from lexprobe.hallucination.scorers.labelsheet import (
    SHEET_COLUMNS,
    agreement_table,
    export_label_sheet,
    key_path,
    read_coded_sheet,
    write_label_sheet,
)
from lexprobe.models.types import Request, Response

MODEL = "scripted:model.jsonl"
JUDGE = "scripted:judge.jsonl"
JUDGE_TEXT = {
    "yes": "Both describe the same holding. So, the answer is yes.",
    "no": "They describe different holdings. So, the answer is no.",
    None: "I cannot tell whether they agree.",
}
# Ten judged pairs (index 0..9): the judge's verdicts and two coders' labels (None = left blank). Hand-computed:
# - coder A vs judge, rows 0-8 (row 9 has no judge verdict): agree 8/9, p_e = 5/9*6/9 + 4/9*3/9 = 42/81,
#   kappa = (72/81 - 42/81) / (39/81) = 30/39 = 10/13;
# - coder B vs judge, rows 0-8 (B left row 9 blank): agree 6/9, p_e = 42/81, kappa = 12/39 = 4/13;
# - A vs B, rows 0-8: agree 7/9, both 5 yes / 4 no, p_e = 41/81, kappa = (63 - 41) / (81 - 41) = 22/40.
VERDICTS = ["yes", "yes", "yes", "yes", "yes", "yes", "no", "no", "no", None]
CODER_A = ["yes", "yes", "yes", "yes", "yes", "no", "no", "no", "no", "yes"]
CODER_B = ["y", "Yes", " consistent ", "YES", "no", "n", "contradiction", "No", "yes", ""]


def pair_id(index: int) -> str:
    return f"central_holding|scotus|zero|case{index:02d}"


def sample(index: int, k: int) -> Request:
    return Request.from_prompt(
        MODEL,
        f"What was the central holding in Case {index}?",
        temperature=1.0,
        sample_index=k,
        max_tokens=64,
        id=f"{pair_id(index)}#{k}",
        tags={"task": "central_holding", "level": "scotus", "prompt_style": "zero", "role": f"sample{k}",
              "pair": pair_id(index)},
    )  # fmt: skip


def build_run(run_dir: Path, verdicts: list[str | None] = VERDICTS) -> None:
    """A run with len(verdicts) judged pairs, one abstaining pair (never judged) and one pair whose judge has not
    answered yet; the judge requests are the project's own (`pending_judge_requests`)."""
    store = RunStore.open(run_dir)
    store.set_meta("settings", {"model": MODEL, "judge": JUDGE})
    store.set_meta("model", MODEL)
    answers: dict[int, tuple[str, str]] = {
        index: (f"In Case {index} the Court held the statute valid.", f"- Case {index}:\nthe statute was void.\n")
        for index in range(len(verdicts) + 2)
    }
    answers[len(verdicts)] = ("I don't know.", "The Court held the statute valid.")  # abstains: not judged
    samples = [sample(index, k) for index in answers for k in (0, 1)]
    store.add_requests(samples)
    for request in samples:
        index = int(request.tags["pair"][-2:])
        store.record_response(request.request_id, Response(text=answers[index][int(request.request_id[-1])]))
    judges = pending_judge_requests(store, JUDGE)
    store.add_requests(judges)
    for request in judges:
        index = int(request.tags["pair"][-2:])
        if index < len(verdicts):  # the last pair's judge request stays pending
            store.record_response(request.request_id, Response(text=JUDGE_TEXT[verdicts[index]]))
    store.close()


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    build_run(folder)
    return folder


def export(run_dir: Path, out: Path, n: int = 10, seed: int = 0) -> Path:
    store = RunStore.open(run_dir)
    try:
        sheet = export_label_sheet(store, n, seed)
    finally:
        store.close()
    write_label_sheet(sheet, out)
    return out


def fill(sheet: Path, target: Path, labels: list[str]) -> Path:
    """Copy the sheet as one coder, labelling each row by its pair's index (looked up in the key)."""
    key = json.loads(key_path(sheet).read_text())
    with sheet.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["coder_label"] = labels[int(key["rows"][row["row_id"]]["pair"][-2:])]
    with target.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=SHEET_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return target


def test_export_is_blinded_and_keyed(run_dir: Path, tmp_path: Path) -> None:
    sheet = export(run_dir, tmp_path / "sheet.csv")
    text = sheet.read_text(encoding="utf-8")
    with sheet.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert tuple(reader.fieldnames or ()) == SHEET_COLUMNS
    assert [row["row_id"] for row in rows] == [str(i) for i in range(1, 11)]
    assert all(row["coder_label"] == "" and row["notes"] == "" for row in rows)
    assert all(row["question"].startswith("What was the central holding in Case ") for row in rows)
    # blinded: no verdict, no judge text, no pair ids
    assert "answer is" not in text and "central_holding|" not in text and "scotus" not in text
    # a response starting with "-" would be a formula in a spreadsheet: it is written as text
    assert all(row["response_2"].startswith("'- Case ") for row in rows)
    key = json.loads(key_path(sheet).read_text())
    assert key["judge"] == JUDGE and key["seed"] == 0 and key["run_dir"] == str(run_dir)
    assert key["judged_pairs"] == 10 and set(key["rows"]) == {str(i) for i in range(1, 11)}
    by_pair = {entry["pair"]: entry["judge_verdict"] for entry in key["rows"].values()}
    assert by_pair == {pair_id(i): VERDICTS[i] for i in range(10)}  # no abstaining or pending pair
    # each row's question matches its pair in the key
    for row in rows:
        assert row["question"].endswith(f"Case {int(key['rows'][row['row_id']]['pair'][-2:])}?")


def test_same_seed_same_sheet_and_short_runs(run_dir: Path, tmp_path: Path) -> None:
    first = export(run_dir, tmp_path / "a.csv", n=5, seed=3)
    second = export(run_dir, tmp_path / "b.csv", n=5, seed=3)
    other = export(run_dir, tmp_path / "c.csv", n=5, seed=4)
    assert first.read_bytes() == second.read_bytes()

    def pairs(path: Path) -> list[str]:
        rows = json.loads(key_path(path).read_text())["rows"]
        return [rows[str(i)]["pair"] for i in range(1, 6)]

    assert pairs(first) == pairs(second) != pairs(other)
    store = RunStore.open(run_dir)
    sheet = export_label_sheet(store, 50, 0)
    store.close()
    assert sheet.short and len(sheet.rows) == 10 and sheet.requested == 50


def test_kappa_against_hand_computed_values(run_dir: Path, tmp_path: Path) -> None:
    sheet = export(run_dir, tmp_path / "sheet.csv", seed=7)
    alice = fill(sheet, tmp_path / "alice.csv", CODER_A)
    bob = fill(sheet, tmp_path / "bob.csv", CODER_B)
    rows = agreement_table([alice, bob], key=key_path(sheet))
    assert [row["coders"] for row in rows] == [
        f"Coder 1 (alice) vs. {JUDGE}",
        f"Coder 2 (bob) vs. {JUDGE}",
        "Coder 1 (alice) vs. Coder 2 (bob)",
    ]
    a_judge, b_judge, a_b = rows
    assert a_judge["kappa"] == pytest.approx(10 / 13) and a_judge["agreement"] == pytest.approx(8 / 9)
    assert a_judge["n"] == 9 and a_judge["no_judge_verdict"] == 1 and "without a judge verdict" in a_judge["note"]
    assert b_judge["kappa"] == pytest.approx(4 / 13) and b_judge["agreement"] == pytest.approx(6 / 9)
    assert b_judge["n"] == 9 and b_judge["no_judge_verdict"] == 0 and b_judge["note"] is None
    assert a_b["kappa"] == pytest.approx(22 / 40) and a_b["agreement"] == pytest.approx(7 / 9) and a_b["n"] == 9


def test_no_common_rows_gives_null_kappa(run_dir: Path, tmp_path: Path) -> None:
    sheet = export(run_dir, tmp_path / "sheet.csv")
    first = fill(sheet, tmp_path / "first.csv", ["yes"] * 5 + [""] * 5)
    second = fill(sheet, tmp_path / "second.csv", [""] * 5 + ["no"] * 5)
    rows = agreement_table([first, second], key=key_path(sheet))
    assert rows[2]["kappa"] is None and rows[2]["n"] == 0 and rows[2]["note"] == "no row labelled by both"
    # the first coder said yes on rows the judge said yes to: one label throughout, kappa 1 by convention
    assert rows[0]["kappa"] == 1.0 and "by convention" in rows[0]["note"]


def test_key_is_found_next_to_the_sheet(run_dir: Path, tmp_path: Path) -> None:
    sheet = export(run_dir, tmp_path / "sheet.csv")
    fill(sheet, sheet, CODER_A)  # the coder filled the exported file itself
    assert agreement_table([sheet])[0]["kappa"] == pytest.approx(10 / 13)
    with pytest.raises(ValueError, match=r"no key file found .* pass --key"):
        agreement_table([fill(sheet, tmp_path / "alice.csv", CODER_A)])


def write_csv(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="")
    return path


def test_malformed_sheets_name_file_and_line(tmp_path: Path) -> None:
    header = ",".join(SHEET_COLUMNS) + "\r\n"
    multi_line = '1,"Q?","first\r\nsecond\r\nthird",B,yes,\r\n'  # row 1 spans lines 2-4
    bad = write_csv(tmp_path / "bad.csv", header + multi_line + "2,Q?,A,B,maybe,\r\n")
    with pytest.raises(ValueError, match=rf"^{bad}:5: coder_label 'maybe' is not a label"):
        read_coded_sheet(bad)
    dup = write_csv(tmp_path / "dup.csv", header + multi_line + "\r\n1,Q?,A,B,no,\r\n")
    with pytest.raises(ValueError, match=rf"^{dup}:6: row_id 1 appears twice \(first on line 2\)"):
        read_coded_sheet(dup)
    bad_id = write_csv(tmp_path / "id.csv", header + "x,Q?,A,B,no,\r\n")
    with pytest.raises(ValueError, match=rf"^{bad_id}:2: row_id 'x' is not a positive integer"):
        read_coded_sheet(bad_id)
    no_label = write_csv(tmp_path / "cols.csv", "row_id,question,response_1,response_2\r\n1,Q?,A,B\r\n")
    with pytest.raises(ValueError, match=rf"^{no_label}:1: missing column\(s\) coder_label"):
        read_coded_sheet(no_label)
    # a byte-order mark (Excel's "CSV UTF-8"), odd case and spaces are fine; blank means not coded
    good = tmp_path / "good.csv"
    good.write_bytes(("\ufeff" + header + "1,Q?,A,B, Contradiction ,\r\n2,Q?,A,B,,\r\n").encode("utf-8"))
    coded = read_coded_sheet(good)
    assert coded.coder == "good" and coded.labels == {1: "no", 2: None} and coded.coded == 1


def test_sheets_from_another_export_are_refused(run_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    small = export(run_dir, tmp_path / "a" / "sheet.csv", n=3, seed=0)
    other = export(run_dir, tmp_path / "b" / "sheet.csv", n=10, seed=1)
    coder = fill(other, tmp_path / "b" / "coder.csv", CODER_A)
    with pytest.raises(ValueError, match=r"row_id \d+ is not in the key .* different export"):
        agreement_table([coder], key=key_path(small))
    same_size = export(run_dir, tmp_path / "a" / "big.csv", n=10, seed=0)
    with pytest.raises(ValueError, match=r"coder\.csv:\d+: row 1's question and answers differ .* different export"):
        agreement_table([coder], key=key_path(same_size))
    mine = fill(small, tmp_path / "a" / "coder.csv", CODER_A)
    with pytest.raises(ValueError, match="same coder coder"):
        agreement_table([mine, coder], key=key_path(small))


def cli() -> typer.Typer:
    app = typer.Typer(cls=LexprobeGroup)
    register(app)
    return app


def test_cli_export_and_agreement(run_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    sheet = tmp_path / "labels" / "sheet.csv"
    result = runner.invoke(cli(), ["export-labels", str(run_dir), "--n", "20", "--out", str(sheet), "--seed", "7"])
    assert result.exit_code == 0, result.output
    assert f"{sheet}: 10 rows" in result.stdout
    assert "only 10 judged pair(s)" in result.stderr
    again = runner.invoke(cli(), ["export-labels", str(run_dir), "--n", "20", "--out", str(sheet)])
    assert again.exit_code == 2 and "--force" in again.stderr
    alice = fill(sheet, tmp_path / "alice.csv", CODER_A)
    bob = fill(sheet, tmp_path / "bob.csv", CODER_B)
    as_json = runner.invoke(cli(), ["agreement", str(alice), str(bob), "--key", str(key_path(sheet)), "--json"])
    assert as_json.exit_code == 0, as_json.output
    payload = json.loads(as_json.stdout)  # stdout holds only the JSON
    assert payload["judge"] == JUDGE
    assert [row["kappa"] for row in payload["rows"]] == pytest.approx([10 / 13, 4 / 13, 22 / 40])
    assert {"coders", "kappa", "agreement", "n"} <= set(payload["rows"][0])
    assert "9 of 10 rows coded" in as_json.stderr  # bob left one row blank
    table = runner.invoke(cli(), ["agreement", str(alice), str(bob), "--key", str(key_path(sheet))])
    assert table.exit_code == 0, table.output
    assert "Coder 1 (alice) vs. Coder 2 (bob)" in table.stdout and "0.55" in table.stdout
    assert "Landis & Koch" in table.stdout


def test_cli_errors(run_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(cli(), ["export-labels", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.csv")])
    assert missing.exit_code == 2 and "is not a run directory" in missing.stderr
    assert not (tmp_path / "nowhere").exists()
    unjudged = tmp_path / "unjudged"
    store = RunStore.open(unjudged)
    store.add_requests([sample(0, 0), sample(0, 1)])
    store.close()
    result = runner.invoke(cli(), ["export-labels", str(unjudged), "--out", str(tmp_path / "x.csv")])
    assert result.exit_code == 2 and "no judged pairs" in result.stderr and result.stdout == ""
    bad = write_csv(tmp_path / "bad.csv", ",".join(SHEET_COLUMNS) + "\n1,Q?,A,B,perhaps,\n")
    sheet = export(run_dir, tmp_path / "sheet.csv")
    result = runner.invoke(cli(), ["agreement", str(bad), "--key", str(key_path(sheet)), "--json"])
    assert result.exit_code == 2 and f"{bad}:2:" in result.stderr and result.stdout == ""
    result = runner.invoke(cli(), ["agreement", str(bad)])
    assert result.exit_code == 2 and "no key file found" in result.stderr


def test_cli_agreement_names_missing_sheets(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli(), ["agreement", str(tmp_path / "nope.csv")])
    assert result.exit_code == 2 and "file not found" in result.output and "nope.csv" in result.output
