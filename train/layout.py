"""Checks that a source record has the fields its layout promises, failing with the file and record named."""
from __future__ import annotations

from typing import Any

from kpqa.errors import InputError


def field(record: Any, key: str, kind: type | tuple[type, ...], *, file: str, where: str, layout: str) -> Any:
    """``record[key]``, which must exist and be of ``kind``; otherwise an :class:`InputError` naming the place."""
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a {layout} record (a JSON object), got {_kind(record)}", file=file)
    if key not in record:
        present = ", ".join(sorted(map(str, record))[:8])
        raise InputError(f"{where}: no {key!r} field; not the {layout} layout? (fields: {present})", file=file)
    value = record[key]
    if not isinstance(value, kind):
        raise InputError(f"{where}: {key!r} should be {_name(kind)}, got {_kind(value)}", file=file)
    return value


def _kind(value: Any) -> str:
    kinds: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
    return kinds.get(type(value), type(value).__name__)


def _name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({dict: "an object", list: "a list", str: "a string", int: "an integer"}.get(k, k.__name__)
                       for k in kinds)
