"""One recogniser of years and months (:mod:`kpqa.numbers`) behind the rule-made answers, the swaps and the near
misses: each reads the same years and months."""
from __future__ import annotations

import importlib

import pytest

from experiments.generators import swaps
from kpqa.numbers import MONTH_ABBREVIATIONS, MONTHS

build = importlib.import_module("kpqa.train.contrastive.build")  # the package's name `build` is its function
values = importlib.import_module("kpqa.train.contrastive.values")

YEARS = ["1000", "1492", "1999", "2000", "2024", "2099"]
NOT_YEARS = ["999", "0999", "2100", "3000", "19999"]


@pytest.mark.parametrize("text", YEARS)
def test_every_recogniser_reads_a_year(text):
    assert values._YEAR.match(text) and build._YEAR.match(text) and build._YEAR.match(text + "s")
    assert [m.group() for m in swaps._YEAR.finditer(f"in {text}, or so")] == [text]
    assert build.span_type(text) == "year"


@pytest.mark.parametrize("text", NOT_YEARS)
def test_no_recogniser_reads_a_number_outside_the_years(text):
    assert not values._YEAR.match(text) and not build._YEAR.match(text)
    assert not list(swaps._YEAR.finditer(f"in {text}, or so"))


@pytest.mark.parametrize("month", [*MONTHS, *MONTH_ABBREVIATIONS])
def test_every_recogniser_of_dates_reads_each_month(month):
    assert build._DATE.search(f"on {month.lower()} 5") and build.span_type(f"{month} 5") == "date"
    assert [m.group() for m in swaps._DATE.finditer(f"born on {month} 5, 1990.")] == [f"{month} 5, 1990"]
    assert [m.group() for m in swaps._DATE.finditer(f"born on {month}. 5, 1990.")] == (
        [f"{month}. 5, 1990"] if month in MONTH_ABBREVIATIONS else [])
    if month in MONTHS:
        assert values._MONTH.search(f"in {month} 1990").group() == month
