"""Report charts: matplotlib `Figure` objects drawn on the Agg canvas (no pyplot, so no global figure state, no
windows, safe in threads), one house style, and deterministic base64 data URIs.

Every plot function takes plain Python data and returns a `Figure`. Missing values (None) are gaps. Standard errors
are drawn as error bars scaled by `error_scale`: "ci95" (±1.96·SE, a normal 95% interval) or "se" (±1·SE); the
legend title says which. Where the values are rates (`percent=True`, and a calibration curve's accuracies) an error
bar is cut at 0 and 1: a rate of 0.9 with a ±0.25 interval is drawn from 0.65 to 1, never to 115 %.
Series take colours from `PALETTE` in the order given, so pass models in the same order to every chart to keep one
colour per model.

Labels come from data and runs (model specs, case names): `figure_to_bytes` shows the control and bidi characters of
every text of the figure as escapes (`terminal.safe_text`) before anything is drawn, so neither the image nor
matplotlib's "Glyph ... missing from font" warning on stderr carries a raw ESC or U+202E.
"""

from __future__ import annotations

import base64
import io
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import PlaceHolderLayoutEngine
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, FuncFormatter, PercentFormatter
from matplotlib.transforms import blended_transform_factory

from lexprobe.terminal import safe_text

ErrorScale = Literal["ci95", "se"]
ImageFormat = Literal["svg", "png"]

# Okabe–Ito colour-blind-safe palette (black moved last).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
INK = "#222222"
MUTED = "#777777"
GRID = "#e6e6e6"

ERROR_MULTIPLIER: dict[str, float] = {"ci95": 1.96, "se": 1.0}
ERROR_LABEL: dict[str, str] = {"ci95": "error bars: 95% CI (±1.96·SE)", "se": "error bars: ±1 SE"}

_NA_TEXT = {"ha": "center", "va": "bottom", "fontsize": 7, "color": MUTED}
_BAND_TEXT = {"ha": "center", "va": "top", "fontsize": 7.5, "color": MUTED, "zorder": 1}

_SVG_HASHSALT = "lexprobe"
_SAVE_LOCK = threading.Lock()


def new_figure(width: float = 7.0, height: float = 4.2) -> tuple[Figure, Axes]:
    """Return a white, constrained-layout `Figure` on an Agg canvas with one house-styled `Axes`."""
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained", facecolor="white")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    apply_house_style(ax)
    return fig, ax


def apply_house_style(ax: Axes) -> None:
    """The house style: no top/right spines, light horizontal grid behind the data, small dark-grey ticks."""
    ax.spines[["top", "right"]].set_visible(False)
    ax.spines[["left", "bottom"]].set_color(MUTED)
    ax.set_axisbelow(True)
    ax.grid(axis="y", color=GRID, linewidth=0.8)
    ax.tick_params(labelsize=9, colors=INK, length=3, width=0.6)


def freeze_layout(fig: Figure) -> None:
    """Run `fig`'s layout engine until it settles, then switch it off. Constrained layout moves the axes a little on
    every draw, so without this the first saves of a figure differ from later ones."""
    engine = fig.get_layout_engine()
    if engine is None or isinstance(engine, PlaceHolderLayoutEngine):
        return
    fig.draw_without_rendering()
    for _ in range(4):
        engine.execute(fig)
    fig.set_layout_engine("none")


def make_texts_visible(fig: Figure) -> None:
    """Replace the control and bidi characters of every text of `fig` (titles, axis labels, legend entries,
    annotations, fixed tick labels) by visible escapes (`terminal.safe_text`). Call it before the figure is drawn."""
    for text in fig.findobj(match=Text):
        shown = text.get_text()
        if safe_text(shown) != shown:
            text.set_text(safe_text(shown))
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for formatter in (axis.get_major_formatter(), axis.get_minor_formatter()):
                # tick labels given as text (`set_xticks(positions, labels)`) are drawn from these at every draw
                if isinstance(formatter, FixedFormatter):
                    formatter.seq = [safe_text(str(label)) for label in formatter.seq]
                elif isinstance(formatter, FuncFormatter):
                    formatter.func = _visible_labels(formatter.func)


def _visible_labels(func: Callable[..., object]) -> Callable[..., str]:
    """A tick formatter's function whose labels go through `safe_text`."""

    def visible(value: float, position: int | None = None) -> str:
        return safe_text(str(func(value, position)))

    return visible


