"""OCR of scanned PDF pages: a page without a text layer but with an image is read by tesseract."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from reportlab.pdfgen import canvas
from tool_requirements import needs_tesseract

from lexprobe.documents import ocr, readers
from lexprobe.documents.extract import extract_text

SENTENCE = "The shipment of 40 units arrived damaged on March 3."
KEY_WORDS = ["shipment", "40", "units", "arrived", "damaged", "march"]


def scanned_pdf(path: Path, lines: list[str]) -> Path:
    """A one-page image PDF (no text layer): `lines` drawn in a large font on a white letter page at 300 dpi."""
    page = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=64)
    for i, line in enumerate(lines):
        draw.text((200, 300 + 120 * i), line, fill=0, font=font)
    page.save(path, "PDF", resolution=300)
    return path


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


@needs_tesseract
def test_scanned_page_is_ocred(tmp_path: Path) -> None:
    pdf = scanned_pdf(tmp_path / "scan.pdf", [SENTENCE, "Signed, Dana Reyes"])
    text = extract_text(pdf)
    assert text.startswith("## Page 1\n")
    found = words(text)
    assert sum(word in found for word in KEY_WORDS) >= len(KEY_WORDS) - 1, text
    assert "reyes" in found, text


def test_page_with_a_text_layer_is_not_ocred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = tmp_path / "typed.pdf"
    drawing = canvas.Canvas(str(pdf), invariant=1)
    drawing.drawString(72, 720, SENTENCE)
    drawing.showPage()
    drawing.save()

    def no_ocr(*args, **kwargs):
        raise AssertionError("a page with a text layer was OCRed")

    monkeypatch.setattr(ocr, "ocr_page", no_ocr)
    monkeypatch.setattr(ocr, "ocr_available", no_ocr)
    assert "shipment of 40 units" in extract_text(pdf)


def test_scanned_page_without_tesseract_stays_empty_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pdf = tmp_path / "scan.pdf"
    images = [Image.new("L", (200, 100), 255) for _ in range(3)]
    images[0].save(pdf, "PDF", resolution=300, save_all=True, append_images=images[1:])
    monkeypatch.setattr(ocr, "ocr_available", lambda: False)
    with caplog.at_level(logging.WARNING, logger=readers.__name__):
        assert extract_text(pdf) == ""
    warnings = [record.getMessage() for record in caplog.records if "tesseract" in record.getMessage()]
    assert len(warnings) == 1 and "scan.pdf" in warnings[0] and "install tesseract-ocr" in warnings[0]


@needs_tesseract
def test_scanned_pages_past_the_ocr_limit_get_a_marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = tmp_path / "scan.pdf"
    images = [Image.new("L", (200, 100), 255) for _ in range(3)]
    images[0].save(pdf, "PDF", resolution=300, save_all=True, append_images=images[1:])
    monkeypatch.setattr(readers, "OCR_MAX_PAGES", 1)
    text = extract_text(pdf)
    assert "[page 2: not OCRed: over the limit of 1 scanned pages (OCR_MAX_PAGES)]" in text
    assert "[page 3: not OCRed" in text


def test_image_over_the_pixel_limit_is_not_decoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = scanned_pdf(tmp_path / "scan.pdf", [SENTENCE])
    monkeypatch.setattr(ocr, "ocr_available", lambda: True)
    monkeypatch.setattr(ocr, "OCR_MAX_IMAGE_PIXELS", 1000)
    text = extract_text(pdf)
    assert "[page 1: not OCRed: an image of 8,415,000 pixels" in text and "OCR_MAX_IMAGE_PIXELS" in text


@needs_tesseract
def test_ocr_past_its_time_limit_gives_a_marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = scanned_pdf(tmp_path / "scan.pdf", [SENTENCE])
    monkeypatch.setattr(ocr, "OCR_PAGE_TIMEOUT_S", 0.001)
    assert "[page 1: OCR stopped at the time limit of 0.001 s (OCR_PAGE_TIMEOUT_S)]" in extract_text(pdf)
