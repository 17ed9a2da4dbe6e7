"""The ``kpqa`` command: one module per subcommand (``kpqa.cli.score``, ``metrics``, ``train``, ``meta_eval``,
``explain``, ``calibrate``, ``report``, ``compare``), each parsing its flags and calling a library function an API
user can call too; the options they share and the one :class:`~kpqa.context.ScorerOptions` their flags make are
:mod:`kpqa.cli.common`'s.

Errors the user can fix print one line (``kpqa: error: ...``) and exit 2; anything else prints one line and exits 1
(set ``KPQA_DEBUG=1`` for the traceback).
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import warnings
from typing import Callable, Sequence

from kpqa.cli import calibrate, compare, explain, meta_eval, metrics, report, score, train
from kpqa.cli.common import pause_collection, resume_collection
from kpqa.cli.train import RENAMED, TRAINERS
from kpqa.errors import KpqaError, KpqaWarning
from kpqa.version import __version__

#: every subcommand, in the order ``kpqa --help`` lists them: each module's ``add`` adds its parser (and the
#: function it runs); a new subcommand is a module and its line here
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    score.add, metrics.add, train.add, meta_eval.add, explain.add, calibrate.add, report.add, compare.add,
]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (one subparser per subcommand)."""
    parser = argparse.ArgumentParser(
        prog="kpqa",
        description="Judge generated answers to questions with keyphrase-weighted metrics (KPQA), their lexical "
        "baselines, Yang et al.'s adapted BLEU/ROUGE and Soricut & Brill's AEv.",
    )
    parser.add_argument("--version", action="version", version=f"kpqa {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def flags_of(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each parameter a parser (and its subcommands) sets -> its flag: library messages name parameters
    (:class:`kpqa.errors.Param`), the command line says the flag (``--device cuda``, ``--decide``), or a positional
    argument's name in capitals (``INPUT``)."""
    flags: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                flags.update({k: v for k, v in flags_of(subparser).items() if k not in flags})
        elif action.option_strings:
            flags.setdefault(action.dest, max(action.option_strings, key=len))
        elif action.dest != argparse.SUPPRESS:  # a positional: as the usage line says it (INPUT)
            flags.setdefault(action.dest, str(action.metavar or action.dest).upper())
    return flags


def _train_flags() -> dict[str, str]:
    """The trainer's flags, once it has been imported (its errors are then possible)."""
    flags: dict[str, str] = {}
    for _, _, module in TRAINERS.values():
        if module in sys.modules:
            flags.update(flags_of(sys.modules[module].build_parser()))
    return flags


def _said(message: Warning | KpqaError, flags: dict[str, str]) -> str:
    """A library message in the command line's words."""
    return message.render(flags) if isinstance(message, (KpqaError, KpqaWarning)) else str(message)


_default_showwarning = warnings.showwarning


def _inputs_exist(args: argparse.Namespace) -> None:
    """The files a command reads (INPUT, its list, --answers / --references / --questions) checked to exist before
    the command imports what it needs (seconds)."""
    from kpqa.errors import check_file

    for name in ("input", "inputs", "answer_files", "reference_files", "question_file"):
        value = getattr(args, name, None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str) and path != "-":
                check_file(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kpqa`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in RENAMED:
        print(f"kpqa: warning: `kpqa {argv[0]}` is deprecated and will be removed in the next release; use "
              f"`kpqa {RENAMED[argv[0]]}` (the same command)", file=sys.stderr)
        argv = [RENAMED[argv[0]], *argv[1:]]
    parser = build_parser()
    if argv[:1] and argv[0] in TRAINERS:  # its options (and --help) belong to the trainer's own parser
        resume_collection()
        run: Callable[[], int] = lambda: train.run(argv[1:], argv[0])
    else:
        args = parser.parse_args(argv)

        def run() -> int:
            _inputs_exist(args)
            if not getattr(args, "resumes_collection", False):  # a command that loads first resumes it itself
                resume_collection()
            return args.run(args)
    flags = flags_of(parser)

    def show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        """Library warnings as one line each (``kpqa: warning: ...``), in the command line's words."""
        if issubclass(category, KpqaWarning):
            print(f"kpqa: warning: {_said(message, {**_train_flags(), **flags})}", file=sys.stderr)
        else:
            _default_showwarning(message, category, filename, lineno, file, line)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", KpqaWarning)
            warnings.showwarning = show_warning
            return run()
    except KpqaError as e:
        print(f"kpqa: error: {_said(e, {**_train_flags(), **flags})}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("kpqa: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # one line, not a traceback, unless asked
        if os.environ.get("KPQA_DEBUG"):
            raise
        print(f"kpqa: internal error: {type(e).__name__}: {e} (set KPQA_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


def console() -> int:
    """The ``kpqa`` console script and ``python -m kpqa``: :func:`main` in a process of its own. The garbage
    collector is paused while the command imports and loads (:func:`~kpqa.cli.common.pause_collection`; ``kpqa
    score`` resumes it once its models are loaded, the others before they run), and once the command is done the
    objects it made are frozen out of it (:func:`gc.freeze`): the interpreter's last collection would otherwise walk
    every object torch and transformers made, about 1 s after a scoring run (docs/benchmark.md), to free memory the
    exit frees anyway."""
    pause_collection()
    code = main()
    gc.freeze()
    return code
