"""Errors the CLI turns into one-line messages and exit codes."""
from __future__ import annotations


class KpqaError(Exception):
    """Base class: a problem the user can fix. The CLI prints it on one line and exits with ``exit_code``."""

    exit_code = 2


class InputError(KpqaError):
    """Bad input data; the message names the file, row and column where there is one."""

    def __init__(self, message: str, *, file: str | None = None, row: int | None = None, column: str | None = None):
        where = []
        if file is not None:
            where.append(str(file))
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column {column!r}")
        super().__init__(f"{': '.join([', '.join(where), message]) if where else message}")
        self.file, self.row, self.column = file, row, column
        self.reason = message if column is None else f"{message} (column {column!r})"  # without the file and row


class UsageError(KpqaError):
    """A bad option or combination of options."""


class CheckpointError(KpqaError):
    """A weighter checkpoint that is missing, incomplete or built on another backbone."""


class KpqaWarning(UserWarning):
    """Something the user should know that does not stop the run (the CLI prints ``kpqa: warning: ...``)."""
