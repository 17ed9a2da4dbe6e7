"""``kpqa report``: a scored file (``kpqa score -o``, any format it writes) as one self-contained HTML page.

The page holds the per-metric summary (mean score, signature, share judged correct, and against a human label
column: accuracy, AUROC, ECE), a score histogram per metric and a reliability diagram per judge (inline SVG, see
:mod:`kpqa.svgcharts`), and every row in a table that sorts by any column and filters by metric score, decision,
human label and disagreement with it, and text. A row opens to show its question, references and candidate with
their keyphrase weights coloured as ``kpqa explain`` colours them, and its per-metric P(correct). The rows travel
as one inline JSON blob; the table shows ``PAGE`` (200) of them at a time, drawn in one pass, so 10,000 rows load
in well under a second. No network: no external script, style or font.

Metric columns: with ``metrics`` the names given, else every numeric column that is not a text, a reference, the
human column or a decision column. ``M-prob`` / ``M-correct`` columns (``kpqa score --decide``) are ``M``'s P(correct)
and decision (a judge such as ``KPQA-judge`` has those alone). Signatures come from ``FILE.signatures.json`` beside
the file when it is there (``kpqa score -o FILE`` writes it).
"""
from __future__ import annotations

import html
import json
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from kpqa.roles import DECISIONS, Role, decided_metric, decision_names, role_of
from kpqa.columns import binary_labels, numeric_column
from kpqa.errors import InputError, Param
from kpqa.input import ColumnMap, Table, is_field_column, read_input
from kpqa.lengths import MAX_CHARS
from kpqa.results import REASON, SIGNATURES_SUFFIX, read_signatures
from kpqa.version import __version__

#: the human label column taken when there is one and none is named
DEFAULT_HUMAN = "scores"
_NOT_METRICS = {"error", "system"}
#: not metrics either, beside the input's fields (:func:`kpqa.input.is_field_column`): pandas' unnamed index, a score
#: against known-wrong answers (``M-wrong``: a judge's input)
_NOT_METRIC = re.compile(r"^Unnamed: \d+$")
#: (question, text) pairs weighed per call to the weighter
WEIGH_SLICE = 512

Segments = list[tuple[str, "float | None"]]


@dataclass
class Scored:
    """A scored file read back: its table, metric scores, P(correct) and decisions per name (NaN: empty), the
    signatures known, and 0/1 human labels when the file has a human column."""

    table: Table
    scores: dict[str, np.ndarray]
    probs: dict[str, np.ndarray] = field(default_factory=dict)
    decisions: dict[str, np.ndarray] = field(default_factory=dict)
    signatures: dict[str, str] = field(default_factory=dict)
    human_column: str | None = None
    labels: np.ndarray | None = None
    label_rule: str = ""
    reasons: list[str] | None = None

    @property
    def names(self) -> list[str]:
        """The metrics: score columns in file order, then names with decisions alone (judges)."""
        return list(self.scores) + [n for n in {**self.probs, **self.decisions} if n not in self.scores]


def _numbers(table: Table, column: str) -> np.ndarray:
    """A column as floats (blank cells NaN); an InputError naming the first cell that is not a number."""
    return numeric_column(table.frame[column], source=table.source, column=column, numbers=table.numbers,
                          blanks=True)


def _in_range(table: Table, column: str, allowed: str) -> np.ndarray:
    """:func:`_numbers`, each 0 or 1 (``allowed="0/1"``) or in [0, 1] (``"[0, 1]"``)."""
    values = _numbers(table, column)
    finite = np.isfinite(values)
    ok = np.isin(values, (0.0, 1.0)) if allowed == "0/1" else (values >= 0) & (values <= 1)
    bad = np.flatnonzero(finite & ~ok)
    if len(bad):
        raise InputError(f"{values[bad[0]]:g} is not {'0 or 1' if allowed == '0/1' else 'in [0, 1]'}",
                         file=table.source, row=table.numbers[bad[0]], column=column)
    return values


def _metric_columns(table: Table, human: str | None, decided: set[str]) -> list[str]:
    """Every numeric column that is not text, a reference, the human column or a decision column."""
    out = []
    for column in map(str, table.frame.columns):
        if is_field_column(column) or column in (*_NOT_METRICS, human, *decided) or _NOT_METRIC.match(column) \
                or role_of(column) is Role.WRONG:
            continue
        try:
            values = _numbers(table, column)
        except InputError:
            continue
        if np.isfinite(values).any():
            out.append(column)
    return out


