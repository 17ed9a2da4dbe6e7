"""Show the keyphrase weights the KPQA metrics use, as a heat map over the reference and candidate texts (like the
KPQA paper's Table 5): HTML with inline styles (no matplotlib), PNG through matplotlib, or plain text.

``unit="word"`` shows one weight per word of the lexical tokenizer (``Weighter.word_weights``: the weights BLEU-1-
and ROUGE-L-KPQA use with ``:tok=words``); ``unit="piece"`` shows the weighter's own word pieces
(``Weighter.piece_weights``), the tokens the KPQA metrics use by default. Text the tokenizer drops (punctuation for
``ptb``) is shown unweighted. Any object with ``piece_weights`` / ``word_weights``
of :class:`kpqa.models.weighter.Weighter`'s shape works as the weighter.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from kpqa.errors import Param, UsageError
from kpqa.lengths import check_length, model_limit
from kpqa.types import Floats

UNITS = ("word", "piece")
#: the weights' colours, 0 to 1: ColorBrewer's nine Reds (#fff5f0 ... #67000d) as matplotlib's ``Reds`` holds them
#: (RGB in [0, 1], to the bit: the HTML's colours are the PNG heat map's, :func:`kpqa.plots.weight_heatmap`), read
#: as matplotlib reads a colour map: a table of :data:`RAMP_STEPS` colours interpolated linearly between them
REDS = ((1.0, 0.9607843137254902, 0.9411764705882353), (0.996078431372549, 0.8784313725490196, 0.8235294117647058),
        (0.9882352941176471, 0.7333333333333333, 0.6313725490196078),
        (0.9882352941176471, 0.5725490196078431, 0.4470588235294118),
        (0.984313725490196, 0.41568627450980394, 0.2901960784313726),
        (0.9372549019607843, 0.23137254901960785, 0.17254901960784313),
        (0.796078431372549, 0.09411764705882353, 0.11372549019607843),
        (0.6470588235294118, 0.058823529411764705, 0.08235294117647057), (0.403921568627451, 0.0, 0.05098039215686274))
RAMP_STEPS = 256


@dataclass
class Line:
    """One text: a label (``Reference 1``, ``Candidate``...) and segments covering the whole text, each with its
    weight (None: not weighted: spaces, dropped punctuation, or a line shown without weights like the question)."""

    label: str
    segments: list[tuple[str, float | None]]


@dataclass
class Explanation:
    """Lines to draw and the scores to print under them."""

    lines: list[Line]
    scores: dict[str, float] = field(default_factory=dict)
    unit: str = "word"
    normalized: bool = False


def segments(text: str, spans: Sequence[tuple[int, int]], weights: Floats) -> list[tuple[str, float | None]]:
    """Cut ``text`` into weighted spans and the unweighted gaps between them (together: the whole text)."""
    out: list[tuple[str, float | None]] = []
    pos = 0
    for (start, end), weight in sorted(zip((tuple(map(int, s)) for s in spans), weights)):
        if start < pos:  # overlapping spans: keep the first
            continue
        if start > pos:
            out.append((text[pos:start], None))
        out.append((text[start:end], float(weight)))
        pos = end
    if pos < len(text):
        out.append((text[pos:], None))
    return out


def _normalize(weights: np.ndarray) -> np.ndarray:
    if weights.size == 0 or np.ptp(weights) == 0:
        return np.ones_like(weights) if weights.size and weights.max() > 0 else weights
    return (weights - weights.min()) / np.ptp(weights)


def explain(
    question: str,
    references: str | Sequence[str],
    candidate: str,
    weighter: Any,
    *,
    tokenize: str = "ptb",
    unit: str = "word",
    normalize: bool = False,
    scores: Mapping[str, float] | None = None,
) -> Explanation:
    """Weights of each reference and the candidate given the question. ``normalize``: min-max per text, as the
    paper's Table 5 (raw K-probabilities are already in [0, 1])."""
    if unit not in UNITS:
        raise UsageError(Param("unit", unit), f": must be one of {', '.join(UNITS)}")
    refs = [references] if isinstance(references, str) else list(references)
    if not refs or not all(r.strip() for r in refs) or not candidate.strip():
        raise UsageError("explain needs a non-empty candidate and at least one non-empty reference")
    texts = refs + [candidate]
    labels = [f"Reference {k}" if len(refs) > 1 else "Reference" for k in range(1, len(refs) + 1)] + ["Candidate"]
    lines = [Line("Question", [(question, None)])] if question.strip() else []
    for label, text, segs in zip(labels, texts, weigh([(question, t) for t in texts], weighter, tokenize=tokenize,
                                                      unit=unit, normalize=normalize)):
        lines.append(Line(label, segs))
    return Explanation(lines, dict(scores or {}), unit, normalize)


