"""Building blocks of lexprobe's self-contained HTML report: `figures` draws the charts (matplotlib `Figure` objects
on the non-interactive Agg canvas, never pyplot, encoded as deterministic base64 data URIs), `circuit_map` draws a
choropleth of the federal courts of appeals from the circuit shapefiles in the data folder. `html` holds the one
Jinja environment of the reports (autoescape, StrictUndefined) and `templates/base.html.j2`, the page frame and CSS
every report extends; `numbers` formats their numbers.
"""
