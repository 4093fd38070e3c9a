"""Terminal escapes (issue 12, item 5): untrusted text reaches the terminal only as visible, inert text.

Model replies, tool output, stored commands, verdict reasons, document text and file names can hold ESC
sequences (clear screen, window title, OSC 8 hyperlinks), C1 controls ("\\x9b" is a CSI on its own), bidirectional
overrides, Rich markup ("[bold]", "[link=...]") and emoji codes. The real `lexprobe investigation show` (on a run of
the scripted model through the sample environment) and `lexprobe check` (on a brief with a hostile name and text)
must print none of those characters raw and must show the markup exactly as the agent or the document wrote it.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tool_requirements import needs_bwrap

from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.terminal import safe_json, safe_markup, safe_text

LEXPROBE = Path(sys.executable).with_name("lexprobe")
#: What must never reach the terminal raw: C0 controls but tab and newline, DEL, C1 controls, bidi controls.
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
ESC = "\x1b"
HOSTILE = (
    f"clear{ESC}[2J title{ESC}]0;pwned\x07 link{ESC}]8;;http://evil.example{ESC}\\click{ESC}]8;;{ESC}\\ "
    f"csi\x9b31m bidi\u202eevil back\rspace [bold]x[/bold] [link=http://evil.example]y[/link] :smile:"
)
#: How HOSTILE must look once printed.
SHOWN = (
    r"clear\x1b[2J title\x1b]0;pwned\x07 link\x1b]8;;http://evil.example\x1b\click\x1b]8;;\x1b\ "
    r"csi\x9b31m bidi\u202eevil back\x0dspace [bold]x[/bold] [link=http://evil.example]y[/link] :smile:"
)
VERDICT_KEY = "give your view on each hypothesis"


def lexprobe(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the real `lexprobe` with a wide terminal (so Rich does not wrap the lines under test)."""
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run([str(LEXPROBE), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def assert_inert(output: str) -> None:
    """No control character of RAW_CONTROL in `output` (decoded as UTF-8, so a C1 character counts too)."""
    found = sorted({f"U+{ord(c):04X}" for c in RAW_CONTROL.findall(output)})
    assert not found, f"raw control characters reached the terminal: {found}"


# --- the sanitizer -----------------------------------------------------------------------------------------------


def test_safe_text_shows_every_control_character_and_keeps_newlines_and_tabs() -> None:
    assert safe_text(HOSTILE) == SHOWN
    assert safe_text("a\tb\nc\x00d\x7fe\x85f\u2067g") == "a\tb\nc\\x00d\\x7fe\\x85f\\u2067g"
    assert safe_text("plain text, ünïcödé, 中文") == "plain text, ünïcödé, 中文"


def test_safe_markup_escapes_rich_markup() -> None:
    from rich.console import Console

    console = Console(width=200, record=True, force_terminal=False, emoji=False)
    console.print(f"[bold]{safe_markup(HOSTILE)}[/]", highlight=False)
    assert console.export_text().rstrip("\n") == SHOWN


def test_safe_json_stays_json_with_the_same_value() -> None:
    document = json.dumps({"reason": HOSTILE}, ensure_ascii=False)
    assert RAW_CONTROL.search(document)
    safe = safe_json(document)
    assert not RAW_CONTROL.search(safe) and json.loads(safe) == {"reason": HOSTILE}


# --- investigation show ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "merits")


def hostile_run(env: Path, tmp_path: Path, first_calls: list[dict], *options: str) -> tuple[Path, str]:
    """Run one episode of a scripted agent that writes HOSTILE everywhere it can; return the run dir and id."""
    script = [
        {"text": HOSTILE, "tool_calls": first_calls},
        {"text": "Summary: " + HOSTILE},
        {"when": VERDICT_KEY, "text": json.dumps([{"label": "H1", "verdict": "A", "reason": HOSTILE}])},
    ]
    path = tmp_path / "agent.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in script))
    run_dir = tmp_path / "run"
    done = lexprobe("investigation", "run", str(env), "--model", f"scripted:{path}", "--run-dir", str(run_dir),
                    "--no-cache", *options, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    listing = lexprobe("investigation", "show", str(run_dir), cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert_inert(listing.stdout + listing.stderr)
    return run_dir, listing.stdout.split(": ")[0]


def test_show_prints_transcript_text_inert_and_markup_literally(sample_env: Path, tmp_path: Path) -> None:
    calls = [
        {"name": "grep", "arguments": {"pattern": "cat [bold]x[/bold]"}},
        {"name": "read", "arguments": {"path": f"DOC-{ESC}]0;t\x07[red]x[/red].txt"}},
    ]
    run_dir, episode_id = hostile_run(sample_env, tmp_path, calls, "--no-shell")
    shown = lexprobe("investigation", "show", str(run_dir), episode_id, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    output = shown.stdout + shown.stderr
    assert_inert(output)
    assert SHOWN in output  # the assistant's reply, as written: escapes visible, markup and emoji code literal
    assert 'call grep({"pattern": "cat [bold]x[/bold]"})' in output  # the command the agent ran, not "cat x"
    assert r'call read({"path": "DOC-\u001b]0;t\u0007[red]x[/red].txt"})' in output
    assert r"'DOC-\x1b]0;t\x07[red]x[/red].txt'" in output  # the read tool's error, naming the path
    assert r"clear\x1b[2J title\x1b]0;pwned\x07" in output.split("verdicts")[-1]  # the verdict table's reason

    as_json = lexprobe("investigation", "show", str(run_dir), episode_id, "--json", cwd=tmp_path)
    assert_inert(as_json.stdout)
    assert json.loads(as_json.stdout)["summary"] == "Summary: " + HOSTILE  # still the exact stored value


@needs_bwrap
def test_show_prints_shell_output_inert(sample_env: Path, tmp_path: Path) -> None:
    command = r"printf 'out\033[2J\033]0;pwned\007\302\233 [bold]x[/bold]\n'"
    run_dir, episode_id = hostile_run(sample_env, tmp_path, [{"name": "shell", "arguments": {"command": command}}])
    shown = lexprobe("investigation", "show", str(run_dir), episode_id, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert_inert(shown.stdout + shown.stderr)
    assert r"out\x1b[2J\x1b]0;pwned\x07\x9b [bold]x[/bold]" in shown.stdout
    assert "printf 'out" in shown.stdout and "[bold]x[/bold]" in shown.stdout


# --- check -------------------------------------------------------------------------------------------------------

BRIEF = (
    "The court held, see Brown\x9b2J v. [bold]Board[/bold] of Educ., 347 U.S. 483, 495 (1954), and "
    "Fake\u202eName v. [link=http://evil.example]Nobody[/link], 999 U.S. 999 (2001) :smile:.\n"
)
BRIEF_NAME = f"brief{ESC}]0;pwned\x07[red]x.txt"  # a file name cannot hold "/", so no closing tag


def test_check_prints_document_text_and_file_names_inert(case_db_path: Path, tmp_path: Path) -> None:
    (tmp_path / BRIEF_NAME).write_text(BRIEF, encoding="utf-8")
    done = lexprobe("check", BRIEF_NAME, "--db", str(case_db_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    output = done.stdout + done.stderr
    assert_inert(output)
    assert r"brief\x1b]0;pwned\x07[red]x.txt: 2 citations" in output  # the table title, markup not applied
    assert r"brief\x1b]0;pwned\x07[red]x.txt: 1 verified" in output  # the summary line
    assert r"see Brown\x9b2J v. [bold]Board[/bold] of" in output
    assert r"Fake\u202eName v. [link=http://evil.example]Nobody[/link]" in output
    assert ":smile:" in output


def test_check_error_line_is_inert(tmp_path: Path) -> None:
    (tmp_path / BRIEF_NAME).write_bytes(b"")
    done = lexprobe("check", BRIEF_NAME, "--db", str(tmp_path / "absent.sqlite"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "error: cannot read brief\\x1b]0;pwned\\x07[red]x.txt: empty file\n"


# --- stored text: a CAP case, a model spec (issue 44, item 2) ----------------------------------------------------
# Values stored by lexprobe's own builders and runs, printed by every command that shows them: the terminal tables
# and lines, --json, the HTML report (autoescape makes "<>&" harmless but not ESC or U+202E), its figures (and
# matplotlib's glyph warning on stderr) and the viewer's static copy.

CASE_NAME = f"Esc{ESC}]0;PWNED\x07{ESC}[2J v. \u202eTerm\x00inal"
CASE_SHOWN = r"Esc\x1b]0;PWNED\x07\x1b[2J v. \u202eTerm\x00inal"
AUTHOR = f"[bold]Re\x9bd{ESC}[31m\u2066"  # markup, a C1 control (CSI), a colour and an isolate
AUTHOR_SHOWN = r"[bold]Re\x9bd\x1b[31m\u2066"
CITE = "901 F.3d 77"
MODEL_FILE = f"Yes{ESC}]0;PWNED\x07\u202eevil\x9b[bold]x.jsonl"
MODEL_SHOWN = r"Yes\x1b]0;PWNED\x07\u202eevil\x9b[bold]x.jsonl"


def assert_inert_file(path: Path) -> None:
    """No raw control character in the text of `path`, nor in any base64 image (a figure) embedded in it."""
    text = path.read_text(encoding="utf-8")
    assert_inert(text)
    for image in re.findall(r"base64,([A-Za-z0-9+/=]+)", text):
        assert_inert(base64.b64decode(image).decode("utf-8", errors="replace"))


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A case database built by the real `data build --cap` from a CAP case (a real case file of the shared data)
    whose name and author are hostile; the build's own output is inert too."""
    from lexprobe.caselaw.paths import data_root

    folder = tmp_path_factory.mktemp("hostile-db")
    case = json.loads(
        next((data_root() / "formats" / "cap_static" / "a2d" / "100" / "cases").glob("*.json")).read_text()
    )
    case.update(id=990001, name=CASE_NAME, name_abbreviation=CASE_NAME, citations=[{"type": "official", "cite": CITE}],
                court={"id": 1, "name": "United States Court of Appeals for the Ninth Circuit",
                       "name_abbreviation": "9th Cir."})  # fmt: skip
    case["casebody"]["opinions"][0]["author"] = AUTHOR
    cap_file = folder / "hostile.jsonl"
    cap_file.write_text(json.dumps(case) + "\n", encoding="utf-8")
    done = lexprobe("data", "build", "--db", str(folder / "cases.sqlite"), "--cap", str(cap_file), cwd=folder)
    assert done.returncode == 0, done.stderr[-3000:]
    assert_inert(done.stdout + done.stderr)
    return folder / "cases.sqlite"


def test_data_commands_print_a_hostile_cap_case_inert(hostile_db: Path, tmp_path: Path) -> None:
    shown = lexprobe("data", "case", CITE, "--db", str(hostile_db), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert_inert(shown.stdout + shown.stderr)
    assert shown.stdout.startswith(f"{CASE_SHOWN}, {CITE} (")  # the heading: BEL and NUL visible too
    lines = shown.stdout.splitlines()
    assert any("│ name " in line and f"│ {CASE_SHOWN} " in line for line in lines)  # the facts table
    assert any(f"│ {AUTHOR_SHOWN} " in line for line in lines)  # markup literal, not bold
    assert f"author {AUTHOR_SHOWN}, " in shown.stdout  # the opinion line
    widths = {len(line) for line in lines if line.startswith("│")}
    assert len(widths) == 1  # escaped before Rich measured the cells: the columns stay aligned

    as_json = lexprobe("data", "case", CITE, "--db", str(hostile_db), "--json", cwd=tmp_path)
    assert as_json.returncode == 0 and not RAW_CONTROL.search(as_json.stdout)
    assert json.loads(as_json.stdout)["case"]["case"]["name"] == CASE_NAME  # still the exact stored value

    for args in (("data", "info"), ("data", "sample", "--level", "coa", "--years", "all", "--n", "50")):
        done = lexprobe(*args, "--db", str(hostile_db), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert_inert(done.stdout + done.stderr)


def test_hallucination_commands_print_a_hostile_model_spec_inert(hostile_db: Path, tmp_path: Path) -> None:
    script = tmp_path / MODEL_FILE
    script.write_text(json.dumps({"text": "Yes"}) + "\n")
    run_dir = tmp_path / "run"
    done = lexprobe("hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence,fake_existence",
                    "--n", "5", "--samples", "2", "--prompt-styles", "zero", "--run-dir", str(run_dir),
                    "--db", str(hostile_db), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert_inert(done.stdout + done.stderr)
    assert "hallucination rates:" in done.stdout and MODEL_SHOWN in done.stdout  # the title (wrapped: a long path)

    report = lexprobe("hallucination", "report", str(run_dir), str(run_dir), cwd=tmp_path)  # side by side too
    assert report.returncode == 0, report.stderr
    assert_inert(report.stdout + report.stderr)
    assert f"{MODEL_SHOWN} " in report.stdout  # the breakdown and calibration tables

    as_json = lexprobe("hallucination", "report", str(run_dir), "--json", cwd=tmp_path)
    assert as_json.returncode == 0 and not RAW_CONTROL.search(as_json.stdout)
    assert json.loads(as_json.stdout)["models"][0]["model"] == f"scripted:{script}"

    html = tmp_path / "report.html"
    written = lexprobe("hallucination", "report", str(run_dir), "--html", str(html), cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert_inert(written.stdout + written.stderr)  # matplotlib's "Glyph 27 missing" warning echoed a raw ESC
    assert_inert_file(html)
    assert MODEL_SHOWN.replace("&", "&amp;") in html.read_text()

    export = tmp_path / "export"
    viewed = lexprobe("view", str(run_dir), "--out", str(export), cwd=tmp_path)
    assert viewed.returncode == 0, viewed.stderr
    assert_inert(viewed.stdout + viewed.stderr)
    for page in export.rglob("*"):
        if page.is_file():
            assert_inert_file(page)

    answer = tmp_path / "answer.jsonl"
    answer.write_text(json.dumps({"text": HOSTILE}) + "\n")
    asked = lexprobe("ask", "--model", f"scripted:{answer}", "--no-cache", "Who wrote it?", cwd=tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert_inert(asked.stdout + asked.stderr)
    assert SHOWN in asked.stdout


# --- the building blocks of item 2 --------------------------------------------------------------------------------


def test_safe_value_keeps_markup_markup_and_other_values_as_they_are() -> None:
    from markupsafe import Markup

    from lexprobe.terminal import safe_value

    page = safe_value(Markup(f"<b>{ESC}[2J</b>"))
    assert isinstance(page, Markup) and page == r"<b>\x1b[2J</b>"
    assert safe_value(f"a{ESC}\ud800") == r"a\x1b\ud800" and safe_value(3) == 3 and safe_value(None) is None


def test_report_pages_finalize_every_value_through_safe_text() -> None:
    from lexprobe.reporting.html import report_environment

    page = report_environment().from_string("<p>{{ name }}</p>").render(name=f"<i>{CASE_NAME}</i>")
    assert page == f"<p>&lt;i&gt;{CASE_SHOWN}&lt;/i&gt;</p>"


def test_an_inert_console_shows_controls_a_printer_forgot_and_keeps_its_own_colours() -> None:
    import io

    from rich.console import Console
    from rich.table import Table

    from lexprobe.terminal import make_inert

    stream = io.StringIO()
    console = make_inert(Console(file=stream, force_terminal=True, width=200, color_system="standard"))
    table = Table(title=f"title {ESC}]0;t")
    table.add_column("cell")
    table.add_row(f"[red]red[/] raw{ESC}[2J\u202e\x9b")
    console.print(table)
    console.print(f"line {ESC}[2J", style="bold", markup=False, highlight=False)
    output = stream.getvalue()
    assert "\x1b[31m" in output and "\x1b[1m" in output  # Rich's own styling still reaches the terminal
    assert r"raw\x1b[2J\u202e\x9b" in output and r"title \x1b]0;t" in output and r"line \x1b[2J" in output
    assert_inert(re.sub(r"\x1b\[[0-9;]*m", "", output))  # nothing raw but Rich's colour codes


def test_figure_labels_are_shown_as_escapes_before_matplotlib_draws_them() -> None:
    import warnings

    from lexprobe.reporting.figures import bar_chart, figure_to_bytes

    fig = bar_chart([CASE_NAME, "b"], {MODEL_FILE: [0.5, 0.25]}, title=f"title{ESC}[2J", ylabel="rate\u202e")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        svg = figure_to_bytes(fig, "svg").decode("utf-8")
    assert_inert(svg)
    assert not [str(w.message) for w in caught if RAW_CONTROL.search(str(w.message))]
    texts = [text.get_text() for text in fig.findobj(match=lambda artist: hasattr(artist, "get_text"))]
    assert MODEL_SHOWN in texts and r"title\x1b[2J" in texts
    assert fig.axes[0].xaxis.get_major_formatter()(0, 0) == CASE_SHOWN  # tick labels given as text
