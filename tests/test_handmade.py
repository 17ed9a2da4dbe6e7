"""The hand-written judge test set (``tests/data/handmade_judge.csv``): its layout, balance and coverage. No model:
``experiments/handmade.py`` scores it."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

PATH = Path(__file__).parent / "data" / "handmade_judge.csv"
COLUMNS = ["question", "answer", "reference1", "reference2", "reference3", "scores", "kind", "form"]
#: kinds with right and wrong rows
BOTH_SIDES = ["polar-implicit", "negation", "qualifier", "role-swap", "mention", "alias", "swap-number", "swap-date",
              "swap-name", "swap-place", "other-option", "polar-flip", "abstention"]
KINDS = [*BOTH_SIDES, "off-topic"]
FORMS = {"short", "sentence", "long"}


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return pd.read_csv(PATH, keep_default_na=False, dtype={"scores": int})


def test_columns_and_size(rows: pd.DataFrame) -> None:
    assert list(rows.columns) == COLUMNS
    assert len(rows) >= 260


def test_every_row_has_a_question_an_answer_and_a_first_reference(rows: pd.DataFrame) -> None:
    for column in ["question", "answer", "reference1"]:
        assert (rows[column].str.strip() != "").all(), column


def test_exactly_half_right(rows: pd.DataFrame) -> None:
    assert set(rows["scores"]) == {0, 1}
    assert 2 * int(rows["scores"].sum()) == len(rows)


def test_kinds_and_sides(rows: pd.DataFrame) -> None:
    assert set(rows["kind"]) == set(KINDS)
    counts = rows.groupby(["kind", "scores"]).size()
    for kind in KINDS:
        assert rows["kind"].eq(kind).sum() >= 12, kind
    for kind in BOTH_SIDES:
        right, wrong = counts.get((kind, 1), 0), counts.get((kind, 0), 0)
        assert right >= 5 and wrong >= 5, (kind, right, wrong)
    assert counts.get(("off-topic", 0), 0) > counts.get(("off-topic", 1), 0)


def test_no_duplicate_question_answer_pair(rows: pd.DataFrame) -> None:
    assert not rows.duplicated(["question", "answer"]).any()


def test_forms(rows: pd.DataFrame) -> None:
    assert set(rows["form"]) == FORMS
    long = rows[rows["form"] == "long"]["answer"]
    assert long.map(lambda a: a.count(". ") + a.count("! ") + a.count("? ") >= 2).all()  # 3+ sentences
    assert (rows[rows["form"] == "short"]["answer"].str.split().str.len() <= 8).all()
