"""``kpqa calibrate``: flags -> :func:`kpqa.labelled.fit_files` with the scorers of the one options
object (:func:`kpqa.scoring.factory`, meta-eval's path) -> the calibration file."""
from __future__ import annotations

import argparse

from kpqa.cli.common import SCORER_FLAGS, names, parent, scorer_options
from kpqa.errors import Param, UsageError


def add(sub: argparse._SubParsersAction) -> None:
    from kpqa.calibration import JUDGE_INPUTS, JUDGE_KIND, JUDGE_KINDS, METHODS, RULES
    from kpqa.labelled import REUSE_TOLERANCE, SPOT_CHECK
    from kpqa.scoring import DECIDE_METRICS

    p = sub.add_parser(
        "calibrate",
        help="fit score -> P(correct) maps and decision thresholds on human labels",
        description="Score every row of the INPUT files (human-judgment files with a 0/1 human label column) and "
        "fit, per metric, a monotone map score -> P(correct) and a decision threshold (highest balanced accuracy "
        "by default; the highest-accuracy and highest-kappa ones are recorded too), plus KPQA-judge when its input "
        "metrics are all there. Fitting is class-balanced (P(correct) assumes half the answers are correct; "
        "`kpqa score --prior` says otherwise) and several INPUT files weigh the same. The file records the metric signatures (weighter hash included), the data and the "
        "fitted parameters.",
        parents=[parent(*SCORER_FLAGS)],
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="CSV or JSONL files with human labels")
    p.add_argument("-o", "--output", required=True, help="write the calibration (JSON) here")
    p.add_argument("--metrics", type=names, default=",".join(DECIDE_METRICS),
                   help="comma-separated metrics (default: %(default)s)")
    p.add_argument("--human-column", default="scores", help="column of human labels (default: %(default)s)")
    p.add_argument("--positive-above", type=float, metavar="T",
                   help="count a numeric human score above T as correct (without it, labels must be 0 or 1)")
    p.add_argument("--method", choices=METHODS, default=METHODS[0],
                   help="score -> P(correct) map (default: %(default)s)")
    p.add_argument("--rule", choices=RULES, default=RULES[0],
                   help="decision threshold of the highest balanced accuracy (default: it does not depend on the share "
                   "of correct answers in INPUT), accuracy, or Cohen's kappa")
    p.add_argument("--reuse-scores", action="store_true",
                   help="take the metric columns an INPUT already has (from `kpqa score -o` with the same settings) "
                   f"instead of scoring it, after rescoring {SPOT_CHECK} of its rows: a difference over {REUSE_TOLERANCE:g} is an "
                   "error naming the row and column")
    p.add_argument("--judge-kind", choices=list(JUDGE_KINDS), default=JUDGE_KIND,
                   help="KPQA-judge's model: a logistic regression on the standardised scores (default) or boosted "
                   "regression trees (`trees`)")
    p.add_argument("--judge-inputs", type=names, metavar="M1,M2,...",
                   help=f"the metrics KPQA-judge combines, scored when --metrics lacks them (default: "
                   f"{','.join(JUDGE_INPUTS)}, when all are scored)")
    p.add_argument("--heldout", action="append", default=[], metavar="METRIC=FILE",
                   help="take METRIC's scores from FILE, the held-out scores of its model's cross-validation "
                   "(`kpqa train-equivalence --folds`: columns source, row, logit), not from the model itself, which "
                   "was trained on these rows (repeatable)")
    p.add_argument("--fold", metavar="K/N", help="fit on the rows whose question is in hash fold K of N only "
                   "(kpqa.folds.fold_of): the rows a model trained with `kpqa train-equivalence --folds N --fold K` "
                   "never saw, so that a judge reads its held-out scores")
    p.set_defaults(run=run)


def heldout_option(value: str, metrics: list[str]) -> tuple[str, str]:
    """(metric, file) of a ``--heldout METRIC=FILE``; UsageError unless METRIC is one of the metrics calibrated."""
    metric, _, path = value.partition("=")
    if not path or metric not in metrics:
        raise UsageError(Param("heldout", value), f": must be METRIC=FILE with METRIC one of {', '.join(metrics)}")
    return metric, path


def run(args: argparse.Namespace) -> int:
    from kpqa.labelled import Heldout, fit_files, judge_columns
    from kpqa.scoring import factory
    from kpqa.output import Destination
    from kpqa.signature import Signature

    from kpqa.folds import parse_fold

    Destination(args.output, inputs=args.inputs)  # refuse a path it cannot write before anything is read or scored
    try:
        fold = None if args.fold is None else parse_fold(args.fold)
    except ValueError:
        raise UsageError(Param("fold", args.fold), " needs K/N with 0 <= K < N") from None
    metrics, judge_inputs = judge_columns(args.metrics, args.judge_inputs)
    held = dict(heldout_option(value, metrics) for value in args.heldout)
    scored = [m for m in metrics if m not in held]
    if held and not scored:
        raise UsageError(Param("heldout", args.heldout[0]), ": every metric would come from held-out scores; "
                         "--metrics must name at least one metric to score")
    scorers = factory(scorer_options(args))
    scorer = scorers(scored)
    held_scorer = scorers(list(held)) if held else None  # the held-out metrics': what a scorer of them signs
    signatures = held_scorer.signatures(held_scorer.plan()) if held_scorer is not None else {}
    heldout = [Heldout.read(m, path, Signature.parse(signatures[m])) for m, path in held.items()]
    fitted = fit_files(scorer, args.inputs, human_column=args.human_column,
                       positive_above=args.positive_above, method=args.method, rule=args.rule,
                       reuse_scores=args.reuse_scores, judge_kind=args.judge_kind, judge_inputs=judge_inputs,
                       heldout=heldout, columns=args.columns, fold=fold)
    fitted.save(args.output, inputs=args.inputs)
    print(f"{fitted.rows} rows from {', '.join(args.inputs)}; wrote {args.output}")
    print(fitted.summary())
    return 0
