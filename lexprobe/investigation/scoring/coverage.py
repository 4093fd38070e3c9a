"""Document coverage, signal recall and the seen-in-search share per episode (Section 4.3, Figure 7), per-episode
points and recall by role.

Coverage is the paper's "fraction of corpus the agent opens": documents OPENED (content shown to the agent: a
`read`, a shell `cat`/`head`/`sed -n`/`grep -C ... FILE`, ...; see `tools.py` and `shell_reads.py`) over the
corpus's documents. Signal recall and recall by role count opened documents too. Documents that a call only showed
by name or by a matching line (`glob`, the `grep` tool, `ls`, `find`, `grep -l`) are "seen in search": the seen
share is a separate measure (documents seen at least once, whether or not also opened, over the corpus's
documents) and never enters coverage or recall.

Signal recall is the paper's "fraction of merits evidence and h*-supporting signal documents opened" (Section 4.3):
its documents are the merits documents and the signal documents that support h* (`recall_documents`: a signal
document targeting h*, or targeting nothing and carrying a fact supporting h*); a signal document that serves
another hypothesis (say, one carrying only a fact of the court-rejected hypothesis) is not counted. Before issue 29
every signal document counted.

Episodes recorded before calls recorded `opened` (the field is None) fall back to their `read` calls: the document
a `read` touched was opened; what other calls touched (grep matches, paths named by a shell command or its output)
counts as seen, never as opened.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lexprobe.investigation.agent.episode import Episode, ToolCallRecord
from lexprobe.investigation.environment.format import Environment, HypothesisKind
from lexprobe.investigation.scoring.metrics import UNSPECIFIED
from lexprobe.investigation.scoring.schema import CoveragePoint, RoleRecall

SIGNAL_ROLES = ("merits", "signal")
ROLES = ("merits", "signal", "pro_alternative", "refuting", "noise", "chaff")


# --- coverage and recall ---------------------------------------------------------------------------------------

Documents = Environment | Mapping[str, str]
Environments = Mapping[str, Documents | None]


def document_roles(documents: Documents) -> dict[str, str]:
    """doc_id -> role of an environment (a mapping is returned as a dict)."""
    if isinstance(documents, Environment):
        return {doc.doc_id: str(doc.role) for doc in documents.documents}
    return {str(key): str(value) for key, value in documents.items()}


def supports_adopted(documents: Environment, doc_id: str) -> bool:
    """Whether the signal document `doc_id` supports h* (the court-adopted hypothesis): it targets h*, or it names no
    target and carries one of h*'s supporting facts. True for every signal document of an environment without h*."""
    adopted = documents.hypotheses_of(HypothesisKind.court_adopted)
    if not adopted:
        return True
    document = next((doc for doc in documents.documents if doc.doc_id == doc_id), None)
    if document is None:
        return False
    if document.target_hypothesis is not None:
        return any(document.target_hypothesis == h.hypothesis_id for h in adopted)
    return any(set(h.supporting_facts).intersection(document.facts) for h in adopted)


def recall_documents(documents: Documents, signal_roles: Sequence[str] = SIGNAL_ROLES) -> set[str]:
    """The ids of the documents signal recall counts (Section 4.3: "merits evidence and h*-supporting signal
    documents"): every document of a role in `signal_roles`, except that a `signal` document of an environment
    counts only when it supports h* (`supports_adopted`). Given only doc_id -> role, every signal document counts
    (nothing says which hypothesis it serves)."""
    roles = document_roles(documents)
    kept = {doc_id for doc_id, role in roles.items() if role in signal_roles}
    if isinstance(documents, Environment):
        kept = {d for d in kept if roles[d] != "signal" or supports_adopted(documents, d)}
    return kept


def _ids(call: ToolCallRecord, paths: Sequence[str], roles: Mapping[str, str], by_path: Mapping[str, str]) -> set[str]:
    """The document ids of paths a call named: its recorded id (`doc_ids` follow `documents`), else the id the
    environment gives the path, else the path itself when it is an id; ids and paths not in the corpus are left
    out."""
    recorded = dict(zip(call.documents, call.doc_ids, strict=False))
    found = set()
    for path in paths:
        for candidate in (recorded.get(path, ""), by_path.get(path, ""), path):
            if candidate in roles:
                found.add(candidate)
                break
    return found


def episode_documents(episode: Episode, documents: Documents, *, reads_only: bool = False) -> tuple[set[str], set[str]]:
    """The ids of the corpus documents the episode's calls that ran (not denied) opened, and those they saw in
    search. With `reads_only`, only `read` calls open documents."""
    roles = document_roles(documents)
    by_path = {doc.path: doc.doc_id for doc in documents.documents} if isinstance(documents, Environment) else {}
    opened: set[str] = set()
    seen: set[str] = set()
    for call in episode.tool_calls:
        if call.denied:
            continue
        opened_paths, seen_paths = call.opened_and_seen()
        if reads_only and call.name != "read":
            opened_paths = []
        opened |= _ids(call, opened_paths, roles, by_path)
        seen |= _ids(call, seen_paths, roles, by_path)
    return opened, seen