def weigh(pairs: Sequence[tuple[str, str]], weighter: Any, *, tokenize: str = "ptb", unit: str = "word",
          normalize: bool = False) -> list[list[tuple[str, float | None]]]:
    """The :func:`segments` of each (question, text)'s text with its weights, all pairs in one call to the weighter
    (which batches them by length); ``unit`` and ``normalize`` as in :func:`explain`."""
    if unit not in UNITS:
        raise UsageError(Param("unit", unit), f": must be one of {', '.join(UNITS)}")
    texts = [t for _, t in pairs]
    if unit == "word":
        from kpqa.text import get_tokenizer, resolve_tokenizer

        tokenizer = get_tokenizer(resolve_tokenizer(tokenize, texts))
        weights = weighter.word_weights(pairs, tokenizer)
        spans = [[(s, e) for _, s, e in tokenizer.spans(t)] for t in texts]
    else:
        pieces = weighter.piece_weights(pairs)
        spans = [offsets.tolist() for offsets, _ in pieces]
        weights = [probs for _, probs in pieces]
    out = []
    for text, sp, w in zip(texts, spans, weights):
        w = np.asarray(w, dtype=float)
        if len(w) != len(sp):
            raise ValueError(f"{text[:40]!r}: {len(w)} weights for {len(sp)} tokens")
        out.append(segments(text, sp, _normalize(w) if normalize else w))
    return out


def _ramp(colours: Sequence[tuple[float, float, float]] = REDS, steps: int = RAMP_STEPS) -> np.ndarray:
    """[steps, 3] RGB in [0, 1]: ``colours`` evenly spaced over the table and linearly interpolated between, in the
    arithmetic of matplotlib's ``LinearSegmentedColormap.from_list`` (so each entry is its colour map's, to the bit)."""
    rgb = np.array(colours, dtype=float)
    x = np.linspace(0, 1, len(colours)) * (steps - 1)
    at = (steps - 1) * np.linspace(0, 1, steps)
    ind = np.searchsorted(x, at)[1:-1]
    distance = ((at[1:-1] - x[ind - 1]) / (x[ind] - x[ind - 1]))[:, None]
    inner = distance * (rgb[ind] - rgb[ind - 1]) + rgb[ind - 1]
    return np.clip(np.concatenate([rgb[:1], inner, rgb[-1:]]), 0.0, 1.0)


_RAMP = _ramp()


def _color(weight: float) -> tuple[str, str]:
    """(background hex, text colour) of a weight in [0, 1] (clipped): its entry of the :data:`REDS` table."""
    r, g, b = _RAMP[min(int(float(np.clip(weight, 0.0, 1.0)) * RAMP_STEPS), RAMP_STEPS - 1)]
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}", "#ffffff" if weight > 0.6 else "#000000"


def palette(steps: int = 100) -> list[tuple[str, str]]:
    """(background hex, text colour) of the weights 0, 1/steps, ..., 1: the colours of :func:`to_html`."""
    return [_color(k / steps) for k in range(steps + 1)]


def to_html(explanation: Explanation, title: str = "KPQA keyphrase weights") -> str:
    """A standalone HTML page (inline styles only); hovering a token shows its weight."""
    rows = []
    for line in explanation.lines:
        spans = []
        for text, weight in line.segments:
            if weight is None:
                spans.append(html.escape(text))
            else:
                bg, fg = _color(weight)
                spans.append(f'<span style="background-color:{bg};color:{fg};padding:1px 2px;border-radius:2px" '
                             f'title="{weight:.3f}">{html.escape(text)}</span>')
        rows.append('<tr><th style="text-align:right;vertical-align:top;padding:6px 12px 6px 0;white-space:nowrap">'
                    f'{html.escape(line.label)}</th><td style="padding:6px 0;line-height:1.9">{"".join(spans)}</td></tr>')
    legend = "".join(f'<span style="display:inline-block;width:22px;height:12px;background-color:{_color(v)[0]}"></span>'
                     for v in np.linspace(0, 1, 11))
    what = "min-max normalized per text" if explanation.normalized else "K-probability"
    scores = ", ".join(f"{html.escape(k)}: {v:.3f}" for k, v in explanation.scores.items())
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title></head>\n"
        '<body style="font-family:Helvetica,Arial,sans-serif;font-size:15px;margin:24px;max-width:960px;color:#111">\n'
        f'<h1 style="font-size:18px">{html.escape(title)}</h1>\n'
        f'<table style="border-collapse:collapse">{"".join(rows)}</table>\n'
        + (f'<p style="margin-top:14px">{scores}</p>\n' if scores else "")
        + f'<p style="font-size:12px;color:#555">weight ({explanation.unit}, {what}): 0 {legend} 1</p>\n'
        "</body></html>\n"
    )


