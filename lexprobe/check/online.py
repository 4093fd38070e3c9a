"""`lexprobe check --online`: ask CourtListener's citation-lookup API (the `courtlistener-api-client` package,
extra `online`) about the citations the local database cannot verify (docs/check.md, "Online lookup"). Answers are
cached forever in `courtlistener.sqlite` in the lexprobe cache folder (`LookupCache`); a missing token or package,
an unreachable server or a bad answer never raises: `OnlineResult.message` says why."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lexprobe.caselaw.case_names import names_match
from lexprobe.check.case_lookup import CaseSummary
from lexprobe.check.deadline import Deadline, DeadlineExceeded
from lexprobe.check.extract import FULL, FoundCitation
from lexprobe.check.verify import MISMATCH, NOT_FOUND, UNVERIFIABLE, VERIFIED, CitationVerdict
from lexprobe.engine.cache import default_cache_dir
from lexprobe.engine.sqlite_util import connect, transaction

TOKEN_ENV = "COURTLISTENER_API_TOKEN"
BASE_URL_ENV = "COURTLISTENER_API_BASE_URL"
DEFAULT_BASE_URL = "https://www.courtlistener.com/api/rest/v4"
CACHE_NAME = "courtlistener.sqlite"
MAX_PER_REQUEST = 250  # citations the API looks up per request
CACHED_STATUSES = (200, 300, 400, 404)
_CLUSTER_FIELDS = ("id", "absolute_url", "case_name", "case_name_short", "case_name_full", "date_filed", "citations")


@dataclass
class OnlineResult:
    """The verdicts after the online step, and what happened: `message` (None when all went well), how many
    citations were asked about, answered from the cache, and answered by the API."""

    verdicts: list[CitationVerdict]
    message: str | None = None
    asked: int = 0
    cached: int = 0
    fetched: int = 0


class LookupCache:
    """CourtListener's answers in `courtlistener.sqlite` in the lexprobe cache folder: the citation lookups (table
    `lookups`), and the clusters and opinion texts of `online_texts` (table `opinion_texts`, among `tables`)."""

    def __init__(self, folder: Path | str | None = None, tables: tuple[str, ...] = ("lookups",)) -> None:
        self.path = Path(folder if folder is not None else default_cache_dir()) / CACHE_NAME
        self.conn = connect(self.path)
        for table in tables:
            columns = "key TEXT PRIMARY KEY, body TEXT NOT NULL, created_at REAL NOT NULL"
            self.conn.execute(f"CREATE TABLE IF NOT EXISTS {table} ({columns})")

    def get(self, key: str, table: str = "lookups") -> Any:
        """The answer kept under `key`, or None."""
        row = self.conn.execute(f"SELECT body FROM {table} WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, body: dict[str, Any], table: str = "lookups") -> None:
        """Keep `body` under `key` (replacing what was there)."""
        with transaction(self.conn) as conn:
            conn.execute(f"INSERT OR REPLACE INTO {table} VALUES (?, ?, ?)", (key, json.dumps(body), time.time()))

    def close(self) -> None:
        self.conn.close()


def credentials(token: str | None, base_url: str | None) -> tuple[str | None, str]:
    """The API token and base URL: those given, else `TOKEN_ENV`'s and `BASE_URL_ENV`'s (else `DEFAULT_BASE_URL`)."""
    return token or os.environ.get(TOKEN_ENV), (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip(
        "/"
    )


def _slim(result: dict[str, Any]) -> dict[str, Any]:
    """What is kept of one lookup result: status, error message and the clusters' identifying fields."""
    clusters = [
        {name: cluster.get(name) for name in _CLUSTER_FIELDS}
        for cluster in result.get("clusters") or []
        if isinstance(cluster, dict)
    ]
    return {"status": result.get("status"), "error_message": result.get("error_message") or "", "clusters": clusters}


def _cluster_citation(cluster: dict[str, Any], reporter: str | None, fallback: str) -> str:
    citations = [c for c in cluster.get("citations") or [] if isinstance(c, dict)]
    for wanted in (reporter, None):
        for citation in citations:
            if wanted is None or citation.get("reporter") == wanted:
                return f"{citation.get('volume')} {citation.get('reporter')} {citation.get('page')}"
    return fallback