def figure_to_bytes(fig: Figure, format: ImageFormat = "svg", dpi: int = 150) -> bytes:
    """Encode `fig` as SVG or PNG; same figure, same bytes (no dates, fixed SVG id salt, no software tag). Makes its
    texts visible (`make_texts_visible`) and freezes its layout (`freeze_layout`) first: draw everything before
    encoding."""
    if format not in ("svg", "png"):
        raise ValueError(f"format must be 'svg' or 'png', not {format!r}")
    make_texts_visible(fig)
    freeze_layout(fig)
    buffer = io.BytesIO()
    if format == "png":
        fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
        return buffer.getvalue()
    # SVG ids (clip paths, glyphs) hash a salt that is a random uuid unless `svg.hashsalt` is set. matplotlib only
    # reads it from rcParams, so set that one key for the save, under a lock, and put back what was there.
    with _SAVE_LOCK:
        previous = matplotlib.rcParams["svg.hashsalt"]
        matplotlib.rcParams["svg.hashsalt"] = _SVG_HASHSALT
        try:
            fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
        finally:
            matplotlib.rcParams["svg.hashsalt"] = previous
    return buffer.getvalue()


def figure_to_data_uri(fig: Figure, format: ImageFormat = "svg", dpi: int = 150) -> str:
    """Return `fig` as a base64 `data:image/svg+xml` or `data:image/png` URI, deterministic (see `figure_to_bytes`)."""
    mime = "image/svg+xml" if format == "svg" else "image/png"
    return f"data:{mime};base64,{base64.b64encode(figure_to_bytes(fig, format, dpi)).decode('ascii')}"


def bar_chart(
    groups: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    errors: Mapping[str, Sequence[float | None]] | None = None,
    ylabel: str = "",
    title: str = "",
    *,
    error_scale: ErrorScale = "ci95",
    percent: bool = False,
    xlabel: str = "",
) -> Figure:
    """Grouped bars: one group per entry of `groups`, one bar per series (e.g. rate by task complexity, one bar per
    model). A None value leaves a gap marked "n/a"; `errors` holds standard errors; `percent` says the values are
    rates: the y axis shows percentages of 1 and every error bar is cut at 0 and 1."""
    fig, ax = new_figure(width=max(6.0, 1.2 + 0.55 * len(groups) * max(1, len(series))))
    _check_lengths(series, errors, len(groups))
    positions = np.arange(len(groups), dtype=float)
    width = 0.8 / max(1, len(series))
    na_transform = blended_transform_factory(ax.transData, ax.transAxes)
    rotation = 0 if len(series) <= 4 else 90
    for index, (name, values) in enumerate(series.items()):
        xs = positions - 0.4 + width * (index + 0.5)
        ys = _as_array(values)
        ax.bar(xs, np.nan_to_num(ys), width=width * 0.92, color=_color(index), label=name, zorder=2)
        for x, y in zip(xs, ys, strict=True):
            if math.isnan(y):
                ax.text(x, 0.01, "n/a", transform=na_transform, rotation=rotation, **_NA_TEXT)
        if errors is not None and name in errors:
            yerr = _whiskers(ys, _as_array(errors[name]) * ERROR_MULTIPLIER[error_scale], percent)
            ax.errorbar(xs, ys, yerr=yerr, fmt="none", ecolor=INK, elinewidth=0.9, capsize=2.5, zorder=3)
    ax.set_xticks(positions, list(groups))
    ax.tick_params(axis="x", length=0)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_ylim(bottom=min(0.0, ax.get_ylim()[0]))
    _finish(ax, title, xlabel, ylabel, percent=percent)
    _legend(ax, errors is not None, error_scale)
    return fig


