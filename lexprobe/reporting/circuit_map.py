"""A choropleth of the federal courts of appeals, drawn from the circuit shapefiles in the data folder.

`maps/US_CourtOfAppealsCircuits.shp` holds one multi-part polygon per regional circuit (its NAME is e.g. "NINTH
CIRCUIT"), including Alaska, Hawaii and the territories. `maps/dc_shapefile.shp` is not the D.C. Circuit's real
territory (that tiny polygon is in the main file) but the district's outline scaled up and moved into the Gulf of
Mexico, the callout the source study drew so the D.C. Circuit is visible. The Federal Circuit (`cafc`) has no
territory; it gets a box of its own. lexprobe names circuits by courts-db ids: "ca1".."ca11", "cadc", "cafc".

The mainland is drawn in a US Albers equal-area projection; Alaska, Hawaii and Puerto Rico with the U.S. Virgin
Islands get small insets; Guam and the Northern Mariana Islands (Ninth Circuit) are left out with a note. Geometry
is read once per process, snapped to a coarse grid (below the map's resolution) and cached.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import matplotlib
import numpy as np
import shapefile
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import PathPatch, Rectangle
from matplotlib.path import Path as MplPath
from matplotlib.ticker import PercentFormatter

from lexprobe.caselaw.paths import data_root as default_data_root
from lexprobe.reporting.figures import INK, MUTED, new_figure

CIRCUITS_FILE = "maps/US_CourtOfAppealsCircuits.shp"
DC_CALLOUT_FILE = "maps/dc_shapefile.shp"
FEDERAL_CIRCUIT = "cafc"
ORDINALS = ("FIRST", "SECOND", "THIRD", "FOURTH", "FIFTH", "SIXTH", "SEVENTH", "EIGHTH", "NINTH", "TENTH", "ELEVENTH")
#: The NAME of each circuit's record in the circuits shapefile.
CIRCUIT_NAMES: dict[str, str] = {
    **{f"ca{number}": f"{ordinal} CIRCUIT" for number, ordinal in enumerate(ORDINALS, start=1)},
    "cadc": "DISTRICT OF COLUMBIA CIRCUIT",
}
SHORT_NAMES: dict[str, str] = {
    **{f"ca{i}": f"{i}{'st' if i == 1 else 'nd' if i == 2 else 'rd' if i == 3 else 'th'}" for i in range(1, 12)},
    "cadc": "D.C. Cir.",
    "cafc": "Fed. Cir.",
}
# Where each circuit's label goes (lon, lat): inside its largest state, away from its neighbours' labels.
LABEL_AT: dict[str, tuple[float, float]] = {
    "ca1": (-69.2, 45.3),
    "ca2": (-75.3, 43.0),
    "ca3": (-77.7, 40.9),
    "ca4": (-79.4, 36.0),
    "ca5": (-99.0, 31.3),
    "ca6": (-85.2, 37.4),
    "ca7": (-89.3, 40.6),
    "ca8": (-97.5, 43.6),
    "ca9": (-117.3, 41.0),
    "ca10": (-106.3, 38.8),
    "ca11": (-84.0, 31.9),
}
FEDERAL_BOX_AT = [[-108.0, 26.8]]  # centre of the Federal Circuit's box (lon, lat), in Mexico below New Mexico
# Regions: (lon min, lon max, lat min, lat max) of a ring's centre, Albers parameters (lat1, lat2, lat0, lon0),
# grid step (degrees) the ring is snapped to, and the smallest ring area (square degrees) kept.
REGIONS: dict[str, tuple[tuple[float, float, float, float], tuple[float, float, float, float], float, float]] = {
    "mainland": ((-126.0, -65.0, 23.5, 50.0), (29.5, 45.5, 23.0, -96.0), 0.02, 2e-3),
    "alaska": ((-200.0, -129.0, 50.0, 72.0), (55.0, 65.0, 50.0, -154.0), 0.15, 5e-2),
    "hawaii": ((-161.0, -154.0, 18.0, 23.0), (8.0, 18.0, 3.0, -157.0), 0.02, 1e-3),
    "caribbean": ((-68.0, -64.0, 17.0, 19.0), (17.0, 19.0, 17.0, -66.0), 0.01, 5e-4),
}
# Insets in axes fractions of the main map: (x0, y0, width, height).
INSETS: dict[str, tuple[float, float, float, float]] = {
    "alaska": (0.0, 0.0, 0.2, 0.24),
    "hawaii": (0.19, 0.01, 0.14, 0.12),
    "caribbean": (0.84, 0.01, 0.13, 0.09),
}
NOT_DRAWN = "Not drawn: Guam and the Northern Mariana Islands (9th)."
INSET_LABELS = {"alaska": "Alaska (9th)", "hawaii": "Hawaii (9th)", "caribbean": "Puerto Rico (1st), V.I. (3rd)"}
LABEL_BOX = {"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.75}
NO_DATA_FACE = "#ececec"
NO_DATA_HATCH = "#b3b3b3"

Rings = tuple[np.ndarray, ...]


@dataclass(frozen=True)
class CircuitGeometry:
    """Rings in (lon, lat) degrees, exteriors counter-clockwise and holes clockwise (so a compound path fills
    correctly under the non-zero rule), per court id and region; plus the D.C. callout's rings. Read-only: it is
    shared through the per-process cache."""

    rings: Mapping[str, Mapping[str, Rings]]
    dc_callout: Rings


def shapefile_paths(data_root: Path | str | None = None) -> tuple[Path, Path]:
    """Return the circuit and D.C. callout shapefile paths under `data_root` (default: lexprobe's data root)."""
    root = Path(data_root) if data_root is not None else default_data_root()
    return root / CIRCUITS_FILE, root / DC_CALLOUT_FILE


def load_geometry(data_root: Path | str | None = None) -> CircuitGeometry:
    """Read (once per process and file version) the simplified circuit geometry; FileNotFoundError names a missing
    shapefile."""
    paths = shapefile_paths(data_root)
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"circuit map shapefile not found: {path}")
    stamps = tuple(path.stat().st_mtime_ns for path in paths)
    return _read_geometry(str(paths[0].resolve()), str(paths[1].resolve()), stamps)


