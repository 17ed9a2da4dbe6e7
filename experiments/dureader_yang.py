"""Yang et al. (2018) adapted BLEU-4 / ROUGE-L against plain ones on DuReader (Chinese, "zh" character tokens).

DuReader ships no system outputs, so the candidates are built here, reproducibly (nothing random):

* held-out: for each question with at least two answers, each answer in turn is the candidate and the other answers
  are the references (leave-one-out). A YES_NO candidate keeps its own gold opinion label; the gold entities are
  those of the other answers.
* retrieved: the documents' sentences ranked by the share of the question's distinct characters they contain (ties:
  earlier document, then earlier sentence); the top sentence is this crude extractive system's answer, the top
  ``--pool`` sentences form the pool of the ranking checks. References: all answers; entities: all gold entities.
  A retrieved YES_NO sentence carries no opinion of its own, so it is given either a *right* label (carried by some
  reference: the most frequent, ties to the earlier answer's) or a *wrong* one (carried by none: the opposite of Yes
  / No when absent, else Depends). The main table uses the right label, i.e. an oracle opinion classifier.

Table 1 gives corpus BLEU-4 (sums over the group) and mean ROUGE-L (gamma 1.2, max P and max R over references),
plain (alpha = beta = 0) and adapted (alpha = 2, beta = 1 by default), per question type. Table 2 counts, over pairs
of candidates of the same question scored against the same references, how often the one that should win (right
opinion label; contains at least one gold entity) scores above, equal to, or below the other, before and after the
bonuses. Bonuses only ever add, so for the same text with a right vs a wrong label the adapted order holds by
construction; the pairs of different texts are the informative ones. Plain scores ignore labels, so under them
those pairs are symmetric (each has its mirror with the labels swapped): "above" equals "below" by design.

    python experiments/dureader_yang.py [--data ../shared/data/dureader/search.dev.jsonl ...] [--alpha 2 --beta 1]
"""
from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kpqa.metrics.yang import BleuCounts, adapted_rouge_l, bleu_counts, bleu_from_counts
from kpqa.text import get_tokenizer

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "dureader" / "search.dev.jsonl"
TYPES = ("YES_NO", "ENTITY", "DESCRIPTION")
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|\n+")
_PUNCT = re.compile(r"[\W_]", re.UNICODE)


@dataclass
class Candidate:
    """One candidate with its scoring inputs (tokens) and its scores, plain and adapted."""

    qtype: str
    kind: str  # "held-out" or "retrieved"
    text: str
    label: str | None
    references: list[list[str]]
    reference_labels: list[str | None] | None
    entities: list[list[str]]
    has_entity: bool = False
    counts: BleuCounts | None = None
    scores: dict[str, float] = field(default_factory=dict)


def load(paths: list[Path]) -> list[dict]:
    """Questions with at least one non-empty answer, in file order."""
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                q = json.loads(line)
                if any(a.strip() for a in q.get("answers") or []):
                    out.append(q)
    return out


def answers_of(q: dict) -> tuple[list[str], list[str | None], list[list[str]]]:
    """Non-empty answers with their opinion labels (YES_NO only) and their gold entity lists (may be empty)."""
    answers = q["answers"]
    labels = q.get("yesno_answers") or []
    ents = q.get("entity_answers") or []
    keep = [k for k, a in enumerate(answers) if a.strip()]
    lab = [labels[k] if q["question_type"] == "YES_NO" and k < len(labels) else None for k in keep]
    ent = [[e.strip() for e in (ents[k] if k < len(ents) and ents[k] else []) if e.strip()] for k in keep]
    return [answers[k] for k in keep], lab, ent


def sentences(q: dict) -> list[str]:
    """The documents' sentences in document order (search rank), paragraphs split after 。！？!?；; and newlines."""
    out = []
    for doc in q.get("documents") or []:
        for para in doc.get("paragraphs") or []:
            out.extend(s.strip() for s in _SENTENCE_END.split(para) if len(_PUNCT.sub("", s)) >= 4)
    return out


