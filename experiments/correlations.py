"""Correlation of the baseline and KPQA metrics with human correctness scores, beside the KPQA paper's Tables 3-4.

    python experiments/correlations.py [--data ../shared/data/human_eval] [--checkpoint DIR] [--kp-checkpoint DIR]

Scores ``marco_all.csv`` (MS-MARCO, 1,000 answers) and ``nrqa_mhpgm.csv`` (NarrativeQA, 500) with BLEU-1, BLEU-4,
ROUGE-L, BERTScore (idf off and on), the three KPQA metrics and, when a question-free checkpoint exists, the -KP
ablation; prints Pearson r / Spearman rho as a markdown table. The paper's figures use bert-base-uncased for KPW and
its BERTScore with idf; ours use the shipped weighter and the MiniLM encoder.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

from kpqa.input import read_input
from kpqa.scoring import Scorer
from kpqa.models import shipped

REPO = Path(__file__).resolve().parents[1]
FILES = {"MS-MARCO": "marco_all.csv", "NarrativeQA": "nrqa_mhpgm.csv"}
BASELINES = ["BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "BERTScore:idf=yes"]
KPQA = ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA"]
KP = ["BLEU-1-KP", "ROUGE-L-KP", "BERTScore-KP"]
# Lee et al. 2021, Table 3 (and Table 4 for -KP, MS-MARCO only): (r, rho)
PAPER = {
    "MS-MARCO": {
        "BLEU-1": (0.349, 0.329), "BLEU-4": (0.193, 0.244), "ROUGE-L": (0.309, 0.301),
        "BERTScore:idf=yes": (0.463, 0.456), "BLEU-1-KPQA": (0.675, 0.634), "ROUGE-L-KPQA": (0.698, 0.642),
        "BERTScore-KPQA": (0.673, 0.655), "BLEU-1-KP": (0.629, 0.589), "ROUGE-L-KP": (0.671, 0.640),
        "BERTScore-KP": (0.657, 0.649),
    },
    "NarrativeQA": {
        "BLEU-1": (0.634, 0.643), "BLEU-4": (0.258, 0.570), "ROUGE-L": (0.707, 0.708),
        "BERTScore:idf=yes": (0.785, 0.767), "BLEU-1-KPQA": (0.716, 0.699), "ROUGE-L-KPQA": (0.774, 0.750),
        "BERTScore-KPQA": (0.782, 0.770),
    },
}


def correlations(scores: dict[str, np.ndarray], human: np.ndarray) -> dict[str, tuple[float, float]]:
    """(Pearson r, Spearman rho) of every column with the human scores."""
    return {k: (float(pearsonr(v, human)[0]), float(spearmanr(v, human)[0])) for k, v in scores.items()}


def measure(data: Path, checkpoint: str | None, kp_checkpoint: str | None, device: str) -> dict[str, dict]:
    """Per data set, per column: (r, rho)."""
    scorers = [Scorer(BASELINES + KPQA, checkpoint=checkpoint, device=device)]
    if kp_checkpoint:
        scorers.append(Scorer(KP, checkpoint=kp_checkpoint, no_question=True, device=device))
    out = {}
    for name, file in FILES.items():
        table = read_input(data / file)
        human = table.frame["scores"].to_numpy(dtype=float)
        scores: dict[str, np.ndarray] = {}
        for scorer in scorers:
            scores.update(scorer.score_rows(table.rows, table.source)[0])
        out[name] = correlations(scores, human)
    return out


class Variant:
    """A weighter whose KPW is changed for an experiment: ``floor`` added to every piece's K-probability, pieces
    mapped to words by ``mapping`` (max, as the weighter; mean; or first piece)."""

    def __init__(self, weighter, floor: float = 0.0, mapping: str = "max"):
        self.weighter, self.floor, self.mapping = weighter, floor, mapping

    def piece_weights(self, pairs):
        return [(offsets, probs + np.float32(self.floor)) for offsets, probs in self.weighter.piece_weights(pairs)]

    def word_weights(self, pairs, tokenizer):
        out = []
        for (offsets, probs), (_, text) in zip(self.piece_weights(pairs), pairs):
            words = []
            for _, start, end in tokenizer.spans(text):
                inside = probs[(offsets[:, 0] < end) & (offsets[:, 1] > start)]
                if not len(inside):
                    words.append(0.0)
                elif self.mapping == "max":
                    words.append(float(inside.max()))
                elif self.mapping == "mean":
                    words.append(float(inside.mean()))
                else:
                    words.append(float(inside[0]))
            out.append(np.array(words, dtype=np.float32))
        return out


def variants(data: Path, checkpoint: str | None, device: str) -> dict[str, dict]:
    """KPQA metrics under other weight floors, word mappings and BERTScore layers, on every set."""
    from kpqa.metrics import Context, get_metric
    from kpqa.metrics.bertscore import BERTScoreKPQA
    from kpqa.models.weighter import Weighter

    weighter = Weighter.load(checkpoint, device=device)
    settings = [(f, "max", 6) for f in (0.0, 0.05, 0.1, 0.2, 0.5)]
    settings += [(0.0, m, None) for m in ("mean", "first")] + [(0.0, None, layer) for layer in (4, 5)]
    out: dict[str, dict] = {}
    for name, file in FILES.items():
        table = read_input(data / file)
        human = table.frame["scores"].to_numpy(dtype=float)
        res = out.setdefault(name, {})
        for floor, mapping, layer in settings:
            variant = Variant(weighter, floor, mapping or "max")
            ctx = Context(word_weights=variant.word_weights, weighter=variant, device=device)
            scores = {}
            if mapping is not None:
                for metric in ("BLEU-1-KPQA", "ROUGE-L-KPQA"):
                    scores[f"{metric} floor={floor} map={mapping}"] = get_metric(metric).score(table.rows, ctx)[metric]
            if layer is not None:
                col = f"BERTScore-KPQA floor={floor} layer={layer}"
                scores[col] = BERTScoreKPQA(layer=layer).score(table.rows, ctx)["BERTScore-KPQA"]
            res.update(correlations(scores, human))
    return out


def markdown(results: dict[str, dict]) -> str:
    """One row per metric: ours and the paper's r / rho on each set."""
    head = "| metric | " + " | ".join(f"{d} r / rho | paper" for d in results) + " |"
    lines = [head, "|---|" + "---|---|" * len(results)]
    columns = list(dict.fromkeys(c for res in results.values() for c in res))
    for column in columns:
        cells = []
        for dataset, res in results.items():
            ours = res.get(column)
            paper = PAPER[dataset].get(column.split(" ")[0] if " " in column else column)
            cells.append(f"{ours[0]:.3f} / {ours[1]:.3f}" if ours else "")
            cells.append(f"{paper[0]:.3f} / {paper[1]:.3f}" if paper else "")
        lines.append(f"| {column} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared/data/human_eval")
    ap.add_argument("--checkpoint", help="weighter checkpoint (default: the shipped one)")
    ap.add_argument("--kp-checkpoint", help="question-free checkpoint (default: the shipped one, if present)")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--variants", action="store_true", help="also: weight floors, word mappings, BERTScore layers")
    args = ap.parse_args()
    kp = args.kp_checkpoint
    if kp is None and (shipped.resolve(no_question=True) / "metadata.json").exists():
        kp = str(shipped.resolve(no_question=True))
    print(markdown(measure(args.data, args.checkpoint, kp, args.device)))
    if args.variants:
        print("\nVariants of the KPQA metrics (weights + floor; piece-to-word mapping; BERTScore-KPQA layer):\n")
        print(markdown(variants(args.data, args.checkpoint, args.device)))


if __name__ == "__main__":
    main()
