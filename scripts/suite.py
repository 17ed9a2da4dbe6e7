"""The weighter's dev suite: one row per checkpoint on the three shared human-judgment sets.

    python scripts/suite.py [--checkpoint DIR] [--no-question] [--function-words F] [--label TEXT] [--log runs/suite.jsonl]
    python scripts/suite.py --show runs/suite.jsonl          # the logged rows as one markdown table

Scores ``marco_all.csv`` (MS-MARCO, graded 1-5), ``nrqa_mhpgm.csv`` (NarrativeQA, graded 0-1) and
``evouna_tq_dev.csv`` (EVOUNA-TQ dev, binary) with BLEU-1-KPQA, ROUGE-L-KPQA and BERTScore-KPQA (the -KP forms with
``--no-question``) and prints one markdown row: Pearson r of each metric per set, AUROC of each on the binary set,
and the suite mean (the mean of the nine Pearson r). ``--log`` appends the row as JSON for the experiment log
(docs/weighter-experiments.md). Choose weighters by the whole row, never by one cell.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr

from kpqa.arraystats import auroc
from kpqa.context import DEFAULT_FUNCTION_WORD_WEIGHT, check_function_word_weight
from kpqa.errors import UsageError
from kpqa.input import read_input
from kpqa.scoring import Scorer
from kpqa.models import shipped

REPO = Path(__file__).resolve().parents[1]
SETS = {"MS-MARCO": "marco_all.csv", "NarrativeQA": "nrqa_mhpgm.csv", "EVOUNA-TQ": "evouna_tq_dev.csv"}
BINARY = "EVOUNA-TQ"
METRICS = ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA"]


def suite(checkpoint: str | None, no_question: bool, data: Path, device: str, batch_size: int,
          function_word_weight: float = DEFAULT_FUNCTION_WORD_WEIGHT, precision: str = "auto") -> dict:
    """``{"r": {set: {metric: r}}, "auroc": {metric: AUROC}, "mean_r": float}`` for one checkpoint."""
    names = [m.replace("-KPQA", "-KP") for m in METRICS] if no_question else METRICS
    scorer = Scorer(names, checkpoint=checkpoint, no_question=no_question, device=device, batch_size=batch_size,
                    function_word_weight=function_word_weight, precision=precision)
    r: dict[str, dict[str, float]] = {}
    areas: dict[str, float] = {}
    for dataset, file in SETS.items():
        table = read_input(data / file)
        human = table.frame["scores"].to_numpy(dtype=float)
        per_row = scorer.score_rows(table.rows, table.source)[0]
        r[dataset] = {name: float(pearsonr(per_row[name], human)[0]) for name in names}
        if dataset == BINARY:
            areas = {name: float(auroc(human, per_row[name])) for name in names}
    mean = float(np.mean([v for by_metric in r.values() for v in by_metric.values()]))
    return {"metrics": names, "r": r, "auroc": areas, "mean_r": mean, "signatures": scorer.signatures}


def header(names: list[str]) -> str:
    cells = [f"{d} r {m}" for d in SETS for m in names] + [f"AUROC {m}" for m in names] + ["mean r"]
    short = [c.replace("BERTScore", "BS").replace("ROUGE-L", "RL").replace("BLEU-1", "B1") for c in cells]
    return "| weighter | " + " | ".join(short) + " |\n|---|" + "---:|" * len(short)


def row(label: str, result: dict) -> str:
    names = result["metrics"]
    cells = [result["r"][d][m] for d in SETS for m in names] + [result["auroc"][m] for m in names]
    return f"| {label} | " + " | ".join(f"{v:.3f}" for v in cells) + f" | **{result['mean_r']:.3f}** |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--checkpoint", help="weighter checkpoint folder (default: the shipped one)")
    ap.add_argument("--no-question", action="store_true", help="score the -KP metrics with a question-free weighter")
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared/data/human_eval")
    ap.add_argument("--label", help="row label (default: the checkpoint folder)")
    ap.add_argument("--log", type=Path, help="append the result as one JSON line to this file")
    ap.add_argument("--show", type=Path, metavar="LOG", help="print the rows logged in LOG and exit")
    ap.add_argument("--function-words", type=float, default=DEFAULT_FUNCTION_WORD_WEIGHT, metavar="F",
                    help="factor on function words' keyphrase weights (1: the tagger's own, as before round 4)")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--precision", default="auto", help="the models' arithmetic (auto: fp32 on a CPU; bf16 autocast)")
    args = ap.parse_args()
    try:
        check_function_word_weight(args.function_words)
    except UsageError as error:
        ap.error(str(error))
    if args.show:
        logged = [json.loads(line) for line in args.show.read_text().splitlines() if line.strip()]
        for names in dict.fromkeys(tuple(r["metrics"]) for r in logged):
            print(header(list(names)))
            print("\n".join(row(r["label"], r) for r in logged if tuple(r["metrics"]) == names))
        return
    checkpoint = args.checkpoint or str(shipped.resolve(no_question=args.no_question))
    started = time.monotonic()
    result = suite(checkpoint, args.no_question, args.data, args.device, args.batch_size, args.function_words,
                   args.precision)
    label = args.label or checkpoint
    print(header(result["metrics"]))
    print(row(label, result))
    print(f"({time.monotonic() - started:.0f} s)")
    if args.log:
        args.log.parent.mkdir(parents=True, exist_ok=True)
        with args.log.open("a") as log:
            log.write(json.dumps({"label": label, "checkpoint": checkpoint, **result}) + "\n")


if __name__ == "__main__":
    main()
