"""`lexprobe view RUN_DIR...`: serve the run viewer on this machine, or write a static copy (`--out`).

Hallucination run directories go to the hallucination view; every other path to part B's sections
(`lexprobe.view.runs`: investigation runs, QA runs, check results); a path that is none of these is an error
(exit 2, one line naming it). Stores are opened read-only; the viewer's index lives next to each run's store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from lexprobe.cli.network_options import AllowHostsOpt, host_option, warn_if_reachable
from lexprobe.cli.options import json_flag
from lexprobe.cli.output import err
from lexprobe.terminal import safe_text

DEFAULT_PORT = 8765
DEFAULT_LIMIT = 5_000


#: The app holding the top-level `view` command (mounted without a name: its command is the root's).
view_app = typer.Typer()


PathsOpt = Annotated[
    list[Path],
    typer.Argument(help="Run directories (hallucination, investigation, QA) or `lexprobe check --json` files."),
]
HostOpt = host_option("Address to listen on; anything but loopback shows the runs to the network.")
OutDirOpt = Annotated[
    Path | None, typer.Option("--out", help="Write a static copy to this folder (opens from disk) instead.")
]
ForceOpt = Annotated[
    bool,
    typer.Option("--force", help="With --out: replace DIR even when it is no earlier copy (deletes its files)."),
]
LimitOpt = Annotated[
    int, typer.Option("--limit", min=1, help="With --out: the most rows each list of the static copy holds.")
]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="Case database for case names (default: the cache's, when built; else citations)."),
]


@view_app.command("view")
def view(
    paths: PathsOpt,
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port (0: any free port).")] = DEFAULT_PORT,
    host: HostOpt = "127.0.0.1",
    allow_hosts: AllowHostsOpt = None,
    out_dir: OutDirOpt = None,
    force: ForceOpt = False,
    limit: LimitOpt = DEFAULT_LIMIT,
    db: DbOpt = None,
    as_json: json_flag('Print {"url": ...} (or {"out": ...} with --out) as one JSON line.') = False,
) -> None:
    """Look at every answer and transcript of one or more runs in a browser: filter, sort, search and page on the
    server (at any size), open an answer's prompt, reference, samples and judge verdict, or an episode's transcript.

    The viewer binds 127.0.0.1, answers only requests addressed to it (a page of another site cannot read it
    through your browser) and sends nothing anywhere. Stop it with Ctrl-C.

    Examples:
    `lexprobe view runs/gpt runs/smol` (then open the printed URL; "same question, every model" compares them),
    `lexprobe view runs/gpt --port 9000`,
    `lexprobe view runs/gpt runs/inv --out shared-view --limit 2000` (a copy to zip and send; open index.html).
    """
    from lexprobe.view.app import build_app, plan_view
    from lexprobe.view.launch import serve, view_sources

    sources = view_sources(paths, db)

    def notify(message: str) -> None:
        err.print(safe_text(message), highlight=False, markup=False, soft_wrap=True)

    if out_dir is not None:
        from lexprobe.view.export import export_static

        written = export_static(sources, out_dir, limit=limit, notify=notify, force=force)
        print(json.dumps(written) if as_json else safe_text(str(written["index"])))
        return
    plan = plan_view(sources.hallucination, sources.others, sources.case_db, notify=notify)
    warn_if_reachable(host, "can read these runs")

    def ready(url: str) -> None:
        print(json.dumps({"url": url}) if as_json else url, flush=True)
        err.print("lexprobe view: Ctrl-C stops the viewer", highlight=False)

    serve(build_app(plan, host, tuple(allow_hosts or ())), host, port, ready)
