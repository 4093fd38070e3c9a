"""The run viewer (`lexprobe view`): a local Starlette app over one or more run directories.

`app.build_app` mounts the hallucination view (`view.hallucination`) and the sections of part B
(`view.runs`: investigation runs, QA runs, check results) under one security middleware (`view.security`);
`export.export_static` writes a copy that opens from disk. Every page is rendered by the reports' one page writer
(`lexprobe.reporting.html`). Stores are opened read-only; what the viewer builds (`view-index.sqlite`) lives next
to a run's store, never inside it.
"""
