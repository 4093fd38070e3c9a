"""`lexprobe check --online`, opinion texts: fetch from CourtListener the opinions of a cited case whose text the
case database lacks, so its quotations can be checked as the offline ones are.

- Which case: a citation the online citation lookup resolved (`courtlistener:<cluster id>`, see
  `lexprobe.check.online`) or a database case without opinion text, whose cluster is taken from the cached
  citation-lookup answer for its citation (asked for once when not cached), the cluster whose name best matches.
- What is fetched (REST v4, through the `courtlistener-api-client` package's HTTP client, so the same token and
  base-URL settings as the citation lookups: `COURTLISTENER_API_TOKEN`, `COURTLISTENER_API_BASE_URL`):
  `clusters/{id}/` for its `sub_opinions`, then `opinions/{id}/` for each (at most `MAX_OPINIONS_PER_CASE`), whose
  text is the first non-empty of `TEXT_FIELDS`; HTML and XML become plain text (`html_to_text`) keeping the star
  paging as "*691" so pages and pin cites can be checked.
- Bounds: a response over `MAX_RESPONSE_BYTES` is not read; a text over `MAX_OPINION_CHARS` is cut (the verdict's
  reason says so); every request has a timeout and an overall deadline; at most `MAX_ONLINE_CASES` cases a run.
  Hostile markup is only text: scripts and styles are dropped, nothing of it is kept as markup.
- Cache: clusters and converted opinion texts are kept forever in the `opinion_texts` table of
  `courtlistener.sqlite` in the lexprobe cache folder, keyed by base URL and id, and so is an opinion the API
  answers 404 for (as the citation lookup's 404s are); other errors and throttling are not kept. The cache is
  read before the token is needed, so a rerun works with the server gone.
- Failures (no token, no package, server unreachable, rejected token, throttling) never raise: the quotation stays
  unverifiable, its reason says why, and `messages` holds one line for the command to print.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from lexprobe.caselaw.case_names import names_match
from lexprobe.check.extract import FoundCitation
from lexprobe.check.online import BASE_URL_ENV, DEFAULT_BASE_URL, TOKEN_ENV, LookupCache, _fetch
from lexprobe.check.quote_match import Opinion
from lexprobe.check.quote_text import normalize, page_marks
from lexprobe.check.reference import CaseSummary
from lexprobe.engine.sqlite_util import transaction

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
_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "br",
        "li",
        "tr",
        "td",
        "th",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "center",
        "section",
        "article",
        "table",
        "footnote",
        "opinion",
        "author",
        "parties",
        "docketnumber",
        "headmatter",
    ]
)
_DROPPED_TAGS = frozenset(("script", "style", "head", "title", "template", "noscript"))
_PAGE_NUMBER = re.compile(r"\d{1,5}")
_OPINION_ID = re.compile(r"/opinions/([0-9]{1,12})/?$")
_ID = re.compile(r"[0-9]{1,12}")


class _TextParser(HTMLParser):
    """Collect the text of HTML or XML; star-pagination spans and <page-number> elements become " *691 "."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.dropped = 0  # depth inside script/style
        self.page_tag: str | None = None  # the page element we are inside
        self.page_nesting = 0  # open elements of its name inside it, itself included
        self.page_wanted = False  # its page is still to be read from its text ("*691", "*Page 154")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROPPED_TAGS:
            self.dropped += 1
            return
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")
        if self.page_tag is not None:
            self.page_nesting += tag == self.page_tag
            return
        values = {name: value or "" for name, value in attrs}
        if tag == "page-number" or "star-pagination" in values.get("class", "").split():
            self.page_tag, self.page_nesting = tag, 1
            label = _PAGE_NUMBER.fullmatch(values.get("label", "").strip())
            ours = values.get("citation-index", "1") in ("", "1")  # else another reporter's page
            self.page_wanted = ours and label is None
            self.parts.append(f" *{label.group()} " if ours and label is not None else " ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED_TAGS:
            self.dropped = max(0, self.dropped - 1)
            return
        if tag == self.page_tag:
            self.page_nesting -= 1
            if self.page_nesting == 0:
                self.page_tag = None
                self.parts.append(" ")
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.dropped:
            return
        if self.page_tag is None:
            self.parts.append(data)
        elif self.page_wanted and (page := _PAGE_NUMBER.search(data)) is not None:
            self.parts.append(f" *{page.group()} ")
            self.page_wanted = False


def html_to_text(markup: str) -> str:
    """The text of an opinion's HTML or XML (CourtListener's `html*` and `xml_harvard` fields): tags dropped,
    block elements as line breaks, entities decoded, scripts and styles left out, star paging kept as " *691 "."""
    parser = _TextParser()
    parser.feed(markup)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)


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
        self.token = self.token or os.environ.get(TOKEN_ENV)
        self.base_url = (self.base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")

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
                message = _fetch([key], answers, self.cache, str(self.token), str(self.base_url), self.timeout_s)
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
        best = max(clusters, key=lambda c: names_match(names[0], _names(c))[1] if names else 0.0)
        return str(best["id"])

    # --- fetching and caching -----------------------------------------------------------------------------------

    @property
    def cache(self) -> LookupCache:
        if self._cache is None:
            self._cache = LookupCache(self.cache_folder)
            self._cache.conn.execute(
                "CREATE TABLE IF NOT EXISTS opinion_texts (key TEXT PRIMARY KEY, body TEXT NOT NULL, "
                "created_at REAL NOT NULL)"
            )
        return self._cache

    def _cached(self, kind: str, ident: str) -> dict[str, Any] | None:
        row = self.cache.conn.execute(
            "SELECT body FROM opinion_texts WHERE key = ?", (f"{self.base_url}|{kind}|{ident}",)
        ).fetchone()
        body = json.loads(row[0]) if row else None
        return body if isinstance(body, dict) and body.get("format") == TEXT_FORMAT else None

    def _keep(self, kind: str, ident: str, body: dict[str, Any]) -> None:
        body = {**body, "format": TEXT_FORMAT}
        with transaction(self.cache.conn) as conn:
            conn.execute(
                "INSERT OR REPLACE INTO opinion_texts VALUES (?, ?, ?)",
                (f"{self.base_url}|{kind}|{ident}", json.dumps(body), time.time()),
            )

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

    def _stop(self, message: str) -> None:
        self._stopped = message
        if message not in self.messages:
            self.messages.append(message)

    def _get(self, path: str, fields: tuple[str, ...]) -> dict[str, Any]:
        """GET one API object, reading at most `MAX_RESPONSE_BYTES` within twice the timeout; raises _Stop (no
        more requests this run) or _Missing (this object only)."""
        if self._stopped is not None:
            raise _Stop(self._stopped)
        client = self._connect()
        if client is None:
            raise _Stop(str(self._stopped))
        import httpx

        deadline = time.monotonic() + 2 * self.timeout_s
        chunks: list[bytes] = []
        size = 0
        try:
            with client.client.stream("GET", path, params={"fields": ",".join(fields)}) as response:
                if response.status_code in (401, 403):
                    status = response.status_code
                    self._stop(f"--online texts stopped: CourtListener rejected the token (HTTP {status})")
                    raise _Stop(str(self._stopped))
                if response.status_code == 429:
                    self._stop("--online texts stopped: CourtListener throttled the requests; run again later")
                    raise _Stop(str(self._stopped))
                if response.status_code != 200:
                    raise _Missing(f"HTTP {response.status_code} for {path}", response.status_code)
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > self.max_response_bytes:
                        raise _Missing(f"{path} is larger than {self.max_response_bytes:,} bytes, not read")
                    if time.monotonic() > deadline:
                        raise _Missing(f"{path} took longer than {2 * self.timeout_s:.0f} s, not read")
                    chunks.append(chunk)
        except httpx.HTTPError as exc:
            self._stop(f"--online texts skipped: cannot reach {self.base_url} ({type(exc).__name__}: {exc})")
            raise _Stop(str(self._stopped)) from None
        try:
            data = json.loads(b"".join(chunks))
        except ValueError:
            raise _Missing(f"{path} did not answer JSON") from None
        if not isinstance(data, dict):
            raise _Missing(f"{path} did not answer a JSON object")
        return data


def _names(cluster: dict[str, Any]) -> list[str]:
    return [str(cluster[k]) for k in ("case_name", "case_name_full") if cluster.get(k)]


def _first_page(citation: FoundCitation) -> int | None:
    return int(citation.page) if citation.page and citation.page.isdigit() else None
