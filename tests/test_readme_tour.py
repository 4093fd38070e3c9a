"""Issue 44, item 17: the README tour's commands work on the tour's own runs.

`export-labels RUN` samples judged pairs of reference-free tasks, so the tour's run it points at must ask at least
one reference-free task (the tour once ran only existence, author and court, and `export-labels` failed on it).
The commands themselves were run by hand on the embedded model (`--n 2`): the run, then `export-labels` (exit 0).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from lexprobe.hallucination.tasks import TASKS

README = Path(__file__).resolve().parent.parent / "README.md"


def _tour_commands() -> list[list[str]]:
    """Return the tour's `lexprobe ...` command lines, comments dropped, split as a shell would."""
    block = README.read_text(encoding="utf-8").split("## A short tour", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line.startswith("lexprobe "):
            commands.append(shlex.split(line))
    return commands


def _option(words: list[str], name: str) -> str | None:
    """Return the value of option `name` in `words`, or None."""
    return words[words.index(name) + 1] if name in words else None


def test_every_export_labels_in_the_tour_reads_a_run_of_the_tour_with_a_reference_free_task() -> None:
    commands = _tour_commands()
    runs = {
        _option(words, "--run-dir"): (_option(words, "--tasks") or "").split(",")
        for words in commands
        if words[1:3] == ["hallucination", "run"]
    }
    exports = [words for words in commands if words[1:3] == ["hallucination", "export-labels"]]
    assert exports, "the tour shows export-labels"
    for words in exports:
        run_dir = words[3]
        assert run_dir in runs, f"the tour exports labels of {run_dir}, which no tour command makes"
        assert any(TASKS[task].reference_free for task in runs[run_dir] if task in TASKS), (run_dir, runs[run_dir])
