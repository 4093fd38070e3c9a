"""`lexprobe check --online`: ask CourtListener (the `courtlistener-api-client` package, extra `online`) about what
the local database cannot verify (docs/check.md, "Online lookup", "Opinion texts online"):

- `refine_online`: the citation-lookup API, for the citations judged unverifiable or not_found;
- `OnlineOpinionTexts`: the opinions of a cited case whose text the database lacks (REST v4), as plain text keeping
  their star paging, so its quotations can be checked as the offline ones are; every response is bounded
  (`MAX_RESPONSE_BYTES`, `MAX_OPINION_CHARS`, the run's `Deadline`).

All the requests of a run share one `Deadline` (`--online-timeout`): a per-request timeout does not bound a server
that answers slowly but steadily, so each request runs in a daemon thread waited for only until the deadline.
Answers and texts are cached forever in `courtlistener.sqlite` in the lexprobe cache folder (`LookupCache`). A missing
token or package, an unreachable server or a bad answer never raises: `OnlineResult.message` or
`OnlineOpinionTexts.messages` says why (a quotation stays unverifiable, its reason saying why).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from lexprobe.caselaw.case_names import names_match
from lexprobe.caselaw.quote_text import normalize, page_marks
from lexprobe.caselaw.sources.markup import html_to_text
from lexprobe.check.extract import FULL, FoundCitation
from lexprobe.check.quote_match import Opinion
from lexprobe.check.verify import MISMATCH, NOT_FOUND, UNVERIFIABLE, VERIFIED, CaseSummary, CitationVerdict
from lexprobe.engine.cache import default_cache_dir
from lexprobe.engine.sqlite_util import connect, transaction

T = TypeVar("T")

#: Seconds all of `check --online`'s requests may take together (`--online-timeout`).
DEFAULT_ONLINE_TIMEOUT_S = 120.0


class DeadlineExceeded(Exception):
    """The deadline passed before the work was done."""


class Deadline:
    """`seconds` for all the work run through `run`, together, and a way to run work that must finish within what
    is left."""

    def __init__(self, seconds: float = DEFAULT_ONLINE_TIMEOUT_S) -> None:
        self.seconds = seconds
        self.left = seconds

    def remaining(self) -> float:
        """Seconds left (0 when passed)."""
        return max(0.0, self.left)

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def run(self, work: Callable[[], T]) -> T:
        """Return `work()`'s result (or raise its exception), run in a daemon thread; raise `DeadlineExceeded` when
        the deadline passes first (the thread is left behind: a blocking read cannot be interrupted portably)."""
        if self.expired:
            raise DeadlineExceeded
        outcome: dict[str, object] = {}

        def target() -> None:
            try:
                outcome["result"] = work()
            except BaseException as exc:  # handed to the waiting thread, which raises it
                outcome["error"] = exc

        thread = threading.Thread(target=target, name="lexprobe-online-request", daemon=True)
        began = time.monotonic()
        thread.start()
        thread.join(self.remaining())
        self.left -= time.monotonic() - began
        if thread.is_alive():
            self.left = 0.0
            raise DeadlineExceeded
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["result"]  # type: ignore[return-value]

    def message(self, what: str) -> str:
        """The line the command prints when the deadline passed during `what` ("--online", "--online texts")."""
        return (
            f"{what} skipped: CourtListener took too long (all of --online's requests must be done within "
            f"{self.seconds:g} s; --online-timeout)"
        )


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
    `lookups`), and the clusters and opinion texts of `OnlineOpinionTexts` (table `opinion_texts`, among `tables`)."""

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
    `deadline`; return a message when something went wrong. `OnlineOpinionTexts` asks it for a case's cluster too."""
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


#: Opinion text fields of the REST v4 opinions endpoint, in the order one is chosen.
TEXT_FIELDS = (
    "html_with_citations",
    "xml_harvard",
    "html_columbia",
    "html_lawbox",
    "html_anon_2020",
    "html",
    "plain_text",
)
_META_FIELDS = ("id", "type", "author_str", "author_id", "per_curiam", "absolute_url")
#: Characters of one opinion's text kept (the rest is cut, and the reason says so).
MAX_OPINION_CHARS = 5_000_000
#: Bytes of one API response read at most (several text fields of one opinion come in one response).
MAX_RESPONSE_BYTES = 40_000_000
#: Opinions of one cluster fetched at most.
MAX_OPINIONS_PER_CASE = 20
#: Cases whose texts one run fetches at most.
MAX_ONLINE_CASES = 50
#: Bumped when `html_to_text` changes, so cached texts converted the old way are fetched again.
TEXT_FORMAT = 1
SOURCE_DATABASE, SOURCE_COURTLISTENER = "database", "courtlistener"

