"""``python -m experiments.generators.swaps``: wrong answers made from people's right ones (issue 53), for training and checking
the answer-equivalence model on the swap property (a fluent answer whose key fact is another one is wrong).

In an answer people labelled right (``scores`` 1), the key span is found and every occurrence of it (whole words,
case-insensitive) is replaced by another question's answer of the same type, which makes a wrong answer in the
right answer's own words (label 0):

- **short references** (at most :data:`SHORT_WORDS` words, and :data:`OTHER_WORDS` unless a year, date, number or
  name; not opening with yes / no): every reference the answer holds
  as whole words is a span (the longest first, none overlapping); all of them are replaced by the one new value;
- **sentence references** (TruthfulQA's): a key span is a year, a date, a number (digits or a number word from two
  up) or a capitalised name (a run of capitalised words, particles inside allowed, leading function words dropped;
  a one-word name must be capitalised somewhere other than at a sentence's start, so that "Nothing happens" holds
  no name) that the answer and one of the references both hold as whole words; the first such span in the answer is
  replaced (and every other occurrence of it).

A span that the question holds (as whole words) is never a key span: it is the question's frame, not its answer.
The type (:func:`kpqa.train.contrastive.build.span_type`: ``year``, ``date``, ``number``, ``name``; else ``other``)
picks the pool of replacements: the key spans of the other questions' rows. A replacement never equals, holds or
is held in any of the row's references, nor the span it replaces (case-insensitive), and a result that still holds
a reference as whole words is dropped. Every choice is seeded per row (``--seed``, the file's name and the data
row), so the output depends on the files and the seed only.

The output is a CSV in the human-judgment layout: ``question, answer, reference1..N`` (the row's references),
``scores`` (0), ``kind`` (``swap``), ``source_row`` (``FILE:ROW``, the file's name and its 1-based data row, as
``kpqa train-equivalence --folds`` names rows), ``span``, ``replacement``, ``span_type``. A swap keeps its source's
question, so hash folds by question (:func:`kpqa.train.equivalence.fold_of`) put it in its source row's fold.

    python -m experiments.generators.swaps --data nq.csv --data tq.csv --data truthfulqa.csv --out runs/swaps.csv
"""
from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kpqa.errors import KpqaError
from kpqa.numbers import SMALL, TENS, YEAR, months_pattern
from kpqa.stopwords import FUNCTION_WORDS

from kpqa.train.contrastive.build import span_type
from kpqa.train.equivalence import Example, read_examples

#: the types a span is swapped within (``other``: a short reference of none of the first four)
TYPES = ("year", "date", "number", "name", "other")
#: the most words of a reference that is an answer span (a longer one is a sentence)
SHORT_WORDS = 5
#: the most words of a short reference of none of the four types (``other``)
OTHER_WORDS = 3
#: references that are not swapped (a polar answer's flip is the contrastive answers' job)
POLAR = frozenset({"yes", "no", "true", "false"})
_MONTH = months_pattern(abbreviated=True, dot=True)
_DATE = re.compile(rf"\b(?:(?:{_MONTH}) \d{{1,2}}(?:st|nd|rd|th)?(?:, \d{{4}})?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?"
                   rf"(?:{_MONTH})(?:,? \d{{4}})?|(?:{_MONTH}),? \d{{4}})(?!\w)")
_YEAR = re.compile(rf"(?<![\w.,])(?:{YEAR})s?(?![\w.]\d|\w)")
_NUMBER = re.compile(r"(?<![\w.,])\d(?:[\d,]*\d)?(?:\.\d+)?(?![\w]|[.,]\d)|\b(?:" + "|".join((*SMALL[2:], *TENS)) + r")\b",
                     re.IGNORECASE)
_CAP_WORD = r"[A-Z][\w'’.-]*"
_PARTICLES = "of|the|and|de|la|von|van|du|del|da"
_NAME = re.compile(rf"{_CAP_WORD}(?:\s+(?:(?:{_PARTICLES})\s+)*{_CAP_WORD})*")


@dataclass(frozen=True)
class Span:
    """A key span of a right answer: its text as the answer writes it, and its type (:data:`TYPES`)."""

    text: str
    type: str


