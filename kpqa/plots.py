"""Figures of the meta-evaluation (matplotlib, Agg backend: no display needed): metric-vs-human scatter plots,
the reliability diagram of calibrated probabilities, the AEv alpha x N heat map, Pearson r by group, and the keyphrase-weight heat map of :mod:`kpqa.explain`."""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DPI = 100


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: "Figure", path: str | Path, dpi: int = DPI) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    _pyplot().close(fig)
    return path


def scatter(
    human: Sequence[float],
    scores: Mapping[str, Sequence[float]],
    path: str | Path,
    *,
    title: str = "",
    pearson: Mapping[str, float | None] | None = None,
    human_label: str = "human score",
    dpi: int = DPI,
) -> Path:
    """One panel per metric: metric score (x) against human score (y), Pearson r in each panel's title."""
    plt = _pyplot()
    names = list(scores)
    cols = min(4, max(1, len(names)))
    rows = max(1, math.ceil(len(names) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.9 * rows), squeeze=False)
    h = np.asarray(human, dtype=float)
    for ax, name in zip(axes.flat, names):
        ax.scatter(np.asarray(scores[name], dtype=float), h, s=6, alpha=0.35, linewidths=0)
        r = (pearson or {}).get(name)
        ax.set_title(name if r is None else f"{name}  r={r:.3f}", fontsize=9)
        ax.set_xlabel("metric", fontsize=8)
        ax.set_ylabel(human_label, fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return _save(fig, path, dpi)


def reliability(bins: Mapping[str, Mapping[str, Any]], path: str | Path, *, title: str = "") -> Path:
    """Reliability diagram: per judge, the share correct against the mean P(correct) of each non-empty bin of
    :func:`kpqa.binary.reliability` (the diagonal is perfect calibration)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
    for name, b in bins.items():
        points = [(p, c) for p, c in zip(b["mean_prob"], b["correct"]) if p is not None]
        ax.plot(*zip(*points), marker="o", markersize=3, linewidth=1, label=name)
    ax.set_xlabel("predicted P(correct)")
    ax.set_ylabel("share judged correct by humans")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="upper left")
    if title:
        ax.set_title(title, fontsize=10)
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


def breakdown(groups: Mapping[str, Mapping[str, float | None]], path: str | Path, *, title: str = "") -> Path:
    """Grouped bars: Pearson r of each metric (bars) in each group (clusters), like the KPQA paper's Figure 4."""
    plt = _pyplot()
    labels = list(groups)
    metrics = list(dict.fromkeys(m for g in groups.values() for m in g))
    width = 0.8 / max(1, len(metrics))
    fig, ax = plt.subplots(figsize=(max(4.0, 0.5 * len(labels) * len(metrics) + 1.5), 3.2))
    x = np.arange(len(labels))
    for k, metric in enumerate(metrics):
        values = [groups[label].get(metric) for label in labels]
        ax.bar(x + (k - (len(metrics) - 1) / 2) * width, [np.nan if v is None else v for v in values], width,
               label=metric)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("Pearson r")
    ax.axhline(0, color="black", linewidth=0.5)
    ax.legend(fontsize=7, ncol=2)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def weight_heatmap(
    lines: Sequence[tuple[str, Sequence[tuple[str, float | None]]]],
    path: str | Path,
    *,
    title: str = "",
    cmap: str = "Reds",
    width: float = 10.0,
    fontsize: float = 10.0,
) -> Path:
    """Each line: a label and its tokens, each with a weight in [0, 1] (None: not weighted), drawn as coloured
    boxes that wrap like text (``width`` inches of text), as in the KPQA paper's Table 5."""
    plt = _pyplot()
    from matplotlib.font_manager import FontProperties

    colormap = plt.get_cmap(cmap)
    scratch = plt.figure(dpi=DPI)
    renderer = scratch.canvas.get_renderer()
    font = FontProperties(size=fontsize)
    bold = FontProperties(size=fontsize, weight="bold")

    def measure(text: str, prop: FontProperties) -> float:
        return renderer.get_text_width_height_descent(text, prop, ismath=False)[0]

    space = measure("n", font) * 0.9
    label_px = max((measure(label, bold) for label, _ in lines), default=0.0) + 2 * space
    text_px = width * DPI
    line_px = fontsize * DPI / 72 * 2.0
    placed: list[tuple[float, int, str, float | None]] = []  # (x px, row, text, weight)
    labels: list[tuple[int, str]] = []
    row = 0
    for label, tokens in lines:
        labels.append((row, label))
        x = 0.0
        for text, weight in tokens:
            w = measure(text, font)
            if x > 0 and x + w > text_px:
                row, x = row + 1, 0.0
            placed.append((x, row, text, weight))
            x += w + space
        row += 1
        row += 0.4  # a gap between texts
    plt.close(scratch)
    title_px = line_px if title else 0.0
    total_w, total_h = label_px + text_px + space, row * line_px + title_px + line_px * 0.3
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
        fig.text(0.5, 1 - 0.5 * title_px / total_h, title, ha="center", va="center", fontsize=fontsize)
    return _save(fig, path)
