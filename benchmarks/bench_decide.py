"""What deciding costs: whole-process time of ``kpqa score --decide`` against the default suite, as a user meets them.

Each run is one fresh process (imports, model loading, reading, scoring, writing) on the same rows, the variants
alternating ``--repeat`` times:

* ``suite``: ``kpqa score FILE -o OUT --quiet`` (the default suite);
* ``decide``: ``kpqa score FILE --decide -o OUT --quiet`` (the suite plus KPQA-judge's other inputs and the
  decision columns);
* ``decide + Equivalence``: the same with the answer-equivalence model's column and its decision too (what the
  model adds).

The table gives each run's seconds and rows/s, the medians and the ratio of the medians to the suite's.

    python benchmarks/bench_decide.py [--data ../shared/data/human_eval/marco_all.csv] [--rows 1000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "human_eval" / "marco_all.csv"


def variants() -> dict[str, list[str]]:
    """The ``kpqa score`` flags of each variant."""
    from kpqa.scoring import DECIDE_METRICS

    with_model = ",".join([*DECIDE_METRICS, "Equivalence"])
    return {"suite": [], "decide": ["--decide"], "decide + Equivalence": ["--decide", "--metrics", with_model]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    runs: dict[str, list[float]] = {name: [] for name in variants()}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "rows.csv"
        pd.read_csv(args.data, dtype=str, keep_default_na=False).head(args.rows).to_csv(data, index=False)
        for _ in range(args.repeat):
            for name, flags in variants().items():
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "kpqa", "score", str(data), *flags, "-o",
                                str(Path(tmp) / "out.csv"), "--quiet", "--force"], check=True)
                runs[name].append(time.perf_counter() - start)
    base = statistics.median(runs["suite"])
    print(f"{args.rows} rows of {Path(args.data).name}, {args.repeat} alternating runs, fresh process each\n")
    print("| variant | runs (s) | median (s) | rows/s | ratio to the suite |\n| --- | --- | --- | --- | --- |")
    for name, times in runs.items():
        median = statistics.median(times)
        print(f"| {name} | {' / '.join(f'{t:.1f}' for t in times)} | {median:.1f} | {args.rows / median:.1f} | "
              f"{median / base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