def whole(text: str, needle: str) -> list[tuple[int, int]]:
    """The (start, end) of each occurrence of ``needle`` in ``text`` as whole words, case-insensitive."""
    if not needle.strip():
        return []
    return [m.span() for m in re.finditer(rf"(?<!\w){re.escape(needle)}(?!\w)", text, re.IGNORECASE)]


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def is_short(reference: str) -> bool:
    """A reference that is an answer span (a few words), not a sentence."""
    return 0 < len(reference.split()) <= SHORT_WORDS


def _mid_sentence(name: str, texts: Sequence[str]) -> bool:
    """Whether one of ``texts`` writes ``name`` (case-sensitive, whole words) other than at a sentence's start."""
    for text in texts:
        for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
            before = text[:m.start()].rstrip(" \t\n\"'“‘(")
            if before and before[-1] not in ".!?:;":
                return True
    return False


def _answer_like(reference: str) -> bool:
    """A short reference that is an answer span: not empty, not opening with a polar word ("No, unicorns were
    never caught" is a sentence), and of a type or at most :data:`OTHER_WORDS` words."""
    words = _norm(reference).split()
    return bool(words) and words[0] not in POLAR and (span_type(reference) is not None or len(words) <= OTHER_WORDS)


def _names(text: str) -> list[str]:
    """The capitalised names of ``text``: runs of capitalised words, leading function words and trailing dots
    dropped (``The Mona Lisa`` -> ``Mona Lisa``)."""
    out = []
    for m in _NAME.finditer(text):
        words = m.group().split()
        while words and words[0].lower() in FUNCTION_WORDS:
            words = words[1:]
        name = " ".join(words).rstrip(".")
        if name and name.lower() not in FUNCTION_WORDS and name.lower() not in POLAR:
            out.append(name)
    return out


