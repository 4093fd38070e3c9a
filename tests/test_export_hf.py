"""`lexprobe export --format hf`: the hallucination items as a Hugging Face dataset folder, with a run (its answers
and labels) and without one (sampled as `hallucination run` samples), loaded back offline by the real `datasets`
and by Inspect's `hf_dataset` through the folder's eval.yaml; the card's front matter parses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.cli import app as cli_app
from lexprobe.engine.store import RunStore
from lexprobe.hallucination.labels.score import REFERENCE_SCORER
from lexprobe.hallucination.profile.results import read_run
from lexprobe.hallucination.run.items import plan_items
from lexprobe.interop.export import SampleOptions

datasets = pytest.importorskip("datasets")


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))


def invoke(*args: str) -> dict:
    result = CliRunner().invoke(cli_app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def front_matter(folder: Path) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def load(folder: Path, config: str):
    return datasets.load_dataset(str(folder), name=config, split="test", cache_dir=str(folder.parent / "cache"))


def test_sampled_items_load_by_config(case_db_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "llf"
    options = [
        "--tasks",
        "existence,author,fake_existence",
        "--levels",
        "scotus",
        "--n",
        "5",
        "--seed",
        "2",
        "--complete-cases",
    ]
    summary = invoke("export", "--format", "hf", "--out", str(out), "--db", str(case_db_path), *options)
    settings = SampleOptions(
        tasks="existence,author,fake_existence", levels="scotus", n=5, seed=2, complete_cases=True
    ).settings()
    database = CaseDatabase(case_db_path)
    try:
        plan = plan_items(database, settings.tasks, settings.levels, settings.styles, settings.n, settings.seed,
                          years=settings.windows, complete_cases=True)  # fmt: skip
    finally:
        database.close()
    meta = front_matter(out)
    configs = [c["config_name"] for c in meta["configs"]]
    assert configs == ["author", "existence", "fake_existence", "legal_eval"] == list(summary["configs"])
    assert meta["license"] == "other" and "Supreme Court Database" in meta["license_details"]
    for task in ("author", "existence", "fake_existence"):
        rows = load(out, task)
        expected = [item for item in plan.items if item.task == task]
        assert sorted(rows["id"]) == sorted(item.item_id for item in expected)
        assert {row["id"]: row["prompt"] for row in rows} == {item.item_id: item.prompt for item in expected}
    author = load(out, "author")[0]
    assert (
        json.loads(author["reference"])["author"].endswith(author["answer_key"]) and author["eval_method"] == "contains"
    )
    assert set(load(out, "fake_existence")["eval_method"]) == {"lexprobe"}
    flat = load(out, "legal_eval")
    assert flat.column_names == ["benchmark", "task_name", "input", "answer", "eval_method"]
    assert len(flat) == len(plan.items)
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "seed 2" in card and "## Reference fields" in card and "public domain" in card


def test_eval_yaml_is_what_inspect_reads(case_db_path: Path, tmp_path: Path) -> None:
    from inspect_ai.dataset import FieldSpec, hf_dataset

    out = tmp_path / "llf"
    invoke("export", "--format", "hf", "--out", str(out), "--db", str(case_db_path), "--tasks", "existence,author",
           "--levels", "scotus", "--n", "3", "--complete-cases")  # fmt: skip
    tasks = yaml.safe_load((out / "eval.yaml").read_text(encoding="utf-8"))["tasks"]
    assert [task["id"] for task in tasks] == ["author", "existence"]
    for task in tasks:
        assert task["solvers"] == [{"name": "generate"}] and task["scorers"] == [{"name": "includes"}]
        spec = FieldSpec(**task["field_spec"])
        dataset = hf_dataset(str(out), name=task["config"], split=task["split"], sample_fields=spec, cached=False)
        assert len(dataset) == len(load(out, task["config"]))
        assert all(sample.target and sample.input and sample.metadata["task"] == task["id"] for sample in dataset)


def test_a_run_exports_its_answers_and_labels(case_db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(cli_app, [
        "hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence,fake_existence,disposition",
        "--levels", "scotus", "--n", "4", "--samples", "0", "--run-dir", str(run_dir), "--db", str(case_db_path),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    out = tmp_path / "run-hf"
    summary = invoke("export", str(run_dir), "--format", "hf", "--out", str(out))
    assert summary["with_run"] is True
    store = RunStore.open_read_only(run_dir)
    try:
        labels = {rid: label for (rid, scorer), (label, _) in store.scores().items() if scorer == REFERENCE_SCORER}
    finally:
        store.close()
    _, units = read_run(run_dir)
    loaded = {}
    for task in [name for name in summary["configs"] if name != "legal_eval"]:
        for row in load(out, task):
            loaded[row["id"]] = row
    assert len(loaded) == len(units) and all(row["answer"] == "Yes" for row in loaded.values())
    assert {rid: row["label"] for rid, row in loaded.items()} == labels
    assert "`label`" in (out / "README.md").read_text(encoding="utf-8") and front_matter(out)["configs"]
    again = CliRunner().invoke(cli_app, ["export", str(run_dir), "--format", "hf", "--out", str(out)])
    assert again.exit_code == 2 and "--force" in again.output
