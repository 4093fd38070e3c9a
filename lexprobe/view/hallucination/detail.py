"""One unit in full, read from the run's store (read-only): the prompt, the answer, the reference it was scored
against, its calibration samples with their agreement, for a reference-free pair both samples and the judge's
prompt and verdict, and for a label a `--reader` model gave, the reader's prompt and reply. Every text is cut at
`security.MAX_FIELD_CHARS` (`security.cut_text`), as every field of the viewer's JSON is."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from lexprobe.engine.sqlite_util import connect_read_only, store_error
from lexprobe.engine.store import RUN_DB_NAME
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER
from lexprobe.view.security import cut_text

_ROW = """
SELECT q.request_id, q.body, r.body FROM requests AS q LEFT JOIN responses AS r ON r.request_id = q.request_id
WHERE q.request_id = ?
"""
_SAMPLES = """
SELECT q.request_id, r.body FROM requests AS q LEFT JOIN responses AS r ON r.request_id = q.request_id
WHERE q.request_id >= ? AND q.request_id < ? ORDER BY q.seq
"""


def _json(text: str | None) -> dict:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _prompt(body: dict) -> str:
    messages = body.get("messages") or []
    parts = [f"{m.get('role', '?')}: {m.get('content') or ''}" for m in messages if isinstance(m, dict)]
    return cut_text("\n\n".join(parts))


def _request(conn: sqlite3.Connection, request_id: str) -> dict | None:
    row = conn.execute(_ROW, (request_id,)).fetchone()
    if row is None:
        return None
    body, answer = _json(row[1]), _json(row[2])
    return {
        "request_id": row[0],
        "prompt": _prompt(body),
        "answer": cut_text(answer.get("text")) if row[2] is not None else None,
        "temperature": body.get("temperature"),
        "tags": body.get("tags") if isinstance(body.get("tags"), dict) else {},
    }


#: The newest reader request of a unit by one reader model (`<unit id>|reader|<key prefix>`).
_READER = """
SELECT request_id FROM requests WHERE request_id >= ? AND request_id < ? AND model = ? ORDER BY seq DESC LIMIT 1
"""


def _reader(conn: sqlite3.Connection, request_id: str, model: str) -> dict | None:
    """Return the reader's request of the unit `request_id` by `model` (its prompt and reply), or None."""
    prefix = f"{request_id}|reader|"
    found = conn.execute(_READER, (prefix, prefix + "\U0010ffff", model)).fetchone()
    request = _request(conn, found[0]) if found else None
    if request is not None:
        request.pop("tags")
    return request


def _score(conn: sqlite3.Connection, request_id: str, scorer: str) -> dict | None:
    row = conn.execute("SELECT label, detail FROM scores WHERE request_id = ? AND scorer = ?", (request_id, scorer))
    found = row.fetchone()
    if found is None:
        return None
    return {"label": found[0], **{key: value for key, value in _json(found[1]).items()}}


def unit_detail(run_dir: Path, request_id: str) -> dict | None:
    """Return everything the detail view shows for the unit `request_id` of the run, or None when the store has no
    such request. Raises `StoreError` naming the file when the store cannot be read."""
    path = Path(run_dir) / RUN_DB_NAME
    conn = connect_read_only(path)
    try:
        main = _request(conn, request_id)
        if main is None:
            return None
        tags = main.pop("tags")
        try:
            reference = json.loads(tags.get("reference") or "{}")
        except ValueError:
            reference = {"unreadable": str(tags.get("reference"))[:200]}
        detail = {
            **main,
            "reference": json.dumps(reference, indent=2, sort_keys=True, ensure_ascii=False),
            "score": _score(conn, request_id, REFERENCE_SCORER),
            "confidence": _score(conn, request_id, CONFIDENCE_SCORER),
            "samples": [],
            "partner": None,
            "judge": None,
            "reader": None,
        }
        reader = (detail["score"] or {}).get("reader")
        if isinstance(reader, str) and reader:  # the label is the reader's (`--reader`): its prompt and reply
            detail["reader"] = _reader(conn, request_id, reader)
        if tags.get("role") == "sample0" and tags.get("pair"):
            pair = str(tags["pair"])
            detail["partner"] = _request(conn, f"{pair}#1")
            detail["judge"] = _request(conn, f"{pair}|judge")
            for part in (detail["partner"], detail["judge"]):
                if part is not None:
                    part.pop("tags")
        else:
            rows = conn.execute(_SAMPLES, (f"{request_id}@", f"{request_id}@\U0010ffff")).fetchall()
            detail["samples"] = [
                {"request_id": sample_id, "answer": cut_text(_json(answer).get("text")) if answer else None}
                for sample_id, answer in rows
            ]
        return detail
    except sqlite3.Error as exc:
        raise store_error(path, exc, "") from None
    finally:
        conn.close()
