"""Writing output: every file kpqa writes goes through one :class:`Destination` (a temp file put in place when it is
complete, so a path never holds a partial file), tables through :class:`OutputWriter` in the format the path's
extension names (:mod:`kpqa.formats`). Reading input is :mod:`kpqa.input`.
"""
from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from kpqa.errors import InputError, Param, UsageError
from kpqa.formats import Format, formats, listing, named


def output_format(path: str | os.PathLike) -> str:
    """The name of the format an output path names by its extension (:func:`kpqa.formats.formats`): ``csv`` for
    ``-`` (stdout) and for non-regular files (``/dev/stdout``, a FIFO) without one; a :class:`UsageError` for an
    extension no format writes."""
    return _format(path).name


def _format(path: str | os.PathLike) -> Format:
    """The format :func:`output_format` names."""
    name = Path(path)
    suffix = name.suffix.lower()
    found = formats().get(suffix)
    if found is not None and found.writer is not None:
        return found
    if str(path) == STDOUT or (not suffix and name.exists() and not Path(os.path.realpath(name)).is_file()):
        return named("csv")
    known = f"{found.name} is read only" if found is not None else f"unknown format {suffix or '(no extension)'!r}"
    raise UsageError(f"output {path}: {known}; use one of {listing(writable=True)}")


STDOUT = "-"


class Destination:
    """Where one output goes, checked before any work is done: ``-`` (stdout); a regular file, new or existing, which
    is replaced atomically (a temp file beside it, renamed over it; a symlink is followed and its target replaced);
    or an existing non-regular file (a character device such as ``/dev/null``, a FIFO), written through and never
    replaced. A path naming one of ``inputs`` is refused unless ``force``."""

    def __init__(self, path: str | os.PathLike, *, inputs: Iterable[Any] = (), force: bool = False) -> None:
        self.name = str(path)
        self.target = Path(os.path.realpath(path)) if self.name != STDOUT else None
        if self.target is not None and self.target.is_dir():
            raise InputError("output path is a folder, not a file", file=self.name)
        self.special = self.target is not None and self.target.exists() and not self.target.is_file()
        if self.target is None or self.special:
            return
        shown = Path(path) if not Path(path).is_symlink() else self.target
        if not self.target.parent.is_dir():
            problem = "is a file, not a folder" if self.target.parent.exists() else "does not exist"
            raise InputError(f"output folder {problem}", file=str(shown.parent))
        for source in () if force else inputs:
            if isinstance(source, (str, os.PathLike)) and self.target.exists() and Path(source).exists() \
                    and os.path.samefile(source, self.target):
                raise UsageError(f"output {self.name} is the input file {source}; pass ", Param("force", True),
                                 " to replace it")

    def temp(self) -> str:
        """A new temp file for this output (beside a regular target, so that the rename stays on one file system)."""
        folder = self.target.parent if self.target is not None and not self.special else None
        stem = "kpqa-stdout" if self.target is None else self.target.name
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=folder)
        except OSError as e:
            raise InputError(f"cannot write output: {e.strerror}", file=self.name) from None
        os.close(fd)
        return tmp

    def publish(self, tmp: str) -> None:
        """Put the finished temp file in place: rename it over a regular file (keeping an existing file's mode, else
        the umask's), or copy its bytes into stdout / the non-regular file and remove it."""
        try:
            if self.target is not None and not self.special:
                mode = self.target.stat().st_mode & 0o7777 if self.target.exists() else 0o666 & ~_umask()
                os.chmod(tmp, mode)  # not mkstemp's 0600
                os.replace(tmp, self.target)
                return
            with open(tmp, "rb") as src:
                if self.target is None:
                    sys.stdout.flush()
                    out = getattr(sys.stdout, "buffer", None)
                    if out is None:
                        sys.stdout.write(src.read().decode("utf-8"))
                    else:
                        shutil.copyfileobj(src, out)
                        out.flush()
                else:
                    with open(self.target, "wb") as dst:
                        shutil.copyfileobj(src, dst)
        except OSError as e:
            raise InputError(f"cannot write output: {e.strerror or e}", file=self.name) from None
        finally:
            Path(tmp).unlink(missing_ok=True)


