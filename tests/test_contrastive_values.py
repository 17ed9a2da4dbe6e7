"""The value class of the contrastive data: a number, year or date restated (right) or changed a little (wrong)."""
from __future__ import annotations

import random
import re

import pytest

from kpqa.train.contrastive.values import MONTHS, near, number_words, ordinal, restate, value_pair


def _digits(text: str) -> list[str]:
    return re.findall(r"\d+", text.replace(",", ""))


@pytest.mark.parametrize(("n", "expected"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"),
                                             (12, "12th"), (13, "13th"), (21, "21st"), (22, "22nd"), (111, "111th")])
def test_ordinal(n, expected):
    assert ordinal(n) == expected


@pytest.mark.parametrize(("n", "expected"), [(0, "zero"), (7, "seven"), (20, "twenty"), (27, "twenty-seven"),
                                             (40, "forty"), (99, "ninety-nine"), (100, None)])
def test_number_words(n, expected):
    assert number_words(n) == expected


@pytest.mark.parametrize(("span", "accepted"), [
    ("April 15, 1912", {"15 April 1912", "the 15th of April 1912"}),
    ("9 November 1989", {"November 9, 1989", "the 9th of November 1989"}),
    ("October 1929", {"October of 1929"}),
    ("1945", {"in 1945", "the year 1945", "nineteen forty-five"}),
    ("1905", {"in 1905", "the year 1905"}),  # no "nineteen five"
    ("100 °C", {"100 degrees Celsius"}),
    ("300 miles", {"300 mi"}),
    ("45%", {"45 per cent"}),
    ("14th century", {"fourteenth century"}),
    ("27", {"twenty-seven"}),
    ("three", {"3"}),
    ("$777 million", {"777 million dollars"}),
    ("1.5 million", {"1,500,000"}),
    ("3,787,410", {"3787410"}),
    ("Labour Party", {None}),
    ("19.6", {None}),
])
def test_restate_keeps_the_value(span, accepted):
    for seed in range(6):
        assert restate(span, random.Random(seed)) in accepted


@pytest.mark.parametrize("span", ["April 15, 1912", "9 November 1989", "October 1929", "1945", "1492", "100 °C",
                                  "45%", "14th century", "27", "three", "$777 million", "1.5 million", "3,787,410",
                                  "8,849 metres", "19.6", "2 March 2009", "5"])
def test_near_changes_one_part_and_keeps_the_form(span):
    for seed in range(20):
        changed = near(span, random.Random(seed))
        assert changed and changed != span
        # the same words around the value: only digits, a month or a number word differ
        strip = re.compile(r"\d+|" + "|".join(MONTHS) + r"|zero|one|two|three|four|five|six|seven|eight|nine|ten|"
                           r"eleven|twelve|thirteen|fourteen|fifteen")
        assert strip.sub("#", changed.replace(",", "")) == strip.sub("#", span.replace(",", ""))


def test_near_years_stay_years_and_move_a_little():
    for seed in range(50):
        new = int(near("1986", random.Random(seed)))
        assert 1000 <= new <= 2099 and new != 1986
        assert abs(new - 1986) <= 10 or sorted(str(new)) == sorted("1986")  # a few years, or two digits swapped


def test_value_pair_is_deterministic_and_none_without_a_value():
    assert value_pair("June 29, 2007", random.Random(3)) == value_pair("June 29, 2007", random.Random(3))
    assert value_pair("the Nile", random.Random(0)) is None
    for seed in range(10):
        right, wrong = value_pair("26 April 1986", random.Random(seed))
        assert sorted(_digits(right)) == ["1986", "26"] and "April" in right  # the same date in another order
        assert wrong != "26 April 1986" and len(wrong.split()) == 3