#: CourtListener opinion types -> the case database's (type, is_majority).
_TYPES = {
    "010combined": ("combined", False),
    "015unamimous": ("lead", True),
    "020lead": ("lead", True),
    "025plurality": ("lead", True),
    "030concurrence": ("concurrence", False),
    "035concurrenceinpart": ("concurrence_in_part", False),
    "040dissent": ("dissent", False),
}
_OPINION_ID = re.compile(r"/opinions/([0-9]{1,12})/?$")
_ID = re.compile(r"[0-9]{1,12}")


@dataclass(frozen=True)
class OnlineOpinion(Opinion):
    """An opinion whose text came from CourtListener: its API URL, and where its text was cut (0: it was not)."""

    url: str = ""
    cut: int = 0  # the characters its text was cut at, 0 when whole


@dataclass(frozen=True)
class OnlineCase:
    """The opinions fetched for a case (empty when none could be) and, when empty, why."""

    opinions: tuple[OnlineOpinion, ...]
    why: str = ""


def source_fields(opinion: Opinion) -> dict[str, Any]:
    """The `source` (and, for CourtListener, `url`) of a quotation's evidence."""
    if isinstance(opinion, OnlineOpinion):
        return {"source": SOURCE_COURTLISTENER, "url": opinion.url}
    return {"source": SOURCE_DATABASE}


def source_note(opinion: Opinion) -> str:
    """What a verdict's reason adds about an opinion text fetched from CourtListener ("" for the database's)."""
    if not isinstance(opinion, OnlineOpinion):
        return ""
    cut = f"; its text was cut at {opinion.cut:,} characters (it is longer)" if opinion.cut else ""
    return f" (opinion text from CourtListener, {opinion.url}{cut})"


def case_note(opinions: Sequence[Opinion]) -> str:
    """What a verdict's reason adds when no passage was found in opinions fetched from CourtListener."""
    online = [opinion for opinion in opinions if isinstance(opinion, OnlineOpinion)]
    if not online:
        return ""
    cut = [f"; the text of {o.url} was cut at {o.cut:,} characters (it is longer)" for o in online if o.cut]
    return f" (opinion texts from CourtListener: {', '.join(o.url for o in online)}{''.join(cut)})"


class _Stop(Exception):
    """Fetching stops for the rest of the run; the message says why."""


