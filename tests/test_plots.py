"""Figures (kpqa.plots): files are written, have the expected layout and show the data."""
from __future__ import annotations

import numpy as np
import pytest
from matplotlib import image

from kpqa import meta, plots


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
    scores = np.stack([np.stack([h + rng.normal(scale=1 + a, size=60) for a in meta.ALPHAS]) for _ in meta.ORDERS])
    scores[3, 10] = 0.0
    grid = meta.grid_from_scores(h, scores).to_dict()
    path = plots.grid_heatmap(grid, tmp_path / "grid.png")
    pixels = image.imread(path)[..., :3]
    grey = np.all(np.abs(pixels - 0.827) < 0.02, axis=-1)  # matplotlib "lightgrey" = #d3d3d3 for the n/a cell
    assert grey.sum() > 100
    assert plots.grid_heatmap(grid, tmp_path / "r.png", key="pearson").exists()


def test_breakdown_bars(tmp_path):
    groups = {"NUMERIC": {"BLEU-1": 0.3, "BLEU-1-KPQA": 0.7}, "PERSON": {"BLEU-1": 0.5, "BLEU-1-KPQA": None}}
    path = plots.breakdown(groups, tmp_path / "by.png", title="by type")
    assert 0.02 < _ink(path) < 0.6


@pytest.mark.parametrize("words", [3, 60])
def test_weight_heatmap_wraps_long_texts(tmp_path, words):
    tokens = [(f"w{i}", i / words) for i in range(words)]
    path = plots.weight_heatmap([("Reference", tokens), ("Candidate", tokens[:3])], tmp_path / "h.png")
    height = image.imread(path).shape[0]
    assert (height > 100) if words == 60 else (height < 100)
