"""The viewer's pages for citation check results (`lexprobe check ... --json` output files): reading and checking
the file (`load`), the pages (`pages`) and the Starlette sub-app (`app`)."""
