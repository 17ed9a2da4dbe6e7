"""The value class of the contrastive data (:mod:`kpqa.train.contrastive`): an answer that is a number, a year or a
date, given again in another form (right: ``value-restated``) or with the value changed a little in the reference's
own form (wrong: ``value-near``).

- :func:`restate`: the same value in other words: a date's parts reordered ("April 15, 1912" -> "15 April 1912",
  "the 15th of April 1912"), a small number or an ordinal in words ("3" -> "three", "14th" -> "fourteenth"),
  thousands separators dropped or added, a unit or a percent sign spelled out ("100 °C" -> "100 degrees Celsius",
  "45%" -> "45 per cent");
- :func:`near`: one part of the value changed by a little: a year by a few ("1986" -> "1985") or two of its digits
  swapped ("1492" -> "1942"), a day or a month of a date, a number by one or a few or a tenfold, an ordinal.

Both are deterministic given their arguments (a seeded ``random.Random`` where they choose); None when the span has
no value they can change.
"""
from __future__ import annotations

import random
import re

from kpqa.numbers import MONTHS, ORDINALS, SMALL, TENS, YEAR

_MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\b")
#: a unit after a number and its words (both ways)
UNITS = {"km": "kilometres", "km2": "square kilometres", "sq mi": "square miles", "mi": "miles", "kg": "kilograms",
         "lb": "pounds", "lbs": "pounds", "ft": "feet", "cm": "centimetres", "mm": "millimetres",
         "°C": "degrees Celsius", "°F": "degrees Fahrenheit", "mph": "miles per hour", "km/h": "kilometres per hour",
         "%": "per cent", "m": "metres", "ha": "hectares", "kW": "kilowatts", "MW": "megawatts"}
_WORD_UNITS = {"kilometres": "km", "kilometers": "km", "miles": "mi", "kilograms": "kg", "pounds": "lb",
               "feet": "ft", "metres": "m", "meters": "m", "percent": "%", "per cent": "%", "hectares": "ha",
               "square miles": "sq mi", "square kilometres": "km2", "square kilometers": "km2",
               "degrees Celsius": "°C", "degrees Fahrenheit": "°F", "miles per hour": "mph"}
_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|(?<![\w.,])\d+(?:\.\d+)?(?![\d])")
_ORDINAL = re.compile(r"\b(\d{1,2})(st|nd|rd|th)\b")
_DAY_MONTH = re.compile(r"\b(\d{1,2}) (" + "|".join(MONTHS) + r")\b")
_MONTH_DAY = re.compile(r"\b(" + "|".join(MONTHS) + r") (\d{1,2})\b(?!,? \d{1,2}\b)")
_YEAR = re.compile(rf"^({YEAR})$")
_CURRENCIES = {"$": "dollars", "£": "pounds", "€": "euros"}


def ordinal(n: int) -> str:
    """1 -> 1st, 2 -> 2nd, 11 -> 11th, 23 -> 23rd."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _year_words(year: int) -> str | None:
    """1945 -> nineteen forty-five (years 1100-1999 whose last two digits are not 00-09), else None."""
    hi, lo = divmod(year, 100)
    if not 11 <= hi <= 19 or lo < 10:
        return None
    return f"{SMALL[hi]} {number_words(lo)}"


def _restate_date(span: str, rng: random.Random) -> str | None:
    """A date's day and month in the other order, or the day as an ordinal ("the 15th of April")."""
    m = _MONTH_DAY.search(span)
    if m and 1 <= int(m.group(2)) <= 31:
        day, month = int(m.group(2)), m.group(1)
        rest = re.sub(r"^,\s*", " ", span[m.end():])
        new = rng.choice((f"{day} {month}", f"the {ordinal(day)} of {month}"))
        return (span[:m.start()] + new + rest).strip()
    m = _DAY_MONTH.search(span)
    if m and 1 <= int(m.group(1)) <= 31:
        day, month = int(m.group(1)), m.group(2)
        tail = span[m.end():]
        year = re.match(r"^,? (\d{4})\b", tail)
        new = (f"{month} {day}, {year.group(1)}" if year else f"{month} {day}") if rng.random() < 0.6 \
            else f"the {ordinal(day)} of {month}" + (f" {year.group(1)}" if year else "")
        return (span[:m.start()] + new + (tail[year.end():] if year else tail)).strip()
    m = re.search(r"\b(" + "|".join(MONTHS) + r") (\d{4})\b", span)
    if m:
        return span[:m.start()] + f"{m.group(1)} of {m.group(2)}" + span[m.end():]
    return None


def _restate_unit(span: str) -> str | None:
    """A number's unit spelled out, or its words abbreviated."""
    for word, short in sorted(_WORD_UNITS.items(), key=lambda kv: -len(kv[0])):
        m = re.search(rf"(\d) {re.escape(word)}\b", span)
        if m:
            return span[:m.start(1) + 1] + (short if short == "%" else f" {short}") + span[m.end():]
    for short, word in sorted(UNITS.items(), key=lambda kv: -len(kv[0])):
        m = re.search(rf"(\d) ?{re.escape(short)}(?![\w/°])", span)
        if m and (short != "m" or not re.search(r"\$|£|€", span)):
            return span[:m.start(1) + 1] + f" {word}" + span[m.end():]
    return None