def read_scored(path: str | os.PathLike, *, metrics: Sequence[str] | None = None, human_column: str | None = None,
                positive_above: float | None = None, columns: ColumnMap | None = None) -> Scored:
    """Read a scored file (see the module docstring). ``human_column`` (default: ``scores`` when there is one):
    labels 0/1, or numbers counted correct above ``positive_above``, as ``kpqa calibrate`` reads them; ``columns``:
    which of its columns holds which field (:func:`kpqa.input.frame_to_table`)."""

    table = read_input(path, on_error="skip", max_chars=None, columns=columns)
    names = [str(c) for c in table.frame.columns]
    if human_column is not None and human_column not in names:
        raise InputError(f"no human label column {human_column!r} (columns: {', '.join(names)}); pick one with ",
                         Param("human_column"), file=table.source, column=human_column)
    human = human_column or (DEFAULT_HUMAN if DEFAULT_HUMAN in names else None)
    decided = {c for c in names if role_of(c) in DECISIONS}
    wanted = list(metrics) if metrics is not None else _metric_columns(table, human, decided)
    scored = Scored(table, {}, signatures=read_signatures(path), human_column=human)
    for name in wanted:
        if name in names:
            scored.scores[name] = _numbers(table, name)
        elif not set(decision_names(name)) & decided:
            raise InputError(Param("metrics", name), f": no such column (columns: {', '.join(names)})",
                             file=table.source, column=name)
    for name in wanted if metrics is not None else dict.fromkeys(decided_metric(c) for c in names if c in decided):
        if Role.PROB.of(name) in names:
            scored.probs[name] = _in_range(table, Role.PROB.of(name), "[0, 1]")
        if Role.CORRECT.of(name) in names:
            scored.decisions[name] = _in_range(table, Role.CORRECT.of(name), "0/1")
    if REASON in names:  # why KPQA-judge decided a row wrong (kpqa score --decide)
        scored.reasons = ["" if v is None or (isinstance(v, float) and v != v) else str(v)
                          for v in table.frame[REASON].tolist()]
    if human is not None:
        scored.labels = binary_labels(table.frame[human], positive_above, source=table.source, column=human,
                                      numbers=table.numbers)
        scored.label_rule = "0/1" if positive_above is None else f"correct above {positive_above:g}"
    return scored


def _texts(scored: Scored) -> tuple[list[str], list[str], list[list[str]]]:
    """Questions, candidates and references of every row of the file (a row left out for an error: its cells)."""
    table, rows = scored.table, scored.table.rows
    kept = range(len(table.frame)) if table.kept_rows is None else table.kept_rows
    where = {position: k for k, position in enumerate(kept)}
    frame = table.frame
    refs = [c for c in map(str, frame.columns) if re.match(r"^reference\d*$", c)]
    cell = lambda v: "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)  # noqa: E731
    questions, candidates, references = [], [], []
    for position, record in enumerate(frame.to_dict("records")):
        k = where.get(position)
        if k is not None:
            questions.append(rows.questions[k])
            candidates.append(rows.candidates[k])
            references.append(list(rows.references[k]))
        else:
            questions.append(cell(record.get("question")))
            candidates.append(cell(record.get("answer")))
            references.append([cell(record[c]) for c in refs if cell(record[c]).strip()])
    return questions, candidates, references


#: rows whose texts ``kpqa report`` weighs by default (:func:`weighed_rows`): the weighter's pass over them takes
#: seconds on a CPU, where every row of a large file took minutes
WEIGHED_ROWS = 200


def weighed_rows(scored: Scored, limit: int | None = WEIGHED_ROWS) -> list[int]:
    """The rows (frame positions, in file order) whose texts the page shows weighted: every scored row, or with a
    ``limit`` that many, those where the judge (``KPQA-judge``, else the first metric with decisions) disagrees with
    the human label first, then the others in file order."""
    kept = list(range(len(scored.table.frame)) if scored.table.kept_rows is None else scored.table.kept_rows)
    if limit is None or len(kept) <= limit:
        return kept
    judge = "KPQA-judge" if "KPQA-judge" in scored.decisions else next(iter(scored.decisions), None)
    first: list[int] = []
    if judge is not None and scored.labels is not None:
        wrong = scored.decisions[judge] != scored.labels
        first = [i for i in kept if wrong[i]]
    chosen = set(first[:limit])
    chosen.update([i for i in kept if i not in chosen][:limit - len(chosen)])
    return sorted(chosen)


