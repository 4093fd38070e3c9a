"""`lexprobe view --out DIR`: a static copy of the viewer that opens from disk (file://) without a server
(docs/viewer.md, "The static copy"). The hallucination rows, each with its detail, go into `data-N.js` files the
list page loads with `<script src>`; part B's paths are written by `lexprobe.view.runs.export_static`; the folder is
written as `out_folder` says.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

from lexprobe.reporting.html import copy_assets, render_report, write_page
from lexprobe.view import out_folder
from lexprobe.view.app import ViewPlan, plan_view
from lexprobe.view.hallucination.detail import unit_detail
from lexprobe.view.hallucination.queries import MAX_PAGE_SIZE, UnitQuery, UnitStore
from lexprobe.view.hallucination.routes import facets, report_page
from lexprobe.view.launch import ViewSources
from lexprobe.view.security import STATIC_CONTENT_SECURITY_POLICY, visible

#: Rows per data file (each file is a few MB at most).
ROWS_PER_FILE = 500
_PACKAGE = Path(__file__).parent


def script_json(value: object) -> str:
    """Return `value` as JSON safe inside a script file: no character that could end a script or an HTML comment
    ("<", ">", "&") and no line separator (U+2028/2029) stays literal."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _export_hallucination(store: UnitStore, folder: Path, limit: int) -> tuple[int, int]:
    """Write the hallucination list, its data files and the report under `folder`; return (rows shown, total)."""
    folder.mkdir(parents=True, exist_ok=True)
    copy_assets(_PACKAGE / "hallucination" / "static", folder / "static")
    total = sum(index.units for index in store.indexes)
    rows: list[dict] = []
    for page in itertools.count(1):
        found = store.page(UnitQuery(page=page, size=MAX_PAGE_SIZE))["rows"]
        rows += found
        if len(found) < MAX_PAGE_SIZE or len(rows) >= limit:
            break
    rows = rows[:limit]
    for row in rows:
        full = store.unit(row["run"], row["uid"]) or row
        row["answer"] = full.get("answer", row["answer"])
        row["detail"] = unit_detail(store.indexes[row["run"]].run_dir, row["request_id"])
    meta = facets(store)
    data_files = []
    chunks = [rows[start : start + ROWS_PER_FILE] for start in range(0, len(rows), ROWS_PER_FILE)] or [[]]
    for number, chunk in enumerate(chunks):
        name = f"data-{number}.js"
        head = f"window.LEXPROBE_UNITS = {{meta: {script_json(visible(meta))}, rows: []}};\n" if number == 0 else ""
        body = f"window.LEXPROBE_UNITS.rows.push(...{script_json(visible(chunk))});\n"
        write_page(folder / name, head + body)
        data_files.append(name)
    notice = f"Showing {len(rows):,} of {total:,} rows; the server viewer (`lexprobe view`) has all."
    html = render_report(
        "lexprobe.view.hallucination:units.html", title="Hallucination runs", root="../",
        static_csp=STATIC_CONTENT_SECURITY_POLICY, mode="static", notice=notice, data_files=data_files,
    )  # fmt: skip
    write_page(folder / "index.html", html)
    report_html, report_css = report_page([index.run_dir for index in store.indexes], "../../")
    report_html = report_html.replace("../../hallucination/?", "../index.html?").replace(
        "<head>", f'<head>\n<meta http-equiv="Content-Security-Policy" content="{STATIC_CONTENT_SECURITY_POLICY}">', 1
    )
    (folder / "report").mkdir(exist_ok=True)
    write_page(folder / "report" / "index.html", report_html)
    write_page(folder / "report" / "report.css", report_css)
    return len(rows), total


def export_static(
    sources: ViewSources, out: Path, *, limit: int, notify: Callable[[str], None], force: bool = False
) -> dict:
    """Write the static copy of every source under `out` (`out_folder.writing`: into a temporary folder beside it,
    then renamed; a folder that is not empty and is no earlier copy is refused unless `force`); return {"out",
    "index", "rows", "total"} (the index page's path, and the hallucination rows written of how many). Raises
    `BadInputError` for a path that is no run, or an `out` that cannot take the copy."""
    inputs = [*sources.hallucination, *sources.others]
    out_folder.check_out_folder(out, inputs, force)
    plan = plan_view(sources.hallucination, sources.others, sources.case_db, notify=notify)
    with out_folder.writing(out, inputs, force) as folder:
        shown, total = _write_copy(plan, sources.others, folder, limit)
    return {"out": str(out), "index": str(out / "index.html"), "rows": shown, "total": total}


def _write_copy(plan: ViewPlan, other_paths: list[Path], out: Path, limit: int) -> tuple[int, int]:
    """Write every page of the copy under `out` (an empty folder); return the hallucination rows shown and total."""
    entries: list[tuple[str, str, str]] = []
    copy_assets(_PACKAGE / "static", out / "static")
    shown = total = 0
    if plan.indexes:
        store = UnitStore(plan.indexes, plan.labels)
        shown, total = _export_hallucination(store, out / "hallucination", limit)
        entries += [("Hallucination runs", f"Every answer ({shown:,} of {total:,} rows)", "hallucination/index.html"),
                    ("Hallucination runs", "Report", "hallucination/report/index.html")]  # fmt: skip
    if other_paths:
        from lexprobe.view import runs as other_runs

        entries += other_runs.export_static(list(other_paths), out, limit)
    sections: dict[str, list[tuple[str, str]]] = {}
    for title, label, href in entries:
        sections.setdefault(title, []).append((label, href))
    html = render_report(
        "lexprobe.view:index.html", title="Runs", root="", static_csp=STATIC_CONTENT_SECURITY_POLICY,
        notice="A static copy of lexprobe view.",
        sections=[{"title": title, "entries": items} for title, items in sections.items()],
    )  # fmt: skip
    write_page(out / "index.html", html)
    return shown, total