def to_text(explanation: Explanation) -> str:
    """Plain text: every weighted token followed by its weight in brackets."""
    out = []
    for line in explanation.lines:
        body = "".join(t if w is None else f"{t}[{w:.2f}]" for t, w in line.segments)
        out.append(f"{line.label}: {body}")
    out += [f"{k}: {v:.3f}" for k, v in explanation.scores.items()]
    return "\n".join(out)


def to_png(explanation: Explanation, path: str | Path, title: str = "", *, inputs: Sequence[Any] = (),
           force: bool = False) -> Path:
    """The heat map as a figure (whitespace dropped, every other segment a box, a colour scale below): PNG, or PDF /
    SVG by ``path``'s extension; ``inputs`` / ``force`` as in :class:`kpqa.output.Destination`."""
    from kpqa.plots import weight_heatmap

    lines = []
    for line in explanation.lines:
        tokens = []
        for text, weight in line.segments:
            for piece in text.split() if weight is None else [text]:
                tokens.append((piece, weight))
        lines.append((line.label, tokens))
    caption = ", ".join(f"{k}: {v:.3f}" for k, v in explanation.scores.items())
    return weight_heatmap(lines, path, title=" | ".join(x for x in (title, caption) if x), inputs=inputs, force=force,
                          legend=f"keyphrase weight ({explanation.unit}{', min-max normalised' if explanation.normalized else ''})")


def row_texts(path: str, row: int, max_chars: int | None = None) -> tuple[str, list[str], str, dict[str, float]]:
    """(question, references, candidate, scores) of row ``row`` (1 = the first data row) of a CSV / JSONL file: its
    numeric columns become the scores shown. A text longer than ``max_chars`` characters (None: the weighter's limit,
    :data:`kpqa.lengths.MAX_CHARS`) or a bad row is an :class:`InputError` (the other rows of the file are not
    checked)."""
    from kpqa.errors import InputError
    from kpqa.input import frame_to_table, is_field_column, read_input

    max_chars = model_limit(max_chars)
    table = read_input(path, on_error="skip", max_chars=max_chars)  # the other rows may be bad
    if row > len(table.frame):
        raise InputError(Param("row", row), f": the file has {len(table.frame)} rows", file=table.source)
    if row - 1 in table.errors:  # read that row alone to raise its error
        frame_to_table(table.frame.iloc[row - 1:row], table.source, table.numbers[row - 1:row], max_chars=max_chars)
    record = table.frame.iloc[row - 1]
    scores = {}
    for column, value in record.items():
        if is_field_column(str(column)) or str(column).startswith("Unnamed"):
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            continue
        if np.isfinite(number):
            scores[str(column)] = number
    i = row - 1 if table.kept_rows is None else table.kept_rows.index(row - 1)
    return table.rows.questions[i], table.rows.references[i], table.rows.candidates[i], scores


def texts(input: str | None = None, row: int | None = None, *, question: str | None = None,
          references: Sequence[str] | None = None, candidate: str | None = None,
          max_chars: int | None = None) -> tuple[str, list[str], str, dict[str, float]]:
    """(question, references, candidate, scores) to explain: row ``row`` of the file ``input`` (:func:`row_texts`),
    or the texts given (each at most ``max_chars`` characters long; None: :data:`kpqa.lengths.MAX_CHARS`), not both;
    a :class:`UsageError` naming the parameters otherwise."""
    given = question is not None or bool(references) or candidate is not None
    if input is not None:
        if given:
            raise UsageError("give either ", Param("input"), " ", Param("row", metavar="N"), " or ",
                             Param("question"), "/", Param("references"), "/", Param("candidate"), ", not both")
        if row is None:
            raise UsageError(Param("input"), " needs ", Param("row", metavar="N"), " (1 = first data row)")
        return row_texts(input, row, max_chars)
    if row is not None:
        raise UsageError(Param("row"), " needs ", Param("input"))
    if not references or candidate is None:
        raise UsageError("give ", Param("references"), " and ", Param("candidate"), " (and ", Param("question"),
                         "), or ", Param("input"), " ", Param("row", metavar="N"))
    limit = model_limit(max_chars)
    for name, text in [("question", question or ""), *(("references", r) for r in references),
                       ("candidate", candidate)]:
        check_length(text, limit, Param(name), None, None)
    return question or "", list(references), candidate, {}
