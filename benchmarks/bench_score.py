"""Speed and memory of ``kpqa score``: the default suite against bert-score alone and the original KPQA way.

Usage: python benchmarks/bench_score.py [--data ../shared/data/human_eval/marco_all.csv] [--rows 1000] [--repeat 3]
       [--checkpoint DIR] [--stream-rows 100000] [--chunk-rows N] [--ablations] [--skip-baseline] [--skip-lexical]

In one run, on the same rows, on CPU:

* **bert-score**: ``bert_score.BERTScorer`` on the local MiniLM folder with our BERTScore default layer (the model
  loaded before timing, as ours is), batch size 64;
* **kpqa BERTScore** alone and **kpqa default suite** (BLEU-1, BLEU-4, ROUGE-L, BERTScore, BLEU-1-KPQA,
  ROUGE-L-KPQA, BERTScore-KPQA; corpus scores included), through :class:`kpqa.scoring.Scorer`, caches emptied
  before every repeat;
* **original-KPQA-style baseline**: what the KPQA release does, rebuilt on our models: one forward pass per text at
  batch size 1 (KPW of each (question, text), encoder embeddings of each text; repeated texts served from a
  cache, as the release caches by sentence), then the metrics row by row;
* the lexical comparison (kpqa BLEU + ROUGE-L against sacrebleu + rouge-score) is ``benchmarks/bench_lexical.py``,
  run from here as it is;
* with ``--stream-rows N``: ``kpqa score`` (a subprocess) on an N-row file built by repeating the rows, each copy
  perturbed so that no text repeats, peak resident memory sampled every 0.5 s;
* with ``--ablations``: forward-pass costs of the choices inside the encoders (sorted batches, dedup,
  inference_mode, stopping at the BERTScore layer, reduced precision, batch size 1), on the same texts;
* with ``--variants``: correlation with the human scores (the two sets beside ``--data``) of the variants that
  change scores: BERTScore embeddings from one shared (question, text) pass, and bf16 autocast on CPU.

Times: the fastest of ``--repeat`` interleaved repeats (timeit's convention: other load only ever adds time),
wall clock and process CPU time (all threads); the ratios use CPU time, which a machine shared with other jobs
disturbs less than wall time.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "human_eval" / "marco_all.csv"
SUITE = "kpqa default suite (7 metrics)"
SUITE_BF16 = "kpqa default suite, --precision bf16"
BASELINE = "original-KPQA-style baseline (batch size 1; timed once)"
#: the device every system runs on (``--device``; bert-score follows it)
DEVICE = "cpu"


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def interleaved(systems: dict[str, tuple[Callable[[], None], Callable[[], object]]], repeat: int,
                once: frozenset[str] = frozenset()) -> dict:
    """Fastest (wall, cpu) per system, and the slowest CPU time; each repeat runs every system once, in turn (those
    in ``once`` in the first repeat only). Values: (before, run)."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in systems}
    for r in range(repeat):
        for name, (before, run) in systems.items():
            if r and name in once:
                continue
            before()
            runs[name].append(timed(run))
            print(f"  repeat {r + 1}: {name}: wall {runs[name][-1][0]:.2f} s, cpu {runs[name][-1][1]:.2f} s",
                  file=sys.stderr, flush=True)
    return {name: (min(w for w, _ in t), min(c for _, c in t), max(c for _, c in t)) for name, t in runs.items()}


# ------------------------------------------------------------------------------------- the original KPQA approach


