"""What a user's scored episodes were, per model, for the design notes beside each comparison with the paper:
how many episodes and environments, which ablation levels, which tool and turn budgets."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lexprobe.investigation.agent.episode import Episode
from lexprobe.investigation.scoring.summary import ablation_sort_key


@dataclass
class UserDesign:
    """One model's scored episodes: counts, levels, budgets (tool calls, turns)."""

    model: str
    n_episodes: int = 0
    environments: set[str] = field(default_factory=set)
    levels: set[str] = field(default_factory=set)
    budgets: set[tuple[int, int]] = field(default_factory=set)

    @property
    def n_environments(self) -> int:
        """Distinct (case, level) environments the model ran."""
        return len(self.environments)

    def level_text(self) -> str:
        """The levels in words: "merits, +pro_alternative", or "unspecified"."""
        names = sorted((level or "unspecified" for level in self.levels), key=ablation_sort_key)
        return ", ".join(names) or "unspecified"

    def budget_text(self) -> str:
        """The budgets in words: "5 tool calls / 5 turns" (several joined by "; ")."""
        return "; ".join(f"{tools} tool calls / {turns} turns" for tools, turns in sorted(self.budgets)) or "unknown"


def user_designs(episodes: Iterable[Episode]) -> dict[str, UserDesign]:
    """Group scored episodes by model into `UserDesign`s."""
    designs: dict[str, UserDesign] = {}
    for episode in episodes:
        design = designs.setdefault(episode.model, UserDesign(episode.model))
        design.n_episodes += 1
        design.environments.add(f"{episode.environment}|{episode.ablation}")
        design.levels.add(episode.ablation)
        design.budgets.add((episode.tool_budget, episode.turn_budget))
    return designs
