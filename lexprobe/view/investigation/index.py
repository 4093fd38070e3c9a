"""Recognise an investigation run directory (episodes/*.json) and a QA run directory (qa/*.qa.json), and keep a side
index of a run's records, `RUN_DIR/view-index-investigation.sqlite`, built once next to the run and rebuilt when
they change (docs/viewer.md, "At any size: the side index"): one row per record with the scores the project's own
functions give (`score_episode`, `coverage`).
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from functools import cache
from pathlib import Path

from lexprobe.investigation.agent.episode import EPISODES_DIR, Episode
from lexprobe.investigation.environment.format import Environment, load_environment
from lexprobe.investigation.qa.runner import QA_DIR, QARecord
from lexprobe.investigation.scoring.coverage import coverage
from lexprobe.investigation.scoring.inputs import resolve_env_dir
from lexprobe.investigation.scoring.metrics import score_episode
from lexprobe.view.index_health import build_atomically, expected_schema, index_location, index_problem
from lexprobe.view.run_gone import RunGoneError, run_gone_message

INDEX_NAME = "view-index-investigation.sqlite"
INDEX_VERSION = 1
#: Characters of an answer kept in the QA list (the whole answer is on the question's page).
ANSWER_PREVIEW = 200

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE episodes (
    key TEXT PRIMARY KEY, episode_id TEXT, environment TEXT, env_dir TEXT, ablation TEXT, model TEXT, epoch INTEGER,
    status TEXT, solved INTEGER, believe_acc REAL, reject_acc REAL, worst_acc REAL, tool_calls INTEGER,
    tool_budget INTEGER, steps INTEGER, coverage REAL, signal_recall REAL, problem TEXT);
CREATE INDEX episodes_filter ON episodes (environment, model, solved);
CREATE TABLE qa (
    key TEXT PRIMARY KEY, qa_id TEXT, question_id TEXT, environment TEXT, model TEXT, judge TEXT, question TEXT,
    answer TEXT, label TEXT, score REAL, problem TEXT);
CREATE INDEX qa_filter ON qa (environment, model, label);
"""


def episode_files(run_dir: Path) -> list[Path]:
    """The episode records of a run directory (regular files only, never through a link), sorted by name."""
    return _records(Path(run_dir) / EPISODES_DIR, "*.json", ".qa.json")


def qa_files(run_dir: Path) -> list[Path]:
    """The QA records of a run directory (regular files only, never through a link), sorted by name."""
    return _records(Path(run_dir) / QA_DIR, "*.qa.json", None)


def _records(folder: Path, pattern: str, excluded_suffix: str | None) -> list[Path]:
    if folder.is_symlink() or not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(pattern)):
        if path.is_symlink() or not path.is_file():
            continue
        if excluded_suffix and path.name.endswith(excluded_suffix):
            continue
        found.append(path)
    return found


def is_investigation_run(path: Path) -> bool:
    """Whether `path` is a run directory holding at least one investigation episode record."""
    return Path(path).is_dir() and bool(episode_files(path))


def is_qa_run(path: Path) -> bool:
    """Whether `path` is a run directory holding at least one QA record (`investigation qa`)."""
    return Path(path).is_dir() and bool(qa_files(path))


def record_key(path: Path) -> str:
    """The key of a record file in URLs and in the index: its name without `.json` / `.qa.json` (the names are
    `safe_name`s: letters, digits, - _ . only)."""
    name = path.name
    return name.removesuffix(".qa.json") if name.endswith(".qa.json") else name.removesuffix(".json")


