"""The ablation ladder: the five cumulative corpus levels of InvestigationWorlds Section 4.2, defined once.

Every part of lexprobe that names a level (the construction pipeline, the hand-written sample, scoring, the CLI)
uses this module. Levels, each adding to the one before:

- `merits`: the record's merits exhibits (no synthetic document);
- `+pro_alternative`: adds the pro-alternative documents ONLY (Figure 6 measures what pro-alternative evidence alone
  does to verdicts on the alternatives: at this level nothing in the corpus refutes them);
- `+noise`: adds the noise documents and the remaining on-topic synthetic documents, signal and refuting. The
  paper's ladder names only pro-alternative, noise and chaff counts; putting signal and refuting documents here,
  with the other on-topic documents, is lexprobe's reading;
- `+chaff50`: adds half the chaff, a seeded subset of the `+chaff100` chaff (`chaff_half`);
- `+chaff100`: adds all the chaff.

The `+chaff50` half: the chaff documents are ranked by the SHA-256 of "<seed>:<series>" (a document without a series
uses its doc_id), then by doc_id, and the first ceil(n/2) are kept. Documents of one series share a rank key, so a
whole series stays together, except at most the one series the cut falls in. The same seed always keeps the same
half; the pipeline passes its build seed, the sample the default 0.

Folder names (`level_slug`): merits, pro_alternative, noise, chaff50, chaff100. `parse_levels` reads "all" or a
comma list, and accepts the older spellings found in earlier docs and code (`+pro_alt`, names without the "+").
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Literal, Protocol, TypeVar, get_args

from lexprobe.errors import BadInputError
from lexprobe.investigation.environment.roles import Role

AblationLevel = Literal["merits", "+pro_alternative", "+noise", "+chaff50", "+chaff100"]
LEVELS: tuple[AblationLevel, ...] = get_args(AblationLevel)
DEFAULT_LEVEL: AblationLevel = "+chaff100"

#: The roles each level adds to the level before it (chaff at +chaff50: only the seeded half, see `chaff_half`).
ADDED_ROLES: dict[AblationLevel, frozenset[Role]] = {
    "merits": frozenset({Role.merits}),
    "+pro_alternative": frozenset({Role.pro_alternative}),
    "+noise": frozenset({Role.noise, Role.signal, Role.refuting}),
    "+chaff50": frozenset({Role.chaff}),
    "+chaff100": frozenset({Role.chaff}),
}
_ALIASES: dict[str, AblationLevel] = {
    "+pro_alt": "+pro_alternative",
    "pro_alt": "+pro_alternative",
    "+pro-alternative": "+pro_alternative",
    "+chaff": "+chaff100",
    "+chaff_50": "+chaff50",
    "+chaff_100": "+chaff100",
}

LADDER_HELP = (
    "Ablation levels (cumulative, paper Section 4.2): merits (the record's merits exhibits); +pro_alternative (adds "
    "the pro-alternative documents only); +noise (adds noise, signal and refuting documents); +chaff50 (adds a "
    "seeded half of the chaff); +chaff100 (all the chaff)."
)


class LadderDocument(Protocol):
    """What the ladder reads of a document (`lexprobe.investigation.environment.format.Document` has it)."""

    @property
    def doc_id(self) -> str: ...
    @property
    def role(self) -> Role: ...
    @property
    def series(self) -> str | None: ...


D = TypeVar("D", bound=LadderDocument)


def canonical_level(level: str) -> AblationLevel:
    """Return the canonical name of `level` (an old alias or a folder name such as "noise" is accepted).

    Raises ValueError naming the known levels for anything else."""
    text = level.strip()
    if text in LEVELS:
        return text  # type: ignore[return-value]
    if text in _ALIASES:
        return _ALIASES[text]
    if f"+{text}" in LEVELS:
        return f"+{text}"  # type: ignore[return-value]
    raise BadInputError(f"unknown ablation level {level!r}; levels: {', '.join(LEVELS)} (or 'all')")


def roles_at(level: str) -> frozenset[Role]:
    """Return every role present (wholly or, for chaff at +chaff50, in part) at `level`; ValueError if unknown."""
    canonical = canonical_level(level)
    roles: set[Role] = set()
    for step in LEVELS[: LEVELS.index(canonical) + 1]:
        roles |= ADDED_ROLES[step]
    return frozenset(roles)


def _chaff_rank(document: LadderDocument, seed: int) -> tuple[str, str]:
    key = f"{seed}:{document.series or document.doc_id}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest(), document.doc_id


def chaff_half(documents: Sequence[D], seed: int = 0) -> set[str]:
    """Return the doc ids of the `+chaff50` chaff: the first ceil(n/2) chaff documents ranked by
    sha256("<seed>:<series or doc_id>") then doc_id (whole series together, but for the one the cut falls in)."""
    chaff = sorted((d for d in documents if d.role == Role.chaff), key=lambda d: _chaff_rank(d, seed))
    return {d.doc_id for d in chaff[: math.ceil(len(chaff) / 2)]}


def select(documents: Sequence[D], level: str, seed: int = 0) -> list[D]:
    """Return the documents of the corpus at ablation `level`, in input order.

    `seed` picks the `+chaff50` half (`chaff_half`). Raises ValueError for an unknown level."""
    half = canonical_level(level) == "+chaff50"  # only the seeded half of the chaff
    roles = roles_at(level) - ({Role.chaff} if half else set())
    kept_chaff = chaff_half(documents, seed) if half else set()
    return [d for d in documents if d.role in roles or d.doc_id in kept_chaff]


def level_slug(level: str) -> str:
    """Return the folder name of a level: merits, pro_alternative, noise, chaff50, chaff100."""
    return canonical_level(level).lstrip("+")


def parse_levels(text: str) -> list[AblationLevel]:
    """Return the levels named by "all" or a comma list ("merits,+noise"), deduplicated, in ladder order.

    Raises ValueError (one line) for an empty list or an unknown level."""
    if text.strip().lower() == "all":
        return list(LEVELS)
    names = [part for part in (p.strip() for p in text.split(",")) if part]
    if not names:
        raise BadInputError(f"no ablation level given; levels: {', '.join(LEVELS)} (or 'all')")
    chosen = {canonical_level(name) for name in names}
    return [level for level in LEVELS if level in chosen]


def level_sort_key(level: str) -> tuple[int, str]:
    """Order levels as the ladder (aliases beside their level), unknown levels after them by name."""
    try:
        canonical = canonical_level(level)
    except ValueError:
        return len(LEVELS), level
    return LEVELS.index(canonical), "" if canonical == level else level