def number_words(n: int) -> str | None:
    """0-99 in words ("twenty-seven"), else None."""
    if n <= 20:
        return SMALL[n]
    if n >= 100:
        return None
    return TENS[n // 10 - 2] + (f"-{SMALL[n % 10]}" if n % 10 else "")


def _restate_number(span: str) -> str | None:
    """An ordinal or a number below 100 in words (or a number word in digits), a currency sign or "million" spelled
    out, or thousands separators dropped (or added)."""
    m = _ORDINAL.search(span)
    if m and 1 <= int(m.group(1)) <= 20:
        return span[:m.start()] + ORDINALS[int(m.group(1)) - 1] + span[m.end():]
    word = re.search(r"\b(" + "|".join(SMALL[2:]) + r")\b", span)
    if word and not _NUMBER.search(span):
        return span[:word.start()] + str(SMALL.index(word.group())) + span[word.end():]
    m = re.search(r"([$£€])(\d[\d,.]*(?: (?:million|billion|thousand))?)", span)
    if m:
        return span[:m.start()] + f"{m.group(2)} {_CURRENCIES[m.group(1)]}" + span[m.end():]
    m = re.search(r"\b(\d+(?:\.\d+)?) million\b", span)
    if m and float(m.group(1)) * 1e6 == int(float(m.group(1)) * 1e6):
        return span[:m.start()] + f"{int(float(m.group(1)) * 1e6):,}" + span[m.end():]
    numbers = list(_NUMBER.finditer(span))
    if len(numbers) != 1:
        return None
    m, text = numbers[0], numbers[0].group()
    if text.isdigit() and int(text) < 100 and not _MONTH.search(span):
        return span[:m.start()] + (number_words(int(text)) or text) + span[m.end():]
    if "," in text:
        return span[:m.start()] + text.replace(",", "") + span[m.end():]
    if text.isdigit() and len(text) >= 5:
        return span[:m.start()] + f"{int(text):,}" + span[m.end():]
    return None


def restate(span: str, rng: random.Random) -> str | None:
    """The value of ``span`` in another form (see the module's doc), or None."""
    text = span.strip()
    if _YEAR.match(text):
        spoken = _year_words(int(text))
        return rng.choice([f"in {text}", f"the year {text}"] + ([spoken] * 2 if spoken else []))
    return _restate_date(text, rng) or _restate_unit(text) or _restate_number(text)


def _near_int(n: int, rng: random.Random, year: bool = False) -> int:
    """Another integer near ``n``: a year by a few (or two digits swapped), a small number by one or two, a larger
    one by a few or tenfold."""
    digits = str(n)
    if year:
        swapped = [int(digits[:i] + digits[i + 1] + digits[i] + digits[i + 2:]) for i in range(1, len(digits) - 1)
                   if digits[i] != digits[i + 1]]
        swaps = [s for s in swapped if 1000 <= s <= 2099]
        if swaps and rng.random() < 0.25:
            return rng.choice(swaps)
        return n + rng.choice((-10, -5, -3, -2, -1, 1, 2, 3, 5, 10))
    if n <= 12:
        return max(0, n + rng.choice((-2, -1, 1, 2))) if n > 2 else n + rng.choice((1, 2, 3))
    how = rng.random()
    if how < 0.2:
        return n * 10
    if how < 0.4 and n % 10 == 0:
        return n // 10
    step = max(1, round(n * rng.choice((0.02, 0.05, 0.1, 0.2))))
    return max(1, n + rng.choice((-1, 1)) * step)


def _near_date(span: str, rng: random.Random) -> str | None:
    """A date with its day, its month or its year changed."""
    months = list(_MONTH.finditer(span))
    days = [m for m in re.finditer(r"(?<![\d,])\b\d{1,2}\b(?![\d,])", span) if 1 <= int(m.group()) <= 31]
    years = [m for m in re.finditer(r"\b(1[0-9]{3}|20[0-9]{2})\b", span)]
    choices = ["month"] * bool(months) + ["day"] * bool(days) + ["year"] * bool(years)
    if not choices:
        return None
    what = rng.choice(choices)
    if what == "month":
        m = months[0]
        other = rng.choice([x for x in MONTHS if x != m.group()])
        return span[:m.start()] + other + span[m.end():]
    m = days[0] if what == "day" else years[0]
    value = int(m.group())
    new = rng.choice([d for d in range(1, 29) if d != value]) if what == "day" else _near_int(value, rng, True)
    return span[:m.start()] + str(new) + span[m.end():]


def near(span: str, rng: random.Random) -> str | None:
    """``span`` with its value changed a little, in the same form (see the module's doc), or None."""
    text = span.strip()
    if _MONTH.search(text):
        return _near_date(text, rng)
    m = _ORDINAL.search(text)
    if m:
        n = int(m.group(1))
        other = rng.choice([x for x in range(max(1, n - 3), n + 4) if x != n])
        return text[:m.start()] + ordinal(other) + text[m.end():]
    numbers = list(_NUMBER.finditer(text))
    if not numbers:
        word = next((w for w in re.findall(r"[a-z]+", text.lower()) if w in SMALL[1:13]), None)
        if word is None:
            return None
        n = SMALL.index(word)
        return re.sub(rf"\b{word}\b", SMALL[_near_int(n, rng)], text, count=1, flags=re.IGNORECASE)
    m = numbers[0]
    raw = m.group().replace(",", "")
    if "." in raw:
        whole, frac = raw.split(".")
        last = int(frac[-1])
        new = f"{whole}.{frac[:-1]}{rng.choice([d for d in range(10) if d != last])}"
    else:
        new_n = _near_int(int(raw), rng, bool(_YEAR.match(raw)))
        new = f"{new_n:,}" if "," in m.group() else str(new_n)
    return text[:m.start()] + new + text[m.end():]


def value_pair(span: str, rng: random.Random) -> tuple[str, str] | None:
    """(the value restated, the value changed a little) of an answer span, or None when it has no value that both
    rules change."""
    right, wrong = restate(span, rng), near(span, rng)
    if not right or not wrong or right == span.strip() or wrong == span.strip():
        return None
    return right, wrong
