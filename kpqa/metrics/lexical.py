"""What the lexical metrics share: the tokenized form of a batch of rows, and the check of per-token weights."""
from __future__ import annotations

from typing import Sequence

from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.text import get_tokenizer

Tokens = list[str]


def tokenize_rows(rows: Rows, ctx: Context) -> tuple[list[Tokens], list[list[Tokens]]]:
    """Candidate tokens and reference tokens (one list per reference) of every row, with ``ctx.tokenizer``."""
    tok = get_tokenizer(ctx.tokenizer).tokenize
    return [tok(c) for c in rows.candidates], [[tok(r) for r in refs] for refs in rows.references]


def check_weights(cand: Sequence[str], cand_w: Sequence[float], refs: Sequence[Sequence[str]],
                  refs_w: Sequence[Sequence[float]]) -> None:
    """``ValueError`` unless there is one weight per token of the candidate and of every reference."""
    if len(cand_w) != len(cand):
        raise ValueError(f"{len(cand_w)} weights for {len(cand)} candidate tokens")
    if len(refs_w) != len(refs) or any(len(w) != len(r) for r, w in zip(refs, refs_w)):
        raise ValueError("reference weights do not match the reference tokens")