def original_kpqa(rows, weighter, encoder) -> dict[str, float]:
    """The KPQA release's loop on our models: each text through the models alone (batch size 1), then the metrics
    of each row. Returns the corpus scores (for a sanity check against the suite)."""
    from kpqa.metrics import get_metric
    from kpqa.metrics.bertscore import greedy_prf
    from kpqa.models.alignment import max_overlap as align
    from kpqa.metrics.bleu import corpus_bleu, sentence_bleu, weighted_bleu1
    from kpqa.metrics.rouge import rouge_l, weighted_rouge_l
    from kpqa.text import get_tokenizer

    tok = get_tokenizer("ptb")
    rouge_kpqa = get_metric("ROUGE-L-KPQA")  # the suite's settings (beta, which common subsequence)
    embedded: dict[str, object] = {}
    out: dict[str, list[float]] = {k: [] for k in ("BLEU-1", "ROUGE-L", "BERTScore", "BLEU-1-KPQA", "ROUGE-L-KPQA",
                                                   "BERTScore-KPQA")}
    cands_tok, refs_tok = [], []
    for q, cand, refs in zip(rows.questions, rows.candidates, rows.references):
        texts = [cand, *refs]
        for t in texts:
            if t not in embedded:
                embedded[t] = encoder.encode([t])[0]  # batch size 1
        pieces = [weighter.piece_weights([(q, t)])[0] for t in texts]  # batch size 1, cached by (q, text)
        kpw_toks, kpw = zip(*(weighter.piece_tokens([(q, t)])[0] for t in texts))  # the KPQA metrics' tokens
        toks = [tok.tokenize(t) for t in texts]
        cands_tok.append(toks[0])
        refs_tok.append(toks[1:])
        bleu = sentence_bleu(toks[0], toks[1:])
        out["BLEU-1"].append(bleu[0])
        out["ROUGE-L"].append(rouge_l(toks[0], toks[1:])[2])
        out["BLEU-1-KPQA"].append(weighted_bleu1(kpw_toks[0], kpw[0], kpw_toks[1:], kpw[1:]))
        out["ROUGE-L-KPQA"].append(weighted_rouge_l(kpw_toks[0], kpw[0], kpw_toks[1:], kpw[1:], beta=rouge_kpqa.beta,
                                                    lcs=rouge_kpqa.lcs)[2])
        c = embedded[cand]
        uniform, kpqa = [], []
        for k, r in enumerate(refs, 1):
            e = embedded[r]
            uniform.append(greedy_prf(c.vectors, np.ones(len(c.ids)), e.vectors, np.ones(len(e.ids)), c.special,
                                      e.special))
            kpqa.append(greedy_prf(c.vectors, align(c.offsets, *pieces[0]), e.vectors, align(e.offsets, *pieces[k]),
                                   c.special, e.special))
        out["BERTScore"].append(max(uniform, key=lambda s: s[2])[2])
        out["BERTScore-KPQA"].append(max(kpqa, key=lambda s: s[2])[2])
    corpus = {k: float(np.mean(v)) for k, v in out.items()}
    bleu = corpus_bleu(cands_tok, refs_tok)
    corpus["BLEU-1"], corpus["BLEU-4"] = bleu[0], bleu[3]
    return corpus


# --------------------------------------------------------------------------------------------- memory (streamed)


