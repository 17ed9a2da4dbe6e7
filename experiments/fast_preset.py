"""What a fast preset costs on the dev suite: the default suite's scores under reduced-precision variants beside fp32.

    python experiments/fast_preset.py [--data ../shared/data/human_eval] [--variants fp32,bf16,weighter-bf16]
        [--json runs/fast_preset.json]

Variants: ``fp32`` (the default), ``bf16`` (every model under bf16 autocast: ``--precision bf16``),
``weighter-bf16`` (the keyphrase weighter alone under bf16, the BERTScore encoder in fp32). Each scores
``marco_all.csv``, ``nrqa_mhpgm.csv`` and ``evouna_tq_dev.csv`` with the default metrics; the table gives each
metric's Pearson r with the people's scores per set (AUROC on the binary set), its change from fp32, the largest
change of a row's score, and the seconds the scoring took (the models' loading included).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr

from kpqa.arraystats import auroc
from kpqa.input import read_input
from kpqa.models.weighter import Weighter
from kpqa.scoring import DEFAULT_METRICS, Scorer

REPO = Path(__file__).resolve().parents[1]
SETS = {"MS-MARCO": "marco_all.csv", "NarrativeQA": "nrqa_mhpgm.csv", "EVOUNA-TQ": "evouna_tq_dev.csv"}
BINARY = "EVOUNA-TQ"
VARIANTS = ("fp32", "bf16", "weighter-bf16")


def scorer_of(variant: str) -> Scorer:
    """The default suite's scorer under ``variant`` (its models load as the first set is scored)."""
    if variant not in VARIANTS:
        raise SystemExit(f"--variants: {variant!r} is not one of {', '.join(VARIANTS)}")
    weighter = Weighter.load(precision="bf16") if variant == "weighter-bf16" else None
    return Scorer(DEFAULT_METRICS, precision="bf16" if variant == "bf16" else "fp32", weighter=weighter)


def measure(variant: str, data: Path) -> dict:
    """Per set: the per-row scores, Pearson r per metric (and AUROC on the binary set); the scoring's seconds."""
    scorer = scorer_of(variant)
    out: dict = {"scores": {}, "r": {}, "auroc": {}, "seconds": 0.0}
    for name, file in SETS.items():
        table = read_input(data / file)
        human = table.frame["scores"].to_numpy(dtype=float)
        began = time.perf_counter()
        per_row = scorer.score_rows(table.rows, table.source)[0]
        out["seconds"] += time.perf_counter() - began
        out["scores"][name] = {m: per_row[m] for m in DEFAULT_METRICS}
        out["r"][name] = {m: float(pearsonr(per_row[m], human)[0]) for m in DEFAULT_METRICS}
        if name == BINARY:
            out["auroc"] = {m: float(auroc(human, per_row[m])) for m in DEFAULT_METRICS}
    return out


def table(results: dict[str, dict]) -> str:
    """One markdown row per variant and metric."""
    base = results["fp32"]
    lines = ["| variant | metric | " + " | ".join(f"r {s} (change)" for s in SETS) + " | AUROC EVOUNA-TQ (change) | "
             "largest row change | scoring s |", "|---|---|" + "---:|" * (len(SETS) + 3)]
    for variant, res in results.items():
        for m in DEFAULT_METRICS:
            cells = [f"{res['r'][s][m]:.4f} ({res['r'][s][m] - base['r'][s][m]:+.4f})" for s in SETS]
            cells.append(f"{res['auroc'][m]:.4f} ({res['auroc'][m] - base['auroc'][m]:+.4f})")
            moved = max(float(np.max(np.abs(res["scores"][s][m] - base["scores"][s][m]))) for s in SETS)
            lines.append(f"| {variant} | {m} | " + " | ".join(cells) + f" | {moved:.2g} | {res['seconds']:.0f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared/data/human_eval")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated; fp32 is always measured first")
    ap.add_argument("--json", type=Path, help="also write the correlations and times here")
    args = ap.parse_args()
    variants = ["fp32", *[v for v in args.variants.split(",") if v and v != "fp32"]]
    results = {v: measure(v, args.data) for v in variants}
    print(table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({v: {k: r[k] for k in ("r", "auroc", "seconds")} for v, r in results.items()},
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
