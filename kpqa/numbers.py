"""English number words, the one list: what KeyFact-KPQA reads as digits and what the contrastive answers
(``kpqa.train.contrastive``) recognise and write."""
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