def weigh_rows(scored: Scored, weighter: Any, *, tokenize: str = "ptb", unit: str = "word",
               progress: bool = False, rows: Sequence[int] | None = None) -> list[list[Segments] | None]:
    """Per row, the :func:`kpqa.explain.weigh` segments of its candidate then each reference (None for a row left
    out for an error, or not among ``rows``: default every scored row); every distinct (question, text) weighed
    once, shortest first, ``WEIGH_SLICE`` at a time. A text longer than :data:`kpqa.lengths.MAX_CHARS` is left
    unweighted (one segment without a weight)."""
    from tqdm.auto import tqdm

    from kpqa.explain import weigh
    from kpqa.text import resolve_tokenizer

    questions, candidates, references = _texts(scored)
    tokenize = resolve_tokenizer(tokenize, candidates + [r for refs in references for r in refs])  # once
    kept = set(range(len(questions)) if scored.table.kept_rows is None else scored.table.kept_rows)
    kept = kept if rows is None else kept & set(rows)
    pairs = [(questions[i], t) for i in sorted(kept) for t in [candidates[i], *references[i]]]
    todo = sorted({p for p in pairs if len(p[1]) <= MAX_CHARS}, key=lambda p: (len(p[0]) + len(p[1]), p))
    found: dict[tuple[str, str], Segments] = {}
    with tqdm(total=len(todo), desc="weights", unit="text", disable=None if progress else True) as bar:
        for start in range(0, len(todo), WEIGH_SLICE):
            chunk = todo[start:start + WEIGH_SLICE]
            found.update(zip(chunk, weigh(chunk, weighter, tokenize=tokenize, unit=unit)))
            bar.update(len(chunk))
    return [[found.get((questions[i], t), [(t, None)]) for t in [candidates[i], *references[i]]] if i in kept
            else None for i in range(len(questions))]


def _compact(segments: Segments) -> list[int]:
    """Segments as ``[length, weight x 100 (-1: none), ...]``: lengths in code points, weights to 2 decimals."""
    out: list[int] = []
    for text, weight in segments:
        out += [len(text), -1 if weight is None else int(round(min(max(weight, 0.0), 1.0) * 100))]
    return out


def _rounded(values: np.ndarray | None, digits: int) -> list[float | None] | None:
    if values is None:
        return None
    return [round(float(v), digits) if np.isfinite(v) else None for v in values]


def _decisions(values: np.ndarray | None) -> list[int | None] | None:
    return None if values is None else [int(v) if np.isfinite(v) else None for v in values]


def payload(scored: Scored, weights: Sequence[list[Segments] | None] | None = None,
            palette: Sequence[tuple[str, str]] | None = None, unit: str = "word") -> dict[str, Any]:
    """What the page's script reads (JSON-ready): texts, per-metric columns, human labels, compact weights."""
    questions, candidates, references = _texts(scored)
    names = scored.names
    default = next((k for k, n in enumerate(names) if n == "KPQA-judge"), None)
    default = default if default is not None else next((k for k, n in enumerate(names) if n in scored.decisions), 0)
    table = scored.table
    return {
        "numbers": list(table.numbers),
        "q": questions, "a": candidates, "refs": references,
        "errors": {str(k): reason for k, reason in table.errors.items()},
        "metrics": [{"name": n, "score": _rounded(scored.scores.get(n), 4), "prob": _rounded(scored.probs.get(n), 3),
                     "correct": _decisions(scored.decisions.get(n))} for n in names],
        "default_metric": default,
        "reasons": scored.reasons,
        "human": None if scored.labels is None else {"column": scored.human_column, "rule": scored.label_rule,
                                                     "labels": _decisions(scored.labels)},
        "weights": None if weights is None else {
            "unit": unit, "palette": [list(c) for c in palette or ()],
            "rows": [None if w is None else [_compact(s) for s in w] for w in weights]},
    }


def _cell(value: float | None, digits: int = 3) -> str:
    return "&ndash;" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"


