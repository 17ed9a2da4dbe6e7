"""Yang et al.'s adapted BLEU-4 / ROUGE-L with labels found automatically (``labels=auto``), measured against people.

1. Human sets: Pearson r on MS-MARCO (``marco_all.csv``) and NarrativeQA (``nrqa_mhpgm.csv``), AUROC (and r) on
   EVOUNA-TQ (``evouna_tq_dev.csv``), for BLEU-4 / ROUGE-L, their Yang forms with automatic labels (both bonuses;
   BLEU-4 also with none, ``alpha=0:beta=0``: Yang's sentence BLEU-4 has no smoothing, the plain BLEU-4 COCO's;
   ROUGE-L also with the entity bonus alone, ``alpha=0``, and the opinion bonus alone, ``beta=0``) and the KPQA
   forms; with how many rows each automatic label touched and how many texts the weighter read with and without
   the Yang forms (one scorer, one weighter cache: the Yang forms read only the (question, reference) pairs the
   KPQA metrics read too).
2. Opinion labels: accuracy per gold class on DuReader's yes-no answers (dev; train beside it) and on the
   hand-written English set ``tests/data/yesno_opinions.csv`` (and its part without "yes" / "no").
3. DuReader question types against the gold ``question_type``; entities: the weighter's spans on the answers of
   entity questions against the gold ``entity_answers`` (exact strings and characters), and how much of the
   Chinese text the weighter's vocabulary reads.
4. DuReader yes-no answers scored leave-one-out (each answer against the others, as ``experiments/dureader_yang.py``'s
   held-out rows): plain, with the gold opinion labels and with the automatic ones.

    python experiments/yang_auto.py [--data ../shared/data] [--device cpu] [--limit N]
"""
from __future__ import annotations

import argparse
import csv
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr

from kpqa.arraystats import auroc
from kpqa.input import read_input
from kpqa.metrics import Context, Rows
from kpqa.metrics.labels import (
    DEPENDS, ENTITY, NO, OPINIONS, QUESTION_TYPES, YES, YES_NO, find_labels, keyphrase_spans, opinion, question_type)
from kpqa.metrics.yang import adapted_rouge_l, bleu_counts, bleu_from_counts
from kpqa.scoring import Scorer
from kpqa.text import get_tokenizer

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SETS = {"MS-MARCO": ("human_eval/marco_all.csv", "r"), "NarrativeQA": ("human_eval/nrqa_mhpgm.csv", "r"),
        "EVOUNA-TQ": ("human_eval/evouna_tq_dev.csv", "AUROC")}
KPQA = ["BLEU-1-KPQA", "ROUGE-L-KPQA"]
METRICS = ["BLEU-4", "BLEU-4-adapted:labels=auto", "BLEU-4-adapted:labels=auto:alpha=0:beta=0",
           "ROUGE-L", "ROUGE-L-adapted:labels=auto",
           "ROUGE-L-adapted:labels=auto:alpha=0", "ROUGE-L-adapted:labels=auto:beta=0", *KPQA]
ENGLISH_SET = REPO / "tests" / "data" / "yesno_opinions.csv"


class Counting:
    """The weighter, counting the (question, text) pairs it computes (cache misses)."""

    def __init__(self, weighter) -> None:
        self.weighter, self.computed = weighter, 0
        real = weighter._compute

        def compute(keys, *args, **kwargs):
            self.computed += len(keys)
            return real(keys, *args, **kwargs)

        weighter._compute = compute


