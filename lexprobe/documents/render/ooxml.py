"""Make Office Open XML packages (docx, xlsx, pptx) byte-identical for identical content.

python-docx, openpyxl and python-pptx write zip entries stamped with the current time, and openpyxl stamps
`docProps/core.xml` with the save time. `finalize_package` rewrites the zip: every entry stamped with one fixed
time, `[Content_Types].xml` first and the other entries sorted by name, fixed permissions and compression, and the
`dcterms:created` / `dcterms:modified` values of the core properties set to the same fixed time.
`stamp_core_properties` fills the core properties the docx and pptx renderers share from the document.
"""

from __future__ import annotations

import os
import re
import zipfile
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lexprobe.documents.content import DocumentContent

CORE_PROPERTIES = "docProps/core.xml"
_CORE_DATES = re.compile(rb"(<dcterms:(created|modified)\b[^>]*>)[^<]*(</dcterms:\2>)")


def stamp_core_properties(props: Any, content: DocumentContent) -> datetime:
    """Set the core properties `props` (python-docx or python-pptx) from `content` -- author and last modified by,
    title, subject, created and modified (the document's date), revision 1 -- and return that date."""
    when = content.document_datetime()
    props.author = props.last_modified_by = content.author
    props.title, props.subject = content.title, content.subject
    props.created = props.modified = when
    props.revision = 1
    return when


def finalize_package(path: Path, when: datetime) -> None:
    """Rewrite the OOXML zip at `path` in place with fixed timestamps (`when`) and a stable entry order.

    Raises zipfile.BadZipFile when `path` is not a zip archive.
    """
    with zipfile.ZipFile(path) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    if CORE_PROPERTIES in entries:
        entries[CORE_PROPERTIES] = _CORE_DATES.sub(rb"\g<1>" + stamp + rb"\g<3>", entries[CORE_PROPERTIES])
    zip_time = max(when, datetime(1980, 1, 1)).timetuple()[:6]  # zip cannot hold dates before 1980
    names = sorted(entries, key=lambda name: (name != "[Content_Types].xml", name))
    temporary = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(temporary, "w") as archive:
        for name in names:
            info = zipfile.ZipInfo(name, date_time=zip_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 0
            info.external_attr = 0o644 << 16
            archive.writestr(info, entries[name], compresslevel=6)
    os.replace(temporary, path)