def summary(scored: Scored) -> str:
    """The per-metric table (HTML): rows scored, mean score, mean P(correct), share judged correct, and with human
    labels accuracy, AUROC and ECE against them; each metric's signature."""
    from kpqa.binary import evaluate

    y = scored.labels
    head = ["metric", "rows", "mean score", "mean P(correct)", "judged correct"]
    head += ["accuracy", "AUROC", "ECE"] if y is not None else []
    out = ["<table class=\"summary\"><tr>" + "".join(f"<th>{h}</th>" for h in head + ["signature"]) + "</tr>"]
    for name in scored.names:
        score, prob, decision = (d.get(name) for d in (scored.scores, scored.probs, scored.decisions))
        main = next(v for v in (score, prob, decision) if v is not None)
        ok = np.isfinite(main)
        cells = [html.escape(name), f"{int(ok.sum()):,}"]
        cells += [_cell(np.nanmean(v) if v is not None and ok.any() else None) for v in (score, prob, decision)]
        if y is not None:
            ranked = score if score is not None else prob  # a judge ranks the rows by its P(correct)
            got = evaluate(y[ok], scores=None if ranked is None else ranked[ok], probs=None if prob is None else prob[ok],
                           decisions=None if decision is None else decision[ok], bootstrap=0) if ok.any() else {}
            cells += [_cell(got[k].value if k in got else None) for k in ("accuracy", "auroc", "ece")]
        signature = scored.signatures.get(name) or scored.signatures.get(Role.PROB.of(name)) or ""
        cells_html = "".join(f"<td>{c}</td>" for c in cells)
        out.append(f'<tr>{cells_html}<td class="sig">{html.escape(signature)}</td></tr>')
    out.append("</table>")
    notes = ["mean score: the mean of the per-row column (for BLEU the corpus score, from summed statistics, "
             "differs; `kpqa score` prints it)"]
    if not scored.signatures:
        notes.append(f"no {SIGNATURES_SUFFIX} beside the file: signatures unknown")
    if y is not None:
        notes.append(f"human: column {scored.human_column!r} ({scored.label_rule}), {int(y.sum()):,} of {len(y):,} "
                     "correct; accuracy of the decisions, AUROC of the scores (of a judge: of its P(correct)), ECE of "
                     "P(correct) against it")
    return "\n".join(out) + "".join(f'<p class="muted">{html.escape(n)}</p>' for n in notes)


def charts(scored: Scored) -> str:
    """Score histograms (split by human label when there is one) and, with human labels, reliability diagrams."""
    from kpqa.binary import reliability as bins_of
    from kpqa.svgcharts import histogram, reliability

    y = scored.labels
    out = ["<h2>Scores</h2><div class=\"charts\">"]
    out += [histogram(v, y, title=n) for n, v in scored.scores.items()]
    out.append("</div>")
    if scored.probs:
        out.append("<h2>Reliability of P(correct)</h2>")
        if y is None:
            out.append('<p class="muted">no human label column: no reliability diagram</p>')
        else:
            out.append("<div class=\"charts\">")
            for name, prob in scored.probs.items():
                ok = np.isfinite(prob)
                out.append(reliability(bins_of(y[ok], prob[ok]), title=name))
            out.append("</div>")
    return "\n".join(out)


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element (no ``<``, so no ``</script>``)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def to_html(scored: Scored, weights: Sequence[list[Segments] | None] | None = None,
            palette: Sequence[tuple[str, str]] | None = None, *, unit: str = "word", title: str | None = None) -> str:
    """The page (see the module docstring); ``weights`` from :func:`weigh_rows`, ``palette`` from
    :func:`kpqa.explain.palette` (101 colours)."""
    n = len(scored.table.frame)
    title = title or f"kpqa report: {Path(scored.table.source).name} ({n:,} rows)"
    parts = {
        "TITLE": html.escape(title),
        "SUMMARY": f'<p class="muted">{html.escape(scored.table.source)}, kpqa {__version__}</p>' + summary(scored),
        "CHARTS": charts(scored),
        "DATA": _script_json(payload(scored, weights, palette, unit)),
    }
    template = resources.files("kpqa").joinpath("report.html").read_text(encoding="utf-8")
    return re.sub(r"__([A-Z]+)__", lambda m: parts.get(m.group(1), m.group(0)), template)
