"""Figures of the meta-evaluation (matplotlib, Agg backend: no display needed): metric-vs-human scatter plots,
the reliability diagram of calibrated probabilities, the AEv alpha x N heat map, Pearson r by group, and the keyphrase-weight heat map of :mod:`kpqa.explain`."""
from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np
from kpqa.binary import MIN_BIN_ROWS, RELIABILITY_AXES, reliability_chart
from kpqa.types import Floats

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DPI = 300
#: figure formats (``--plot-format``): matplotlib writes each by its extension
FORMATS = ("png", "pdf", "svg")


def _pyplot():
    from kpqa.optional import require

    matplotlib = require("matplotlib", "figures")

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: "Figure", path: str | Path, dpi: int = DPI, inputs: Sequence[Any] = (), force: bool = False) -> Path:
    """Write ``fig`` in the format ``path``'s extension names (PNG at ``dpi``), the way every output is written
    (:func:`kpqa.output.output_path`)."""
    from kpqa.errors import UsageError
    from kpqa.output import output_path

    path = Path(path)
    fmt = path.suffix.lower().lstrip(".") or "png"
    if fmt not in FORMATS:
        raise UsageError(f"figure {path}: unknown format {fmt!r}; use {', '.join('.' + f for f in FORMATS)}")
    if str(path) != "-":
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with output_path(path, inputs=inputs, force=force) as tmp, _pyplot().rc_context({"svg.fonttype": "none"}):
            fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight")  # SVG keeps its text as text
    finally:
        _pyplot().close(fig)
    return path


def _panels(plt, n: int, cols: int, panel: tuple[float, float]):
    """A figure with ``n`` panels, ``cols`` a row, the last row centred (no empty slots)."""
    cols = min(cols, max(1, n))
    rows = max(1, math.ceil(n / cols))
    fig = plt.figure(figsize=(panel[0] * cols, panel[1] * rows))
    grid = fig.add_gridspec(rows, 2 * cols)
    axes = []
    for k in range(n):
        row, col = divmod(k, cols)
        shift = cols - (n - row * cols) if row == rows - 1 else 0  # half-slots to centre a short last row
        axes.append(fig.add_subplot(grid[row, 2 * col + shift:2 * col + shift + 2]))
    return fig, axes


#: human scores with at most this many distinct values are discrete: their points are spread vertically (jitter)
DISCRETE_LEVELS = 12
#: the jitter's half-width, as a share of the smallest gap between two human score levels
JITTER = 0.3


def _limits(values: np.ndarray, pad: float = 0.0) -> tuple[float, float]:
    """Axis limits around ``values`` (5% margins, and ``pad`` more on each side): [0, 1] when they all lie there
    (or there are none)."""
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
    if low >= 0 and high <= 1:
        low, high = 0.0, 1.0
    margin = 0.05 * ((high - low) or 1.0)
    return low - margin - pad, high + margin + pad