def sentence_spans(answer: str, references: Sequence[str] = ()) -> list[Span]:
    """The candidate key spans of ``answer`` in the order they occur: dates, years, numbers, capitalised names (a
    span inside an earlier-typed one is skipped: the year of a date is the date's)."""
    found: list[tuple[int, int, Span]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in (("date", _DATE), ("year", _YEAR), ("number", _NUMBER)):
        for m in pattern.finditer(answer):
            s, e = m.span()
            if not any(s < te and ts < e for ts, te in taken):
                found.append((s, e, Span(m.group().rstrip("."), kind)))
                taken.append((s, e))
    for name in _names(answer):
        if " " not in name and not _mid_sentence(name, [answer, *references]):
            continue
        for s, e in whole(answer, name):
            if not any(s < te and ts < e for ts, te in taken):
                found.append((s, e, Span(answer[s:e], "name")))
                taken.append((s, e))
    return [span for _, _, span in sorted(found, key=lambda t: t[:2])]


def key_spans(question: str, answer: str, references: Sequence[str]) -> list[Span]:
    """The spans of ``answer`` a swap replaces (module docstring): the short references it holds, longest first,
    or else the first sentence span shared with a reference; none that the question holds."""
    def framed(text: str) -> bool:
        return bool(whole(question, text))

    short = sorted({r.strip() for r in references if is_short(r) and _answer_like(r)}, key=lambda r: (-len(r), r))
    spans: list[Span] = []
    taken: list[tuple[int, int]] = []
    for ref in short:
        free = [(s, e) for s, e in whole(answer, ref) if not any(s < te and ts < e for ts, te in taken)]
        if free and not framed(ref):  # ("Tolkien" beside "J. R. R. Tolkien": its own occurrences)
            s, e = free[0]
            spans.append(Span(answer[s:e], span_type(ref) or "other"))
            taken.extend(free)
    if spans:
        return spans
    sentences = [r for r in references if not is_short(r)]
    for span in sentence_spans(answer, sentences):
        if not framed(span.text) and any(whole(r, span.text) for r in sentences):
            return [span]
    return []


def allowed(replacement: str, references: Sequence[str], spans: Sequence[Span]) -> bool:
    """Whether ``replacement`` may stand for ``spans``: it neither equals, holds nor is held in any reference or
    span (normalised: lower case, punctuation as spaces)."""
    new = _norm(replacement)
    if not new:
        return False
    for text in (*references, *(s.text for s in spans)):
        old = _norm(text)
        if old and (new == old or f" {new} " in f" {old} " or f" {old} " in f" {new} "):
            return False
    return True


def replace_whole(text: str, old: str, new: str) -> str:
    """``text`` with every whole-word occurrence of ``old`` (case-insensitive) replaced by ``new``."""
    return re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", lambda _: new, text, flags=re.IGNORECASE)


def swap_answer(answer: str, spans: Sequence[Span], replacement: str) -> str:
    """``answer`` with every occurrence of each span (whole words, case-insensitive) replaced by ``replacement``."""
    out = answer
    for span in spans:
        out = replace_whole(out, span.text, replacement)
    return out


def _rng(seed: int, example: Example) -> random.Random:
    digest = hashlib.sha256(f"{seed}|{Path(example.source).name}|{example.row}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def make_swaps(examples: Sequence[Example], seed: int = 13, tries: int = 50) -> list[dict[str, object]]:
    """The swapped rows (one per right answer with a key span and an allowed replacement), as dicts of the output's
    columns less the references (``references``: the row's list)."""
    found = [(e, key_spans(e.question, e.candidate, e.references)) for e in examples if e.label == 1]
    pools: dict[str, dict[str, tuple[str, set[str]]]] = defaultdict(dict)  # type -> norm -> (text, questions)
    for e, spans in found:
        for span in spans:
            text, questions = pools[span.type].setdefault(_norm(span.text), (span.text, set()))
            questions.add(e.question)
    pool = {kind: sorted(values.values(), key=lambda v: v[0]) for kind, values in pools.items()}
    out: list[dict[str, object]] = []
    for e, spans in found:
        if not spans:
            continue
        rng = _rng(seed, e)
        options = pool[spans[0].type]
        for k in rng.sample(range(len(options)), min(tries, len(options))):
            text, questions = options[k]
            if questions != {e.question} and allowed(text, e.references, spans):
                swapped = swap_answer(e.candidate, spans, text)
                if swapped != e.candidate and not any(whole(swapped, r) for r in e.references):
                    out.append({"question": e.question, "answer": swapped, "references": list(e.references),
                                "scores": 0, "kind": "swap", "source_row": f"{Path(e.source).name}:{e.row}",
                                "span": spans[0].text, "replacement": text, "span_type": spans[0].type})
                break
    return out


def write_swaps(rows: Sequence[dict[str, object]], path: str | Path) -> None:
    """The rows as a CSV in the human-judgment layout (module docstring), written as every kpqa output is."""
    import pandas as pd

    from kpqa.output import write_output

    width = max((len(r["references"]) for r in rows), default=1)  # type: ignore[arg-type]
    refs = [f"reference{i + 1}" for i in range(width)]
    columns = ["question", "answer", *refs, "scores", "kind", "source_row", "span", "replacement", "span_type"]
    records = [{**{k: v for k, v in r.items() if k != "references"},
                **dict(zip(refs, [*r["references"], *[""] * width]))} for r in rows]  # type: ignore[misc]
    write_output(pd.DataFrame(records, columns=columns), path)


def build_parser() -> argparse.ArgumentParser:
    """The command's options."""
    p = argparse.ArgumentParser(prog="python -m experiments.generators.swaps", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", action="append", required=True, metavar="CSV",
                   help="labelled answers in the human-judgment layout (repeatable)")
    p.add_argument("--out", required=True, metavar="CSV", help="the swapped rows")
    p.add_argument("--seed", type=int, default=13)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Read ``--data``, write the swaps to ``--out``, print their counts by file and type."""
    args = build_parser().parse_args(argv)
    examples = [e for path in args.data for e in read_examples(path)]
    rows = make_swaps(examples, args.seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_swaps(rows, args.out)
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        counts[f"{str(r['source_row']).rsplit(':', 1)[0]} {r['span_type']}"] += 1
    print(f"{args.out}: {len(rows)} swaps of {sum(e.label for e in examples)} right answers")
    print("  " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    return 0


def command(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Run a generator's ``main``: an input it cannot read (a missing file, one with no rows or a bad cell) is one
    line on stderr and the error's exit status (2), as for ``kpqa``'s commands, not a traceback."""
    try:
        return main(argv)
    except KpqaError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code


if __name__ == "__main__":
    sys.exit(command(main))
