"""The join of the CourtListener API loader: clusters with their dockets' courts and their opinions, the filter,
the issues naming what was missing, and the one-line `EmptySourceError` for paths that hold nothing usable. Part of
`courtlistener_api`, which reads the files and calls `refuse_junk` and `join_collected`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.caselaw.records import (
    CaseRecord,
    EmptySourceError,
    LoadOptions,
    LoadResult,
    OpinionRecord,
    RowIssue,
)
from lexprobe.caselaw.sources.cap_cases import parse_partial_date
from lexprobe.caselaw.sources.cap_courts import court_place
from lexprobe.caselaw.sources.courtlistener_api_objects import (
    EXPECTED,
    KINDS,
    SOURCE,
    Cluster,
    Collected,
    Docket,
    Opinion,
)
from lexprobe.caselaw.sources.courtlistener_api_values import MAX_DISPOSITION_CHARS, disposition_of
from lexprobe.caselaw.sources.opinions import MAJORITY_TYPES


@dataclass
class PathTally:
    """What one given path (a file or a folder) held: the substance of an `EmptySourceError` message."""

    path: Path
    files: int = 0
    other_files: int = 0
    kinds: Counter[str] = field(default_factory=Counter)  # API kinds read, and the other kinds met
    problems: list[str] = field(default_factory=list)  # "not JSON (file:line: ...)", first few only

    def recognized(self) -> int:
        """How many objects of the kinds this loader reads."""
        return sum(self.kinds[kind] for kind in KINDS)


# --- the join ------------------------------------------------------------------------------------------------


def refuse_junk(tallies: list[PathTally]) -> None:
    """Raise `EmptySourceError` for the given paths that hold no API object of the kinds this loader reads."""
    junk = [tally for tally in tallies if tally.recognized() == 0]
    if junk:
        found = "; ".join(_found(tally) for tally in junk)
        raise EmptySourceError(f"{_names(junk)}: no CourtListener case read: expected {EXPECTED}; found {found}")


def _found(tally: PathTally) -> str:
    """What a path held, in a few words: "3 files, 0 JSON objects of those kinds: 12 objects of kind 'people'"."""
    if tally.files == 0:
        return f"a folder with no .json, .jsonl or .ndjson file ({tally.other_files} other file(s))"
    parts = [f"{tally.files} file(s), 0 JSON objects of those kinds"]
    others = [f"{count} {_plural_kind(kind, count)}" for kind, count in tally.kinds.most_common() if count]
    if others:
        parts[0] += ": " + ", ".join(others)
    if tally.problems:
        parts.append("; ".join(tally.problems))
    return "; ".join(parts)


def _plural_kind(kind: str, count: int) -> str:
    noun = "object" if count == 1 else "objects"
    if kind == "not an object":
        return f"JSON value(s) that are not {noun}"
    if kind == "unrecognized":
        return f"{noun} without resource_uri or known fields"
    return f"{noun} of kind {kind!r}"


def _names(tallies: list[PathTally]) -> str:
    names = [str(tally.path) for tally in tallies]
    return ", ".join(names) if len(names) <= 3 else f"{', '.join(names[:3])} and {len(names) - 3} more"


def join_collected(
    collected: Collected,
    court_hint: str | None,
    options: LoadOptions,
    result: LoadResult,
    tallies: list[PathTally],
) -> None:
    """Join clusters with their dockets and opinions, apply the filter, and fill `result`."""
    if not collected.clusters:
        _refuse_no_cluster(tallies)
    docket_of = {cid: docket_id for docket_id, d in collected.dockets.items() for cid in d.cluster_ids}
    cluster_of = {oid: c.cluster_id for c in collected.clusters.values() for oid in c.sub_opinions}
    by_cluster: dict[str, list[Opinion]] = {}
    for opinion in collected.opinions.values():
        cluster_id = opinion.cluster_id or cluster_of.get(opinion.opinion_id)
        by_cluster.setdefault(cluster_id or "", []).append(opinion)

    courtless: dict[str, list[str]] = {}  # source file → missing docket ids (or "?" for no docket reference)
    dropped = 0
    kept: list[Cluster] = []
    for cluster in collected.clusters.values():
        docket_id = cluster.docket_id or docket_of.get(cluster.cluster_id)
        docket = collected.dockets.get(docket_id or "")
        court_id = cluster.court_id or (docket.court_id if docket else None) or court_hint
        if court_id is None:
            courtless.setdefault(cluster.source_file, []).append(docket_id or "?")
        _, year = parse_partial_date((cluster.date_filed or "")[:10])
        if not (options.filter.keeps_court(court_id) and options.filter.keeps_year(year)):
            dropped += 1
            continue
        kept.append(cluster)
        opinions = by_cluster.get(cluster.cluster_id, [])
        result.cases.append(_case_record(cluster, docket, court_id, opinions, collected))
    for source_file, dockets in courtless.items():
        result.issues.append(RowIssue(SOURCE, source_file, _courtless_message(dockets, collected)))

    _add_opinions(kept, by_cluster, collected, result)
    if not result.cases:
        raise EmptySourceError(
            f"{_names(tallies)}: no CourtListener case kept: {len(collected.clusters)} cluster(s) read, none of "
            f"them {_filter_text(options)}"
        )
    if dropped:
        result.issues.append(
            RowIssue(SOURCE, _names(tallies), f"{dropped} cluster(s) left out: not {_filter_text(options)}")
        )


def _refuse_no_cluster(tallies: list[PathTally]) -> None:
    """Raise for a set of files with no cluster: what was found instead, and that the cases are the clusters."""
    kinds = Counter[str]()
    for tally in tallies:
        kinds.update({kind: tally.kinds[kind] for kind in KINDS if tally.kinds[kind]})
    read = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
    raise EmptySourceError(
        f"{_names(tallies)}: no CourtListener case read: expected {EXPECTED}; found "
        f"{sum(t.files for t in tallies)} file(s) with {read} but no cluster or search result "
        "(the cases are the clusters: save the /clusters/ pages too)"
    )


def _case_record(
    cluster: Cluster, docket: Docket | None, court_id: str | None, opinions: list[Opinion], collected: Collected
) -> CaseRecord:
    """One kept cluster as a case: its docket's number, its majority opinion's author, its place and disposition."""
    decision_date, year = parse_partial_date((cluster.date_filed or "")[:10])
    circuit, state = court_place(court_id, decision_date)
    majority = [op for op in opinions if _is_majority(op, opinions)]
    disposition_raw = (cluster.disposition or "")[:MAX_DISPOSITION_CHARS] or None
    return CaseRecord(
        source=SOURCE,
        source_id=cluster.cluster_id,
        court_id=court_id,
        name=cluster.name,
        citations=cluster.citations,
        decision_date=decision_date,
        year=year,
        docket=cluster.docket_number or (docket.docket_number if docket else None),
        author=next((op.author for op in majority if op.author), None),
        disposition=disposition_of(disposition_raw),
        disposition_raw=disposition_raw,
        majority_votes=cluster.majority_votes,
        minority_votes=cluster.minority_votes,
        state=state,
        circuit=circuit,
        extra=_extra(cluster, collected.courts.get(court_id or "")),
    )


def _courtless_message(docket_ids: list[str], collected: Collected) -> str:
    """Why a file's clusters have no court: their dockets were not saved, were saved without a court, or are not
    named at all ("?")."""
    unsaved = sorted({d for d in docket_ids if d != "?" and d not in collected.dockets}, key=lambda d: (len(d), d))
    courtless = sorted({d for d in docket_ids if d in collected.dockets}, key=lambda d: (len(d), d))
    reasons = []
    if unsaved:
        reasons.append(f"their docket(s) {_few(unsaved)} are not among the files (save the /dockets/ pages alongside)")
    if courtless:
        reasons.append(f"their docket(s) {_few(courtless)} name no court")
    if "?" in docket_ids:
        reasons.append(f"{docket_ids.count('?')} name no docket")
    return f"{len(docket_ids)} cluster(s) without a court: {'; '.join(reasons)}"


def _add_opinions(
    kept: list[Cluster], by_cluster: dict[str, list[Opinion]], collected: Collected, result: LoadResult
) -> None:
    """Opinion records of the kept clusters, with their case's name, citations and year; orphans are reported."""
    for cluster in kept:
        opinions = by_cluster.get(cluster.cluster_id, [])
        year = parse_partial_date((cluster.date_filed or "")[:10])[1]
        for opinion in opinions:
            result.opinions.append(
                OpinionRecord(
                    source=SOURCE,
                    opinion_id=opinion.opinion_id,
                    cluster_id=cluster.cluster_id,
                    case_name=cluster.name,
                    citations=cluster.citations,
                    opinion_type=opinion.opinion_type,
                    is_majority=_is_majority(opinion, opinions),
                    author=opinion.author,
                    text=opinion.text,
                    source_file=opinion.source_file,
                    year=year,
                )
            )
    orphans: dict[str, tuple[int, set[str]]] = {}  # source file → (opinions, cluster ids not saved)
    for cluster_id, opinions in by_cluster.items():
        if cluster_id not in collected.clusters:
            for opinion in opinions:
                count, cluster_ids = orphans.get(opinion.source_file, (0, set()))
                orphans[opinion.source_file] = (count + 1, cluster_ids | {cluster_id or "?"})
    for source_file, (count, cluster_ids) in orphans.items():
        named = sorted((c for c in cluster_ids if c != "?"), key=lambda c: (len(c), c))
        which = f"their cluster(s) {_few(named)} are not among the files" if named else "no cluster reference"
        message = f"{count} opinion(s) not kept: {which} (save the /clusters/ pages alongside)"
        result.issues.append(RowIssue(SOURCE, source_file, message))