def circuit_map(
    rates: Mapping[str, tuple[float | None, int]],
    title: str = "",
    data_root: Path | str | None = None,
    *,
    value_label: str = "Hallucination rate",
    percent: bool = True,
    cmap: str = "viridis_r",
    vmin: float | None = None,
    vmax: float | None = None,
) -> Figure:
    """Choropleth of `rates` (court id -> (rate or None, n)) with a colourbar. Circuits missing from `rates` or with
    a None rate are grey, hatched and labelled "no data"; every circuit is labelled with its number and n.
    `circuits_drawn(fig)` says which circuits were drawn and with data. Raises FileNotFoundError when a shapefile
    is missing and ValueError for an unknown court id."""
    unknown = sorted(set(rates) - set(CIRCUIT_NAMES) - {FEDERAL_CIRCUIT})
    if unknown:
        raise ValueError(f"unknown circuit ids {unknown}; expected {[*CIRCUIT_NAMES, FEDERAL_CIRCUIT]}")
    geometry = load_geometry(data_root)
    values = [rate for rate, _ in rates.values() if rate is not None]
    norm = _norm(values, vmin, vmax)
    colormap = matplotlib.colormaps[cmap]

    def style(court: str) -> dict:
        rate, _ = rates.get(court, (None, 0))
        if rate is None:
            return {"facecolor": NO_DATA_FACE, "hatch": "////", "hatchcolor": NO_DATA_HATCH, "gid": f"circuit-{court}"}
        return {"facecolor": colormap(norm(rate)), "gid": f"circuit-{court}-data"}

    fig, ax = new_figure(10.0, 6.4)
    _map_axes(ax)
    for court, regions in geometry.rings.items():
        if regions.get("mainland"):
            ax.add_patch(_patch(regions["mainland"], "mainland", **style(court)))
    callout = _patch(geometry.dc_callout, "mainland", **{**style("cadc"), "edgecolor": INK, "linewidth": 0.8})
    ax.add_patch(callout)
    ax.autoscale_view()
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    ax.set_ylim(y0 - 0.1 * (y1 - y0), y1)  # room below the Gulf coast for the insets
    for court, (lon, lat) in LABEL_AT.items():
        _label(ax, _project(np.array([[lon, lat]]), "mainland")[0], court, rates)
    box = callout.get_path().get_extents()
    _label(ax, (box.x0 - 0.02 * (x1 - x0), box.y0 + box.height / 2), "cadc", rates, ha="right")
    side = max(box.width, box.height) * 0.45
    fed_x, fed_y = _project(np.array(FEDERAL_BOX_AT), "mainland")[0] - side / 2  # lower left corner
    ax.add_patch(Rectangle((fed_x, fed_y), side, side, edgecolor=INK, linewidth=0.8, **style(FEDERAL_CIRCUIT)))
    _label(ax, (fed_x - 0.01 * (x1 - x0), fed_y + side / 2), FEDERAL_CIRCUIT, rates, ha="right", note="no territory")
    _insets(ax, geometry, style)
    ax.text(0.5, 0.0, NOT_DRAWN, transform=ax.transAxes, ha="center", va="bottom", fontsize=7, color=MUTED)
    ax.set_title(title, loc="left", fontsize=12, color=INK)
    if values:
        _colorbar(fig, ax, ScalarMappable(norm=norm, cmap=colormap), value_label, percent)
    return fig


