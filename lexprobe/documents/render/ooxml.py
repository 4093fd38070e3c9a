"""Make Office Open XML packages (docx, xlsx, pptx) byte-identical for identical content.

python-docx, openpyxl and python-pptx write zip entries stamped with the current time, and openpyxl stamps
`docProps/core.xml` with the save time. `finalize_package` rewrites the zip: every entry stamped with one fixed
time, `[Content_Types].xml` first and the other entries sorted by name, fixed permissions and compression, and the
`dcterms:created` / `dcterms:modified` values of the core properties set to the same fixed time.
"""

from __future__ import annotations

import os
import re
import zipfile
from datetime import datetime
from pathlib import Path

CORE_PROPERTIES = "docProps/core.xml"
_CORE_DATES = re.compile(rb"(<dcterms:(created|modified)\b[^>]*>)[^<]*(</dcterms:\2>)")


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
