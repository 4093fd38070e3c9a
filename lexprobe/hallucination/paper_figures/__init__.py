"""The published estimates of *Large Legal Fictions* beside a user's profile (`hallucination report --reference
paper`): the shipped tables (`data`), the comparisons (`compare`), and their place in the HTML report (`html`).

May import: `profile`, `tasks` of this domain; `lexprobe.reporting`."""

from lexprobe.hallucination.reference.compare import comparisons, paper_comparison, z_test
from lexprobe.hallucination.reference.data import PAPER_MODELS, ReferenceValue, paper_tables, reference_values

__all__ = [
    "PAPER_MODELS",
    "ReferenceValue",
    "comparisons",
    "paper_comparison",
    "paper_tables",
    "reference_values",
    "z_test",
]
