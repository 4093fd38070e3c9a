"""Attorney review of a built environment (`lexprobe investigation review` / `review-import`): the review workbook
written for reviewers and the verdicts read back from filled-in copies, with agreement between reviewers
(`sheets`).

May import: `lexprobe.investigation.environment`, `lexprobe.documents`, `lexprobe.stats`, `lexprobe.errors`. The
names below are exported lazily (`lexprobe.lazy`): importing the package does not import openpyxl (`sheets` does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.investigation.review.sheets import (
        ReviewReport,
        ReviewSheetError,
        read_review_sheets,
        write_review_sheet,
    )

__all__ = [
    "ReviewReport",
    "ReviewSheetError",
    "read_review_sheets",
    "write_review_sheet",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "ReviewReport": "sheets",
        "ReviewSheetError": "sheets",
        "read_review_sheets": "sheets",
        "write_review_sheet": "sheets",
    },
)
