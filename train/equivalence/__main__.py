"""``python -m kpqa.train.equivalence``: ``kpqa train-equivalence`` with the CLI's error handling (one line, its
exit code)."""
import sys

if __name__ == "__main__":
    from kpqa.cli import main as kpqa_main

    sys.exit(kpqa_main(["train-equivalence", *sys.argv[1:]]))
