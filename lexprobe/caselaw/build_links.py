"""The links of the in-memory sources resolved to merged cases during a build: opinions joined to their cases by
cluster or parallel citation (a case known only from its opinion is created), citator treatments and citation
edges turned into case-id pairs. The overruling links are `overrulings`; `build` calls both."""

from __future__ import annotations

from lexprobe.caselaw.build_report import BuildReport
from lexprobe.caselaw.citations import citation_key, citation_parts
from lexprobe.caselaw.merge import CaseMerger
from lexprobe.caselaw.records import (
    CaseRecord,
    LoadResult,
    OpinionRecord,
    TreatmentRecord,
)

#: The reporters that print only the Supreme Court, compared exactly with a citation key's reporter: "U.S. LEXIS"
#: is the Court's LEXIS series, "U.S. App. LEXIS" and "U.S. App. D.C." are not.
SUPREME_COURT_REPORTERS = frozenset({"U.S.", "S. Ct.", "L. Ed.", "L. Ed. 2d", "U.S. LEXIS"})


def attach_opinions(merger: CaseMerger, records: list[OpinionRecord], report: BuildReport) -> list[tuple]:
    """Join opinions to cases by their parallel citations; a case known only from its opinion is created, and a case
    an opinion joins takes the opinion's parallel citations it lacked (so an S. Ct. or L. Ed. citation of a case the
    other sources know only by its U.S. citation finds it).

    An opinion id met twice (the same opinion in the plain-text and the raw folder) keeps its first record; the
    number of such duplicates is reported. A created case is a Supreme Court case only when one of its citations
    is in a Supreme Court reporter (the cited opinions include some lower-court decisions).
    """
    rows = []
    seen: set[str] = set()
    majority: dict[str, tuple[int, str]] = {}
    type_rank = {"lead": 0, "combined": 1}
    unmatched = duplicates = 0
    for op in records:
        if op.opinion_id in seen:
            duplicates += 1
            continue
        seen.add(op.opinion_id)
        # an opinion of a cluster a source described joins that cluster's case first (an unpublished decision's
        # cluster often has no citation to join by), else any case sharing one of its citations
        case_id = merger.by_source_id.get(("courtlistener", op.cluster_id)) if op.cluster_id else None
        case_id = case_id or merger.find(op.citations, op.case_name)
        if case_id is not None:  # the cluster's parallel citations (S. Ct., L. Ed., Lexis) are the case's too
            merger.add_citations(case_id, op.citations, "courtlistener")
        if case_id is None and op.citations:
            parts = [citation_parts(key) for key in (citation_key(c) for c in op.citations) if key]
            supreme = any(p is not None and p[1] in SUPREME_COURT_REPORTERS for p in parts)
            case_id = merger.add(
                CaseRecord(
                    source="courtlistener",
                    source_id=op.cluster_id or op.opinion_id,
                    court_id="scotus" if supreme else None,
                    name=op.case_name,
                    citations=op.citations,
                    year=op.year,
                )
            )
        if case_id is None:
            unmatched += 1
        rows.append(
            (op.opinion_id, case_id, op.cluster_id, op.opinion_type, int(op.is_majority), op.author, op.text,
             op.source_file, op.source)
        )  # fmt: skip
        if case_id and op.is_majority:
            rank = type_rank.get(op.opinion_type, 9)
            if case_id not in majority or rank < majority[case_id][0]:
                majority[case_id] = (rank, op.opinion_id)
    for case_id, (_, opinion_id) in majority.items():
        merger.cases[case_id].values["majority_opinion_id"] = (opinion_id, "opinions")
    report.unmatched["opinions"] = unmatched
    report.unmatched["duplicate_opinion_ids"] = duplicates
    return rows


def resolve_treatments(merger: CaseMerger, records: list[TreatmentRecord], report: BuildReport) -> list[tuple]:
    """Turn citator treatments named by citations into case-id rows (an unmatched side is None, and counted)."""
    rows = []
    unmatched = 0
    for rec in records:
        citing = merger.find(rec.citing_citations, rec.citing_name)
        cited = merger.find(rec.cited_citations, rec.cited_name)
        unmatched += citing is None or cited is None
        rows.append(
            (citing, cited, rec.citing_name, rec.cited_name, rec.label, rec.agreement, int(rec.expert_reviewed),
             rec.source, rec.location)
        )  # fmt: skip
    report.unmatched["treatments"] = unmatched
    return rows


def resolve_edges(merger: CaseMerger, results: dict[str, LoadResult], report: BuildReport) -> list[tuple]:
    """Turn edges named by source ids ('fowler:123') or citations into case-id pairs."""
    rows = []
    unmatched = 0

    def resolve(ref: str) -> str | None:
        source, _, source_id = ref.partition(":")
        if (source, source_id) in merger.by_source_id:
            return merger.by_source_id[(source, source_id)]
        return merger.find([ref])

    for result in results.values():
        for edge in result.edges:
            citing, cited = resolve(edge.citing), resolve(edge.cited)
            if citing is None or cited is None:
                unmatched += 1
                continue
            rows.append((citing, cited, edge.source))
    report.unmatched["citation_edges"] = unmatched
    return rows
