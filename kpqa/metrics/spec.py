"""The one parser of metric specifications ``NAME[:key=value]...`` and the one home of the ``-KP`` / ``-KPQA``
names: which registered metric a ``-KP`` column is (:func:`split_kp`), the suffix a keyphrase-weighted metric
is built with (:func:`kp_suffix`) and the metric a KPQA / -KP / adapted metric extends (:func:`base_metric`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from kpqa.errors import UsageError

KP_SUFFIX, KPQA_SUFFIX = "-KP", "-KPQA"
#: the suffixes that name a metric extending another one (``BLEU-1-KPQA`` extends ``BLEU-1``)
SUFFIXES = (KPQA_SUFFIX, KP_SUFFIX, "-adapted")


@dataclass(frozen=True)
class Spec:
    """``BERTScore:layer=5:idf=yes`` -> base ``BERTScore``, options ``(("layer", "5"), ("idf", "yes"))``, text
    ``:layer=5:idf=yes`` (the part after the base, as written: it ends the metric's column name)."""

    base: str
    options: tuple[tuple[str, str], ...] = ()
    text: str = ""

    def as_dict(self) -> dict[str, str]:
        return dict(self.options)


def base_name(name: str) -> str:
    """The metric a name with options names: ``BLEU-1-KPQA:tok=words`` -> ``BLEU-1-KPQA``."""
    return name.partition(":")[0]


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


def kp_suffix(question: bool) -> str:
    """The column suffix of a keyphrase-weighted metric: ``KPQA`` with the question, ``KP`` without."""
    return KPQA_SUFFIX[1:] if question else KP_SUFFIX[1:]


def kp_name(registered: str) -> str:
    """The -KP column name of a registered -KPQA metric: ``BLEU-1-KPQA`` -> ``BLEU-1-KP``."""
    return registered[: -len(KPQA_SUFFIX)] + KP_SUFFIX


def base_metric(name: str) -> str | None:
    """The metric a KPQA / -KP / Yang-adapted metric extends (``BLEU-1-KPQA`` -> ``BLEU-1``), else None."""
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None
