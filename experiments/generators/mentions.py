"""``python -m experiments.generators.mentions``: answers that name the right value without asserting it, and the
opposite side (issue 59). A lexical metric credits an answer for holding the reference's words; people credit
what it asserts. Three kinds, each made from one answer people labelled right (``scores`` 1):

``mention`` (both sides)
  the key span X and another question's value Y of the same type (as :mod:`experiments.generators.swaps` picks
  it) framed as a claim and a rejected alternative, the same frames on both sides: the right row asserts X and
  rejects Y ("Some sources give 1776, but that is not so. The Berlin Wall fell in 1989."), the wrong row asserts
  Y and rejects X (the answer swapped, "... 1989, but that is not so. The Berlin Wall fell in 1776.").
``hedge`` (wrong)
  X and Y offered as equals, none chosen ("It is either 1989 or 1776; sources disagree.").
``role-swap`` (wrong)
  two names of the answer exchanged around the words between them ("England beat West Germany 4-2." ->
  "West Germany beat England 4-2."), one of them the key span, when those words are 1-6 and hold no symmetric
  link (``and``, ``with``, ``married``: :data:`SYMMETRIC`).

Every choice is seeded per row (``--seed``, the file's name and the data row); a row keeps its source's question,
so hash folds by question (:func:`kpqa.folds.fold_of`) put it in its source's fold. The output has the layout of
:mod:`experiments.generators.swaps`.

    python -m experiments.generators.mentions --data nq.csv --data tq.csv --data truthfulqa.csv \\
        --squad ../shared/data/squad/train-v1.1.json --squad-questions 20000 --out runs/mentions.csv
"""
from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from kpqa.train.equivalence import Example, read_examples
from experiments.generators.nearmiss import _row, source_parser, squad_examples
from experiments.generators.swaps import (Span, _names, _norm, allowed, command, key_spans, swap_answer, whole,
                                         write_swaps)

KINDS = ("mention", "hedge", "role-swap")
#: frames of a claim ``{answer}`` and a rejected alternative ``{alt}``; sentence breaks keep the answer's case
FRAMES = (
    "Many people believe it is {alt}. That is a common mistake. {answer}",
    "Some sources give {alt}, but that is not so. {answer}",
    "{answer} It is often confused with {alt}, which is wrong.",
    "{answer} (Not {alt}, as is sometimes claimed.)",
    "You might expect {alt}. In fact: {answer}",
    "The answer is not {alt}. {answer}",
    "{alt} is a popular guess, and a wrong one. {answer}",
    "Contrary to the common claim of {alt}: {answer}",
)
HEDGES = (
    "It is either {a} or {b}; sources disagree.",
    "Some say {a}, others say {b}. It is hard to pick just one.",
    "I am not sure whether it is {a} or {b}.",
    "Possibly {a}, possibly {b}: I cannot say for certain.",
)
#: words between two names that make the link symmetric, so that exchanging the names keeps the meaning
SYMMETRIC = frozenset("and or & with vs vs. versus between among alongside married wed met dated joined played "
                      "faced fought drew tied partnered collaborated also too".split())
#: the key span types whose names are exchanged (not a date, year or number)
NAMED = frozenset({"name", "other"})
#: the longest answer (in words) whose names are exchanged
ROLE_WORDS = 40


def _rng(seed: int, source: str, row: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}|mentions|{Path(source).name}|{row}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def role_swap(answer: str, key: str) -> str | None:
    """``answer`` with ``key`` and the nearest other name exchanged, when the words between them are 1-6 and none
    is in :data:`SYMMETRIC`; None when there is no such name."""
    if len(answer.split()) > ROLE_WORDS:
        return None
    at = whole(answer, key)
    if len(at) != 1:
        return None
    ks, ke = at[0]
    for name in _names(answer):
        spots = whole(answer, name)
        if len(spots) != 1 or _norm(name) == _norm(key):
            continue
        ns, ne = spots[0]
        if ns < ke and ks < ne:
            continue
        (s1, e1), (s2, e2) = sorted([(ks, ke), (ns, ne)])
        between = answer[e1:s2]
        words = [w.lower() for w in re.findall(r"[\w&.]+", between)]
        if not 1 <= len(words) <= 6 or any(w in SYMMETRIC for w in words) or re.search(r"[,;:()]", between):
            continue
        return answer[:s1] + answer[s2:e2] + between + answer[s1:e1] + answer[e2:]
    return None


def _pool(found: Sequence[tuple[Example, list[Span]]]) -> dict[str, list[tuple[str, set[str]]]]:
    pools: dict[str, dict[str, tuple[str, set[str]]]] = defaultdict(dict)
    for e, spans in found:
        for span in spans:
            pools[span.type].setdefault(_norm(span.text), (span.text, set()))[1].add(e.question)
    return {kind: sorted(values.values(), key=lambda v: v[0]) for kind, values in pools.items()}


def make_mentions(examples: Sequence[Example], seed: int = 13, tries: int = 50) -> list[dict[str, object]]:
    """The rows of every right answer (module docstring): at most one of each kind and side."""
    found = [(e, key_spans(e.question, e.candidate, e.references)) for e in examples if e.label == 1]
    pool = _pool(found)
    out: list[dict[str, object]] = []
    for e, spans in found:
        if not spans:
            continue
        rng = _rng(seed, e.source, e.row)
        key = spans[0]
        other = None
        options = pool[key.type]
        for k in rng.sample(range(len(options)), min(tries, len(options))):
            text, questions = options[k]
            if questions != {e.question} and allowed(text, e.references, spans):
                other = text
                break
        if other is not None:
            swapped = swap_answer(e.candidate, spans, other)
            if swapped != e.candidate and not any(whole(swapped, r) for r in e.references if r.strip()):
                frame = rng.choice(FRAMES)
                out.append(_row(e, frame.format(answer=e.candidate, alt=other), 1, "mention", key.text, other))
                out.append(_row(e, frame.format(answer=swapped, alt=key.text), 0, "mention", key.text, other))
            a, b = (key.text, other) if rng.random() < 0.5 else (other, key.text)
            out.append(_row(e, rng.choice(HEDGES).format(a=a, b=b), 0, "hedge", key.text, other))
        exchanged = role_swap(e.candidate, key.text) if key.text[:1].isupper() and key.type in NAMED else None
        if exchanged is not None and exchanged != e.candidate:
            out.append(_row(e, exchanged, 0, "role-swap", key.text))
    return out


def build_parser() -> argparse.ArgumentParser:
    """The command's options."""
    return source_parser("experiments.generators.mentions", __doc__)


def main(argv: Sequence[str] | None = None) -> int:
    """Read the sources, write the rows to ``--out``, print their counts by kind and side."""
    args = build_parser().parse_args(argv)
    examples = [e for path in args.data for e in read_examples(path)]
    if args.squad:  # the answer sentence as the right answer, against itself and the SQuAD answer as references
        made = squad_examples(args.squad, args.squad_questions, args.seed)
        examples += [Example(s.question, [s.candidate, a.candidate], s.candidate, 1, "", s.question, s.source, s.row)
                     for s, a in zip(made[::2], made[1::2])]
    if not examples:
        print("no --data or --squad rows", file=sys.stderr)
        return 2
    rows = make_mentions(examples, args.seed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_swaps(rows, args.out)
    counts = Counter((str(r["kind"]), int(r["scores"])) for r in rows)  # type: ignore[call-overload]
    print(f"{args.out}: {len(rows)} rows from {sum(e.label for e in examples)} right answers")
    print("  " + ", ".join(f"{k} {'right' if s else 'wrong'} {n}" for (k, s), n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(command(main))