@contextlib.contextmanager
def output_path(path: str | os.PathLike, *, inputs: Iterable[Any] = (), force: bool = False) -> Iterator[str]:
    """A temp file path to write an output into; published to ``path`` (see :class:`Destination`) when the block
    ends normally, removed when it raises, so ``path`` never holds a partial file."""
    destination = Destination(path, inputs=inputs, force=force)
    tmp = destination.temp()
    try:
        yield tmp
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    destination.publish(tmp)


def write_text(path: str | os.PathLike, text: str, *, inputs: Iterable[Any] = (), force: bool = False) -> None:
    """Write ``text`` (UTF-8) to ``path`` the way every output is written (:func:`output_path`)."""
    with output_path(path, inputs=inputs, force=force) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")


class OutputWriter:
    """Writes the output table chunk by chunk into a temp file, put in place by :meth:`close` (so ``path`` never
    holds a partial table; see :class:`Destination` for ``-``, devices, FIFOs, symlinks and ``inputs``);
    :meth:`abort` removes it. A context manager: leaving the block normally closes, an exception aborts (but an
    interruption keeps a ``partial`` temp file, for :mod:`kpqa.resume`).

    The format is the one the extension names (:func:`output_format`); its :class:`~kpqa.formats.Writer` says how.
    Chunks go to the temp file as delimited text (CSV, TSV) or as JSON lines (JSON lines, JSON, Parquet), which the
    format's ``finish`` converts on closing (JSON, Parquet). Delimited text: the first chunk fixes the header. When
    a later chunk brings new columns (JSONL input whose rows have more references further down), the file is
    rewritten at the end with all columns, ``last_columns`` (the metric columns) last, as the whole table would have
    been written."""

    def __init__(self, path: str | os.PathLike, last_columns: Sequence[str] = (), *, inputs: Iterable[Any] = (),
                 force: bool = False, partial: str | None = None, at: dict[str, Any] | None = None) -> None:
        self.path = path
        written = _format(path)
        writer = written.writer
        assert writer is not None  # _format gives a format that writes
        self.format = written.name
        self._destination = Destination(path, inputs=inputs, force=force)
        self._jsonl = writer.sep is None
        self._sep = writer.sep or ","
        #: how delimited text is written: quoted where needed (CSV), or never (TSV: its fields as they are)
        self._quoting: dict[str, Any] = {} if writer.quoted else {"quoting": csv.QUOTE_NONE, "quotechar": None}
        self._finish = writer.finish
        self._last = list(last_columns)
        self._columns: list[str] | None = None if at is None else at["columns"]
        self._reshape = False if at is None else at["reshape"]
        #: the temp file: a new one, or ``partial`` (a fixed name, kept for resuming: :mod:`kpqa.resume`), cut back to
        #: the position ``at`` (:meth:`position`) when carrying on from it
        self._tmp = self._destination.temp() if partial is None else partial
        self._partial = partial
        self._file = open(self._tmp, "w" if at is None else "r+", encoding="utf-8", newline="")
        if at is not None:
            self._file.truncate(at["size"])
            self._file.seek(at["size"])

    def position(self) -> dict[str, Any]:
        """Where the output stands, made durable first (flushed and synced): the temp file's size and the CSV header
        state, so that a writer made with ``at=`` carries on from here."""
        with self._errors():
            self._file.flush()
            os.fsync(self._file.fileno())
            return {"size": self._file.tell(), "columns": self._columns, "reshape": self._reshape}

    def keep_partial(self) -> None:
        """Close the temp file and leave it (a run to carry on later); ``path`` is left as it was."""
        self._file.close()

    @property
    def to_file(self) -> bool:
        """Whether the output is a regular file (not stdout, a device or a FIFO): one beside it can be written."""
        return self._destination.target is not None and not self._destination.special

    def write(self, frame: pd.DataFrame) -> None:
        """Append the rows of ``frame``."""
        with self._errors():
            frame = list_cells(frame, self._jsonl)
            if self._jsonl:
                frame.to_json(self._file, orient="records", lines=True, force_ascii=False)
                return
            if self._quoting:
                self._check_unquoted(frame)
            if self._columns is None:
                self._columns = list(frame.columns)
                frame.to_csv(self._file, index=False, sep=self._sep, **self._quoting)
                return
            new = [c for c in frame.columns if c not in self._columns]
            if new:
                self._columns += new
                self._reshape = True
            frame.reindex(columns=self._columns).to_csv(self._file, index=False, header=False, sep=self._sep,
                                                        **self._quoting)

    def _check_unquoted(self, frame: pd.DataFrame) -> None:
        """InputError naming the first cell (or column name) that unquoted delimited text cannot hold: one with the
        separator or a line break."""
        bad = (self._sep, "\n", "\r")
        for name in frame.columns:
            if any(b in str(name) for b in bad):
                raise InputError(f"column name {name!r} holds a tab or a line break, which a {self.format.upper()} "
                                 "field cannot hold (it has no quoting): write .csv or .jsonl", file=str(self.path))
            for k, value in enumerate(frame[name]):
                if isinstance(value, str) and any(b in value for b in bad):
                    raise InputError(f"text with a tab or a line break, which a {self.format.upper()} field cannot "
                                     "hold (it has no quoting): write .csv or .jsonl", file=str(self.path),
                                     row=k + 1, column=str(name))

    def close(self) -> None:
        """Finish the file, convert it to the output format and put it in place."""
        with self._errors():
            self._file.close()
            if self._reshape:
                self._rewrite()
            finish = self._finish
            if finish is not None:
                self._replace_with(lambda out: finish(self._tmp, out))
        self._destination.publish(self._tmp)

    def abort(self) -> None:
        """Drop the temp file; ``path`` is left as it was."""
        self._file.close()
        Path(self._tmp).unlink(missing_ok=True)

    def _replace_with(self, make: Callable[[str], None]) -> None:
        """Rewrite the temp file: ``make(new)`` writes the new content, which then takes the temp file's place."""
        fd, tmp = tempfile.mkstemp(prefix=Path(self._tmp).name, suffix=".tmp", dir=Path(self._tmp).parent)
        os.close(fd)
        try:
            make(tmp)
            os.replace(tmp, self._tmp)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _rewrite(self) -> None:
        assert self._columns is not None
        columns = [c for c in self._columns if c not in self._last] + [c for c in self._last if c in self._columns]

        def make(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                header = True
                # the file's own header names only the first chunk's columns; the rows carry all of them
                reader = pd.read_csv(self._tmp, dtype=str, keep_default_na=False, na_filter=False, header=None,
                                     names=self._columns, skiprows=1, chunksize=10_000, sep=self._sep,
                                     **self._quoting)
                with reader:
                    for chunk in reader:
                        chunk[columns].to_csv(f, index=False, header=header, sep=self._sep, **self._quoting)
                        header = False

        self._replace_with(make)

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except OSError as e:
            self.abort()
            raise InputError(f"cannot write output: {e.strerror or e}", file=str(self.path)) from None
        except BaseException as e:
            self._stop(e)
            raise

    def _stop(self, error: BaseException) -> None:
        """On ``error``: keep the temp file when it is a ``partial`` one and the run was interrupted, else drop it."""
        if isinstance(error, KeyboardInterrupt) and self._tmp == self._partial:
            self.keep_partial()
        else:
            self.abort()

    def __enter__(self) -> "OutputWriter":
        return self

    def __exit__(self, kind: type | None, error: BaseException | None, *_: Any) -> None:
        if error is None:
            self.close()
        else:
            self._stop(error)


def list_cells(frame: pd.DataFrame, json_lines: bool) -> pd.DataFrame:
    """``frame`` with its list cells (lists, tuples, numpy arrays: a ``references`` column) as lists in JSON
    lines, and as JSON list text in CSV / TSV (as the input takes them)."""
    out = frame
    for column in frame.columns:
        values = frame[column]
        if values.dtype != object or not values.map(lambda v: isinstance(v, (list, tuple, np.ndarray))).any():
            continue
        as_list = values.map(lambda v: v.tolist() if isinstance(v, np.ndarray) else list(v)
                             if isinstance(v, tuple) else v)
        out = out.copy() if out is frame else out
        out[column] = as_list if json_lines else as_list.map(
            lambda v: json.dumps(v, ensure_ascii=False) if isinstance(v, list) else v)
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_output(frame: pd.DataFrame, path: str | os.PathLike, *, inputs: Iterable[Any] = (),
                 force: bool = False) -> None:
    """Write ``frame`` in the format ``path`` names, the way every output is written (:class:`OutputWriter`)."""
    with OutputWriter(path, inputs=inputs, force=force) as out:
        out.write(frame)
