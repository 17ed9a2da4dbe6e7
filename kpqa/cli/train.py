"""``kpqa train`` and ``kpqa train-equivalence``: the trainers' own parsers and ``main`` (kpqa.train, imported by
module name when the subcommand runs: no import statement crosses into train/)."""
from __future__ import annotations

import argparse

from kpqa.errors import KpqaError

#: the trainers' subcommands: (help, description, module whose ``main(argv)`` runs it); their options and --help
#: belong to the trainer's own parser
TRAINERS = {
    "train": ("train the keyphrase weighter", "Train the KPQA keyphrase weighter; `kpqa train --help` lists its "
              "options.", "kpqa.train.cli"),
    "train-equivalence": ("train the answer-equivalence model (the Equivalence metric)", "Train the "
                          "answer-equivalence model (question, reference, candidate -> logit), which the Equivalence "
                          "metric reads; `kpqa train-equivalence --help` lists its options. (KPQA-judge is fitted by "
                          "`kpqa calibrate`.)", "kpqa.train.equivalence"),
}
#: old command names kept for one release: each runs its new command after a one-line note on stderr
RENAMED = {"train-judge": "train-equivalence"}


def add(sub: argparse._SubParsersAction) -> None:
    for name, (help_text, description, _) in TRAINERS.items():
        aliases = [old for old, new in RENAMED.items() if new == name]
        p = sub.add_parser(name, aliases=aliases, help=help_text, description=description, add_help=False)
        p.add_argument("argv", nargs=argparse.REMAINDER)
        p.set_defaults(run=lambda args, name=name: run(args.argv, name))


def run(argv: list[str], name: str = "train") -> int:
    import importlib

    try:
        trainer = importlib.import_module(TRAINERS[name][2])  # imports torch: only when training
    except ModuleNotFoundError as e:
        from kpqa.optional import EXTRAS

        if (e.name or "").split(".")[0] not in EXTRAS:
            raise
        raise KpqaError(f"kpqa {name} needs {e.name}: pip install 'kpqa[train]'") from None

    result: int = trainer.main(argv)
    return result
