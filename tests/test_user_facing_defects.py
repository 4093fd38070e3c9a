"""Issue 29, the things a user sees: `check` on awkward file names and on files that are not documents (items 8
and 10), and the demo report and the small command-line defects of item 12 (error bars past 100 %, an all-grey
circuit map, a calibration table wider than the page, a leftover /tmp folder, dry runs that write, the
investigation group's summary, the models table at 80 columns).

Real runs throughout: the `lexprobe` console script as a subprocess, the case database built from the public data,
the scripted model through the engine, the page opened in headless Chromium.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import typer
from matplotlib.collections import LineCollection
from page_checks import render_page
from tool_requirements import needs_chromium
from typer.testing import CliRunner

from lexprobe.caselaw.judges import load_justices
from lexprobe.hallucination.profile.results import Unit
from lexprobe.models.spec import SPEC_FORMS
from lexprobe.reporting import figures

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
BROWN = "Brown v. Board of Education, 347 U.S. 483 (1954).\n"


def lexprobe(*args: str | bytes, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300):
    """Run the console script (arguments may be bytes: a file name that is not UTF-8); output decoded leniently."""
    done = subprocess.run([LEXPROBE, *args], capture_output=True, cwd=cwd, env=env or os.environ.copy(),
                          timeout=timeout)  # fmt: skip
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


# --- item 8: a file name that is not valid UTF-8 --------------------------------------------------------------------


def test_check_a_non_utf8_file_name_prints_table_json_and_page(tmp_path: Path, case_db_path: Path) -> None:
    (tmp_path / os.fsdecode(b"brief\xff.txt")).write_text(BROWN)
    page = b"page\xfe.html"
    code, out, err = lexprobe("check", b"brief\xff.txt", "--db", str(case_db_path), "--html", page, cwd=tmp_path)
    assert code == 0, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    assert r"brief\xff.txt: 1 verified" in out  # the byte shown as a visible escape
    html = (tmp_path / os.fsdecode(page)).read_bytes()
    assert len(html) > 1000
    text = html.decode("utf-8")  # the page is valid UTF-8
    assert r"brief\xff.txt" in text and "1 verified" in text
    assert r"page\xfe.html" in err  # where the page went, escaped the same way
    code, out, err = lexprobe("check", b"brief\xff.txt", "--db", str(case_db_path), "--json", cwd=tmp_path)
    assert code == 0, err
    assert json.loads(out)["summary"]["files"][0]["path"] == r"brief\xff.txt"
    out.encode("utf-8")  # no lone surrogate printed


def test_check_error_names_a_non_utf8_file_escaped(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"empty\xff.txt")).write_bytes(b"")
    code, _, err = lexprobe("check", b"empty\xff.txt", "--db", str(tmp_path / "absent.sqlite"), cwd=tmp_path)
    assert code == 2
    assert err == "error: cannot read empty\\xff.txt: empty file\n"


def test_write_page_is_atomic(tmp_path: Path) -> None:
    from lexprobe.reporting.html import write_page

    page = tmp_path / "report.html"
    with pytest.raises(UnicodeEncodeError):
        write_page(page, "<p>\udcff</p>")  # what a surrogate-escaped file name did to the page
    assert not page.exists()  # no 0-byte page left behind
    write_page(page, "<p>old</p>")
    with pytest.raises(UnicodeEncodeError):
        write_page(page, "<p>new \ud800</p>")
    assert page.read_text(encoding="utf-8") == "<p>old</p>"  # the page before the failure is kept whole
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left either
    write_page(page, "<p>é</p>")
    assert page.read_bytes() == "<p>é</p>".encode()


def test_display_name_escapes_only_what_is_not_utf8() -> None:
    from lexprobe.check.render_html import display_name

    assert display_name("brief.txt") == "brief.txt"
    assert display_name("mémoire.pdf") == "mémoire.pdf"
    assert display_name(Path(os.fsdecode(b"a\xff\xfeb.txt"))) == r"a\xff\xfeb.txt"
    assert display_name("lone\ud800") == r"lone\ud800"


# --- item 10: files that are not documents, files that do not exist -------------------------------------------------


def _fifo(folder: Path) -> str:
    os.mkfifo(folder / "pipe.txt")
    return "pipe.txt"


def _zero_link(folder: Path) -> str:
    (folder / "zero.txt").symlink_to("/dev/zero")  # a document name that leads to an endless device
    return "zero.txt"


NOT_DOCUMENTS = [
    ("/dev/zero", lambda folder: "/dev/zero", "/dev/zero: not a regular file (a device)"),
    ("/dev/urandom", lambda folder: "/dev/urandom", "/dev/urandom: not a regular file (a device)"),
    ("a link to /dev/zero", _zero_link, "zero.txt: not a regular file (a device)"),
    ("a FIFO", _fifo, "pipe.txt: not a regular file (a named pipe)"),
    ("a folder", lambda folder: ".", ".: not a regular file (a folder)"),
    ("missing, no suffix", lambda folder: "brief", "brief: not found (no such file)"),
    ("missing .txt", lambda folder: "missing.txt", "missing.txt: not found (no such file)"),
]


@pytest.mark.parametrize(("name", "make", "message"), NOT_DOCUMENTS, ids=[case[0] for case in NOT_DOCUMENTS])
def test_check_says_what_is_wrong_with_a_file_that_is_no_document(tmp_path: Path, name, make, message) -> None:
    target = make(tmp_path)
    # the timeout catches a reader that blocks on the FIFO or reads the endless device
    code, out, err = lexprobe("check", target, "--db", str(tmp_path / "absent.sqlite"), cwd=tmp_path, timeout=60)
    assert code == 2 and out == ""
    assert err.startswith(f"error: cannot read {message}") and len(err.splitlines()) == 1, err


def test_extract_text_never_opens_a_fifo(tmp_path: Path) -> None:
    from lexprobe.documents.extract import ExtractionError, extract_text

    os.mkfifo(tmp_path / "pipe.md")
    with pytest.raises(ExtractionError, match="not a regular file"):
        extract_text(tmp_path / "pipe.md")  # returns at once: opening the FIFO would block with no writer


# --- item 12: error bars of rates stay within [0, 1] ----------------------------------------------------------------


def _whisker_ys(fig) -> np.ndarray:
    """Every y coordinate of the error bars drawn in the figure's axes."""
    ax = fig.axes[0]
    ys = [segment[:, 1] for col in ax.collections if isinstance(col, LineCollection) for segment in col.get_segments()]
    return np.concatenate(ys)