def line_chart(
    x: Sequence[float],
    series: Mapping[str, Sequence[float | None]],
    errors: Mapping[str, Sequence[float | None]] | None = None,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    bands: Sequence[tuple[float, float, str]] | None = None,
    *,
    error_scale: ErrorScale = "ci95",
    percent: bool = False,
) -> Figure:
    """Lines with markers over `x` (e.g. rate by decision year, one line per model); None values break the line.
    `bands` shades labelled x ranges (start, end, label) behind the data, e.g. court eras. `percent` says the
    values are rates: the y axis shows percentages of 1 and every error bar is cut at 0 and 1."""
    fig, ax = new_figure()
    _check_lengths(series, errors, len(x))
    xs = np.asarray(x, dtype=float)
    label_transform = blended_transform_factory(ax.transData, ax.transAxes)
    for index, (start, end, label) in enumerate(bands or ()):
        ax.axvspan(start, end, color="#000000", alpha=0.045 if index % 2 == 0 else 0.09, linewidth=0, zorder=0)
        y = 0.985 if index % 2 == 0 else 0.94  # alternate rows: labels of adjacent bands must not collide
        ax.text((start + end) / 2, y, label, transform=label_transform, **_BAND_TEXT)
    for index, (name, values) in enumerate(series.items()):
        ys = _as_array(values)
        yerr = None
        if errors is not None and name in errors:
            yerr = _whiskers(ys, _as_array(errors[name]) * ERROR_MULTIPLIER[error_scale], percent)
        ax.errorbar(
            xs,
            ys,
            yerr=yerr,
            fmt="-o",
            color=_color(index),
            markersize=3.5,
            linewidth=1.6,
            elinewidth=0.9,
            capsize=2,
            label=name,
            zorder=3,
        )
    _finish(ax, title, xlabel, ylabel, percent=percent)
    _legend(ax, errors is not None, error_scale)
    return fig


def scatter_with_diagonal(
    points: Sequence[tuple[str, float, float]],
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    label_top: int = 8,
    *,
    y_errors: Sequence[float | None] | None = None,
    error_scale: ErrorScale = "ci95",
) -> Figure:
    """Labelled points (label, x, y) against the line y = x (e.g. each justice's true opinion count against how often
    a model names them); the `label_top` points farthest from the line are labelled. `y_errors`, in the order of
    `points`, are standard errors of y."""
    fig, ax = new_figure(width=6.0, height=5.4)
    ax.grid(axis="x", color=GRID, linewidth=0.8)
    if y_errors is not None and len(y_errors) != len(points):
        raise ValueError(f"y_errors has {len(y_errors)} values for {len(points)} points")
    xs = np.array([p[1] for p in points], dtype=float)
    ys = np.array([p[2] for p in points], dtype=float)
    if len(points):
        low = float(min(xs.min(), ys.min(), 0.0))
        high = float(max(xs.max(), ys.max()))
        pad = 0.05 * (high - low or 1.0)
        ax.set_xlim(low - pad, high + pad)
        ax.set_ylim(low - pad, high + pad)
        ax.plot(
            [low - pad, high + pad],
            [low - pad, high + pad],
            color=MUTED,
            linestyle="--",
            linewidth=1,
            label="y = x",
            zorder=1,
        )
        if y_errors is not None:
            yerr = _as_array(y_errors) * ERROR_MULTIPLIER[error_scale]
            ax.errorbar(xs, ys, yerr=yerr, fmt="none", ecolor=MUTED, elinewidth=0.8, capsize=2, zorder=2)
        ax.scatter(xs, ys, s=22, color=_color(0), alpha=0.85, edgecolor="white", linewidth=0.5, zorder=3)
        ranked = sorted(range(len(points)), key=lambda i: (-abs(ys[i] - xs[i]), points[i][0]))
        for i in ranked[: max(0, label_top)]:
            ax.annotate(
                points[i][0], (xs[i], ys[i]), xytext=(4, 3), textcoords="offset points", fontsize=7.5, color=INK
            )
    else:
        _no_data(ax)
    _finish(ax, title, xlabel, ylabel)
    if len(points):
        _legend(ax, y_errors is not None, error_scale, loc="upper left", outside=False)
    return fig


