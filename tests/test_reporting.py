"""The report's building blocks: deterministic figures and the circuit map from the real shapefiles, and a page with
an embedded figure opened in headless Chromium (the harness itself is tested in tests/test_page_checks.py)."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest
from matplotlib.figure import Figure
from page_checks import render_page
from tool_requirements import needs_chromium

from lexprobe.caselaw.paths import data_root
from lexprobe.reporting import circuit_map, figures

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _figures() -> dict[str, Figure]:
    """One figure of each kind, with gaps and standard errors."""
    return {
        "bar": figures.bar_chart(
            ["simple", "moderate", "complex"],
            {"model A": [0.2, 0.4, None], "model B": [0.5, 0.7, 0.8]},
            {"model A": [0.02, 0.03, None], "model B": [0.02, 0.02, 0.03]},
            "Hallucination rate",
            "Hallucination rate by task complexity",
            percent=True,
        ),
        "line": figures.line_chart(
            [1950, 1960, 1970, 1980, 1990],
            {"model A": [0.6, 0.5, None, 0.4, 0.35], "model B": [0.7, 0.66, 0.62, 0.6, 0.5]},
            {"model A": [0.05, 0.04, None, 0.03, 0.03]},
            "Decision year",
            "Hallucination rate",
            "Hallucination rate by decision year",
            bands=[(1953, 1969, "Warren Court"), (1969, 1986, "Burger Court")],
            error_scale="se",
        ),
        "scatter": figures.scatter_with_diagonal(
            [("Brennan", 400, 520), ("Rehnquist", 380, 300), ("Stevens", 350, 360), ("Scalia", 280, 410)],
            "Majority opinions written",
            "Times named by the model",
            "Justices named by the model against opinions written",
            label_top=2,
        ),
        "calibration": figures.calibration_curve(
            {"model A": [(0.55, 0.5, 40), (0.75, 0.6, 120), (0.95, 0.7, 300)], "model B": [(0.6, 0.62, 80)]},
            "Calibration of stated confidence",
        ),
    }


@pytest.mark.parametrize("kind", ["bar", "line", "scatter", "calibration"])
@pytest.mark.parametrize("format", ["svg", "png"])
def test_figure_data_uris_are_deterministic_and_non_trivial(kind: str, format: str) -> None:
    first = figures.figure_to_data_uri(_figures()[kind], format)
    figure = _figures()[kind]
    assert figures.figure_to_data_uri(figure, format) == figures.figure_to_data_uri(figure, format) == first
    prefix = "data:image/svg+xml;base64," if format == "svg" else "data:image/png;base64,"
    assert first.startswith(prefix)
    payload = base64.b64decode(first[len(prefix) :])
    assert len(payload) > 10_000
    if format == "svg":
        text = payload.decode("utf-8")
        assert text.lstrip().startswith("<?xml") and "<svg" in text and "Date" not in text
    else:
        assert payload.startswith(PNG_MAGIC)


def test_plot_functions_label_and_reject_bad_input() -> None:
    bars = _figures()["bar"]
    axes = bars.axes[0]
    assert axes.get_title(loc="left") == "Hallucination rate by task complexity"
    assert axes.get_ylabel() == "Hallucination rate"
    assert axes.get_legend().get_title().get_text() == figures.ERROR_LABEL["ci95"]
    assert [t.get_text() for t in axes.texts].count("n/a") == 1
    line_axes = _figures()["line"].axes[0]
    assert line_axes.get_legend().get_title().get_text() == "error bars: ±1 SE"
    assert {"Warren Court", "Burger Court"} <= {t.get_text() for t in line_axes.texts}
    scatter_axes = _figures()["scatter"].axes[0]
    assert {t.get_text() for t in scatter_axes.texts} == {"Scalia", "Brennan"}  # the two farthest from y = x
    with pytest.raises(ValueError, match="expected 3"):
        figures.bar_chart(["a", "b", "c"], {"m": [0.1, 0.2]}, None, "rate", "title")
    with pytest.raises(ValueError, match="unknown series"):
        figures.line_chart([1, 2], {"m": [0.1, 0.2]}, {"other": [0.1, 0.1]})


def _shapefiles_present() -> bool:
    return all(path.is_file() for path in circuit_map.shapefile_paths())


@pytest.mark.skipif(not _shapefiles_present(), reason=f"no circuit shapefiles under {data_root() / 'maps'}")
def test_circuit_map_renders_real_shapefiles() -> None:
    rates = {"ca9": (0.42, 1234), "ca2": (0.31, 800), "cadc": (0.25, 90), "cafc": (0.5, 12), "ca5": (None, 7)}
    figure = circuit_map.circuit_map(rates, "Hallucination rate by circuit")
    drawn = circuit_map.circuits_drawn(figure)
    assert list(drawn) == [f"ca{i}" for i in range(1, 12)] + ["cadc", "cafc"]
    assert {court for court, has_data in drawn.items() if has_data} == {"ca9", "ca2", "cadc", "cafc"}
    labels = {text.get_text() for ax in figure.axes for text in ax.texts}
    assert {"9th\nn=1,234", "5th\nno data (n=7)", "1st\nno data", "Fed. Cir.\nn=12\nno territory"} <= labels
    svg = figures.figure_to_bytes(figure, "svg")
    assert b'id="circuit-ca9-data"' in svg and b'id="circuit-ca1"' in svg
    assert figures.figure_to_bytes(figure, "svg") == svg
    again = figures.figure_to_bytes(circuit_map.circuit_map(rates, "Hallucination rate by circuit"), "svg")
    assert again == svg  # same input, same bytes (the geometry comes from the per-process cache)
    geometry = circuit_map.load_geometry()
    assert set(geometry.rings["ca9"]) == {"mainland", "alaska", "hawaii"}
    assert set(geometry.rings["ca1"]) == {"mainland", "caribbean"} and geometry.dc_callout


def test_circuit_map_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"maps/US_CourtOfAppealsCircuits\.shp"):
        circuit_map.circuit_map({"ca9": (0.1, 10)}, "title", data_root=tmp_path)
    with pytest.raises(ValueError, match="ca12"):
        circuit_map.circuit_map({"ca12": (0.1, 10)}, "title", data_root=tmp_path)


def _page(tmp_path: Path, body: str, title: str = "Test page") -> Path:
    page = tmp_path / "page.html"
    page.write_text(
        f'<!doctype html><html><head><meta charset="utf-8"><title>{title}</title></head><body>{body}</body>'
    )
    return page


@pytest.mark.slow
@needs_chromium
def test_render_page_clean_with_embedded_figure_and_screenshot(tmp_path: Path) -> None:
    uri = figures.figure_to_data_uri(_figures()["bar"])
    page = _page(tmp_path, f'<h1>Report</h1><p>Rates by complexity.</p><img alt="bars" src="{uri}" width="600">')
    shot = tmp_path / "shots" / "page.png"
    result = render_page(page, screenshot=shot, width=800, height=600)
    assert result.ok, result.to_json()
    assert (result.errors, result.exceptions, result.failed_requests, result.external_requests) == ([], [], [], [])
    assert result.title == "Test page" and result.text_length >= len("Report") + len("Rates by complexity.")
    data = shot.read_bytes()
    assert result.screenshot == shot and data.startswith(PNG_MAGIC) and len(data) > 5_000
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert width == 800 and height == result.page_height >= 600
