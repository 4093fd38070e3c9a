"""OCR of scanned PDF pages: a page with no text layer but with images is read by Tesseract (`tesseract-ocr`).

The page's image XObjects are decoded by pypdf (under the PDF limits of the caller) and each is passed to the
`tesseract` command as a PNG on its stdin, with a time limit (`limits.OCR_PAGE_TIMEOUT_S`); images over
`limits.OCR_MAX_IMAGE_PIXELS` are refused from their declared size before they are decoded. Where `tesseract` is
not installed, `ocr_available()` is false and the reader keeps the page's empty text (with one warning per file).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import time

from pypdf import PageObject
from pypdf.generic import DictionaryObject

from lexprobe.documents.limits import OCR_MAX_IMAGE_PIXELS, OCR_PAGE_TIMEOUT_S

MISSING_HINT = "no text layer and tesseract is not installed: install tesseract-ocr (apt-get install tesseract-ocr)"


def ocr_available() -> bool:
    """Whether the `tesseract` command is on PATH."""
    return shutil.which("tesseract") is not None


def page_image_count(page: PageObject) -> int:
    """Image XObjects in the page's own resources (what `page.images` lists first); 0 when there are none."""
    return len(_image_sizes(page))


def _image_sizes(page: PageObject) -> list[int]:
    """Declared width * height of each image XObject in the page's resources."""
    try:
        resources = page.get("/Resources")
        xobjects = resources.get_object().get("/XObject") if resources is not None else None
        if xobjects is None:
            return []
        sizes = []
        for ref in xobjects.get_object().values():
            xobject = ref.get_object()
            if isinstance(xobject, DictionaryObject) and xobject.get("/Subtype") == "/Image":
                sizes.append(int(xobject.get("/Width", 0)) * int(xobject.get("/Height", 0)))
        return sizes
    except Exception:  # malformed resources: nothing to OCR
        return []


def ocr_page(page: PageObject, number: int) -> str:
    """Return the text Tesseract reads from the page's images, joined by blank lines, or a "[page N: ...]" marker
    saying why none could be read (an image over the pixel limit, the time limit reached, tesseract failing)."""
    sizes = _image_sizes(page)
    if any(size > OCR_MAX_IMAGE_PIXELS for size in sizes):
        biggest = max(sizes)
        return (
            f"[page {number}: not OCRed: an image of {biggest:,} pixels, over the limit of "
            f"{OCR_MAX_IMAGE_PIXELS:,} (OCR_MAX_IMAGE_PIXELS)]"
        )
    deadline = time.monotonic() + OCR_PAGE_TIMEOUT_S
    texts = []
    try:
        for image_file in page.images:
            image = image_file.image
            if image is None or image.width * image.height > OCR_MAX_IMAGE_PIXELS:
                continue
            png = io.BytesIO()
            image.save(png, "PNG")
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired("tesseract", OCR_PAGE_TIMEOUT_S)
            texts.append(_tesseract(png.getvalue(), left))
    except subprocess.TimeoutExpired:
        return f"[page {number}: OCR stopped at the time limit of {OCR_PAGE_TIMEOUT_S} s (OCR_PAGE_TIMEOUT_S)]"
    except subprocess.CalledProcessError as exc:
        reason = (exc.stderr or b"").decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {exc.returncode}"]
        return f"[page {number}: OCR failed: {reason[0]}]"
    text = "\n\n".join(text.strip() for text in texts if text.strip())
    return "\n".join(line.strip() for line in text.splitlines())


def _tesseract(png: bytes, timeout: float) -> str:
    """Run `tesseract stdin stdout` on one PNG image (one thread: pages are many, cores few)."""
    result = subprocess.run(
        ["tesseract", "stdin", "stdout"],
        input=png,
        capture_output=True,
        timeout=timeout,
        check=True,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
    )
    return result.stdout.decode("utf-8", "replace")