def _filter_text(options: LoadOptions) -> str:
    parts = []
    if options.filter.courts is not None:
        parts.append(f"in the courts {','.join(sorted(options.filter.courts))}")
    if options.filter.years is not None:
        parts.append(f"decided {options.filter.years[0]}-{options.filter.years[1]}")
    return "kept by the filter (" + " and ".join(parts) + ")" if parts else "kept"


def _few(items: list[str], limit: int = 3) -> str:
    return ", ".join(items) if len(items) <= limit else f"{', '.join(items[:limit])} and {len(items) - limit} more"


def _is_majority(opinion: Opinion, siblings: list[Opinion]) -> bool:
    """Lead and unanimous opinions are majority opinions; a combined one only where its cluster has neither."""
    if opinion.opinion_type in MAJORITY_TYPES:
        return True
    return opinion.opinion_type == "combined" and not any(op.opinion_type in MAJORITY_TYPES for op in siblings)


def _extra(cluster: Cluster, court_name: str | None) -> tuple[tuple[str, str], ...]:
    facts = []
    if cluster.name_full and cluster.name_full != cluster.name:
        facts.append(("case_name_full", cluster.name_full))
    for key in ("precedential_status", "scdb_id", "citation_count", "judges", "docket_id"):
        value = getattr(cluster, key)
        if value:
            facts.append((key, str(value)))
    if cluster.date_is_approximate:
        facts.append(("date_filed_is_approximate", "true"))
    if court_name:
        facts.append(("court_name", court_name))
    return tuple(facts)