CLIPPED = [
    ("bar chart", lambda: figures.bar_chart(["low", "high"], {"m": [0.9, 0.05]}, {"m": [0.15, 0.1]}, percent=True)),
    ("line chart", lambda: figures.line_chart([1, 2], {"m": [0.95, 0.02]}, {"m": [0.2, 0.1]}, percent=True)),
    ("calibration", lambda: figures.calibration_curve({"m": [(0.9, 0.9, 3), (0.2, 0.1, 4)]})),
]


@pytest.mark.parametrize(("kind", "draw"), CLIPPED, ids=[case[0] for case in CLIPPED])
def test_rate_error_bars_are_cut_at_0_and_1(kind: str, draw) -> None:
    fig = draw()
    ys = _whisker_ys(fig)
    assert len(ys) and ys.max() <= 1.0 + 1e-9 and ys.min() >= -1e-9, (kind, ys)
    assert np.isclose(ys.max(), 1.0)  # the interval still reaches the bound it was cut at
    if kind != "calibration":
        assert fig.axes[0].get_ylim()[1] < 1.1  # the axis no longer runs up to 115 %


def test_error_bars_that_fit_are_unchanged() -> None:
    fig = figures.bar_chart(["a"], {"m": [0.5]}, {"m": [0.1]}, percent=True)
    ys = _whisker_ys(fig)
    assert np.allclose(sorted({round(y, 6) for y in ys}), [0.5 - 0.196, 0.5 + 0.196])


# --- item 12: the circuit map of a run with no appeals-court answers ------------------------------------------------


def _scotus_units() -> list[Unit]:
    return [Unit("m", "existence", "scotus", "zero", "hallucination" if i % 3 else "correct", year=1900 + i)
            for i in range(12)]  # fmt: skip


def test_empty_circuit_map_is_hidden_with_a_reason(tmp_path: Path) -> None:
    from lexprobe.hallucination.profile.stats import profile
    from lexprobe.hallucination.report.html import figures as report_figures
    from lexprobe.hallucination.report.html import write_html_report

    units = _scotus_units()
    stats = profile(units, load_justices(), prompt_style="zero")
    drawn = {figure["title"]: figure for figure in report_figures(stats, ["m"])}
    circuit = drawn["Hallucination rate by circuit (cf. Figure 3)"]
    assert circuit["uri"] is None and circuit["empty"]
    assert "no appeals-court questions" in circuit["caption"] and "\n" not in circuit["caption"]
    page = tmp_path / "report.html"
    write_html_report(page, [{"model": "m", "run_dir": "runs/m", "judge": "m"}], stats, units)
    html = page.read_text()
    assert html.count("<figure>") == sum(1 for figure in drawn.values() if not figure["empty"])
    assert '<p class="note figure-skipped"><strong>Hallucination rate by circuit (cf. Figure 3)</strong>' in html