def fingerprint(run_dir: Path) -> str:
    """SHA-256 over the index version and every record file's name, size and modification time."""
    digest = hashlib.sha256(f"v{INDEX_VERSION}".encode())
    for path in [*episode_files(run_dir), *qa_files(run_dir)]:
        stat = path.stat()
        digest.update(f"\n{path.parent.name}/{path.name}\t{stat.st_size}\t{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def ensure_index(run_dir: Path) -> Path:
    """Return the path of an up-to-date index of `run_dir`, building it when missing, stale or damaged (its schema,
    SQLite's quick check: `view.index_health`). Raises `RunGoneError` when `run_dir` is no longer a directory."""
    if not Path(run_dir).is_dir():
        raise RunGoneError(run_gone_message(run_dir))
    path, fallback = index_location(run_dir, INDEX_NAME)
    if fallback:
        sys.stderr.write(f"{run_dir} is not writable: its viewer index goes to {path.parent}\n")
    wanted = fingerprint(run_dir)
    if path.is_file() and _built_from(path) == wanted and index_problem(path, _expected()) is None:
        return path
    build_atomically(path, lambda temporary: _build(Path(run_dir), temporary, wanted))
    return path


@cache
def _expected() -> frozenset:
    return expected_schema(lambda conn: conn.executescript(_SCHEMA))


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open an index read-only (SQLite `mode=ro`), rows as `sqlite3.Row`."""
    connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
    connection.row_factory = sqlite3.Row
    return connection


def _built_from(path: Path) -> str | None:
    try:
        with connect_read_only(path) as connection:
            row = connection.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else None


class _Environments:
    """Each episode's environment, loaded once per recorded env_dir (None when it cannot be found or read)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.loaded: dict[str, tuple[Path, Environment, object] | None] = {}

    def of(self, episode: Episode) -> tuple[Path, Environment, object] | None:
        if episode.env_dir not in self.loaded:
            folder = resolve_env_dir(episode, self.run_dir, None)
            try:
                self.loaded[episode.env_dir] = (folder, *load_environment(folder)) if folder else None
            except (OSError, ValueError):
                self.loaded[episode.env_dir] = None
        return self.loaded[episode.env_dir]


def _build(run_dir: Path, target: Path, built_from: str) -> None:
    environments = _Environments(run_dir)
    connection = sqlite3.connect(target)
    try:
        connection.executescript(_SCHEMA)
        connection.executemany("INSERT INTO episodes VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                               (_episode_row(path, environments) for path in episode_files(run_dir)))  # fmt: skip
        connection.executemany("INSERT INTO qa VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                               (_qa_row(path, environments) for path in qa_files(run_dir)))  # fmt: skip
        connection.execute("INSERT INTO meta VALUES ('fingerprint', ?), ('run_dir', ?)", (built_from, str(run_dir)))
        connection.commit()
    finally:
        connection.close()


def _problem(path: Path, exc: Exception) -> str:
    return f"{path.name}: not a readable record ({type(exc).__name__}: {str(exc)[:300]})"


def _episode_row(path: Path, environments: _Environments) -> tuple:
    key = record_key(path)
    try:
        episode = Episode.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return (key, key, "", "", "", "", None, "unreadable", None, None, None, None, None, None, None, None, None,
                _problem(path, exc))  # fmt: skip
    score = score_episode(episode)
    loaded = environments.of(episode)
    cover = coverage(episode, loaded[1]) if loaded else None
    calls = sum(not call.denied for call in episode.tool_calls)
    return (key, episode.episode_id, episode.environment, episode.env_dir, episode.ablation, episode.model,
            episode.epoch, episode.status, int(score.case_solved), score.believe_acc, score.reject_acc,
            score.worst_class_acc, calls, episode.tool_budget, episode.steps, cover.coverage if cover else None,
            cover.signal_recall if cover else None, None)  # fmt: skip


def _qa_row(path: Path, environments: _Environments) -> tuple:
    key = record_key(path)
    try:
        record = QARecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return (key, key, "", "", "", "", "", "", "unreadable", None, _problem(path, exc))
    loaded = environments.of(record.episode)
    questions = {q.question_id: q.question for q in loaded[2].questions} if loaded else {}
    answer = (record.answer or "")[:ANSWER_PREVIEW]
    return (key, record.qa_id, record.question_id, record.environment, record.model, record.judge,
            questions.get(record.question_id, ""), answer, record.label, record.score, None)  # fmt: skip


def distinct(connection: sqlite3.Connection, table: str, column: str) -> list[str]:
    """The distinct non-empty values of one filter column, sorted (for the filter menus)."""
    if (table, column) not in _FILTER_COLUMNS:
        raise ValueError(f"not a filter column: {table}.{column}")
    rows = connection.execute(f"SELECT DISTINCT {column} FROM {table} WHERE {column} != '' ORDER BY {column}")
    return [row[0] for row in rows]


_FILTER_COLUMNS = {("episodes", "environment"), ("episodes", "model"), ("qa", "environment"), ("qa", "model"),
                   ("qa", "label")}  # fmt: skip


#: The columns a list may be sorted by (a leading "-" sorts descending; ties are broken by key).
SORT_COLUMNS = {
    "episodes": ("key", "environment", "ablation", "model", "epoch", "status", "solved", "believe_acc", "reject_acc",
                 "tool_calls", "coverage", "signal_recall"),
    "qa": ("key", "question_id", "environment", "model", "label", "score"),
}  # fmt: skip


def page_of(
    connection: sqlite3.Connection, table: str, filters: dict[str, object], offset: int, limit: int, sort: str = "key"
) -> tuple[list[dict], int]:
    """One page of rows of `table` ("episodes" or "qa") matching `filters` (column -> value, equality), sorted by
    `sort` (one of `SORT_COLUMNS`, "-" first for descending), and the count of all matching rows."""
    if table not in ("episodes", "qa"):
        raise ValueError(f"not an index table: {table}")
    allowed = {column for name, column in _FILTER_COLUMNS if name == table}
    if table == "episodes":
        allowed.add("solved")
    clauses, values = [], []
    for column, value in filters.items():
        if column not in allowed:
            raise ValueError(f"not a filter column: {table}.{column}")
        clauses.append(f"{column} = ?")
        values.append(value)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    total = connection.execute(f"SELECT COUNT(*) FROM {table}{where}", values).fetchone()[0]
    column = sort.removeprefix("-")
    if column not in SORT_COLUMNS[table]:
        raise ValueError(f"not a sort column: {table}.{column}")
    order = f"{column} {'DESC' if sort.startswith('-') else 'ASC'}, key"
    rows = connection.execute(
        f"SELECT * FROM {table}{where} ORDER BY {order} LIMIT ? OFFSET ?", [*values, limit, offset]
    )
    return [dict(row) for row in rows], total
