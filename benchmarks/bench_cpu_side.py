"""The CPU side of ``kpqa score`` alone: everything but the transformer forward passes, in rows/s per core.

The scorer's models are loaded, then each model's forward pass is replaced by a stand-in of the same shapes that
costs next to nothing (the keyphrase tagger's logits and the encoder's hidden states drawn from an embedding table
by token id), so what is timed is reading the rows, tokenizing, windows and padding, keyphrase-weight bookkeeping,
the lexical statistics, BERTScore matching, aggregation and (``--decide``) the judge: the work a GPU machine's CPU
does around its encoders. One torch thread, so the figure is per core; every cache emptied before every repeat
(:func:`cold`). The stand-in's scores are meaningless; only the time is reported.

Another checkout's code is measured with ``PYTHONPATH=CHECKOUT`` (this script from here).

With ``--workers N`` the metrics that load no model run in N worker processes (:mod:`kpqa.workers`), started
again before every repeat (a worker's caches are its own), so the figure is rows/s on 1 + N cores.

    python benchmarks/bench_cpu_side.py [--data ../shared/data/human_eval/marco_all.csv] [--rows 1000]
        [--repeat 3] [--decide] [--workers N] [--profile N] [--stages]
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import platform
import pstats
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import torch

import kpqa
import kpqa.text
from kpqa.models.encoder import Encoder
from kpqa.models.weighter import Weighter

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "human_eval" / "marco_all.csv"


def stand_in(model: torch.nn.Module, tagger: bool) -> None:
    """Replace ``model``'s forward pass (an instance attribute) by a table lookup of the same output shapes."""
    config = (model.encoder if tagger else model).config
    table = torch.randn(int(config.vocab_size), 2 if tagger else int(config.hidden_size),
                        generator=torch.Generator().manual_seed(0))
    layers = int(config.num_hidden_layers) + 1

    def forward(input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None, **_: object) -> object:
        out = table[input_ids]
        return out if tagger else SimpleNamespace(hidden_states=(out,) * layers)

    model.forward = forward  # type: ignore[method-assign]


#: the stages ``--stages`` times: (the module, or module:class, where the function is looked up when called; its
#: name; label); a stage's time includes the stages inside it
STAGES = [
    ("kpqa.models.weighter:Weighter", "_compute", "weighter: windows, batches, merge (the forward pass a lookup)"),
    ("kpqa.models.weighter", "encode", "  weighter: tokenizing the (question, text) pairs into windows"),
    ("kpqa.models.weighter", "merge", "  weighter: merging windows"),
    ("kpqa.models.weighter", "pad", "  weighter: padding batches"),
    ("kpqa.models.encoder:Encoder", "_encode", "encoder: tokenizing, windows, batches"),
    ("kpqa.models.encoder:Encoder", "tokenize", "  encoder: tokenizing"),
    ("kpqa.metrics.bertscore", "score_embeddings", "BERTScore and BERTScore-KPQA: matching"),
    ("kpqa.models.alignment", "max_overlap_each", "BERTScore-KPQA: keyphrase weights onto the encoder's pieces"),
    ("kpqa.metrics.kpqa", "weighted_rouge_l_rows", "ROUGE-L-KPQA: heaviest common subsequences"),
    ("kpqa.metrics.bleu", "tokenize_rows", "BLEU: PTB tokenizing (shared with ROUGE-L through the batch's memo)"),
    ("kpqa.metrics.bleu", "bleu_stats", "BLEU: counts"),
]


def time_stages(totals: dict[str, float]) -> None:
    """Wrap each of :data:`STAGES` so that its wall time adds up in ``totals`` (a stage missing here is skipped)."""
    import functools
    import importlib

    for where, name, label in STAGES:
        module, _, cls = where.partition(":")
        owner = importlib.import_module(module)
        owner = getattr(owner, cls) if cls else owner
        if not hasattr(owner, name):
            continue

        def timed(*args: object, _f=getattr(owner, name), _label=label, **kwargs: object) -> object:
            began = time.perf_counter()
            try:
                return _f(*args, **kwargs)
            finally:
                totals[_label] = totals.get(_label, 0.0) + time.perf_counter() - began

        setattr(owner, name, functools.wraps(getattr(owner, name))(timed))


def cold(scorer: kpqa.Scorer) -> None:
    """Every cache a run fills emptied: the models' (as ``kpqa score`` empties them per chunk) and the lexical
    tokenizer's spans and word pieces (kept by text for the process; a file's first rows meet them empty)."""
    scorer.models.clear_caches()
    for kept in (kpqa.text._cached_spans, kpqa.text.is_word_piece):
        getattr(kept, "cache_clear", lambda: None)()  # (an older checkout's is_word_piece keeps nothing)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--decide", action="store_true", help="the decision suite and the judge")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="then one more run under cProfile, its N costliest functions (own time)")
    parser.add_argument("--stages", action="store_true", help="then one more run with each stage's wall time")
    parser.add_argument("--workers", type=int, default=0, help="worker processes for the lexical metrics")
    args = parser.parse_args()
    torch.set_num_threads(1)
    whole = pd.read_csv(args.data, dtype=str, keep_default_na=False)
    frame, warm = whole.head(args.rows), whole.tail(2)  # warm: rows outside the timed ones, to start the workers
    scorer = kpqa.Scorer(decide=args.decide, workers=args.workers)
    scorer.score(frame.head(2))  # loads every model the suite uses
    for model in scorer.models:
        if isinstance(model, (Weighter, Encoder)):
            stand_in(model.model, isinstance(model, Weighter))
    gc.freeze()  # as kpqa score does once its models are loaded (kpqa.cli.common.resume_collection)
    times = []
    for _ in range(args.repeat):
        if scorer.workers is not None:
            scorer.workers.close()
            scorer.score(warm)
        cold(scorer)
        began = time.perf_counter()
        scorer.score(frame)
        times.append(time.perf_counter() - began)
    best = min(times)
    print(f"CPU side of kpqa score ({'--decide' if args.decide else 'default suite'}), {len(frame)} rows of "
          f"{args.data.name}, one torch thread, {args.workers} worker process(es), "
          f"{platform.processor() or platform.machine()}; forward passes replaced by table lookups")
    if args.profile:
        cold(scorer)
        profile = cProfile.Profile()
        profile.runcall(scorer.score, frame)
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)
    if args.stages:
        totals: dict[str, float] = {}
        time_stages(totals)
        cold(scorer)
        began = time.perf_counter()
        scorer.score(frame)
        print(f"one run: {time.perf_counter() - began:.3f} s, of which (wall s):")
        print("\n".join(f"  {seconds:.3f}  {label}" for label, seconds in totals.items()))
    print(f"runs (s): {' / '.join(f'{t:.2f}' for t in times)}; best {best:.2f} s = {len(frame) / best:.0f} rows/s "
          f"on {1 + args.workers} core(s)")


if __name__ == "__main__":
    main()
