"""The HTML page of an investigation study (`lexprobe investigation score RUN_DIR... --html FILE`): the score summary
as tables and figures, with the paper's rows when a reference is given (`html`; its template is
`lexprobe/investigation/templates/report.html.j2`).

May import: `lexprobe.investigation.scoring`, `lexprobe.investigation.paper_figures`, `lexprobe.reporting`,
`lexprobe.terminal`.
"""