def test_circuit_map_with_data_is_still_drawn() -> None:
    from lexprobe.hallucination.profile.stats import profile
    from lexprobe.hallucination.report.html import figures as report_figures

    units = _scotus_units() + [Unit("m", "court", "coa", "zero", "correct", circuit="ca9", year=1995)
                               for _ in range(5)]  # fmt: skip
    stats = profile(units, load_justices(), prompt_style="zero")
    circuit = next(f for f in report_figures(stats, ["m"]) if "circuit" in f["title"])
    assert circuit["uri"] and not circuit["empty"] and "n=5" in circuit["caption"]


# --- item 12: the demo: no folder left behind, a report that fits at 1,400 px ---------------------------------------


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory, case_db_path: Path) -> Iterator[dict]:
    """One demo of the scripted model (one case, K=2), TMPDIR pointed at a folder of its own."""
    root = tmp_path_factory.mktemp("demo")
    cache, temp = root / "cache", root / "tmp"
    cache.mkdir()
    temp.mkdir()
    shutil.copy(case_db_path, cache / "caselaw.sqlite")  # the demo's default database, already built
    script = root / "yes.jsonl"
    script.write_text(json.dumps({"text": "Yes"}) + "\n")
    env = os.environ | {"LEXPROBE_CACHE": str(cache), "TMPDIR": str(temp)}
    page = root / "demo-report.html"
    code, out, err = lexprobe("demo", "--model", f"scripted:{script}", "--n", "1", "--samples", "2", "--html",
                              str(page), cwd=root, env=env, timeout=1200)  # fmt: skip
    yield {"code": code, "out": out, "err": err, "temp": temp, "page": page}


def test_demo_leaves_no_temporary_folder(demo_run: dict) -> None:
    assert demo_run["code"] == 0, demo_run["err"]
    assert list(demo_run["temp"].glob("lexprobe-demo-*")) == []
    err = " ".join(demo_run["err"].split())
    assert "temporary run folder was removed" in err and "--run-dir" in err
    assert "Reprint this table with" not in demo_run["out"]  # no hint pointing at a folder that is gone
    assert "a temporary folder, removed after the demo" in demo_run["page"].read_text()


def test_demo_with_run_dir_keeps_it(tmp_path: Path, case_db_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copy(case_db_path, cache / "caselaw.sqlite")
    script = tmp_path / "yes.jsonl"
    script.write_text(json.dumps({"text": "Yes"}) + "\n")
    env = os.environ | {"LEXPROBE_CACHE": str(cache), "TMPDIR": str(tmp_path)}
    code, out, err = lexprobe("demo", "--model", f"scripted:{script}", "--n", "1", "--samples", "0", "--run-dir",
                              "kept", cwd=tmp_path, env=env, timeout=1200)  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "kept" / "run.sqlite").is_file()
    assert "Reprint this table with: lexprobe hallucination report kept" in " ".join(out.split())
    assert "temporary run folder" not in err


@needs_chromium
def test_demo_report_fits_1400_px_and_hides_the_empty_map(demo_run: dict) -> None:
    assert demo_run["code"] == 0, demo_run["err"]
    html = demo_run["page"].read_text()
    assert "figure-skipped" in html and "Courts of Appeals: rate by circuit" not in html
    result = render_page(demo_run["page"], width=1400)
    assert result.ok, result.to_json()
    assert result.sideways == []  # the calibration table scrolled sideways (1392 px of content in 1116 px)


@needs_chromium
def test_calibration_table_with_long_names_and_notes_fits_1400_px(tmp_path: Path) -> None:
    from lexprobe.hallucination.profile.stats import profile
    from lexprobe.hallucination.report.html import write_html_report

    model = "openai-compatible/llama3@http://127.0.0.1:8000/v1"
    units = [Unit(model, task, "scotus", "zero", "correct" if i % 3 else "hallucination", confidence=(i % 5) / 4,
                  year=1900 + i) for task in ("existence", "court") for i in range(30)]  # fmt: skip
    stats = profile(units, load_justices(), prompt_style="zero")
    assert stats["calibration"]
    for row in stats["calibration"]:  # the longest note the calibration rows can carry
        row["note"] = ("mass/debiased ECE undefined: a bin holds a single answer; Platt scaling needs both outcomes "
                       "in the fitting split and two held-out answers")  # fmt: skip
    page = tmp_path / "report.html"
    write_html_report(page, [{"model": model, "run_dir": "runs/x", "judge": model}], stats, units)
    result = render_page(page, width=1400)
    assert result.ok, result.to_json()
    assert result.sideways == []


