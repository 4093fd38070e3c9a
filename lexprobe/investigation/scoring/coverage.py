"""Document coverage and signal recall per episode (Section 4.3), per-episode points and recall by role."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lexprobe.investigation.environment import Environment
from lexprobe.investigation.episode import Episode
from lexprobe.investigation.scoring.metrics import UNSPECIFIED

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


def touched_documents(episode: Episode, documents: Documents, *, reads_only: bool = False) -> set[str]:
    """The ids of the corpus documents that the episode's tool calls touched (see the module docstring). A call
    names a document by id (`doc_ids`) or, where the id is missing, by corpus path (`documents`); ids and paths
    not in the corpus are left out."""
    roles = document_roles(documents)
    by_path = {doc.path: doc.doc_id for doc in documents.documents} if isinstance(documents, Environment) else {}
    touched: set[str] = set()
    for call in episode.tool_calls:
        if call.denied or (reads_only and call.name != "read"):
            continue
        for index, path in enumerate(call.documents):
            doc_id = call.doc_ids[index] if index < len(call.doc_ids) else ""
            for candidate in (doc_id, by_path.get(path, ""), path):
                if candidate in roles:
                    touched.add(candidate)
                    break
        for doc_id in call.doc_ids[len(call.documents) :]:
            if doc_id in roles:
                touched.add(doc_id)
    return touched


@dataclass(frozen=True)
class Coverage:
    """What share of a corpus one episode touched, overall and by role."""

    n_documents: int
    n_touched: int
    coverage: float | None
    signal_recall: float | None
    documents_by_role: dict[str, int] = field(default_factory=dict)
    touched_by_role: dict[str, int] = field(default_factory=dict)
    recall_by_role: dict[str, float | None] = field(default_factory=dict)


def coverage(
    episode: Episode, documents: Documents, *, signal_roles: Sequence[str] = SIGNAL_ROLES, reads_only: bool = False
) -> Coverage:
    """Coverage, signal recall and recall by role of one episode over its corpus (see the module docstring)."""
    roles = document_roles(documents)
    touched = touched_documents(episode, documents, reads_only=reads_only)
    present = list(dict.fromkeys([*ROLES, *roles.values()]))
    documents_by_role = {role: sum(r == role for r in roles.values()) for role in present}
    touched_by_role = {role: sum(roles[d] == role for d in touched) for role in present}
    signal_total = sum(documents_by_role.get(role, 0) for role in signal_roles)
    signal_touched = sum(touched_by_role.get(role, 0) for role in signal_roles)
    return Coverage(
        n_documents=len(roles),
        n_touched=len(touched),
        coverage=len(touched) / len(roles) if roles else None,
        signal_recall=signal_touched / signal_total if signal_total else None,
        documents_by_role=documents_by_role,
        touched_by_role=touched_by_role,
        recall_by_role={
            role: touched_by_role[role] / documents_by_role[role] if documents_by_role[role] else None
            for role in present
        },
    )


def mean_of(values: Iterable[float | None]) -> float | None:
    """Return the mean of the values that are not None (None when there are none)."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def coverage_points(episodes: Sequence[Episode], environments: Environments | None) -> list[dict]:
    """One point per episode with a known corpus: model, episode id, ablation, coverage and signal recall."""
    points = []
    for episode, cov in zip(episodes, episode_coverages(episodes, environments), strict=True):
        if cov is not None:
            points.append({"model": episode.model, "episode_id": episode.episode_id,
                           "ablation": episode.ablation or UNSPECIFIED, "coverage": cov.coverage,
                           "signal_recall": cov.signal_recall})  # fmt: skip
    return points


def role_recall_table(episodes: Sequence[Episode], environments: Environments | None) -> list[dict]:
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
            rows.append({
                "model": model,
                "role": role,
                "episodes": len(having),
                "documents_mean": sum(c.documents_by_role[role] for c in having) / len(having),
                "recall": mean_of(c.recall_by_role[role] for c in having),
            })  # fmt: skip
    return rows


def episode_coverages(episodes: Sequence[Episode], environments: Environments | None) -> list[Coverage | None]:
    """Return each episode's coverage, or None where its environment's documents are unknown."""
    result = []
    for episode in episodes:
        documents = (environments or {}).get(episode.env_dir)
        result.append(None if documents is None else coverage(episode, documents))
    return result
