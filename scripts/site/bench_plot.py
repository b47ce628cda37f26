"""The benchmark plots and the files the build copies into the site.

``site_files()`` returns every plot and raw result file, keyed by its path in
the built site (site path -> bytes); the build hook draws them in a second
process while the pages render and writes them under ``site/``. Every path
is made of plain names under ``bench/``, whatever a result file says, and a
plot that cannot be drawn fails with one line naming the result file.

This module imports neither torch nor Triton, and matplotlib only to draw.
"""

from __future__ import annotations

import io
import re
from pathlib import Path, PurePosixPath

from evidence import ROOT, ResultFileError, display_path, enum
from evidence.benchmarks import Result, load_results, newest_per_device
from evidence.text import inert

SITE_DIR = "bench"  # where plots and raw files go in the built site
OK = enum("bench", "row_status")[0]


#: A name that may become part of a path in the built site.
_SITE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _site_path(*parts: str) -> str:
    """``SITE_DIR/parts...``, refused unless every part is a plain name, so
    nothing a result file says can put a file outside the site folder."""
    for part in parts:
        if not _SITE_NAME.match(part) or ".." in part:
            raise ResultFileError(f"{part[:80]!r}: not a safe name for a site path")
    path = PurePosixPath(SITE_DIR, *parts)
    assert path.parts[0] == SITE_DIR and ".." not in path.parts
    return path.as_posix()


def raw_site_path(result: Result) -> str:
    return _site_path("results", result.name)


def plot_site_path(
    kernel: str, result: Result | None = None, primary: bool = True, dark: bool = False
) -> str:
    """The kernel's plot; a second device's plot carries its file's hash, and
    the plot for the dark colour scheme ends in ``-dark``."""
    stem = kernel if primary or result is None else f"{kernel}-{result.sha256[:12]}"
    return _site_path(f"{stem}{'-dark' if dark else ''}.svg")


def shapes_in_order(rows: list[dict]) -> list[str]:
    seen: list[str] = []
    for row in rows:
        key = f"{row['shape_text']} {row['dtype']}"
        if key not in seen:
            seen.append(key)
    return seen


# Fixed settings so that the same result gives the same bytes every build.
SVG_RC = {
    "svg.hashsalt": "gpu-perf-bench",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    # Text stays >= 10 px on a phone: the page never shows the plot narrower
    # than 34rem (site.css), about 0.8 of its natural width.
    "font.size": 11.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "text.parse_math": False,  # "$" in a file's text is text, not math
}
MARKERS = ("o", "s", "^", "D", "v", "P")
#: The light plot's colours and the dark scheme's for them: text and axes
#: (black), the ceiling line (0.4 grey), the legend's face (white), against
#: Material's slate background (hsl(232, 15%, 14%)). The series keep their
#: colours; the plot's own background is transparent in both.
DARK_COLOURS = {"#000000": "#e2e4e9", "#666666": "#a6a9b3", "#ffffff": "#1e2029"}
_COLOUR_RE = re.compile("|".join(DARK_COLOURS))


def dark_variant(svg: bytes) -> bytes:
    """The same plot for the dark colour scheme."""
    return _COLOUR_RE.sub(lambda m: DARK_COLOURS[m.group(0)], svg.decode()).encode()


def plot_shows(result: Result, kernel: str) -> str:
    """What the plot draws, as its caption's first line."""
    meta = result.data["kernels"][kernel]
    if result.on_gpu:
        unit = "GB/s" if meta["metric"] == "bandwidth" else "TFLOP/s"
        return (
            f"{inert(kernel)}: achieved {unit} per shape on "
            f"{inert(result.data['device']['name'])}, one marker per provider "
            "(median; bars p20 to p80), with this run's ceiling dashed."
        )
    return (
        f"{inert(kernel)}: host time per shape on a CPU, one marker per provider "
        "(median; bars p20 to p80; log scale)."
    )


def _plain_number(value: float, _position) -> str:
    return f"{value:g}"


# (result sha256, kernel) -> SVG bytes: a serve rebuild redraws only what changed
_cache: dict = {}


