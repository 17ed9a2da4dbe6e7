"""``python -m kpqa``: the ``kpqa`` command."""
import sys

from kpqa.cli import console

if __name__ == "__main__":  # not when a worker process imports the main module (kpqa.workers)
    sys.exit(console())