def retrieve(q: dict, tok, k: int) -> list[str]:
    """The ``k`` distinct sentences containing the largest share of the question's distinct characters."""
    question = {t for t in tok(q["question"]) if not _PUNCT.fullmatch(t)}
    seen, ranked = set(), []
    for pos, s in enumerate(sentences(q)):
        if s in seen:
            continue
        seen.add(s)
        ranked.append((-len(question & set(tok(s))) / max(len(question), 1), pos, s))
    return [s for *_, s in sorted(ranked)[:k]]


def right_and_wrong(labels: list[str | None]) -> tuple[str | None, str | None]:
    """A label some reference carries (the most frequent, ties: earliest) and one that none carries."""
    present = [lab for lab in labels if lab]
    if not present:
        return None, None
    right = max(present, key=lambda lab: (present.count(lab), -present.index(lab)))
    absent = [lab for lab in ("Yes", "No", "Depends") if lab not in present]
    opposite = {"Yes": "No", "No": "Yes"}.get(right)
    wrong = opposite if opposite in absent else (absent[0] if absent else None)
    return right, wrong


def contains(tokens: list[str], entity: list[str]) -> bool:
    n = len(entity)
    return any(tokens[i : i + n] == entity for i in range(len(tokens) - n + 1))


def build(questions: list[dict], tok, pool: int) -> tuple[list[Candidate], list[list[Candidate]]]:
    """The main-table candidates and, per question, the retrieved pool (right- and wrong-labelled for YES_NO)."""
    main, pools = [], []
    for q in questions:
        qtype = q["question_type"]
        answers, labels, ents = answers_of(q)
        refs = [tok(a) for a in answers]
        has_labels = any(labels)
        if len(answers) >= 2:
            for k in range(len(answers)):
                others = [j for j in range(len(answers)) if j != k]
                entities = sorted({e for j in others for e in ents[j]})
                main.append(Candidate(
                    qtype, "held-out", answers[k], labels[k], [refs[j] for j in others],
                    [labels[j] for j in others] if has_labels else None, [tok(e) for e in entities],
                ))
        entities = [tok(e) for e in sorted({e for es in ents for e in es})]
        right, wrong = right_and_wrong(labels)
        group = []
        for rank, text in enumerate(retrieve(q, tok, pool)):
            for label in ([right, wrong] if right and wrong else [right]):
                cand = Candidate(qtype, "retrieved", text, label, refs, labels if has_labels else None, entities)
                group.append(cand)
                if rank == 0 and label == right:
                    main.append(cand)
        pools.append(group)
    return main, pools


def score(cands: list[Candidate], tok, alpha: float, beta: float) -> None:
    for c in cands:
        cand = tok(c.text)
        kw = dict(candidate_label=c.label, reference_labels=c.reference_labels, entities=c.entities)
        c.has_entity = any(contains(cand, e) for e in c.entities)
        c.counts = bleu_counts(cand, c.references, **kw)
        c.scores["BLEU-4"] = bleu_from_counts(c.counts, 0, 0)
        c.scores["BLEU-4 adapted"] = bleu_from_counts(c.counts, alpha, beta)
        c.scores["ROUGE-L"] = adapted_rouge_l(cand, c.references, **kw, alpha=0, beta=0).fmeasure
        c.scores["ROUGE-L adapted"] = adapted_rouge_l(cand, c.references, **kw, alpha=alpha, beta=beta).fmeasure


