"""Annotation helpers (kpqa.annotation): Krippendorff's alpha, the z-score rater filter, long tables to a matrix."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kpqa import annotation
from kpqa.errors import InputError

NA = np.nan
KRIPPENDORFF_2011 = np.array([  # "Computing Krippendorff's Alpha-Reliability", C: 4 observers x 12 units
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NA, 3],
    [NA, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NA],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NA],
]).T  # items x raters


@pytest.mark.parametrize("level, expected", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849),
                                             ("ratio", 0.797)])
def test_krippendorff_alpha_worked_example(level, expected):
    assert annotation.krippendorff_alpha(KRIPPENDORFF_2011, level) == pytest.approx(expected, abs=5e-4)


def test_krippendorff_alpha_bad_input():
    with pytest.raises(InputError, match="same value"):
        annotation.krippendorff_alpha(np.full((3, 4), 2.0))
    with pytest.raises(InputError, match="two or more"):
        annotation.krippendorff_alpha(np.array([[1, NA], [NA, 2]]))
    with pytest.raises(InputError, match="level"):
        annotation.krippendorff_alpha(KRIPPENDORFF_2011, "cardinal")


def test_zscore_filter_rule():
    ratings = np.array([
        [5, 5, 5, 5, 5, 5, 5, 5, 5, 1],  # the 1 has z = -3: removed (two-sided only)
        [3, 3, 3, 3, 3, 3, 3, 3, 3, 3],  # constant: kept
        [1, 1, 1, 1, 1, 5, 5, 5, 5, 5],  # every z is +-1 exactly: nothing is "higher than 1"
        [1, 2, 3, 4, 5, 1, 2, 3, 4, 5],  # z of 1 and 5 = -+1.41: four candidates
    ], dtype=float)
    two = annotation.zscore_filter(ratings)
    assert two.removed[0].tolist() == [False] * 9 + [True]
    assert not two.removed[1].any() and not two.removed[2].any()
    assert two.removed[3].sum() == 4 and set(ratings[3][two.removed[3]]) == {1.0, 5.0}
    one = annotation.zscore_filter(ratings, two_sided=False)
    assert not one.removed[0].any() and one.removed[3].sum() == 2
    capped = annotation.zscore_filter(ratings, max_removed=1)
    assert capped.removed.sum(axis=1).tolist() == [1, 0, 0, 1]
    assert two.raters_per_item == pytest.approx((9 + 10 + 10 + 6) / 4)
    np.testing.assert_allclose(annotation.item_scores(two.ratings), [5, 3, 3, 3])


def test_zscore_filter_removes_largest_first_and_ignores_missing():
    ratings = np.array([[4, 4, 4, 4, 4, 4, 3, 1, 5, NA]])  # mean 3.67, sd 1.05: z(1) = -2.5, z(5) = 1.3, z(3) = -0.6
    out = annotation.zscore_filter(ratings, max_removed=1)
    assert out.removed[0].tolist() == [False] * 7 + [True, False, False]
    assert np.isnan(out.ratings[0, 9]) and not out.removed[0, 9]


def test_ratings_matrix_from_a_long_table():
    long = pd.DataFrame({"item": [1, 1, 2, 2, 2], "rater": ["a", "b", "a", "b", "c"], "score": [5, 4, 1, 2, 1]})
    matrix = annotation.ratings_matrix(long)
    assert matrix.shape == (2, 3) and np.isnan(matrix.loc[1, "c"]) and matrix.loc[2, "b"] == 2
    with pytest.raises(InputError, match="'score'"):
        annotation.ratings_matrix(long.drop(columns="score"))
    with pytest.raises(InputError, match="twice"):
        annotation.ratings_matrix(pd.concat([long, long.iloc[:1]]))
    with pytest.raises(InputError, match="row 2.*not a number"):
        annotation.ratings_matrix(long.assign(score=["5", "x", "1", "2", "1"]))
