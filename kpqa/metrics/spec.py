"""The one parser of metric specifications ``NAME[:key=value]...`` and of the ``-KP`` column names."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from kpqa.errors import UsageError

KP_SUFFIX, KPQA_SUFFIX = "-KP", "-KPQA"


@dataclass(frozen=True)
class Spec:
    """``BERTScore:layer=5:idf=yes`` -> base ``BERTScore``, options ``(("layer", "5"), ("idf", "yes"))``, text
    ``:layer=5:idf=yes`` (the part after the base, as written: it ends the metric's column name)."""

    base: str
    options: tuple[tuple[str, str], ...] = ()
    text: str = ""

    def as_dict(self) -> dict[str, str]:
        return dict(self.options)


def parse_spec(name: str, allowed: Collection[str] | None = None, known: str = "") -> Spec:
    """Split ``name`` at ``:`` into a base and ``key=value`` options; UsageError for an item without ``=``, a key
    given twice or (with ``allowed``) a key not allowed; ``known`` is appended to the message, e.g.
    ``"known: tok=pieces|words"``."""
    base, *items = name.split(":")
    options: list[tuple[str, str]] = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or key in dict(options) or (allowed is not None and key not in allowed):
            hint = f"; {known}" if known else ""
            raise UsageError(f"bad option {item!r} in {name!r}{hint}, once each")
        options.append((key, value))
    return Spec(base, tuple(options), name[len(base):])


def split_kp(name: str, no_question: bool = False) -> tuple[str, bool]:
    """A requested column name -> (registered metric name, uses the question-free weighter).

    ``BLEU-1-KP`` -> ``("BLEU-1-KPQA", True)``; with ``no_question`` every ``-KPQA`` metric takes the -KP weighter.
    """
    base, sep, rest = name.partition(":")
    if base.upper().endswith(KP_SUFFIX):
        return base + "QA" + sep + rest, True
    return name, no_question and base.upper().endswith(KPQA_SUFFIX)