def opened_documents(episode: Episode, documents: Documents, *, reads_only: bool = False) -> set[str]:
    """The ids of the corpus documents the episode opened (what coverage counts)."""
    return episode_documents(episode, documents, reads_only=reads_only)[0]


def seen_documents(episode: Episode, documents: Documents) -> set[str]:
    """The ids of the corpus documents the episode saw in search results (whether or not it also opened them)."""
    return episode_documents(episode, documents)[1]


def touched_documents(episode: Episode, documents: Documents, *, reads_only: bool = False) -> set[str]:
    """The ids of the documents opened or seen: NOT coverage (which counts opened documents only); kept for
    callers that want every document an episode came across."""
    opened, seen = episode_documents(episode, documents, reads_only=reads_only)
    return opened | seen


@dataclass(frozen=True)
class Coverage:
    """What share of a corpus one episode opened, overall and by role, and what share it saw in search."""

    n_documents: int
    n_opened: int
    coverage: float | None  # opened / corpus documents
    signal_recall: float | None  # opened merits and h*-supporting signal documents / all of those (`recall_documents`)
    n_seen: int = 0
    seen_share: float | None = None  # seen in search (opened or not) / corpus documents
    documents_by_role: dict[str, int] = field(default_factory=dict)
    opened_by_role: dict[str, int] = field(default_factory=dict)
    recall_by_role: dict[str, float | None] = field(default_factory=dict)


def coverage(
    episode: Episode, documents: Documents, *, signal_roles: Sequence[str] = SIGNAL_ROLES, reads_only: bool = False
) -> Coverage:
    """Coverage, signal recall, recall by role and the seen share of one episode over its corpus (see the module
    docstring)."""
    roles = document_roles(documents)
    opened, seen = episode_documents(episode, documents, reads_only=reads_only)
    present = list(dict.fromkeys([*ROLES, *roles.values()]))
    documents_by_role = {role: sum(r == role for r in roles.values()) for role in present}
    opened_by_role = {role: sum(roles[d] == role for d in opened) for role in present}
    counted = recall_documents(documents, signal_roles)
    signal_total, signal_opened = len(counted), len(counted & opened)
    return Coverage(
        n_documents=len(roles),
        n_opened=len(opened),
        coverage=len(opened) / len(roles) if roles else None,
        signal_recall=signal_opened / signal_total if signal_total else None,
        n_seen=len(seen),
        seen_share=len(seen) / len(roles) if roles else None,
        documents_by_role=documents_by_role,
        opened_by_role=opened_by_role,
        recall_by_role={
            role: opened_by_role[role] / documents_by_role[role] if documents_by_role[role] else None
            for role in present
        },
    )


def mean_of(values: Iterable[float | None]) -> float | None:
    """Return the mean of the values that are not None (None when there are none)."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def coverage_points(episodes: Sequence[Episode], environments: Environments | None) -> list[CoveragePoint]:
    """One point per episode with a known corpus: model, episode id, ablation, coverage, signal recall and seen
    share."""
    points = []
    for episode, cov in zip(episodes, episode_coverages(episodes, environments), strict=True):
        if cov is not None:
            points.append(CoveragePoint(model=episode.model, episode_id=episode.episode_id,
                                        ablation=episode.ablation or UNSPECIFIED, coverage=cov.coverage,
                                        signal_recall=cov.signal_recall, seen_share=cov.seen_share))  # fmt: skip
    return points


def role_recall_table(episodes: Sequence[Episode], environments: Environments | None) -> list[RoleRecall]:
    """Per model and role: the mean per-episode recall of that role's documents (over the episodes whose corpus
    has the role), the mean number of such documents per corpus and the number of episodes averaged."""
    rows = []
    covs = episode_coverages(episodes, environments)
    for model in dict.fromkeys(e.model for e in episodes):
        mine = [c for e, c in zip(episodes, covs, strict=True) if e.model == model and c is not None]
        roles = list(dict.fromkeys(role for c in mine for role in c.documents_by_role))
        for role in roles:
            having = [c for c in mine if c.documents_by_role.get(role)]
            if not having:
                continue
            rows.append(RoleRecall(
                model=model,
                role=role,
                episodes=len(having),
                documents_mean=sum(c.documents_by_role[role] for c in having) / len(having),
                recall=mean_of(c.recall_by_role[role] for c in having),
            ))  # fmt: skip
    return rows


def episode_coverages(episodes: Sequence[Episode], environments: Environments | None) -> list[Coverage | None]:
    """Return each episode's coverage, or None where its environment's documents are unknown."""
    result = []
    for episode in episodes:
        documents = (environments or {}).get(episode.env_dir)
        result.append(None if documents is None else coverage(episode, documents))
    return result
