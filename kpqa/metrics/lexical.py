"""What the lexical metrics share: the tokenized form of a batch of rows."""
from __future__ import annotations

from kpqa.metrics.base import Context, Rows
from kpqa.text import get_tokenizer

Tokens = list[str]


def tokenize_rows(rows: Rows, ctx: Context) -> tuple[list[Tokens], list[list[Tokens]]]:
    """Candidate tokens and reference tokens (one list per reference) of every row, with ``ctx.tokenizer``."""
    tok = get_tokenizer(ctx.tokenizer).tokenize
    return [tok(c) for c in rows.candidates], [[tok(r) for r in refs] for refs in rows.references]
