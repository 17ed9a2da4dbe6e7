"""``kpqa train``: command-line front end of the weighter trainer (also ``python -m kpqa.train.cli``)."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Sequence

from kpqa.errors import KpqaError
from kpqa.models.device import PRECISIONS

from .forms import YES_NO
from .trainer import DEV_SPLITS, TrainConfig, train


def build_parser() -> argparse.ArgumentParser:
    """The options of ``kpqa train``."""
    p = argparse.ArgumentParser(prog="kpqa train", description=__doc__,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    d = TrainConfig(data=[], output="")
    p.add_argument("--data", action="append", required=True, metavar="NAME[@N]:PATH",
                   help="training source, repeatable: squad, squadshifts, policyqa, covidqa (SQuAD layout), "
                        "conditionalqa, hotpotqa or msmarco with its FILE, or NAME:hub[:SPLIT]; @N keeps a seeded "
                        "sample of N examples, @choice only the choice-question ones (leave one source out by "
                        "omitting it)")
    p.add_argument("--exclude-questions", action="append", default=[], metavar="FILE",
                   help="drop training examples whose question is one of FILE's (repeatable; e.g. the human-judgment "
                        "sets a weighter is judged by)")
    p.add_argument("--output", required=True, metavar="DIR", help="checkpoint folder (re-running resumes there)")
    p.add_argument("--no-question", action="store_true", help="train without the question ([CLS] text [SEP]; -KP)")
    p.add_argument("--epochs", type=int, default=d.epochs, help="passes over the training examples")
    p.add_argument("--batch-size", type=int, default=d.batch_size, help="windows per training step")
    p.add_argument("--lr", type=float, default=d.lr,
                   help="peak learning rate (the default suits fine-tuning the layers; LoRA wants more: 1e-3 suits "
                        "MiniLM, while MPNet collapsed to the class prior at 1e-3 and learned at 3e-4: "
                        "docs/weighter-experiments.md rounds 6-7)")
    p.add_argument("--max-length", type=int, default=d.max_length,
                   help="word pieces per window; longer texts are split into overlapping windows")
    p.add_argument("--backbone", default=d.backbone, help="minilm, mpnet, or a transformers model name / folder")
    p.add_argument("--lora-rank", type=int, default=d.lora_rank,
                   help="0: fine-tune the transformer layers (checkpoint ~21 MB for MiniLM); N >= 1: train "
                        "only a rank-N LoRA adapter on every linear map of every layer (~0.7 MB at rank 8)")
    p.add_argument("--train-layers", type=int, default=d.train_layers, metavar="N",
                   help="with --lora-rank 0, fine-tune only the top N transformer layers (default: all); keeps a "
                        "large backbone's checkpoint small (MPNet-base: ~14 MB per layer) and its training faster")
    p.add_argument("--short-answers", type=float, default=d.short_answers, metavar="SHARE",
                   help="share of span examples cut to the answer with 0-3 words around it")
    p.add_argument("--bare-answers", type=float, default=d.bare_answers, metavar="SHARE",
                   help="share of the other span examples cut to the answer span alone (a gold alias's shape)")
    p.add_argument("--long-answers", type=float, default=d.long_answers, metavar="SHARE",
                   help="share of the remaining span examples of SQuAD-layout sources given 1-4 of their paragraph's "
                        "sentences around the answer sentence (a long generated answer's shape)")
    p.add_argument("--echo-answers", type=float, default=d.echo_answers, metavar="SHARE",
                   help="share of the remaining span examples turned into the question restated around the answer "
                        "('The man behind X is Y.', a chatty generated answer's shape)")
    p.add_argument("--yes-no", choices=YES_NO, default=d.yes_no,
                   help="yes/no answers: 'Yes, <evidence>' (sentence), a bare 'yes' (bare), half each (mixed), or "
                        "dropped as in the paper (off)")
    p.add_argument("--choice-questions", type=int, default=d.choice_questions, metavar="N",
                   help="use each choice-question example (its answer is one of the options the question offers, "
                        "'home or takeout?' -> 'home') N times, the extra copies cut to short answers")
    p.add_argument("--max-answer-share", type=float, default=d.max_answer_share, metavar="SHARE",
                   help="drop span examples whose answer covers more than this share of the text (1.0: keep all)")
    p.add_argument("--precision", choices=PRECISIONS, default=d.precision,
                   help="training arithmetic: fp32 or bf16/fp16 autocast; auto is bf16 where the GPU or CPU has bf16 "
                        "instructions (AVX512-BF16, AMX), else fp32 (bf16 trained 1.5x faster on such a 2-core CPU at "
                        "the same dev K-F1 and suite: docs/weighter-experiments.md)")
    p.add_argument("--init", metavar="DIR", help="start from this checkpoint's trained layers and head (same "
                   "backbone and question setting) instead of the plain backbone; recorded in the metadata")
    p.add_argument("--teacher", metavar="DIR", help="distil: train on the soft K-probabilities of this checkpoint "
                   "(any backbone, same question setting), cached in OUTPUT/teacher (kpqa.train.distill)")
    p.add_argument("--hard-weight", type=float, default=d.hard_weight, metavar="W",
                   help="with --teacher, the share of the loss taken by the hard labels (the rest: the teacher's)")
    p.add_argument("--temperature", type=float, default=d.temperature,
                   help="with --teacher, the distillation temperature (>1 softens the teacher's and student's "
                        "probabilities alike)")
    p.add_argument("--polar-floor", type=float, default=d.polar_floor, metavar="P",
                   help="with --teacher, raise the targets of content words after a leading yes/no to at least P")
    p.add_argument("--seed", type=int, default=d.seed, help="seed of the dev split, shuffling and initialisation")
    p.add_argument("--max-examples", type=int, default=None, help="use at most this many examples (quick runs)")
    p.add_argument("--dev-split", choices=DEV_SPLITS, default=d.dev_split,
                   help="dev rows by whole passages (default: %(default)s; no passage on both sides) or by single "
                   "examples (how the shipped checkpoints were made: add --dev-split example to make them again)")
    p.add_argument("--note", default=None, help="free text recorded in the checkpoint metadata (e.g. a budget cut)")
    p.add_argument("--save-every", type=int, default=d.save_every, help="steps between resumable state saves")
    return p


def config_from_args(args: argparse.Namespace, argv: Sequence[str]) -> TrainConfig:
    """The TrainConfig an argument namespace asks for; ``argv`` is recorded as the command."""
    return TrainConfig(
        data=list(args.data), exclude_questions=list(args.exclude_questions), output=args.output,
        use_question=not args.no_question, epochs=args.epochs,
        batch_size=args.batch_size, lr=args.lr, max_length=args.max_length, backbone=args.backbone,
        lora_rank=args.lora_rank, train_layers=args.train_layers, seed=args.seed, max_examples=args.max_examples,
        dev_split=args.dev_split,
        short_answers=args.short_answers, bare_answers=args.bare_answers, long_answers=args.long_answers,
        echo_answers=args.echo_answers, yes_no=args.yes_no, max_answer_share=args.max_answer_share,
        choice_questions=args.choice_questions,
        precision=args.precision, init=args.init, teacher=args.teacher, hard_weight=args.hard_weight,
        temperature=args.temperature, polar_floor=args.polar_floor,
        save_every=args.save_every, command=shlex.join(["kpqa", "train", *argv]),
        extra={"note": args.note} if args.note else {},
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, train, print the dev metrics of the kept checkpoint as JSON."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    metadata = train(config_from_args(args, argv))
    print(json.dumps({"output": args.output, "dev": metadata["dev"], "dev_start": metadata.get("dev_start"),
                      "best_epoch": metadata["best_epoch"],
                      "training_seconds": metadata["training_seconds"]}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KpqaError as error:
        print(f"kpqa train: error: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
