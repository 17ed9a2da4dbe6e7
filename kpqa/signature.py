"""One :class:`Signature` object per reported score: metric, then ``key:value`` fields, the version last.

``str(signature)`` is the sacrebleu-style string printed beside every score and stored in calibration files, e.g.
``BLEU-1-KPQA|tok:kpw-pieces|kpw:a19ea2737a6d|backbone:minilm|question:yes|precision:fp32|version:0.1.0``.
:meth:`Signature.parse` reads one back (fields in any order; older strings had the weighter's fields after the
version), and :meth:`Signature.comparable` gives the order-free form two signatures are compared by.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterable

from kpqa.version import __version__

#: the field a lower-is-better metric's signature carries (``Metric.higher_is_better`` False); a signature without it
#: is of a score that rises with correctness, as every signature written before the field existed
LOWER_IS_BETTER = ("better", "lower")


@dataclass(frozen=True)
class Signature:
    """Metric name, ordered ``(key, value)`` fields, version (always printed last)."""

    metric: str
    fields: tuple[tuple[str, str], ...] = ()
    version: str = field(default=__version__)

    @classmethod
    def of(cls, metric: str, fields: Iterable[tuple[str, object]] = ()) -> "Signature":
        """A signature with ``fields`` (values turned into strings), the current version."""
        return cls(metric, tuple((str(k), str(v)) for k, v in fields))

    def with_fields(self, fields: Iterable[tuple[str, object]]) -> "Signature":
        """This signature with ``fields`` added at the end (a key it has already is replaced in place)."""
        items = dict(self.fields)
        items.update((str(k), str(v)) for k, v in fields)
        return Signature(self.metric, tuple(items.items()), self.version)

    @property
    def short_hash(self) -> str:
        """The first 8 hex digits of the sha256 of the printed signature: what the compact summary shows."""
        return hashlib.sha256(str(self).encode("utf-8")).hexdigest()[:8]

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of field ``key`` (``version`` included)."""
        return self.version if key == "version" else dict(self.fields).get(key, default)

    @property
    def higher_is_better(self) -> bool:
        """Whether the score it signs rises with correctness (no ``better:lower`` field)."""
        return self.get(LOWER_IS_BETTER[0]) != LOWER_IS_BETTER[1]

    def __str__(self) -> str:
        return "|".join([self.metric, *(f"{k}:{v}" for k, v in self.fields), f"version:{self.version}"])

    @classmethod
    def parse(cls, text: str) -> "Signature":
        """The signature a string prints (the metric is everything before the first ``|``)."""
        metric, *parts = text.split("|")
        fields, version = [], ""
        for part in parts:
            key, _, value = part.partition(":")
            if key == "version":
                version = value
            else:
                fields.append((key, value))
        return cls(metric, tuple(fields), version)

    def comparable(self, ignore: Iterable[str] = ()) -> tuple[str, frozenset[tuple[str, str]], str]:
        """Metric, fields as a set (less the keys in ``ignore``) and version: equal for equal settings."""
        skip = set(ignore)
        return self.metric, frozenset((k, v) for k, v in self.fields if k not in skip), self.version
