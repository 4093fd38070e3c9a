"""Reference rows from the InvestigationWorlds paper: the numbers its Section 4 prints (case solved per model and
the naive baselines, commitment, the ablation changes and verdict transitions, coverage and signal recall, the
generator check) and its investigation budget, shipped as package data (`investigation_worlds.json`), and their
comparison with a user's scores (`paper_comparison`). See docs/investigation.md, "Reference rows from the paper".

May import: `lexprobe.investigation.agent` (episodes), `lexprobe.investigation.scoring` (the summary it compares
with), `lexprobe.caselaw.paths`."""

from lexprobe.caselaw.paths import papers_root
from lexprobe.investigation.reference.compare import paper_comparison, reference_rows
from lexprobe.investigation.reference.rows import ReferenceRow, ReferenceSet, load_reference

__all__ = ["ReferenceRow", "ReferenceSet", "load_reference", "paper_comparison", "papers_root", "reference_rows"]