def render_svg(result: Result, kernel: str) -> bytes:
    key = ("svg", result.sha256, kernel)
    if key in _cache:
        return _cache[key]
    import matplotlib
    from matplotlib import ticker
    from matplotlib.figure import Figure

    meta = result.data["kernels"][kernel]
    rows = [r for r in result.data["rows"] if r["kernel"] == kernel]
    shapes = shapes_in_order(rows)
    providers = meta["providers"]
    on_gpu = result.on_gpu
    metric = meta["metric"]
    with matplotlib.rc_context(SVG_RC):
        fig = Figure(figsize=(7.0, 3.6))
        ax = fig.add_subplot()
        width = 0.8 / max(1, len(providers))
        for i, provider in enumerate(providers):
            xs, ys, lows, highs = [], [], [], []
            for j, shape in enumerate(shapes):
                row = next(
                    (
                        r
                        for r in rows
                        if r["provider"] == provider
                        and f"{r['shape_text']} {r['dtype']}" == shape
                    ),
                    None,
                )
                if row is None or row["status"] != OK or not row.get("timed"):
                    continue
                if on_gpu:
                    work = row["bytes_moved"] if metric == "bandwidth" else row["flops"]
                    scale = 1e9 if metric == "bandwidth" else 1e12
                    y = work / (row["median_ms"] * 1e-3) / scale
                    high = work / (row["p20_ms"] * 1e-3) / scale
                    low = work / (row["p80_ms"] * 1e-3) / scale
                else:  # host time in µs
                    y, low, high = (
                        1e3 * row[key] for key in ("median_ms", "p20_ms", "p80_ms")
                    )
                xs.append(j - 0.4 + width * (i + 0.5))
                ys.append(y)
                lows.append(y - low)
                highs.append(high - y)
            if xs:
                ax.errorbar(
                    xs,
                    ys,
                    yerr=[lows, highs],
                    fmt=MARKERS[i % len(MARKERS)],
                    label=provider,
                    capsize=2,
                    markersize=4,
                )
        ceilings = result.data.get("ceilings")
        if on_gpu and ceilings:
            stream = result.data["kernels"][kernel].get("stream", "copy")
            if metric == "bandwidth" and stream in ceilings:
                level = ceilings[stream]["bandwidth_bytes_per_s"] / 1e9
                name = (
                    f"{'copy' if stream == 'copy' else 'read-only'} ceiling (this run)"
                )
            elif metric == "bandwidth":
                level = ceilings["copy"]["bandwidth_bytes_per_s"] / 1e9
                name = "copy ceiling (this run)"
            else:
                level = ceilings["matmul"]["flop_rate_per_s"] / 1e12
                name = "matmul ceiling (this run)"
            ax.axhline(level, linestyle="--", color="0.4", linewidth=1, label=name)
        if on_gpu:
            unit = "GB/s" if metric == "bandwidth" else "TFLOP/s"
            ax.set_ylabel(f"achieved {unit} (median, p20–p80 bars)")
            ax.set_ylim(bottom=0)
            title = f"{kernel} on {result.data['device']['name']}"
        else:
            ax.set_ylabel("host time, µs (median, p20–p80 bars)")
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(ticker.FuncFormatter(_plain_number))
            ax.yaxis.set_minor_formatter(ticker.NullFormatter())
            title = f"{kernel}: host time on a CPU"
        ax.set_title(title)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes, rotation=0 if len(shapes) < 4 else 15)
        ax.set_xlim(-0.6, len(shapes) - 0.4)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize=10)
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None}, transparent=True)
    svg = buffer.getvalue()
    _cache[key] = svg
    return svg


def plot_or_refuse(result: Result, kernel: str, root: Path = ROOT) -> bytes:
    """The plot, or ResultFileError naming the file when it cannot be drawn
    (the worker's traceback never reaches the build's output)."""
    try:
        return render_svg(result, kernel)
    except Exception as exc:  # one line naming the file, whatever failed
        why = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise ResultFileError(
            f"{display_path(result.path, root)}: the plot of {kernel} could not "
            f"be drawn: {type(exc).__name__}: {why}"
        ) from None


def site_files(results_dir: Path | None = None, root: Path = ROOT) -> dict[str, bytes]:
    """Plots and raw result files, keyed by their path in the built site."""
    results = load_results(results_dir, root)
    files = {raw_site_path(r): r.raw for r in results}
    kernels = sorted({k for r in results for k in r.data["kernels"]})
    for kernel in kernels:
        for i, result in enumerate(newest_per_device(results, kernel)):
            svg = plot_or_refuse(result, kernel, root)
            files[plot_site_path(kernel, result, i == 0)] = svg
            files[plot_site_path(kernel, result, i == 0, dark=True)] = dark_variant(svg)
    for path in files:  # the build writes these under site/: nowhere else
        parts = PurePosixPath(path).parts
        if parts[0] != SITE_DIR or ".." in parts or PurePosixPath(path).is_absolute():
            raise ResultFileError(f"{path[:80]!r}: outside the site's {SITE_DIR}/")
    return files
