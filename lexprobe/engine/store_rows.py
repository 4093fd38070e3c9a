"""The run store's typed reads beyond one table: requests streamed by role with their answers and chosen scores, a
request by id or id prefix, and the `items` table, where a domain keeps, once per item, what all of an item's
requests share (its JSON: the engine stores and returns it, never reads inside it).

`StoreRows` holds these as methods of `lexprobe.engine.store.RunStore`, which inherits them; the SQL that reads a
request's role out of its stored tags is here and nowhere else.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lexprobe.engine.sqlite_util import transaction, translate_errors
from lexprobe.models.types import Request, Response

if TYPE_CHECKING:
    from lexprobe.engine.sqlite_util import DamagedRowError

__all__ = ["ITEMS_SCHEMA", "StoreRows", "StoredRow"]

#: The table of items: one row per item id, its body the domain's JSON (written once, read back as written).
ITEMS_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS items (item_id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at REAL NOT NULL);"
)

#: The role of a `requests` row (alias `q`), read from its `tags` column (a copy of the body's tags): '' for none,
#: NULL when the column is not JSON (such a row is read, and its parsed body decides).
_ROLE = "CASE WHEN json_valid(q.tags) THEN COALESCE(json_extract(q.tags, '$.role'), '') END"


@dataclass(frozen=True)
class StoredRow:
    """One request as `StoreRows.rows` streams it: the request, its answer (None while pending) and the scores asked
    for that it has, by scorer: (label, detail)."""

    request: Request
    response: Response | None
    scores: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)

    @property
    def role(self) -> str:
        """The request's `role` tag ('' for none)."""
        return self.request.tags.get("role", "")


class StoreRows:
    """The streamed and item reads of a run store (mixed into `RunStore`)."""

    conn: sqlite3.Connection

    if TYPE_CHECKING:

        def parse_request(self, request_id: Any, body: Any) -> Request: ...
        def parse_response(self, request_id: Any, body: Any) -> Response: ...
        def score_value(self, request_id: str, scorer: str, label: Any, detail: Any) -> tuple[str, dict[str, Any]]: ...
        def damaged(self, table: str, row: Any, column: str, reason: str) -> DamagedRowError: ...

    def rows(
        self, *, roles: Collection[str] | None = None, not_roles: Collection[str] = (), scorers: Sequence[str] = ()
    ) -> Iterator[StoredRow]:
        """Yield every request whose `role` tag ('' for none) is one of `roles` (any without) and none of
        `not_roles`, in the order the requests were added, with its answer and its scores by the `scorers` named.

        Streamed: the role is tested in SQL, so the rows of other roles stay in the store (a row whose `tags` column
        is not JSON is read and decided by its body). Every body and score is parsed and checked as `requests`,
        `responses` and `scores` check them (`damaged` names a row that cannot be read back). SQLite errors
        propagate as `sqlite3.Error` while iterating."""
        tests, params = [], []
        if roles is not None:
            tests.append(f"{_ROLE} IN ({', '.join('?' * len(roles))})")
            params.extend(roles)
        if not_roles:
            tests.append(f"{_ROLE} NOT IN ({', '.join('?' * len(not_roles))})")
            params.extend(not_roles)
        joins = "".join(
            f" LEFT JOIN scores AS s{n} ON s{n}.request_id = q.request_id AND s{n}.scorer = ?"
            for n in range(len(scorers))
        )
        columns = "".join(f", s{n}.label, s{n}.detail" for n in range(len(scorers)))
        where = f"WHERE {_ROLE} IS NULL OR ({' AND '.join(tests)})" if tests else ""
        sql = (f"SELECT q.request_id, q.body, r.body{columns} FROM requests AS q "
               f"LEFT JOIN responses AS r ON r.request_id = q.request_id{joins} {where} ORDER BY q.seq")  # fmt: skip
        for request_id, body, answer, *scored in self.conn.execute(sql, [*scorers, *params]):
            request = self.parse_request(request_id, body)
            role = request.tags.get("role", "")
            if (roles is not None and role not in roles) or role in not_roles:
                continue
            scores = {
                scorer: self.score_value(request_id, scorer, label, detail)
                for scorer, label, detail in zip(scorers, scored[::2], scored[1::2], strict=True)
                if label is not None
            }
            response = self.parse_response(request_id, answer) if answer is not None else None
            yield StoredRow(request, response, scores)

    @translate_errors
    def request(self, request_id: str) -> Request | None:
        """Return the stored request `request_id`, or None when the store has none."""
        row = self.conn.execute("SELECT body FROM requests WHERE request_id = ?", (request_id,)).fetchone()
        return self.parse_request(request_id, row[0]) if row else None

    @translate_errors
    def requests_under(self, prefix: str) -> list[tuple[Request, Response | None]]:
        """Return every request whose id starts with `prefix`, with its answer or None, in the order they were added
        (an indexed range of ids, not a scan)."""
        sql = ("SELECT q.request_id, q.body, r.body FROM requests AS q LEFT JOIN responses AS r USING (request_id) "
               "WHERE q.request_id >= ? AND q.request_id < ? ORDER BY q.seq")  # fmt: skip
        rows = self.conn.execute(sql, (prefix, prefix + "\U0010ffff"))
        return [
            (self.parse_request(rid, body), self.parse_response(rid, answer) if answer is not None else None)
            for rid, body, answer in rows
        ]

    @translate_errors
    def score(self, request_id: str, scorer: str) -> tuple[str, dict[str, Any]] | None:
        """Return the (label, detail) one scorer gave one request, or None when it gave none."""
        sql = "SELECT label, detail FROM scores WHERE request_id = ? AND scorer = ?"
        row = self.conn.execute(sql, (request_id, scorer)).fetchone()
        return self.score_value(request_id, scorer, row[0], row[1]) if row else None

    @translate_errors
    def add_items(self, items: Mapping[str, str]) -> int:
        """Record each item's JSON body under its id, once (an id already stored keeps its body); return how many
        were new."""
        now = time.time()
        with transaction(self.conn) as conn:
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO items VALUES (?, ?, ?)",
                [(item_id, body, now) for item_id, body in items.items()],
            )
            return conn.total_changes - before

    def _has_items(self) -> bool:
        """Whether the store has an `items` table (a store written before items existed, opened read-only, has
        none: it has no items)."""
        row = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'items'").fetchone()
        return row is not None

    @translate_errors
    def items(self) -> dict[str, str]:
        """Return every item's JSON body by item id (none for a store written before items existed)."""
        if not self._has_items():
            return {}
        rows = self.conn.execute("SELECT item_id, body FROM items")
        return {item_id: self._item_body(item_id, body) for item_id, body in rows}

    @translate_errors
    def item_count(self) -> int:
        """Return how many items the store holds (0 for a store written before items existed), without reading
        them."""
        if not self._has_items():
            return 0
        return self.conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]

    @translate_errors
    def item(self, item_id: str) -> str | None:
        """Return one item's JSON body, or None when the store has no such item."""
        if not self._has_items():
            return None
        row = self.conn.execute("SELECT body FROM items WHERE item_id = ?", (item_id,)).fetchone()
        return self._item_body(item_id, row[0]) if row else None

    def _item_body(self, item_id: Any, body: Any) -> str:
        if not isinstance(body, str):
            raise self.damaged("items", item_id, "body", f"holds {body!r:.60}, not text")
        return body
