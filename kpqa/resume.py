"""Scoring that survives interruption: the finished chunks of a run writing a file are kept beside it, and the same
run started again carries on where it stopped, with the same final output.

Two files beside the output ``NAME``: ``.NAME.partial``, the output so far (the :class:`~kpqa.output.OutputWriter`'s
temp file, given a fixed name), and ``.NAME.resume.json``, where the run stands: a digest of what makes the run
(:func:`run_key`: the input file's path, size and modification time, the output format, the chunk size, the
columns and their signatures, the calibration and its prior), the :class:`~kpqa.stream.Accumulator`'s state and the
partial file's durable position. The state is rewritten (atomically) after every chunk, once the chunk is on disk,
so a killed process (SIGKILL) loses at most the chunk in flight; Ctrl-C keeps the finished chunks the same way. A run
whose key matches a saved state skips the chunks done (a corpus pass still reads the whole input), cuts the partial
file back to its durable position and goes on; the files go when the output is in place.
"""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from kpqa.errors import KpqaWarning, Param, UsageError
from kpqa.output import STDOUT, OutputWriter, output_format
from kpqa.stream import Accumulator

if TYPE_CHECKING:  # pragma: no cover
    from kpqa.plan import Plan
    from kpqa.scoring import Scorer

#: the file beside the output that says where an interrupted run stands
STATE_SUFFIX = ".resume.json"
#: the output so far of an interrupted run (the writer's temp file)
PARTIAL_SUFFIX = ".partial"


def run_key(source: Any, output: str | os.PathLike, chunk_rows: int, settings: dict[str, Any]) -> str:
    """A digest of what makes a run's output: the input file (path, size, modification time), the output's format,
    the chunk size and ``settings`` (JSON-ready: the scorer's columns, signatures, calibration...)."""
    stat = os.stat(source)
    made = {"input": os.path.realpath(source), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "format": output_format(output), "chunk_rows": chunk_rows, **settings}
    return hashlib.sha256(json.dumps(made, sort_keys=True, default=str).encode()).hexdigest()


class Resume:
    """The kept chunks of a run writing ``output`` (a regular file): :meth:`writer` writes into ``.NAME.partial``,
    :meth:`save` records each finished chunk, :meth:`accumulator` is the state to carry on from (None: a new run),
    :meth:`drop` removes both files once the output is in place (or the run failed)."""

    def __init__(self, output: str | os.PathLike, key: str, required: bool = False) -> None:
        target = Path(os.path.realpath(output))
        self.partial = target.parent / f".{target.name}{PARTIAL_SUFFIX}"
        self.state = target.parent / f".{target.name}{STATE_SUFFIX}"
        self.key = key
        self.rows = 0  # rows of the input done (kept in the partial file)
        self.found = self._saved()
        if self.found is None and required:
            raise UsageError("no interrupted run of this command to carry on for ", Param("output", str(output)))
        if self.found is not None:
            self.rows = self.found["run"]["rows"]

    @classmethod
    def of(cls, output: str | os.PathLike | None, key: str, required: bool = False) -> "Resume | None":
        """The kept chunks of ``output``'s run when ``output`` is a regular file (None for stdout, a device or a
        FIFO, where nothing can be kept; a :class:`UsageError` when ``required``)."""
        if output is not None and str(output) != STDOUT and (not Path(output).exists() or Path(output).is_file()):
            return cls(output, key, required)
        if required:
            raise UsageError("carrying on an interrupted run needs an output file (", Param("output"), ")")
        return None

    @classmethod
    def for_scorer(cls, scorer: "Scorer", plan: "Plan", source: Any, output: str | os.PathLike | None,
                   chunk_rows: int, required: bool = False) -> "Resume | None":
        """The kept chunks of an interrupted run of ``scorer`` over the file ``source`` into ``output``, ``chunk_rows``
        rows at a time (:meth:`Scorer.score_file`'s ``run`` and ``done``): its key (:func:`run_key`) holds the
        input file, the output's format, the chunk size and what the scorer writes (its columns and their signatures,
        ``on_error``, ``max_chars``, the calibration's digest and the prior, the input's column names). None where a
        run cannot be carried on: no output file, several processes, a ``source`` that is not a file (None: texts
        given otherwise); then a :class:`UsageError` when ``required``. ``plan``: what the input settles
        (:meth:`Scorer.plan_for`): the columns and signatures depend on it."""
        if not output or scorer.parallel.world > 1 or source is None or not os.path.isfile(source):
            if required:
                raise UsageError(Param("resume", True), ": only a run of one process from an input file to an output "
                                 "file (", Param("output"), ") can be carried on")
            return None
        cal = scorer.calibration
        settings = {"columns": scorer.columns(plan), "signatures": scorer.signatures(plan), "on_error": scorer.on_error,
                    "max_chars": scorer.max_chars, "calibration": cal.digest if cal else None, "prior": scorer.prior,
                    **({"input_columns": scorer.fields} if scorer.fields else {})}
        return cls.of(output, run_key(source, output, chunk_rows, settings), required)

    def _saved(self) -> dict[str, Any] | None:
        """The saved state of this run (its key matches and its partial file holds what it says), else None; a
        state of another run is replaced, with a warning."""
        if not self.state.exists():
            return None
        try:
            saved = json.loads(self.state.read_text(encoding="utf-8"))
            ok = saved["key"] == self.key and self.partial.stat().st_size >= saved["at"]["size"]
        except (OSError, ValueError, KeyError, TypeError):
            ok = False
        if ok:
            return dict(saved)
        warnings.warn(KpqaWarning(f"{self.state} holds an interrupted run of another input or other settings: "
                                  "starting over"), stacklevel=3)
        return None

    def writer(self, output: str | os.PathLike, last_columns: Iterable[str], *, inputs: Iterable[Any] = (),
               force: bool = False) -> OutputWriter:
        """The output's writer: into the partial file, carrying on from its saved position when there is one."""
        return OutputWriter(output, list(last_columns), inputs=inputs, force=force, partial=str(self.partial),
                            at=None if self.found is None else self.found["at"])

    def accumulator(self) -> Accumulator | None:
        """The scoring state to carry on from (None: start from the first chunk)."""
        return None if self.found is None else Accumulator.of_state(self.found["run"])

    def save(self, writer: OutputWriter, run: Accumulator) -> None:
        """Record a finished chunk: the output made durable first, then the state replaced atomically."""
        record = {"key": self.key, "at": writer.position(), "run": run.state()}
        tmp = self.state.with_name(self.state.name + ".tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, self.state)
        self.rows = run.rows

    def drop(self) -> None:
        """Remove the state and the partial file (the output is in place, or the run failed)."""
        self.state.unlink(missing_ok=True)
        self.partial.unlink(missing_ok=True)
