"""Per-episode metrics of InvestigationWorlds (Section 3.1): case solved, class accuracies, commitment."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lexprobe.investigation.agent.episode import Episode, HypothesisVerdict
from lexprobe.investigation.agent.verdict_example import episode_copies_example

ADOPTED = "court_adopted"
METRICS = ("case_solved", "believe_acc", "reject_acc", "worst_class_acc", "commit_rate", "committed_acc")
UNSPECIFIED = "unspecified"

DEFINITIONS = {
    "case_solved": "believes the court-adopted hypothesis h* and no other, with a readable verdict on every "
    "hypothesis (the paper scores complete outputs, Section 4.1): a missing verdict on any hypothesis is not solved; "
    "don't know on another hypothesis counts as not believing it",
    "case_solved_partial": "believes the court-adopted hypothesis h* and no other; don't know or no verdict on "
    "another hypothesis counts as not believing it; no verdict on h* is not solved (--partial-verdicts)",
    "copied_example": "a Turn-2 reply that copies the verdict prompt's example is scored as giving no verdict: not "
    "solved, no verdict read",
    "believe_acc": "share of h* verdicts that are believe",
    "reject_acc": "share of non-h* verdicts that are correct: reject or don't know",
    "reject_acc_strict": "share of non-h* verdicts that are correct: reject only",
    "worst_class_acc": "min(believe accuracy, do-not-believe accuracy) of the group",
    "commit_rate": "share of verdicts that are believe or reject (not don't know, not unread), pooled",
    "committed_acc": "share of committed verdicts that are correct, pooled",
    "case_solved_ci": "95% percentile interval, cluster bootstrap over environments (epochs kept together)",
    "coverage": "documents opened / corpus documents (Section 4.3): content shown by read or a shell cat, head, sed, "
    "grep -C ...; listing and search results do not count",
    "signal_recall": "share of the merits documents and the h*-supporting signal documents opened (a signal document "
    "supports h* when it targets h*, or targets nothing and carries a fact supporting h*)",
    "seen_share": "documents seen in search results (glob, grep, ls, find; opened or not) / corpus documents",
    "comparison": "difference b - a on the environments both share; paired cluster bootstrap over environments",
}


# --- per episode -----------------------------------------------------------------------------------------------


def _adopted(verdict: HypothesisVerdict) -> bool:
    return verdict.kind == ADOPTED


def _correct(verdict: HypothesisVerdict, dont_know_as_reject: bool) -> bool:
    if _adopted(verdict):
        return verdict.verdict == "believe"
    return verdict.verdict == "reject" or (dont_know_as_reject and verdict.verdict == "dont_know")


def case_solved(verdicts: Sequence[HypothesisVerdict], *, partial_verdicts: bool = False) -> bool:
    """True when every h* verdict is believe (and there is one) and no other hypothesis is believed. By default
    every hypothesis needs a readable verdict (a complete output); with `partial_verdicts` a missing verdict on a
    non-h* hypothesis counts as not believing it."""
    adopted = [v for v in verdicts if _adopted(v)]
    return (
        bool(adopted)
        and (partial_verdicts or all(v.verdict is not None for v in verdicts))
        and all(v.verdict == "believe" for v in adopted)
        and not any(v.verdict == "believe" for v in verdicts if not _adopted(v))
    )


def verdict_rule(partial_verdicts: bool) -> str:
    """One line saying which case-solved rule a score used (shown by every report)."""
    if partial_verdicts:
        return ("partial verdicts (--partial-verdicts): a missing verdict on a hypothesis other than h* counts as "
                "not believing it")  # fmt: skip
    return ("complete verdicts (the default, as the paper's complete outputs): an episode missing a verdict on any "
            "hypothesis is not solved; --partial-verdicts counts a missing verdict on another hypothesis as not "
            "believing it")  # fmt: skip


def class_accuracies(
    verdicts: Sequence[HypothesisVerdict], *, dont_know_as_reject: bool = True
) -> tuple[float | None, float | None]:
    """Return (believe-class accuracy, do-not-believe-class accuracy) of one episode; None for a class the episode
    has no hypothesis of. `dont_know_as_reject`: docs/investigation.md, "Scoring"."""
    believe = [_correct(v, dont_know_as_reject) for v in verdicts if _adopted(v)]
    reject = [_correct(v, dont_know_as_reject) for v in verdicts if not _adopted(v)]
    return (sum(believe) / len(believe) if believe else None, sum(reject) / len(reject) if reject else None)


@dataclass(frozen=True)
class EpisodeScore:
    """The verdict metrics of one episode (definitions: docs/investigation.md, "Scoring")."""

    episode_id: str
    model: str
    environment: str
    ablation: str
    epoch: int
    n_hypotheses: int
    case_solved: bool
    believe_acc: float | None
    reject_acc: float | None
    worst_class_acc: float | None
    n_verdicts: int
    n_committed: int
    n_committed_correct: int
    n_unread: int
    unparsed: bool
    believes_adopted: bool
    believes_other: bool
    copied_example: bool = False

    @property
    def commit_rate(self) -> float | None:
        return self.n_committed / self.n_verdicts if self.n_verdicts else None

    @property
    def committed_acc(self) -> float | None:
        return self.n_committed_correct / self.n_committed if self.n_committed else None


def score_verdicts(
    verdicts: Sequence[HypothesisVerdict], *, dont_know_as_reject: bool = True, partial_verdicts: bool = False
) -> dict[str, float | int | bool | None]:
    """Return the verdict metrics of one list of verdicts (the fields of `EpisodeScore` that depend on them);
    `partial_verdicts` is the case-solved rule (`case_solved`)."""
    believe, reject = class_accuracies(verdicts, dont_know_as_reject=dont_know_as_reject)
    committed = [v for v in verdicts if v.verdict in ("believe", "reject")]
    return {
        "n_hypotheses": len(verdicts),
        "case_solved": case_solved(verdicts, partial_verdicts=partial_verdicts),
        "believe_acc": believe,
        "reject_acc": reject,
        "worst_class_acc": None if believe is None or reject is None else min(believe, reject),
        "n_verdicts": len(verdicts),
        "n_committed": len(committed),
        "n_committed_correct": sum(_correct(v, False) for v in committed),
        "n_unread": sum(v.verdict is None for v in verdicts),
        "unparsed": bool(verdicts) and all(v.verdict is None for v in verdicts),
        "believes_adopted": any(_adopted(v) and v.verdict == "believe" for v in verdicts),
        "believes_other": any(not _adopted(v) and v.verdict == "believe" for v in verdicts),
    }


def score_episode(
    episode: Episode, *, dont_know_as_reject: bool = True, partial_verdicts: bool = False
) -> EpisodeScore:
    """Score one episode. An episode with no verdicts at all counts as unparsed and not solved. An episode whose
    Turn-2 reply copied the prompt's example (`verdict_example`) is not solved either: its verdicts count as unread
    and it is flagged `copied_example` (not `unparsed`, which says how the reply itself read)."""
    copied = episode_copies_example(episode)
    verdicts = [v.model_copy(update={"verdict": None}) for v in episode.verdicts] if copied else episode.verdicts
    metrics = score_verdicts(verdicts, dont_know_as_reject=dont_know_as_reject, partial_verdicts=partial_verdicts)
    unread = bool(episode.verdicts) and all(v.verdict is None for v in episode.verdicts)  # as the reply was read
    metrics["unparsed"] = unread or episode.unparsed or not episode.verdicts
    metrics["copied_example"] = copied
    return EpisodeScore(
        episode_id=episode.episode_id,
        model=episode.model,
        environment=episode.environment,
        ablation=episode.ablation or UNSPECIFIED,
        epoch=episode.epoch,
        **metrics,  # type: ignore[arg-type]
    )


def complete_episodes(episodes: Iterable[Episode]) -> tuple[list[Episode], list[Episode]]:
    """Split episodes into (complete, left out: running or failed)."""
    complete, left_out = [], []
    for episode in episodes:
        (complete if episode.status == "complete" else left_out).append(episode)
    return complete, left_out