def build_big(data: Path, rows: int, path: Path, seed: int = 0) -> None:
    """``rows`` rows made by repeating ``data``; in every copy after the first, the answer and each reference lose
    one random word and end with the copy's number, so that no text repeats across copies (no cache helps)."""
    base = pd.read_csv(data, dtype=str, keep_default_na=False)
    rng = np.random.default_rng(seed)
    text_cols = ["answer"] + [c for c in base.columns if c.startswith("reference")]

    def perturb(text: str, copy: int) -> str:
        words = text.split()
        if len(words) > 2:
            del words[int(rng.integers(len(words)))]
        return " ".join([*words, str(copy)])

    header = True
    for copy in range(-(-rows // len(base))):
        part = base.copy()
        if copy:
            for col in text_cols:
                part[col] = [perturb(t, copy) if t else t for t in part[col]]
        part.head(rows - copy * len(base)).to_csv(path, mode="a", header=header, index=False)
        header = False


def peak_rss(cmd: list[str]) -> tuple[float, float, float, list[tuple[float, float]]]:
    """Run ``cmd``; (wall seconds, child CPU seconds, peak RSS in MiB, [(seconds, RSS MiB)] samples)."""
    import psutil

    start = time.perf_counter()
    before = os.times()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    samples: list[tuple[float, float]] = []
    handle = psutil.Process(proc.pid)

    def sample() -> None:
        while proc.poll() is None:
            with contextlib.suppress(psutil.Error):
                samples.append((time.perf_counter() - start, handle.memory_info().rss / 2**20))
            time.sleep(0.5)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    output, _ = proc.communicate()
    thread.join()
    wall = time.perf_counter() - start
    after = os.times()
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{output[-3000:]}")
    import resource

    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux; the largest child so far
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, max(peak, max((m for _, m in samples), default=0.0)), samples


# --------------------------------------------------------------------------------------------------- ablations


def ablations(rows, repeat: int) -> list[tuple[str, float, float]]:
    """Forward-pass cost of each choice, on the distinct texts (or (question, text) pairs) of ``rows``."""
    import copy

    import torch

    from kpqa.models.encoder import Encoder

    enc = Encoder("minilm", device=DEVICE)
    model, tok, layer = enc.model, enc.tokenizer, enc.layer
    texts = list(dict.fromkeys([*rows.candidates, *(r for g in rows.references for r in g)]))
    all_texts = [*rows.candidates, *(r for g in rows.references for r in g)]
    question = {}
    for q, c, g in zip(rows.questions, rows.candidates, rows.references):
        for t in (c, *g):
            question.setdefault(t, q)
    single = [tok(t) for t in texts]
    every = [tok(t) for t in all_texts]
    paired = [tok(question[t], t) for t in texts]
    shallow = copy.copy(model)
    shallow.encoder = copy.copy(model.encoder)
    shallow.encoder.layer = model.encoder.layer[:layer]

    def run(m, encs, bs=64, order="sorted", pad_to=None, mode=torch.inference_mode, autocast=None):
        idx = list(range(len(encs)))
        if order == "sorted":
            idx.sort(key=lambda i: len(encs[i]["input_ids"]))
        ctx = torch.autocast("cpu", dtype=autocast) if autocast else contextlib.nullcontext()
        with mode(), ctx:
            for b in range(0, len(idx), bs):
                batch = tok.pad([encs[i] for i in idx[b:b + bs]], return_tensors="pt",
                                padding="max_length" if pad_to else True, max_length=pad_to)
                m(**batch)

    def one_thread(fn):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            fn()
        finally:
            torch.set_num_threads(threads)

    n = len(texts)
    cases = {
        f"text, 6 layers, sorted, dynamic padding (reference), {n} texts": lambda: run(model, single),
        "text, 6 layers, input order, dynamic padding": lambda: run(model, single, order="input"),
        "text, 6 layers, padded to 128": lambda: run(model, single, order="input", pad_to=128),
        f"text, 6 layers, every occurrence ({len(all_texts)} texts, no dedup)": lambda: run(model, every),
        "text, 6 layers, no_grad instead of inference_mode": lambda: run(model, single, mode=torch.no_grad),
        **({f"text, stop at layer {layer} (bert-score truncates the model there)": lambda: run(shallow, single)}
           if layer < enc.num_layers else {}),
        "text, 6 layers, bf16 autocast": lambda: run(model, single, autocast=torch.bfloat16),
        "(question, text), 6 layers (the weighter's input)": lambda: run(model, paired),
        "(question, text), 6 layers, bf16 autocast": lambda: run(model, paired, autocast=torch.bfloat16),
        "text, 6 layers, batch size 1": lambda: run(model, single, bs=1),
        "text, 6 layers, batch size 1, 1 thread": lambda: one_thread(lambda: run(model, single, bs=1)),
        "text, 6 layers, sorted batches of 64, 1 thread": lambda: one_thread(lambda: run(model, single)),
    }
    timings = interleaved({name: (lambda: None, fn) for name, fn in cases.items()}, repeat)
    return [(name, *t) for name, t in timings.items()]


def timing(args: argparse.Namespace, rows) -> None:
    """The side-by-side table: bert-score, kpqa BERTScore, the kpqa suite, the original-KPQA-style baseline."""
    from bert_score import BERTScorer

    from kpqa.models.backbone import resolve
    from kpqa.models.device import cpu_has_bf16
    from kpqa.models.encoder import DEFAULT_LAYERS, Encoder
    from kpqa.rows import take_rows
    from kpqa.rows import Rows
    from kpqa.scoring import DEFAULT_METRICS, Scorer
    from kpqa.text import _cached_spans
    from kpqa.models.weighter import Weighter

    n = len(rows)
    cands, refs = rows.candidates, rows.references
    layer = DEFAULT_LAYERS["minilm"]
    bs = BERTScorer(model_type=resolve("minilm"), num_layers=layer, batch_size=args.batch_size,
                    device="cuda" if DEVICE.startswith("cuda") else "cpu")
    suite = Scorer(DEFAULT_METRICS, checkpoint=args.checkpoint, device=DEVICE, batch_size=args.batch_size)
    # emulated bf16 (a CPU without bf16 instructions) is many times slower than fp32: not worth timing
    suite_bf16 = (Scorer(DEFAULT_METRICS, checkpoint=args.checkpoint, device=DEVICE, batch_size=args.batch_size,
                         precision="bf16") if DEVICE != "cpu" or cpu_has_bf16() else None)
    alone = Scorer(["BERTScore"], device=DEVICE, batch_size=args.batch_size)
    # load the weighter and the encoders outside the timings, on rows that are not the measured ones
    warm = Rows([f"warm-up question {i}?" for i in range(20)], [f"answer number {i} ." for i in range(20)],
                [[f"the reference answer is {i} ."] for i in range(20)])
    suites = [s for s in (suite, suite_bf16) if s is not None]
    for scorer in suites:
        scorer.score_rows(warm)
    alone.score_rows(warm)
    bs.score(warm.candidates, [g[0] for g in warm.references])

    def cold() -> None:
        _cached_spans.cache_clear()
        for scorer in (*suites, alone):
            scorer.models.clear_caches()

    results: dict[str, object] = {}
    systems = {
        "bert-score (BERTScorer, MiniLM layer %d)" % layer: (cold, lambda: bs.score(cands, refs)),
        "kpqa BERTScore alone": (cold, lambda: results.update(alone=alone.score_rows(take_rows(rows, 0, n)))),
        SUITE: (cold, lambda: results.update(suite=suite.score_rows(take_rows(rows, 0, n)))),
    }
    if suite_bf16 is not None:
        systems[SUITE_BF16] = (cold, lambda: suite_bf16.score_rows(take_rows(rows, 0, n)))
    if not args.skip_baseline:
        base_w = Weighter.load(args.checkpoint, device=DEVICE, batch_size=1)
        base_e = Encoder("minilm", device=DEVICE, batch_size=1)

        def baseline_cold() -> None:
            cold()
            base_w.clear_cache()
            base_e.clear_cache()

        systems[BASELINE] = (baseline_cold, lambda: results.update(baseline=original_kpqa(rows, base_w, base_e)))
    if suite_bf16 is None:
        print("  (no --precision bf16 row: this CPU has no bf16 instructions, so torch would emulate bf16)")
    timings = interleaved(systems, args.repeat, once=frozenset({BASELINE}))

    ref_cpu = timings[next(iter(systems))][1]
    suite_cpu = timings[SUITE][1]
    print(f"\nbest of {args.repeat} interleaved repeats (the baseline: one run); CPU = process time, all threads\n")
    print("| system | rows/s (wall) | CPU s (slowest repeat) | CPU / bert-score's | CPU / the suite's |")
    print("|---|---:|---:|---:|---:|")
    for name, (wall, cpu, worst) in timings.items():
        print(f"| {name} | {n / wall:.1f} | {cpu:.1f} ({worst:.1f}) | {cpu / ref_cpu:.2f} | {cpu / suite_cpu:.2f} |")
    if "baseline" in results:
        corpus = results["suite"][1]
        gap = max(abs(corpus[k] - v) for k, v in results["baseline"].items())
        print(f"\nbaseline and suite corpus scores differ by at most {gap:.2g} (same models and formulas)")


# ---------------------------------------------------------------------------------- variants that change scores

HUMAN_SETS = ("marco_all.csv", "nrqa_mhpgm.csv")


def shared_pass_embeddings(model, tokenizer, pairs, layer: int) -> list:
    """Embeddings of each text's pieces at ``layer`` of ``model`` run on (question, text), as one shared pass of
    BERTScore and KPW would give them; specials: [CLS] and the last [SEP]."""
    import torch

    from kpqa.models.encoder import TokenEmbeddings

    unique = list(dict.fromkeys(pairs))
    order = sorted(range(len(unique)), key=lambda i: len(unique[i][0]) + len(unique[i][1]))
    out = {}
    with torch.inference_mode():
        for b in range(0, len(order), 64):
            idx = order[b:b + 64]
            batch = tokenizer([unique[i][0] for i in idx], [unique[i][1] for i in idx], padding=True,
                              return_tensors="pt", return_offsets_mapping=True)
            offsets = batch.pop("offset_mapping")
            hidden = model(**batch, output_hidden_states=True).hidden_states[layer]
            hidden = torch.nn.functional.normalize(hidden.float(), dim=-1).numpy()
            for row, i in enumerate(idx):
                seq = batch.sequence_ids(row)
                pos = [p for p, x in enumerate(seq) if x == 1]
                out[unique[i]] = TokenEmbeddings(batch["input_ids"][row][pos].numpy(), offsets[row][pos].numpy(),
                                                 hidden[row][pos], hidden[row][[0, pos[-1] + 1]])
    return [out[p] for p in pairs]


def variants(args: argparse.Namespace) -> None:
    """Correlation with the human scores of the variants that change scores: BERTScore embeddings from one shared
    (question, text) pass, and bf16 autocast on CPU (with its CPU time)."""
    from scipy.stats import pearsonr, spearmanr

    from kpqa.models.encoder import Encoder, TokenEmbeddings
    from kpqa.input import read_input
    from kpqa.rows import take_rows
    from kpqa.metrics.bertscore import regroup, score_embeddings, score_idf
    from kpqa.models.alignment import max_overlap as align
    from kpqa.metrics.kpqa import weighted_pairs
    from kpqa.scoring import DEFAULT_METRICS, Scorer
    from kpqa.text import _cached_spans
    from kpqa.models.weighter import Weighter

    def corr(values, human) -> str:
        return f"{pearsonr(values, human)[0]:.4f} / {spearmanr(values, human)[0]:.4f}"

    weighter = Weighter.load(args.checkpoint, device=DEVICE)
    encoder = Encoder("minilm", device=DEVICE)
    print("\n## shared pass: BERTScore / BERTScore-KPQA F, Pearson r / Spearman rho with the human scores\n")
    print("| set | embeddings | BERTScore | BERTScore-KPQA |\n|---|---|---|---|")
    for name in HUMAN_SETS:
        table = read_input(args.data.parent / name)
        rows, human = table.rows, table.frame["scores"].astype(float).to_numpy()
        n, flat = len(rows), [r for g in rows.references for r in g]
        pairs = weighted_pairs(rows)
        kpw = weighter.piece_weights(pairs)

        cases = {"text alone, backbone layer %d (current)" % encoder.layer: [
            TokenEmbeddings(e.ids, e.offsets, e.vectors, e.special) for e in encoder.encode(rows.candidates + flat)]}
        cases["(question, text), backbone layer %d" % encoder.layer] = shared_pass_embeddings(
            encoder.model, encoder.tokenizer, pairs, encoder.layer)
        for layer in (4, encoder.num_layers):
            cases[f"(question, text), the weighter's layer {layer}"] = shared_pass_embeddings(
                weighter.model.encoder, weighter.tokenizer, pairs, layer)
        for label, embs in cases.items():
            cands, refs = embs[:n], regroup(embs[n:], rows.references)
            plain = score_idf(cands, refs, False)[:, 2]
            weights = [align(e.offsets, *kpw[k]) for k, e in enumerate(embs)]
            weighted = score_embeddings(cands, refs, weights[:n], regroup(weights[n:], rows.references))[:, 2]
            print(f"| {name} | {label} | {corr(plain, human)} | {corr(weighted, human)} |")

    print("\n## --precision bf16 on CPU (encoder and weighter): default suite\n")
    print("| set | metric | fp32 r / rho | bf16 r / rho | largest per-row change |\n|---|---|---|---|---:|")
    scorers = {mode: Scorer(DEFAULT_METRICS, checkpoint=args.checkpoint, device=DEVICE, precision=mode)
               for mode in ("fp32", "bf16")}
    for name in HUMAN_SETS:
        table = read_input(args.data.parent / name)
        human = table.frame["scores"].astype(float).to_numpy()
        scores, cpu = {}, {}
        for mode, scorer in scorers.items():
            scorer.score_rows(take_rows(table.rows, 0, 20))  # load the models
            _cached_spans.cache_clear()
            scorer.models.clear_caches()
            rows = take_rows(table.rows, 0, len(table.rows))
            start = time.process_time()
            scores[mode] = scorer.score_rows(rows)[0]
            cpu[mode] = time.process_time() - start
        for metric in scorer.value_columns(scorer.plan(rows)):
            a, b = scores["fp32"][metric], scores["bf16"][metric]
            print(f"| {name} | {metric} | {corr(a, human)} | {corr(b, human)} | {np.abs(a - b).max():.1e} |")
        print(f"| {name} | CPU seconds | {cpu['fp32']:.1f} | {cpu['bf16']:.1f} | |")


# ------------------------------------------------------------------------------------------------------- main


def machine() -> str:
    cpu = platform.processor() or "cpu"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    import torch

    gpu = f", GPU {torch.cuda.get_device_name()}" if DEVICE.startswith("cuda") else ""
    return (f"{os.cpu_count()} CPU cores ({cpu}){gpu}, torch {torch.__version__} with {torch.get_num_threads()} "
            f"threads, device {DEVICE}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--checkpoint", help="weighter checkpoint (default: the shipped one)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--device", default="cpu", help="where every system runs: cpu (default) or cuda")
    parser.add_argument("--threads", type=int, help="torch intra-op threads for every system (default: torch's)")
    parser.add_argument("--stream-rows", type=int, default=0, help="also measure a streamed run of this many rows")
    parser.add_argument("--chunk-rows", type=int, help="--chunk-rows of the streamed run (default: kpqa's)")
    parser.add_argument("--ablations", action="store_true", help="also time the encoder choices")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--skip-lexical", action="store_true")
    parser.add_argument("--skip-timing", action="store_true", help="only the --ablations / --stream-rows parts")
    parser.add_argument("--variants", action="store_true",
                        help="also the correlations of the variants that change scores (shared pass, bf16)")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device

    import torch

    from kpqa.input import read_input
    from kpqa.rows import take_rows

    if args.threads:
        torch.set_num_threads(args.threads)

    rows = take_rows(read_input(args.data).rows, 0, args.rows)
    n = len(rows)
    print(f"# {n} rows of {args.data.name}; {machine()}; {time.strftime('%Y-%m-%d %H:%M %Z')}")

    if not args.skip_timing:
        timing(args, rows)
    if not args.skip_lexical:
        print("\n## lexical (benchmarks/bench_lexical.py, same rows file)\n")
        out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_lexical.py"), "--data", str(args.data)],
                             capture_output=True, text=True, check=True)
        print(out.stdout)

    if args.ablations:
        print("\n## encoder choices (forward passes only)\n")
        print("| case | wall s | CPU s |\n|---|---:|---:|")
        for name, wall, cpu, _ in ablations(rows, args.repeat):
            print(f"| {name} | {wall:.2f} | {cpu:.2f} |")

    if args.variants:
        variants(args)

    if args.stream_rows:
        with tempfile.TemporaryDirectory() as tmp:
            big = Path(tmp) / "big.csv"
            build_big(args.data, args.stream_rows, big)
            cmd = [sys.executable, "-m", "kpqa.cli", "score", str(big), "-o", str(Path(tmp) / "out.csv"), "--quiet",
                   "--device", DEVICE]
            if args.checkpoint:
                cmd += ["--checkpoint", args.checkpoint]
            if args.chunk_rows:
                cmd += ["--chunk-rows", str(args.chunk_rows)]
            if args.batch_size != 64:
                cmd += ["--batch-size", str(args.batch_size)]
            wall, cpu, peak, samples = peak_rss(cmd)
            written = sum(len(c) for c in pd.read_csv(Path(tmp) / "out.csv", chunksize=10_000, usecols=["answer"]))
            print(f"\n## streamed: {args.stream_rows} rows, `{' '.join(cmd[1:]).replace(tmp, '$TMP')}`\n")
            print(f"wall {wall:.0f} s ({args.stream_rows / wall:.1f} rows/s), CPU {cpu:.0f} s, "
                  f"peak RSS {peak:.0f} MiB ({peak / 1024:.2f} GiB); rows in the output: {written}")
            marks = [samples[int(f * (len(samples) - 1))] for f in (0.1, 0.25, 0.5, 0.75, 1.0)] if samples else []
            print("RSS over the run: " + ", ".join(f"{t:.0f} s: {m:.0f} MiB" for t, m in marks))
    print(f"\ntorch threads: {torch.get_num_threads()}")


if __name__ == "__main__":
    main()
