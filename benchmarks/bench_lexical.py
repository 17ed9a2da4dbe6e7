"""Time kpqa's lexical suite (BLEU-1..4 + ROUGE-L) against sacrebleu (sentence BLEU) + rouge-score (ROUGE-L).

Usage: python benchmarks/bench_lexical.py [--data ../shared/data/human_eval/marco_all.csv] [--repeat 5]

Both sides score the same rows and tokenize the raw text themselves (kpqa: the COCO-style ptb tokenizer;
sacrebleu: 13a; rouge-score: its default tokenizer). "cold" clears kpqa's tokenization cache before each run,
"warm" scores again with the cache filled (as when several metrics or runs share the texts). Best of --repeat.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Callable

import pandas as pd

from kpqa.metrics import Context, Rows, get_metric
from kpqa.text import _cached_spans

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "human_eval" / "marco_all.csv"


def best_time(fn: Callable[[], object], repeat: int, before: Callable[[], None] = lambda: None) -> float:
    """Smallest wall time of ``repeat`` calls of ``fn`` (``before`` runs untimed ahead of each call)."""
    times = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import sacrebleu
    from rouge_score import rouge_scorer

    df = pd.read_csv(args.data)
    ref_cols = [c for c in df.columns if c.startswith("reference")]
    cands = [str(x) for x in df.answer]
    refs = [[str(x) for x in r] for r in df[ref_cols].values.tolist()]
    metrics = [get_metric(name) for name in ("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "ROUGE-L")]

    def ours() -> None:  # one memo per run, as kpqa.scoring.Scorer keeps one per batch: BLEU-1..4 share their counts
        rows, ctx = Rows(questions=[""] * len(cands), candidates=cands, references=refs), Context(memo={})
        for metric in metrics:
            metric.corpus_score(rows, ctx)

    scorer = rouge_scorer.RougeScorer(["rougeL"])

    def theirs_bleu() -> None:
        for c, r in zip(cands, refs):
            sacrebleu.sentence_bleu(c, r)

    def theirs_rouge() -> None:
        for c, r in zip(cands, refs):
            scorer.score_multi(r, c)

    n = len(cands)
    cold = best_time(ours, args.repeat, before=_cached_spans.cache_clear)
    warm = best_time(ours, args.repeat)
    t_bleu = best_time(theirs_bleu, args.repeat)
    t_rouge = best_time(theirs_rouge, args.repeat)
    rows = [
        ("kpqa BLEU-1..4 + ROUGE-L (cold)", cold),
        ("kpqa BLEU-1..4 + ROUGE-L (warm)", warm),
        ("sacrebleu sentence BLEU", t_bleu),
        ("rouge-score ROUGE-L", t_rouge),
        ("sacrebleu + rouge-score", t_bleu + t_rouge),
    ]
    print(f"{n} rows of {args.data.name}, best of {args.repeat}")
    print(f"{'':36s} {'seconds':>8s} {'rows/s':>9s} {'vs sacrebleu+rouge-score':>25s}")
    for name, t in rows:
        print(f"{name:36s} {t:8.3f} {n / t:9.0f} {(t_bleu + t_rouge) / t:24.2f}x")


if __name__ == "__main__":
    main()
