"""Why KPQA-judge decided a row wrong, in words a person can check: the reference's key phrase that the answer
lacks, found with KPQA's own keyphrase weights (the heaviest reference word the answer does not hold, with the
missing words beside it that carry as much: :func:`kpqa.metrics.kpqa.missing_phrase`, on the lexical tokenizer's
words). ``kpqa score --decide`` writes it in :data:`REASON`; ``kpqa report`` shows it."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from kpqa.calibration import JUDGE
from kpqa.context import Context
from kpqa.metrics.kpqa import KeyMissKPQA, missing_phrase
from kpqa.results import REASON
from kpqa.roles import Role
from kpqa.rows import Rows, select_rows

__all__ = ["EMPTY", "KEY_WEIGHT", "REASON", "WHOLE", "explain", "judge_reasons", "reasons", "text_columns"]
#: the decision column whose rows get a reason
DECIDED = Role.CORRECT.of(JUDGE)
#: a missing word is a key phrase when its keyphrase weight is at least this (below it the answer holds the
#: reference's key words, and it is wrong on the whole: a negation, another relation)
KEY_WEIGHT = 0.3
#: the reason of a row judged wrong whose answer holds the reference's key words
WHOLE = "holds the reference's key words, but reads as another answer"
#: the reason of an empty answer
EMPTY = "no answer"


def reasons(rows: Rows, correct: np.ndarray, context: Callable[[KeyMissKPQA], Context]) -> list[str]:
    """One reason per row of ``rows``: empty where ``correct`` is 1; else ``lacks 'PHRASE'`` (the key phrase of
    the reference it comes closest to holding), :data:`WHOLE` or :data:`EMPTY`. ``context``: the scorer's context
    of a metric (its weighter and tokenizer)."""
    wrong = np.flatnonzero(np.asarray(correct) != 1)
    out = [""] * len(rows)
    if not len(wrong):
        return out
    metric = KeyMissKPQA(tok="words")
    cands, _, refs, refs_w = metric.weighted_tokens(select_rows(rows, wrong.tolist()), context(metric))
    for i, phrase in zip(wrong, explain(cands, refs, refs_w)):
        out[i] = EMPTY if not rows.candidates[i].strip() else phrase
    return out


def explain(cands: Sequence[list[str]], refs: Sequence[list[list[str]]],
            refs_w: Sequence[Sequence[np.ndarray]]) -> list[str]:
    """The reason of each row judged wrong, from its tokens and the references' keyphrase weights."""
    out = []
    for cand, ref, w in zip(cands, refs, refs_w):
        weight, phrase = missing_phrase(cand, ref, w)
        out.append(f"lacks '{phrase}'" if weight >= KEY_WEIGHT and phrase else WHOLE)
    return out


def text_columns(value_columns: Sequence[str]) -> list[str]:
    """The text columns a scorer writes beside ``value_columns``: the judge's reason when KPQA-judge decides."""
    return [REASON] if DECIDED in value_columns else []


def judge_reasons(rows: Rows, decided: dict[str, np.ndarray], context: Callable[[KeyMissKPQA], Context]
                  ) -> dict[str, list[str]]:
    """The text columns of ``rows`` given their decision columns (none when KPQA-judge did not decide them)."""
    return {REASON: reasons(rows, decided[DECIDED], context)} if DECIDED in decided else {}