# --- item 12: a dry run writes nothing ------------------------------------------------------------------------------


def _dry_runs(script: Path, db: Path) -> dict[str, list[str]]:
    """The commands that take --dry-run, each with a run directory "R"."""
    model = f"scripted:{script}"
    profile = ["--tasks", "existence", "--n", "2", "--samples", "0", "--run-dir", "R", "--db", str(db)]
    return {
        "hallucination run": ["hallucination", "run", "--dry-run", "--model", model, *profile],
        "ask": ["ask", "--dry-run", "--model", model, "--run-dir", "R", "Who wrote Marbury v. Madison?"],
    }


@pytest.mark.parametrize("which", ["hallucination run", "ask"])
def test_dry_run_creates_no_run_directory_and_no_cache(tmp_path: Path, case_db_path: Path, which: str) -> None:
    script = tmp_path / "yes.jsonl"
    script.write_text(json.dumps({"text": "Yes"}) + "\n")
    args = _dry_runs(script, case_db_path)[which]
    env = os.environ | {"LEXPROBE_CACHE": str(tmp_path / "fresh-cache")}
    code, out, err = lexprobe(*args, cwd=tmp_path, env=env)
    assert code == 0, err
    assert "dry run:" in out and "to send" in out
    assert not (tmp_path / "R").exists()  # neither the folder nor its run.sqlite
    assert not (tmp_path / "fresh-cache").exists()  # nor a response cache


def test_dry_run_reads_an_existing_run_without_changing_it(tmp_path: Path, case_db_path: Path) -> None:
    script = tmp_path / "yes.jsonl"
    script.write_text(json.dumps({"text": "Yes"}) + "\n")
    args = _dry_runs(script, case_db_path)["hallucination run"]
    real = [arg for arg in args if arg != "--dry-run"]
    code, _, err = lexprobe(*real, cwd=tmp_path)
    assert code == 0, err
    before = (tmp_path / "R" / "run.sqlite").read_bytes()
    code, out, err = lexprobe(*args, cwd=tmp_path)
    assert code == 0, err
    assert "4 already done" in out and "0 to send" in out
    assert (tmp_path / "R" / "run.sqlite").read_bytes() == before


@pytest.mark.parametrize("command", [["investigation", "run", "env"], ["investigation", "qa", "env"]])
def test_commands_without_a_dry_run_refuse_it_and_write_nothing(tmp_path: Path, command: list[str]) -> None:
    code, _, err = lexprobe(*command, "--dry-run", "--run-dir", "R", cwd=tmp_path)
    assert code == 2 and "No such option: --dry-run" in err
    assert list(tmp_path.iterdir()) == []


# --- item 12: `investigation --help` and `models` -------------------------------------------------------------------


def test_investigation_group_summary_names_every_subcommand() -> None:
    from lexprobe.cli import app

    root = typer.main.get_command(app)
    context = root.make_context("lexprobe", ["investigation"], resilient_parsing=True)
    group = root.get_command(context, "investigation")
    names = group.list_commands(context)
    assert {"validate", "run", "show", "score", "qa", "build", "sample"} <= set(names)
    summary = group.help
    missing = [name for name in names if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", summary)]
    assert missing == [], summary
    result = CliRunner().invoke(app, ["investigation", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "run agents through it (run)" in " ".join(result.stdout.split())


@pytest.mark.parametrize("columns", [80, 200])
def test_models_table_shows_every_spec_whole(tmp_path: Path, columns: int) -> None:
    env = os.environ | {"COLUMNS": str(columns), "LEXPROBE_CACHE": str(tmp_path / "cache")}
    code, out, err = lexprobe("models", cwd=tmp_path, env=env)
    assert code == 0, err
    assert "…" not in out  # nothing cut with an ellipsis
    assert all(len(line) <= columns for line in out.splitlines())
    for form, description in SPEC_FORMS:
        assert form in out, form  # each spec on one line, whole
        assert description.split()[0] in out