def _year(cluster: dict[str, Any]) -> int | None:
    date = str(cluster.get("date_filed") or "")
    return int(date[:4]) if date[:4].isdigit() else None


def cluster_names(cluster: dict[str, Any]) -> list[str]:
    """The names CourtListener gives a cluster (its case name, its full case name)."""
    return [str(cluster[k]) for k in ("case_name", "case_name_full") if cluster.get(k)]


def _judge(citation: FoundCitation, before: CitationVerdict, answer: dict[str, Any]) -> CitationVerdict:
    key = citation.key or citation.text
    status = answer.get("status")
    clusters = answer.get("clusters") or []
    note = "checked online with CourtListener's citation lookup (the local database cannot verify it)"
    if status in (200, 300) and clusters:
        scored = [(names_match(citation.name, cluster_names(c))[1] if citation.name else 0.0, c) for c in clusters]
        _, cluster = max(scored, key=lambda item: item[0])
        name = cluster.get("case_name") or cluster.get("case_name_full")
        year = _year(cluster)
        case = CaseSummary(
            case_id=f"courtlistener:{cluster.get('id')}",
            name=name,
            citation=_cluster_citation(cluster, citation.reporter, key),
            year=year,
        )
        problems = []
        if citation.name and cluster_names(cluster) and not names_match(citation.name, cluster_names(cluster))[0]:
            problems.append(f"CourtListener has {key} as {name} ({year}), not “{citation.name}”")
        if citation.year is not None and year is not None and citation.year != year:
            problems.append(f"the year given, {citation.year}, is not CourtListener's ({year}) for {name}")
        if problems:
            return _noted(before, note, verdict=MISMATCH, case=case, reason="; ".join(problems))
        ambiguous = f" (one of {len(clusters)} cases at this citation)" if status == 300 else ""
        return _noted(
            before, note, verdict=VERIFIED, case=case, reason=f"CourtListener: {key} is {name} ({year}){ambiguous}"
        )
    if status == 404:
        reason = f"CourtListener's citation lookup has no case at {key}; before: {before.reason}"
        return _noted(before, note, verdict=NOT_FOUND, case=None, reason=reason)
    message = answer.get("error_message") or f"status {status}"
    return _noted(before, f"CourtListener could not look up {key}: {message}")


def _noted(before: CitationVerdict, note: str, **changes: Any) -> CitationVerdict:
    """`before` with `note` added to its notes and the other fields in `changes` replaced."""
    return replace(before, notes=(*before.notes, note), **changes)


def refine_online(
    found: Sequence[FoundCitation],
    verdicts: Sequence[CitationVerdict],
    *,
    token: str | None = None,
    base_url: str | None = None,
    cache_folder: Path | str | None = None,
    timeout_s: float = 30.0,
    deadline: Deadline | None = None,
) -> OnlineResult:
    """Return `verdicts` with CourtListener's answers for the full citations judged unverifiable or not_found (and
    the short forms that refer to them). `timeout_s` bounds each read, `deadline` (default: `Deadline()`, 120 s
    from now) all the requests together. Never raises for network, token, package or answer problems, nor for a
    server too slow: they become the result's `message`, and the verdicts not looked up stay as they were."""
    result = OnlineResult(list(verdicts))
    wanted: dict[str, list[int]] = {}
    for index, (citation, verdict) in enumerate(zip(found, verdicts, strict=True)):
        if citation.kind == FULL and citation.key and verdict.verdict in (UNVERIFIABLE, NOT_FOUND):
            wanted.setdefault(citation.key, []).append(index)
    if not wanted:
        return result
    token, base_url = credentials(token, base_url)
    if not token:
        result.message = f"--online skipped: set {TOKEN_ENV} to a CourtListener API token"
        return result
    result.asked = len(wanted)
    cache = LookupCache(cache_folder)
    try:
        answers: dict[str, dict[str, Any]] = {}
        for key in wanted:
            cached = cache.get(f"{base_url}|{key}")
            if cached is not None:
                answers[key] = cached
        result.cached = len(answers)
        missing = [key for key in wanted if key not in answers]
        if missing:
            result.message = lookup_citations(missing, answers, cache, token, base_url, timeout_s, deadline)
            result.fetched = len(answers) - result.cached
    finally:
        cache.close()
    changed: dict[int, CitationVerdict] = {}
    for key, indexes in wanted.items():
        if key in answers:
            for index in indexes:
                changed[index] = _judge(found[index], result.verdicts[index], answers[key])
    for index, verdict in changed.items():
        result.verdicts[index] = verdict
    for index, citation in enumerate(found):
        if citation.kind != FULL and citation.refers_to in changed:
            target = result.verdicts[citation.refers_to]
            before = result.verdicts[index]
            head = before.reason.split(": ", 1)[0]
            result.verdicts[index] = replace(
                before, verdict=target.verdict, case=target.case, reason=f"{head}: {target.reason}"
            )
    return result


