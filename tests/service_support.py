"""Helpers of the result-format and service tests (tests/test_check_result_schema.py, tests/test_service_*.py,
tests/test_mcp_*.py): a brief as a PDF, `lexprobe check --json` run as a user runs it, and a check result validated
against the published schema (docs/check-result.schema.json); an ASGI app served by a real uvicorn on a free
port of 127.0.0.1, in a thread (`served`)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jsonschema
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

#: The two hand-checked brief excerpts (tests/test_check_briefs.py): every verdict and quotation kind.
BRIEFS = Path(__file__).parent / "data" / "briefs"
#: A short brief: a real citation, a quotation, a citation under another case's name, a case that does not exist
#: (the HTTP tests and the three-interfaces test check it).
BRIEF = (
    "MEMORANDUM OF POINTS AND AUTHORITIES\n"
    "Summary judgment is proper. Celotex Corp. v. Catrett, 477 U.S. 317, 322 (1986).\n"
    "The Court held that \"in the field of public education the doctrine of 'separate but equal' has no place.\" "
    "Brown v. Board of Education, 347 U.S. 483, 495 (1954).\n"
    "The Court so held in Plessy v. Ferguson, 347 U.S. 483 (1954).\n"
    "See Columbia University v. Rodham, 564 U.S. 911 (2010).\n"
)
SCHEMA_PATH = Path(__file__).parent.parent / "docs" / "check-result.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def write_pdf(text: str, path: Path, lines_per_page: int = 46, width: int = 88) -> Path:
    """Write `text` as a letter-size PDF with a text layer (Helvetica 10, `width` characters a line); return it."""
    pdf = canvas.Canvas(str(path), pagesize=letter)
    lines = [line for paragraph in text.split("\n") for line in (textwrap.wrap(paragraph, width) or [""])]
    for start in range(0, max(len(lines), 1), lines_per_page):
        y = 740
        for line in lines[start : start + lines_per_page]:
            pdf.setFont("Helvetica", 10)
            pdf.drawString(60, y, line)
            y -= 15
        pdf.showPage()
    pdf.save()
    return path


def cli_check_json(path: Path, db: Path) -> dict:
    """`lexprobe check PATH --db DB --json` in a fresh process, as its JSON (exit 0 or 1: both print it)."""
    code = "import sys; from lexprobe.cli import console_main; sys.argv[0] = 'lexprobe'; console_main()"
    command = [sys.executable, "-c", code, "check", str(path), "--db", str(db), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def same_but_path(result: dict, path: str) -> dict:
    """`result` with each file's path replaced by `path` (the CLI shows the path given, the service the name)."""
    files = [{**entry, "path": path} for entry in result["summary"]["files"]]
    return {**result, "summary": {**result["summary"], "files": files}}


def validate(result: dict) -> None:
    """Raise unless `result` is valid under docs/check-result.schema.json and every object's fields are described
    there (so the schema cannot fall behind the output)."""
    jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(result)
    undescribed = sorted(_undescribed(result, SCHEMA, "$"))
    assert not undescribed, f"fields check --json writes that the schema does not describe: {undescribed}"


def _resolve(node: dict) -> dict:
    """A schema node with its `$ref` and `allOf` parts merged (enough for this schema's shapes)."""
    if "$ref" in node:
        node = {
            **_resolve(SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[-1]]),
            **{k: v for k, v in node.items() if k != "$ref"},
        }
    merged = dict(node)
    for part in node.get("allOf", []):
        resolved = _resolve(part)
        merged["properties"] = {**resolved.get("properties", {}), **merged.get("properties", {})}
    return merged


def _undescribed(value: Any, node: dict, where: str) -> list[str]:
    node = _resolve(node)
    options = [_resolve(option) for option in node.get("anyOf", [])]
    if options:
        node = next((o for o in options if o.get("type") != "null"), node) if value is not None else {}
    found: list[str] = []
    if isinstance(value, dict):
        properties = node.get("properties", {})
        for key, item in value.items():
            if key in properties:
                found += _undescribed(item, properties[key], f"{where}.{key}")
            elif "additionalProperties" not in node:
                found.append(f"{where}.{key}")
    elif isinstance(value, list) and "items" in node:
        for item in value:
            found += _undescribed(item, node["items"], f"{where}[]")
    return found


@contextmanager
def served(app: Any) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 until the block ends; yield its base URL ("http://127.0.0.1:PORT")."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
