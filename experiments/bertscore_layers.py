"""Which encoder layer should BERTScore use? Pearson / Spearman of BERTScore F with the human scores, per layer.

All layers come from one forward pass per text (``Encoder.encode(..., layers=...)``); idf off and on. Usage:

    python experiments/bertscore_layers.py [--backbone minilm] [--data ../shared/data/human_eval]

Prints a markdown table; pick the layer that is good on every set, not the best on one.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

from kpqa.models.encoder import Encoder, TokenEmbeddings
from kpqa.input import read_input
from kpqa.metrics.bertscore import score_idf

FILES = {"MS-MARCO": "marco_all.csv", "NarrativeQA": "nrqa_mhpgm.csv"}


def layer_view(embs: list[TokenEmbeddings], k: int) -> list[TokenEmbeddings]:
    """The ``k``-th layer of embeddings encoded with several layers."""
    return [TokenEmbeddings(e.ids, e.offsets, e.vectors[k], e.special[k]) for e in embs]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backbone", default="minilm")
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[1].parent / "shared/data/human_eval"))
    args = ap.parse_args()
    encoder = Encoder(args.backbone)
    layers = list(range(1, encoder.num_layers + 1))
    results: dict[tuple[int, bool], list[str]] = {(layer, idf): [] for layer in layers for idf in (False, True)}
    for name, file in FILES.items():
        table = read_input(Path(args.data) / file)
        rows, human = table.rows, table.frame["scores"].to_numpy(dtype=float)
        flat = [r for g in rows.references for r in g]
        embs = encoder.encode(rows.candidates + flat, layers=layers)
        for k, layer in enumerate(layers):
            view = layer_view(embs, k)
            cands, refs, pos = view[: len(rows)], [], len(rows)
            for g in rows.references:
                refs.append(view[pos : pos + len(g)])
                pos += len(g)
            for idf in (False, True):
                f = score_idf(cands, refs, idf)[:, 2]
                results[(layer, idf)].append(f"{pearsonr(f, human)[0]:.3f} / {spearmanr(f, human)[0]:.3f}")
    print(f"BERTScore F, backbone {args.backbone} ({encoder.num_layers} layers): Pearson r / Spearman rho\n")
    print("| layer | idf | " + " | ".join(FILES) + " |")
    print("|---|---|" + "---|" * len(FILES))
    for (layer, idf), cells in results.items():
        print(f"| {layer} | {'on' if idf else 'off'} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
