"""``python -m experiments.generators.nearmiss``: near misses made from people's right answers (issue 59), for training and
checking the answer-equivalence model on the errors real systems make: one part of the key fact changed, the
sentence intact ("July 20, 1968" for "July 20, 1969"; "Vitamin D" for "Vitamin C"; "the Atlantic" where the
question asks "the Pacific or the Atlantic"). And the opposite side, so that no fix overshoots: right answers in
other words.

From each answer people labelled right (``scores`` 1; the human-judgment layout) and, with ``--squad``, from the
sentence of a SQuAD passage that holds a question's answer (that sentence is the reference, as a long reference
is in TruthfulQA), it makes at most one row of each kind:

wrong (``scores`` 0)
  ``year`` a year moved by 1-10 (or two digits swapped); ``date`` a day, a month or a date's year changed;
  ``number`` a number moved by a small step or a factor (the unit kept); ``name`` one word of a name of two or
  more words changed to make another name seen in the data (``Pacific Ocean`` -> ``Atlantic Ocean``, ``Vitamin
  C`` -> ``Vitamin D``); ``choice`` the question's other option (``A or B?``); ``negation`` a negation added to
  or removed from the answer's first auxiliary (at most :data:`NEGATION_WORDS` words); ``polar`` a leading yes /
  no / true / false flipped.
right (``scores`` 1)
  ``alias`` the reference the answer holds replaced by another of the row's references (an alias);
  ``restated`` the key value written another way (``3`` -> ``three``, ``1969`` -> ``in 1969``); ``other-words``
  a person's right answer that shares few words with every reference (token F1 under :data:`OTHER_WORDS_F1`),
  repeated so that training sees it beside the near misses; ``span`` (SQuAD) the bare answer against its sentence.

The key value of an answer is its key span (:func:`experiments.generators.swaps.key_spans`: a short reference the answer
holds, or a year, date, number or name that the answer shares with a sentence reference), never one the question
holds. A changed answer that still holds a reference (as whole words) or equals its source is dropped. Every
choice is seeded per row (``--seed``, the file's name and the data row), so the output depends on the files and
the seed only. A near miss keeps its source's question, so hash folds by question
(:func:`kpqa.train.equivalence.fold_of`) put it in its source row's fold.

The output is a CSV in the human-judgment layout, as :mod:`experiments.generators.swaps` writes: ``question, answer,
reference1..N, scores, kind, source_row, span, replacement, span_type``.

    python -m experiments.generators.nearmiss --data nq.csv --data tq.csv --data truthfulqa.csv \\
        --squad ../shared/data/squad/train-v1.1.json --squad-questions 3000 --out runs/nearmiss.csv
"""
from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from kpqa.numbers import SMALL, YEAR

from kpqa.train.contrastive.forms import AUX_NEGATIVE
from kpqa.train.contrastive.values import near, restate
from kpqa.train.equivalence import Example, read_examples
from experiments.generators.swaps import Span, _names, command, is_short, key_spans, replace_whole, whole, write_swaps

#: the kinds of near miss (label 0) and of right answer in other words (label 1)
WRONG_KINDS = ("year", "date", "number", "name", "choice", "negation", "polar")
RIGHT_KINDS = ("alias", "restated", "other-words", "span")
#: the longest answer (in words) whose first auxiliary is negated
NEGATION_WORDS = 30
#: the most words of a reference that is taken for an alias of another (longer ones are other answers)
ALIAS_WORDS = 3
#: a right answer whose token F1 with every reference is under this is in ``other words``
OTHER_WORDS_F1 = 0.34
_FLIP = {"yes": "no", "no": "yes", "true": "false", "false": "true"}
_POLAR_START = re.compile(r"^(\W*)(yes|no|true|false)\b", re.IGNORECASE)
_NEGATED = {neg: aux for aux, (short, full) in AUX_NEGATIVE.items() for neg in (short, full) if " " not in neg}
_AUX = re.compile(r"(?<![\w'’])(" + "|".join(sorted({*AUX_NEGATIVE, *_NEGATED}, key=len, reverse=True)) +
                  r")(?![\w'’])(\s+not\b)?", re.IGNORECASE)
