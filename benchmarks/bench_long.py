"""Time and peak memory of ``kpqa score`` on long texts: a 15,000-character answer, a 200,000-character answer
against a 200,000-character reference, and a 5,000,000-character answer (issue 40).

Usage: python benchmarks/bench_long.py [--squad ../shared/data/squad] [--out /tmp/kpqa-long] [--only NAME ...]

The texts are real prose: SQuAD paragraphs joined in order (dev-v1.1.json; train-v1.1.json for the 5 MB answer),
cut at a space. Each case runs ``kpqa score FILE -o OUT --quiet`` in a subprocess under ``/usr/bin/time -v`` (peak
RSS, wall and CPU time) and is printed as a Markdown table row with its command and the last line it printed.
"""
from __future__ import annotations

import argparse
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SQUAD = REPO.parent / "shared" / "data" / "squad"
#: name -> (file, extra arguments of ``kpqa score``)
CASES = {
    "15k, default suite": ("long15k.csv", []),
    "200k, default suite": ("long200k.csv", []),
    "200k, METEOR, CIDEr, EM, F1": ("long200k.csv", ["--metrics", "METEOR,CIDEr,EM,F1"]),
    "5MB, default suite": ("big5mb.csv", []),
    "5MB, default suite, --on-error skip": ("big5mb.csv", ["--on-error", "skip"]),
}


def paragraphs(path: Path) -> list[tuple[str, str, str]]:
    """(context, first question, its first answer) of every SQuAD paragraph, in file order."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    return [(p["context"], p["qas"][0]["question"], p["qas"][0]["answers"][0]["text"])
            for article in data for p in article["paragraphs"]]


def prose(contexts: list[str], chars: int, start: int = 0) -> str:
    """Paragraphs from ``start`` on, joined by spaces (wrapping round), cut at the last space within ``chars``."""
    parts, total, k = [], 0, start
    while total < chars:
        parts.append(contexts[k % len(contexts)])
        total += len(parts[-1]) + 1
        k += 1
    text = " ".join(parts)
    return text[: text.rfind(" ", 0, chars + 1)]


def build(squad: Path, out: Path) -> None:
    """Write the three input files into ``out``."""
    dev = paragraphs(squad / "dev-v1.1.json")
    contexts = [c for c, _, _ in dev]
    context, question, answer = dev[0]
    sentence = next(s for s in re.split(r"(?<=\.) ", context) if answer in s)  # a normal reference
    ends = itertools.accumulate(len(c) + 1 for c in contexts)
    half = next(k for k, end in enumerate(ends, 1) if end >= 100_000)  # the reference starts mid-answer
    rows = {
        "long15k.csv": (prose(contexts, 15_000), sentence),
        "long200k.csv": (prose(contexts, 200_000), prose(contexts, 200_000, half)),
    }
    for name, (cand, ref) in rows.items():
        pd.DataFrame({"question": [question], "answer": [cand], "reference": [ref]}).to_csv(out / name, index=False)
    train = [c for c, _, _ in paragraphs(squad / "train-v1.1.json")]
    sample = pd.read_csv(REPO / "examples" / "sample.csv")[["question", "answer", "reference1"]]
    big = pd.DataFrame({"question": [question], "answer": [prose(train, 5_000_000)], "reference1": [sentence]})
    pd.concat([sample, big]).to_csv(out / "big5mb.csv", index=False)


def measure(cmd: list[str]) -> dict[str, str | float | int]:
    """Run ``cmd`` under ``/usr/bin/time -v``: exit code, wall and CPU seconds, peak RSS (MiB), last output line."""
    done = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    report = dict(re.findall(r"^\s*(.+?): (.+)$", done.stderr, re.M))
    said = done.stdout + done.stderr[: done.stderr.rfind("\tCommand being timed")]
    lines = [x for x in said.splitlines() if x and not x.startswith("Command exited with non-zero status")]
    clock = [float(x) for x in report["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")]
    return {
        "exit": done.returncode,
        "wall": sum(x * 60**i for i, x in enumerate(reversed(clock))),
        "cpu": float(report["User time (seconds)"]) + float(report["System time (seconds)"]),
        "rss": int(report["Maximum resident set size (kbytes)"]) / 1024,
        "last": lines[-1] if lines else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squad", type=Path, default=SQUAD)
    parser.add_argument("--out", type=Path, default=Path("/tmp/kpqa-long"))
    parser.add_argument("--only", nargs="*", choices=list(CASES), help="cases to run (default: all)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if not all((args.out / f).exists() for f, _ in CASES.values()):
        build(args.squad, args.out)
    print("| case | command | exit | peak RSS (MiB) | wall (CPU) s | last line |\n|---|---|---:|---:|---:|---|")
    for name in args.only or CASES:
        file, extra = CASES[name]
        out = f"out{list(CASES).index(name) + 1}.csv"
        m = measure([sys.executable, "-m", "kpqa", "score", str(args.out / file), "-o", str(args.out / out),
                     "--quiet", *extra])
        shown = " ".join(["kpqa score", file, "-o", out, "--quiet", *extra])
        print(f"| {name} | `{shown}` | {m['exit']} | {m['rss']:,.0f} | {m['wall']:.1f} ({m['cpu']:.1f}) | "
              f"{str(m['last'])[:160]} |", flush=True)


if __name__ == "__main__":
    main()