def lookup_citations(
    keys: list[str],
    answers: dict[str, dict[str, Any]],
    cache: LookupCache,
    token: str,
    base_url: str,
    timeout_s: float,
    deadline: Deadline | None = None,
) -> str | None:
    """Ask CourtListener's citation-lookup API about `keys`, filling `answers` (and the cache), all before
    `deadline`; return a message when something went wrong. `online_texts` asks it for a case's cluster too."""
    try:
        import httpx
        from courtlistener import CourtListener, CourtListenerAPIError
    except ImportError:
        return "--online skipped: the courtlistener-api-client package is missing (pip install 'lexprobe[online]')"
    deadline = deadline or Deadline()
    client = CourtListener(api_token=token, base_url=base_url, timeout=timeout_s)
    throttled = 0
    abandoned = False  # a request still in its thread past the deadline: the client is left to it, not closed
    try:
        for start in range(0, len(keys), MAX_PER_REQUEST):
            batch = keys[start : start + MAX_PER_REQUEST]
            text = "\n".join(batch)
            try:
                results = deadline.run(lambda text=text: client.citation_lookup.lookup_text(text))
            except DeadlineExceeded:
                abandoned = True
                return deadline.message("--online")
            except CourtListenerAPIError as exc:
                if exc.status_code in (401, 403):
                    return f"--online stopped: CourtListener rejected the token (HTTP {exc.status_code})"
                return f"--online stopped: CourtListener answered HTTP {exc.status_code}"
            except httpx.HTTPError as exc:
                return f"--online skipped: cannot reach {base_url} ({type(exc).__name__}: {exc})"
            except (ValueError, AssertionError) as exc:  # the client's json() and its `assert isinstance(.., list)`
                return not_a_lookup("not JSON" if isinstance(exc, ValueError) else "not a list")
            problem = lookup_shape_problem(results)
            if problem:
                return not_a_lookup(problem)
            throttled += _take(results, batch, answers, cache, base_url)
    finally:
        if not abandoned:
            client.close()
    if throttled:
        return f"--online: CourtListener throttled {throttled} citation(s); run again later for the rest"
    return None


def not_a_lookup(why: str) -> str:
    """The message for an answer that is not what the citation-lookup API answers."""
    return f"--online skipped: CourtListener's answer is not a citation-lookup result ({why})"


def lookup_shape_problem(results: Any) -> str | None:
    """What is wrong with a citation-lookup answer, or None: a list of objects with a status and a start index."""
    if not isinstance(results, list):
        return f"a JSON {type(results).__name__}, not a list"
    for item in results:
        if not isinstance(item, dict) or "status" not in item or "start_index" not in item:
            return "a list whose items are not lookup results (status, start_index)"
    return None


def _take(
    results: list[dict[str, Any]], batch: list[str], answers: dict[str, dict[str, Any]], cache: LookupCache, base: str
) -> int:
    """Keep the answers of one request (matched to `batch` by start offset); return how many were throttled."""
    offsets: dict[int, str] = {}
    position = 0
    for key in batch:
        offsets[position] = key
        position += len(key) + 1
    throttled = 0
    for item in results:
        key = offsets.get(item.get("start_index"))  # type: ignore[arg-type]
        if key is None:
            continue
        if item.get("status") not in CACHED_STATUSES:
            throttled += item.get("status") == 429
            continue
        answers[key] = _slim(item)
        cache.put(f"{base}|{key}", answers[key])
    return throttled