_DETERMINER = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_CHOICE = re.compile(r"(?:^|[,:]\s*|\b(?:is|was|are|were|does|did|do|the)\s+)([^,?:]+?)\s+or\s+([^,?]+?)\s*\?*\s*$",
                     re.IGNORECASE)


def _rng(seed: int, source: str, row: int, salt: str = "") -> random.Random:
    digest = hashlib.sha256(f"{seed}|nearmiss|{Path(source).name}|{row}|{salt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def token_f1(a: str, b: str) -> float:
    """SQuAD's token F1 of two texts (lower case, word characters)."""
    x, y = _tokens(a), _tokens(b)
    common = sum((Counter(x) & Counter(y)).values())
    return 0.0 if not common else 2 * common / (len(x) + len(y))


class NameIndex:
    """Names of two or more words seen in the data, indexed by each of their words left out, so that a name's
    sibling (one word changed: ``Pacific Ocean`` / ``Atlantic Ocean``) is found."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.by_frame: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for text in texts:
            for name in _names(text):
                words = name.split()
                if 2 <= len(words) <= 4:
                    for i in range(len(words)):
                        frame = tuple(w.lower() if j != i else "*" for j, w in enumerate(words))
                        self.by_frame[frame].add(words[i])

    def siblings(self, name: str) -> list[tuple[str, str]]:
        """(old word, new word) pairs that turn ``name`` into another name seen in the data."""
        words = name.split()
        out: list[tuple[str, str]] = []
        for i, word in enumerate(words):
            frame = tuple(w.lower() if j != i else "*" for j, w in enumerate(words))
            out.extend((word, other) for other in sorted(self.by_frame.get(frame, ()))
                       if other.lower() != word.lower() and other[:1].isupper() == word[:1].isupper())
        return out


def _other_option(question: str, answer: str) -> tuple[str, str] | None:
    """(the option the answer holds, the question's other option) of an ``A or B?`` question, or None."""
    q = question.strip()
    m = _CHOICE.search(q)
    if not m or not q.endswith("?") or len(re.findall(r"\bor\b", q, re.IGNORECASE)) != 1:
        return None
    right = _DETERMINER.sub("", m.group(2).strip().rstrip("?. "))
    left_words = _DETERMINER.sub("", m.group(1).strip()).split()
    n = len(right.split())
    if not right or not 1 <= n <= 3 or len(left_words) < n or \
            any(w.lower() in ("the", "a", "an", "of") for w in right.split()[1:]):
        return None
    if len(left_words) > n and left_words[-n - 1].lower() in ("of", "the", "a", "an", "either", "called"):
        return None
    left = " ".join(left_words[-n:])
    holds_left, holds_right = bool(whole(answer, left)), bool(whole(answer, right))
    if holds_left == holds_right or left.lower() == right.lower():
        return None
    return (left, right) if holds_left else (right, left)


def negate(answer: str) -> str | None:
    """``answer`` with its first auxiliary's negation added or removed (``is`` -> ``is not``, ``isn't`` ->
    ``is``, ``does not`` -> ``does``), or None when it has none or is longer than :data:`NEGATION_WORDS` words."""
    if len(answer.split()) > NEGATION_WORDS:
        return None
    m = _AUX.search(answer)
    if not m:
        return None
    word, not_ = m.group(1), m.group(2)
    lower = word.lower()
    if lower in _NEGATED:  # isn't -> is
        new = _NEGATED[lower]
        new = new.capitalize() if word[:1].isupper() else new
        return answer[:m.start()] + new + answer[m.end(1):]
    if not_:  # is not -> is
        return answer[:m.end(1)] + answer[m.end():]
    if lower == "cannot":
        return None
    return answer[:m.end(1)] + " not" + answer[m.end(1):]


def _flip_polar(answer: str) -> str | None:
    m = _POLAR_START.match(answer)
    if not m:
        return None
    word = m.group(2)
    new = _FLIP[word.lower()]
    new = new.upper() if word.isupper() and len(word) > 1 else new.capitalize() if word[:1].isupper() else new
    rest = answer[m.end():]
    return answer[:m.start(2)] + new + (negate(rest) or rest)


def _value_kind(span: Span) -> str | None:
    if span.type in ("year", "date", "number"):
        return span.type
    if re.fullmatch(YEAR, span.text.strip()):
        return "year"
    if re.search(r"\d", span.text) or any(w in SMALL[2:13] for w in _tokens(span.text)):
        return "number"
    return None


def _row(e: Example, answer: str, label: int, kind: str, span: str = "", new: str = "") -> dict[str, object]:
    return {"question": e.question, "answer": answer, "references": list(e.references), "scores": label,
            "kind": kind, "source_row": f"{Path(e.source).name}:{e.row}", "span": span, "replacement": new,
            "span_type": kind}


def _holds_reference(text: str, references: Sequence[str]) -> bool:
    return any(whole(text, r.strip()) for r in references if is_short(r))


def near_misses(e: Example, names: NameIndex, seed: int = 13) -> list[dict[str, object]]:
    """The rows made from one right answer ``e`` (module docstring): at most one of each kind."""
    out: list[dict[str, object]] = []
    rng = _rng(seed, e.source, e.row)
    answer, refs = e.candidate, e.references
    spans = key_spans(e.question, answer, refs)

    def wrong(kind: str, new_answer: str | None, span: str = "", new: str = "") -> None:
        if new_answer and new_answer.strip() != answer.strip() and not _holds_reference(new_answer, refs) and \
                not any(r.strip().lower() == new_answer.strip().lower() for r in refs):
            out.append(_row(e, new_answer, 0, kind, span, new))

    if spans:
        span = spans[0]
        kind = _value_kind(span)
        if kind is not None:
            changed = near(span.text, rng)
            if changed and not any(whole(r, changed) for r in refs):
                wrong(kind, replace_whole(answer, span.text, changed), span.text, changed)
            spoken = restate(span.text, rng)
            if spoken and spoken.strip() != span.text.strip() and not whole(answer, spoken):
                out.append(_row(e, replace_whole(answer, span.text, spoken), 1, "restated", span.text, spoken))
        elif " " in span.text.strip():
            pairs = names.siblings(span.text.strip())
            if pairs:
                old, new = rng.choice(pairs)
                new_name = replace_whole(span.text, old, new)
                if not any(whole(r, new_name) for r in refs):
                    wrong("name", replace_whole(answer, span.text, new_name), span.text, new_name)
        held = [r for r in refs if is_short(r) and whole(answer, r.strip())]
        others = [r.strip() for r in refs if 0 < len(r.split()) <= ALIAS_WORDS and not whole(answer, r.strip())
                  and not whole(r, span.text) and not whole(span.text, r.strip())]
        if others and len(held) == 1 and len(span.text.split()) <= ALIAS_WORDS and \
                not re.search(r"\band\b", e.question, re.IGNORECASE):
            alias = rng.choice(others)
            aliased = replace_whole(answer, span.text, alias)
            if _tokens(aliased) != _tokens(answer):
                out.append(_row(e, aliased, 1, "alias", span.text, alias))
    option = _other_option(e.question, answer)
    if option is not None:
        wrong("choice", replace_whole(answer, option[0], option[1]), option[0], option[1])
    if _POLAR_START.match(answer):
        wrong("polar", _flip_polar(answer))
    else:
        wrong("negation", negate(answer))
    if refs and max(token_f1(answer, r) for r in refs) < OTHER_WORDS_F1:
        out.append(_row(e, answer, 1, "other-words"))
    return out


def squad_examples(path: str | Path, questions: int, seed: int = 13) -> list[Example]:
    """Right answers made from a SQuAD-layout file: for a seeded sample of ``questions`` questions, the passage's
    sentence that holds the first answer (the reference) and that sentence itself as the right answer."""
    from kpqa.train.sentences import sentence_bounds
    from kpqa.train.sources import read_json
    from kpqa.train.squad import records_from_json

    records = list(records_from_json(read_json(path), str(path)))
    rng = random.Random(f"{seed}|squad")
    out = []
    for k in sorted(rng.sample(range(len(records)), min(questions, len(records)))):
        r = records[k]
        if r.answer is None or r.answer_start is None:
            continue
        text, start = r.answer, r.answer_start
        for s, end in sentence_bounds(r.context):
            if s <= start < end:
                sentence = r.context[s:end].strip()
                if text in sentence and 5 <= len(sentence.split()) <= 40:
                    out.append(Example(r.question, [sentence], sentence, 1, "squad", r.question, str(path), k + 1))
                    out.append(Example(r.question, [sentence], text, 1, "span", r.question, str(path), k + 1))
                break
    return out


def make_near_misses(examples: Sequence[Example], seed: int = 13) -> list[dict[str, object]]:
    """Every right answer's rows, the SQuAD ``span`` rows kept as right answers of their own."""
    names = NameIndex(t for e in examples for t in (e.candidate, *e.references))
    out: list[dict[str, object]] = []
    for e in examples:
        if e.label != 1:
            continue
        if e.kind == "span":
            out.append(_row(e, e.candidate, 1, "span"))
            continue
        if e.kind == "squad":  # the sentence is its own reference: its key span is the SQuAD answer
            e = Example(e.question, e.references, e.candidate, 1, "", e.group, e.source, e.row)
        out.extend(near_misses(e, names, seed))
    return out


def source_parser(module: str, doc: str) -> argparse.ArgumentParser:
    """The options of a generator that reads people's right answers and SQuAD answer sentences (this one's and
    :mod:`experiments.generators.mentions`')."""
    p = argparse.ArgumentParser(prog=f"python -m {module}", description=doc.split("\n\n")[0])
    p.add_argument("--data", action="append", default=[], metavar="FILE",
                   help="labelled answers in the human-judgment layout (repeatable)")
    p.add_argument("--squad", metavar="JSON", help="a SQuAD-layout file whose answer sentences are sources too")
    p.add_argument("--squad-questions", type=int, default=3000, metavar="N", help="questions sampled from --squad")
    p.add_argument("--out", required=True, metavar="CSV", help="the rows made")
    p.add_argument("--seed", type=int, default=13)
    return p


def build_parser() -> argparse.ArgumentParser:
    """The command's options."""
    p = source_parser("experiments.generators.nearmiss", __doc__)
    p.add_argument("--side", choices=("both", "wrong", "right"), default="both",
                   help="write the near misses (wrong), the right answers in other words (right) or both, so that a "
                        "training mix can weigh the two sides apart (default: %(default)s)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Read the sources, write the rows to ``--out``, print their counts by kind."""
    args = build_parser().parse_args(argv)
    examples = [e for path in args.data for e in read_examples(path)]
    if args.squad:
        examples += squad_examples(args.squad, args.squad_questions, args.seed)
    if not examples:
        print("no --data or --squad rows", file=sys.stderr)
        return 2
    rows = make_near_misses(examples, args.seed)
    if args.side != "both":
        rows = [r for r in rows if r["scores"] == (1 if args.side == "right" else 0)]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_swaps(rows, args.out)
    counts = Counter(str(r["kind"]) for r in rows)
    print(f"{args.out}: {len(rows)} rows from {sum(e.label for e in examples)} right answers")
    print("  " + ", ".join(f"{k} {counts[k]}" for k in (*WRONG_KINDS, *RIGHT_KINDS)))
    return 0


if __name__ == "__main__":
    sys.exit(command(main))
