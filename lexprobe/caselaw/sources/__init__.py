"""One module per public source; each exposes `load(path) -> LoadResult`."""
