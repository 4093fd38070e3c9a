"""How requests run: resumable SQLite run store, shared response cache, concurrency, retries, progress.

Each name is imported from the module that defines it (`from lexprobe.engine.store import RunStore`).
"""
