"""Keep the star paging of raw opinion markup as "*NNN" text, so that the case database's opinion texts say which
page of the U.S. Reports a passage is on (what `lexprobe check` needs for a quotation's `page` and `pin_ok`).

CourtListener HTML marks a page break with `<span class="star-pagination">*483</span>`, Harvard CAP XML with
`<page-number citation-index="1" label="483">*483</page-number>`; `lexprobe.caselaw.sources.markup` drops both
(its plain text has no page marks). `keep_star_pages` rewrites each such marker, before the markup is converted,
into the plain text " *483 " (spaces around it, so a mark inside a word - "de*708termines" - stays a separate
token: "de *708 termines", as the plain-text opinions write it). Only markers whose content is a star and a page
number of one to four digits are rewritten; any other (rare: "*Page 12", "*483A") is left for the converter to
drop as before. Nothing else of the markup changes.
"""

from __future__ import annotations

import re

_MARKER = re.compile(
    rb"<span\s+class=\"star-pagination\"[^>]{0,200}>\s*\*\s*(\d{1,4})\s*</span>"
    rb"|<page-number\b[^>]{0,200}>\s*\*\s*(\d{1,4})\s*</page-number>"
)


def keep_star_pages(data: bytes) -> bytes:
    """Return the markup with each star-pagination marker replaced by the text " *NNN "."""
    return _MARKER.sub(lambda match: b" *" + (match.group(1) or match.group(2)) + b" ", data)