def main_table(cands: list[Candidate], alpha: float, beta: float) -> list[str]:
    lines = [
        "| type | candidates | n | BLEU-4 | BLEU-4 adapted | ROUGE-L | ROUGE-L adapted |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for qtype in TYPES:
        for kind in ("held-out", "retrieved"):
            group = [c for c in cands if c.qtype == qtype and c.kind == kind]
            if not group:
                continue
            counts = [c.counts for c in group]
            rouge = np.mean([c.scores["ROUGE-L"] for c in group])
            rouge_a = np.mean([c.scores["ROUGE-L adapted"] for c in group])
            lines.append(
                f"| {qtype} | {kind} | {len(group)} | {100 * bleu_from_counts(counts, 0, 0):.2f} | "
                f"{100 * bleu_from_counts(counts, alpha, beta):.2f} | {100 * rouge:.2f} | {100 * rouge_a:.2f} |"
            )
    return lines


def _order(pairs: list[tuple[Candidate, Candidate]], metric: str) -> str:
    """``above / equal / below`` counts of the first of each pair against the second."""
    diff = np.array([a.scores[metric] - b.scores[metric] for a, b in pairs])
    return f"{(diff > 1e-12).sum()} / {(np.abs(diff) <= 1e-12).sum()} / {(diff < -1e-12).sum()}"


def ranking_table(pools: list[list[Candidate]]) -> list[str]:
    checks: dict[str, list[tuple[Candidate, Candidate]]] = {
        "YES_NO: right vs wrong label, different sentences": [],
        "YES_NO: right vs wrong label, same sentence": [],
        "ENTITY: sentence with a gold entity vs one without": [],
    }
    for group in pools:
        for a in group:
            for b in group:
                if a.qtype == "YES_NO" and a.reference_labels and a.label and b.label and a.label != b.label:
                    if a.label in a.reference_labels and b.label not in b.reference_labels:
                        texts = "same sentence" if a.text == b.text else "different sentences"
                        checks[f"YES_NO: right vs wrong label, {texts}"].append((a, b))
                if a.qtype == "ENTITY" and a.has_entity and not b.has_entity:
                    checks["ENTITY: sentence with a gold entity vs one without"].append((a, b))
    lines = [
        "| pairs (first should win) | n | ROUGE-L above/equal/below | adapted | BLEU-4 above/equal/below | adapted |",
        "| --- | ---: | --- | --- | --- | --- |",
    ]
    for name, pairs in checks.items():
        if pairs:
            lines.append(
                f"| {name} | {len(pairs)} | {_order(pairs, 'ROUGE-L')} | {_order(pairs, 'ROUGE-L adapted')} | "
                f"{_order(pairs, 'BLEU-4')} | {_order(pairs, 'BLEU-4 adapted')} |"
            )
        else:
            lines.append(f"| {name} | 0 | | | | |")
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, nargs="+", default=[DEFAULT_DATA], help="DuReader JSONL files")
    p.add_argument("--alpha", type=float, default=2.0, help="yes-no bonus weight (default 2.0)")
    p.add_argument("--beta", type=float, default=1.0, help="entity bonus weight (default 1.0)")
    p.add_argument("--pool", type=int, default=5, help="retrieved sentences per question for the ranking checks")
    args = p.parse_args(argv)
    tok = get_tokenizer("zh").tokenize
    questions = load(args.data)
    main_cands, pools = build(questions, tok, args.pool)
    everyone = {id(c): c for c in main_cands + [c for g in pools for c in g]}
    score(list(everyone.values()), tok, args.alpha, args.beta)
    types = Counter(q["question_type"] for q in questions)
    held = [c for c in main_cands if c.kind == "held-out" and c.qtype == "YES_NO"]
    agree = sum(bool(c.label) and c.label in (c.reference_labels or []) for c in held)
    print(f"DuReader {', '.join(p.name for p in args.data)}: {len(questions)} questions with answers "
          f"({', '.join(f'{t} {types[t]}' for t in TYPES)}); zh character tokens; alpha = {args.alpha:g}, "
          f"beta = {args.beta:g}; scores x 100.\n")
    print("\n".join(main_table(main_cands, args.alpha, args.beta)))
    print(f"\nHeld-out YES_NO answers whose label a remaining reference shares: {agree} of {len(held)}.\n")
    print("\n".join(ranking_table(pools)))


if __name__ == "__main__":
    main()