class _Missing(Exception):
    """One cluster or opinion could not be had; the message says why, `status` is the HTTP status if one came."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class OnlineOpinionTexts:
    """Opinion texts of cases from CourtListener for `check --online`, fetched on first need and cached."""

    token: str | None = field(default=None, repr=False)
    base_url: str | None = None
    cache_folder: Path | str | None = None
    timeout_s: float = 30.0
    deadline: Deadline = field(default_factory=Deadline)  # for all the requests of the run, shared with the lookups
    max_opinion_chars: int = MAX_OPINION_CHARS
    max_response_bytes: int = MAX_RESPONSE_BYTES
    messages: list[str] = field(default_factory=list)
    fetched: int = 0
    cached: int = 0
    _cases: dict[str, OnlineCase] = field(default_factory=dict, repr=False)
    _stopped: str | None = field(default=None, repr=False)
    _client: Any = field(default=None, repr=False)
    _cache: LookupCache | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.token, self.base_url = credentials(self.token, self.base_url)

    def opinions_for(self, case: CaseSummary, citation: FoundCitation) -> OnlineCase:
        """The CourtListener opinions of `case` (cited by the full citation `citation`), or none and why."""
        cluster = self._cluster_id(case, citation)
        if isinstance(cluster, OnlineCase):
            return cluster
        if cluster not in self._cases:
            if len(self._cases) >= MAX_ONLINE_CASES:
                return OnlineCase((), f"; --online fetches the texts of at most {MAX_ONLINE_CASES} cases a run")
            self._cases[cluster] = self._read_case(cluster, case.case_id, _first_page(citation))
        return self._cases[cluster]

    def close(self) -> None:
        """Close the HTTP client and the cache."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    # --- which cluster ------------------------------------------------------------------------------------------

    def _cluster_id(self, case: CaseSummary, citation: FoundCitation) -> str | OnlineCase:
        if case.case_id.startswith("courtlistener:"):
            ident = case.case_id.split(":", 1)[1]
            return (
                ident
                if _ID.fullmatch(ident)
                else OnlineCase((), f"; CourtListener gave no usable cluster id ({ident[:40]!r})")
            )
        key = citation.key
        if key is None:
            return OnlineCase((), "; its citation gives no volume and page to look up on CourtListener")
        lookup_key = f"{self.base_url}|{key}"
        answer = self.cache.get(lookup_key)
        if answer is None:
            if self._stopped is None and self._connect() is not None:
                answers: dict[str, dict[str, Any]] = {}
                message = lookup_citations(
                    [key], answers, self.cache, str(self.token), str(self.base_url), self.timeout_s, self.deadline
                )
                if message:
                    self._stop(message.replace("--online", "--online texts", 1))
                answer = answers.get(key)
            if answer is None:
                why = self._stopped or f"CourtListener's citation lookup gave no answer for {key}"
                return OnlineCase((), f"; {why}")
        clusters = [c for c in answer.get("clusters") or [] if isinstance(c, dict) and _ID.fullmatch(str(c.get("id")))]
        if answer.get("status") not in (200, 300) or not clusters:
            return OnlineCase((), f"; CourtListener's citation lookup has no case at {key}")
        names = [case.name] if case.name else []
        best = max(clusters, key=lambda c: names_match(names[0], cluster_names(c))[1] if names else 0.0)
        return str(best["id"])

    # --- fetching and caching -----------------------------------------------------------------------------------

    @property
    def cache(self) -> LookupCache:
        if self._cache is None:
            self._cache = LookupCache(self.cache_folder, ("lookups", "opinion_texts"))
        return self._cache

    def _cached(self, kind: str, ident: str) -> dict[str, Any] | None:
        body = self.cache.get(f"{self.base_url}|{kind}|{ident}", "opinion_texts")
        return body if isinstance(body, dict) and body.get("format") == TEXT_FORMAT else None

    def _keep(self, kind: str, ident: str, body: dict[str, Any]) -> None:
        self.cache.put(f"{self.base_url}|{kind}|{ident}", {**body, "format": TEXT_FORMAT}, "opinion_texts")

    def _read_case(self, cluster_id: str, case_id: str, first_page: int | None) -> OnlineCase:
        rows: list[dict[str, Any]] = []
        missing: list[str] = []
        try:
            cluster = self._cluster(cluster_id)
            for opinion_id in cluster["opinion_ids"][:MAX_OPINIONS_PER_CASE]:
                try:
                    rows.append(self._opinion(opinion_id))
                except _Missing as exc:
                    missing.append(str(exc))
        except (_Stop, _Missing) as exc:
            return OnlineCase((), f"; CourtListener's opinion texts could not be had: {exc}")
        rows = [row for row in rows if row["text"].strip()]
        split = [row for row in rows if row["opinion_type"] != "combined"]
        chosen = sorted(split or rows, key=lambda row: (not row["is_majority"], str(row["id"])))
        if not chosen:
            why = f" ({'; '.join(missing[:3])})" if missing else ""
            return OnlineCase((), f"; CourtListener has no opinion text for cluster {cluster_id}{why}")
        opinions = tuple(
            OnlineOpinion(
                opinion_id=f"courtlistener:{row['id']}",
                case_id=case_id,
                opinion_type=row["opinion_type"],
                is_majority=row["is_majority"],
                author=row["author"],
                text=row["text"],
                normalized=normalize(row["text"]),
                marks=page_marks(row["text"], first_page),
                url=f"{self.base_url}/opinions/{row['id']}/",
                cut=int(row["cut"]),
            )
            for row in chosen
        )
        return OnlineCase(opinions)

    def _cluster(self, cluster_id: str) -> dict[str, Any]:
        cached = self._cached("cluster", cluster_id)
        if cached is not None:
            return cached
        data = self._get(f"clusters/{cluster_id}/", ("id", "sub_opinions", "case_name"))
        ids = []
        links = data.get("sub_opinions")
        for item in links if isinstance(links, list) else []:
            text = str(item)
            found = _OPINION_ID.search(text)
            ident = found.group(1) if found else text if _ID.fullmatch(text) else None
            if ident is not None:
                ids.append(ident)
        body = {"id": cluster_id, "case_name": str(data.get("case_name") or ""), "opinion_ids": ids}
        self._keep("cluster", cluster_id, body)
        return body

    def _opinion(self, opinion_id: str) -> dict[str, Any]:
        cached = self._cached("opinion", opinion_id)
        if cached is not None:
            self.cached += 1
            if cached.get("missing"):
                raise _Missing(f"CourtListener has no opinion {opinion_id}", 404)
            return cached
        try:
            data = self._get(f"opinions/{opinion_id}/", (*_META_FIELDS, *TEXT_FIELDS))
        except _Missing as exc:
            if exc.status != 404:
                raise
            data = {"type": "", "missing": True}  # an answer, kept like the citation lookup's 404s
        text = ""
        for name in TEXT_FIELDS:
            value = data.get(name)
            if isinstance(value, str) and value.strip():
                text = value if name == "plain_text" else html_to_text(value)
                if text.strip():
                    break
        cut = len(text) > self.max_opinion_chars
        opinion_type, is_majority = _TYPES.get(str(data.get("type") or ""), ("lead", True))
        author = data.get("author_str") or None
        if author is None and data.get("per_curiam"):
            author = "per curiam"
        body = {
            "id": opinion_id,
            "opinion_type": opinion_type,
            "is_majority": is_majority,
            "author": str(author)[:200] if author else None,
            "text": text[: self.max_opinion_chars],
            "cut": self.max_opinion_chars if cut else 0,
            "missing": bool(data.get("missing")),
        }
        self._keep("opinion", opinion_id, body)
        self.fetched += 1
        if data.get("missing"):
            raise _Missing(f"CourtListener has no opinion {opinion_id}", 404)
        return body

    def _connect(self) -> Any:
        """The SDK client, or None (and the run stopped) without a token or the package."""
        if self._client is None and self._stopped is None:
            if not self.token:
                self._stop(f"--online texts skipped: set {TOKEN_ENV} to a CourtListener API token")
                return None
            try:
                from courtlistener import CourtListener
            except ImportError:
                self._stop("--online texts skipped: the courtlistener-api-client package is missing")
                return None
            self._client = CourtListener(api_token=self.token, base_url=self.base_url, timeout=self.timeout_s)
        return self._client

    def _stop(self, message: str) -> _Stop:
        """Stop fetching for the rest of the run (`message` is printed once); the exception to raise, if any."""
        self._stopped = message
        if message not in self.messages:
            self.messages.append(message)
        return _Stop(message)

    def _get(self, path: str, fields: tuple[str, ...]) -> dict[str, Any]:
        """GET one API object, reading at most `MAX_RESPONSE_BYTES` within twice the timeout and before the
        deadline; raises _Stop (no more requests this run) or _Missing (this object only)."""
        if self._stopped is not None:
            raise _Stop(self._stopped)
        client = self._connect()
        if client is None:
            raise _Stop(str(self._stopped))
        import httpx

        try:
            status, body = self.deadline.run(lambda: self._download(client, path, fields))
        except DeadlineExceeded:
            self._client = None  # its request is still in its thread: the client is left to it, not closed
            raise self._stop(self.deadline.message("--online texts")) from None
        except httpx.HTTPError as exc:
            raise self._stop(
                f"--online texts skipped: cannot reach {self.base_url} ({type(exc).__name__}: {exc})"
            ) from None
        if status in (401, 403):
            raise self._stop(f"--online texts stopped: CourtListener rejected the token (HTTP {status})")
        if status == 429:
            raise self._stop("--online texts stopped: CourtListener throttled the requests; run again later")
        if status != 200:
            raise _Missing(f"HTTP {status} for {path}", status)
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            why = "not JSON" if data is None else f"a JSON {type(data).__name__}, not an object"
            raise self._stop(f"--online texts skipped: CourtListener's answer is not an API object ({path}: {why})")
        return data

    def _download(self, client: Any, path: str, fields: tuple[str, ...]) -> tuple[int, bytes]:
        """The status and body of one GET (the body only for a 200), read in `deadline.run`'s thread; raises
        _Missing for a body over `max_response_bytes` or slower than twice the timeout, httpx's errors as they
        come."""
        deadline = time.monotonic() + 2 * self.timeout_s
        chunks: list[bytes] = []
        size = 0
        with client.client.stream("GET", path, params={"fields": ",".join(fields)}) as response:
            if response.status_code != 200:
                return response.status_code, b""
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    raise _Missing(f"{path} is larger than {self.max_response_bytes:,} bytes, not read")
                if time.monotonic() > deadline:
                    raise _Missing(f"{path} took longer than {2 * self.timeout_s:.0f} s, not read")
                chunks.append(chunk)
        return 200, b"".join(chunks)


def _first_page(citation: FoundCitation) -> int | None:
    return int(citation.page) if citation.page and citation.page.isdigit() else None
