"""Errors the CLI turns into one-line messages and exit codes, and the parameters their messages name.

A message is made of text and :class:`Param` parts. ``str()`` says a parameter in the API's words (``device='cuda'``,
``decide=True``); the CLI says it as the flag that sets it (``--device cuda``, ``--decide``):
:meth:`KpqaError.render` / :func:`render` with the CLI's map of parameter names to flags. The library never speaks
in flags, and the CLI never rewrites a library message's text.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Union

#: a :class:`Param` given without a value is named alone
NO_VALUE = object()


@dataclass(frozen=True)
class Param:
    """A parameter a message names: ``name`` (the API's), with the ``value`` it was given, or without one
    (``NO_VALUE``) with a ``metavar`` standing for a value (``N``) or nothing."""

    name: str
    value: object = NO_VALUE
    metavar: str = ""

    def render(self, flags: Mapping[str, str] | None = None) -> str:
        """``name=value`` (``name=N`` or ``name`` without a value), or with a ``flags`` entry for ``name``:
        ``--flag value`` (``--flag N``; ``--flag`` for True or no value)."""
        flag = (flags or {}).get(self.name)
        if self.value is NO_VALUE:
            return (flag or self.name) + ((" " if flag else "=") + self.metavar if self.metavar else "")
        if flag is None:
            return f"{self.name}={self.value!r}"
        return flag if self.value is True else f"{flag} {self.value}"

    def __str__(self) -> str:
        return self.render()


Part = Union[str, Param]


def render(parts: tuple[Part, ...], flags: Mapping[str, str] | None = None) -> str:
    """The message ``parts`` make, parameters said as ``flags`` has them (else in the API's words)."""
    return "".join(p.render(flags) if isinstance(p, Param) else p for p in parts)


class KpqaError(Exception):
    """Base class: a problem the user can fix. The CLI prints it on one line and exits with ``exit_code``."""

    exit_code = 2

    def __init__(self, *parts: Part) -> None:
        super().__init__(render(parts))
        self.parts = parts

    def render(self, flags: Mapping[str, str] | None = None) -> str:
        """The message with its parameters said as ``flags`` has them."""
        return render(self.parts, flags)


class InputError(KpqaError):
    """Bad input data; the message names the file, row and column where there is one."""

    def __init__(self, *parts: Part, file: str | None = None, row: int | None = None, column: str | None = None):
        where = [str(file)] if file is not None else []
        where += [f"row {row}"] if row is not None else []
        where += [f"column {column!r}"] if column is not None else []
        super().__init__(*([", ".join(where) + ": "] if where else []), *parts)
        self.file, self.row, self.column = file, row, column
        message = render(parts)
        self.reason = message if column is None else f"{message} (column {column!r})"  # without the file and row


class UsageError(KpqaError):
    """A bad option or combination of options."""


class CheckpointError(KpqaError):
    """A weighter checkpoint that is missing, incomplete or built on another backbone."""


class KpqaWarning(UserWarning):
    """Something the user should know that does not stop the run (the CLI prints ``kpqa: warning: ...``); made of
    parts like an error's."""

    def __init__(self, *parts: Part) -> None:
        super().__init__(render(parts))
        self.parts = parts

    def render(self, flags: Mapping[str, str] | None = None) -> str:
        """The message with its parameters said as ``flags`` has them."""
        return render(self.parts, flags)


def check_file(path: str | os.PathLike) -> None:
    """An :class:`InputError` when ``path`` is no file to read (missing, or a folder); cheap, so that the command
    line says it before any heavy import."""
    if not os.path.exists(path):
        raise InputError("no such file", file=str(path))
    if os.path.isdir(path):
        raise InputError("is a folder, not a file", file=str(path))