def _insets(ax: Axes, geometry: CircuitGeometry, style: Callable[[str], dict]) -> None:
    """The regions drawn apart from the mainland (Alaska, Hawaii, the territories), each in its inset."""
    for region, bounds in INSETS.items():
        inset = ax.inset_axes(bounds)
        _map_axes(inset)
        for court, regions in geometry.rings.items():
            if regions.get(region):
                inset.add_patch(_patch(regions[region], region, **style(court)))
        inset.autoscale_view()
        inset.set_title(INSET_LABELS[region], fontsize=6.5, color=MUTED, pad=1)


def _colorbar(fig: Figure, ax: Axes, mappable: ScalarMappable, label: str, percent: bool) -> None:
    bar = fig.colorbar(mappable, ax=ax, shrink=0.6, pad=0.01, aspect=25)
    bar.set_label(label, fontsize=9, color=INK)
    bar.ax.tick_params(labelsize=8)
    bar.outline.set_visible(False)
    if percent:
        bar.ax.yaxis.set_major_formatter(PercentFormatter(1.0))


def circuits_drawn(fig: Figure) -> dict[str, bool]:
    """Court id -> whether it was drawn coloured by data (False: drawn as "no data"), for a `circuit_map` figure."""
    drawn: dict[str, bool] = {}
    stack = list(fig.axes)
    while stack:
        ax = stack.pop()
        stack.extend(ax.child_axes)
        for patch in ax.patches:
            gid = patch.get_gid() or ""
            if gid.startswith("circuit-"):
                court = gid.split("-")[1]
                drawn[court] = drawn.get(court, False) or gid.endswith("-data")
    return dict(sorted(drawn.items(), key=lambda item: _court_order(item[0])))


@functools.lru_cache(maxsize=4)
def _read_geometry(circuits_path: str, dc_path: str, stamps: tuple[int, ...]) -> CircuitGeometry:
    """Parse both shapefiles; group rings by circuit and region, snap them and orient them by nesting depth."""
    del stamps  # part of the cache key only
    by_name = {name: court for court, name in CIRCUIT_NAMES.items()}
    rings: dict[str, dict[str, Rings]] = {}
    with shapefile.Reader(circuits_path) as reader:
        for item in reader.iterShapeRecords():
            court = by_name.get(str(item.record["NAME"]).strip().upper())
            if court is not None:
                rings[court] = _regions(_shape_rings(item.shape))
    with shapefile.Reader(dc_path) as reader:
        callout = _regions([ring for shape in reader.iterShapes() for ring in _shape_rings(shape)])
    ordered = {court: MappingProxyType(rings[court]) for court in sorted(rings, key=_court_order)}
    return CircuitGeometry(MappingProxyType(ordered), callout.get("mainland", ()))


