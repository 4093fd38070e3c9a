"""The hallucination view: one row per scored answer unit, served from a side index next to each run's store.

`index` builds `view-index.sqlite` (a flat `units` table and an FTS5 table over the answers), `queries` filters,
sorts, pages and searches it, `detail` reads one unit's prompt, answer, reference, samples and judge verdict from
the run store, and `routes` is the Starlette sub-app mounted at `/hallucination`.
"""
