"""Figures (kpqa.plots): files are written, have the expected layout and show the data."""
from __future__ import annotations

import numpy as np
import pytest
from matplotlib import image

from kpqa import plots
from kpqa.metaeval import statistics


def _ink(path) -> float:
    """Share of pixels that are not white."""
    pixels = image.imread(path)[..., :3]
    return float(np.mean(np.any(pixels < 0.95, axis=-1)))


def test_scatter_one_panel_per_metric(tmp_path):
    rng = np.random.default_rng(0)
    human = rng.uniform(1, 5, 200)
    scores = {f"m{k}": human + rng.normal(0, k + 0.1, 200) for k in range(5)}
    one = plots.scatter(human, {"m0": scores["m0"]}, tmp_path / "one.png")
    five = plots.scatter(human, scores, tmp_path / "sub" / "five.png", title="set", pearson={"m0": 0.9})
    h1, w1 = image.imread(one).shape[:2]
    h5, w5 = image.imread(five).shape[:2]
    assert w5 > 3 * w1 and h5 > 1.5 * h1  # 4 panels a row, a second row for the fifth
    assert 0.02 < _ink(five) < 0.6


def test_grid_heatmap_with_undefined_cells(tmp_path):
    rng = np.random.default_rng(1)
    h = rng.normal(size=60)
    scores = np.stack([np.stack([h + rng.normal(scale=1 + a, size=60) for a in statistics.ALPHAS]) for _ in statistics.ORDERS])
    scores[3, 10] = 0.0
    grid = statistics.grid_from_scores(h, scores).to_dict()
    path = plots.grid_heatmap(grid, tmp_path / "grid.png")
    pixels = image.imread(path)[..., :3]
    grey = np.all(np.abs(pixels - 0.827) < 0.02, axis=-1)  # matplotlib "lightgrey" = #d3d3d3 for the n/a cell
    assert grey.sum() > 100
    assert plots.grid_heatmap(grid, tmp_path / "r.png", key="pearson").exists()


def test_breakdown_bars(tmp_path):
    groups = {"NUMERIC": {"BLEU-1": 0.3, "BLEU-1-KPQA": 0.7}, "PERSON": {"BLEU-1": 0.5, "BLEU-1-KPQA": None}}
    path = plots.breakdown(groups, tmp_path / "by.png", title="by type")
    assert 0.02 < _ink(path) < 0.6


def test_weight_heatmap_wraps_long_texts(tmp_path):
    heights = {}
    for words in (3, 60):
        tokens = [(f"w{i}", i / words) for i in range(words)]
        path = plots.weight_heatmap([("Reference", tokens), ("Candidate", tokens[:3])], tmp_path / f"h{words}.png")
        heights[words] = image.imread(path).shape[0]
    assert heights[60] > 1.3 * heights[3]  # the long text wraps onto more lines

def test_weight_heatmap_has_a_colour_scale_and_writes_pdf_and_svg(tmp_path):
    tokens = [("one", 0.0), ("two", 1.0)]
    png = plots.weight_heatmap([("Reference", tokens)], tmp_path / "h.png", legend="keyphrase weight")
    pixels = image.imread(png)[..., :3]
    dark_red = (pixels[..., 0] > 0.35) & (pixels[..., 0] < 0.55) & (pixels[..., 1] < 0.05)
    assert dark_red.sum() > dark_red.size * 0.002  # the scale's dark end, beside the one weight-1 box
    assert (tmp_path / "h.pdf").exists() is False
    assert plots.weight_heatmap([("R", tokens)], tmp_path / "h.pdf").read_bytes().startswith(b"%PDF")
    assert b"<svg" in plots.weight_heatmap([("R", tokens)], tmp_path / "h.svg").read_bytes()[:500]


def test_cjk_text_gets_a_cjk_font_or_says_what_to_install(tmp_path, monkeypatch):
    from kpqa.errors import KpqaWarning

    tokens = [("一百", 0.9), ("度", 0.2)]
    if plots.cjk_font() is not None:
        path = plots.weight_heatmap([("参考", tokens)], tmp_path / "zh.png")
        assert path.exists()
    monkeypatch.setattr(plots, "cjk_font", lambda: None)
    with pytest.warns(KpqaWarning, match="apt-get install fonts-noto-cjk"):
        plots.weight_heatmap([("参考", tokens)], tmp_path / "zh2.png")


