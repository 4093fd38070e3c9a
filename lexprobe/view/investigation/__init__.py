"""The viewer's pages for investigation runs and QA runs: run detection and a side index of the run's
records next to the run (`index`), what an episode page shows (`transcript`), a document's extracted text
(`documents`), and the pages with the Starlette sub-app serving them (`pages`)."""
