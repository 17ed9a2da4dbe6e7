"""English number words, months and years, the one list of each: what KeyFact-KPQA reads as digits and what the
contrastive answers (``kpqa.train.contrastive``), the swaps and the near misses (``experiments/generators``)
recognise and write."""
from __future__ import annotations

#: the cardinals 0 to 20, each at its value's index
SMALL: tuple[str, ...] = tuple(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())
#: the tens from twenty (``TENS[n // 10 - 2]``)
TENS: tuple[str, ...] = tuple("twenty thirty forty fifty sixty seventy eighty ninety".split())
#: the ordinals first to twentieth (``ORDINALS[n - 1]``)
ORDINALS: tuple[str, ...] = tuple(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split())
#: the words that scale a number
SCALES: tuple[str, ...] = ("hundred", "thousand", "million", "billion")
#: the months, January first (``MONTHS[n - 1]``): what every recogniser of dates reads
MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                           "October", "November", "December")
#: their short forms as written before a day or a year (``Sept`` beside ``Sep``; May has none)
MONTH_ABBREVIATIONS: tuple[str, ...] = ("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov",
                                        "Dec")
#: a year as a regular expression (no groups): 1000 to 2099, the years the data's answers hold
YEAR = "1[0-9]{3}|20[0-9]{2}"


def months_pattern(abbreviated: bool = False, dot: bool = False) -> str:
    """The months as a regular expression's alternatives (no groups): their names, then (``abbreviated``) their short
    forms, each with an optional full stop when ``dot``."""
    short = [rf"{a}\.?" if dot else a for a in MONTH_ABBREVIATIONS] if abbreviated else []
    return "|".join([*MONTHS, *short])
