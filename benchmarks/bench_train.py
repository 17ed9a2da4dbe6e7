"""Training speed of the weighter on this machine: windows/s and dev loss for a grid of trainer settings.

Usage: python benchmarks/bench_train.py [--data squad@1000:../shared/data/squad/train-v1.1.json] [--batch-sizes 16,32]
       [--precisions fp32,bf16] [--backbones minilm] [--lora-rank 0] [--threads N]

Every cell is one real ``kpqa train`` run in its own process (accelerate fixes the precision once per process; one
epoch, the same seeded examples and split) in a temporary folder, so the dev loss says whether a faster setting
still learns the same. The speed is the trainer's own
``train_windows_per_second`` (optimizer steps only, no data loading or evaluation). Cells run one after another
in the order given; other load on the machine lowers every figure, so compare cells of one run only.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

import torch

from kpqa.models.device import PRECISIONS
from kpqa.train.trainer import TrainConfig


def integers(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def names(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def main(argv: list[str] | None = None) -> int:
    d = TrainConfig(data=[], output="")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", action="append", default=None,
                    help="training source as for kpqa train (default: 1,000 seeded SQuAD train questions)")
    ap.add_argument("--batch-sizes", type=integers, default=[d.batch_size, 2 * d.batch_size])
    ap.add_argument("--precisions", type=names, default=["fp32", "bf16"])
    ap.add_argument("--backbones", type=names, default=["minilm"])
    ap.add_argument("--lora-rank", type=int, default=d.lora_rank)
    ap.add_argument("--lr", type=float, default=d.lr)
    ap.add_argument("--threads", type=int, default=None, help="torch threads of each run (default: torch's choice)")
    args = ap.parse_args(argv)
    if bad := [p for p in args.precisions if p not in PRECISIONS]:
        ap.error(f"--precisions: {bad[0]!r} is not one of {', '.join(PRECISIONS)}")
    env = dict(os.environ)
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    data = args.data or ["squad@1000:../shared/data/squad/train-v1.1.json"]
    threads = args.threads or torch.get_num_threads()
    print(f"# {date.today()} · {platform.processor() or platform.machine()} · {threads} threads · "
          f"torch {torch.__version__} · data {' '.join(data)} · lora rank {args.lora_rank}\n")
    print("| backbone | batch | precision | train windows | seconds | windows/s | dev loss | dev K-F1 |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for backbone in args.backbones:
        for batch in args.batch_sizes:
            for precision in args.precisions:
                with tempfile.TemporaryDirectory(prefix="kpqa-bench-train-") as out:
                    command = [sys.executable, "-m", "kpqa.train.cli", "--output", out, "--epochs", "1",
                               "--batch-size", str(batch), "--lr", str(args.lr), "--backbone", backbone,
                               "--lora-rank", str(args.lora_rank), "--precision", precision,
                               "--save-every", str(10**9), *[x for d in data for x in ("--data", d)]]
                    if subprocess.run(command, stdout=subprocess.DEVNULL, env=env).returncode:
                        sys.exit(f"bench_train.py: the {backbone} / batch {batch} / {precision} run failed "
                                 "(its error is above)")
                    meta = json.loads((Path(out) / "metadata.json").read_text())
                print(f"| {backbone} | {batch} | {precision} | {meta['examples']['train_windows']:,} | "
                      f"{meta['training_seconds']:.0f} | {meta['train_windows_per_second']:.1f} | "
                      f"{meta['dev_fp32']['loss']:.4f} | {meta['dev_fp32']['k_f1']:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
