"""What one document says, independent of the file format it is rendered to.

A `DocumentContent` is a document type, a few header fields (title, date, author, recipients, cc, subject) and a
body: a list of blocks. Each block is one tagged kind (`kind` names it), so a document is plain JSON:

    {"doc_type": "invoice", "title": "Invoice 1042", "date": "2019-03-14", "author": "Acme Supply Co.",
     "recipients": ["Northwind LLC"], "body": [
        {"kind": "table", "header": ["Date", "Description", "Amount"],
         "rows": [["2019-03-01", "Widgets", "$1,200.00"]], "totals": [["", "Total", "$1,200.00"]]}]}

The renderers (`lexprobe.documents.render`) add the conventions of the document type (email headers, the memo
block, a letter's salutation and signature, transcript line numbers); the content carries only what is said.

Conventions:
- Dates are ISO strings: "2019-03-14" or "2019-03-14T10:30". `date` is validated; the times of chat messages and
  calendar entries are printed as given when they are not ISO.
- Table cells are strings as they should be printed ("$1,200.00", "12.5%"); the xlsx renderer stores numeric-looking
  cells as numbers with a number format that prints them the same way.
- Control characters other than tab and newline are removed from all text on validation (no format can hold them).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _CONTROL.sub("", text)


Text = Annotated[str, AfterValidator(_clean)]


class DocType(StrEnum):
    """The kinds of document the renderers know the conventions of."""

    email = "email"
    memo = "memo"
    letter = "letter"
    contract = "contract"
    deposition = "deposition"
    invoice = "invoice"
    purchase_order = "purchase_order"
    calendar = "calendar"
    chat = "chat"
    report = "report"
    spreadsheet = "spreadsheet"
    presentation = "presentation"
    note = "note"
    policy = "policy"
    minutes = "minutes"
    other = "other"


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Paragraph(_Block):
    """A paragraph of running text."""

    kind: Literal["paragraph"] = "paragraph"
    text: Text


class Heading(_Block):
    """A section heading."""

    kind: Literal["heading"] = "heading"
    text: Text


class NumberedSection(_Block):
    """A numbered contract clause: "3. Payment. Buyer shall pay ..."."""

    kind: Literal["numbered_section"] = "numbered_section"
    number: Text = Field(description="As printed, without the trailing period: '3', '3.1', 'IV'.")
    heading: Text = ""
    text: Text


class QA(_Block):
    """One question or answer of a deposition transcript."""

    kind: Literal["qa"] = "qa"
    speaker: Literal["Q", "A"]
    text: Text


class Table(_Block):
    """A table: a header row, body rows and optional totals rows (Subtotal, Tax, Total) printed below a rule."""

    kind: Literal["table"] = "table"
    header: list[Text] = Field(min_length=1)
    rows: list[list[Text]] = Field(default_factory=list)
    totals: list[list[Text]] = Field(default_factory=list)


class ChatMessage(_Block):
    """One message of a chat or text-message thread."""

    kind: Literal["chat_message"] = "chat_message"
    timestamp: Text = Field(description="ISO date-time ('2019-03-14T10:31') or as printed.")
    sender: Text
    text: Text


class CalendarEntry(_Block):
    """One calendar entry or meeting invitation."""

    kind: Literal["calendar_entry"] = "calendar_entry"
    title: Text = Field(default="", description="The meeting subject.")
    start: Text = Field(description="ISO date-time or as printed.")
    end: Text = ""
    location: Text = ""
    attendees: list[Text] = Field(default_factory=list)
    text: Text = Field(default="", description="A brief description (one or two sentences).")


class Slide(_Block):
    """One presentation slide: a title, bullets and speaker notes."""

    kind: Literal["slide"] = "slide"
    title: Text
    bullets: list[Text] = Field(default_factory=list)
    notes: Text = ""


class Sheet(_Block):
    """One worksheet: a name, a header row and data rows."""

    kind: Literal["sheet"] = "sheet"
    name: Text
    header: list[Text] = Field(min_length=1)
    rows: list[list[Text]] = Field(default_factory=list)


Block = Annotated[
    Paragraph | Heading | NumberedSection | QA | Table | ChatMessage | CalendarEntry | Slide | Sheet,
    Field(discriminator="kind"),
]


def parse_iso(value: str) -> datetime | None:
    """Return `value` as a datetime when it is an ISO date or date-time string, else None."""
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        try:
            parsed = date.fromisoformat(value)
        except ValueError:
            return None
        return datetime(parsed.year, parsed.month, parsed.day)


class DocumentContent(BaseModel):
    """One document, format-free. Raises pydantic.ValidationError on a non-ISO `date` or an unknown block kind."""

    model_config = ConfigDict(extra="forbid")

    doc_type: DocType = DocType.other
    title: Text = ""
    date: str | None = Field(default=None, description="ISO date ('2019-03-14') or date-time the document bears.")
    author: Text = Field(default="", description="Sender, author or issuing party.")
    recipients: list[Text] = Field(default_factory=list, description="To / addressees / bill-to.")
    cc: list[Text] = Field(default_factory=list)
    subject: Text = Field(default="", description="Email subject, memo 'Re:' line, letter reference line.")
    body: list[Block] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="Optional extras the renderers use where present: number (invoice / PO number), salutation, "
        "closing, address (addressee lines), letterhead, parties (contract signatories), witness (deponent).",
    )

    @field_validator("date")
    @classmethod
    def _iso_date(cls, value: str | None) -> str | None:
        if value is not None and parse_iso(value) is None:
            raise ValueError(f"date must be an ISO date or date-time, got {value!r}")
        return value

    def document_datetime(self) -> datetime:
        """Return the document's date as a datetime, or 2000-01-01 when it has none (used for file metadata)."""
        parsed = parse_iso(self.date) if self.date else None
        return (parsed or datetime(2000, 1, 1)).replace(tzinfo=None, microsecond=0)
