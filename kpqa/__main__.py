"""``python -m kpqa``: the ``kpqa`` command."""
import sys

from kpqa.cli import console

sys.exit(console())