def calibration_curve(
    curves: Mapping[str, Sequence[tuple[float, float, int]]],
    title: str = "",
    *,
    xlabel: str = "Mean stated confidence (bin)",
    ylabel: str = "Empirical accuracy (bin)",
    error_scale: ErrorScale = "ci95",
) -> Figure:
    """Reliability diagram: per model, bins of (mean confidence, empirical accuracy, bin size) against the diagonal
    of perfect calibration. Marker area grows with bin size; error bars are the binomial standard error of each
    bin's accuracy, sqrt(acc·(1 − acc)/n), cut at 0 and 1."""
    fig, ax = new_figure(width=5.8, height=5.4)
    ax.grid(axis="x", color=GRID, linewidth=0.8)
    ax.plot([0, 1], [0, 1], color=MUTED, linestyle="--", linewidth=1, label="perfect calibration", zorder=1)
    largest = max((n for bins in curves.values() for _, _, n in bins), default=0)
    for index, (name, bins) in enumerate(curves.items()):
        ordered = sorted(bins)
        conf = np.array([b[0] for b in ordered], dtype=float)
        acc = np.array([b[1] for b in ordered], dtype=float)
        n = np.array([b[2] for b in ordered], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            se = np.where(n > 0, np.sqrt(np.clip(acc * (1 - acc), 0, None) / n), np.nan)
        color = _color(index)
        ax.errorbar(
            conf,
            acc,
            yerr=_whiskers(acc, se * ERROR_MULTIPLIER[error_scale], True),
            fmt="-",
            color=color,
            linewidth=1.4,
            elinewidth=0.8,
            capsize=2,
            label=name,
            zorder=2,
        )
        sizes = 12 + 220 * (n / largest if largest else 0)
        ax.scatter(conf, acc, s=sizes, color=color, edgecolor="white", linewidth=0.6, zorder=3)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    _finish(ax, title, xlabel, ylabel)
    size_key = (
        Line2D([], [], linestyle="none", marker="o", color=MUTED, markersize=6),
        f"marker area ∝ bin size (largest n = {largest:,})",
    )
    _legend(ax, True, error_scale, outside=False, extra=size_key)
    return fig


def _finish(ax: Axes, title: str, xlabel: str, ylabel: str, *, percent: bool = False) -> None:
    """Set title and axis labels in the house style."""
    ax.set_title(title, loc="left", fontsize=12, color=INK, pad=10)
    ax.set_xlabel(xlabel, fontsize=10, color=INK)
    ax.set_ylabel(ylabel, fontsize=10, color=INK)
    if percent:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))


def _legend(
    ax: Axes,
    has_errors: bool,
    error_scale: ErrorScale,
    *,
    loc: str = "upper left",
    outside: bool = True,
    extra: tuple[Line2D, str] | None = None,
) -> None:
    """A frameless legend (outside right by default) whose title names the error-bar scale when there are any, with
    the `extra` (handle, label) last; "no data" in the axes when nothing was drawn."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        _no_data(ax)
        return
    if extra is not None:
        handles.append(extra[0])
        labels.append(extra[1])
    anchor = {"bbox_to_anchor": (1.01, 1.0)} if outside else {}
    ax.legend(
        handles,
        labels,
        title=ERROR_LABEL[error_scale] if has_errors else None,
        loc=loc,
        fontsize=8,
        title_fontsize=8,
        frameon=False,
        alignment="left",
        **anchor,
    )


def _check_lengths(
    series: Mapping[str, Sequence[float | None]], errors: Mapping[str, Sequence[float | None]] | None, expected: int
) -> None:
    """Raise ValueError when a series or its errors do not have one value per x position or group."""
    for kind, mapping in (("series", series), ("errors", errors or {})):
        for name, values in mapping.items():
            if len(values) != expected:
                raise ValueError(f"{kind} {name!r} has {len(values)} values, expected {expected}")
    unknown = sorted(set(errors or {}) - set(series))
    if unknown:
        raise ValueError(f"errors given for unknown series: {unknown}")


def _whiskers(values: np.ndarray, half_widths: np.ndarray, rates: bool) -> np.ndarray:
    """The `yerr` of `values` ± `half_widths`: as given, or, for `rates`, (below, above) rows cut so that no
    interval reaches below 0 or above 1. A NaN stays NaN (no bar)."""
    if not rates:
        return half_widths
    below = np.minimum(half_widths, np.clip(values, 0.0, 1.0))
    above = np.minimum(half_widths, 1.0 - np.clip(values, 0.0, 1.0))
    return np.vstack([below, above])


def _as_array(values: Sequence[float | None]) -> np.ndarray:
    """Floats with None as NaN (a gap)."""
    return np.array([math.nan if v is None else float(v) for v in values], dtype=float)


def _color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _no_data(ax: Axes) -> None:
    ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center", color=MUTED, fontsize=11)