def _shape_rings(shape: shapefile.Shape) -> list[np.ndarray]:
    """Split a polygon's points into its rings by `shape.parts`."""
    points = np.asarray(shape.points, dtype=float).reshape(-1, 2)
    bounds = [*shape.parts, len(points)]
    return [points[start:end] for start, end in itertools.pairwise(bounds) if end - start >= 4]


def _regions(raw: list[np.ndarray]) -> dict[str, Rings]:
    """Assign each ring to a region by its centre (rings west of the antimeridian are moved east by 360°), mark holes
    by nesting depth within the region, snap, drop rings too small to see, and orient exteriors CCW and holes CW."""
    grouped: dict[str, list[np.ndarray]] = {}
    for ring in raw:
        ring = ring.copy()
        if ring[:, 0].mean() > 0:
            ring[:, 0] -= 360.0
        lon, lat = ring.mean(axis=0)
        for region, ((lon0, lon1, lat0, lat1), _, _, _) in REGIONS.items():
            if lon0 <= lon <= lon1 and lat0 <= lat <= lat1:
                grouped.setdefault(region, []).append(ring)
                break
    result: dict[str, Rings] = {}
    for region, members in grouped.items():
        _, _, step, min_area = REGIONS[region]
        depths = _nesting_depths(members)
        kept = []
        for ring, depth in zip(members, depths, strict=True):
            snapped = _snap(ring, step)
            area = _signed_area(snapped)
            if len(snapped) < 4 or abs(area) < min_area:
                continue
            if (area > 0) == (depth % 2 == 1):  # exteriors counter-clockwise, holes clockwise
                snapped = np.ascontiguousarray(snapped[::-1])
            snapped.flags.writeable = False
            kept.append(snapped)
        result[region] = tuple(kept)
    return result


def _nesting_depths(rings: list[np.ndarray]) -> list[int]:
    """How many other rings contain each ring (odd: a hole), by a vertex test after a bounding-box check."""
    boxes = np.array([[r[:, 0].min(), r[:, 1].min(), r[:, 0].max(), r[:, 1].max()] for r in rings])
    paths = [MplPath(r) for r in rings]
    depths = []
    for i, ring in enumerate(rings):
        inside = (boxes[:, 0] <= boxes[i, 0]) & (boxes[:, 1] <= boxes[i, 1])
        inside &= (boxes[:, 2] >= boxes[i, 2]) & (boxes[:, 3] >= boxes[i, 3])
        inside[i] = False
        depths.append(sum(paths[j].contains_point(ring[0]) for j in np.flatnonzero(inside)))
    return depths


def _snap(ring: np.ndarray, step: float) -> np.ndarray:
    """Round to a `step`-degree grid; drop repeated points, zero-width spikes and points on a straight line between
    their neighbours (exact, in grid integers); then drop points within one grid step of the outline (Douglas–
    Peucker). Neighbours' shared borders may then differ by up to a step, below the map's resolution. Returns the
    ring closed (last point = first), or an empty array when too little is left."""
    grid = np.rint(ring / step).astype(np.int64)
    for _ in range(len(grid)):
        grid = grid[np.any(grid != np.roll(grid, 1, axis=0), axis=1)]  # repeats, cyclically (drops the closing point)
        if len(grid) < 3:
            return np.empty((0, 2))
        before, after = grid - np.roll(grid, 1, axis=0), np.roll(grid, -1, axis=0) - grid
        straight = before[:, 0] * after[:, 1] - before[:, 1] * after[:, 0] == 0
        if not straight.any():
            break
        grid = grid[~straight]
    closed = _douglas_peucker(np.vstack([grid, grid[:1]]).astype(float), 1.0) * step
    return closed if len(closed) >= 4 else np.empty((0, 2))


