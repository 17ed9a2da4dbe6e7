"""``kpqa metrics``: the metric registry listed (:func:`kpqa.metrics.base.describe`)."""
from __future__ import annotations

import argparse


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("metrics", help="list the metrics", description="List every metric name (with the -KP forms and "
                       "the parametrised families), a one-line description and the options it takes.")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from kpqa.metrics.base import describe
    from kpqa.scoring import DEFAULT_METRICS

    rows = describe()
    width = max(len(name) for name, _, _ in rows)
    for name, description, options in rows:
        mark = "*" if name in DEFAULT_METRICS else " "
        print(f"{name:<{width}} {mark} {description}{f'  [options {options}]' if options else ''}")
    print(f"\n* in the default suite. Names are matched case-insensitively; options follow the name, e.g. "
          f"BERTScore:idf=yes or ROUGE-L-KPQA:tok=words.")
    return 0