def human_sets(data: Path, device: str, limit: int | None) -> tuple[list[str], dict]:
    from kpqa.models.weighter import Weighter

    weighter = Weighter.load(device=device)
    counter = Counting(weighter)
    lines = ["| metric | " + " | ".join(f"{n} ({s})" for n, (_, s) in SETS.items()) + " | EVOUNA-TQ (r) |",
             "| --- | " + " | ".join("---:" for _ in SETS) + " | ---: |"]
    cells: dict[str, list[str]] = {m: [] for m in METRICS}
    coverage, record = [], {}
    for name, (rel, statistic) in SETS.items():
        table = read_input(data / rel)
        rows = table.rows if limit is None else _head(table.rows, limit)
        human = table.frame["scores"].to_numpy(dtype=float)[: len(rows)]
        weighter.clear_cache()
        counter.computed = 0
        Scorer(KPQA, weighter=weighter, device=device).score_rows(rows, table.source)
        kpqa_only = counter.computed
        scores = Scorer(METRICS, weighter=weighter, device=device).score_rows(rows, table.source)[0]
        extra = counter.computed - kpqa_only
        for m in METRICS:
            value = auroc(human, scores[m]) if statistic == "AUROC" else pearsonr(scores[m], human)[0]
            cells[m].append(f"{float(value):.3f}")
            record[f"{name}/{m}"] = float(value)
            if name == "EVOUNA-TQ":
                record[f"{name}/{m}/r"] = float(pearsonr(scores[m], human)[0])
        record[f"{name}/BLEU-4-adapted zero"] = float(np.mean(scores["BLEU-4-adapted:labels=auto"] == 0))
        coverage.append(_coverage(name, rows, Context(tokenizer="ptb", weighter=weighter), kpqa_only, extra))
    for m in METRICS:
        lines.append(f"| {m} | " + " | ".join(cells[m]) + f" | {record[f'EVOUNA-TQ/{m}/r']:.3f} |")
    return lines + ["", "What the automatic labels touched, and the weighter's work:", "",
                    "| set | rows | yes-no questions | candidate shares a reference's opinion | entity questions | "
                    "rows with entities (mean per row) | texts weighed: KPQA metrics | more for the Yang forms |",
                    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", *coverage, "", summary(record)], record


def summary(record: dict[str, float]) -> str:
    """What helps where, in one paragraph computed from the human-set figures."""
    def gaps(a: str, b: str) -> str:
        return ", ".join(f"{record[f'{n}/{a}'] - record[f'{n}/{b}']:+.3f} {s} on {n}" for n, (_, s) in SETS.items())

    rouge, bleu = "ROUGE-L-adapted:labels=auto", "BLEU-4-adapted:labels=auto"
    zeros = ", ".join(f"{100 * record[f'{n}/BLEU-4-adapted zero']:.0f}% of the rows of {n}" for n in SETS)
    return (f"What helps where. The entity bonus (ROUGE-L with it alone minus ROUGE-L): "
            f"{gaps(rouge + ':alpha=0', 'ROUGE-L')}. The yes-no bonus alone: {gaps(rouge + ':beta=0', 'ROUGE-L')} "
            f"(these sets hold few yes-no questions). BLEU-4's bonuses (with minus without): "
            f"{gaps(bleu, bleu + ':alpha=0:beta=0')}; Yang's sentence BLEU-4 has no smoothing and is 0 for {zeros}. "
            f"The KPQA forms stay ahead (ROUGE-L-KPQA minus {rouge}: {gaps('ROUGE-L-KPQA', rouge)}).")


def _head(rows: Rows, n: int) -> Rows:
    from kpqa.rows import take_rows

    return take_rows(rows, 0, n)


def _coverage(name: str, rows: Rows, ctx: Context, kpqa_only: int, extra: int) -> str:
    found = find_labels(rows, ctx)
    yes_no = [f for f in found if f.qtype == YES_NO]
    agree = sum(f.candidate_label in (f.reference_labels or []) for f in yes_no)
    with_entities = [len(f.entities) for f in found if f.entities]
    mean = f"{np.mean(with_entities):.1f}" if with_entities else "-"
    return (f"| {name} | {len(rows)} | {len(yes_no)} | {agree} | {sum(f.qtype == ENTITY for f in found)} | "
            f"{len(with_entities)} ({mean}) | {kpqa_only} | {extra} |")


def per_class(pairs: list[tuple[str, str]], classes=OPINIONS) -> str:
    """``right / total`` per gold class of (gold, predicted) pairs, then overall."""
    total, right = Counter(g for g, _ in pairs), Counter(g for g, p in pairs if g == p)
    cells = [f"{right[c]} / {total[c]}" if total[c] else "-" for c in classes]
    return " | ".join(cells) + f" | {sum(right.values())} / {len(pairs)}"


def dureader(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def opinions(data: Path) -> list[str]:
    lines = ["| answers | " + " | ".join(OPINIONS) + " | all |", "| --- | " + " | ".join("---:" for _ in OPINIONS)
             + " | ---: |"]
    for split in ("dev", "train"):
        pairs = [(g, opinion(a, q["question"])) for q in dureader(data / f"dureader/search.{split}.jsonl")
                 if q["question_type"] == YES_NO for a, g in zip(q["answers"], q.get("yesno_answers") or [])]
        lines.append(f"| DuReader {split}, yes-no answers (Chinese rules) | {per_class(pairs)} |")
    with open(ENGLISH_SET, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    pairs = [(r["label"], opinion(r["answer"], r["question"])) for r in rows]
    bare = [p for p, r in zip(pairs, rows) if not re.search(r"\b(yes|no)\b", r["answer"].lower())]
    lines.append(f"| English set (`tests/data/yesno_opinions.csv`) | {per_class(pairs)} |")
    lines.append(f"| English set, answers without \"yes\" / \"no\" | {per_class(bare)} |")
    return lines


def question_types(data: Path) -> list[str]:
    lines = ["| split | " + " | ".join(QUESTION_TYPES) + " | all |",
             "| --- | " + " | ".join("---:" for _ in QUESTION_TYPES) + " | ---: |"]
    for split in ("dev", "train"):
        questions = dureader(data / f"dureader/search.{split}.jsonl")
        pairs = [(q["question_type"], question_type(q["question"])) for q in questions]
        lines.append(f"| DuReader {split} | {per_class(pairs, QUESTION_TYPES)} |")
    return lines


def entities(data: Path, device: str) -> list[str]:
    """The weighter's spans on DuReader dev's entity answers (zh characters) against the gold entities."""
    from kpqa.models.weighter import Weighter

    weighter = Weighter.load(device=device)
    zh = get_tokenizer("zh")
    pairs, gold = [], []
    for q in dureader(data / "dureader/search.dev.jsonl"):
        ents = q.get("entity_answers") or []
        for k, answer in enumerate(q["answers"]):
            if q["question_type"] == ENTITY and k < len(ents) and ents[k] and answer.strip():
                pairs.append((q["question"], answer))
                gold.append({"".join(zh.tokenize(e)) for e in ents[k] if e.strip()})
    found = tp = n_pred = n_gold = 0
    char_tp = char_pred = char_gold = 0
    for (_, answer), weights, g in zip(pairs, weighter.word_weights(pairs, zh), gold):
        tokens = zh.tokenize(answer)
        pred = {"".join(s) for s in keyphrase_spans(tokens, weights)}
        tp, n_pred, n_gold = tp + len(pred & g), n_pred + len(pred), n_gold + len(g)
        found += bool(pred)
        inside = np.asarray(weights) >= 0.5
        in_gold = _in_entities(tokens, g)
        char_tp, char_pred, char_gold = char_tp + int((inside & in_gold).sum()), char_pred + int(inside.sum()), \
            char_gold + int(in_gold.sum())
    han = [c for q in dureader(data / "dureader/search.dev.jsonl") for a in q["answers"] for c in a
           if "\u4e00" <= c <= "\u9fff"]
    unk = weighter.tokenizer.unk_token_id
    distinct = sorted(set(han))
    unknown = {c for c in distinct if weighter.tokenizer.convert_tokens_to_ids(c) == unk}
    share = sum(c in unknown for c in han) / max(len(han), 1)
    return [f"DuReader dev, {len(pairs)} answers to entity questions with gold entities ({n_gold} entity strings): "
            f"spans found in {found}; exact-string precision {tp} / {n_pred} = {tp / max(n_pred, 1):.3f}, recall "
            f"{tp} / {n_gold} = {tp / max(n_gold, 1):.3f}; characters weighted >= 0.5: precision {char_tp} / "
            f"{char_pred} = {char_tp / max(char_pred, 1):.3f}, recall {char_tp} / {char_gold} = "
            f"{char_tp / max(char_gold, 1):.3f}. The weighter's vocabulary holds {len(distinct) - len(unknown)} of "
            f"the {len(distinct)} distinct Chinese characters of dev's answers ({100 * (1 - share):.1f}% of the "
            "character occurrences); the others are [UNK]."]


def _in_entities(tokens: list[str], entities: set[str]) -> np.ndarray:
    """Per token, whether it lies in an occurrence of one of ``entities`` (strings of joined tokens)."""
    out = np.zeros(len(tokens), dtype=bool)
    for i in range(len(tokens)):
        for j in range(i + 1, len(tokens) + 1):
            if "".join(tokens[i:j]) in entities:
                out[i:j] = True
    return out


def auto_vs_gold(data: Path, alpha: float = 2.0, beta: float = 1.0) -> list[str]:
    """Leave-one-out yes-no answers of DuReader dev and train: plain, gold-label and automatic-label scores."""
    lines = ["| split | labels | n | BLEU-4 adapted (corpus) | ROUGE-L adapted (mean) |",
             "| --- | --- | ---: | ---: | ---: |"]
    notes = []
    for split in ("dev", "train"):
        rows, note = _auto_vs_gold(dureader(data / f"dureader/search.{split}.jsonl"), split, alpha, beta)
        lines += rows
        notes.append(note)
    return lines + ["", " ".join(notes)]


def _auto_vs_gold(questions: list[dict], split: str, alpha: float, beta: float) -> tuple[list[str], str]:
    tok = get_tokenizer("zh").tokenize
    rouge: dict[str, list[float]] = {"plain": [], "gold": [], "auto": []}
    counts: dict[str, list] = {"plain": [], "gold": [], "auto": []}
    same = 0
    gold_same = 0
    for q in questions:
        answers = [a for a in q["answers"] if a.strip()]
        labels = (q.get("yesno_answers") or [])[: len(answers)]
        if q["question_type"] != YES_NO or len(answers) < 2 or len(labels) != len(answers):
            continue
        auto = [opinion(a, q["question"], "zh") for a in answers]
        for k, answer in enumerate(answers):
            refs = [tok(a) for j, a in enumerate(answers) if j != k]
            for kind, lab in (("plain", None), ("gold", labels), ("auto", auto)):
                kw = {"candidate_label": lab[k], "reference_labels": [x for j, x in enumerate(lab) if j != k]} \
                    if lab else {}
                rouge[kind].append(adapted_rouge_l(tok(answer), refs, **kw, alpha=alpha, beta=beta).fmeasure)
                counts[kind].append(bleu_counts(tok(answer), refs, **kw))
            same += counts["gold"][-1].same == counts["auto"][-1].same
            gold_same += labels[k] in [x for j, x in enumerate(labels) if j != k]
    n = len(rouge["plain"])
    return ([f"| {split} | {kind} | {n} | {100 * bleu_from_counts(counts[kind], alpha, beta):.2f} | "
             f"{100 * np.mean(rouge[kind]):.2f} |" for kind in rouge],
            f"{split}: {gold_same} of the {n} answers share their gold label with another answer of their question; "
            f"the yes-no bonus counts are the same under automatic and gold labels for {same} of {n}.")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--device", default="cpu")
    p.add_argument("--limit", type=int, default=None, help="score only the first N rows of each human set")
    p.add_argument("--json", type=Path, default=None, help="also write the human-set figures here")
    p.add_argument("--skip-human", action="store_true", help="leave out part 1 (the scoring of the human sets)")
    args = p.parse_args(argv)
    out = []
    if not args.skip_human:
        table, record = human_sets(args.data, args.device, args.limit)
        out += ["Human sets (`kpqa score FILE --metrics " + ",".join(METRICS) + "`):", "", *table, ""]
        if args.json:
            args.json.write_text(json.dumps(record, indent=1), encoding="utf-8")
    out += ["Opinion labels against the gold ones (right / total per gold class):", "", *opinions(args.data), "",
            "Question types against DuReader's gold ones (right / total per gold type):", "",
            *question_types(args.data), "", "Entities:", "", *entities(args.data, args.device), "",
            "DuReader dev, yes-no answers scored leave-one-out (zh characters, alpha = 2, beta = 1; scores x 100):",
            "", *auto_vs_gold(args.data)]
    print("\n".join(out))


if __name__ == "__main__":
    main()
