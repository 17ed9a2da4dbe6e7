"""The one parser of metric specifications ``NAME[:key=value]...`` and the one home of the ``-KP`` / ``-KPQA``
names: which registered metric a ``-KP`` column is (:func:`split_kp`), the suffix a keyphrase-weighted metric
is built with (:func:`kp_suffix`) and the metric a KPQA / -KP / adapted metric extends (:func:`base_metric`).

A metric declares the options its name takes once, as a tuple of :class:`Option` (``Metric.spec_options``, as
sacrebleu's metrics declare their arguments): key, type, default and allowed values. :func:`read_options` turns a
name's options into the metric's constructor arguments, with one set of messages for every metric; the listing
(``kpqa metrics``) and the ``known:`` hint of a bad option are made from the same declarations (:func:`usage`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Sequence

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


@dataclass(frozen=True)
class Option:
    """One ``:key=value`` option of a metric's name: ``key`` as written, the constructor keyword it sets (``arg``;
    default: the key), how its text reads (``type``: ``str``, ``float``, ``int`` (a non-negative integer) or ``bool``
    (``yes`` / ``no``)), the value a name without it gets (``default``: the constructor's own default, which
    tests/test_spec.py checks), the texts it allows (``choices``; any when empty) and how a listing shows its value
    (``shown``; default: the choices, ``NUMBER`` or ``N``)."""

    key: str
    type: type = str
    default: object = None
    choices: tuple[str, ...] = ()
    arg: str = ""
    shown: str = ""

    @property
    def keyword(self) -> str:
        """The constructor keyword the option sets."""
        return self.arg or self.key

    @property
    def allowed(self) -> tuple[str, ...]:
        """The texts the option takes (empty: any)."""
        return ("yes", "no") if self.type is bool and not self.choices else self.choices

    def show(self) -> str:
        """``key=VALUES`` as listings and hints show it: ``tok=pieces|words``, ``alpha=NUMBER``."""
        placeholder = {float: "NUMBER", int: "N"}.get(self.type, "VALUE")
        return f"{self.key}={self.shown or '|'.join(self.allowed) or placeholder}"

    def read(self, value: str, name: str) -> object:
        """The constructor argument ``value`` (as written in ``name``) stands for; UsageError when the option does not
        take it."""
        if self.allowed and value not in self.allowed:
            self._refuse(" or ".join(self.allowed), value, name)
        if self.type is bool:
            return value == "yes"
        if self.type is int:
            if not value.isdigit():
                self._refuse("non-negative integers", value, name)
            return int(value)
        if self.type is float:
            try:
                return float(value)
            except ValueError:
                self._refuse("numbers", value, name)
        return value

    def _refuse(self, what: str, value: str, name: str) -> None:
        raise UsageError(f"bad option in {name!r}: the {self.key} option takes {what}, not {value!r}")


def usage(options: Sequence[Option], sep: str = ", ") -> str:
    """The options as listings and hints show them: ``tok=pieces|words, lcs=longest|heaviest``."""
    return sep.join(o.show() for o in options)


def read_options(name: str, options: Sequence[Option]) -> tuple[dict[str, object], str]:
    """The constructor arguments of ``name``'s options (every declared option: its value as written, else its
    default) and the options' text as written (it ends the metric's column names); UsageError for an option not
    declared, given twice, without ``=`` or with a value it does not take."""
    spec = parse_spec(name, [o.key for o in options], f"known: {usage(options)}")
    given = spec.as_dict()
    values = {o.keyword: o.read(given[o.key], name) if o.key in given else o.default for o in options}
    return values, spec.text


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
