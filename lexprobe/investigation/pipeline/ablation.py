"""The five cumulative corpus levels of the role ablation (InvestigationWorlds, Section 4.2).

- `merits`: the record's merits exhibits only;
- `+pro_alternative`: adds signal, pro-alternative and refuting documents (refuters always come with the
  pro-alternative documents: an alternative must stay refutable from the corpus);
- `+noise`: adds noise documents;
- `+chaff50`: adds the first half of the chaff (by series, then id: whole series stay together where possible);
- `+chaff100`: adds all chaff.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, get_args

from lexprobe.investigation.environment import Document, Role

AblationLevel = Literal["merits", "+pro_alternative", "+noise", "+chaff50", "+chaff100"]
ABLATION_LEVELS: tuple[str, ...] = get_args(AblationLevel)

_ROLES_AT = {
    "merits": {Role.merits},
    "+pro_alternative": {Role.merits, Role.signal, Role.pro_alternative, Role.refuting},
    "+noise": {Role.merits, Role.signal, Role.pro_alternative, Role.refuting, Role.noise},
    "+chaff50": {Role.merits, Role.signal, Role.pro_alternative, Role.refuting, Role.noise},
    "+chaff100": set(Role),
}


def chaff_share(level: str) -> float:
    """Return the fraction of chaff a level includes (0, 0.5 or 1)."""
    return {"+chaff50": 0.5, "+chaff100": 1.0}.get(level, 0.0)


def select_documents(documents: Sequence[Document], level: str) -> list[Document]:
    """Return the documents of the corpus at ablation `level`, in input order.

    Raises ValueError for an unknown level.
    """
    if level not in _ROLES_AT:
        raise ValueError(f"unknown ablation level {level!r}; choose one of {', '.join(ABLATION_LEVELS)}")
    roles = _ROLES_AT[level]
    chaff = sorted((d for d in documents if d.role == Role.chaff), key=lambda d: (d.series or "", d.doc_id))
    kept_chaff = {d.doc_id for d in chaff[: math.ceil(len(chaff) * chaff_share(level))]}
    selected = [d for d in documents if d.role in roles or d.doc_id in kept_chaff]
    if any(d.role == Role.pro_alternative for d in selected):
        assert all(d in selected for d in documents if d.role == Role.refuting), "refuters must stay"
    return selected