def test_scatter_is_fit_for_a_paper(tmp_path):
    rng = np.random.default_rng(0)
    human = rng.uniform(1, 5, 200)
    scores = {f"metric{k}": human + rng.normal(0, k + 0.5, 200) for k in range(5)}
    svg = plots.scatter(human, scores, tmp_path / "s.svg", human_label="correctness", pearson={"metric0": 0.9})
    text = svg.read_text()
    assert "n = 200" in text and "r = 0.900" in text and "correctness" in text and "metric4" in text
    r4 = float(np.corrcoef(scores["metric4"], human)[0, 1])
    assert f"r = {r4:.3f}" in text  # computed when not given
    png = plots.scatter(human, scores, tmp_path / "s.png")
    pixels = image.imread(png)[..., :3]
    assert pixels.shape[1] > 3000  # 4 panels of 3.2 in at 300 dpi
    red = (pixels[..., 0] > 0.75) & (pixels[..., 1] < 0.25) & (pixels[..., 2] < 0.25)
    assert red.sum() > 1000  # the fit lines (C3)
    bottom = np.any(pixels[int(pixels.shape[0] * 0.6):] < 0.95, axis=(0, 2))
    first = int(np.argmax(bottom))
    assert first > 0.25 * pixels.shape[1]  # the fifth panel is centred, not left in a row of empty slots


def test_breakdown_has_counts_and_bootstrap_error_bars(tmp_path):
    groups = {"what": {"BLEU-1": {"value": 0.5, "ci_low": 0.3, "ci_high": 0.7}},
              "who": {"BLEU-1": {"value": 0.2, "ci_low": 0.1, "ci_high": 0.35}}}
    text = plots.breakdown(groups, tmp_path / "b.svg", counts={"what": 120, "who": 30}).read_text()
    assert "(n = 120)" in text and "(n = 30)" in text and "bootstrap interval" in text
    plain = plots.breakdown({"what": {"BLEU-1": 0.5}}, tmp_path / "p.svg").read_text()
    assert "bootstrap" not in plain


def _longest_white_band(path) -> int:
    """The most consecutive all-white pixel rows of a figure."""
    white = np.all(image.imread(path)[..., :3] > 0.95, axis=(1, 2))
    best = run = 0
    for blank in white:
        run = run + 1 if blank else 0
        best = max(best, run)
    return best


def test_weight_heatmap_has_no_empty_band_above_its_colour_scale(tmp_path):
    tokens = [("four", 0.9), ("steps", 0.3), ("are", 0.05), ("involved", 0.1)]
    path = plots.weight_heatmap([("Question", [("how many steps?", None)]), ("Reference", tokens),
                                 ("Candidate", tokens)], tmp_path / "h.png")
    line_px = 10.0 * plots.DPI / 72 * 2.0  # one text line at the default font size
    assert _longest_white_band(path) < line_px  # the gaps between texts, no wider band before the scale


def _reliability_data(rng, n=3000):
    probs = {"A": rng.beta(5, 1.5, n), "B": rng.beta(2, 2, n), "C": np.round(rng.random(n))}
    labels = (rng.random(n) < np.clip(probs["A"] + rng.normal(0, 0.1, n), 0, 1)).astype(float)
    return labels, probs


def test_reliability_is_one_panel_per_judge_with_ece_counts_and_sparse_bins_apart(tmp_path):
    from kpqa import arraystats, binary

    labels, probs = _reliability_data(np.random.default_rng(3))
    probs["B"][:5] = 0.01  # five rows alone in the first bin: drawn apart, not joined into the line
    bins = {name: binary.reliability(labels, p) for name, p in probs.items()}
    for name, p in probs.items():
        assert binary.bins_ece(bins[name]) == pytest.approx(float(arraystats.ece(labels, p)), abs=1e-12)
    text = plots.reliability(bins, tmp_path / "r.svg", title="set").read_text()
    for name in probs:
        assert f"ECE {binary.bins_ece(bins[name]):.3f}, n = 3,000" in text
    assert text.count(f"bins &lt; {binary.MIN_BIN_ROWS} rows") == 1 and "predicted P(correct)" in text
    one = image.imread(plots.reliability({"A": bins["A"]}, tmp_path / "one.png"))
    three = image.imread(plots.reliability(bins, tmp_path / "three.png"))
    assert three.shape[1] > 2.5 * one.shape[1]  # small multiples side by side, not lines in one panel


def test_scatter_fit_line_stays_in_the_human_range_and_does_not_set_the_axis():
    x = np.array([0.0, 0.5, 1.0, 1.0, 0.0])
    y = np.array([0.0, 0.9, 1.0, 1.0, 0.1])
    xs, ys = plots._fit_segment(x, y, (0.0, 1.0))
    slope, intercept = np.polyfit(x, y, 1)
    assert slope * 1.0 + intercept > 1.0 and ys.max() == pytest.approx(1.0) and ys.min() >= 0.0  # cut at 1
    assert plots._limits(np.array([0.2, 0.9])) == (-0.05, 1.05)
    assert plots._limits(np.array([1.0, 5.0])) == pytest.approx((0.8, 5.2))


def test_scatter_jitters_discrete_human_scores_and_says_so(tmp_path):
    rng = np.random.default_rng(2)
    human = rng.integers(1, 6, 300).astype(float)
    text = plots.scatter(human, {"m": human + rng.normal(0, 1, 300)}, tmp_path / "d.svg").read_text()
    assert "human score (jittered)" in text and "n = 300, r = " in text
    smooth = plots.scatter(rng.random(300), {"m": rng.random(300)}, tmp_path / "c.svg").read_text()
    assert "jittered" not in smooth