def _douglas_peucker(ring: np.ndarray, tolerance: float) -> np.ndarray:
    """Drop the points of a closed ring that lie within `tolerance` of the simplified outline (Douglas–Peucker,
    split at the point farthest from the first)."""
    keep = np.zeros(len(ring), dtype=bool)
    far = int(np.argmax(np.sum((ring - ring[0]) ** 2, axis=1)))
    keep[[0, far, -1]] = True
    stack = [(0, far), (far, len(ring) - 1)]
    while stack:
        start, end = stack.pop()
        if end - start < 2:
            continue
        chord, offsets = ring[end] - ring[start], ring[start + 1 : end] - ring[start]
        length = math.hypot(*chord)
        if length:
            distances = np.abs(chord[0] * offsets[:, 1] - chord[1] * offsets[:, 0]) / length
        else:
            distances = np.hypot(offsets[:, 0], offsets[:, 1])
        worst = int(np.argmax(distances))
        if distances[worst] > tolerance:
            middle = start + 1 + worst
            keep[middle] = True
            stack += [(start, middle), (middle, end)]
    return ring[keep]


def _signed_area(ring: np.ndarray) -> float:
    """Shoelace area: positive for counter-clockwise rings."""
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * float(np.dot(x[:-1], y[1:]) - np.dot(x[1:], y[:-1]))


def _project(lonlat: np.ndarray, region: str) -> np.ndarray:
    """Spherical Albers equal-area projection with the region's parallels, in km."""
    lat1, lat2, lat0, lon0 = (math.radians(v) for v in REGIONS[region][1])
    n = (math.sin(lat1) + math.sin(lat2)) / 2
    c = math.cos(lat1) ** 2 + 2 * n * math.sin(lat1)
    rho0 = math.sqrt(c - 2 * n * math.sin(lat0)) / n
    lon, lat = np.radians(lonlat[:, 0]), np.radians(lonlat[:, 1])
    rho = np.sqrt(c - 2 * n * np.sin(lat)) / n
    theta = n * (lon - lon0)
    return 6371.0 * np.column_stack([rho * np.sin(theta), rho0 - rho * np.cos(theta)])


def _patch(rings: Rings, region: str, **style) -> PathPatch:
    """One compound patch of projected rings; white borders unless `style` says otherwise."""
    vertices = [_project(ring, region) for ring in rings]
    # Rings end on their first point, so MOVETO/LINETO suffice.
    codes = [np.array([MplPath.MOVETO] + [MplPath.LINETO] * (len(v) - 1)) for v in vertices]
    path = MplPath(np.concatenate(vertices), np.concatenate(codes).astype(MplPath.code_type))
    return PathPatch(path, **{"edgecolor": "white", "linewidth": 0.5, **style})


def _label(
    ax: Axes,
    xy: tuple[float, float],
    court: str,
    rates: Mapping[str, tuple[float | None, int]],
    *,
    ha="center",
    note="",
) -> None:
    """Write "<number>" over "n=<n>" (or "no data") at `xy`, on a translucent white box."""
    rate, n = rates.get(court, (None, 0))
    detail = f"n={n:,}" if rate is not None else ("no data" if not n else f"no data (n={n:,})")
    lines = [SHORT_NAMES[court], detail] + ([note] if note else [])
    ax.text(
        *xy,
        "\n".join(lines),
        ha=ha,
        va="center",
        fontsize=7.5,
        color=INK,
        linespacing=1.1,
        bbox=LABEL_BOX,
    )


def _map_axes(ax: Axes) -> None:
    ax.set_axis_off()
    ax.set_aspect("equal")


def _norm(values: list[float], vmin: float | None, vmax: float | None) -> Normalize:
    """Colour scale over the data (or the given limits); widened when all values are equal."""
    low = vmin if vmin is not None else min(values, default=0.0)
    high = vmax if vmax is not None else max(values, default=1.0)
    if high <= low:
        low, high = low - 0.05, high + 0.05
    return Normalize(low, high)


def _court_order(court: str) -> tuple[int, str]:
    """ca1..ca11 by number, then cadc, then cafc."""
    return (int(court[2:]), "") if court[2:].isdigit() else (100, court)
