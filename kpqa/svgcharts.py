"""Small inline SVG charts for HTML pages (no matplotlib): a score histogram, stacked by human label when there are
labels, and the reliability diagram of :func:`kpqa.binary.reliability`'s bins (what it shows is
:func:`kpqa.binary.reliability_chart`'s, as in :func:`kpqa.plots.reliability`)."""
from __future__ import annotations

import html
from typing import Any, Mapping

import numpy as np

from kpqa.binary import MIN_BIN_ROWS, RELIABILITY_AXES, reliability_chart
from kpqa.types import Floats

#: fill colours: every row / human-correct rows, human-wrong rows, points and lines
COLOURS = {"all": "#7f7f7f", "correct": "#4c78a8", "wrong": "#e45756", "line": "#1f77b4", "axis": "#555555"}
FONT = 'font-family="Helvetica,Arial,sans-serif"'
#: values this close outside [0, 1] still make a histogram over [0, 1]
UNIT_SLACK = 1e-6


def _svg(width: int, height: int, body: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(label)}">{"".join(body)}</svg>')


def _text(x: float, y: float, text: str, size: int = 10, anchor: str = "middle", fill: str = "#222",
          rotate: int = 0) -> str:
    turn = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}"{turn} {FONT}>'
            f"{html.escape(text)}</text>")


def histogram(values: Floats, labels: Floats | None = None, *, title: str = "", bins: int = 20, width: int = 280,
              height: int = 150) -> str:
    """Counts of the finite ``values`` in ``bins`` equal-width bins over [0, 1], or their range when they leave it;
    with 0/1 ``labels`` (same length) each bar is split into human-correct (bottom) and human-wrong rows."""
    v = np.asarray(values, dtype=float)
    y = None if labels is None else np.asarray(labels, dtype=float)
    keep = np.isfinite(v)
    v, y = v[keep], None if y is None else y[keep]
    low, high = (float(v.min()), float(v.max())) if len(v) else (0.0, 1.0)
    if low >= -UNIT_SLACK and high <= 1 + UNIT_SLACK:  # in [0, 1], give or take rounding (BERTScore's 1.0000001)
        low, high, v = 0.0, 1.0, np.clip(v, 0.0, 1.0)
    high = high if high > low else low + 1.0
    edges = np.linspace(low, high, bins + 1)
    parts = [("all", v)] if y is None else [("correct", v[y == 1]), ("wrong", v[y != 1])]
    counts = [np.histogram(p, edges)[0] for _, p in parts]
    top = max(1, int(np.sum(counts, axis=0).max()))
    left, right, upper, lower = 34, 8, 20 if y is None else 32, 30
    plot_w, plot_h = width - left - right, height - upper - lower
    bar_w = plot_w / bins
    body = [_text(width / 2, 13, title, 11)] if title else []
    base = np.zeros(bins)
    for (name, _), c in zip(parts, counts):
        for k in np.flatnonzero(c):
            h, y0 = c[k] / top * plot_h, base[k] / top * plot_h
            body.append(f'<rect x="{left + k * bar_w + 0.5:.1f}" y="{upper + plot_h - y0 - h:.1f}" '
                        f'width="{max(bar_w - 1, 0.5):.1f}" height="{h:.1f}" fill="{COLOURS[name]}">'
                        f"<title>{edges[k]:.3g} to {edges[k + 1]:.3g}: {c[k]} rows ({name})</title></rect>")
        base += c
    axis = COLOURS["axis"]
    body.append(f'<path d="M{left} {upper} V{upper + plot_h} H{left + plot_w}" stroke="{axis}" fill="none"/>')
    body += [_text(left - 4, upper + 8, f"{top:,}", 9, "end", axis),
             _text(left - 4, upper + plot_h, "0", 9, "end", axis),
             _text(left, height - 16, f"{low:.3g}", 9, "start", axis),
             _text(left + plot_w, height - 16, f"{high:.3g}", 9, "end", axis),
             _text(left + plot_w / 2, height - 4, f"score, n = {len(v):,}", 9, fill=axis)]
    if y is not None:  # the legend, between the title and the bars
        body += [f'<rect x="{left}" y="{upper - 11}" width="8" height="8" fill="{COLOURS["correct"]}"/>',
                 _text(left + 11, upper - 4, "human: correct", 9, "start", axis),
                 f'<rect x="{left + 90}" y="{upper - 11}" width="8" height="8" fill="{COLOURS["wrong"]}"/>',
                 _text(left + 101, upper - 4, "wrong", 9, "start", axis)]
    return _svg(width, height, body, f"histogram {title}")


def reliability(bins: Mapping[str, Any], *, title: str = "", min_rows: int = MIN_BIN_ROWS, size: int = 170) -> str:
    """The :func:`kpqa.binary.reliability_chart` of ``bins``: the share judged correct by humans against the mean
    P(correct) of each non-empty bin, the diagonal, ECE and n, and under it the rows per bin (square-root scale)."""
    chart = reliability_chart(bins, min_rows)
    left, top, gap, strip = 34, 20, 8, 34
    width, height = left + size + 10, top + size + gap + strip + 26
    x = lambda p: left + p * size  # noqa: E731
    y = lambda s: top + (1 - s) * size  # noqa: E731
    axis = COLOURS["axis"]
    body = [_text(width / 2, 13, title, 11)] if title else []
    body.append(f'<rect x="{left}" y="{top}" width="{size}" height="{size}" fill="none" stroke="{axis}"/>')
    body.append(f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" stroke="#999" stroke-dasharray="3 3"/>')
    if len(chart.line) > 1:
        path = " ".join(f"{'M' if k == 0 else 'L'}{x(p):.1f} {y(s):.1f}" for k, (p, s) in enumerate(chart.line))
        body.append(f'<path d="{path}" stroke="{COLOURS["line"]}" fill="none" stroke-width="1.5"/>')
    for p, s, n in chart.points:
        fill = COLOURS["line"] if chart.full(n) else "white"
        body.append(f'<circle cx="{x(p):.1f}" cy="{y(s):.1f}" r="3" fill="{fill}" stroke="{COLOURS["line"]}">'
                    f"<title>P(correct) {p:.3f}, humans {s:.3f}, {n} rows</title></circle>")
    body.append(_text(left + 4, top + 12, chart.caption, 9, "start"))
    edges, counts = np.asarray(chart.edges, dtype=float), np.asarray(chart.rows, dtype=float)
    most = max(1.0, float(np.sqrt(counts).max()))
    base = top + size + gap + strip
    for k in np.flatnonzero(counts):
        h = np.sqrt(counts[k]) / most * strip
        body.append(f'<rect x="{x(edges[k]) + 0.5:.1f}" y="{base - h:.1f}" '
                    f'width="{(edges[k + 1] - edges[k]) * size - 1:.1f}" height="{h:.1f}" fill="{COLOURS["all"]}">'
                    f"<title>{int(counts[k])} rows</title></rect>")
    x_label, y_label = RELIABILITY_AXES
    body += [_text(left - 4, top + 8, "1", 9, "end", axis), _text(left - 4, top + size, "0", 9, "end", axis),
             _text(left - 22, top + size / 2, y_label, 9, fill=axis, rotate=-90),
             _text(left, height - 14, "0", 9, "start", axis), _text(left + size, height - 14, "1", 9, "end", axis),
             _text(left + size / 2, height - 3, x_label, 9, fill=axis)]
    return _svg(width, height, body, f"reliability {title}")
