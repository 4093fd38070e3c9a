"""The viewer's top-level Starlette app: the index page, the shared assets, the hallucination view at
`/hallucination` and part B's sections (`lexprobe.view.runs`) at their mounts, all behind `SecurityHeaders` and the
Host check every lexprobe server has (`lexprobe.local_server.guard_hosts`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from lexprobe.errors import BadInputError
from lexprobe.local_server import guard_hosts
from lexprobe.reporting.html import render_report
from lexprobe.terminal import safe_text
from lexprobe.view import runs as other_runs  # the sections of investigation runs, QA runs and check results
from lexprobe.view.hallucination.index import RunIndex, ensure_index
from lexprobe.view.hallucination.queries import UnitStore
from lexprobe.view.hallucination.routes import hallucination_app
from lexprobe.view.security import SecurityHeaders


@dataclass
class ViewPlan:
    """What one `lexprobe view` serves: the hallucination runs' indexes and part B's sections."""

    indexes: list[RunIndex] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    sections: list = field(default_factory=list)


def run_labels(indexes: list[RunIndex]) -> list[str]:
    """Return the model name shown for each run; runs of the same model get `model (run dir name)`, as the
    hallucination report names them (so a report's links find their rows)."""
    models = [index.model for index in indexes]
    return [f"{i.model} ({i.run_dir.name})" if models.count(i.model) > 1 else i.model for i in indexes]


def plan_view(
    hallucination_dirs: list[Path],
    other_paths: list[Path],
    case_db: Path | None = None,
    notify: Callable[[str], None] | None = None,
) -> ViewPlan:
    """Index the hallucination runs (building what is missing or stale) and ask part B for the other paths'
    sections. Raises `StoreError` naming a store that cannot be read, `BadInputError` naming the first other path
    that is none of part B's."""
    indexes = [ensure_index(path, case_db, notify=notify) for path in hallucination_dirs]
    plan = ViewPlan(indexes=indexes, labels=run_labels(indexes))
    if other_paths:
        plan.sections, unrecognised = other_runs.sections(list(other_paths))
        if unrecognised:
            path, reason = unrecognised[0]
            raise BadInputError(safe_text(f"{path}: {reason}"))
    return plan


def build_app(plan: ViewPlan, host: str = "127.0.0.1", allow_hosts: tuple[str, ...] = ()) -> SecurityHeaders:
    """Return the ASGI app of `plan` served on `host`, every response carrying the security headers; a request
    whose `Host` header names neither `host`, a loopback name nor one of `allow_hosts` is a 400 with no data."""
    sections = []
    routes: list = []
    if plan.indexes:
        store = UnitStore(plan.indexes, plan.labels)
        runs = f" of {len(plan.indexes)} runs" if len(plan.indexes) > 1 else ""
        entries = [(f"Every answer{runs}", "hallucination/"),
                   ("Report (rates link to their answers)", "hallucination/report/")]  # fmt: skip
        entries += [(safe_text(f"{label}: {index.run_dir}"), "hallucination/?" + urlencode({"model": label}))
                    for index, label in zip(plan.indexes, plan.labels, strict=True)]  # fmt: skip
        sections.append({"title": "Hallucination runs", "entries": entries})
        routes.append(Mount("/hallucination", hallucination_app(store)))
    for section in plan.sections:
        mount = section.mount.rstrip("/")
        sections.append({"title": section.title, "entries": [(safe_text(label), mount.lstrip("/") + "/" + href)
                                                              for label, href in section.entries]})  # fmt: skip
        routes.append(Mount(mount, section.app))

    def index(request: Request) -> HTMLResponse:
        html = render_report("lexprobe.view:index.html", title="Runs", root="", static_csp="", notice="",
                             sections=sections)  # fmt: skip
        return HTMLResponse(html)

    static = Path(__file__).with_name("static")
    app = Starlette(routes=[Route("/", index), Mount("/static", StaticFiles(directory=static)), *routes])
    return SecurityHeaders(guard_hosts(app, host, allow_hosts))
