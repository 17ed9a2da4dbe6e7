"""Bounded work on any input: the longest text each metric takes (a longer one is a bad row), long answers scored,
piece alignment in blocks, and the same limit in explain (meta-eval's: tests/test_meta.py). The blocked similarity
and the encoder's windowed texts: tests/test_bertscore.py; the windows themselves: tests/test_windows.py; the weighted
LCS one row at a time: tests/test_rouge.py."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kpqa import explain
from kpqa.errors import InputError, UsageError
from kpqa.input import frame_to_table, read_input
from kpqa.lengths import LCS_MAX_CHARS, MAX_CHARS, text_limit
from kpqa.metrics.base import get_metric
from kpqa.models import alignment
from kpqa.text import get_tokenizer

LONG = "word " * 30  # 150 characters


def _frame(answer: str = "a b", reference: str = "a c", question: str = "q") -> pd.DataFrame:
    return pd.DataFrame({"question": ["q", question], "answer": ["a", answer], "reference1": ["a", reference]})


@pytest.mark.parametrize("column", ["answer", "reference1", "question"])
def test_a_text_over_the_limit_is_a_bad_row_naming_its_cell(column):
    frame = _frame(**{("reference" if column == "reference1" else column): LONG})
    with pytest.raises(InputError) as raised:
        frame_to_table(frame, "f.csv", max_chars=100)
    assert str(raised.value) == (f"f.csv, row 2, column '{column}': text of 150 characters, over the limit of 100 per "
                                 "text (raise it with max_chars=N)")
    skipped = frame_to_table(frame, "f.csv", on_error="skip", max_chars=100)
    assert len(skipped.rows) == 1 and skipped.kept_rows == [0] and "150 characters" in skipped.errors[1]
    assert len(frame_to_table(frame, "f.csv", max_chars=150).rows) == 2
    assert len(frame_to_table(frame, "f.csv", max_chars=None).rows) == 2


def test_max_chars_must_be_a_positive_integer_or_none():
    for bad in (0, -5, 2.5, True):
        with pytest.raises(UsageError, match=rf"^max_chars={bad!r}: must be a positive integer or None$"):
            frame_to_table(_frame(), max_chars=bad)  # type: ignore[arg-type]


def test_each_metric_sets_its_own_limit_and_the_strictest_applies():
    limits = {name: text_limit([get_metric(name)]) for name in
              ("BLEU-1", "BLEU-4", "CIDEr", "F1", "AEv-0.5-2", "ROUGE-L", "ROUGE-L-adapted", "METEOR", "BERTScore",
               "BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA")}
    assert limits == {"BLEU-1": None, "BLEU-4": None, "CIDEr": None, "F1": None, "AEv-0.5-2": None,
                      "ROUGE-L": LCS_MAX_CHARS, "ROUGE-L-adapted": LCS_MAX_CHARS, "METEOR": None,
                      "BERTScore": MAX_CHARS, "BLEU-1-KPQA": MAX_CHARS, "ROUGE-L-KPQA": MAX_CHARS,
                      "BERTScore-KPQA": MAX_CHARS}
    assert text_limit([get_metric("BLEU-1"), get_metric("ROUGE-L"), get_metric("METEOR")]) == LCS_MAX_CHARS
    assert text_limit([get_metric("ROUGE-L"), get_metric("BERTScore")]) == MAX_CHARS == 200_000
    assert text_limit([]) is None


def _prose(chars: int) -> str:
    """This repository's architecture notes, words joined by single spaces, cut at a space within ``chars``."""
    from conftest import REPO

    words = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8").split()
    text = " ".join(words * (1 + chars // len(" ".join(words))))
    return text[: text.rfind(" ", 0, chars + 1)]


@pytest.mark.model
def test_a_long_answer_is_scored_by_the_default_metrics():
    from kpqa.scoring import DEFAULT_METRICS, Scorer

    answer = _prose(15_000)
    short = answer[: answer.index(". ") + 1]  # the first sentence
    frame = pd.DataFrame({"question": ["What does the architecture say?"] * 2, "answer": [answer] * 2,
                          "reference1": [answer, short]})
    result = Scorer().score(frame)
    assert len(answer) > 14_900 and result.errors == {}
    columns = [c for m in DEFAULT_METRICS for c in get_metric(m).columns()]
    same, other = result.frame[columns].to_numpy()
    assert same == pytest.approx(1.0, abs=1e-5)  # the answer against itself, every metric
    # the short reference is the answer's first sentence: every one of its tokens is matched, in order
    n_ref, n_cand = (len(get_tokenizer("ptb").tokenize(t)) for t in (short, answer))
    p = n_ref / n_cand
    got = dict(zip(columns, other))
    assert got["BLEU-1"] == pytest.approx(p) and got["ROUGE-L"] == pytest.approx(2.44 * p / (1 + 1.44 * p))
    assert all(0.3 < got[m] < 0.7 for m in ("BERTScore", "BERTScore-KPQA"))  # most candidate tokens match poorly


def test_max_chars_still_makes_a_bad_row(tmp_path, capsys):
    from kpqa.cli import main

    path, out = tmp_path / "in.csv", tmp_path / "out.csv"
    answer = _prose(15_000)
    _frame(answer=answer).to_csv(path, index=False)
    assert main(["score", str(path), "-o", str(out), "--metrics", "BLEU-1", "--quiet"]) == 0
    assert main(["score", str(path), "-o", str(out), "--metrics", "BLEU-1", "--max-chars", "10000"]) == 2
    assert f"row 2, column 'answer': text of {len(answer):,} characters, over the limit of 10,000" in \
        capsys.readouterr().err
    assert main(["score", str(path), "-o", str(out), "--metrics", "BLEU-1", "--max-chars", "10000",
                 "--on-error", "skip", "--quiet"]) == 0
    written = pd.read_csv(out)
    assert written["BLEU-1"].isna().tolist() == [False, True] and "over the limit of 10,000" in written.error[1]


def test_read_input_applies_the_limit_to_files(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"question": "q", "answer": "a b", "references": ["a"]}\n'
                    f'{{"question": "q", "answer": "a", "references": ["a", "{LONG}"]}}\n')
    with pytest.raises(InputError, match=r"in.jsonl, row 2, column 'reference2': text of 150 characters"):
        read_input(path, max_chars=149)
    assert len(read_input(path).rows) == 2  # the default limit is far above


def _dense_max_overlap(tokens: np.ndarray, pieces: np.ndarray, weights: np.ndarray) -> np.ndarray:
    overlap = (pieces[None, :, 0] < tokens[:, 1:2]) & (pieces[None, :, 1] > tokens[:, 0:1])
    return np.where(overlap, weights[None, :], 0.0).max(axis=1, initial=0.0).astype(np.float32)


@pytest.mark.parametrize("block", [1, 5, 1 << 20])
def test_max_overlap_in_blocks_equals_the_whole_comparison(block, monkeypatch):
    monkeypatch.setattr(alignment, "BLOCK_CELLS", block)
    rng = np.random.default_rng(block)
    for _ in range(200):
        n, m = rng.integers(0, 30, 2)
        starts_t, starts_p = rng.integers(0, 80, n), rng.integers(0, 80, m)  # any order, overlapping, empty spans
        tokens = np.stack([starts_t, starts_t + rng.integers(0, 7, n)], 1)
        pieces = np.stack([starts_p, starts_p + rng.integers(0, 7, m)], 1)
        weights = rng.random(m).astype(np.float32)
        assert np.array_equal(alignment.max_overlap(tokens, pieces, weights),
                              _dense_max_overlap(tokens, pieces, weights))


@pytest.mark.parametrize("block", [3, 1 << 20])
def test_max_overlap_of_many_texts_at_once_is_each_ones(block, monkeypatch):
    """BERTScore-KPQA maps a batch's texts in one pass: every text's spans moved past the previous text's."""
    monkeypatch.setattr(alignment, "BLOCK_CELLS", block)
    rng = np.random.default_rng(block)
    items = []
    for _ in range(60):
        n, m = rng.integers(0, 20, 2)  # texts with no token or no piece too
        starts_t, starts_p = rng.integers(0, 50, n), rng.integers(0, 50, m)
        items.append((np.stack([starts_t, starts_t + rng.integers(0, 7, n)], 1).reshape(-1, 2),
                      np.stack([starts_p, starts_p + rng.integers(0, 7, m)], 1).reshape(-1, 2),
                      rng.random(m).astype(np.float32)))
    together = alignment.max_overlap_each(items)
    assert len(together) == len(items) and alignment.max_overlap_each([]) == []
    assert all(np.array_equal(a, alignment.max_overlap(*item)) for a, item in zip(together, items))


def test_max_overlap_memory_does_not_grow_with_the_square_of_the_text():
    import tracemalloc

    n = 100_000  # the dense comparison would take 100,000 x 100,000 cells (10 GB as bools)
    spans = np.stack([np.arange(n) * 5, np.arange(n) * 5 + 4], 1)
    weights = np.linspace(0, 1, n, dtype=np.float32)
    tracemalloc.start()
    out = alignment.max_overlap(spans, spans, weights)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.array_equal(out, weights) and peak < 64 * 2**20


@pytest.mark.model
def test_explain_refuses_a_long_text_but_reads_a_row_beside_one(tmp_path, capsys):
    from kpqa.cli import main

    assert main(["explain", "--question", "q", "--reference", "ref", "--candidate", LONG, "--max-chars", "100"]) == 2
    assert "--candidate: text of 150 characters, over the limit of 100 per text (raise it with --max-chars N)" \
        in capsys.readouterr().err
    assert main(["explain", "--question", "q", "--reference", "x" * (MAX_CHARS + 1), "--candidate", "a"]) == 2
    err = capsys.readouterr().err
    assert f"--reference: text of {MAX_CHARS + 1:,} characters, over the limit of {MAX_CHARS:,}" in err
    path = tmp_path / "in.csv"
    pd.DataFrame({"question": ["q1", "q2", "q3"], "answer": ["a1", LONG, ""],
                  "reference1": ["r1", "r2", "r3"]}).to_csv(path, index=False)
    assert explain.row_texts(str(path), 1, max_chars=100)[:3] == ("q1", ["r1"], "a1")
    with pytest.raises(InputError, match=r"in.csv, row 2, column 'answer': text of 150.*\(raise it with max_chars=N\)"):
        explain.row_texts(str(path), 2, max_chars=100)
    assert explain.row_texts(str(path), 3, max_chars=100)[:3] == ("q3", ["r3"], "")  # an empty answer is an answer
