"""The viewer's pages for citation check results (`lexprobe check ... --json` output files): reading and checking
the file (`load`), the pages and the Starlette sub-app serving them (`app`)."""