def _fit_segment(x: np.ndarray, y: np.ndarray, y_range: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The least-squares line over the x range of the points, cut where it leaves ``y_range`` (the human scores'
    range), so that it never runs past the data or sets the axis."""
    slope, intercept = np.polyfit(x, y, 1)
    low, high = float(x.min()), float(x.max())
    if slope != 0:
        ends = sorted(((y_range[0] - intercept) / slope, (y_range[1] - intercept) / slope))
        low, high = max(low, ends[0]), min(high, ends[1])
    xs = np.array([low, high]) if low < high else np.array([])
    return xs, slope * xs + intercept


def scatter(
    human: Floats,
    scores: Mapping[str, Floats],
    path: str | Path,
    *,
    title: str = "",
    pearson: Mapping[str, float | None] | None = None,
    human_label: str = "human score",
    dpi: int = DPI,
    seed: int = 0,
) -> Path:
    """One panel per metric: metric score (x, labelled with the metric's name) against human score (y, labelled
    ``human_label``), a least-squares fit line kept within the human scores' range, and n and Pearson r above the
    panel (r from ``pearson`` when given, else computed). Discrete human scores (at most
    :data:`DISCRETE_LEVELS` levels) are jittered vertically (``seed``) so that tied points show; axes are [0, 1]
    when the values lie there. Panels run four a row, the last row centred. PNG at ``dpi``, or PDF / SVG by
    extension."""
    plt = _pyplot()
    names = list(scores)
    fig, axes = _panels(plt, len(names), 4, (3.2, 3.0))
    h = np.asarray(human, dtype=float)
    levels = np.unique(h[np.isfinite(h)])
    spread = JITTER * float(np.diff(levels).min()) if 1 < len(levels) <= DISCRETE_LEVELS else 0.0
    shown = h + np.random.default_rng(seed).uniform(-spread, spread, len(h))
    for ax, name in zip(axes, names):
        x = np.asarray(scores[name], dtype=float)
        ok = np.isfinite(x) & np.isfinite(h)
        ax.scatter(x[ok], shown[ok], s=5, alpha=0.3, linewidths=0, color="C0")
        ax.set_xlim(*_limits(x[ok]))
        ax.set_ylim(*_limits(h[ok], spread))
        r = (pearson or {}).get(name)
        defined = ok.sum() >= 3 and np.ptp(x[ok]) > 0 and np.ptp(h[ok]) > 0
        if r is None and defined:
            r = float(np.corrcoef(x[ok], h[ok])[0, 1])
        if defined:
            xs, ys = _fit_segment(x[ok], h[ok], (float(h[ok].min()), float(h[ok].max())))
            ax.plot(xs, ys, color="C3", linewidth=1.2, scalex=False, scaley=False)
        note = f"n = {int(ok.sum())}" + (f", r = {r:.3f}" if r is not None else "")
        ax.set_title(note, fontsize=8, loc="left")
        ax.set_xlabel(name, fontsize=8)
        ax.set_ylabel(human_label + (" (jittered)" if spread else ""), fontsize=8)
        ax.tick_params(labelsize=7)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return _save(fig, path, dpi)


def reliability(bins: Mapping[str, Mapping[str, Any]], path: str | Path, *, title: str = "",
                min_rows: int = MIN_BIN_ROWS) -> Path:
    """Reliability diagrams as small multiples, one judge a panel (four a row): each the
    :func:`kpqa.binary.reliability_chart` of its bins (bins of at least ``min_rows`` rows joined, the others
    hollow, the diagonal, ECE and n in the legend); under each panel the rows per bin (log scale), so that a point's
    weight shows."""
    plt = _pyplot()
    names = list(bins)
    cols = min(4, max(1, len(names)))
    rows = max(1, math.ceil(len(names) / cols))
    fig = plt.figure(figsize=(2.8 * cols, 3.4 * rows), layout="constrained")
    outer = fig.add_gridspec(rows, 2 * cols)
    x_label, y_label = RELIABILITY_AXES
    for k, name in enumerate(names):
        chart = reliability_chart(bins[name], min_rows)
        r, c = divmod(k, cols)
        shift = cols - (len(names) - r * cols) if r == rows - 1 else 0  # half-slots to centre a short last row
        cell = outer[r, 2 * c + shift:2 * c + shift + 2].subgridspec(2, 1, height_ratios=[3, 1], hspace=0.05)
        ax = fig.add_subplot(cell[0])
        hist = fig.add_subplot(cell[1], sharex=ax)
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
        if chart.line:
            ax.plot(*zip(*chart.line), color="C0", marker="o", markersize=3.5, linewidth=1.2, label=chart.caption)
        if chart.hollow:
            ax.plot(*zip(*chart.hollow), color="C0", marker="o", markersize=3.5, linestyle="none",
                    markerfacecolor="white", label=chart.hollow_label if chart.line else chart.caption)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_title(name, fontsize=9)
        ax.legend(fontsize=6.5, loc="upper left", frameon=False, handlelength=1.5)
        ax.tick_params(labelsize=7, labelbottom=False)
        if c == 0 and not shift:
            ax.set_ylabel(y_label, fontsize=8)
        edges = np.asarray(chart.edges, dtype=float)
        counts = np.asarray(chart.rows, dtype=float)
        hist.bar(edges[:-1], np.where(counts > 0, counts, np.nan), width=np.diff(edges), align="edge", color="C7",
                 edgecolor="white", linewidth=0.5)
        hist.set_yscale("log")
        hist.set_ylim(0.7, max(10.0, counts.max() * 2))
        hist.tick_params(labelsize=6)
        hist.set_xlabel(x_label, fontsize=8)
        if c == 0 and not shift:
            hist.set_ylabel("rows", fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    return _save(fig, path)


def grid_heatmap(grid: Mapping[str, Any], path: str | Path, *, title: str = "", key: str = "r2") -> Path:
    """Soricut & Brill's Tables 5-6 as a picture: rows N = 1..4, columns alpha = 0..1, colour and text R^2 x 100
    (``key="pearson"``: Pearson r). Undefined cells are grey."""
    plt = _pyplot()
    values = np.array([[np.nan if v is None else v for v in row] for row in grid[key]], dtype=float)
    shown = values * 100 if key == "r2" else values
    fig, ax = plt.subplots(figsize=(0.62 * len(grid["alphas"]) + 1.8, 0.5 * len(grid["orders"]) + 1.2))
    cmap = plt.get_cmap("viridis").with_extremes(bad="lightgrey")
    image = ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(grid["alphas"])), [f"{a:g}" for a in grid["alphas"]], fontsize=8)
    ax.set_yticks(range(len(grid["orders"])), [str(n) for n in grid["orders"]], fontsize=8)
    ax.set_xlabel("α")
    ax.set_ylabel("N")
    finite = shown[np.isfinite(shown)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    for k in range(shown.shape[0]):
        for j in range(shown.shape[1]):
            v = shown[k, j]
            text = "n/a" if not np.isfinite(v) else (f"{v:.1f}" if key == "r2" else f"{v:.2f}")
            ax.text(j, k, text, ha="center", va="center", fontsize=7, color="white" if v < middle else "black")
    fig.colorbar(image, ax=ax, label="R² × 100" if key == "r2" else "Pearson r")
    ax.set_title(title or ("AEv(α, N): R² × 100" if key == "r2" else "AEv(α, N): Pearson r"), fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def breakdown(groups: Mapping[str, Mapping[str, Any]], path: str | Path, *, title: str = "",
              counts: Mapping[str, int] | None = None) -> Path:
    """Grouped bars: Pearson r of each metric (bars) in each group (clusters), like the KPQA paper's Figure 4. A
    value is a number or a dict with ``value`` and, for an error bar, ``ci_low`` / ``ci_high`` (bootstrap
    interval); ``counts`` puts each group's n under its name."""
    plt = _pyplot()
    labels = list(groups)
    metrics = list(dict.fromkeys(m for g in groups.values() for m in g))
    width = 0.8 / max(1, len(metrics))
    fig, ax = plt.subplots(figsize=(min(14.0, max(4.0, 0.17 * len(labels) * len(metrics) + 1.5)), 3.4))
    x = np.arange(len(labels))

    def part(entry: Any, key: str) -> float:
        value = entry.get(key) if isinstance(entry, Mapping) else (entry if key == "value" else None)
        return np.nan if value is None else float(value)

    for k, metric in enumerate(metrics):
        entries = [groups[label].get(metric) for label in labels]
        values = np.array([part(e, "value") for e in entries])
        low = np.array([part(e, "ci_low") for e in entries])
        high = np.array([part(e, "ci_high") for e in entries])
        errors = np.nan_to_num(np.stack([values - low, high - values]), nan=0.0).clip(min=0)
        ax.bar(x + (k - (len(metrics) - 1) / 2) * width, values, width, label=metric,
               yerr=errors if np.isfinite(low).any() else None, capsize=2, error_kw={"linewidth": 0.8})
    names = [f"{label}\n(n = {counts[label]})" if counts and label in counts else label for label in labels]
    ax.set_xticks(x, names, fontsize=8)
    ax.set_ylabel("Pearson r" + (" (95% bootstrap interval)" if any(
        isinstance(e, Mapping) and e.get("ci_low") is not None for g in groups.values() for e in g.values()) else ""),
        fontsize=9)
    ax.axhline(0, color="black", linewidth=0.5)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


#: fonts with Chinese / Japanese glyphs, in order of preference (family name, file name fragment)
CJK_FONTS = (("Noto Sans CJK SC", "notosanscjk"), ("Noto Sans CJK JP", "notosanscjk"), ("Noto Sans SC", "notosanssc"),
             ("WenQuanYi Micro Hei", "wqy-microhei"), ("WenQuanYi Zen Hei", "wqy-zenhei"),
             ("Source Han Sans SC", "sourcehansans"), ("Droid Sans Fallback", "droidsansfallback"))
CJK_HINT = ("no font with Chinese / Japanese glyphs is installed, so those characters are drawn as blank boxes; "
            "install one, e.g. `apt-get install fonts-noto-cjk` (Debian / Ubuntu; fonts-wqy-microhei is smaller)")


def cjk_font() -> str | None:
    """The family name of an installed font with CJK glyphs (:data:`CJK_FONTS`), registered with matplotlib (its
    font cache may predate the font), or None."""
    from matplotlib import font_manager

    known = {f.name for f in font_manager.fontManager.ttflist}
    for name, _ in CJK_FONTS:
        if name in known:
            return name
    files = font_manager.findSystemFonts()
    for name, fragment in CJK_FONTS:
        for path in files:
            if fragment in Path(path).name.lower().replace("-", "").replace("_", "") or fragment in Path(path).name.lower():
                font_manager.fontManager.addfont(path)
                if name in {f.name for f in font_manager.fontManager.ttflist}:
                    return name
    return None


def _families(cjk: bool) -> list[str]:
    """The font families of a figure: DejaVu Sans, and for Chinese / Japanese text an installed CJK font, which
    matplotlib falls back to for the glyphs DejaVu lacks (a :class:`~kpqa.errors.KpqaWarning` when there is none)."""
    family = ["DejaVu Sans"]
    if cjk:
        found = cjk_font()
        if found is None:
            import warnings

            from kpqa.errors import KpqaWarning

            warnings.warn(CJK_HINT, KpqaWarning, stacklevel=3)
        else:
            family.append(found)
    return family


def _wrap(lines: Sequence[tuple[str, Sequence[tuple[str, float | None]]]], width_of: Callable[[str], float],
          space: float, text_px: float) -> tuple[list[tuple[float, str]], list[tuple[float, float, str, float | None]],
                                                 float]:
    """Each line's label at its first row, its tokens placed left to right and wrapped at ``text_px`` pixels
    ((x px, row, text, weight)), and the rows taken (a gap of 0.4 row between texts, none after the last)."""
    placed: list[tuple[float, float, str, float | None]] = []
    labels: list[tuple[float, str]] = []
    row = 0.0
    for label, tokens in lines:
        labels.append((row, label))
        x = 0.0
        for text, weight in tokens:
            w = width_of(text)
            if x > 0 and x + w > text_px:
                row, x = row + 1, 0.0
            placed.append((x, row, text, weight))
            x += w + space
        row += 1
        row += 0.4  # a gap between texts
    return labels, placed, row - 0.4  # no gap after the last text: the colour scale follows it


def weight_heatmap(
    lines: Sequence[tuple[str, Sequence[tuple[str, float | None]]]],
    path: str | Path,
    *,
    title: str = "",
    legend: str = "weight",
    cmap: str = "Reds",
    width: float = 10.0,
    fontsize: float = 10.0,
    inputs: Sequence[Any] = (),
    force: bool = False,
) -> Path:
    """Each line: a label and its tokens, each with a weight in [0, 1] (None: not weighted), drawn as coloured
    boxes that wrap like text (``width`` inches of text), as in the KPQA paper's Table 5, with a colour scale
    (``legend`` its label) below. Chinese / Japanese text is drawn in an installed CJK font (:func:`cjk_font`;
    a :class:`~kpqa.errors.KpqaWarning` says what to install when there is none). PNG, PDF or SVG by ``path``'s
    extension."""
    plt = _pyplot()
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.font_manager import FontProperties

    from kpqa.text import is_cjk

    colormap = plt.get_cmap(cmap)
    family = _families(any(is_cjk(text) for label, tokens in lines for text, _ in [(label, None), *tokens]))
    font = FontProperties(family=family, size=fontsize)
    bold = FontProperties(family=family, size=fontsize, weight="bold")
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)  # "no bold CJK face": the regular one is fine
    scratch = plt.figure(dpi=DPI)
    renderer = scratch.canvas.get_renderer()

    def measure(text: str, prop: FontProperties) -> float:
        return renderer.get_text_width_height_descent(text, prop, ismath=False)[0]

    space = measure("n", font) * 0.9
    label_px = max((measure(label, bold) for label, _ in lines), default=0.0) + 2 * space
    text_px = width * DPI
    line_px = fontsize * DPI / 72 * 2.0
    labels, placed, text_rows = _wrap(lines, lambda text: measure(text, font), space, text_px)
    plt.close(scratch)
    title_px = line_px if title else 0.0
    bar_px, below_px = 0.25 * line_px, 1.2 * line_px  # the scale, and its tick labels and label under it
    gap_px = 0.3 * line_px
    total_w = label_px + text_px + space
    total_h = title_px + text_rows * line_px + gap_px + bar_px + below_px
    fig = plt.figure(figsize=(total_w / DPI, total_h / DPI), dpi=DPI)

    def ypos(r: float) -> float:
        return 1 - (title_px + (r + 0.5) * line_px) / total_h

    for r, label in labels:
        fig.text((label_px - space) / total_w, ypos(r), label, ha="right", va="center", fontproperties=bold)
    for x, r, text, weight in placed:
        face = "none" if weight is None else colormap(float(np.clip(weight, 0.0, 1.0)))
        dark = weight is not None and weight > 0.6
        fig.text((label_px + x) / total_w, ypos(r), text, ha="left", va="center", fontproperties=font,
                 color="white" if dark else "black",
                 bbox={"boxstyle": "square,pad=0.2", "facecolor": face, "edgecolor": "none"})
    if title:
        fig.text(label_px / total_w, 1 - 0.5 * title_px / total_h, title, ha="left", va="center", fontproperties=font)
    bar = fig.add_axes((label_px / total_w, below_px / total_h, min(0.4, 0.5 * text_px / total_w),
                        bar_px / total_h))
    scale = fig.colorbar(ScalarMappable(Normalize(0, 1), colormap), cax=bar, orientation="horizontal")
    scale.set_label(legend, fontsize=fontsize * 0.8)
    scale.ax.tick_params(labelsize=fontsize * 0.7)
    return _save(fig, path, inputs=inputs, force=force)
